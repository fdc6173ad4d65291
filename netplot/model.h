/*
 * model.h — a trace loaded for drawing: compact per connection and
 * direction arrays of packets, messages, gaps and state intervals, and a
 * level-of-detail index over each so that a picture at any zoom costs
 * O(pixels + visible items), never a pass over the whole trace.
 *
 * This is netplot's core; it knows nothing of GTK and is shared by the
 * GUI, headless export, the benchmark and the unit tests.
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#ifndef NETPLOT_MODEL_H
#define NETPLOT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

/* One TCP segment, 32 bytes: a fifth of the load time is writing these.
   Sequence numbers are relative to the start of their direction's
   sequence space and unwrapped to 64 bits, so the y axis never jumps at a
   2^32 wrap. */
#define NP_PKT_LEN_MAX ((1u << 18) - 1)	/* larger than any segment, even offloaded */
struct np_pkt {
	uint64_t t;		/* ns since the model's t0 */
	int64_t seq;		/* relative sequence number of the first payload byte */
	int64_t ack;		/* relative in the peer's space; valid with XTCP_ACK */
	uint32_t win;		/* scaled window */
	uint32_t len : 18;	/* payload bytes, at most NP_PKT_LEN_MAX */
	uint32_t flags : 8;	/* XTCP_* */
	uint32_t events : 6;	/* XPKT_* (all six of them) */
};

/* One protocol message, drawn at the packet holding its last byte. */
struct np_msg {
	uint64_t t;		/* ns since t0 */
	int64_t end;		/* relative TCP sequence just past its last byte */
	uint64_t seq;		/* widened X sequence number */
	uint64_t reply_t;	/* requests: t of the packet ending its reply or error, 0 none */
	uint32_t length;	/* bytes */
	uint32_t name;		/* offsets into the model's string pool */
	uint32_t ext;
	uint32_t detail;
	uint16_t flags;		/* XMSG_F_* */
	uint8_t kind;		/* enum xmsg_kind */
	uint8_t prio;		/* label priority, higher wins (np_msg_priority) */
};

struct np_gap {
	uint64_t t;
	int64_t seq;
	uint64_t len;
	uint8_t reason;		/* enum xgap_reason */
};

/* A state interval from the state model (Idle is what no interval covers). */
struct np_iv {
	uint64_t start, end;	/* ns since t0 */
	uint8_t state;		/* enum xstate */
};

/* Level-of-detail index: a pyramid of aggregates over an array in index
   order, NP_LOD_FANOUT children per node.  Items are sorted by time, so a
   pixel column is an index range (binary search) and its aggregate costs
   O(fanout * levels). */
#define NP_LOD_FANOUT 16
#define NP_LOD_MAXLEVEL 16

/* Aggregate of a run of packets.  A field pair lo > hi means "none". */
struct np_pagg {
	int64_t dlo, dhi;	/* data: min seq, max seq + len (SYN and FIN count one) */
	int64_t alo, ahi;	/* acknowledgement numbers */
	int64_t wlo, whi;	/* acknowledgement + window */
	uint64_t bytes;		/* payload bytes */
	uint32_t marks;		/* OR of events | flags << 16 */
	uint32_t ndata;		/* segments carrying data or SYN/FIN */
};

/* Aggregate of a run of messages. */
struct np_magg {
	int64_t elo, ehi;	/* extremes of the end sequence numbers */
	uint32_t best;		/* index of the highest-priority message (earliest on ties) */
	uint32_t count;
	uint8_t prio;		/* its priority */
};

struct np_plod {
	size_t nlevel;
	size_t count[NP_LOD_MAXLEVEL];	/* nodes per level; level 0 is the items */
	struct np_pagg *node[NP_LOD_MAXLEVEL];	/* node[0] unused */
};

struct np_mlod {
	size_t nlevel;
	size_t count[NP_LOD_MAXLEVEL];
	struct np_magg *node[NP_LOD_MAXLEVEL];
};

/* One direction of one connection: its own data and messages, and the
   acknowledgements it sends (which are drawn on the peer's graph). */
