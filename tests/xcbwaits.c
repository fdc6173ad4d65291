/*
 * xcbwaits.c — an LD_PRELOAD interposer on libxcb's reply waits, the
 * ground truth of which request a real client waited on and when.
 *
 * Every call of xcb_wait_for_reply, xcb_wait_for_reply64 and
 * xcb_request_check appends to the file named by $XCBWAITS_LOG
 *
 *   wait SEQ START END LIBRARY [TARGET]
 *
 * with the request's full sequence number, CLOCK_REALTIME seconds around
 * the call (the clock a capture's timestamps use), and the library whose
 * call waited: "xcb" for the client's own libxcb call, "xlib" for one
 * inside Xlib's _XReply (Xlib waits through libxcb), "xsync" for one
 * inside XSync; for those two TARGET is the request Xlib's call waits for
 * (the last it sent).  Xlib's _XReply blocks in libxcb on the head of its
 * pending requests first, one it may have read the reply to already but
 * libxcb does not yet know complete: that wait ends at the next answer of
 * any kind, and is a wait for TARGET.  A call whose reply was already
 * read returns at once; the reader tells blocking calls by their length.
 * Each call also writes "begin SEQ START" when it starts, so that a call
 * that never returned (the client stopped in it) is known.  A writev
 * (libxcb's way of sending) that blocks for a millisecond or more, its
 * output queued behind a full socket, is written as "write START END":
 * time the client spends on its own queued output before a wait.
 * Built by the tests: cc -shared -fPIC -o xcbwaits.so xcbwaits.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <time.h>
#if !__has_include(<X11/Xlibint.h>)
typedef union _xReply xReply;
#endif

/* libxcb's types, opaque here: no build dependency on its headers. */
typedef struct xcb_connection_t xcb_connection_t;
typedef struct xcb_generic_error_t xcb_generic_error_t;
typedef struct { unsigned int sequence; } xcb_void_cookie_t;
#if __has_include(<X11/Xlibint.h>)
#include <X11/Xlibint.h>		/* dpy->request, the last request Xlib sent */
#define XLIB_TARGET(dpy) ((dpy)->request)
#else
typedef struct _XDisplay Display;
typedef int Bool;
typedef int Status;
#define XLIB_TARGET(dpy) 0UL		/* unknown without libX11's headers */
#endif

/* Inside Xlib's reply wait (1) or XSync (2): libX11 calls _XReply and
   XSync through its PLT, so the interposer sees its own calls too. */
static __thread int in_xlib;
static __thread unsigned long xlib_target;
static const char *const library[] = { "xcb", "xlib", "xsync" };

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static FILE *log_file(void)
{
	static FILE *log;
	static int tried;
	if (!tried) {
		tried = 1;
		const char *path = getenv("XCBWAITS_LOG");
		if (path && (log = fopen(path, "a")))
			setvbuf(log, NULL, _IOLBF, 0);
	}
	return log;
}

/* The call on seq starts: its time. */
static double begin(uint64_t seq)
{
	double start = now();
	FILE *log = log_file();
	if (log)
		fprintf(log, "begin %llu %.9f\n", (unsigned long long)seq, start);
	return start;
}

static void record(uint64_t seq, double start, double end)
{
	FILE *log = log_file();
	if (log && in_xlib && xlib_target)
		fprintf(log, "wait %llu %.9f %.9f %s %lu\n", (unsigned long long)seq, start, end,
			library[in_xlib], xlib_target);
	else if (log)
		fprintf(log, "wait %llu %.9f %.9f %s\n", (unsigned long long)seq, start, end,
			library[in_xlib]);
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
	double start = begin(request);
	void *reply = real(c, request, e);
	record(request, start, now());
	return reply;
}

void *xcb_wait_for_reply64(xcb_connection_t *c, uint64_t request, xcb_generic_error_t **e)
{
	static void *(*real)(xcb_connection_t *, uint64_t, xcb_generic_error_t **);
	if (!real)
		*(void **)&real = next("xcb_wait_for_reply64");
	double start = begin(request);
	void *reply = real(c, request, e);
	record(request, start, now());
	return reply;
}

xcb_generic_error_t *xcb_request_check(xcb_connection_t *c, xcb_void_cookie_t cookie)
{
	static xcb_generic_error_t *(*real)(xcb_connection_t *, xcb_void_cookie_t);
	if (!real)
		*(void **)&real = next("xcb_request_check");
	double start = begin(cookie.sequence);
	xcb_generic_error_t *err = real(c, cookie);
	record(cookie.sequence, start, now());
	return err;
}

Status _XReply(Display *dpy, xReply *rep, int extra, Bool discard)
{
	static Status (*real)(Display *, xReply *, int, Bool);
	if (!real)
		*(void **)&real = next("_XReply");
	int was = in_xlib;
	unsigned long was_target = xlib_target;
	if (!was)
		in_xlib = 1;
	/* The caller holds the display (XNextRequest would lock it again). */
	xlib_target = XLIB_TARGET(dpy);
	Status st = real(dpy, rep, extra, discard);
	in_xlib = was;
	xlib_target = was_target;
	return st;
}

int XSync(Display *dpy, Bool discard)
{
	static int (*real)(Display *, Bool);
	if (!real)
		*(void **)&real = next("XSync");
	int was = in_xlib;
	in_xlib = 2;
	int r = real(dpy, discard);
	in_xlib = was;
	return r;
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
	static ssize_t (*real)(int, const struct iovec *, int);
	if (!real)
		*(void **)&real = next("writev");
	double start = now();
	ssize_t r = real(fd, iov, n);
	double end = now();
	FILE *log = end - start >= 0.001 ? log_file() : NULL;
	if (log)
		fprintf(log, "write %.9f %.9f\n", start, end);
	return r;
}
