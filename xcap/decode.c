/*
 * decode.c — from a captured frame to a TCP segment.
 *
 * One rule throughout: every captured byte is read through a cursor
 * (protocols/cursor.h), whose reads cannot pass the captured length.  A
 * fixed header is taken whole as a sub-cursor of its size (cursor_sub),
 * checked once, then read straight through: the compiler knows that
 * cursor's length, so the reads' own checks cost nothing.
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include <pcap/dlt.h>

#include "cursor.h"
#include "decode.h"

/* Link types as files store them that some libpcaps map to other DLTs. */
#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif
#ifndef DLT_IPV4
#define DLT_IPV4 228
#endif
#ifndef DLT_IPV6
#define DLT_IPV6 229
#endif
#define LINKTYPE_RAW 101	/* what pcap files call raw IP */

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86dd
#define ETHERTYPE_VLAN 0x8100
#define ETHERTYPE_QINQ 0x88a8
#define ETHERTYPE_QINQ_OLD 0x9100

/* How many captured bytes the next layer has: what is left of c, cut to
   at most wire bytes (link padding and bytes past an IP total length
   belong to no layer above). */
static size_t rest_len(const struct cursor *c, uint32_t wire)
{
	size_t n = cursor_left(c);
	return n < wire ? n : wire;
}

/* The TCP segment's captured bytes: caplen of them at p (the rest of the IP
   packet's cursor, cursor_here); wire: its length on the wire.  Given as
   a pointer and a length, not a struct cursor by value: that one went
   through the stack, where its 16-byte reload of two smaller stores
   stalled on store forwarding, the reader thread's costliest spot. */
static enum decode_result decode_tcp(const uint8_t *p, size_t caplen, uint32_t wire,
				     struct tcp_seg *seg)
{
	struct cursor tcp = cursor_init(p, caplen);
	struct cursor h = cursor_sub(&tcp, 20);	/* the header without options */
	if (h.overrun)
		return DECODE_BAD;
	seg->src.port = cursor_be16(&h);
	seg->dst.port = cursor_be16(&h);
	seg->seq = cursor_be32(&h);
	seg->ack = cursor_be32(&h);
	uint32_t hlen = (uint32_t)(cursor_u8(&h) >> 4) * 4;
	seg->flags = cursor_u8(&h);
	seg->win = cursor_be16(&h);
	/* then the checksum and the urgent pointer */
	if (hlen < 20 || hlen > wire)
		return DECODE_BAD;
	seg->wscale = -1;
	seg->mss = 0;

	/* Options, as far as they were captured: window scale and MSS.  Most
	   segments carry only a time stamp (NOP, NOP, kind 8 of 10 bytes),
	   which tells neither: passed over without the walk. */
	struct cursor opts = cursor_sub(&tcp, hlen - 20 < cursor_left(&tcp) ?
					      hlen - 20 : cursor_left(&tcp));
	bool whole = true;
	if (cursor_left(&opts) == 12 && cursor_peek_be32(&opts, 0, &whole) == 0x0101080a && whole)
		cursor_skip(&opts, 12);
	while (cursor_left(&opts) > 0) {
		uint8_t kind = cursor_u8(&opts);
		if (kind == 0)
			break;
		if (kind == 1)
			continue;
		if (cursor_left(&opts) == 0)
			break;
		uint8_t olen = cursor_u8(&opts);
		if (olen < 2 || !cursor_has(&opts, olen - 2u))
			break;
		struct cursor body = cursor_sub(&opts, olen - 2u);
		if (kind == 3 && olen == 3) {
			uint8_t shift = cursor_u8(&body);
			seg->wscale = (int8_t)(shift > 14 ? 14 : shift);
		} else if (kind == 2 && olen == 4) {
			seg->mss = cursor_be16(&body);
		}
	}

	seg->payload_len = wire - hlen;
	struct cursor payload = tcp;
	if (cursor_seek(&payload, hlen) && cursor_left(&payload) > 0) {
		uint32_t cap = (uint32_t)cursor_left(&payload);
		seg->payload = cursor_span(&payload, cap);
		seg->payload_cap = cap < seg->payload_len ? cap : seg->payload_len;	/* link padding */
	} else {
		seg->payload = NULL;
		seg->payload_cap = 0;
	}
	return DECODE_TCP;
}

/* ip: the captured bytes from the IP header on; wire_avail: how many bytes
   the frame had on the wire from there. */
