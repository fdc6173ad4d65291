/*
 * xcap-replay — record the inputs of an interactive session from a
 * capture, and play them back against a display (VNCplay's record and
 * replay).
 *
 *   xcap-replay record CAPTURE -o SESSION
 *   xcap-replay [--pace recorded|quiet] SESSION
 *
 * X11 sessions are played through XTEST into the X server; RFB sessions
 * as a viewer of our own (security None, the encodings the recorded viewer
 * asked for, its updates framed by protocols/rfb.c).  With quiet
 * pacing the next input waits until the screen has stopped changing after
 * the previous one: DAMAGE on the root window for X11, the viewer's own
 * FramebufferUpdates for RFB.  An input whose recorded response changed
 * the screen first waits for a change to begin (the response has to
 * cross the link to the client and back before the display shows it),
 * then for the quiet period; both are bounded by --timeout and reported.
 * Before a click (a button press or release) quiet pacing also waits
 * until the screen holds what the click went to when recorded: a window
 * at the point whose origin is the recorded event's root position less
 * its position in the window (VNCplay's rule, with the window tree for
 * its screen hash).  A popup a toolkit maps after many round trips and no
 * drawing (GTK's entry completion: some twenty round trips between the
 * key's echo and the map) outlasts any quiet period a replay can afford,
 * and a click sent before it lands on what lies beneath.
 *
 * Recording belongs here, in xcap/, beside the trace reader: which
 * messages are inputs is a question of the trace's vocabulary (names and
 * details the decoders give), not of the analysis model, and the replay
 * needs nothing of xcapanalyse.
 *
 * Belongs to: the xcap-replay command's room (xcap/cmd/xcap-replay/).
 */
#include "config.h"
#include "clock.h"
#include "parts.h"
#include "report.h"

#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xcb/xcb.h>
#include <xcb/xtest.h>
#include <xcb/damage.h>
#include <xcb/xfixes.h>

#include "protocol.h"
#include "session.h"
#include "source.h"
#include "units.h"

const char program_name[] = "xcap-replay";

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2, EXIT_UNSETTLED = 3 };
enum pace { PACE_RECORDED, PACE_QUIET };

#define NS_PER_MS 1000000ull
#define NS_PER_S 1000000000ull

static void usage(FILE *f)
{
	fprintf(f,
"usage: xcap-replay record [OPTION...] CAPTURE -o SESSION\n"
"       xcap-replay [OPTION...] SESSION\n"
"\n"
"Record the inputs a client received (X11) or a viewer sent (RFB) in a\n"
"capture into a session file, or play a session back against a display:\n"
"X11 through XTEST, RFB as a viewer.\n"
"\n"
"Recording:\n"
"  -o, --output FILE     the session file to write ('-' for standard output)\n"
"  --connection N        take the inputs of connection N (default: the\n"
"                        connection with the most inputs)\n"
"  --no-motion           leave out pointer motion (X11 MotionNotify)\n"
"  --filter EXPR         BPF filter for pcap input\n"
"\n"
"Playing:\n"
"  --pace MODE           quiet (default): wait until the screen is quiet after\n"
"                        each input; recorded: send at the recorded times\n"
"  --quiet MS            the quiet period that ends a response (default 300)\n"
"  --timeout MS          longest wait for one response to end (default 5000)\n"
"  --no-expect           only the quiet period: do not wait for a change to\n"
"                        begin after inputs whose recorded response drew,\n"
"                        nor before a click for the window it went to\n"
"  --display DISPLAY     the X display for an X11 session (default $DISPLAY)\n"
"  --rfb HOST:PORT       the RFB server for an RFB session (default\n"
"                        127.0.0.1:5900)\n"
"  --offset DX,DY        add DX,DY to every position (the window sits\n"
"                        elsewhere than when recorded)\n"
"  --capture TRACE       run xcap while playing, writing TRACE (the display's\n"
"                        port only), from before the first input to a second\n"
"                        after the last\n"
"  --interface IFACE     where --capture listens (default lo)\n"
"  --log FILE            one line per input: when it was sent, when the\n"
"                        screen first and last changed, and how it ended\n"
"  -q, --quiet-report    no summary on standard error\n"
"  -h, --help            show this help;  -V, --version  show the version\n"
"\n"
"Exit status: 0 success, 1 failure, 2 usage error, 3 played, but some\n"
"response never began or never went quiet, or a click's window never came.\n"
"\n"
"Examples:\n"
"  xcap-replay record typing.pcap -o typing.session\n"
"  xcap-replay --display 127.0.0.1:1 --log replay.log typing.session\n"
"  xcap-replay --pace recorded --rfb 127.0.0.1:5901 viewer.session\n");
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / NS_PER_S), (long)(t % NS_PER_S) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* ---- recording ---- */

static void warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	complain("%s", msg);
}

