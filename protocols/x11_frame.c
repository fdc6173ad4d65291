/*
 * x11_frame.c — X11's framing rules (see x11_frame.h).  From the X Window
 * System Protocol, "Connection Setup" and "Request Format"; the
 * BIG-REQUESTS extension; "Reply/Event/Error Format" and the Generic
 * Event Extension for the server's messages.
 */
#include "config.h"

#include "protocol.h"
#include "x11_frame.h"
#include "x11_names.h"

/* What a server message's first byte says, besides its event code. */
enum { CODE_REPLY = 1, SEND_EVENT = 0x80 };

static uint64_t pad4(uint64_t n) { return (n + 3) & ~(uint64_t)3; }

size_t proto_x11_header_size(struct proto_x11_at at, const struct cursor *hdr)
{
	if (at.setup)
		return at.server ? 8 : 12;
	if (at.server)
		return 8;
	bool ok = true;
	uint16_t units = cursor_peek_u16(hdr, 2, at.big_endian, &ok);
	return ok && units == 0 ? 8 : 4;
}

int64_t proto_x11_length(struct proto_x11_at at, const struct cursor *hdr)
{
	bool big = at.big_endian;
	if (hdr->len < proto_x11_header_size(at, hdr))
		return 0;
	if (at.setup && !at.server) {
		/* 12 bytes, then the authorization protocol's name and data,
		   each padded to 4 */
		return 12 + (int64_t)pad4(cursor_peek_u16(hdr, 6, big, NULL)) +
		       (int64_t)pad4(cursor_peek_u16(hdr, 8, big, NULL));
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
	uint8_t code = cursor_peek_u8(hdr, 0, NULL) & (uint8_t)~SEND_EVENT;
	if (code == CODE_REPLY || code == X11_EVENT_GeGeneric) {
		uint32_t units = cursor_peek_u32(hdr, 4, big, NULL);
		if (units > PROTO_X11_REPLY_MAX_UNITS)
			return -1;
		return 32 + 4 * (int64_t)units;
	}
	return 32;
}

size_t proto_x11_keep(struct proto_x11_at at, uint8_t first)
{
	/* Core requests with nothing to show but their name: the 32-byte
	   header; everything else: as much as the decoder ever keeps (it
	   keeps less of a reply whose request has no details to show, but
	   which request that is, only the decoder's state tells). */
	if (!at.setup && !at.server && first < 128)
		return proto_x11_core_request_keep(first);
	return PROTO_X11_KEEP;
}
