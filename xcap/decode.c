/*
 * decode.c — from a captured frame to a TCP segment.
 *
 * One rule throughout: a field is read only after checking that the
 * captured length covers it (get_u8/get_be16/get_be32 take the length and
 * the offset, never a pointer past the end).
 */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include <pcap/dlt.h>

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

/* A byte span: the bytes of one layer and how many of them were captured. */
struct span {
	const uint8_t *p;
	uint32_t len;
};

static bool has(struct span s, uint32_t off, uint32_t n)
{
	return off <= s.len && n <= s.len - off;
}

static uint8_t get_u8(struct span s, uint32_t off) { return s.p[off]; }
static uint16_t get_be16(struct span s, uint32_t off)
{
	return (uint16_t)(s.p[off] << 8 | s.p[off + 1]);
}
static uint32_t get_be32(struct span s, uint32_t off)
{
	return (uint32_t)s.p[off] << 24 | (uint32_t)s.p[off + 1] << 16 |
	       (uint32_t)s.p[off + 2] << 8 | s.p[off + 3];
}

static struct span after(struct span s, uint32_t off)
{
	struct span r = { s.p + off, s.len - off };
	return r;
}

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86dd
#define ETHERTYPE_VLAN 0x8100
#define ETHERTYPE_QINQ 0x88a8
#define ETHERTYPE_QINQ_OLD 0x9100

static enum decode_result decode_tcp(struct span ip, uint32_t ip_payload_wire,
				     struct tcp_seg *seg)
{
	if (!has(ip, 0, 20))
		return DECODE_BAD;
	uint32_t hlen = (uint32_t)(get_u8(ip, 12) >> 4) * 4;
	if (hlen < 20 || hlen > ip_payload_wire)
		return DECODE_BAD;
	seg->src.port = get_be16(ip, 0);
	seg->dst.port = get_be16(ip, 2);
	seg->seq = get_be32(ip, 4);
	seg->ack = get_be32(ip, 8);
	seg->flags = get_u8(ip, 13);
	seg->win = get_be16(ip, 14);
	seg->wscale = -1;
	seg->mss = 0;

	/* Options, as far as they were captured: window scale and MSS. */
	uint32_t opt_end = hlen < ip.len ? hlen : ip.len;
	uint32_t off = 20;
	while (off < opt_end) {
		uint8_t kind = get_u8(ip, off);
		if (kind == 0)
			break;
		if (kind == 1) {
			off++;
			continue;
		}
		if (off + 1 >= opt_end)
			break;
		uint8_t olen = get_u8(ip, off + 1);
		if (olen < 2 || olen > opt_end - off)
			break;
		if (kind == 3 && olen == 3)
			seg->wscale = (int8_t)(get_u8(ip, off + 2) > 14 ? 14 : get_u8(ip, off + 2));
		else if (kind == 2 && olen == 4)
			seg->mss = get_be16(ip, off + 2);
		off += olen;
	}

	seg->payload_len = ip_payload_wire - hlen;
	if (ip.len > hlen) {
		seg->payload = ip.p + hlen;
		seg->payload_cap = ip.len - hlen;
		if (seg->payload_cap > seg->payload_len)	/* link padding */
			seg->payload_cap = seg->payload_len;
	} else {
		seg->payload = NULL;
		seg->payload_cap = 0;
	}
	return DECODE_TCP;
}

static enum decode_result decode_ipv4(struct span ip, uint32_t wire_avail, struct tcp_seg *seg)
{
	if (!has(ip, 0, 20))
		return DECODE_BAD;
	uint8_t vhl = get_u8(ip, 0);
	if (vhl >> 4 != 4)
		return DECODE_BAD;
	uint32_t hlen = (uint32_t)(vhl & 0x0f) * 4;
	uint32_t total = get_be16(ip, 2);
	/* Segmentation offload hands the capture super-packets whose total
	   length field is 0; their length is what the frame says. */
	if (total == 0)
		total = wire_avail;
	if (hlen < 20 || total < hlen || !has(ip, 0, hlen))
		return DECODE_BAD;
	uint16_t frag = get_be16(ip, 6);
	if (get_u8(ip, 9) != 6)
		return DECODE_NOT_TCP;
	/* Only a first fragment holds the TCP header; reassembling IP
	   fragments is out of scope (TCP avoids them with path MTU discovery). */
	if (frag & 0x1fff)
		return DECODE_NOT_TCP;
	seg->src.family = seg->dst.family = 4;
	memset(seg->src.addr, 0, sizeof seg->src.addr);
	memset(seg->dst.addr, 0, sizeof seg->dst.addr);
	memcpy(seg->src.addr, ip.p + 12, 4);
	memcpy(seg->dst.addr, ip.p + 16, 4);
	struct span tcp = after(ip, hlen);
	if (tcp.len > total - hlen)
		tcp.len = total - hlen;
	return decode_tcp(tcp, total - hlen, seg);
}

