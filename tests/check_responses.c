/*
 * check_responses.c — the response model on hand-made records whose
 * answer is known: quiet ends a response and the next input cuts one; a
 * client waiting for a reply is not quiet; only requests that draw end
 * a response; motion while a button is held
 * belongs to the press; the round trip added for a capture beside the X
 * client and nothing for one beside the RFB viewer; RFB updates counted
 * from their detail; the model alone (the flight recorder's) ended by the
 * clock; the summary's percentiles.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "responses.h"

#define MS 1000000ull
#define T0 1000000000000ull

static struct xresponse got[32];
static size_t n_got;

static void on_response(void *ctx, const struct xresponse *r)
{
	(void)ctx;
	ck_assert_uint_lt(n_got, 32);
	got[n_got++] = *r;
}

struct sim {
	struct xstate_model *m;
	struct xresp_model *r;
	uint32_t seq[2];
	const char *ext;	/* the next messages' extension; NULL core */
};

static void feed(struct sim *s, const struct xrec *rec)
{
	ck_assert_int_eq(xstate_record(s->m, rec), 0);
	ck_assert_int_eq(xresp_record(s->r, rec), 0);
}

static void sim_init(struct sim *s, const char *proto, uint64_t rtt_ms, uint64_t quiet_ms)
{
	memset(s, 0, sizeof *s);
	n_got = 0;
	struct xstate_options so;
	xstate_options_default(&so);
	so.rtt = rtt_ms * MS;
	so.capture_side = XSIDE_CLIENT;
	s->m = xstate_new(&so);
	struct xresp_options ro;
	xresp_options_default(&ro);
	if (quiet_ms)
		ro.quiet = quiet_ms * MS;
	s->r = xresp_new(&ro, s->m, on_response, NULL);
	ck_assert_ptr_nonnull(s->r);
	s->seq[0] = 1000;
	s->seq[1] = 5000;
	struct xrec c = { .type = XREC_CONN };
	c.u.conn.id = 1;
	c.u.conn.ts = T0;
	c.u.conn.proto = proto;
	feed(s, &c);
}

static void sim_end(struct sim *s)
{
	xstate_finish(s->m);
	xresp_finish(s->r);
	xresp_free(s->r);
	xstate_free(s->m);
}

/* One message in a packet of its own at T0 + t ms. */
static void msg(struct sim *s, uint64_t t_us, int dir, int kind, const char *name, uint16_t flags,
		const char *detail, uint32_t len)
{
	struct xrec p = { .type = XREC_PKT };
	p.u.pkt = (struct xrec_pkt){ .ts = T0 + t_us * 1000, .conn = 1, .dir = (uint8_t)dir,
		.tcp_flags = XTCP_ACK | XTCP_PSH, .seq = s->seq[dir], .ack = s->seq[!dir],
		.raw_win = 512, .win = 65536, .len = len };
	feed(s, &p);
	s->seq[dir] += len;
	struct xrec r = { .type = XREC_MSG };
	r.u.msg = (struct xrec_msg){ .ts = T0 + t_us * 1000, .conn = 1, .dir = (uint8_t)dir,
		.kind = (uint8_t)kind, .flags = flags, .length = len, .tcp_end = s->seq[dir],
		.name = name, .ext = s->ext ? s->ext : "", .detail = detail };
	if (kind == XMSG_REPLY)
		r.u.msg.req_ts = T0;	/* answers something */
	feed(s, &r);
}

#define KEY "key=38 time=1 root=0x1 event=0x200001 root_xy=5,6 event_xy=1,2 state=0x0"
#define BUTTON "button=1 time=2 root=0x1 event=0x200001 root_xy=5,6 event_xy=3,4 state=0x0"
#define MOTION "time=3 root=0x1 event=0x200001 root_xy=5,6 event_xy=7,8 state=0x100"

