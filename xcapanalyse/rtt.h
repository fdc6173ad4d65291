/*
 * rtt.h — round-trip samples of one direction's data, by tcptrace's rule:
 * an ack of new data gives one sample, from the segment that ends where
 * the ack points (SYN and FIN count a byte, so a handshake's is the
 * first); none when that segment was sent more than once (Karn's rule:
 * the ack may answer either copy), when another segment the ack covers
 * was sent after it (the ack may answer that one: a hole filled late),
 * or when the ack points inside a segment.
 *
 * The one place of the rule: xcapanalyse --tcp-stats and netplot's rtt
 * graph both feed it.  Fed in time order: each segment of the direction as
 * it is sent (rtt_sent), each ack from its peer as it comes (rtt_acked).
 * Sequence numbers are 32-bit and compared modulo 2^32, so raw numbers and
 * relative ones serve alike.  Memory: the segments in flight.
 *
 * Belongs to: libanalyse, the analysis layer's library (xcapanalyse/).
 */
#ifndef XCAPANALYSE_RTT_H
#define XCAPANALYSE_RTT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A segment sent and not yet acknowledged. */
struct rtt_seg {
	uint32_t end;		/* sequence just past it */
	uint64_t ts;		/* when it was sent, ns */
	bool again;		/* it or a copy of it was sent more than once */
};

/* One direction's segments in flight (a ring, in sending order). */
struct rtt_flight {
	struct rtt_seg *seg;
	size_t head, n, cap;
	bool have_ack;
	uint32_t last_ack;	/* highest ack the peer sent */
};

/* All zero is an empty flight. */
void rtt_free(struct rtt_flight *f);
/* A segment of ext bytes (payload, SYN and FIN) from seq sent at ts;
   again when it carries data sent before (a retransmission, whole or in
   part).  -1 when out of memory. */
int rtt_sent(struct rtt_flight *f, uint32_t seq, uint32_t ext, uint64_t ts, bool again);
/* An ack from the peer at ts: true and *ns the round trip when it gives a
   sample. */
bool rtt_acked(struct rtt_flight *f, uint32_t ack, uint64_t ts, uint64_t *ns);
/* The oldest segment still in flight, NULL when none (the handshake's
   round trip is the SYN's). */
const struct rtt_seg *rtt_oldest(const struct rtt_flight *f);

#endif