static int do_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "connection", required_argument, NULL, 'c' },
		{ "no-motion", no_argument, NULL, 'm' },
		{ "filter", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *filter = NULL;
	struct xsess_record_opts ro = { .conn = 0, .motion = 1 };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'c': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (!*optarg || *end || v == 0 || v > UINT32_MAX)
				die(EXIT_USAGE, "--connection must be a connection number: '%s'", optarg);
			ro.conn = (uint32_t)v;
			break;
		}
		case 'm': ro.motion = 0; break;
		case 'f': filter = optarg; break;
		case 'h': usage(stdout); return EXIT_OK;
		default:
			fprintf(stderr, "Try 'xcap-replay --help' for more information.\n");
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc)
		die(EXIT_USAGE, "record needs one capture: '%s'", optind < argc ? argv[argc - 1] : "");
	if (!out)
		die(EXIT_USAGE, "record needs a session file to write (-o): '%s'", argv[optind]);
	const char *path = argv[optind];
	char err[512];
	struct xsource *src = xsource_open(path, filter, NULL, err, sizeof err);
	if (!src)
		die(EXIT_RUNTIME, "cannot read the capture: %s", err);
	xsource_on_warning(src, warn_cb, NULL);
	struct xsession s;
	int rc = xsession_record(src, path, &ro, &s, err, sizeof err);
	xsource_close(src);
	if (rc < 0)
		die(EXIT_RUNTIME, "cannot record a session: %s", err);
	FILE *f = strcmp(out, "-") == 0 ? stdout : fopen(out, "w");
	if (!f)
		die(EXIT_RUNTIME, "cannot write the session: %s: '%s'", strerror(errno), out);
	if (xsession_write(f, &s) < 0 || (f != stdout && fclose(f) != 0))
		die(EXIT_RUNTIME, "cannot write the session: %s: '%s'", strerror(errno), out);
	fprintf(stderr, "xcap-replay: %zu inputs of connection %" PRIu32 "%s%s%s (%s)\n", s.n,
		s.conn, *s.client ? " '" : "", s.client, *s.client ? "'" : "",
		xsess_proto_name(s.proto));
	xsession_free(&s);
	return EXIT_OK;
}

/* ---- playing: what both protocols share ---- */

struct play {
	enum pace pace;
	uint64_t quiet, timeout;	/* ns */
	int32_t dx, dy;
	bool expect;		/* wait for a change to begin where the recorded response drew */
	size_t expected, seen;	/* inputs that drew: in the recording, in the replay */
	FILE *log;
	/* results */
	size_t sent, never_began, never_quiet, never_placed, released;
};

/* Keys and buttons the replay holds down, so that it can let go of them
   at the end: a session whose release went elsewhere when recorded (a
   grab) would leave the display with ctrl held for whoever comes next. */
#define HELD_MAX 64
struct held {
	uint8_t kind[HELD_MAX];	/* XSESS_KEY_RELEASE or XSESS_BUTTON_RELEASE */
	uint32_t code[HELD_MAX];
	size_t n;
};

static void held_update(struct held *h, const struct xsess_input *in)
{
	bool press = in->kind == XSESS_KEY_PRESS || in->kind == XSESS_BUTTON_PRESS;
	bool release = in->kind == XSESS_KEY_RELEASE || in->kind == XSESS_BUTTON_RELEASE;
	uint8_t rel = in->kind == XSESS_KEY_PRESS || in->kind == XSESS_KEY_RELEASE
		    ? XSESS_KEY_RELEASE : XSESS_BUTTON_RELEASE;
	for (size_t i = 0; i < h->n; i++) {
		if (h->kind[i] == rel && h->code[i] == in->code) {
			if (release)
				h->kind[i] = h->kind[--h->n], h->code[i] = h->code[h->n];
			return;
		}
	}
	if (press && h->n < HELD_MAX) {
		h->kind[h->n] = rel;
		h->code[h->n++] = in->code;
	}
}

/* The display's side: send one input, and wait for a screen change. */
struct target {
	/* Send the input (after moving the pointer where it was); 0 or -1. */
	int (*send)(void *t, const struct xsess_input *in, int32_t dx, int32_t dy);
	/* Wait at most until deadline (monotonic ns) for the screen to
	   change; 1 changed (time in *when), 0 not, -1 the display is gone. */
	int (*change)(void *t, uint64_t deadline, uint64_t *when);
	/* Whether the window the input went to when recorded is at the
	   point, where it was: 1 yes, 0 not (yet), -1 the display is gone;
	   NULL where the display has no windows to ask about (RFB). */
	int (*placed)(void *t, const struct xsess_input *in, int32_t dx, int32_t dy);
	void *ctx;
};

static const char *status_name[] = { "quiet", "no-change", "never-began", "never-quiet", "recorded" };

/* Quiet pacing's wait after one input sent at t_sent. */
static int settle(struct play *p, const struct target *t, const struct xsess_input *in,
		  bool pair_owed, uint64_t t_sent, uint64_t *first, uint64_t *last, int *status)
{
	uint64_t limit = t_sent + p->timeout, w;
	*first = *last = 0;
	/* The replay waits for a change to begin only while it has seen fewer
	   responding inputs than the recording had by now: a response the
	   recording drew after the next input (a terminal's echo after the
	   key's release) may come before it here, and stands in for it.
	   And only after a press (or an RFB pointer event): what a release or
	   a motion drew when recorded is most often the press's response
	   running on, or a toolkit's timer (GTK's completion popup drew after
	   the key's release when recorded, inside the press's quiet period
	   when replayed), and a wait for it would only run to the timeout.
	   A release waits when its press and it drew when recorded and the
	   screen has not changed since the press (pair_owed): which of the
	   two a response was counted to depends on the recording's timing,
	   and over a slow link GTK draws what a click picked only after some
	   round trips, seconds after a quiet period would have ended. */
	bool press = in->kind == XSESS_KEY_PRESS || in->kind == XSESS_BUTTON_PRESS ||
		     in->kind == XSESS_POINTER;
	bool expect = p->expect && ((press && in->response > 0 && p->seen <= p->expected) ||
				    pair_owed);
	if (in->response > 0)
		p->expected++;
	/* The response has to begin first when the recorded one did. */
	while (expect && !*first) {
		int r = t->change(t->ctx, limit, &w);
		if (r < 0)
			return -1;
		if (r == 0) {
			*status = 2;
			p->never_began++;
			return 0;
		}
		*first = *last = w;
	}
	for (;;) {
		uint64_t quiet_at = (*last ? *last : t_sent) + p->quiet;
		int r = t->change(t->ctx, quiet_at < limit ? quiet_at : limit, &w);
		if (r < 0)
			return -1;
		if (r == 0) {
			if (quiet_at <= limit) {
				*status = *first ? 0 : 1;
			} else {
				*status = 3;
				p->never_quiet++;
			}
			return 0;
		}
		if (!*first)
			*first = w;
		*last = w;
	}
}

