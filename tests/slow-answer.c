/*
 * slow-answer.c — an X client that answers each key press after a delay
 * chosen per key: the ground truth for response-time triggers.
 *
 *   slow-answer DISPLAY CHAR=MS...
 *
 * It maps a window over the top left of the screen, gives it the input
 * focus (so keys sent through XTEST reach it as real, not SendEvent,
 * input) and prints "ready WINDOW".  On each KeyPress whose key carries
 * the keysym of one of the CHARs it sleeps MS milliseconds before
 * answering; other keys it answers at once.  The answer is one filled
 * rectangle of a new colour.  For each press it prints
 *   press KEYCODE delay=MS answered_ms=T
 * where T is its own clock from reading the event to flushing the
 * answer, a lower bound of the response any capture can see.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xcb/xcb.h>

enum { MAX_KEYS = 16 };

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: slow-answer DISPLAY CHAR=MS...\n");
		return 2;
	}
	unsigned syms[MAX_KEYS], delays[MAX_KEYS];
	int nkeys = 0;
	for (int i = 2; i < argc && nkeys < MAX_KEYS; i++) {
		if (strlen(argv[i]) < 3 || argv[i][1] != '=') {
			fprintf(stderr, "slow-answer: bad key: '%s'\n", argv[i]);
			return 2;
		}
		syms[nkeys] = (unsigned char)argv[i][0];	/* Latin-1 keysyms are the characters */
		delays[nkeys++] = (unsigned)strtoul(argv[i] + 2, NULL, 10);
	}
	int screen_no;
	xcb_connection_t *c = xcb_connect(argv[1], &screen_no);
	if (xcb_connection_has_error(c)) {
		fprintf(stderr, "slow-answer: cannot open the display: '%s'\n", argv[1]);
		return 1;
	}
	const xcb_setup_t *setup = xcb_get_setup(c);
	xcb_screen_iterator_t it = xcb_setup_roots_iterator(setup);
	for (int i = 0; i < screen_no; i++)
		xcb_screen_next(&it);
	xcb_screen_t *s = it.data;

	/* Which keycodes carry the chosen keysyms (first column). */
	xcb_keycode_t first = setup->min_keycode;
	uint8_t count = (uint8_t)(setup->max_keycode - setup->min_keycode + 1);
	xcb_get_keyboard_mapping_reply_t *km =
		xcb_get_keyboard_mapping_reply(c, xcb_get_keyboard_mapping(c, first, count), NULL);
	if (!km) {
		fprintf(stderr, "slow-answer: no keyboard mapping\n");
		return 1;
	}
	xcb_keysym_t *map = xcb_get_keyboard_mapping_keysyms(km);
	unsigned per = km->keysyms_per_keycode;
	unsigned delay_of[256] = { 0 };
	for (unsigned k = 0; k < count; k++)
		for (int i = 0; i < nkeys; i++)
			if (per && map[k * per] == syms[i])
				delay_of[first + k] = delays[i];

	xcb_window_t w = xcb_generate_id(c);
	uint32_t values[] = { s->white_pixel, XCB_EVENT_MASK_KEY_PRESS | XCB_EVENT_MASK_EXPOSURE };
	xcb_create_window(c, XCB_COPY_FROM_PARENT, w, s->root, 0, 0, 300, 200, 0,
			  XCB_WINDOW_CLASS_INPUT_OUTPUT, s->root_visual,
			  XCB_CW_BACK_PIXEL | XCB_CW_EVENT_MASK, values);
	xcb_gcontext_t gc = xcb_generate_id(c);
	uint32_t fg = s->black_pixel;
	xcb_create_gc(c, gc, w, XCB_GC_FOREGROUND, &fg);
	xcb_map_window(c, w);
	xcb_flush(c);

	uint32_t colour = 0x102030;
	int ready = 0;
	xcb_generic_event_t *e;
	while ((e = xcb_wait_for_event(c))) {
		double got = now_ms();
		uint8_t type = e->response_type & 0x7f;
		if (type == XCB_EXPOSE && !ready) {
			xcb_set_input_focus(c, XCB_INPUT_FOCUS_POINTER_ROOT, w, XCB_CURRENT_TIME);
			xcb_flush(c);
			/* the focus is set once the server has answered */
			free(xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL));
			printf("ready 0x%x\n", (unsigned)w);
			fflush(stdout);
			ready = 1;
		} else if (type == XCB_KEY_PRESS) {
			xcb_key_press_event_t *k = (xcb_key_press_event_t *)e;
			unsigned delay = delay_of[k->detail];
			if (delay) {
				struct timespec d = { delay / 1000, (long)(delay % 1000) * 1000000L };
				nanosleep(&d, NULL);
			}
			colour = colour * 1103515245u + 12345u;
			uint32_t v = colour & 0xffffff;
			xcb_change_gc(c, gc, XCB_GC_FOREGROUND, &v);
			xcb_rectangle_t r = { 10, 10, 280, 180 };
			xcb_poly_fill_rectangle(c, w, gc, 1, &r);
			xcb_flush(c);
			printf("press %u delay=%u answered_ms=%.3f\n", (unsigned)k->detail, delay,
			       now_ms() - got);
			fflush(stdout);
		}
		free(e);
	}
	free(km);
	xcb_disconnect(c);
	return 0;
}
