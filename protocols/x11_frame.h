/*
 * x11_frame.h — X11's framing rules, stated once.
 *
 * Two programs follow the framing of an X11 byte stream: the decoder
 * (protocols/x11.c) and the kernel-side cutter (xcap/cmd/xcap/cut.c), which is
 * assembled by hand as eBPF and so cannot call C.  These functions are the
 * rules both obey: where a message ends, given its first bytes, and how
 * many of its first bytes the decoder may read (so that the cutter must
 * capture them).  x11.c frames with them; tests/check_cut.c runs the
 * cutter in the kernel over generated conversations and checks each of
 * its decisions against them.
 *
 * Inline, so that the decoder's framing costs no calls; from the X Window
 * System Protocol ("Connection Setup", "Request Format", "Reply/Event/
 * Error Format"), BIG-REQUESTS and the Generic Event Extension.
 *
 * The cutter may know less than these rules (it gives up, and keeps whole
 * packets, on a setup reply asking for more authentication), never
 * different.
 *
 * Belongs to: libprotocols, the protocol decoders (protocols/).
 */
#ifndef PROTOCOLS_X11_FRAME_H
#define PROTOCOLS_X11_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "protocol.h"
#include "x11_names.h"

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

/* What a server message's first byte says, besides its event code. */
enum { PROTO_X11_CODE_REPLY = 1, PROTO_X11_SEND_EVENT = 0x80 };

static inline uint64_t proto_x11_pad4_(uint64_t n) { return (n + 3) & ~(uint64_t)3; }

/* How many first bytes of a message proto_x11_length needs: 12 of a setup
   request, 8 of a setup reply or a server message, 4 of a request, or 8
   when its 16-bit length is 0 (BIG-REQUESTS: a 32-bit length follows).
   hdr: the bytes of it there are so far. */
static inline __attribute__((always_inline)) size_t proto_x11_header_size(struct proto_x11_at at, const struct cursor *hdr)
{
	if (at.setup)
		return at.server ? 8 : 12;
	if (at.server)
		return 8;
	bool ok = true;
	uint16_t units = cursor_peek_u16(hdr, 2, at.big_endian, &ok);
	return ok && units == 0 ? 8 : 4;
}

/* The length of the message whose first bytes hdr holds: > 0; 0 when
   more bytes are needed to tell; -1 when no message begins like this. */
static inline __attribute__((always_inline)) int64_t proto_x11_length(struct proto_x11_at at, const struct cursor *hdr)
{
	bool big = at.big_endian;
	if (hdr->len < proto_x11_header_size(at, hdr))
		return 0;
	if (at.setup && !at.server) {
		/* 12 bytes, then the authorization protocol's name and data,
		   each padded to 4 */
		return 12 + (int64_t)proto_x11_pad4_(cursor_peek_u16(hdr, 6, big, NULL)) +
		       (int64_t)proto_x11_pad4_(cursor_peek_u16(hdr, 8, big, NULL));
	}
	if (at.setup) {
		/* Failed (0), Success (1) or Authenticate (2): 8 bytes, then a
		   length in 4-byte units */
		if (cursor_peek_u8(hdr, 0, NULL) > 2)
			return -1;
		return 8 + 4 * (int64_t)cursor_peek_u16(hdr, 6, big, NULL);
	}
	if (!at.server) {
		uint32_t units = cursor_peek_u16(hdr, 2, big, NULL);
		if (units == 0) {	/* BIG-REQUESTS: the length is the next 32 bits */
			units = cursor_peek_u32(hdr, 4, big, NULL);
			if (units < 2)
				return -1;
		}
		if (units > PROTO_X11_REQUEST_MAX_UNITS)
			return -1;
		return 4 * (int64_t)units;
	}
	/* Errors and events are 32 bytes; a reply and a GenericEvent say how
	   many 4-byte units follow.  The send-event bit is no part of the
	   code. */
	uint8_t code = cursor_peek_u8(hdr, 0, NULL) & (uint8_t)~PROTO_X11_SEND_EVENT;
	if (code == PROTO_X11_CODE_REPLY || code == X11_EVENT_GeGeneric) {
		uint32_t units = cursor_peek_u32(hdr, 4, big, NULL);
		if (units > PROTO_X11_REPLY_MAX_UNITS)
			return -1;
		return 32 + 4 * (int64_t)units;
	}
	return 32;
}

/* The most first bytes of a message, starting with byte `first`, that the
   decoder reads: a capture may leave out the rest of it. */
static inline size_t proto_x11_keep(struct proto_x11_at at, uint8_t first)
{
	/* Core requests with nothing to show but their name: the 32-byte
	   header; everything else: as much as the decoder ever keeps (it
	   keeps less of a reply whose request has no details to show, but
	   which request that is, only the decoder's state tells). */
	if (!at.setup && !at.server && first < 128)
		return proto_x11_core_request_keep(first);
	return PROTO_X11_KEEP;
}

#endif