/* A click whose window is worth waiting for: a button press, or a
   release that went to another window than its press (the menu or popup
   the press opened, grabbing the pointer), with its window and place in
   it recorded.  A release that went where its press went needs no window
   on the screen: the press's implicit grab takes it there, and GTK hides
   the popup a press picked from before the release comes.  pressed_in:
   the window each button's last press went to when recorded. */
static bool is_click(const struct xsess_input *in, const uint32_t pressed_in[256])
{
	if (!in->window || in->root_x == XSESS_UNKNOWN || in->root_y == XSESS_UNKNOWN ||
	    in->event_x == XSESS_UNKNOWN || in->event_y == XSESS_UNKNOWN)
		return false;
	return in->kind == XSESS_BUTTON_PRESS ||
	       (in->kind == XSESS_BUTTON_RELEASE && pressed_in[in->code & 0xff] != in->window);
}

/* Before a click, wait (at most the timeout) until the window it went to
   when recorded is at the point again; the screen's changes wake the
   check, and a 10 ms poll catches a map that draws nothing.  The time
   waited in *waited; 0 placed, 1 never placed, -1 the display is gone. */
static int wait_placed(struct play *p, const struct target *t, const struct xsess_input *in,
		       uint64_t *waited)
{
	uint64_t start = clock_ns(CLOCK_MONOTONIC), limit = start + p->timeout, w;
	*waited = 0;
	for (;;) {
		int r = t->placed(t->ctx, in, p->dx, p->dy);
		if (r < 0)
			return -1;
		uint64_t now = clock_ns(CLOCK_MONOTONIC);
		*waited = now - start;
		if (r > 0)
			return 0;
		if (now >= limit) {
			p->never_placed++;
			return 1;
		}
		uint64_t next = now + 10 * NS_PER_MS;
		if (t->change(t->ctx, next < limit ? next : limit, &w) < 0)
			return -1;
	}
}

/* Wait until the screen has been quiet for the quiet period (at most the
   timeout), so that the first input's response is its own. */
static int quiet_start(struct play *p, const struct target *t)
{
	uint64_t last = clock_ns(CLOCK_MONOTONIC), limit = last + p->timeout, w;
	for (;;) {
		uint64_t at = last + p->quiet;
		int r = t->change(t->ctx, at < limit ? at : limit, &w);
		if (r <= 0)
			return r;
		last = w;
	}
}

static int play_all(struct play *p, const struct xsession *s, const struct target *t)
{
	if (quiet_start(p, t) < 0)
		return -1;
	uint64_t start = clock_ns(CLOCK_MONOTONIC);
	struct held held = { .n = 0 };
	uint32_t pressed_in[256] = { 0 };
	/* For each key and button (X11 codes) held: what its press drew when
	   recorded, and how many inputs had shown a change when it was sent
	   (0: not held). */
	int32_t press_drew[2][256] = { { 0 } };
	size_t press_seen[2][256] = { { 0 } };
	if (p->log)
		fprintf(p->log, "# input kind code sent_s first_change_s last_change_s status\n");
	for (size_t i = 0; i < s->n; i++) {
		const struct xsess_input *in = &s->inputs[i];
		if (p->pace == PACE_RECORDED)
			sleep_until(start + in->t);
		uint64_t waited = 0;
		int placed = 0;
		bool click = p->pace == PACE_QUIET && p->expect && t->placed &&
			     is_click(in, pressed_in);
		if (in->kind == XSESS_BUTTON_PRESS)
			pressed_in[in->code & 0xff] = in->window;
		if (click && (placed = wait_placed(p, t, in, &waited)) < 0)
			return -1;
		if (p->log && click && (placed || waited >= NS_PER_MS))
			fprintf(p->log, "# input %zu: %s %.3f s for the window at %" PRId32 ",%" PRId32
				" it went to when recorded\n", i + 1,
				placed ? "never-placed: gave up after" : "waited", (double)waited / 1e9,
				in->root_x + p->dx - in->event_x, in->root_y + p->dy - in->event_y);
		uint64_t t_sent = clock_ns(CLOCK_MONOTONIC);
		if (t->send(t->ctx, in, p->dx, p->dy) < 0)
			return -1;
		p->sent++;
		held_update(&held, in);
		bool key = in->kind == XSESS_KEY_PRESS || in->kind == XSESS_KEY_RELEASE;
		bool pair_owed = false;
		if (in->code < 256 && (in->kind == XSESS_KEY_PRESS || in->kind == XSESS_BUTTON_PRESS)) {
			press_drew[key][in->code] = in->response > 0 ? in->response : 0;
			press_seen[key][in->code] = p->seen + 1;
		} else if (in->code < 256 && (in->kind == XSESS_KEY_RELEASE ||
					      in->kind == XSESS_BUTTON_RELEASE)) {
			pair_owed = press_seen[key][in->code] == p->seen + 1 &&
				    press_drew[key][in->code] + (in->response > 0 ? in->response : 0) > 0;
			press_seen[key][in->code] = 0;
		}
		uint64_t first = 0, last = 0;
		int status = 4;
		if (p->pace == PACE_QUIET &&
		    settle(p, t, in, pair_owed, t_sent, &first, &last, &status) < 0)
			return -1;
		if (first)
			p->seen++;
		if (p->log) {
			fprintf(p->log, "%zu %s %" PRIu32 " %.6f", i + 1, xsess_kind_name(in->kind),
				in->code, (double)(t_sent - start) / 1e9);
			if (first)
				fprintf(p->log, " %.6f %.6f", (double)(first - start) / 1e9,
					(double)(last - start) / 1e9);
			else
				fprintf(p->log, " - -");
			fprintf(p->log, " %s\n", status_name[status]);
		}
	}
	for (size_t i = 0; i < held.n; i++) {
		struct xsess_input up = { .kind = held.kind[i], .code = held.code[i],
					  .root_x = XSESS_UNKNOWN, .root_y = XSESS_UNKNOWN };
		if (t->send(t->ctx, &up, 0, 0) < 0)
			return -1;
		p->released++;
		if (p->log)
			fprintf(p->log, "# let go of %s %" PRIu32 ", held at the session's end\n",
				up.kind == XSESS_KEY_RELEASE ? "key" : "button", up.code);
	}
	/* The last response is let finish at the recorded pace too, so a
	   capture or screenshot taken next sees its end. */
	if (p->pace == PACE_RECORDED) {
		uint64_t w, last = clock_ns(CLOCK_MONOTONIC), limit = last + p->timeout;
		for (;;) {
			int r = t->change(t->ctx, last + p->quiet < limit ? last + p->quiet : limit, &w);
			if (r <= 0)
				break;
			last = w;
		}
	}
	return 0;
}