static enum decode_result decode_ipv6(struct span ip, uint32_t wire_avail, struct tcp_seg *seg)
{
	if (!has(ip, 0, 40))
		return DECODE_BAD;
	if (get_u8(ip, 0) >> 4 != 6)
		return DECODE_BAD;
	uint32_t plen = get_be16(ip, 4);
	if (plen == 0)		/* jumbogram or offload super-packet */
		plen = wire_avail >= 40 ? wire_avail - 40 : 0;
	uint8_t next = get_u8(ip, 6);
	seg->src.family = seg->dst.family = 6;
	memcpy(seg->src.addr, ip.p + 8, 16);
	memcpy(seg->dst.addr, ip.p + 24, 16);

	/* Walk the extension headers that may stand before TCP. */
	uint32_t off = 40, end = 40 + plen;
	for (int hops = 0; hops < 8; hops++) {
		if (next == 6) {
			struct span tcp = after(ip, off < ip.len ? off : ip.len);
			if (off > end)
				return DECODE_BAD;
			if (tcp.len > end - off)
				tcp.len = end - off;
			return decode_tcp(tcp, end - off, seg);
		}
		if (next == 0 || next == 43 || next == 60) {	/* hop-by-hop, routing, destination */
			if (!has(ip, off, 2))
				return DECODE_BAD;
			uint8_t nh = get_u8(ip, off);
			off += 8 + (uint32_t)get_u8(ip, off + 1) * 8;
			next = nh;
			continue;
		}
		if (next == 44) {	/* fragment: only the first holds TCP */
			if (!has(ip, off, 8))
				return DECODE_BAD;
			if (get_be16(ip, off + 2) & 0xfff8)
				return DECODE_NOT_TCP;
			next = get_u8(ip, off);
			off += 8;
			continue;
		}
		return DECODE_NOT_TCP;
	}
	return DECODE_BAD;
}

static enum decode_result decode_ethertype(uint16_t type, struct span l3, uint32_t wire_avail,
					   struct tcp_seg *seg)
{
	if (type == ETHERTYPE_IPV4)
		return decode_ipv4(l3, wire_avail, seg);
	if (type == ETHERTYPE_IPV6)
		return decode_ipv6(l3, wire_avail, seg);
	return DECODE_NOT_TCP;
}

/* Raw IP: the version nibble says which. */
static enum decode_result decode_raw_ip(struct span l3, uint32_t wire_avail, struct tcp_seg *seg)
{
	if (!has(l3, 0, 1))
		return DECODE_BAD;
	switch (get_u8(l3, 0) >> 4) {
	case 4: return decode_ipv4(l3, wire_avail, seg);
	case 6: return decode_ipv6(l3, wire_avail, seg);
	default: return DECODE_NOT_TCP;
	}
}

/* DLT_NULL and DLT_LOOP carry an address family; BSDs disagree on AF_INET6. */
static enum decode_result decode_af(uint32_t af, struct span l3, uint32_t wire_avail,
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
	struct span f = { frame, caplen };
	uint32_t hdr;

	if (wirelen < caplen)
		wirelen = caplen;
	switch (dlt) {
	case DLT_EN10MB: {
		if (!has(f, 0, 14))
			return DECODE_BAD;
		uint16_t type = get_be16(f, 12);
		hdr = 14;
		/* 802.1Q and 802.1ad tags, possibly stacked. */
		for (int tags = 0; tags < 4 &&
		     (type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ || type == ETHERTYPE_QINQ_OLD);
		     tags++) {
			if (!has(f, hdr, 4))
				return DECODE_BAD;
			type = get_be16(f, hdr + 2);
			hdr += 4;
		}
		return decode_ethertype(type, after(f, hdr), wirelen - hdr, seg);
	}
	case DLT_LINUX_SLL:
		if (!has(f, 0, 16))
			return DECODE_BAD;
		return decode_ethertype(get_be16(f, 14), after(f, 16), wirelen - 16, seg);
	case DLT_LINUX_SLL2:
		if (!has(f, 0, 20))
			return DECODE_BAD;
		return decode_ethertype(get_be16(f, 0), after(f, 20), wirelen - 20, seg);
	case DLT_RAW: case LINKTYPE_RAW: case DLT_IPV4: case DLT_IPV6:
		return decode_raw_ip(f, wirelen, seg);
	case DLT_NULL: {
		if (!has(f, 0, 4))
			return DECODE_BAD;
		/* Host byte order of the capturing machine: accept either. */
		uint32_t af = get_be32(f, 0);
		if (af > 0xffff)
			af = (uint32_t)get_u8(f, 0) | (uint32_t)get_u8(f, 1) << 8;
		return decode_af(af, after(f, 4), wirelen - 4, seg);
	}
	case DLT_LOOP:
		if (!has(f, 0, 4))
			return DECODE_BAD;
		return decode_af(get_be32(f, 0), after(f, 4), wirelen - 4, seg);
	default:
		return DECODE_BAD;
	}
}
