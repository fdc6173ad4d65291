/*
 * wl-trips.c — a Wayland client whose behaviour is known, for the
 * physics tests: it connects, makes N wl_display_roundtrip calls one
 * after the other and exits.  Each round trip is one wl_display.sync
 * answered by its callback's done: nothing else travels, so a link of
 * one-way delay L makes it wait N * 2L in all.
 *
 * Usage: wl-trips N (WAYLAND_DISPLAY and XDG_RUNTIME_DIR as usual).
 * Prints the time it spent in the round trips, in seconds.
 * Built by the tests: cc -o wl-trips wl-trips.c $(pkg-config --cflags --libs wayland-client)
 *
 * Belongs to: tests (the Wayland physics test, tests/wayland-physics.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <wayland-client.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: wl-trips N\n");
		return 2;
	}
	int n = atoi(argv[1]);
	struct wl_display *d = wl_display_connect(NULL);
	if (!d) {
		fprintf(stderr, "wl-trips: cannot connect to the compositor\n");
		return 1;
	}
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++)
		if (wl_display_roundtrip(d) < 0) {
			fprintf(stderr, "wl-trips: round trip %d failed\n", i + 1);
			return 1;
		}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.6f\n", (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	wl_display_disconnect(d);
	return 0;
}
