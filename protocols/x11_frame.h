/*
 * x11_frame.h — X11's framing rules, stated once.
 *
 * Two programs follow the framing of an X11 byte stream: the decoder
 * (protocols/x11.c) and the kernel-side cutter (xcap/cut.c), which is
 * assembled by hand as eBPF and so cannot call C.  These functions are the
 * rules both obey: where a message ends, given its first bytes, and how
 * many of its first bytes the decoder may read (so that the cutter must
 * capture them).  x11.c frames with them; tests/check_cut.c runs the
 * cutter in the kernel over generated conversations and checks each of
 * its decisions against them.
 *
 * The cutter may know less than these rules (it gives up, and keeps whole
 * packets, on a setup reply asking for more authentication), never
 * different.
 */
#ifndef PROTOCOLS_X11_FRAME_H
#define PROTOCOLS_X11_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"

enum {
	/* Longer messages are taken for a misreading of the stream. */
	PROTO_X11_REQUEST_MAX_UNITS = 1 << 22,	/* 4-byte units: 16 MiB */
	PROTO_X11_REPLY_MAX_UNITS = 1 << 24,	/* after a reply's first 32 bytes */
};

/* Where a message stands in its direction of the conversation. */
struct proto_x11_at {
	bool server;		/* sent by the server */
	bool setup;		/* the connection setup, not yet the messages after it */
	bool big_endian;	/* the byte order the setup request named */
};

/* How many first bytes of a message proto_x11_length needs: 12 of a setup
   request, 8 of a setup reply or a server message, 4 of a request, or 8
   when its 16-bit length is 0 (BIG-REQUESTS: a 32-bit length follows).
   hdr: the bytes of it there are so far. */
size_t proto_x11_header_size(struct proto_x11_at at, const struct cursor *hdr);

/* The length of the message whose first bytes hdr holds: > 0; 0 when
   more bytes are needed to tell; -1 when no message begins like this. */
int64_t proto_x11_length(struct proto_x11_at at, const struct cursor *hdr);

/* The most first bytes of a message, starting with byte `first`, that the
   decoder reads: a capture may leave out the rest of it. */
size_t proto_x11_keep(struct proto_x11_at at, uint8_t first);

#endif