/* ---- X11: XTEST in, DAMAGE out ---- */

struct x11 {
	xcb_connection_t *c;
	xcb_window_t root;
	uint8_t damage_event;
	int32_t px, py;		/* where we last put the pointer */
	bool placed;
};

static int x11_send(void *ctx, const struct xsess_input *in, int32_t dx, int32_t dy)
{
	struct x11 *x = ctx;
	if (in->root_x != XSESS_UNKNOWN && in->root_y != XSESS_UNKNOWN) {
		int32_t rx = in->root_x + dx, ry = in->root_y + dy;
		if (!x->placed || rx != x->px || ry != x->py || in->kind == XSESS_MOTION) {
			xcb_test_fake_input(x->c, XCB_MOTION_NOTIFY, 0, XCB_CURRENT_TIME, x->root,
					    (int16_t)rx, (int16_t)ry, 0);
			x->px = rx;
			x->py = ry;
			x->placed = true;
		}
	}
	uint8_t type = in->kind == XSESS_KEY_PRESS ? XCB_KEY_PRESS
		     : in->kind == XSESS_KEY_RELEASE ? XCB_KEY_RELEASE
		     : in->kind == XSESS_BUTTON_PRESS ? XCB_BUTTON_PRESS
		     : in->kind == XSESS_BUTTON_RELEASE ? XCB_BUTTON_RELEASE : 0;
	if (type)
		xcb_test_fake_input(x->c, type, (uint8_t)in->code, XCB_CURRENT_TIME, XCB_NONE, 0, 0,
				    0);
	return xcb_flush(x->c) > 0 ? 0 : -1;
}

static int x11_change(void *ctx, uint64_t deadline, uint64_t *when)
{
	struct x11 *x = ctx;
	for (;;) {
		xcb_generic_event_t *e;
		while ((e = xcb_poll_for_event(x->c))) {
			uint8_t type = e->response_type & 0x7f;
			free(e);
			if (type == x->damage_event) {
				*when = clock_ns(CLOCK_MONOTONIC);
				/* the rest already queued is the same change */
				while ((e = xcb_poll_for_queued_event(x->c)))
					free(e);
				return 1;
			}
		}
		if (xcb_connection_has_error(x->c))
			return -1;
		uint64_t now = clock_ns(CLOCK_MONOTONIC);
		if (now >= deadline)
			return 0;
		struct pollfd pfd = { xcb_get_file_descriptor(x->c), POLLIN, 0 };
		uint64_t left = (deadline - now + NS_PER_MS - 1) / NS_PER_MS;
		if (poll(&pfd, 1, (int)(left > 60000 ? 60000 : left)) < 0 && errno != EINTR)
			return -1;
	}
}

/* Down the window tree at the click's point (each step the mapped child
   holding it), looking for a window whose origin on the screen is the
   recorded event window's.  Only the origin is compared: window ids are
   the client's to choose and differ from run to run. */
static int x11_placed(void *ctx, const struct xsess_input *in, int32_t dx, int32_t dy)
{
	struct x11 *x = ctx;
	int32_t px = in->root_x + dx, py = in->root_y + dy;
	int32_t ox = px - in->event_x, oy = py - in->event_y;
	if (px < INT16_MIN || px > INT16_MAX || py < INT16_MIN || py > INT16_MAX)
		return 0;
	xcb_window_t w = x->root;
	for (int depth = 0; depth < 64 && w != XCB_NONE; depth++) {
		xcb_translate_coordinates_reply_t *r = xcb_translate_coordinates_reply(
			x->c, xcb_translate_coordinates(x->c, x->root, w, (int16_t)px, (int16_t)py),
			NULL);
		if (!r)	/* destroyed since it was found: not placed yet */
			return xcb_connection_has_error(x->c) ? -1 : 0;
		int32_t wx = px - r->dst_x, wy = py - r->dst_y;
		xcb_window_t child = r->child;
		free(r);
		if (wx == ox && wy == oy)
			return 1;
		w = child;
	}
	return 0;
}

