/*
 * responses.h — what a person at the screen feels: the response time of
 * every input (DESIGN.md, "Responses"; the rule of SLIM and of slow-motion
 * benchmarking).
 *
 * An input is, for X11, a key, button or motion event the server delivers
 * to the client (core, or an XI2 device event; not a raw event; not one
 * sent with SendEvent unless asked), and for RFB a KeyEvent or
 * PointerEvent from the viewer.  It opens a response on its connection:
 * the protocol activity that follows, until the connection goes quiet
 * (no message for `quiet` ns with no reply outstanding) or the next input
 * comes.  X11: the client's requests and the server's replies and events;
 * the response ends with the client's last request that changes what the
 * display shows (drawing, a window mapped, unmapped or moved).  RFB: the server's FramebufferUpdates; the response ends with
 * the last byte of the last update (the viewer's requests for updates go
 * on regardless, so they neither end nor extend it).  Motion while a
 * button is held belongs to the press (SLIM), and counts in its
 * `motions`.
 *
 * Response time is as the display sees it.  The display is the X server,
 * or the RFB viewer.  A capture beside the display sees both ends as the
 * display does; one beside the other end (the X client, the RFB server)
 * sees the input one one-way delay after the display sent it, and the
 * response one one-way delay before the display gets it: a round trip is
 * added, as the state model measured it for the connection (xstate's
 * rtt; where the capture was is xstate's side, --capture-side).
 *
 * The model streams: it keeps one open response per connection and emits
 * each through the callback when it closes, so memory does not grow with
 * the number of inputs.  Feed it the records after the state model has
 * had them (it asks the model for the connection's RTT and side and
 * listens to its round trips), and call xresp_finish after xstate_finish.
 */
#ifndef XCAPANALYSE_RESPONSES_H
#define XCAPANALYSE_RESPONSES_H

#include <stdbool.h>
#include <stdint.h>

#include "record.h"
#include "state.h"

enum xinput_kind {
	XINPUT_KEY_PRESS,
	XINPUT_KEY_RELEASE,
	XINPUT_BUTTON_PRESS,
	XINPUT_BUTTON_RELEASE,
	XINPUT_MOTION,
	XINPUT_KIND_N
};

/* "key-press", "key-release", "button-press", "button-release", "motion" */
const char *xinput_kind_name(enum xinput_kind k);

/* struct xresponse.flags */
#define XRESP_F_NO_RESPONSE 0x01	/* nothing visible followed (X11: no request
					   that draws; RFB: no update) before quiet or
					   the next input */
#define XRESP_F_CUT	    0x02	/* never went quiet: the next input ended it
					   (animation, or inputs faster than responses) */
#define XRESP_F_UNCERTAIN   0x04	/* the capture lost bytes of the connection, or
					   a message's framing was uncertain, inside it */
#define XRESP_F_SYNTHETIC   0x08	/* an X11 event sent with SendEvent */
#define XRESP_F_NO_RTT	    0x10	/* the display was at the far end and the RTT
					   was not known: nothing was added */

struct xresponse {
	uint32_t conn;
	const char *proto;		/* "x11", "rfb" */
	uint64_t index;			/* 1, 2, ... per connection */
	uint64_t input_ts;		/* the input, as captured (ns) */
	enum xinput_kind kind;
	/* Which key or button: X11 "key=38" or "button=1" (the keycode, and
	   a keysym name after it when the client's keyboard mapping was
	   seen), RFB "keysym=0x61 (a)" or "button=1"; "" for motion. */
	char what[48];
	uint32_t window;		/* X11 event window; 0 unknown (RFB) */
	int32_t x, y;			/* pointer position (X11: in the event
					   window; RFB: on the framebuffer) */
	bool has_pos;
	uint64_t motions;		/* motion events folded into it */
	/* The response's last visible activity as captured (ns); input_ts
	   when there was none (XRESP_F_NO_RESPONSE). */
	uint64_t end_ts;
	/* What the display saw: end_ts - input_ts + display_delay. */
	uint64_t response;
	uint64_t display_delay;		/* ns added for the capture point */
	uint64_t msgs[2], bytes[2];	/* by enum xdir, the input itself not counted */
	uint64_t trips;			/* blocking round trips begun inside it */
	uint64_t trip_wait;		/* their total wait, ns */
	/* RFB: FramebufferUpdates, their rectangles and the pixels they cover. */
	uint64_t updates, rects, pixels;
	unsigned flags;			/* XRESP_F_* */
};

struct xresp_options {
	/* A response ends once its connection has been quiet this long (ns):
	   default 100 ms, the middle of the 50-150 ms a person starts to
	   notice; a pause the person could see is the end of a response. */
	uint64_t quiet;
	/* Until something answers the input (an X11 client's first request
	   after it, an RFB server's first update), the response waits this
	   long (ns), not only the quiet period: default 1 s, so that a
	   server slower than the quiet period to begin (x11vnc polls its
	   screen; a slow link) is measured, not called no response. */
	uint64_t first;
	/* X11 events sent with SendEvent count as inputs (default no: no
	   person made them). */
	bool synthetic;
	/* Motion while a button is held belongs to the press (default yes,
	   SLIM); no: every motion is an input of its own. */
	bool fold_motion;
};

void xresp_options_default(struct xresp_options *opt);

struct xresp_model;

typedef void (*xresp_emit_fn)(void *ctx, const struct xresponse *r);

/* A model that emits each response through fn, asking m for RTTs and
   listening to its waits (one of m's XSTATE_LISTENERS_MAX).  NULL when
   out of memory or m refuses another listener. */
struct xresp_model *xresp_new(const struct xresp_options *opt, struct xstate_model *m,
			      xresp_emit_fn fn, void *ctx);
/* Feed one record, after xstate_record had it.  0, or -1 out of memory. */
int xresp_record(struct xresp_model *r, const struct xrec *rec);
/* The input ended: emit what is still open.  After xstate_finish. */
void xresp_finish(struct xresp_model *r);
void xresp_free(struct xresp_model *r);

/* Summaries over a stream of responses, in constant memory: response
   times go into a histogram of fixed buckets (0.1 ms up to 1 ms, then
   1 % steps), so percentiles are within 1 % of the exact ones. */
/* The rectangles and pixels of an RFB FramebufferUpdate from its detail
   ("5 rects; Raw 5 12288px 49212B; ..."), added to *rects and *pixels. */
void xresp_update_counts(const char *detail, uint64_t *rects, uint64_t *pixels);

struct xresp_summary;
struct xresp_summary *xresp_summary_new(void);
void xresp_summary_add(struct xresp_summary *s, const struct xresponse *r);
void xresp_summary_free(struct xresp_summary *s);
struct xresp_stats {
	uint64_t count;			/* inputs */
	uint64_t responded;		/* with a visible response: the percentiles' */
	uint64_t no_response, cut, uncertain;
	uint64_t p50, p90, p95, p99, max; /* ns, over responded */
	uint64_t over50, over100, over150;	/* responded inputs above 50/100/150 ms */
	uint64_t first_ts, last_ts;	/* first and last input */
	double input_rate;		/* inputs per second over that span */
	uint64_t bytes[2], pixels;
};
void xresp_summary_stats(const struct xresp_summary *s, struct xresp_stats *out);

#endif
