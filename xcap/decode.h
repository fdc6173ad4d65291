/*
 * decode.h — link, IP and TCP header decoding of one captured frame.
 *
 * Every read is bounds-checked against the captured length; a frame that
 * ends early, or claims lengths it does not have, is reported as bad and
 * never read past its end.
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#ifndef XCAP_DECODE_H
#define XCAP_DECODE_H

#include <stdint.h>

#include "record.h"

struct tcp_seg {
	struct xaddr src, dst;		/* ports included */
	uint32_t seq, ack;
	uint16_t win;
	uint8_t flags;			/* XTCP_* */
	int8_t wscale;			/* window scale option, -1 when absent */
	uint16_t mss;			/* MSS option, 0 when absent */
	const uint8_t *payload;		/* captured payload bytes */
	uint32_t payload_cap;		/* how many of them were captured */
	uint32_t payload_len;		/* payload length on the wire */
};

enum decode_result {
	DECODE_TCP = 0,		/* *seg filled */
	DECODE_NOT_TCP,		/* a well-formed frame that is not TCP (or a later IP fragment) */
	DECODE_BAD,		/* truncated or malformed headers, or an unknown link type */
};

/* Whether the pipeline knows how to read frames of this DLT. */
int decode_link_supported(int dlt);
const char *decode_link_name(int dlt);

enum decode_result decode_frame(int dlt, const uint8_t *frame, uint32_t caplen,
				uint32_t wirelen, struct tcp_seg *seg);

#endif