static enum decode_result decode_ipv4(struct cursor ip, uint32_t wire_avail, struct tcp_seg *seg)
{
	struct cursor h = cursor_sub(&ip, 20);	/* the header without options */
	if (h.overrun)
		return DECODE_BAD;
	uint8_t vhl = cursor_u8(&h);
	cursor_skip(&h, 1);	/* type of service */
	uint32_t total = cursor_be16(&h);
	cursor_skip(&h, 2);	/* identification */
	uint16_t frag = cursor_be16(&h);
	cursor_skip(&h, 1);	/* time to live */
	uint8_t proto = cursor_u8(&h);
	cursor_skip(&h, 2);	/* header checksum */
	memset(seg->src.addr, 0, sizeof seg->src.addr);
	memset(seg->dst.addr, 0, sizeof seg->dst.addr);
	cursor_bytes(&h, seg->src.addr, 4);
	cursor_bytes(&h, seg->dst.addr, 4);
	if (vhl >> 4 != 4)
		return DECODE_BAD;
	uint32_t hlen = (uint32_t)(vhl & 0x0f) * 4;
	/* Segmentation offload hands the capture super-packets whose total
	   length field is 0; their length is what the frame says. */
	if (total == 0)
		total = wire_avail;
	if (hlen < 20 || total < hlen || !cursor_skip(&ip, hlen - 20))	/* options */
		return DECODE_BAD;
	if (proto != 6)
		return DECODE_NOT_TCP;
	/* Only a first fragment holds the TCP header; reassembling IP
	   fragments is out of scope (TCP avoids them with path MTU discovery). */
	if (frag & 0x1fff)
		return DECODE_NOT_TCP;
	seg->src.family = seg->dst.family = 4;
	return decode_tcp(cursor_here(&ip), rest_len(&ip, total - hlen), total - hlen, seg);
}

static enum decode_result decode_ipv6(struct cursor ip, uint32_t wire_avail, struct tcp_seg *seg)
{
	struct cursor h = cursor_sub(&ip, 40);	/* the fixed header */
	if (h.overrun)
		return DECODE_BAD;
	uint8_t version = cursor_u8(&h) >> 4;
	cursor_skip(&h, 3);	/* traffic class, flow label */
	uint32_t plen = cursor_be16(&h);
	uint8_t next = cursor_u8(&h);
	cursor_skip(&h, 1);	/* hop limit */
	cursor_bytes(&h, seg->src.addr, 16);
	cursor_bytes(&h, seg->dst.addr, 16);
	if (version != 6)
		return DECODE_BAD;
	if (plen == 0)		/* jumbogram or offload super-packet */
		plen = wire_avail >= 40 ? wire_avail - 40 : 0;
	seg->src.family = seg->dst.family = 6;

	/* Walk the extension headers that may stand before TCP; off counts
	   payload bytes (after the fixed header) as the wire has them, which
	   may be more than were captured. */
	uint32_t off = 0;
	for (int hops = 0; hops < 8; hops++) {
		if (next == 6) {
			if (off > plen)
				return DECODE_BAD;
			struct cursor tcp = ip;
			if (!cursor_skip(&tcp, off))	/* headers beyond the capture */
				cursor_seek(&tcp, tcp.len);
			return decode_tcp(cursor_here(&tcp), rest_len(&tcp, plen - off), plen - off, seg);
		}
		struct cursor x = ip;	/* the extension header at off */
		cursor_skip(&x, off);
		if (next == 0 || next == 43 || next == 60) {	/* hop-by-hop, routing, destination */
			uint8_t nh = cursor_u8(&x);
			uint8_t units = cursor_u8(&x);	/* of 8 bytes, after the first 8 */
			if (x.overrun)
				return DECODE_BAD;
			off += 8 + (uint32_t)units * 8;
			next = nh;
			continue;
		}
		if (next == 44) {	/* fragment: only the first holds TCP */
			uint8_t nh = cursor_u8(&x);
			cursor_skip(&x, 1);	/* reserved */
			uint16_t frag = cursor_be16(&x);
			cursor_skip(&x, 4);	/* identification */
			if (x.overrun)
				return DECODE_BAD;
			if (frag & 0xfff8)
				return DECODE_NOT_TCP;
			next = nh;
			off += 8;
			continue;
		}
		return DECODE_NOT_TCP;
	}
	return DECODE_BAD;
}

static enum decode_result decode_ethertype(uint16_t type, struct cursor l3, uint32_t wire_avail,
					   struct tcp_seg *seg)
{
	if (type == ETHERTYPE_IPV4)
		return decode_ipv4(l3, wire_avail, seg);
	if (type == ETHERTYPE_IPV6)
		return decode_ipv6(l3, wire_avail, seg);
	return DECODE_NOT_TCP;
}

