/*
 * x-chatter.c — an X client that talks at a steady, chosen rate, so that
 * a capture's trace grows at a known pace (rotation by size, following).
 *
 *   x-chatter DISPLAY REQUESTS-PER-SECOND SECONDS
 *
 * Every 10 ms it sends a batch of NoOperation requests and ends the batch
 * with a GetInputFocus round trip, until SECONDS have passed.  It prints
 * how many requests it sent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <xcb/xcb.h>

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: x-chatter DISPLAY REQUESTS-PER-SECOND SECONDS\n");
		return 2;
	}
	double rate = atof(argv[2]), seconds = atof(argv[3]);
	xcb_connection_t *c = xcb_connect(argv[1], NULL);
	if (xcb_connection_has_error(c)) {
		fprintf(stderr, "x-chatter: cannot open the display: '%s'\n", argv[1]);
		return 1;
	}
	double start = now_s(), sent = 0;
	unsigned long long total = 0;
	while (now_s() - start < seconds) {
		/* catch up with the rate, whatever the sleep took */
		double due = (now_s() - start) * rate;
		for (; sent < due; sent++, total++)
			xcb_no_operation(c);
		free(xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL));
		total++;
		if (xcb_connection_has_error(c))
			return 1;
		struct timespec d = { 0, 10 * 1000000L };
		nanosleep(&d, NULL);
	}
	printf("sent %llu requests in %.1f s\n", total, now_s() - start);
	xcb_disconnect(c);
	return 0;
}