struct np_dir {
	struct np_pkt *pkt;
	size_t npkt, pkt_cap;
	struct np_msg *msg;
	size_t nmsg, msg_cap;
	struct np_gap *gap;
	size_t ngap, gap_cap;
	struct np_iv *iv;	/* sorted by start, never overlapping */
	size_t niv, iv_cap;
	struct np_plod plod;
	struct np_mlod mlod;
	/* Unwrapping: the direction's sequence space base, and the last raw
	   and widened values seen of its own seq and of the peer's acks. */
	bool have_base;
	uint32_t base;
	uint32_t seq_raw, ack_raw;	/* last raw values, in this space */
	int64_t seq_w, ack_w;
	bool have_seq, have_ack;
	bool unsorted;		/* a packet came earlier than the one before */
	/* The LOD's first level, built while loading when the packets are
	   still in cache (np_lod_build adopts it): one more pass over
	   hundreds of MB of packets cost a tenth of the load time. */
	struct np_pagg *l1;
	size_t nl1, l1_cap;
	/* The other graphs' series (series.h), derived on first use. */
	struct np_derived *derived;
};

/* A blocking round trip, from the state model (struct xstate_wait). */
struct np_wait {
	uint64_t seq;		/* the request it names */
	uint64_t start, reply;	/* ns since t0: the wait proper */
	uint64_t queued;	/* ns the client's own output was queued before start */
	uint64_t burst_first, burst_last;	/* answered together at its end */
};

/* An input and its response (struct xresponse of the response model):
   drawn at the input with a bar to the response's end as captured. */
struct np_input {
	uint64_t t, end;	/* ns since t0: the input; the response's last activity */
	uint64_t response;	/* ns, as the display saw it (the capture point's delay added) */
	uint64_t added;		/* ns of that added for the capture point */
	uint64_t bytes[2];	/* by enum xdir, inside the response */
	uint64_t trips;		/* blocking round trips begun inside it */
	uint64_t pixels;	/* RFB */
	uint32_t what;		/* pool offset: "key=38", "button=1", "" */
	uint8_t kind;		/* enum xinput_kind */
	uint8_t flags;		/* XRESP_F_* */
};

struct np_conn {
	uint32_t id;
	char label[160];	/* client name when it said, else its address */
	bool named;
	uint8_t name_rank;	/* how good the name is (xrec_name_takes) */
	struct xaddr client, server;
	uint64_t first, last;	/* ns since t0 */
	struct np_dir dir[2];	/* XDIR_C2S, XDIR_S2C */
	struct np_wait *wait;	/* by seq */
	size_t nwait, wait_cap;
	struct np_input *input;	/* by time of the input */
	size_t ninput, input_cap;
};

/* Index of the first input of c at or after t. */
size_t np_input_lower(const struct np_conn *c, uint64_t t);

/* The round trip that names request seq of c, or NULL. */
const struct np_wait *np_conn_wait(const struct np_conn *c, uint64_t seq);

/* A mark of the trace (a client's XCAP_MARK, SIGUSR2, a trigger, the
   edges of a flight recorder's window): drawn across every connection's
   graph as a vertical line with its text. */
struct np_mark {
	uint64_t t;		/* ns since t0 */
	uint32_t conn;		/* 0: about no connection */
	uint8_t source;		/* enum xmark_source */
	uint32_t text;		/* offset in the string pool */
};

struct np_model {
	char *path;
	unsigned damaged;	/* warnings while reading: loaded up to the damage */
	uint64_t t0;		/* absolute ns of the first record: times are relative to it */
	uint64_t t_end;		/* ns since t0 of the last record */
	/* Not the connection table (conns.h): every id up to the last has an entry (gaps named "connection N"), read as conn[id - 1]. */
	struct np_conn *conn;
	size_t nconn, conn_cap;
	char *pool;		/* interned strings, offset 0 is "" */
	size_t pool_len, pool_cap;
	uint32_t *hash;		/* open addressing over pool offsets */
	size_t hash_cap, hash_used;
	bool have_state;	/* state intervals were computed */
	struct np_mark *mark;	/* in trace order */
	size_t nmark, mark_cap;
	uint64_t npkt, nmsg;
};

/* Load any capture xsource reads.  NULL with err filled on failure;
   warnings about damaged input go to stderr and are counted in damaged. */
struct np_model *np_model_load(const char *path, char *err, size_t errlen);
/* The same, telling progress(ctx, bytes of the file read so far) now and
   then (every thousand records), for a meter, and progress(ctx, -1)
   before a warning is printed; progress may be NULL. */
struct np_model *np_model_load_watched(const char *path, char *err, size_t errlen,
				       void (*progress)(void *ctx, long long done), void *ctx);
