/*
 * predict.h — what a trace would look like on another link
 * (DESIGN.md, "Prediction"; xcapanalyse(1), PREDICTION).
 *
 * Two experiments over one trace, best taken on loopback or a link much
 * faster than the ones asked about:
 *
 * The predictor keeps the trace's dependency structure — which write of
 * either side had to wait for which earlier one, and how long each side
 * took before it wrote (its think time) — and replays it over a modelled
 * link of rate W and one-way delay L with a TCP sender on each side
 * (segments of an MSS, an initial window, slow start, the restart of slow
 * start after idle).  The replayed trace, as a capture beside the client
 * would see it, goes through the same state model (state.h) that
 * measures a real trace, so the prediction is of what xcapanalyse would
 * measure over that link: Total Network Delay, Block Send, Block Reply,
 * each round trip.
 *
 * The added-delay experiment (SLIM's) keeps the trace's packets and their
 * send times and pushes them through a first-in first-out queue drained
 * at a lower rate: the delay each packet gains, as a distribution.
 *
 * Belongs to: libanalyse, the analysis layer's library, which netplot links too (xcapanalyse/).
 */
#ifndef XCAPANALYSE_PREDICT_H
#define XCAPANALYSE_PREDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"
#include "state.h"

struct predict_options {
	uint32_t mss;			/* payload bytes per segment (default 1448) */
	uint32_t initial_window;	/* segments (default 10, RFC 6928, Linux) */
	/* Linux's net.ipv4.tcp_slow_start_after_idle (default on): a sender
	   idle for longer than its retransmission timeout halves its window
	   once per timeout idle, down to the initial window. */
	bool idle_restart;
	uint64_t rto_min;		/* ns (default 200 ms, Linux's TCP_RTO_MIN) */
	/* The receiver's delayed-ACK timer: an acknowledgement held for the
	   next segment goes when that arrives or when the timer runs out,
	   whichever is first.  Linux's timer is at least this (default
	   40 ms, TCP_ATO_MIN); on a link of a longer round trip it grows to
	   the round trip, up to 200 ms (TCP_DELACK_MAX; see predict.c). */
	uint64_t delack;		/* ns; 0: no timer */
	/* Bytes of headers the link carries with every segment beside its
	   payload: IPv4 (20) and TCP with timestamps (32) — what a tun
	   device, and so xcap-link, counts.  Default 52. */
	uint32_t overhead;
	/* The trace was taken with every clock and the link slowed this many
	   times (time dilation): its times, counted from its first record,
	   are divided by it as they are read.  Default 1. */
	double dilation;
	/* Predict the trace's X connections carried by an ssh -C tunnel
	   (ssh -X -C) instead of over the link themselves: each write crosses
	   the link as SSH channel data at the size the trace measured for it
	   compressed (xrec_pkt.zlen), plus ssh's per-packet framing. */
	bool ssh_compression;
	/* With ssh_compression: what ssh and sshd add to a round trip through
	   the tunnel beyond the link (each reads, compresses or inflates,
	   encrypts or decrypts and writes every message), half of it to each
	   message that crosses.  It depends on the machine's processors;
	   measured by capturing a client on loopback directly and through
	   ssh -X -C to localhost (xcapanalyse(1), PREDICTION: ssh -C).
	   Default PREDICT_SSH_FORWARD. */
	uint64_t ssh_forward;		/* ns */
	/* Predict a Wayland trace of xcap-run --wayland (the application on
	   its compositor's socket) carried by waypipe 0.8 over TCP (socat)
	   instead: its framing, the BUFFER_DIFF the relay's note gives for
	   each wl_shm commit, its connection token, and its acknowledgements
	   with the wait behind them that Nagle's algorithm makes, counted at
	   its expectation (predict.c, wp_alone).  The time waypipe
	   takes to pass a message on is not modelled. */
	bool waypipe;
	/* What a process that waited for the network at least
	   PREDICT_WAKE_AFTER takes to act on what arrives, beyond one that
	   waited less: its processor slept (a virtual machine's host may
	   take it away).  A capture on loopback holds short waits; over a
	   link, the X server wakes from long ones, and through a tunnel ssh
	   and sshd do (the processes they hand on to find the processor
	   awake).  0: not modelled (the default).  Measured by a
	   ping-pong on loopback with and without pauses (xcapanalyse(1),
	   PREDICTION: Waking). */
	uint64_t wake;			/* ns */
	struct xstate_options model;	/* for the state model, both runs */
};

