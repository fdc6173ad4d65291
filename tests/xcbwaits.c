/*
 * xcbwaits.c — an LD_PRELOAD interposer on libxcb's reply waits, the
 * ground truth of which request a real client waited on and when.
 *
 * Every call of xcb_wait_for_reply, xcb_wait_for_reply64 and
 * xcb_request_check appends to the file named by $XCBWAITS_LOG
 *
 *   wait SEQ START END
 *
 * with the request's full sequence number and CLOCK_REALTIME seconds
 * around the call (the clock a capture's timestamps use).  Xlib waits
 * through libxcb, so Xlib clients are covered too.  A call whose reply was
 * already read returns at once; the reader tells blocking calls by their
 * length.  Built by the tests: cc -shared -fPIC -o xcbwaits.so xcbwaits.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* libxcb's types, opaque here: no build dependency on its headers. */
typedef struct xcb_connection_t xcb_connection_t;
typedef struct xcb_generic_error_t xcb_generic_error_t;
typedef struct { unsigned int sequence; } xcb_void_cookie_t;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void record(uint64_t seq, double start, double end)
{
	static FILE *log;
	static int tried;
	if (!tried) {
		tried = 1;
		const char *path = getenv("XCBWAITS_LOG");
		if (path && (log = fopen(path, "a")))
			setvbuf(log, NULL, _IOLBF, 0);
	}
	if (log)
		fprintf(log, "wait %llu %.9f %.9f\n", (unsigned long long)seq, start, end);
}

/* The next definition of name, or exit: a wait that cannot be forwarded
   would hang the client. */
static void *next(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (!f) {
		fprintf(stderr, "xcbwaits: cannot find the real %s\n", name);
		exit(127);
	}
	return f;
}

void *xcb_wait_for_reply(xcb_connection_t *c, unsigned int request, xcb_generic_error_t **e)
{
	static void *(*real)(xcb_connection_t *, unsigned int, xcb_generic_error_t **);
	if (!real)
		*(void **)&real = next("xcb_wait_for_reply");
	double start = now();
	void *reply = real(c, request, e);
	record(request, start, now());
	return reply;
}

void *xcb_wait_for_reply64(xcb_connection_t *c, uint64_t request, xcb_generic_error_t **e)
{
	static void *(*real)(xcb_connection_t *, uint64_t, xcb_generic_error_t **);
	if (!real)
		*(void **)&real = next("xcb_wait_for_reply64");
	double start = now();
	void *reply = real(c, request, e);
	record(request, start, now());
	return reply;
}

xcb_generic_error_t *xcb_request_check(xcb_connection_t *c, xcb_void_cookie_t cookie)
{
	static xcb_generic_error_t *(*real)(xcb_connection_t *, xcb_void_cookie_t);
	if (!real)
		*(void **)&real = next("xcb_request_check");
	double start = now();
	xcb_generic_error_t *err = real(c, cookie);
	record(cookie.sequence, start, now());
	return err;
}
