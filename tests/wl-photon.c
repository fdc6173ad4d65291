/*
 * wl-photon.c — a Wayland client whose input-to-photon is known, for the
 * response test: a window that redraws itself on every key it is given
 * and asks the compositor when each of those frames reached the screen.
 *
 * Each wl_keyboard.key (press or release) fills a shm buffer with a new
 * colour, attaches it, damages it, asks wp_presentation.feedback for the
 * commit and commits.  It binds zwp_input_timestamps_manager_v1 when the
 * compositor offers it, for the keys' ns times.  When the feedback is
 * answered it prints one line per key, its own figure from the same
 * events a capture sees:
 *
 *   key N time_ms=T stamp_ns=S|- presented_ns=P|discarded clock=C photon_ns=D|-
 *
 * D is P less S when there is one, else less T ms (the event's ms have an
 * undefined base, wrapped at 2^32: the difference is taken in ms as
 * unsigned 32-bit and P's sub-ms added), and "-" when the key's time is 0
 * (no time given).  The clock C is wp_presentation.clock_id's.
 *
 * Usage: wl-photon (WAYLAND_DISPLAY and XDG_RUNTIME_DIR as usual); runs
 * until killed.  Built by the tests with wayland-scanner's code for
 * xdg-shell, presentation-time and input-timestamps (tests/wayland-photon.sh).
 *
 * Belongs to: tests (the Wayland response test, tests/wayland-photon.sh).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>

#include "input-timestamps-unstable-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "xdg-shell-client-protocol.h"

enum { W = 160, H = 100, NBUF = 4 };

struct buf {
	struct wl_buffer *b;
	uint32_t *px;
	int busy;
};

struct key {
	unsigned n;
	uint32_t time_ms;
	uint64_t stamp_ns;	/* 0: none */
};

static struct wl_compositor *comp;
static struct wl_shm *shm;
static struct xdg_wm_base *wm;
static struct wl_seat *seat;
static struct wp_presentation *pres;
static struct zwp_input_timestamps_manager_v1 *stamps;
static struct wl_surface *surf;
static struct buf bufs[NBUF];
static uint32_t clock_id = UINT32_MAX;
static uint64_t next_stamp;
static unsigned nkeys;
static int configured;

static void buf_release(void *data, struct wl_buffer *b)
{
	(void)b;
	((struct buf *)data)->busy = 0;
}
static const struct wl_buffer_listener buf_l = { buf_release };

static void make_buffers(void)
{
	int fd = memfd_create("wl-photon", 0);
	size_t size = (size_t)W * H * 4 * NBUF;
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		perror("wl-photon: shm");
		exit(1);
	}
	uint32_t *px = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (px == MAP_FAILED) {
		perror("wl-photon: mmap");
		exit(1);
	}
	struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, (int32_t)size);
	for (int i = 0; i < NBUF; i++) {
		bufs[i].px = px + (size_t)i * W * H;
		bufs[i].b = wl_shm_pool_create_buffer(pool, i * W * H * 4, W, H, W * 4,
						      WL_SHM_FORMAT_XRGB8888);
		wl_buffer_add_listener(bufs[i].b, &buf_l, &bufs[i]);
	}
	wl_shm_pool_destroy(pool);
	close(fd);
}

static void fb_sync_output(void *d, struct wp_presentation_feedback *f, struct wl_output *o)
{
	(void)d, (void)f, (void)o;
}

static void fb_done(struct wp_presentation_feedback *f, struct key *k, const char *presented,
		    const char *photon)
{
	printf("key %u time_ms=%" PRIu32 " stamp_ns=", k->n, k->time_ms);
	if (k->stamp_ns)
		printf("%" PRIu64, k->stamp_ns);
	else
		printf("-");
	printf(" presented_ns=%s clock=%" PRIu32 " photon_ns=%s\n", presented, clock_id, photon);
	fflush(stdout);
	wp_presentation_feedback_destroy(f);
	free(k);
}

