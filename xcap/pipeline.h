/*
 * pipeline.h — from captured frames to trace records.
 *
 * The pipeline is the one path every packet takes, live or from a file:
 * link/IP/TCP decoding, the connection table, per-direction reassembly and
 * the protocol decoders.  It emits records in the order a reader wants
 * them: a connection's `conn` record before anything about it, a packet's
 * `pkt` record before the gaps and messages that packet completed.
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#ifndef XCAP_PIPELINE_H
#define XCAP_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "decode.h"
#include "record.h"

struct proto_ops;

/* The kernel's cutting of payloads beside a live capture, which the
   pipeline keeps in step with each direction's decoder: told where
   messages begin, asked to hand a connection over or to judge a guess.
   The capture program gives it (xcap/cmd/xcap/cut.c, cut_hook); the
   library only calls it, so no library code links the eBPF cutter. */
enum pipeline_cut_view {
	PIPELINE_CUT_FOLLOWING,	/* following the framing and cutting */
	PIPELINE_CUT_YOURS,	/* waiting for hand_over */
	PIPELINE_CUT_GUESSING,	/* following a guess: judge it */
	PIPELINE_CUT_OTHER,	/* lost track, waiting for a packet to guess from */
};
struct pipeline_cutter {
	void *ctx;
	/* Follow one direction (src sends): a slot, or -1. */
	int (*open)(void *ctx, const struct xaddr *src, const struct xaddr *dst,
		    bool server_to_client);
	void (*close)(void *ctx, int slot);	/* slot may be -1 */
	enum pipeline_cut_view (*view)(void *ctx, int slot, uint32_t *guess);
	void (*hand_over)(void *ctx, int slot, bool big_endian);
	void (*judge)(void *ctx, int slot, uint32_t guess, bool right);
};

struct pipeline;

struct pipeline_options {
	/* Out-of-order bytes buffered per direction before giving up on a
	   hole and recording it as a gap (reason ooo-limit). */
	uint32_t ooo_limit_bytes;
	/* Whether to run protocol decoders at all (off: bytes are only
	   counted; the benchmark uses it to price decoding). */
	bool decode;
	/* Use this decoder for every connection instead of choosing by
	   server port (tests and benchmarks); NULL for the normal choice. */
	const struct proto_ops *decoder;
	/* The user's choice by server port before the ports the decoders
	   claim (xcap --decode NAME:PORT): a capture begun after the
	   connection's first bytes has no banner to be known by. */
	struct pipeline_port { uint16_t port; const struct proto_ops *ops; } ports[8];
	size_t nports;
	/* The capture's snapshot length, 0 when unknown.  A frame shorter
	   than it whose payload is cut was cut by the capture's filter on
	   purpose (xcap/cmd/xcap/cut.h): its missing bytes are a gap of reason
	   "skipped", not "snaplen". */
	uint32_t snaplen;
	/* The kernel side of that cutting, told where each X11 direction's
	   messages begin; NULL when not cutting. */
	const struct pipeline_cutter *cutter;
	/* Measure what each segment's payload takes in an ssh -C tunnel's
	   compressed stream (xrec_pkt.zlen).  Costs a deflate of every byte
	   and some 270 KB of zlib state per connection direction. */
	bool compressed_sizes;
	/* Hand a cut packet's snaplen gap inside its pkt record
	   (xrec_pkt.cut) when the gap would come right after it, instead of
	   as a record of its own: one call of emit a packet where two were
	   made on a capture cut to its snap length.  For a consumer that
	   writes a trace, whose format says the cut the same way. */
	bool cuts_in_pkt;
};

void pipeline_default_options(struct pipeline_options *opt);
/* Adds a user's choice NAME:PORT to opt->ports (xcap and xcapanalyse
   --decode).  0, or -1 with the reason in err. */
int pipeline_add_decode(struct pipeline_options *opt, const char *arg, char *err, size_t errlen);

/* dlt is the capture's link type (DLT_*).  emit receives every record.
   NULL when out of memory.

   The pipeline never ends the program and prints nothing.  When it fails
   (out of memory: a connection or a buffered segment it cannot keep),
   the functions below that return int return -1, pipeline_error says
   why, and from then on it takes no more packets: records it would emit
   without what it lost would be invented.  The caller decides whether
   what was emitted so far is worth keeping. */
struct pipeline *pipeline_new(int dlt, const struct pipeline_options *opt,
			      xrec_emit_fn emit, void *ctx);

/* One captured frame: ts in ns since the epoch, caplen bytes captured of
   wirelen on the wire.  0, or -1 when the pipeline has failed. */
int pipeline_packet(struct pipeline *p, uint64_t ts, const uint8_t *frame,
		    uint32_t caplen, uint32_t wirelen);
/* The same for a frame already decoded (decode_frame's result, and *seg
   for DECODE_TCP), by the file's reader thread (pcapfile_next_frame). */
int pipeline_decoded(struct pipeline *p, uint64_t ts, uint32_t caplen, uint32_t wirelen,
		     enum decode_result result, const struct tcp_seg *seg);

/* Emit again the state a reader needs to understand what follows (conn,
   ext and name records of open connections): used when a new trace file
   starts (xcap -G).  0, or -1 when the pipeline has failed. */
int pipeline_replay_state(struct pipeline *p, uint64_t ts);

/* The capture ended: close every open hole (gap reason end) and let the
   decoders report what they still hold.  0, or -1 when the pipeline has
   failed. */
int pipeline_finish(struct pipeline *p, uint64_t ts);

/* Why the pipeline failed ("out of memory: 'connection'"), NULL while it
   has not. */
const char *pipeline_error(const struct pipeline *p);

/* Counters so far (the kernel fields are left zero). */
void pipeline_stats(const struct pipeline *p, struct xrec_stats *st);

void pipeline_free(struct pipeline *p);

/* Ask malloc to keep the memory it is given back instead of returning it
   to the system at once.  Reassembly and the decoders take and release
   buffers of tens of KB in runs on lossy captures; trimming the heap after
   each release costs page faults and TLB flushes that took more time than
   the decoding.  `reserve` bytes of heap are touched at once, so that the
   first connections do not fault (live capture: a few MB; 0 for none).
   Call once at program start. */
void pipeline_steady_heap(size_t reserve);

#endif