START_TEST(x11_quiet_cut_and_round_trips)
{
	struct sim s;
	sim_init(&s, "x11", 60, 100);
	/* a key: a request at +1 ms that waits 200 ms for its reply (not
	   quiet, though longer than the quiet period), then two requests */
	msg(&s, 0, XDIR_S2C, XMSG_EVENT, "KeyPress", 0, KEY, 32);
	msg(&s, 1000, XDIR_C2S, XMSG_REQUEST, "GetInputFocus", XMSG_F_WANTS_REPLY, "", 4);
	msg(&s, 201000, XDIR_S2C, XMSG_REPLY, "GetInputFocus", 0, "", 32);
	msg(&s, 202000, XDIR_C2S, XMSG_REQUEST, "PolyText8", 0, "", 20);
	msg(&s, 203000, XDIR_C2S, XMSG_REQUEST, "PolyText8", 0, "", 24);
	/* quiet, then a release nothing answers, cut by a click 50 ms on */
	msg(&s, 500000, XDIR_S2C, XMSG_EVENT, "KeyRelease", 0, KEY, 32);
	msg(&s, 550000, XDIR_S2C, XMSG_EVENT, "ButtonPress", 0, BUTTON, 32);
	/* a drag: motion while the button is held, its drawing */
	msg(&s, 560000, XDIR_S2C, XMSG_EVENT, "MotionNotify", 0, MOTION, 32);
	msg(&s, 561000, XDIR_C2S, XMSG_REQUEST, "PolyLine", 0, "", 16);
	msg(&s, 570000, XDIR_S2C, XMSG_EVENT, "MotionNotify", 0, MOTION, 32);
	msg(&s, 575000, XDIR_C2S, XMSG_REQUEST, "PolyLine", 0, "", 16);
	msg(&s, 900000, XDIR_S2C, XMSG_EVENT, "ButtonRelease", 0, BUTTON, 32);
	/* a request that draws nothing: counted, but nothing visible */
	msg(&s, 901000, XDIR_C2S, XMSG_REQUEST, "ChangeProperty", 0, "", 28);
	/* the same event sent by another client is no input */
	msg(&s, 1200000, XDIR_S2C, XMSG_EVENT, "KeyPress", XMSG_F_SYNTHETIC, KEY, 32);
	sim_end(&s);
	ck_assert_uint_eq(n_got, 4);
	ck_assert_int_eq(got[0].kind, XINPUT_KEY_PRESS);
	ck_assert_str_eq(got[0].what, "key=38");
	ck_assert_uint_eq(got[0].window, 0x200001);
	ck_assert_int_eq(got[0].x, 1);
	ck_assert_uint_eq(got[0].end_ts, T0 + 203 * MS);
	/* beside the X client: a round trip is added (--rtt 60 here, and the
	   one wait took 200 ms, longer) */
	ck_assert_uint_eq(got[0].display_delay, 60 * MS);
	ck_assert_uint_eq(got[0].response, 263 * MS);
	ck_assert_uint_eq(got[0].msgs[0], 3);
	ck_assert_uint_eq(got[0].msgs[1], 1);
	ck_assert_uint_eq(got[0].bytes[0], 48);
	ck_assert_uint_eq(got[0].trips, 1);
	ck_assert_uint_eq(got[0].trip_wait, 200 * MS);
	ck_assert_uint_eq(got[0].flags, 0);
	ck_assert_int_eq(got[1].kind, XINPUT_KEY_RELEASE);
	ck_assert_uint_eq(got[1].flags, XRESP_F_NO_RESPONSE | XRESP_F_CUT);
	ck_assert_int_eq(got[2].kind, XINPUT_BUTTON_PRESS);
	ck_assert_uint_eq(got[2].motions, 2);
	ck_assert_uint_eq(got[2].end_ts, T0 + 575 * MS);
	ck_assert_uint_eq(got[2].flags, 0);
	ck_assert_int_eq(got[3].kind, XINPUT_BUTTON_RELEASE);
	ck_assert_uint_eq(got[3].flags, XRESP_F_NO_RESPONSE);
	ck_assert_uint_eq(got[3].msgs[0], 1);
}
END_TEST

