/*
 * source.h — records from any capture a user brings: an .xcap trace is
 * read as it is; a .pcap or .pcapng file goes through the same pipeline
 * as a live capture, on the fly.  Every command reads its input this way.
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
   or truncated tail: what came before is all delivered).  Strings in *rec
   stay valid until the next call. */
int xsource_next(struct xsource *s, struct xrec *rec);
enum xsource_kind xsource_kind(const struct xsource *s);
/* The trace header, or for pcap input what the file says of itself. */
const struct xtrace_info *xsource_info(const struct xsource *s);
/* Problems are reported through fn as they are met (default: stderr,
   prefixed by the program name given here). */
void xsource_on_warning(struct xsource *s, void (*fn)(void *ctx, const char *msg), void *ctx);
unsigned xsource_problems(const struct xsource *s);
void xsource_close(struct xsource *s);

#endif