static void fb_presented(void *data, struct wp_presentation_feedback *f, uint32_t sec_hi,
			 uint32_t sec_lo, uint32_t nsec, uint32_t refresh, uint32_t seq_hi,
			 uint32_t seq_lo, uint32_t flags)
{
	(void)refresh, (void)seq_hi, (void)seq_lo, (void)flags;
	struct key *k = data;
	uint64_t shown = ((uint64_t)sec_hi << 32 | sec_lo) * 1000000000ull + nsec;
	char p[32], d[32] = "-";
	snprintf(p, sizeof p, "%" PRIu64, shown);
	if (k->stamp_ns)
		snprintf(d, sizeof d, "%" PRId64, (int64_t)(shown - k->stamp_ns));
	else if (k->time_ms)
		snprintf(d, sizeof d, "%" PRIu64,
			 (uint64_t)(uint32_t)((uint32_t)(shown / 1000000) - k->time_ms) * 1000000 +
				 shown % 1000000);
	fb_done(f, k, p, d);
}

static void fb_discarded(void *data, struct wp_presentation_feedback *f)
{
	fb_done(f, data, "discarded", "-");
}

static const struct wp_presentation_feedback_listener fb_l = { fb_sync_output, fb_presented,
								fb_discarded };

/* A new frame: a buffer the compositor is not holding, a colour of the
   key's number, and feedback for it when k is given. */
static void draw(struct key *k)
{
	struct buf *b = NULL;
	for (int i = 0; i < NBUF && !b; i++)
		if (!bufs[i].busy)
			b = &bufs[i];
	if (!b) {
		fprintf(stderr, "wl-photon: every buffer busy\n");
		exit(1);
	}
	uint32_t colour = 0x203040u + nkeys * 0x0a1f07u;
	for (int i = 0; i < W * H; i++)
		b->px[i] = colour;
	b->busy = 1;
	wl_surface_attach(surf, b->b, 0, 0);
	wl_surface_damage_buffer(surf, 0, 0, W, H);
	if (k && pres) {
		struct wp_presentation_feedback *f = wp_presentation_feedback(pres, surf);
		wp_presentation_feedback_add_listener(f, &fb_l, k);
	} else {
		free(k);
	}
	wl_surface_commit(surf);
}

static void kb_keymap(void *d, struct wl_keyboard *kb, uint32_t fmt, int32_t fd, uint32_t size)
{
	(void)d, (void)kb, (void)fmt, (void)size;
	close(fd);
}
static void kb_enter(void *d, struct wl_keyboard *kb, uint32_t serial, struct wl_surface *s,
		     struct wl_array *keys)
{
	(void)d, (void)kb, (void)serial, (void)s, (void)keys;
}
static void kb_leave(void *d, struct wl_keyboard *kb, uint32_t serial, struct wl_surface *s)
{
	(void)d, (void)kb, (void)serial, (void)s;
}
static void kb_key(void *d, struct wl_keyboard *kb, uint32_t serial, uint32_t time, uint32_t key,
		   uint32_t state)
{
	(void)d, (void)kb, (void)serial, (void)key, (void)state;
	struct key *k = calloc(1, sizeof *k);
	if (!k)
		exit(1);
	k->n = ++nkeys;
	k->time_ms = time;
	k->stamp_ns = next_stamp;
	next_stamp = 0;
	draw(k);
}
static void kb_mods(void *d, struct wl_keyboard *kb, uint32_t serial, uint32_t a, uint32_t b,
		    uint32_t c, uint32_t g)
{
	(void)d, (void)kb, (void)serial, (void)a, (void)b, (void)c, (void)g;
}
static void kb_repeat(void *d, struct wl_keyboard *kb, int32_t rate, int32_t delay)
{
	(void)d, (void)kb, (void)rate, (void)delay;
}
static const struct wl_keyboard_listener kb_l = { kb_keymap, kb_enter, kb_leave,
						  kb_key, kb_mods, kb_repeat };

static void stamp(void *d, struct zwp_input_timestamps_v1 *t, uint32_t hi, uint32_t lo, uint32_t ns)
{
	(void)d, (void)t;
	next_stamp = ((uint64_t)hi << 32 | lo) * 1000000000ull + ns;
}
static const struct zwp_input_timestamps_v1_listener stamp_l = { stamp };

/* The keyboard comes and goes with the seat's capability (sway's with
   each virtual keyboard a typing client makes): a new one each time. */