START_TEST(rfb_updates_beside_the_viewer)
{
	struct sim s;
	sim_init(&s, "rfb", 40, 100);
	msg(&s, 0, XDIR_C2S, XMSG_REQUEST, "PointerEvent", 0, "40,40 buttons 0x01", 6);
	msg(&s, 1000, XDIR_C2S, XMSG_REQUEST, "FramebufferUpdateRequest", XMSG_F_WANTS_REPLY, "", 10);
	msg(&s, 30000, XDIR_S2C, XMSG_REPLY, "FramebufferUpdate", 0,
	    "3 rects; Raw 2 100px 400B; Hextile 1 50px 20B", 436);
	/* the viewer asks again at once: that neither extends nor ends it */
	msg(&s, 30100, XDIR_C2S, XMSG_REQUEST, "FramebufferUpdateRequest", XMSG_F_WANTS_REPLY, "", 10);
	msg(&s, 80000, XDIR_S2C, XMSG_REPLY, "FramebufferUpdate", 0, "1 rect; Tight 1 7px 9B", 25);
	msg(&s, 120000, XDIR_C2S, XMSG_REQUEST, "FramebufferUpdateRequest", XMSG_F_WANTS_REPLY, "", 10);
	msg(&s, 400000, XDIR_C2S, XMSG_REQUEST, "KeyEvent", 0, "down keysym 0x61", 8);
	sim_end(&s);
	ck_assert_uint_eq(n_got, 2);
	ck_assert_int_eq(got[0].kind, XINPUT_BUTTON_PRESS);
	ck_assert_str_eq(got[0].what, "button=1");
	ck_assert_uint_eq(got[0].updates, 2);
	ck_assert_uint_eq(got[0].rects, 4);
	ck_assert_uint_eq(got[0].pixels, 157);
	/* beside the viewer, the display: nothing added */
	ck_assert_uint_eq(got[0].display_delay, 0);
	ck_assert_uint_eq(got[0].response, 80 * MS);
	ck_assert_int_eq(got[1].kind, XINPUT_KEY_PRESS);
	ck_assert_str_eq(got[1].what, "keysym=0x61 (a)");
	ck_assert_uint_eq(got[1].flags, XRESP_F_NO_RESPONSE);
}
END_TEST

/* TigerVNC's viewer: keys as QEMU extended key events, each release 6 ms
   after its press (xdotool) and so part of it; the cursor's shape sent
   alone before the screen's change; a PointerEvent repeating the click's
   position and buttons.  A release 100 ms after its press is an input. */
START_TEST(rfb_tigervnc_viewer)
{
	struct sim s;
	sim_init(&s, "rfb", 40, 100);
	msg(&s, 0, XDIR_C2S, XMSG_REQUEST, "ExtendedKeyEvent", 0, "down keysym 0x61 keycode 30", 12);
	msg(&s, 200, XDIR_S2C, XMSG_EVENT, "FramebufferUpdate", XMSG_F_NO_PIXELS,
	    "2 rects; CursorWithAlpha 1 0px 592B; LastRect 1 0px 12B", 620);
	msg(&s, 6000, XDIR_C2S, XMSG_REQUEST, "ExtendedKeyEvent", 0, "up keysym 0x61 keycode 30", 12);
	msg(&s, 9000, XDIR_S2C, XMSG_EVENT, "FramebufferUpdate", 0, "2 rects; Tight 1 156px 44B; LastRect 1 0px 12B", 72);
	msg(&s, 500000, XDIR_C2S, XMSG_REQUEST, "PointerEvent", 0, "40,40 buttons 0x01", 6);
	msg(&s, 500100, XDIR_C2S, XMSG_REQUEST, "PointerEvent", 0, "40,40 buttons 0x00", 6);
	msg(&s, 517000, XDIR_C2S, XMSG_REQUEST, "PointerEvent", 0, "40,40 buttons 0x00", 6);
	msg(&s, 540000, XDIR_S2C, XMSG_EVENT, "FramebufferUpdate", 0, "1 rect; Tight 1 3328px 81B", 97);
	msg(&s, 1000000, XDIR_C2S, XMSG_REQUEST, "KeyEvent", 0, "down keysym 0x62", 8);
	msg(&s, 1100000, XDIR_C2S, XMSG_REQUEST, "KeyEvent", 0, "up keysym 0x62", 8);
	sim_end(&s);
	ck_assert_uint_eq(n_got, 4);
	ck_assert_int_eq(got[0].kind, XINPUT_KEY_PRESS);
	ck_assert_str_eq(got[0].what, "keysym=0x61 (a)");
	ck_assert_uint_eq(got[0].releases, 1);
	ck_assert_uint_eq(got[0].updates, 1);
	ck_assert_uint_eq(got[0].pixels, 156);
	ck_assert_uint_eq(got[0].response, 9 * MS);
	ck_assert_uint_eq(got[0].flags, 0);
	ck_assert_int_eq(got[1].kind, XINPUT_BUTTON_PRESS);
	ck_assert_uint_eq(got[1].releases, 1);
	ck_assert_uint_eq(got[1].response, 40 * MS);
	ck_assert_uint_eq(got[1].flags, 0);
	ck_assert_int_eq(got[2].kind, XINPUT_KEY_PRESS);
	ck_assert_uint_eq(got[2].releases, 0);
	ck_assert_uint_eq(got[2].flags, XRESP_F_NO_RESPONSE | XRESP_F_CUT);
	ck_assert_int_eq(got[3].kind, XINPUT_KEY_RELEASE);
}
END_TEST