static int play_x11(struct play *p, const struct xsession *s, const char *display)
{
	struct x11 x = { 0 };
	int screen;
	x.c = xcb_connect(display, &screen);
	if (xcb_connection_has_error(x.c))
		die(EXIT_RUNTIME, "cannot open the display: '%s'", display ? display : "");
	const xcb_setup_t *setup = xcb_get_setup(x.c);
	xcb_screen_iterator_t it = xcb_setup_roots_iterator(setup);
	for (int i = 0; i < screen && it.rem; i++)
		xcb_screen_next(&it);
	x.root = it.data->root;
	if (s->screen_w && (s->screen_w != it.data->width_in_pixels ||
			    s->screen_h != it.data->height_in_pixels))
		complain("the screen is %ux%u, the session's was %" PRIu32 "x%" PRIu32
			 ": positions kept as recorded: '%s'", it.data->width_in_pixels,
			 it.data->height_in_pixels, s->screen_w, s->screen_h, display ? display : "");
	const xcb_query_extension_reply_t *xt = xcb_get_extension_data(x.c, &xcb_test_id);
	if (!xt || !xt->present)
		die(EXIT_RUNTIME, "the display has no XTEST: '%s'", display ? display : "");
	if (p->pace == PACE_QUIET || p->log) {
		const xcb_query_extension_reply_t *dm = xcb_get_extension_data(x.c, &xcb_damage_id);
		if (!dm || !dm->present)
			die(EXIT_RUNTIME, "the display has no DAMAGE (needed for quiet pacing): '%s'",
			    display ? display : "");
		free(xcb_damage_query_version_reply(
			x.c, xcb_damage_query_version(x.c, XCB_DAMAGE_MAJOR_VERSION,
						      XCB_DAMAGE_MINOR_VERSION), NULL));
		x.damage_event = dm->first_event + XCB_DAMAGE_NOTIFY;
		xcb_damage_damage_t d = xcb_generate_id(x.c);
		/* Every rectangle as it is drawn: a change is a change, whatever
		   happened before, and nothing needs subtracting. */
		xcb_damage_create(x.c, d, x.root, XCB_DAMAGE_REPORT_LEVEL_RAW_RECTANGLES);
	}
	const xcb_query_extension_reply_t *fx = xcb_get_extension_data(x.c, &xcb_xfixes_id);
	if (fx && fx->present) {
		free(xcb_xfixes_query_version_reply(
			x.c, xcb_xfixes_query_version(x.c, XCB_XFIXES_MAJOR_VERSION,
						      XCB_XFIXES_MINOR_VERSION), NULL));
		xcb_xfixes_hide_cursor(x.c, x.root);
	} else {
		complain("the display has no XFIXES: pointer moves may count as changes: '%s'",
			 display ? display : "");
	}
	/* The server's autorepeat off while playing: the recording holds the
	   repeats the client got, and a key held down while the replay waits
	   for a slow response would repeat again. */
	xcb_get_keyboard_control_reply_t *kc =
		xcb_get_keyboard_control_reply(x.c, xcb_get_keyboard_control(x.c), NULL);
	uint32_t off = XCB_AUTO_REPEAT_MODE_OFF;
	xcb_change_keyboard_control(x.c, XCB_KB_AUTO_REPEAT_MODE, &off);
	free(xcb_get_input_focus_reply(x.c, xcb_get_input_focus(x.c), NULL));
	struct target t = { x11_send, x11_change, x11_placed, &x };
	int rc = play_all(p, s, &t);
	if (kc && kc->global_auto_repeat) {
		uint32_t on = XCB_AUTO_REPEAT_MODE_ON;
		xcb_change_keyboard_control(x.c, XCB_KB_AUTO_REPEAT_MODE, &on);
		free(xcb_get_input_focus_reply(x.c, xcb_get_input_focus(x.c), NULL));
	}
	free(kc);
	if (rc < 0 || xcb_connection_has_error(x.c))
		die(EXIT_RUNTIME, "lost the display: '%s'", display ? display : "");
	xcb_disconnect(x.c);
	return 0;
}

/* ---- RFB: a viewer of our own ---- */

/* The replay's viewer frames what the server sends with the capture's own
   RFB decoder (protocols/rfb.c), fed both directions as they go, so that
   it may ask for whatever the recorded viewer asked for: it frames every
   encoding the decoder frames, and decompresses nothing. */
struct rfb {
	int fd;
	uint16_t w, h;
	uint8_t bpp;
	uint8_t mask;		/* buttons down */
	uint16_t px, py;	/* where the pointer was put last */
	struct proto_decoder *dec;
	unsigned updates;	/* FramebufferUpdates framed, each to be asked again */
	unsigned pixels;	/* of those, the ones that changed pixels */
	char lost[200];		/* what the decoder could not frame of the server's */
	char err[256];
};

static void rfb_framed(void *ctx, const struct proto_msg *m)
{
	struct rfb *r = ctx;
	if (m->dir == PROTO_S2C && strcmp(m->name, "FramebufferUpdate") == 0) {
		r->updates++;
		r->pixels += !(m->flags & PROTO_F_NO_PIXELS);
	}
}

static void rfb_note(void *ctx, enum proto_dir dir, const char *text)
{
	struct rfb *r = ctx;
	if (dir == PROTO_S2C && !r->lost[0])
		snprintf(r->lost, sizeof r->lost, "%s", text);
}