void np_model_free(struct np_model *m);

/* Several files as one session, in the order given (the pieces of one
   rotated capture).  following: the files may still be growing, so a
   last block not yet whole is where reading stops, not a problem to
   report. */
struct np_model *np_model_load_set(const char *const *paths, size_t npaths, bool following,
				   char *err, size_t errlen,
				   void (*progress)(void *ctx, long long done), void *ctx);
/* Building blocks of np_model_load, for tests: an empty model fed records
   one by one, then finished (sorting, reply matching, indexes). */
struct np_model *np_model_new(void);
int np_model_add(struct np_model *m, const struct xrec *rec);
void np_model_add_interval(struct np_model *m, uint32_t conn, int dir, uint8_t state,
			   uint64_t abs_start, uint64_t abs_end);
int np_model_finish(struct np_model *m);

/* The connection with the most packets, by index (0 when none). */
size_t np_model_busiest(const struct np_model *m);

/* Bytes held by the model's arrays and indexes. */
size_t np_model_memory(const struct np_model *m);
const char *np_str(const struct np_model *m, uint32_t off);
/* "Name" or "EXT:Name" for extension messages. */
void np_msg_title(const struct np_model *m, const struct np_msg *g, char *buf, size_t len);
uint8_t np_msg_priority(const struct np_msg *g);

/* A view's time (ns as a double) as a search key: the first whole ns at
   or after it, clamped, since a view may be panned before the start or
   zoomed out past what 64 bits hold. */
static inline uint64_t np_tkey(double t)
{
	if (!(t > 0))
		return 0;
	if (t >= 18446744073709549568.0)	/* the largest double below 2^64 */
		return UINT64_MAX;
	uint64_t k = (uint64_t)t;
	return (double)k < t ? k + 1 : k;
}

/* Index of the first item with t >= t (binary search). */
size_t np_pkt_lower(const struct np_dir *d, uint64_t t);
size_t np_msg_lower(const struct np_dir *d, uint64_t t);
size_t np_iv_lower(const struct np_dir *d, uint64_t t);	/* first with end > t */
/* The same when the answer is known to be `from` or later (the result is
   never below from): for keys that only grow, as across pixel columns. */
size_t np_pkt_lower_from(const struct np_dir *d, size_t from, uint64_t t);
size_t np_msg_lower_from(const struct np_dir *d, size_t from, uint64_t t);
size_t np_iv_lower_from(const struct np_dir *d, size_t from, uint64_t t);

/* LOD: build over the arrays, and aggregate an index range [i0, i1). */
int np_lod_build(struct np_dir *d);
int np_lod_add_pkt(struct np_dir *d);	/* the last packet added to d->pkt */
void np_lod_free(struct np_dir *d);
void np_pagg_empty(struct np_pagg *a);
void np_pagg_add_pkt(struct np_pagg *a, const struct np_pkt *p);
void np_pagg_merge(struct np_pagg *a, const struct np_pagg *b);
void np_pkt_range(const struct np_dir *d, size_t i0, size_t i1, struct np_pagg *out);
void np_magg_empty(struct np_magg *a);
void np_msg_range(const struct np_dir *d, size_t i0, size_t i1, struct np_magg *out);

/* The state of a direction at time t (XSTATE_IDLE when no interval). */
int np_state_at(const struct np_dir *d, uint64_t t);

/* Statistics of a time span [t0, t1) of one connection. */
struct np_count { uint32_t name; uint32_t ext; uint64_t n; };
struct np_region {
	uint64_t duration;		/* ns */
	uint64_t bytes[2];		/* payload per direction */
	uint64_t packets[2];
	double bandwidth[2];		/* bytes per second */
	uint64_t state[2][4];		/* ns per enum xstate per direction */
	bool have_state;
	struct np_count *requests;	/* by name, most frequent first */
	size_t nrequests;
	uint64_t messages[2];
	/* Inputs made inside the span, those with a visible response, and
	   the response times' percentiles (nearest rank) over those. */
	uint64_t inputs, responded;
	uint64_t response_p50, response_p95;	/* ns; 0 when none responded */
};
int np_region_stats(const struct np_model *m, const struct np_conn *c, uint64_t t0,
		    uint64_t t1, struct np_region *out);
void np_region_free(struct np_region *r);

#endif