/* X11: a key typed through XTEST, delivered as a core and an XI2 event
   each way: one input, its release folded in and the release's XI2 copy
   no new input; the drawing after both is its response. */
START_TEST(x11_key_typed_by_a_program)
{
	struct sim s;
	sim_init(&s, "x11", 40, 100);
	msg(&s, 0, XDIR_S2C, XMSG_EVENT, "KeyPress", 0, KEY, 32);
	s.ext = "XInputExtension";
	msg(&s, 10, XDIR_S2C, XMSG_EVENT, "KeyPress", 0, KEY, 32);
	s.ext = NULL;
	msg(&s, 6000, XDIR_S2C, XMSG_EVENT, "KeyRelease", 0, KEY, 32);
	s.ext = "XInputExtension";
	msg(&s, 6010, XDIR_S2C, XMSG_EVENT, "KeyRelease", 0, KEY, 32);
	s.ext = NULL;
	msg(&s, 8000, XDIR_C2S, XMSG_REQUEST, "PolyText8", 0, "", 20);
	msg(&s, 500000, XDIR_S2C, XMSG_EVENT, "ButtonPress", 0, BUTTON, 32);
	sim_end(&s);
	ck_assert_uint_eq(n_got, 2);
	ck_assert_int_eq(got[0].kind, XINPUT_KEY_PRESS);
	ck_assert_uint_eq(got[0].releases, 1);
	ck_assert_uint_eq(got[0].end_ts - got[0].input_ts, 8 * MS);
	ck_assert_uint_eq(got[0].flags, 0);
	ck_assert_int_eq(got[1].kind, XINPUT_BUTTON_PRESS);
}
END_TEST

/* The model alone, as the flight recorder runs it (no state model): the
   clock ends a response once quiet has passed, as a record would, never
   while a reply is outstanding; nothing is added for the capture point,
   and the response says so. */
static void put_msg(struct xresp_model *r, uint64_t t_ms, int dir, int kind, const char *name,
		    uint16_t flags, const char *detail)
{
	struct xrec m = { .type = XREC_MSG };
	m.u.msg = (struct xrec_msg){ .ts = T0 + t_ms * MS, .conn = 1, .dir = (uint8_t)dir,
		.kind = (uint8_t)kind, .flags = flags, .length = 32, .name = name, .ext = "",
		.detail = detail };
	if (kind == XMSG_REPLY)
		m.u.msg.req_ts = T0;
	ck_assert_int_eq(xresp_record(r, &m), 0);
}

