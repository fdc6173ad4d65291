/*
 * session.h — a recorded interactive session: the inputs a person gave
 * one client (X11) or one viewer gave its server (RFB), with their times,
 * as xcap-replay records them from a capture and plays them back.  The
 * file is text, one input a line, documented in xcap-session(5).
 *
 * Library code: nothing here prints or exits; errors come back in err.
 *
 * Belongs to: the xcap-replay command's room (xcap/cmd/xcap-replay/).
 */
#ifndef XCAP_SESSION_H
#define XCAP_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "source.h"

#define XSESS_VERSION 1
#define XSESS_UNKNOWN INT32_MIN	/* a coordinate the capture did not give */
#define XSESS_MAX_ENCODINGS 64	/* RFB encodings a session keeps */

enum xsess_proto { XSESS_NONE = 0, XSESS_X11 = 1, XSESS_RFB = 2 };

enum xsess_kind {
	XSESS_KEY_PRESS = 1,	/* X11 keycode / RFB keysym going down */
	XSESS_KEY_RELEASE,
	XSESS_BUTTON_PRESS,	/* X11 only: button number */
	XSESS_BUTTON_RELEASE,
	XSESS_MOTION,		/* X11 only: the pointer moved */
	XSESS_POINTER,		/* RFB only: position and the whole button mask */
};

struct xsess_input {
	uint64_t t;		/* ns since the session's first input */
	uint8_t kind;		/* enum xsess_kind */
	uint32_t code;		/* keycode, button or keysym; 0 for motion/pointer */
	int32_t root_x, root_y;	/* screen (RFB: framebuffer) coordinates */
	uint32_t state;		/* X11 modifier and button state; RFB button mask */
	uint32_t window;	/* X11 event window, 0 when unknown or RFB */
	int32_t event_x, event_y; /* relative to that window */
	int32_t response;	/* messages of the recorded response that change
				   the screen, -1 when unknown */
};

struct xsession {
	enum xsess_proto proto;
	char source[256];	/* the capture it was recorded from */
	char client[128];	/* the client's name, "" when unknown */
	uint32_t conn;		/* the connection it was recorded from, 0 unknown */
	uint32_t screen_w, screen_h;	/* 0 when unknown */
	/* RFB: the encodings the recorded viewer asked for (its last
	   SetEncodings before the first input), in its order of preference;
	   none when the capture did not show it. */
	int32_t encodings[XSESS_MAX_ENCODINGS];
	size_t nencodings;
	struct xsess_input *inputs;
	size_t n, cap;
};

const char *xsess_kind_name(enum xsess_kind k);
const char *xsess_proto_name(enum xsess_proto p);

void xsession_init(struct xsession *s);
void xsession_free(struct xsession *s);
/* Append one input; -1 when out of memory. */
int xsession_add(struct xsession *s, const struct xsess_input *in);

/* Read a session file from f (name for messages).  Returns 0, or -1 with
   "line N: what is wrong" in err; a partly read session is freed. */
int xsession_read(FILE *f, const char *name, struct xsession *s, char *err, size_t errlen);
/* The same from bytes in memory (the fuzz entry point's way in). */
int xsession_parse(const uint8_t *buf, size_t len, struct xsession *s, char *err, size_t errlen);
/* Write it; -1 on a write error (errno set). */
int xsession_write(FILE *f, const struct xsession *s);

struct xsess_record_opts {
	uint32_t conn;		/* the connection to take inputs from; 0: the one with most */
	int motion;		/* keep pointer motion (X11 MotionNotify) */
};

/* The inputs of one connection of a capture (xcap-session(5) says which
   messages are inputs).  Returns 0, or -1 with the reason in err (no
   inputs, no such connection, reading failed, out of memory). */
int xsession_record(struct xsource *src, const char *source_name,
		    const struct xsess_record_opts *opt, struct xsession *s, char *err,
		    size_t errlen);

#endif
