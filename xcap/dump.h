/*
 * dump.h — records as one line of text each: the type, then key=value
 * fields.  This is what golden tests compare and what people grep, so the
 * field names and their order are part of the interface (see xcap(5)).
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#ifndef XCAP_DUMP_H
#define XCAP_DUMP_H

#include <stddef.h>
#include <stdio.h>

#include "record.h"
#include "trace.h"

/* The "trace ..." line that describes the capture. */
void trace_info_dump(FILE *f, const struct trace_info *info);
/* One record, one line. */
void xrec_dump(FILE *f, const struct xrec *rec);

/* "127.0.0.1:6000", "[::1]:6000", or "-" when the family is unknown. */
void xaddr_format(char *buf, size_t n, const struct xaddr *a);
/* Names used in the dump, shared with the other text outputs. */
const char *xdir_name(unsigned dir);		/* "c2s", "s2c" */
const char *xmsg_kind_name(unsigned kind);	/* "request", ... */
const char *xgap_reason_name(unsigned reason);	/* "lost", ... */
const char *xmark_source_name(unsigned source);	/* "signal", "atom", ... */
/* A message's PROTO_F_* flags by name ("uncertain", "send-event", ...),
   joined by sep; "" when none is set. */
void xmsg_flags_format(char *buf, size_t size, unsigned flags, const char *sep);

#endif
