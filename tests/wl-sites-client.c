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
 * Belongs to: the tests (tests/).
 */
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

int main(void)
{
	struct wl_display *d = wl_display_connect(NULL);
	if (!d) {
		fprintf(stderr, "wl-sites-client: cannot connect\n");
		return 1;
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
