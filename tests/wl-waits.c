/*
 * wl-waits.c — an LD_PRELOAD interposer on libwayland-client's blocking
 * calls, the ground truth of when a real client waited for its
 * compositor and on what.
 *
 * Each call of wl_display_roundtrip(_queue) and wl_display_dispatch(_queue)
 * appends to the file named by $WLWAITS_LOG
 *
 *   roundtrip START END
 *   dispatch START END
 *
 * with CLOCK_REALTIME seconds around the call (the clock a capture's
 * timestamps use).  Only the outermost call counts: libwayland's
 * wl_display_roundtrip calls wl_display_roundtrip_queue, which calls
 * wl_display_dispatch_queue, and a call made from inside another is part
 * of it.  A call that returned at once (the events were there) is
 * written too; the reader tells waits by their length.
 * Built by the tests: cc -shared -fPIC -o wl-waits.so wl-waits.c -ldl
 *
 * Belongs to: tests (the Wayland physics test, tests/wayland-physics.sh).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct wl_display;
struct wl_event_queue;

static __thread int depth;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void note(const char *what, double a, double b)
{
	const char *path = getenv("WLWAITS_LOG");
	if (!path)
		return;
	FILE *f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "%s %.6f %.6f\n", what, a, b);
	fclose(f);
}

#define WRAP(NAME, KIND, PARAMS, ARGS)                                   \
	int NAME PARAMS                                                  \
	{                                                                \
		static int (*real) PARAMS;                               \
		if (!real)                                               \
			*(void **)&real = dlsym(RTLD_NEXT, #NAME);       \
		if (depth)                                               \
			return real ARGS;                                \
		depth++;                                                 \
		double a = now();                                        \
		int r = real ARGS;                                       \
		double b = now();                                        \
		depth--;                                                 \
		note(KIND, a, b);                                        \
		return r;                                                \
	}

WRAP(wl_display_roundtrip, "roundtrip", (struct wl_display *d), (d))
WRAP(wl_display_roundtrip_queue, "roundtrip", (struct wl_display *d, struct wl_event_queue *q), (d, q))
WRAP(wl_display_dispatch, "dispatch", (struct wl_display *d), (d))
WRAP(wl_display_dispatch_queue, "dispatch", (struct wl_display *d, struct wl_event_queue *q), (d, q))