START_TEST(model_alone_ended_by_the_clock)
{
	n_got = 0;
	struct xresp_options ro;
	xresp_options_default(&ro);
	struct xresp_model *r = xresp_model_new(&ro, NULL, on_response, NULL);
	ck_assert_ptr_nonnull(r);
	struct xrec c = { .type = XREC_CONN };
	c.u.conn.id = 1;
	c.u.conn.ts = T0;
	c.u.conn.proto = "x11";
	ck_assert_int_eq(xresp_record(r, &c), 0);
	put_msg(r, 0, XDIR_S2C, XMSG_EVENT, "KeyPress", 0, KEY);
	put_msg(r, 300, XDIR_C2S, XMSG_REQUEST, "PolyFillRectangle", 0, "");
	xresp_tick(r, T0 + 399 * MS);		/* 99 ms of quiet: not yet */
	ck_assert_uint_eq(n_got, 0);
	xresp_tick(r, T0 + 400 * MS);
	ck_assert_uint_eq(n_got, 1);
	ck_assert_uint_eq(got[0].response, 300 * MS);
	ck_assert_uint_eq(got[0].display_delay, 0);
	ck_assert_uint_eq(got[0].flags, XRESP_F_NO_RTT);
	/* a reply outstanding keeps it open however long the clock runs */
	put_msg(r, 1000, XDIR_S2C, XMSG_EVENT, "KeyPress", 0, KEY);
	put_msg(r, 1001, XDIR_C2S, XMSG_REQUEST, "GetInputFocus", XMSG_F_WANTS_REPLY, "");
	xresp_tick(r, T0 + 5000 * MS);
	ck_assert_uint_eq(n_got, 1);
	put_msg(r, 5001, XDIR_S2C, XMSG_REPLY, "GetInputFocus", 0, "");
	put_msg(r, 5002, XDIR_C2S, XMSG_REQUEST, "PolyText8", 0, "");
	xresp_tick(r, T0 + 5102 * MS);
	ck_assert_uint_eq(n_got, 2);
	ck_assert_uint_eq(got[1].response, 4002 * MS);
	xresp_finish(r);
	ck_assert_uint_eq(n_got, 2);
	xresp_free(r);
}
END_TEST

/* A Wayland message as protocols/wayland.c names it. */
static void wl_msg(struct xresp_model *r, uint64_t t_ms, int dir, int kind, const char *iface,
		   const char *name, const char *detail)
{
	struct xrec m = { .type = XREC_MSG };
	m.u.msg = (struct xrec_msg){ .ts = T0 + t_ms * MS, .conn = 1, .dir = (uint8_t)dir,
		.kind = (uint8_t)kind, .length = 16, .name = name, .ext = iface, .detail = detail };
	ck_assert_int_eq(xresp_record(r, &m), 0);
}

