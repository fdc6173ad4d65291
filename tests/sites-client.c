/*
 * sites-client.c — a small libxcb client built with debug info by
 * tests/sites-lines.sh: it makes round trips from lines of its own, each
 * marked by a comment the test finds, so that the test can check that
 * xcapanalyse --sites names this file and those lines; and two loops that
 * wait for each answer in turn (12 AllocColor, 8 InternAtom), which
 * --sites must list as batchable, where the first loop's InternAtom and
 * GetInputFocus, alternating, are not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xcb/xcb.h>

/* noinline: each call site stays a frame of its own in the stack. */
__attribute__((noinline)) static xcb_atom_t intern(xcb_connection_t *c, const char *name)
{
	xcb_intern_atom_cookie_t ck = xcb_intern_atom(c, 0, (uint16_t)strlen(name), name);
	xcb_intern_atom_reply_t *r = xcb_intern_atom_reply(c, ck, NULL);	/* SITE-INTERN */
	xcb_atom_t a = r ? r->atom : XCB_NONE;
	free(r);
	return a;
}

__attribute__((noinline)) static int focus(xcb_connection_t *c)
{
	xcb_get_input_focus_reply_t *r =
		xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL);	/* SITE-FOCUS */
	int ok = r != NULL;
	free(r);
	return ok;
}

__attribute__((noinline)) static int alloc_colors(xcb_connection_t *c, xcb_colormap_t cmap, int n)
{
	for (int i = 0; i < n; i++) {
		uint16_t v = (uint16_t)(i * 5000);
		xcb_alloc_color_reply_t *r =
			xcb_alloc_color_reply(c, xcb_alloc_color(c, cmap, v, v, v), NULL);	/* SITE-ALLOC */
		if (!r)
			return 0;
		free(r);
	}
	return 1;
}

__attribute__((noinline)) static int intern_loop(xcb_connection_t *c, int n)
{
	char name[32];
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "XCAP_LOOP_%d", i);
		xcb_intern_atom_cookie_t ck = xcb_intern_atom(c, 0, (uint16_t)strlen(name), name);
		xcb_intern_atom_reply_t *r = xcb_intern_atom_reply(c, ck, NULL);	/* SITE-INTERN-LOOP */
		if (!r)
			return 0;
		free(r);
	}
	return 1;
}

int main(void)
{
	xcb_connection_t *c = xcb_connect(NULL, NULL);
	if (xcb_connection_has_error(c)) {
		fprintf(stderr, "sites-client: cannot connect to the display\n");
		return 1;
	}
	char name[32];
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof name, "XCAP_SITES_%d", i);
		if (intern(c, name) == XCB_NONE)
			return 1;
		if (!focus(c))
			return 1;
	}
	xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
	if (!alloc_colors(c, screen->default_colormap, 12) || !intern_loop(c, 8))
		return 1;
	xcb_disconnect(c);
	return 0;
}
