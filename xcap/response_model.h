/*
 * response_model.h — what a person at the screen feels: the response
 * time of every input (DESIGN.md, "Responses"; the rule of SLIM and of slow-motion
 * benchmarking).
 *
 * An input is, for X11, a key, button or motion event the server delivers
 * to the client (core, or an XI2 device event; not a raw event; not one
 * sent with SendEvent unless asked), for RFB a KeyEvent (or QEMU's
 * ExtendedKeyEvent) or a PointerEvent from the viewer that moves the
 * pointer or changes its buttons, and for Wayland (and waypipe) a
 * wl_keyboard.key, wl_pointer.button or .motion, or wl_touch.down or .up
 * the compositor sends the client.  It opens a response on its connection:
 * the protocol activity that follows, until the connection goes quiet
 * (no message for `quiet` ns with no reply outstanding) or the next input
 * comes.  X11: the client's requests and the server's replies and events;
 * the response ends with the client's last request that changes what the
 * display shows (drawing, a window mapped, unmapped or moved).  RFB: the
 * server's FramebufferUpdates; the response ends with the last byte of
 * the last update (the viewer's requests for updates go on regardless,
 * so they neither end nor extend it; an update of pseudo-encodings
 * alone, a cursor shape, changes no pixel and does not end it either).
 * Wayland: the client's requests and the compositor's events; the
 * response ends with the last wl_surface.commit with new content, and a
 * presentation feedback asked for with the first keeps it open until the
 * compositor answers it.  Motion while a button is held belongs to the press (SLIM), and counts in
 * its `motions`; so does a release in the same moment as its press
 * (release_within), counted in `releases`.
 *
 * Response time is as the display sees it.  The display is the X server,
 * the Wayland compositor, or the RFB viewer.  A capture beside the display sees both ends as the
 * display does; one beside the other end (the X client, the RFB server)
 * sees the input one one-way delay after the display sent it, and the
 * response one one-way delay before the display gets it: a round trip is
 * added, the connection's RTT (struct xresp_where).
 *
 * The model streams: it keeps one open response per connection and emits
 * each through the callback when it closes, so memory does not grow with
 * the number of inputs.  It lives in the capture layer so that the flight
 * recorder (xcap --trigger response>...) and the analysis (xcapanalyse
 * --responses, netplot) share one rule.  What it cannot see from records
 * alone, where the capture was and the connection's RTT, it asks of a
 * struct xresp_where (xcapanalyse binds it to the state model, and feeds
 * it the model's waits through xresp_wait); without one it takes the
 * capture to be beside the client with no RTT known, and reports times as
 * captured (XRESP_F_NO_RTT).
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#ifndef XCAP_RESPONSE_MODEL_H
#define XCAP_RESPONSE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "record.h"

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
#define XRESP_F_DISCARDED   0x20	/* Wayland: the compositor discarded the
					   commit the feedback was for */
#define XRESP_F_CLOCK_ESTIMATED 0x40	/* Wayland over waypipe: the presented time
					   came in CLOCK_REALTIME and was brought
					   back to the input's clock by an offset
					   estimated from the wire (photon) */

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
	uint64_t releases;		/* its release folded into it (0 or 1) */
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
	/* Wayland: the first wl_surface.commit with new content after the
	   input (an attach or damage since the surface's last commit), as
	   captured, 0 none; the compositor's wp_presentation_feedback.presented
	   for that commit when the client asked for feedback, as captured, 0
	   none (discarded: XRESP_F_DISCARDED); and input to photon by the
	   compositor's own clock, from that presented time back to the input's
	   time on the wire (zwp_input_timestamps_v1's ns when the client asked
	   for them, else the event's ms), 0 when either is missing. */
	uint64_t commit_ts, presented_ts, photon;
	int32_t clock_id;		/* wp_presentation.clock_id's clock, -1 not seen */
	enum xinput_clock { XINPUT_CLOCK_NONE, XINPUT_CLOCK_MS, XINPUT_CLOCK_NS } input_clock;
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
	/* A key's or a button's release this soon (ns) after its press, with
	   no input between, belongs to the press: one input, the key or the
	   click, as a program types them (XTEST, xdotool, a viewer sending
	   both at once, a few ms apart, more on a busy machine).  Default
	   50 ms: a person rarely holds a key or a button less long, and when
	   one does, the release's response (a button acts on its release) is
	   the click's.  0: every release is an input of its own. */
	uint64_t release_within;
};

void xresp_options_default(struct xresp_options *opt);

struct xresp_model;

typedef void (*xresp_emit_fn)(void *ctx, const struct xresponse *r);

/* Where the capture of a connection was taken, as far as is known:
   beside_server true when beside the X server (X11) or the RFB server,
   and the connection's RTT in ns (0 unknown).  false: nothing known yet
   (taken as beside the client, no RTT). */
struct xresp_where {
	void *ctx;
	bool (*conn)(void *ctx, uint32_t conn, bool *beside_server, uint64_t *rtt);
};

/* A model that emits each response through fn.  where may be NULL.  NULL
   when out of memory. */
struct xresp_model *xresp_model_new(const struct xresp_options *opt,
				    const struct xresp_where *where, xresp_emit_fn fn, void *ctx);
/* Feed one record (after the state model had it, when there is one).  0,
   or -1 out of memory. */
int xresp_record(struct xresp_model *r, const struct xrec *rec);
/* A blocking round trip of connection conn: its request at request_ts,
   its reply at reply_ts, the client waiting from start (the state
   model's struct xstate_wait). */
void xresp_wait(struct xresp_model *r, uint32_t conn, uint64_t request_ts, uint64_t reply_ts,
		uint64_t start);
/* The clock reached now with no record (a live capture gone quiet): emit
   the responses whose quiet period has passed, as a record at now would.
   Analysis of a file never needs it. */
void xresp_tick(struct xresp_model *r, uint64_t now);
/* The input ended: emit what is still open. */
void xresp_finish(struct xresp_model *r);
/* The earliest end (end_ts as emitted) a response still open can have:
   UINT64_MAX when none is open.  A reader that lists responses in the
   order they end holds those that end later until this passes them. */
uint64_t xresp_open_floor(const struct xresp_model *r);
void xresp_free(struct xresp_model *r);

/* The rectangles and pixels of an RFB FramebufferUpdate from its detail
   ("5 rects; Raw 5 12288px 49212B; ..."), added to *rects and *pixels. */
void xresp_update_counts(const char *detail, uint64_t *rects, uint64_t *pixels);

#endif