/* A wait this long or longer wakes a process late: some 0.2 ms is how
   long this machine's host polls before it takes an idle processor away
   (a one-byte ping-pong on loopback takes 29 us back to back, 146 to
   157 us with pauses of 0.2 ms). */
#define PREDICT_WAKE_AFTER 150000	/* ns */

/* The default of ssh_forward: measured on the two-core machine the
   suite's accuracy tables come from (0.5 to 0.7 ms a round trip). */
#define PREDICT_SSH_FORWARD 600000	/* ns */

void predict_options_default(struct predict_options *opt);

/* A link: rate in bit/s (0: no limit) and one-way delay. */
struct predict_link {
	uint64_t rate;
	uint64_t delay;			/* ns */
	/* waypipe: replayed as though no answer waited behind a lone
	   acknowledgement (its best case; the prediction counts
	   wp_alone of each such wait, predict.c) */
	bool wp_none;
	/* waypipe: replayed as though every such answer waited (its worst
	   case, which an answer that comes a pass after waypipe's
	   acknowledgement meets every time: a key's redraw with its buffer
	   diff; --predict-responses) */
	bool wp_all;
};

/* What the replay over one link gives, as the state model measures it. */
struct predict_result {
	uint64_t span;			/* first to last packet, ns */
	uint64_t network_delay;		/* Block Send + Block Recv + Block Reply */
	uint64_t block_send;		/* both directions, Block Recv included */
	uint64_t block_reply;
	uint64_t waits;			/* blocking round trips */
	uint64_t segments;		/* data segments the replay sent */
	uint64_t max_queue;		/* most bytes waiting at the link, either way */
	/* waypipe: the answers that may wait behind its acknowledgement,
	   and the expected wait added for them (ns) */
	uint64_t wp_held, wp_wait;
};

struct predict_trace;

/* A trace's structure, fed record by record as the trace holds them.
   NULL when out of memory. */
struct predict_trace *predict_new(const struct predict_options *opt);
void predict_free(struct predict_trace *t);
/* 0, or -1 when out of memory. */
int predict_record(struct predict_trace *t, const struct xrec *rec);
/* The input ended: works out the dependencies.  0, or -1 when out of
   memory, or PREDICT_NO_ZLEN when ssh_compression was asked for and no
   data segment of the trace has a compressed size. */
enum { PREDICT_NO_ZLEN = -2 };
int predict_finish(struct predict_trace *t);
/* With ssh_compression: the writes with data but no compressed size
   (bytes the capture did not have), which the replay counts at their
   size uncompressed, and all writes with data. */
size_t predict_unmeasured(const struct predict_trace *t, size_t *with_data);
/* What an SSH binary packet carrying n bytes of X data compressed to z
   bytes takes on the wire (ssh_compression). */
uint32_t predict_ssh_wire(uint32_t n, uint32_t z);

/* The options it was made with. */
const struct predict_options *predict_options_of(const struct predict_trace *t);
/* The trace as it is (the state model over the records as read). */
const struct predict_result *predict_measured(const struct predict_trace *t);
/* The time of the trace's first packet (the replays start there). */
uint64_t predict_first_ts(const struct predict_trace *t);
/* Data packets (writes) and blocking round trips the structure holds. */
size_t predict_writes(const struct predict_trace *t);

/* Replay over link; on_wait (may be NULL) hears every predicted round
   trip.  0, or -1 when out of memory. */
int predict_run(const struct predict_trace *t, const struct predict_link *link,
		struct predict_result *res,
		void (*on_wait)(void *ctx, const struct xstate_wait *w), void *ctx);

