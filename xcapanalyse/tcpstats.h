/*
 * tcpstats.h — per-connection TCP statistics as `tcptrace -l -r` prints
 * them, for each direction: packets, acks, data and retransmitted bytes,
 * out-of-order segments, windows (zero, scale, extremes), segment sizes,
 * round-trip times from the data and the handshake, throughput.  Fed the
 * trace's records in order; one pass, memory per connection bounded by
 * the data in flight.
 *
 * The round-trip samples are rtt.h's (tcptrace's rule, Karn's with it);
 * the first sample of a direction that opened with a SYN is the
 * handshake's.
 *
 * Belongs to: libanalyse, the analysis layer's library (xcapanalyse/).
 */
#ifndef XCAPANALYSE_TCPSTATS_H
#define XCAPANALYSE_TCPSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conns.h"
#include "record.h"
#include "rtt.h"

struct tcps_dir {
	uint64_t packets, acks, pure_acks, data_pkts, data_bytes, rexmt_pkts, rexmt_bytes;
	uint64_t ooo_pkts, zwnd_probes, syns, fins, rsts, pushed, zero_win;
	uint64_t unique_bytes;	/* payload bytes not sent before (a hole's filling counts) */
	uint32_t seg_min, seg_max;
	uint64_t win_min, win_max, win_sum, win_n;	/* scaled windows, after the SYN */
	uint64_t first_ts, last_ts, first_data, last_data, idle_max;
	int wscale;		/* -1 unknown */
	/* sequence bookkeeping */
	bool have_seq;
	uint32_t high;		/* highest (end) raw sequence */
	uint64_t high_w;	/* highest end, unwrapped, relative to the first */
	bool have_data;
	uint32_t high_data;	/* just past the highest payload byte */
	/* round trips of this direction's data (acks from the peer) */
	uint64_t rtt_n;
	double rtt_min, rtt_max, rtt_sum, rtt_sq;	/* ms */
	double rtt_3whs;	/* ms; < 0 none */
	bool saw_syn;
	struct rtt_flight flight;	/* its segments not yet acknowledged */
};

struct tcps_conn {
	uint32_t id;
	struct xaddr client, server;
	uint64_t first, last;
	struct tcps_dir dir[2];	/* XDIR_C2S, XDIR_S2C */
};

struct tcpstats {
	struct xconns conns;	/* of struct tcps_conn */
};

void tcpstats_init(struct tcpstats *s);
/* XREC_CONN and XREC_PKT are looked at; -1 when out of memory. */
int tcpstats_record(struct tcpstats *s, const struct xrec *rec);
void tcpstats_free(struct tcpstats *s);

/* Round-trip statistics of a direction, in ms (stdev: of the sample,
   n - 1); false when it has none. */
bool tcps_rtt(const struct tcps_dir *d, double *min, double *avg, double *max, double *stdev);
/* Unique bytes over the connection's elapsed time, as tcptrace's
   "throughput" (bytes/s); 0 when no time elapsed. */
double tcps_throughput(const struct tcps_conn *c, int dir);

#endif
