/*
 * xinput-truth.c — the server side's own clock on response time, for
 * tests/responses-truth.sh.
 *
 *   xinput-truth DISPLAY GAP_MS ACTION...
 *
 * Connects to the X server beside it (no emulated link in between),
 * creates a DAMAGE object on the root window that reports every rectangle
 * drawn anywhere on the screen, and injects each ACTION through XTEST:
 *
 *   key:KEYCODE      a key press, then its release
 *   click:BUTTON     a button press, then its release
 *   move:X,Y         the pointer to X,Y (not timed: it moves the cursor,
 *                    which damages the screen by itself)
 *
 * Each press and each release is one input, and GAP_MS passes between
 * inputs.  For each timed input it prints one line
 *
 *   INDEX KIND DETAIL START_MS LAST_DAMAGE_MS COUNT SENT_NS LAST_NS
 *
 * on the server's own clock (milliseconds, as its events carry it):
 * START_MS when it handled the input (a property change sent right
 * behind the fake input, in the same flush, is stamped in the same
 * dispatch), LAST_DAMAGE_MS the timestamp of the last DamageNotify before
 * the next input ("-" and 0 when none came), and COUNT the DamageNotify
 * events.  Their difference is the response time as the display saw it:
 * from the moment the server had the input to the moment it drew the last
 * of what the client sent back.  The server's stamps leave out how late
 * this client is scheduled to read its events on a busy machine; SENT_NS
 * and LAST_NS are the same two moments on this client's monotonic clock,
 * for comparison.  Exit 0, or 1 with a message when something failed.
 */
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xcb/damage.h>
#include <xcb/xcb.h>
#include <xcb/xtest.h>

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static xcb_connection_t *c;
static uint8_t damage_event;
static xcb_window_t marker;	/* its property changes stamp the inputs */

static void die(const char *what, const char *subject)
{
	fprintf(stderr, "xinput-truth: %s: '%s'\n", what, subject);
	exit(1);
}

/* Drain events until deadline: the time of the last DamageNotify seen
   (0 when none) on this client's clock and on the server's, how many,
   and the server's stamp of the marker's property change. */
static void collect(uint64_t deadline, uint64_t *last, uint32_t *last_ms, unsigned *count,
		    uint32_t *start_ms)
{
	int fd = xcb_get_file_descriptor(c);
	for (;;) {
		xcb_generic_event_t *e;
		while ((e = xcb_poll_for_event(c))) {
			uint64_t t = now_ns();
			if ((e->response_type & 0x7f) == damage_event) {
				*last = t;
				*last_ms = ((xcb_damage_notify_event_t *)e)->timestamp;
				(*count)++;
			} else if ((e->response_type & 0x7f) == XCB_PROPERTY_NOTIFY) {
				*start_ms = ((xcb_property_notify_event_t *)e)->time;
			}
			free(e);
		}
		if (xcb_connection_has_error(c))
			die("connection lost", "X server");
		uint64_t t = now_ns();
		if (t >= deadline)
			return;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		poll(&p, 1, (int)((deadline - t) / 1000000 + 1));
	}
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: xinput-truth DISPLAY GAP_MS ACTION...\n");
		return 2;
	}
	int screen_no;
	c = xcb_connect(argv[1], &screen_no);
	if (xcb_connection_has_error(c))
		die("cannot connect", argv[1]);
	uint64_t gap = (uint64_t)atoi(argv[2]) * 1000000u;
	xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
	xcb_window_t root = screen->root;

	const xcb_query_extension_reply_t *ext = xcb_get_extension_data(c, &xcb_damage_id);
	if (!ext || !ext->present)
		die("no DAMAGE extension", argv[1]);
	damage_event = ext->first_event + XCB_DAMAGE_NOTIFY;
	ext = xcb_get_extension_data(c, &xcb_test_id);
	if (!ext || !ext->present)
		die("no XTEST extension", argv[1]);
	xcb_damage_query_version_reply_t *v =
		xcb_damage_query_version_reply(c, xcb_damage_query_version(c, 1, 1), NULL);
	if (!v)
		die("DAMAGE version query failed", argv[1]);
	free(v);
	/* A key held for GAP_MS would repeat: the server's own inputs, which
	   this client does not stamp.  Off for the session (the server is the
	   test's own). */
	uint32_t repeat_off = XCB_AUTO_REPEAT_MODE_OFF;
	xcb_change_keyboard_control(c, XCB_KB_AUTO_REPEAT_MODE, &repeat_off);
	xcb_damage_damage_t dmg = xcb_generate_id(c);
	xcb_damage_create(c, dmg, root, XCB_DAMAGE_REPORT_LEVEL_RAW_RECTANGLES);
	marker = xcb_generate_id(c);
	uint32_t mask = XCB_EVENT_MASK_PROPERTY_CHANGE;
	xcb_create_window(c, 0, marker, root, 0, 0, 1, 1, 0, XCB_WINDOW_CLASS_INPUT_ONLY,
			  XCB_COPY_FROM_PARENT, XCB_CW_EVENT_MASK, &mask);
	xcb_flush(c);

	unsigned index = 0;
	for (int i = 3; i < argc; i++) {
		const char *a = argv[i];
		if (strncmp(a, "move:", 5) == 0) {
			int x, y;
			if (sscanf(a + 5, "%d,%d", &x, &y) != 2)
				die("bad action", a);
			xcb_test_fake_input(c, XCB_MOTION_NOTIFY, 0, XCB_CURRENT_TIME, root,
					    (int16_t)x, (int16_t)y, 0);
			xcb_flush(c);
			uint64_t last = 0;
			uint32_t last_ms = 0, start_ms = 0;
			unsigned n = 0;
			collect(now_ns() + gap, &last, &last_ms, &n, &start_ms);
			continue;
		}
		uint8_t press, release;
		int detail;
		const char *kind;
		if (sscanf(a, "key:%d", &detail) == 1) {
			press = XCB_KEY_PRESS;
			release = XCB_KEY_RELEASE;
			kind = "key";
		} else if (sscanf(a, "click:%d", &detail) == 1) {
			press = XCB_BUTTON_PRESS;
			release = XCB_BUTTON_RELEASE;
			kind = "button";
		} else {
			die("bad action", a);
		}
		for (int half = 0; half < 2; half++) {
			xcb_test_fake_input(c, half ? release : press, (uint8_t)detail, XCB_CURRENT_TIME,
					    XCB_NONE, 0, 0, 0);
			xcb_change_property(c, XCB_PROP_MODE_APPEND, marker, XCB_ATOM_WM_NAME,
					    XCB_ATOM_STRING, 8, 0, "");
			xcb_flush(c);
			uint64_t sent = now_ns(), last = 0;
			uint32_t last_ms = 0, start_ms = 0;
			unsigned n = 0;
			collect(sent + gap, &last, &last_ms, &n, &start_ms);
			index++;
			if (!start_ms)
				die("no PropertyNotify for the input's stamp", a);
			if (last)
				printf("%u %s-%s %d %u %u %u %llu %llu\n", index, kind,
				       half ? "release" : "press", detail, start_ms, last_ms, n,
				       (unsigned long long)sent, (unsigned long long)last);
			else
				printf("%u %s-%s %d %u - 0 %llu -\n", index, kind, half ? "release" : "press",
				       detail, start_ms, (unsigned long long)sent);
			fflush(stdout);
		}
	}
	xcb_disconnect(c);
	return 0;
}