/* predict_run without on_wait, and per write (predict_writes) the time,
   in the replay, its last byte is seen beside the client (a client's
   write leaving it, a server's arriving), PREDICT_NOT_SEEN for a write
   left out.  The per-input responses of --predict-responses
   (added_delay.h).  0, or -1 when out of memory. */
#define PREDICT_NOT_SEEN UINT64_MAX
int predict_run_seen(const struct predict_trace *t, const struct predict_link *link,
		     struct predict_result *res, uint64_t *seen);
/* The write (an index for predict_run_seen's seen) holding the last
   byte of a message of connection conn in direction dir at ts, as
   predict_find_packets finds its packet; PREDICT_NO_PACKET where none
   is.  0, or -1 when out of memory. */
struct predict_packet_query;
int predict_find_writes(struct predict_trace *t, const struct predict_packet_query *q,
			size_t n, size_t *idx);
/* Before predict_finish: write w (predict_find_writes), a server's,
   carries an input (X11's or Wayland's input event), and the client's
   next write answers it: the replay holds that write until the input
   has arrived and the client's think time in the trace has passed, as
   it holds a write after a round trip's reply.  Without it the replay
   knows only the round trips the client waited in, and an answer to an
   input keeps the client's own pace. */
void predict_tie_input(struct predict_trace *t, size_t w);

/* Replays over links[0..n-1] into res[0..n-1], the same as predict_run
   link by link, on up to threads threads (0: one per processor this
   process may run on, as taskset or a cpuset allows), each with buffers
   of its own: a replay's memory (some 150 bytes per packet of a busy
   X11 trace) once per thread.  The links are independent; the order they finish in does not
   show.  0, or -1 when out of memory. */
enum { PREDICT_THREADS_MAX = 64 };
int predict_run_all(const struct predict_trace *t, const struct predict_link *links, size_t n,
		    struct predict_result *res, unsigned threads);

/* ---- SLIM's experiment ---- */

/* Every packet of the trace (pure acknowledgements too) at its time
   through a first-in first-out queue per direction drained at rate bit/s;
   out[i] (n = predict_packets()) is the delay packet i gains over the
   link the trace was taken on, of rate trace_rate (0: no limit, as on
   loopback):
     start_i  = max(ts_i, end_{i-1})     end_i = start_i + wire_i * 8 / rate
     added_i  = end_i - ts_i - wire_i * 8 / trace_rate
   where wire_i is the payload plus the overhead.  Rounded to the ns.
   0, or -1 when rate is 0. */
size_t predict_packets(const struct predict_trace *t);
int predict_added_delays(const struct predict_trace *t, uint64_t rate, uint64_t trace_rate,
			 int64_t *out);

/* The packet that carries a message: the last packet of connection
   conn in direction dir at ts (a message's time is that of the packet
   holding its last byte), ts as the trace holds it (dilated or not).  Fills idx[0..n-1] with indices for predict_added_delays' out,
   PREDICT_NO_PACKET where the trace has none.  One pass over the
   packets; 0, or -1 when out of memory. */
#define PREDICT_NO_PACKET ((size_t)-1)
struct predict_packet_query {
	uint64_t ts;
	uint32_t conn;
	uint8_t dir;			/* enum xdir */
};
int predict_find_packets(struct predict_trace *t, const struct predict_packet_query *q, size_t n,
			 size_t *idx);

/* ---- lists on the command line ---- */

/* "100M,10M,1M,100k,10k": rates in bit/s in the grammar of xcap/units.h,
   from 1 bit/s to 1 Tbit/s.  Fills at most max; returns the count, or
   -1 when a member is not such a rate or there are more than max. */
int predict_parse_rates(const char *s, uint64_t *out, size_t max);
/* "0.1,1,10,100" or "100us,40ms": one-way latencies (a bare number is
   ms), 0 allowed, into ns; as above. */
int predict_parse_delays(const char *s, uint64_t *out, size_t max);
/* A rate the way the lists write it: "10M", "1.5M", "100k", "64". */
void predict_format_rate(char *buf, size_t len, uint64_t rate);

#endif