static void seat_caps(void *d, struct wl_seat *s, uint32_t caps)
{
	(void)d;
	static struct wl_keyboard *kb;
	static struct zwp_input_timestamps_v1 *t;
	if ((caps & WL_SEAT_CAPABILITY_KEYBOARD) && !kb) {
		kb = wl_seat_get_keyboard(s);
		wl_keyboard_add_listener(kb, &kb_l, NULL);
		if (stamps) {
			t = zwp_input_timestamps_manager_v1_get_keyboard_timestamps(stamps, kb);
			zwp_input_timestamps_v1_add_listener(t, &stamp_l, NULL);
		}
	} else if (!(caps & WL_SEAT_CAPABILITY_KEYBOARD) && kb) {
		if (t)
			zwp_input_timestamps_v1_destroy(t);
		wl_keyboard_destroy(kb);
		kb = NULL;
		t = NULL;
	}
}
static void seat_name(void *d, struct wl_seat *s, const char *name)
{
	(void)d, (void)s, (void)name;
}
static const struct wl_seat_listener seat_l = { seat_caps, seat_name };

static void pres_clock(void *d, struct wp_presentation *p, uint32_t id)
{
	(void)d, (void)p;
	clock_id = id;
}
static const struct wp_presentation_listener pres_l = { pres_clock };

static void wm_ping(void *d, struct xdg_wm_base *w, uint32_t serial)
{
	(void)d;
	xdg_wm_base_pong(w, serial);
}
static const struct xdg_wm_base_listener wm_l = { wm_ping };

static void xs_configure(void *d, struct xdg_surface *xs, uint32_t serial)
{
	(void)d;
	xdg_surface_ack_configure(xs, serial);
	if (!configured++)
		draw(NULL);
	else
		wl_surface_commit(surf);
}
static const struct xdg_surface_listener xs_l = { xs_configure };

static void top_configure(void *d, struct xdg_toplevel *t, int32_t w, int32_t h, struct wl_array *s)
{
	(void)d, (void)t, (void)w, (void)h, (void)s;
}
static void top_close(void *d, struct xdg_toplevel *t)
{
	(void)d, (void)t;
	exit(0);
}
static const struct xdg_toplevel_listener top_l = { .configure = top_configure,
						     .close = top_close };

static void global(void *d, struct wl_registry *r, uint32_t name, const char *iface, uint32_t ver)
{
	(void)d, (void)ver;
	if (!strcmp(iface, "wl_compositor"))
		comp = wl_registry_bind(r, name, &wl_compositor_interface, 4);
	else if (!strcmp(iface, "wl_shm"))
		shm = wl_registry_bind(r, name, &wl_shm_interface, 1);
	else if (!strcmp(iface, "xdg_wm_base"))
		wm = wl_registry_bind(r, name, &xdg_wm_base_interface, 1);
	else if (!strcmp(iface, "wl_seat") && !seat)
		seat = wl_registry_bind(r, name, &wl_seat_interface, 1);
	else if (!strcmp(iface, "wp_presentation"))
		pres = wl_registry_bind(r, name, &wp_presentation_interface, 1);
	else if (!strcmp(iface, "zwp_input_timestamps_manager_v1"))
		stamps = wl_registry_bind(r, name, &zwp_input_timestamps_manager_v1_interface, 1);
}
static void global_remove(void *d, struct wl_registry *r, uint32_t name)
{
	(void)d, (void)r, (void)name;
}
static const struct wl_registry_listener reg_l = { global, global_remove };

int main(void)
{
	struct wl_display *dpy = wl_display_connect(NULL);
	if (!dpy) {
		fprintf(stderr, "wl-photon: cannot connect to the compositor\n");
		return 1;
	}
	wl_registry_add_listener(wl_display_get_registry(dpy), &reg_l, NULL);
	wl_display_roundtrip(dpy);
	if (!comp || !shm || !wm || !seat) {
		fprintf(stderr, "wl-photon: the compositor lacks a global it needs\n");
		return 1;
	}
	if (pres)
		wp_presentation_add_listener(pres, &pres_l, NULL);
	printf("wp_presentation %s, zwp_input_timestamps_manager_v1 %s\n",
	       pres ? "bound" : "not offered", stamps ? "bound" : "not offered");
	fflush(stdout);
	xdg_wm_base_add_listener(wm, &wm_l, NULL);
	wl_seat_add_listener(seat, &seat_l, NULL);
	make_buffers();
	surf = wl_compositor_create_surface(comp);
	struct xdg_surface *xs = xdg_wm_base_get_xdg_surface(wm, surf);
	xdg_surface_add_listener(xs, &xs_l, NULL);
	struct xdg_toplevel *top = xdg_surface_get_toplevel(xs);
	xdg_toplevel_add_listener(top, &top_l, NULL);
	xdg_toplevel_set_title(top, "wl-photon");
	wl_surface_commit(surf);
	while (wl_display_dispatch(dpy) >= 0)
		;
	return 0;
}
