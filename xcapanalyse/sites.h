/*
 * sites.h — round trips by the code that made them.  The stacks come from
 * a side file written by libxcapwait.so (xcap-run(1)): one line per wait
 * in libxcb with the client's TCP port, the sequence number waited on and
 * the stack.  A wait of the state model is joined to the line of its
 * connection's client port whose sequence number is among the requests
 * answered at the end of the wait (the burst), the longest such call
 * first: the one that blocked.
 *
 * Belongs to: libanalyse, the analysis layer's library, which netplot links too (xcapanalyse/).
 */
#ifndef XCAPANALYSE_SITES_H
#define XCAPANALYSE_SITES_H

#include <stdbool.h>
#include <stdio.h>

#include "output.h"
#include "record.h"
#include "state.h"

struct sites;

/* Read the side file at path.  NULL with the reason in err when it cannot
   be read or holds no wait line; lines it cannot parse are counted
   (sites_bad_lines) and skipped. */
struct sites *sites_load(const char *path, char *err, size_t errlen);
/* The same from an open stream (not closed); path names it in messages. */
struct sites *sites_load_stream(FILE *f, const char *path, char *err, size_t errlen);
size_t sites_bad_lines(const struct sites *s);

/* Name each frame's source file and line, " (file.c:12)" after it, from
   the debug info of its module (the file's "module NAME PATH" lines;
   separate debug info is found by build id, as gdb does).  Frames whose
   module has none stay as they are; without libdw at build time nothing
   changes.  0, or -1 when out of memory. */
int sites_resolve_sources(struct sites *s);

/* Feed every record before the model sees it: connections give the client
   ports, requests the repeated ones (avoidable round trips).  0, or -1
   when out of memory. */
int sites_record(struct sites *s, const struct xrec *rec);

/* The call site of a wait ("module:function+0xoff", the first frame
   outside libxcb and Xlib), NULL when no stack joins it.  The same wait
   gives the same answer on each call. */
const char *sites_of_wait(struct sites *s, const struct xstate_wait *w);

/* The whole stack of the wait sites_of_wait last joined: its frame count,
   and in *first the first frame (the caller of the libxcb call); each
   frame is a string, the next one starts after its NUL.  0 when none. */
size_t sites_last_stack(const struct sites *s, const char **first);

/* The stack of a wait without joining it (a viewer asks about one wait
   at a time, in any order): the wait on the connection of client port
   naming request seq, answered with burst_first..burst_last, from start
   to end (ns, the trace's clock).  Its frame count, and in *first the
   first frame as sites_last_stack gives it; 0 and NULL when none. */
size_t sites_stack_of(const struct sites *s, uint16_t port, uint64_t seq, uint64_t burst_first,
		      uint64_t burst_last, uint64_t start, uint64_t end, const char **first);

/* Round trips by call site, sorted by total wait, then the avoidable
   ones.  Attach before feeding the model; print after xstate_finish. */
int sites_view_attach(struct sites *s, struct xstate_model *m);
/* What the view does with each wait the model reports (attach calls it). */
void sites_wait(struct sites *s, const struct xstate_wait *w);
void sites_view_print(struct sites *s, FILE *out, enum out_format fmt);

/* The round-trip time (ns) at which the view's last sentence costs the
   round trips and the avoidable ones; 0, the default, is 100 ms. */
void sites_set_cost_rtt(struct sites *s, uint64_t rtt);

void sites_free(struct sites *s);

#endif
