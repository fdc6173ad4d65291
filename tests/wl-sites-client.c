/*
 * wl-sites-client.c — a Wayland client of the tests' own, built with -g
 * by tests/run-wayland.sh, that makes round trips of each kind
 * xcapanalyse --sites tells apart, each from a line of its own (the test
 * finds the lines by their comments):
 *
 *   the registry's round trip                          (needed)
 *   a second round trip with nothing asked between     (avoidable)
 *   a round trip after binding wl_compositor           (needed)
 *   the registry fetched again, and its round trip     (avoidable)
 *   a sync after each of three surfaces                (the 2nd and 3rd avoidable)
 *
 * With --loop it waits in a loop of its own instead, as GTK 4 and Qt do
 * (wl_display_prepare_read, poll, wl_display_read_events,
 * wl_display_dispatch_pending): a sync waited for so, and before it a
 * poll that ends with nothing asked (its timeout), which must get no
 * stack.
 *
 * Belongs to: the tests (tests/).
 */
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <wayland-client.h>

static struct wl_compositor *compositor;
static uint32_t compositor_name;

static void global(void *data, struct wl_registry *r, uint32_t name, const char *iface,
		   uint32_t version)
{
	(void)data, (void)r, (void)version;
	if (strcmp(iface, "wl_compositor") == 0)
		compositor_name = name;
}

static void global_remove(void *data, struct wl_registry *r, uint32_t name)
{
	(void)data, (void)r, (void)name;
}

static const struct wl_registry_listener listener = { global, global_remove };

static void done(void *data, struct wl_callback *cb, uint32_t serial)
{
	(void)serial;
	*(int *)data = 1;
	wl_callback_destroy(cb);
}

static const struct wl_callback_listener callback_listener = { done };

/* Wait in a loop of our own until *flag is set, or once for timeout ms. */
static void own_loop(struct wl_display *d, int *flag, int timeout)
{
	do {
		while (wl_display_prepare_read(d) != 0)
			wl_display_dispatch_pending(d);
		wl_display_flush(d);
		struct pollfd p = { .fd = wl_display_get_fd(d), .events = POLLIN };
		if (poll(&p, 1, timeout) > 0)
			wl_display_read_events(d);
		else
			wl_display_cancel_read(d);
		wl_display_dispatch_pending(d);
	} while (flag && !*flag);
}

int main(int argc, char **argv)
{
	struct wl_display *d = wl_display_connect(NULL);
	if (!d) {
		fprintf(stderr, "wl-sites-client: cannot connect\n");
		return 1;
	}
	if (argc > 1 && strcmp(argv[1], "--loop") == 0) {
		own_loop(d, NULL, 20);	/* nothing asked: no stack */
		int answered = 0;
		struct wl_callback *cb = wl_display_sync(d);	/* SITE loop */
		wl_callback_add_listener(cb, &callback_listener, &answered);
		own_loop(d, &answered, -1);
		wl_display_disconnect(d);
		return 0;
	}
	struct wl_registry *r = wl_display_get_registry(d);
	wl_registry_add_listener(r, &listener, NULL);
	wl_display_roundtrip(d);	/* SITE registry */
	wl_display_roundtrip(d);	/* SITE again */
	if (!compositor_name)
		return 1;
	compositor = wl_registry_bind(r, compositor_name, &wl_compositor_interface, 1);
	wl_display_roundtrip(d);	/* SITE bound */
	struct wl_registry *r2 = wl_display_get_registry(d);
	wl_display_roundtrip(d);	/* SITE registry2 */
	struct wl_surface *s[3];
	for (int i = 0; i < 3; i++) {
		s[i] = wl_compositor_create_surface(compositor);
		wl_display_roundtrip(d);	/* SITE surface */
	}
	for (int i = 0; i < 3; i++)
		wl_surface_destroy(s[i]);
	wl_registry_destroy(r2);
	wl_registry_destroy(r);
	wl_display_roundtrip(d);
	wl_display_disconnect(d);
	return 0;
}
