/*
 * views.h — what xcapanalyse prints from the state model: the delay
 * table (the paper's Table 1), the requests waited on (Table 2) and the
 * list of blocking round trips.
 *
 * Belongs to: the xcapanalyse command's room (xcapanalyse/cmd/xcapanalyse/).
 */
#ifndef XCAPANALYSE_VIEWS_H
#define XCAPANALYSE_VIEWS_H

#include <stdbool.h>
#include <stdio.h>

#include "output.h"
#include "sites.h"
#include "state.h"

/* Per connection and direction Idle, Block Send, Block Recv and Block
   Reply, then All, then the Total Network Delay; and the notes on what
   the trace cannot tell.  After xstate_finish. */
void delays_print(FILE *out, enum out_format fmt, const struct xstate_model *m);

/* The requests waited on, by name (and by connection when per_conn).
   Attach before feeding the model. */
struct requests_view;
struct requests_view *requests_view_new(struct xstate_model *m, bool per_conn);
void requests_view_print(struct requests_view *v, FILE *out, enum out_format fmt,
			 const struct xstate_model *m);
void requests_view_free(struct requests_view *v);

/* Every blocking round trip as it is found.  Attach before feeding the
   model; finish after xstate_finish.  With sites (NULL: none), a Site
   column names the code that waited. */
struct trips_view;
struct trips_view *trips_view_new(struct xstate_model *m, FILE *out, enum out_format fmt,
				  struct sites *sites);
void trips_view_finish(struct trips_view *v, const struct xstate_model *m);

/* --responses (one row per input) or, when summary, --responses-summary.
   Feed it every record after the model has it; finish after
   xstate_finish (it prints and frees).  -1 when out of memory. */
struct xresp_options;
struct responses_view;
struct responses_view *responses_view_new(struct xstate_model *m, FILE *out, enum out_format fmt,
					  const struct xresp_options *opt, bool summary);
int responses_view_record(struct responses_view *v, const struct xrec *rec);
int responses_view_finish(struct responses_view *v);

/* --updates: per connection, RFB FramebufferUpdates per second, their
   rectangles and pixels, bytes, and the longest gap between updates,
   inside the span asked; with an ideal frame rate, slow-motion
   benchmarking's video quality.  Feed it every record; finish after
   xstate_finish (it prints and frees). */
struct updates_options {
	uint64_t from, to;		/* --range: ns after the first packet */
	/* --mark-span: the span begins at the first mark whose text is
	   from_mark and ends at the next one whose text is to_mark (both
	   NULL: no marks). */
	const char *from_mark, *to_mark;
	double ideal_fps;		/* --ideal-fps; 0 no video quality */
	const char *reference;		/* --slow-motion: the slow-motion run's trace */
	double reference_fps;		/* --slow-motion-fps: its frame rate */
};
struct updates_view;
/* NULL with the reason in err (the slow-motion run unreadable, its marks
   missing, out of memory). */
struct updates_view *updates_view_new(struct xstate_model *m, const struct updates_options *o,
				      char *err, size_t errsize);
int updates_view_record(struct updates_view *v, const struct xrec *rec);
void updates_view_finish(struct updates_view *v, FILE *out, enum out_format fmt);

/* --connections (printed at the end) or, with marks, --marks (a row per
   mark as it comes).  Feed it the records; finish prints and frees. */
struct conns_view;
/* --tcp-stats (tcpstats_view.c): tcptrace -l's statistics per connection. */
struct tcpstats_view *tcpstats_view_new(FILE *out, enum out_format fmt);
int tcpstats_view_record(struct tcpstats_view *v, const struct xrec *rec);
void tcpstats_view_finish(struct tcpstats_view *v);

/* ranged: --range was given, and only connections with packets inside
   it are listed.  in_range: the record's time is inside it (its
   packets, messages, gaps and marks count only then; what says what a
   connection is, whenever it came). */
struct conns_view *conns_view_new(FILE *out, enum out_format fmt, bool marks, bool ranged);
int conns_view_record(struct conns_view *v, const struct xrec *rec, bool in_range); /* -1: memory */
void conns_view_finish(struct conns_view *v);

/* --frames (frames_view.c): Wayland's frame pacing per surface; a frame
   asked for more than idle_ns after the previous answer is idle. */
struct frames_view;
struct frames_view *frames_view_new(FILE *out, enum out_format fmt, uint64_t idle_ns);
int frames_view_record(struct frames_view *v, const struct xrec *rec, bool in_range);	/* -1: memory */
void frames_view_finish(struct frames_view *v);

/* --input-to-photon (photon_view.c): Wayland's response to each input,
   on the wire and by the compositor's clock. */
struct photon_view;
struct photon_view *photon_view_new(struct xstate_model *m, FILE *out, enum out_format fmt,
				    const struct xresp_options *opt);
int photon_view_record(struct photon_view *v, const struct xrec *rec);	/* -1: memory */
void photon_view_finish(struct photon_view *v);

#endif
