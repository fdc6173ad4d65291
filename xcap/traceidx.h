/*
 * traceidx.h — the writer of a trace's side index (TRACE.idx), in one
 * pass over its records in the order they are written: by xcap -w as it
 * captures (the index is written when the trace file is closed), and by
 * netplot when it meets a trace without one.  The index holds, per
 * connection and direction, time buckets at levels of detail each 16
 * times coarser than the one below (extremes of sequence numbers and
 * acknowledgements, bytes, packets, messages, the offset of the trace
 * block of a bucket's first packet) and, when the writer was given them,
 * the state model's intervals, sorted, so that a reader finds a span's
 * states without running the model from the trace's start.  The format
 * is in man/xcap.5 (INDEX FILES); netplot/index.c reads it.
 *
 * Level-0 buckets start 1 µs wide and double (pairs merged) whenever a
 * direction would hold more than about two buckets per XIDX_PER_BUCKET
 * packets, so one pass suffices and memory stays near 1.3 bytes a packet.
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#ifndef XCAP_TRACEIDX_H
#define XCAP_TRACEIDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

#define XIDX_VERSION 2
#define XIDX_FANOUT 16
#define XIDX_PER_BUCKET 64	/* level 0: at least about this many packets a bucket */
#define XIDX_HAS_STATE 1u	/* header flag: the state intervals are in it */

/* What the index keeps of one direction over one span of time: the data
   and acknowledgements seen, and the time spent in each blocked state.
   The writer fills them; netplot merges them into the columns it draws.
   Stored as 80 bytes, little-endian; a pair lo > hi: none. */
struct xidx_bucket {
	int64_t dlo, dhi;	/* data of the direction: lowest seq, highest seq + len */
	int64_t alo, ahi;	/* acknowledgements of that data (sent by the peer) */
	uint64_t bytes;
	uint32_t npkt, nmsg;
	uint64_t block;		/* trace offset of the block of its first packet; 0 none */
	uint64_t state[3];	/* ns of Block Send, Block Recv, Block Reply in it */
};

/* An empty bucket (nothing seen: the ranges inverted), and a into which k
   is merged. */
void xidx_bucket_empty(struct xidx_bucket *k);
void xidx_bucket_merge(struct xidx_bucket *a, const struct xidx_bucket *k);

struct xidx;

struct xidx *xidx_new(void);
void xidx_free(struct xidx *x);

/* A record of the trace, in trace order, and the offset of the trace
   block holding it.  -1 out of memory (the index is then not written). */
int xidx_record(struct xidx *x, const struct xrec *rec, uint64_t block);

/* A state interval of direction dir of connection conn (absolute ns;
   state 1..3 as enum xstate).  Any order; with any given, the index says
   it has the states (XIDX_HAS_STATE), and so it does with xidx_states. */
int xidx_interval(struct xidx *x, uint32_t conn, int dir, int state, uint64_t start,
		  uint64_t end);
/* Say the states are known though none was given (every moment Idle). */
void xidx_states(struct xidx *x);

/* Write the index of the trace at trace_path (closed, complete) to
   out_path, through a temporary name and a rename. */
int xidx_write(struct xidx *x, const char *trace_path, const char *out_path, char *err,
	       size_t errlen);

/* What an index records of its trace to know it is still that trace:
   size, time of change (ns) and a hash of its first 64 kB. */
int xidx_stamp(const char *trace_path, uint64_t *size, uint64_t *mtime, uint64_t *hash);

#endif
