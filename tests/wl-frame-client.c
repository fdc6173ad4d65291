/*
 * wl-frame-client.c — a Wayland client of the tests' own that ends by
 * itself after drawing: the registry's round trip, wl_compositor and
 * wl_shm bound and a round trip, then a 400x300 surface drawn whole into
 * a shared-memory buffer and committed, a round trip, a 100x100 square of
 * it changed and committed, a round trip, and the end.  Its pixels are
 * made, not random, so that a run through waypipe sends what a run
 * through xcap-run's relay predicts (tests/wayland-predict.sh).
 *
 * Belongs to: the tests (tests/).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>

enum { W = 400, H = 300, STRIDE = W * 4 };

static struct wl_compositor *compositor;
static struct wl_shm *shm;

static void global(void *data, struct wl_registry *r, uint32_t name, const char *iface,
		   uint32_t version)
{
	(void)data, (void)version;
	if (strcmp(iface, "wl_compositor") == 0)
		compositor = wl_registry_bind(r, name, &wl_compositor_interface, 1);
	else if (strcmp(iface, "wl_shm") == 0)
		shm = wl_registry_bind(r, name, &wl_shm_interface, 1);
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
		fprintf(stderr, "wl-frame-client: cannot connect\n");
		return 1;
	}
	struct wl_registry *r = wl_display_get_registry(d);
	wl_registry_add_listener(r, &listener, NULL);
	wl_display_roundtrip(d);
	wl_display_roundtrip(d);
	int fd = memfd_create("wl-frame-client", MFD_CLOEXEC);
	if (!compositor || !shm || fd < 0 || ftruncate(fd, STRIDE * H) != 0)
		return 1;
	uint32_t *px = mmap(NULL, STRIDE * H, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (px == MAP_FAILED)
		return 1;
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			px[y * W + x] = 0xff000000u | (uint32_t)(x * 7 + y * 13) * 0x010101u;
	struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, STRIDE * H);
	struct wl_buffer *b = wl_shm_pool_create_buffer(pool, 0, W, H, STRIDE, WL_SHM_FORMAT_XRGB8888);
	struct wl_surface *s = wl_compositor_create_surface(compositor);
	wl_surface_attach(s, b, 0, 0);
	wl_surface_damage(s, 0, 0, W, H);
	wl_surface_commit(s);
	wl_display_roundtrip(d);
	for (int y = 100; y < 200; y++)
		for (int x = 150; x < 250; x++)
			px[y * W + x] = 0xffff0000u;
	wl_surface_attach(s, b, 0, 0);
	wl_surface_damage(s, 150, 100, 100, 100);
	wl_surface_commit(s);
	wl_display_roundtrip(d);
	wl_buffer_destroy(b);
	wl_shm_pool_destroy(pool);
	wl_surface_destroy(s);
	wl_display_roundtrip(d);
	wl_display_disconnect(d);
	return 0;
}