START_TEST(wayland_commit_and_presentation)
{
	n_got = 0;
	struct xresp_options ro;
	xresp_options_default(&ro);
	struct xresp_model *r = xresp_model_new(&ro, NULL, on_response, NULL);
	ck_assert_ptr_nonnull(r);
	struct xrec c = { .type = XREC_CONN };
	c.u.conn.id = 1;
	c.u.conn.ts = T0;
	c.u.conn.proto = "wayland";
	ck_assert_int_eq(xresp_record(r, &c), 0);
	wl_msg(r, 0, XDIR_S2C, XMSG_EVENT, "wp_presentation", "clock_id", "wp_presentation@5.clock_id(1)");
	/* a key at the compositor's 1000 ms; a commit with nothing new, then
	   the drawing with a feedback; presented at 1.040 s, 40 ms after */
	wl_msg(r, 10, XDIR_S2C, XMSG_EVENT, "wl_keyboard", "key", "wl_keyboard@9.key(7, 1000, 30, 1)");
	wl_msg(r, 12, XDIR_C2S, XMSG_REQUEST, "wl_surface", "commit", "wl_surface@3.commit()");
	wl_msg(r, 14, XDIR_C2S, XMSG_REQUEST, "wl_surface", "attach", "wl_surface@3.attach(wl_buffer@20, 0, 0)");
	wl_msg(r, 14, XDIR_C2S, XMSG_REQUEST, "wp_presentation", "feedback",
	       "wp_presentation@5.feedback(wl_surface@3, new id wp_presentation_feedback@21)");
	wl_msg(r, 15, XDIR_C2S, XMSG_REQUEST, "wl_surface", "commit", "wl_surface@3.commit()");
	/* the feedback keeps it open past the quiet period */
	xresp_tick(r, T0 + 200 * MS);
	ck_assert_uint_eq(n_got, 0);
	wl_msg(r, 300, XDIR_S2C, XMSG_EVENT, "wp_presentation_feedback", "presented",
	       "wp_presentation_feedback@21.presented(0, 1, 40000000, 16666666, 0, 9, 7)");
	xresp_tick(r, T0 + 400 * MS);
	ck_assert_uint_eq(n_got, 1);
	ck_assert_str_eq(got[0].proto, "wayland");
	ck_assert_int_eq(got[0].kind, XINPUT_KEY_PRESS);
	ck_assert_str_eq(got[0].what, "key=30");
	ck_assert_uint_eq(got[0].commit_ts - got[0].input_ts, 5 * MS);
	ck_assert_uint_eq(got[0].end_ts - got[0].input_ts, 5 * MS);
	ck_assert_uint_eq(got[0].presented_ts - got[0].input_ts, 290 * MS);
	ck_assert_uint_eq(got[0].photon, 40 * MS);
	ck_assert_int_eq(got[0].clock_id, 1);
	ck_assert_int_eq(got[0].input_clock, XINPUT_CLOCK_MS);

	/* input timestamps in ns; a key of time 0 with none has no figure */
	wl_msg(r, 1000, XDIR_S2C, XMSG_EVENT, "zwp_input_timestamps_v1", "timestamp",
	       "zwp_input_timestamps_v1@30.timestamp(0, 2, 500)");
	wl_msg(r, 1000, XDIR_S2C, XMSG_EVENT, "wl_pointer", "button", "wl_pointer@10.button(8, 2000, 272, 1)");
	wl_msg(r, 1001, XDIR_C2S, XMSG_REQUEST, "wl_surface", "damage", "wl_surface@3.damage(0, 0, 5, 5)");
	wl_msg(r, 1001, XDIR_C2S, XMSG_REQUEST, "wp_presentation", "feedback",
	       "wp_presentation@5.feedback(wl_surface@3, new id wp_presentation_feedback@22)");
	wl_msg(r, 1002, XDIR_C2S, XMSG_REQUEST, "wl_surface", "commit", "wl_surface@3.commit()");
	wl_msg(r, 1010, XDIR_S2C, XMSG_EVENT, "wp_presentation_feedback", "presented",
	       "wp_presentation_feedback@22.presented(0, 2, 16000500, 16666666, 0, 10, 7)");
	wl_msg(r, 2000, XDIR_S2C, XMSG_EVENT, "wl_keyboard", "key", "wl_keyboard@9.key(9, 0, 31, 1)");
	wl_msg(r, 2001, XDIR_C2S, XMSG_REQUEST, "wl_surface", "attach", "wl_surface@3.attach(wl_buffer@20, 0, 0)");
	wl_msg(r, 2001, XDIR_C2S, XMSG_REQUEST, "wp_presentation", "feedback",
	       "wp_presentation@5.feedback(wl_surface@3, new id wp_presentation_feedback@21)");
	wl_msg(r, 2002, XDIR_C2S, XMSG_REQUEST, "wl_surface", "commit", "wl_surface@3.commit()");
	wl_msg(r, 2020, XDIR_S2C, XMSG_EVENT, "wp_presentation_feedback", "discarded",
	       "wp_presentation_feedback@21.discarded()");
	xresp_finish(r);
	ck_assert_uint_eq(n_got, 3);
	ck_assert_int_eq(got[1].kind, XINPUT_BUTTON_PRESS);
	ck_assert_int_eq(got[1].input_clock, XINPUT_CLOCK_NS);
	ck_assert_uint_eq(got[1].photon, 16 * MS);
	ck_assert_int_eq(got[2].input_clock, XINPUT_CLOCK_NONE);
	ck_assert_uint_eq(got[2].photon, 0);
	ck_assert_uint_eq(got[2].presented_ts, 0);
	ck_assert(got[2].flags & XRESP_F_DISCARDED);
	xresp_free(r);
}
END_TEST