/* Raw IP: the version nibble says which. */
static enum decode_result decode_raw_ip(struct cursor l3, uint32_t wire_avail, struct tcp_seg *seg)
{
	bool ok = true;
	uint8_t version = cursor_peek_u8(&l3, l3.pos, &ok) >> 4;
	if (!ok)
		return DECODE_BAD;
	switch (version) {
	case 4: return decode_ipv4(l3, wire_avail, seg);
	case 6: return decode_ipv6(l3, wire_avail, seg);
	default: return DECODE_NOT_TCP;
	}
}

/* DLT_NULL and DLT_LOOP carry an address family; BSDs disagree on AF_INET6. */
static enum decode_result decode_af(uint32_t af, struct cursor l3, uint32_t wire_avail,
				    struct tcp_seg *seg)
{
	if (af == 2)
		return decode_ipv4(l3, wire_avail, seg);
	if (af == 10 || af == 24 || af == 28 || af == 30)
		return decode_ipv6(l3, wire_avail, seg);
	return DECODE_NOT_TCP;
}

int decode_link_supported(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB: case DLT_LINUX_SLL: case DLT_LINUX_SLL2:
	case DLT_RAW: case LINKTYPE_RAW: case DLT_IPV4: case DLT_IPV6:
	case DLT_NULL: case DLT_LOOP:
		return 1;
	default:
		return 0;
	}
}

const char *decode_link_name(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB: return "EN10MB";
	case DLT_LINUX_SLL: return "LINUX_SLL";
	case DLT_LINUX_SLL2: return "LINUX_SLL2";
	case DLT_RAW: case LINKTYPE_RAW: return "RAW";
	case DLT_IPV4: return "IPV4";
	case DLT_IPV6: return "IPV6";
	case DLT_NULL: return "NULL";
	case DLT_LOOP: return "LOOP";
	default: return "unknown";
	}
}

enum decode_result decode_frame(int dlt, const uint8_t *frame, uint32_t caplen,
				uint32_t wirelen, struct tcp_seg *seg)
{
	struct cursor f = cursor_init(frame, caplen);

	if (wirelen < caplen)
		wirelen = caplen;
	/* wirelen - f.pos below cannot wrap: f.pos <= caplen <= wirelen */
	switch (dlt) {
	case DLT_EN10MB: {
		struct cursor h = cursor_sub(&f, 14);
		if (h.overrun)
			return DECODE_BAD;
		cursor_skip(&h, 12);	/* destination, source */
		uint16_t type = cursor_be16(&h);
		/* 802.1Q and 802.1ad tags, possibly stacked. */
		for (int tags = 0; tags < 4 &&
		     (type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ || type == ETHERTYPE_QINQ_OLD);
		     tags++) {
			struct cursor tag = cursor_sub(&f, 4);
			if (tag.overrun)
				return DECODE_BAD;
			cursor_skip(&tag, 2);	/* tag control */
			type = cursor_be16(&tag);
		}
		return decode_ethertype(type, f, wirelen - (uint32_t)f.pos, seg);
	}
	case DLT_LINUX_SLL: {
		struct cursor h = cursor_sub(&f, 16);
		if (h.overrun)
			return DECODE_BAD;
		cursor_skip(&h, 14);	/* packet type, address type and length, address */
		uint16_t type = cursor_be16(&h);
		return decode_ethertype(type, f, wirelen - (uint32_t)f.pos, seg);
	}
	case DLT_LINUX_SLL2: {
		struct cursor h = cursor_sub(&f, 20);	/* then reserved, interface, address type... */
		if (h.overrun)
			return DECODE_BAD;
		uint16_t type = cursor_be16(&h);
		return decode_ethertype(type, f, wirelen - (uint32_t)f.pos, seg);
	}
	case DLT_RAW: case LINKTYPE_RAW: case DLT_IPV4: case DLT_IPV6:
		return decode_raw_ip(f, wirelen, seg);
	case DLT_NULL: {
		/* Host byte order of the capturing machine: accept either. */
		bool ok = true;
		uint32_t af = cursor_peek_be32(&f, 0, &ok);
		if (af > 0xffff)
			af = cursor_peek_le16(&f, 0, &ok);
		if (!ok || !cursor_skip(&f, 4))
			return DECODE_BAD;
		return decode_af(af, f, wirelen - 4, seg);
	}
	case DLT_LOOP: {
		uint32_t af = cursor_be32(&f);
		if (f.overrun)
			return DECODE_BAD;
		return decode_af(af, f, wirelen - 4, seg);
	}
	default:
		return DECODE_BAD;
	}
}