static int rd(struct rfb *r, void *buf, size_t n)
{
	uint8_t *p = buf;
	while (n) {
		ssize_t k = read(r->fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			snprintf(r->err, sizeof r->err, "%s", k < 0 ? strerror(errno) : "the server closed");
			return -1;
		}
		proto_rfb.feed(r->dec, PROTO_S2C, p, (size_t)k);
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int discard(struct rfb *r, uint64_t n)
{
	uint8_t buf[65536];
	while (n) {
		size_t k = n > sizeof buf ? sizeof buf : (size_t)n;
		if (rd(r, buf, k) < 0)
			return -1;
		n -= k;
	}
	return 0;
}

static int wr(struct rfb *r, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	while (n) {
		ssize_t k = write(r->fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			snprintf(r->err, sizeof r->err, "%s", strerror(errno));
			return -1;
		}
		proto_rfb.feed(r->dec, PROTO_C2S, p, (size_t)k);
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int update_request(struct rfb *r, bool incremental)
{
	uint8_t m[10] = { 3, incremental, 0, 0, 0, 0, (uint8_t)(r->w >> 8), (uint8_t)r->w,
			  (uint8_t)(r->h >> 8), (uint8_t)r->h };
	return wr(r, m, sizeof m);
}

/* Fence and ContinuousUpdates: a viewer that asks for them must answer
   the server's fences and take updates it did not ask for; the replay's
   does neither. */
static bool rfb_obliges(int32_t e)
{
	return e == -312 || e == -313;
}

/* SetEncodings: the recorded viewer's list, less what the replay's
   viewer cannot take (said once, by name), or Raw and CopyRect for a
   session that does not say (a session file of an older xcap-replay). */
static int rfb_set_encodings(struct rfb *r, const struct xsession *s, const char *where)
{
	uint8_t m[4 + 4 * XSESS_MAX_ENCODINGS] = { 2, 0 };
	size_t n = 0;
	char left[160] = "";
	for (size_t i = 0; i < s->nencodings; i++) {
		int32_t e = s->encodings[i];
		if (proto_rfb_encoding_framed(e) && !rfb_obliges(e)) {
			for (int b = 0; b < 4; b++)
				m[4 + 4 * n + (size_t)b] = (uint8_t)((uint32_t)e >> (24 - 8 * b));
			n++;
		} else if (!rfb_obliges(e)) {
			char name[48];
			proto_rfb_encoding_name(e, name, sizeof name);
			size_t used = strlen(left);
			snprintf(left + used, sizeof left - used, "%s%s", used ? ", " : "", name);
		}
	}
	if (*left)
		complain("the recorded viewer asked for encodings the replay cannot frame, left out: %s: "
			 "'%s'", left, where);
	if (!n) {
		if (!s->nencodings)
			complain("the session does not say which encodings its viewer asked for: asking "
				 "for Raw and CopyRect: '%s'", where);
		static const uint8_t raw_copyrect[] = { 0, 0, 0, 1, 0, 0, 0, 0 };
		memcpy(m + 4, raw_copyrect, sizeof raw_copyrect);
		n = 2;
	}
	m[2] = (uint8_t)(n >> 8);
	m[3] = (uint8_t)n;
	return wr(r, m, 4 + 4 * n);
}

static int rfb_connect(struct rfb *r, const struct xsession *s, const char *where)
{
	static const struct proto_sink sink_proto = { .message = rfb_framed, .note = rfb_note };
	struct proto_sink sink = sink_proto;
	sink.ctx = r;
	if (!(r->dec = proto_rfb.create(&sink)))
		die(EXIT_RUNTIME, "out of memory: '%s'", where);
	char host[256];
	snprintf(host, sizeof host, "%s", where);
	char *colon = strrchr(host, ':');
	if (!colon)
		die(EXIT_USAGE, "--rfb must be HOST:PORT: '%s'", where);
	*colon = '\0';
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	int e = getaddrinfo(host, colon + 1, &hints, &ai);
	if (e)
		die(EXIT_RUNTIME, "cannot find the RFB server: %s: '%s'", gai_strerror(e), where);
	r->fd = -1;
	for (struct addrinfo *a = ai; a && r->fd < 0; a = a->ai_next) {
		r->fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
		if (r->fd >= 0 && connect(r->fd, a->ai_addr, a->ai_addrlen) < 0) {
			close(r->fd);
			r->fd = -1;
		}
	}
	freeaddrinfo(ai);
	if (r->fd < 0)
		die(EXIT_RUNTIME, "cannot connect to the RFB server: %s: '%s'", strerror(errno), where);
	uint8_t b[24];
	if (rd(r, b, 12) < 0 || memcmp(b, "RFB 003.", 8) != 0)
		die(EXIT_RUNTIME, "not an RFB server: '%s'", where);
	if (wr(r, "RFB 003.008\n", 12) < 0 || rd(r, b, 1) < 0)
		die(EXIT_RUNTIME, "RFB handshake failed: %s: '%s'", r->err, where);
	uint8_t n = b[0], types[255];
	if (n == 0 || rd(r, types, n) < 0)
		die(EXIT_RUNTIME, "the RFB server refused the connection: '%s'", where);
	bool none = false;
	for (unsigned i = 0; i < n; i++)
		none |= types[i] == 1;
	if (!none)
		die(EXIT_RUNTIME, "the RFB server does not offer security None: '%s'", where);
	if (wr(r, "\1", 1) < 0 || rd(r, b, 4) < 0 || be32(b) != 0)
		die(EXIT_RUNTIME, "RFB security None failed: '%s'", where);
	/* shared: the display's own viewers stay */
	if (wr(r, "\1", 1) < 0 || rd(r, b, 24) < 0)
		die(EXIT_RUNTIME, "RFB initialisation failed: %s: '%s'", r->err, where);
	r->w = be16(b);
	r->h = be16(b + 2);
	r->bpp = b[4];
	if (r->bpp != 8 && r->bpp != 16 && r->bpp != 32)
		die(EXIT_RUNTIME, "the RFB server's pixels are %u bits: '%s'", r->bpp, where);
	if (discard(r, be32(b + 20)) < 0)
		die(EXIT_RUNTIME, "RFB initialisation failed: %s: '%s'", r->err, where);
	if (rfb_set_encodings(r, s, where) < 0 || update_request(r, false) < 0)
		die(EXIT_RUNTIME, "RFB initialisation failed: %s: '%s'", r->err, where);
	return 0;
}

/* What the server sent since the last call, framed: 1 when an update that
   changed pixels ended in it, 0 when none did, -1 on an error.  Each update
   is asked for again, as a viewer keeps one request outstanding. */
static int rfb_message(struct rfb *r)
{
	uint8_t buf[65536];
	ssize_t k;
	while ((k = read(r->fd, buf, sizeof buf)) < 0 && errno == EINTR)
		;
	if (k <= 0) {
		snprintf(r->err, sizeof r->err, "%s", k < 0 ? strerror(errno) : "the server closed");
		return -1;
	}
	proto_rfb.feed(r->dec, PROTO_S2C, buf, (size_t)k);
	if (r->lost[0]) {
		snprintf(r->err, sizeof r->err, "cannot frame what it sent: %s", r->lost);
		return -1;
	}
	for (; r->updates; r->updates--)
		if (update_request(r, true) < 0)
			return -1;
	int changed = r->pixels > 0;
	r->pixels = 0;
	return changed;
}

static int rfb_change(void *ctx, uint64_t deadline, uint64_t *when)
{
	struct rfb *r = ctx;
	for (;;) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC);
		if (now >= deadline)
			return 0;
		struct pollfd pfd = { r->fd, POLLIN, 0 };
		uint64_t left = (deadline - now + NS_PER_MS - 1) / NS_PER_MS;
		int k = poll(&pfd, 1, (int)(left > 60000 ? 60000 : left));
		if (k < 0 && errno != EINTR)
			return -1;
		if (k <= 0)
			continue;
		int m = rfb_message(r);
		if (m < 0)
			return -1;
		if (m > 0) {
			*when = clock_ns(CLOCK_MONOTONIC);
			return 1;
		}
	}
}

static int rfb_send(void *ctx, const struct xsess_input *in, int32_t dx, int32_t dy)
{
	struct rfb *r = ctx;
	if (in->kind == XSESS_POINTER) {
		int32_t x = in->root_x + dx, y = in->root_y + dy;
		x = x < 0 ? 0 : x > 65535 ? 65535 : x;
		y = y < 0 ? 0 : y > 65535 ? 65535 : y;
		r->mask = (uint8_t)in->state;
		r->px = (uint16_t)x;
		r->py = (uint16_t)y;
		uint8_t m[6] = { 5, r->mask, (uint8_t)(x >> 8), (uint8_t)x, (uint8_t)(y >> 8),
				 (uint8_t)y };
		return wr(r, m, sizeof m);
	}
	uint8_t m[8] = { 4, in->kind == XSESS_KEY_PRESS, 0, 0, (uint8_t)(in->code >> 24),
			 (uint8_t)(in->code >> 16), (uint8_t)(in->code >> 8), (uint8_t)in->code };
	return wr(r, m, sizeof m);
}

static int play_rfb(struct play *p, const struct xsession *s, const char *where)
{
	struct rfb r = { 0 };
	rfb_connect(&r, s, where);
	if (s->screen_w && (s->screen_w != r.w || s->screen_h != r.h))
		complain("the framebuffer is %ux%u, the session's was %" PRIu32 "x%" PRIu32
			 ": positions kept as recorded: '%s'", r.w, r.h, s->screen_w, s->screen_h,
			 where);
	/* The first full update, so that what follows is the inputs' doing. */
	uint64_t w;
	if (rfb_change(&r, clock_ns(CLOCK_MONOTONIC) + p->timeout, &w) < 0)
		die(EXIT_RUNTIME, "lost the RFB server: %s: '%s'", r.err, where);
	struct target t = { rfb_send, rfb_change, NULL, &r };
	if (play_all(p, s, &t) < 0)
		die(EXIT_RUNTIME, "lost the RFB server: %s: '%s'", r.err, where);
	if (r.mask) {	/* buttons a session left down: the mask says them all */
		uint8_t m[6] = { 5, 0, (uint8_t)(r.px >> 8), (uint8_t)r.px, (uint8_t)(r.py >> 8),
				 (uint8_t)r.py };
		if (wr(&r, m, sizeof m) < 0)
			die(EXIT_RUNTIME, "lost the RFB server: %s: '%s'", r.err, where);
		p->released++;
	}
	close(r.fd);
	proto_rfb.destroy(r.dec);
	return 0;
}

/* ---- capturing while playing ---- */

static pid_t capture_pid = -1;
static FILE *capture_said;	/* xcap's standard error */

/* Whatever way the replay ends, the capture it started ends too. */
static void capture_end_at_exit(void)
{
	if (capture_pid > 0) {
		kill(capture_pid, SIGINT);
		waitpid(capture_pid, NULL, 0);
		capture_pid = -1;
	}
}

/* xcap on iface, writing trace, filtered to the display's port, started
   and listening before the first input; its pid. */
static pid_t capture_start(const char *iface, const char *trace, unsigned port)
{
	int fds[2];
	if (pipe(fds) < 0)
		die(EXIT_RUNTIME, "cannot start xcap: %s: '%s'", strerror(errno), trace);
	char filter[64];
	snprintf(filter, sizeof filter, "tcp port %u", port);
	/* The xcap of this build or installation, beside us (parts.h). */
	char xcap[PATH_MAX], looked[2 * PATH_MAX];
	if (find_part(xcap, sizeof xcap, "xcap", NULL, NULL, NULL, looked, sizeof looked) < 0)
		die(EXIT_RUNTIME, "cannot find the capturing program (looked in %s): 'xcap'", looked);
	pid_t pid = fork();
	if (pid < 0)
		die(EXIT_RUNTIME, "cannot start xcap: %s: '%s'", strerror(errno), trace);
	if (pid == 0) {
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		close(fds[1]);
		execl(xcap, "xcap", "-i", iface, "-w", trace, filter, (char *)NULL);
		fprintf(stderr, "xcap: cannot run: %s\n", strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	/* Its messages go on to ours; the first that says it listens lets the
	   replay begin. */
	FILE *f = fdopen(fds[0], "r");
	char line[512];
	bool listening = false;
	while (f && !listening && fgets(line, sizeof line, f)) {
		fputs(line, stderr);
		listening = strstr(line, "listening on") != NULL;
	}
	if (!listening) {
		int st;
		waitpid(pid, &st, 0);
		die(EXIT_RUNTIME, "xcap did not start capturing: '%s'", trace);
	}
	/* The rest of what it says (a few lines: its summary) waits in the
	   pipe until it has ended. */
	capture_said = f;
	capture_pid = pid;
	atexit(capture_end_at_exit);
	return pid;
}

static void capture_stop(pid_t pid, const char *trace)
{
	/* The last updates and acknowledgements are still on their way. */
	sleep_until(clock_ns(CLOCK_MONOTONIC) + NS_PER_S);
	kill(pid, SIGINT);
	int st;
	pid_t w = waitpid(pid, &st, 0);
	capture_pid = -1;
	char line[512];
	while (capture_said && fgets(line, sizeof line, capture_said))
		fputs(line, stderr);
	if (capture_said)
		fclose(capture_said);
	capture_said = NULL;
	if (w < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		die(EXIT_RUNTIME, "the capture failed: '%s'", trace);
}

/* The TCP port of an X display name ("host:N.S") or of HOST:PORT. */
static unsigned display_port(const char *display)
{
	const char *colon = display ? strrchr(display, ':') : NULL;
	if (!colon)
		die(EXIT_USAGE, "--capture needs a display with a TCP port (host:N): '%s'",
		    display ? display : "");
	return 6000 + (unsigned)strtoul(colon + 1, NULL, 10);
}

/* ---- the command line ---- */

static uint64_t ms_arg(const char *opt, const char *v)
{
	uint64_t ns;
	if (units_duration(v, UNITS_MS, &ns) < 0 || ns > 3600 * UNITS_S)
		die(EXIT_USAGE, "%s must be milliseconds or " UNITS_DURATION_HINT ": '%s'", opt, v);
	return ns;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc > 1 && strcmp(argv[1], "record") == 0)
		return do_record(argc - 1, argv + 1);
	static const struct option opts[] = {
		{ "pace", required_argument, NULL, 'p' },
		{ "quiet", required_argument, NULL, 'Q' },
		{ "timeout", required_argument, NULL, 't' },
		{ "display", required_argument, NULL, 'd' },
		{ "rfb", required_argument, NULL, 'r' },
		{ "offset", required_argument, NULL, 'O' },
		{ "log", required_argument, NULL, 'l' },
		{ "capture", required_argument, NULL, 'c' },
		{ "interface", required_argument, NULL, 'i' },
		{ "no-expect", no_argument, NULL, 'e' },
		{ "quiet-report", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct play p = { .pace = PACE_QUIET, .quiet = 300 * NS_PER_MS, .timeout = 5000 * NS_PER_MS,
			 .expect = true };
	const char *display = NULL, *rfb = "127.0.0.1:5900", *log = NULL, *capture = NULL,
		   *iface = "lo";
	bool summary = true;
	int c;
	while ((c = getopt_long(argc, argv, "qhV", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (strcmp(optarg, "quiet") == 0)
				p.pace = PACE_QUIET;
			else if (strcmp(optarg, "recorded") == 0)
				p.pace = PACE_RECORDED;
			else
				die(EXIT_USAGE, "--pace must be quiet or recorded: '%s'", optarg);
			break;
		case 'Q': p.quiet = ms_arg("--quiet", optarg); break;
		case 't': p.timeout = ms_arg("--timeout", optarg); break;
		case 'd': display = optarg; break;
		case 'r': rfb = optarg; break;
		case 'O':
			if (sscanf(optarg, "%" SCNd32 ",%" SCNd32, &p.dx, &p.dy) != 2 ||
			    p.dx < -65535 || p.dx > 65535 || p.dy < -65535 || p.dy > 65535)
				die(EXIT_USAGE, "--offset must be DX,DY in pixels: '%s'", optarg);
			break;
		case 'l': log = optarg; break;
		case 'c': capture = optarg; break;
		case 'i': iface = optarg; break;
		case 'e': p.expect = false; break;
		case 'q': summary = false; break;
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': printf("xcap-replay %s\n", PACKAGE_VERSION); return EXIT_OK;
		default:
			fprintf(stderr, "Try 'xcap-replay --help' for more information.\n");
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc)
		die(EXIT_USAGE, "give one session file: '%s'", optind < argc ? argv[argc - 1] : "");
	if (p.timeout < p.quiet)
		die(EXIT_USAGE, "--timeout must be at least --quiet: '%llu'",
		    (unsigned long long)(p.timeout / NS_PER_MS));
	const char *path = argv[optind];
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	if (!f)
		die(EXIT_RUNTIME, "cannot read the session: %s: '%s'", strerror(errno), path);
	struct xsession s;
	char err[512];
	int rc = xsession_read(f, path, &s, err, sizeof err);
	if (f != stdin)
		fclose(f);
	if (rc < 0)
		die(EXIT_RUNTIME, "cannot read the session: %s: '%s'", err, path);
	if (log) {
		p.log = fopen(log, "w");
		if (!p.log)
			die(EXIT_RUNTIME, "cannot write the log: %s: '%s'", strerror(errno), log);
	}
	pid_t cap = -1;
	if (capture) {
		unsigned port;
		if (s.proto == XSESS_X11) {
			const char *d = display ? display : getenv("DISPLAY");
			port = display_port(d);
		} else {
			const char *colon = strrchr(rfb, ':');
			port = colon ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
			if (!port)
				die(EXIT_USAGE, "--rfb must be HOST:PORT: '%s'", rfb);
		}
		cap = capture_start(iface, capture, port);
	}
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
	if (s.proto == XSESS_X11)
		play_x11(&p, &s, display);
	else
		play_rfb(&p, &s, rfb);
	if (cap > 0)
		capture_stop(cap, capture);
	if (p.log && fclose(p.log) != 0)
		die(EXIT_RUNTIME, "cannot write the log: %s: '%s'", strerror(errno), log);
	if (summary)
		fprintf(stderr,
			"xcap-replay: %zu of %zu inputs sent in %.3f s (%s pace); %zu responses never "
			"began, %zu never went quiet, %zu clicks never found their window%s\n",
			p.sent, s.n, (double)(clock_ns(CLOCK_MONOTONIC) - t0) / 1e9,
			p.pace == PACE_QUIET ? "quiet" : "recorded", p.never_began, p.never_quiet,
			p.never_placed,
			p.released ? "; let go of keys or buttons held at the end" : "");
	xsession_free(&s);
	return p.never_began || p.never_quiet || p.never_placed ? EXIT_UNSETTLED : EXIT_OK;
}
