/*
 * record.h — the records of a trace, as the pipeline produces them and the
 * trace reader returns them.  One struct per record type; the encoding on
 * disk is trace.c's business and is documented in xcap(5).
 *
 * Strings in records point into storage owned by whoever produced the
 * record (the pipeline or the reader) and stay valid only until the next
 * record is produced.
 */
#ifndef XCAP_RECORD_H
#define XCAP_RECORD_H

#include <stdint.h>

enum xrec_type {
	XREC_CONN = 1,	/* a connection was seen */
	XREC_PKT = 2,	/* one TCP segment */
	XREC_MSG = 3,	/* one protocol message */
	XREC_EXT = 4,	/* an extension's opcode and bases, per connection */
	XREC_NAME = 5,	/* the client's name */
	XREC_GAP = 6,	/* bytes of a stream the capture does not have */
	XREC_STATS = 7,	/* capture statistics */
	XREC_NOTE = 8,	/* something a decoder or the pipeline wants said */
};

enum xdir { XDIR_C2S = 0, XDIR_S2C = 1 };

struct xaddr {
	uint8_t family;		/* 4 or 6 */
	uint8_t addr[16];	/* IPv4 in the first 4 bytes */
	uint16_t port;
};

/* xrec_conn.flags */
#define XCONN_SAW_SYN	0x01	/* handshake seen: sides and window scale known */
#define XCONN_GUESSED	0x02	/* sides guessed from the server port */

struct xrec_conn {
	uint64_t ts;
	uint32_t id;		/* 1, 2, ... in order of first packet */
	uint16_t flags;
	int8_t wscale[2];	/* window scale per direction, -1 unknown */
	struct xaddr client, server;
	const char *proto;	/* "x11", "" when no decoder applies */
};

/* xrec_pkt.events: what reassembly noticed about this segment */
#define XPKT_RETRANS	0x0001	/* all of its data was seen before */
#define XPKT_OVERLAP	0x0002	/* part of its data was seen before */
#define XPKT_OOO	0x0004	/* arrived ahead of a hole */
#define XPKT_TRUNC	0x0008	/* payload cut by the snaplen */
#define XPKT_ZEROWIN	0x0010	/* advertises a zero window */
#define XPKT_WINPROBE	0x0020	/* window probe */

/* TCP flags as on the wire */
#define XTCP_FIN 0x01
#define XTCP_SYN 0x02
#define XTCP_RST 0x04
#define XTCP_PSH 0x08
#define XTCP_ACK 0x10
#define XTCP_URG 0x20
#define XTCP_ECE 0x40
#define XTCP_CWR 0x80

struct xrec_pkt {
	uint64_t ts;		/* ns since the epoch */
	uint32_t conn;
	uint8_t dir;		/* enum xdir */
	uint8_t tcp_flags;
	uint16_t events;
	uint32_t seq, ack;	/* raw, as on the wire */
	uint16_t raw_win;	/* window field as on the wire */
	uint32_t win;		/* scaled by the direction's window scale when known */
	uint32_t len;		/* payload length on the wire */
};

enum xmsg_kind {
	XMSG_SETUP = 1, XMSG_REQUEST, XMSG_REPLY, XMSG_EVENT, XMSG_ERROR, XMSG_UNKNOWN,
};

struct xrec_msg {
	uint64_t ts;		/* time of the packet holding the message's last byte */
	uint32_t conn;
	uint8_t dir;
	uint8_t kind;		/* enum xmsg_kind, same values as enum proto_kind */
	uint16_t flags;		/* PROTO_F_* */
	uint8_t major;
	uint16_t minor;
	uint64_t seq;		/* widened protocol sequence number */
	uint64_t length;	/* bytes */
	uint32_t tcp_end;	/* TCP sequence number just past the last byte */
	const char *name;
	const char *ext;	/* "" for core */
	const char *detail;	/* "" when none */
};

struct xrec_ext {
	uint64_t ts;
	uint32_t conn;
	uint8_t major, first_event, first_error;
	const char *name;
};

struct xrec_name {
	uint64_t ts;
	uint32_t conn;
	const char *source;	/* "WM_CLASS", "WM_NAME", "_NET_WM_PID" */
	const char *text;
};

enum xgap_reason {
	XGAP_LOST = 1,		/* the capture missed segments the receiver acknowledged */
	XGAP_SNAPLEN = 2,	/* payload beyond the snaplen */
	XGAP_OOO_LIMIT = 3,	/* out-of-order buffer full: gave up waiting */
	XGAP_END = 4,		/* capture ended with a hole still open */
	XGAP_MIDSTREAM = 5,	/* capture began after the connection did */
	XGAP_SKIPPED = 6,	/* left out by the capture on purpose: inside a message,
				   past what the decoder reads (xcap/cut.h) */
};

struct xrec_gap {
	uint64_t ts;
	uint32_t conn;
	uint8_t dir;
	uint8_t reason;		/* enum xgap_reason */
	uint32_t seq;		/* TCP sequence number of the first missing byte */
	uint64_t len;		/* missing bytes */
};

struct xrec_stats {
	uint64_t ts;
	uint64_t packets;	/* handed to the pipeline */
	uint64_t bytes;		/* on the wire */
	uint64_t kernel_recv;	/* pcap_stats ps_recv */
	uint64_t kernel_drop;	/* ps_drop */
	uint64_t if_drop;	/* ps_ifdrop */
	uint64_t not_tcp;	/* skipped: not IPv4/IPv6 TCP */
	uint64_t bad_link;	/* skipped: unknown or malformed link/IP/TCP header */
};

struct xrec_note {
	uint64_t ts;
	uint32_t conn;		/* 0 when not about a connection */
	uint8_t dir;
	const char *text;
};

struct xrec {
	enum xrec_type type;
	union {
		struct xrec_conn conn;
		struct xrec_pkt pkt;
		struct xrec_msg msg;
		struct xrec_ext ext;
		struct xrec_name name;
		struct xrec_gap gap;
		struct xrec_stats stats;
		struct xrec_note note;
	} u;
};

/* Where records go: the trace writer, a dump printer, an analysis. */
typedef void (*xrec_emit_fn)(void *ctx, const struct xrec *rec);

#endif
