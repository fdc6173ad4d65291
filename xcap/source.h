/*
 * source.h — records from any capture a user brings: an .xcap trace is
 * read as it is; a .pcap or .pcapng file goes through the same pipeline
 * as a live capture, on the fly.  Every command reads its input this way.
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#ifndef XCAP_SOURCE_H
#define XCAP_SOURCE_H

#include <stddef.h>
#include <stdio.h>

#include "pipeline.h"
#include "record.h"
#include "trace.h"

enum xsource_kind { XSOURCE_TRACE, XSOURCE_PCAP };

struct xsource;

/* Open path ("-" for standard input).  filter is a BPF expression applied
   to pcap input (NULL or "" for none); opt may be NULL for defaults.
   Returns NULL with the reason in err. */
struct xsource *xsource_open(const char *path, const char *filter,
			     const struct pipeline_options *opt, char *err, size_t errlen);
/* The same on an open stream; own: close it when done.  name is used in
   messages. */
struct xsource *xsource_open_stream(FILE *f, int own, const char *name, const char *filter,
				    const struct pipeline_options *opt, char *err, size_t errlen);
/* The next record: 1, or 0 at the end (after any warning about a damaged
   or truncated tail: what came before is all delivered), or -1 when
   reading cannot go on (out of memory; xsource_error says why).  Strings
   in *rec stay valid until the next call.  Nothing here ends the program
   or names one: the caller prints, and decides. */
int xsource_next(struct xsource *s, struct xrec *rec);
/* Why xsource_next returned -1 ("out of memory: record queue: 'x.pcap'"),
   NULL while it has not. */
const char *xsource_error(const struct xsource *s);
enum xsource_kind xsource_kind(const struct xsource *s);
/* The trace header, or for pcap input what the file says of itself. */
const struct trace_info *xsource_info(const struct xsource *s);
/* Problems that do not stop reading (a damaged block, a truncated tail,
   skipped packets) are reported through fn as they are met, without a
   program name: the command adds its own.  Default: stderr as they are. */
void xsource_on_warning(struct xsource *s, void (*fn)(void *ctx, const char *msg), void *ctx);
unsigned xsource_problems(const struct xsource *s);
/* How far into its file the reading is, in bytes (read ahead by a
   buffer); -1 when unknown (a pipe).  For a progress meter. */
long long xsource_offset(const struct xsource *s);
void xsource_close(struct xsource *s);

#endif
