/*
 * sites-client.c — a small libxcb client built with debug info by
 * tests/sites-lines.sh: it makes round trips from two lines of its own,
 * each marked by a comment the test finds, so that the test can check
 * that xcapanalyse --sites names this file and those lines.
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
	xcb_disconnect(c);
	return 0;
}