/* Over waypipe presented comes in CLOCK_REALTIME (here the compositor's
   clock + 5000 s) and is brought back by the offset the wire shows:
   input and presented each seen 10 ms after they happened. */
START_TEST(wayland_waypipe_realtime)
{
	n_got = 0;
	struct xresp_options ro;
	xresp_options_default(&ro);
	struct xresp_model *r = xresp_model_new(&ro, NULL, on_response, NULL);
	ck_assert_ptr_nonnull(r);
	struct xrec c = { .type = XREC_CONN };
	c.u.conn.id = 1;
	c.u.conn.ts = T0;
	c.u.conn.proto = "waypipe";
	ck_assert_int_eq(xresp_record(r, &c), 0);
	wl_msg(r, 0, XDIR_S2C, XMSG_EVENT, "wp_presentation", "clock_id", "wp_presentation@5.clock_id(1)");
	wl_msg(r, 10, XDIR_S2C, XMSG_EVENT, "wl_keyboard", "key", "wl_keyboard@9.key(7, 1000, 30, 1)");
	wl_msg(r, 14, XDIR_C2S, XMSG_REQUEST, "wl_surface", "attach", "wl_surface@3.attach(wl_buffer@20, 0, 0)");
	wl_msg(r, 14, XDIR_C2S, XMSG_REQUEST, "wp_presentation", "feedback",
	       "wp_presentation@5.feedback(wl_surface@3, new id wp_presentation_feedback@21)");
	wl_msg(r, 15, XDIR_C2S, XMSG_REQUEST, "wl_surface", "commit", "wl_surface@3.commit()");
	wl_msg(r, 50, XDIR_S2C, XMSG_EVENT, "wp_presentation_feedback", "presented",
	       "wp_presentation_feedback@21.presented(0, 5001, 40000000, 16666666, 0, 9, 7)");
	xresp_finish(r);
	ck_assert_uint_eq(n_got, 1);
	ck_assert_uint_eq(got[0].photon, 40 * MS);
	ck_assert(got[0].flags & XRESP_F_CLOCK_ESTIMATED);
	xresp_free(r);
}
END_TEST

START_TEST(summary_percentiles)
{
	struct xresp_summary *s = xresp_summary_new();
	ck_assert_ptr_nonnull(s);
	struct xresponse r = { 0 };
	for (unsigned i = 1; i <= 100; i++) {
		r.input_ts = T0 + i * 1000 * MS;
		r.response = i * MS;	/* 1 .. 100 ms */
		xresp_summary_add(s, &r);
	}
	r.flags = XRESP_F_NO_RESPONSE;
	xresp_summary_add(s, &r);
	struct xresp_stats st;
	xresp_summary_stats(s, &st);
	ck_assert_uint_eq(st.count, 101);
	ck_assert_uint_eq(st.responded, 100);
	ck_assert_uint_eq(st.no_response, 1);
	/* nearest rank, exact here: each value has a bucket of its own */
	ck_assert_uint_eq(st.p50, 50 * MS);
	ck_assert_uint_eq(st.p90, 90 * MS);
	ck_assert_uint_eq(st.p99, 99 * MS);
	ck_assert_uint_eq(st.max, 100 * MS);
	ck_assert_uint_eq(st.over50, 50);
	ck_assert_uint_eq(st.over100, 0);
	xresp_summary_free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("responses");
	TCase *tc = tcase_create("model");
	tcase_add_test(tc, x11_quiet_cut_and_round_trips);
	tcase_add_test(tc, rfb_updates_beside_the_viewer);
	tcase_add_test(tc, rfb_tigervnc_viewer);
	tcase_add_test(tc, x11_key_typed_by_a_program);
	tcase_add_test(tc, model_alone_ended_by_the_clock);
	tcase_add_test(tc, summary_percentiles);
	tcase_add_test(tc, wayland_commit_and_presentation);
	tcase_add_test(tc, wayland_waypipe_realtime);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
