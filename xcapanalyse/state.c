/*
 * state.c — the state model; see state.h for what it computes.
 *
 * Every classified interval ends at the packet being processed, so it is
 * decided when that packet is seen and never later.  Intervals go into a
 * timeline per connection and direction (and one per direction for all
 * connections together) that keeps them disjoint, resolving overlaps by
 * precedence, and folds them into totals once no later interval can reach
 * back to them.  That is what keeps memory flat over a long trace.
 *
 * Belongs to: libanalyse, the analysis layer's library, which netplot links too (xcapanalyse/).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conns.h"
#include "grow.h"
#include "state.h"

/* ---- timelines ---- */

struct tl_entry {
	uint64_t a, b;		/* [a, b) */
	uint8_t state;
};

/* Disjoint intervals sorted by time, the older ones folded into totals.
   The precedence of states is their order in enum xstate. */
struct timeline {
	struct tl_entry *v;
	size_t n, cap;
	uint64_t folded[XSTATE_N];
};

/* Entries a timeline keeps before it tries to fold, and the most it keeps
   at all: past that the oldest are folded even if a later interval could
   still overlap them (which then counts that overlap twice). */
enum { TL_FOLD_AT = 64, TL_MAX = 1 << 16 };

static void tl_free(struct timeline *t)
{
	free(t->v);
	memset(t, 0, sizeof *t);
}

static int tl_reserve(struct timeline *t, size_t more)
{
	return GROW(t->v, t->cap, t->n + more);
}

/* Fold every entry that ends at or before horizon, or the oldest ones
   beyond keep entries.  Past keep it folds down to half of keep, so that
   the memmove is paid once per keep/2 new entries rather than once per
   entry: an idle connection holds the All horizon back for good, and
   folding one entry at a time made a 10 M packet trace take minutes. */
static void tl_fold(struct timeline *t, uint64_t horizon, size_t keep)
{
	size_t k = 0, limit = t->n > keep ? keep / 2 : keep;
	while (k < t->n && (t->v[k].b <= horizon || t->n - k > limit)) {
		t->folded[t->v[k].state] += t->v[k].b - t->v[k].a;
		k++;
	}
	if (k) {
		memmove(t->v, t->v + k, (t->n - k) * sizeof *t->v);
		t->n -= k;
	}
}

/* Add [a, b) in state s: where it overlaps what is there, the higher
   state wins. */
static int tl_add(struct timeline *t, uint64_t a, uint64_t b, uint8_t s)
{
	if (a >= b)
		return 0;
	/* The overlapped entries are [i0, i1): almost always at the end. */
	size_t i1 = t->n;
	while (i1 > 0 && t->v[i1 - 1].a >= b)
		i1--;
	size_t i0 = i1;
	while (i0 > 0 && t->v[i0 - 1].b > a)
		i0--;

	/* The replacement of [i0, i1) and the new interval: at most two
	   pieces per old entry (its parts outside [a,b) become separate
	   pieces only at the two ends) plus the gaps between them. */
	size_t old = i1 - i0;
	struct tl_entry stack_buf[8], *piece = stack_buf;
	size_t max_pieces = 2 * old + 3;
	if (max_pieces > sizeof stack_buf / sizeof stack_buf[0] &&
	    !(piece = malloc(max_pieces * sizeof *piece)))
		return -1;
	size_t np = 0;
	uint64_t at = a;
#define PUT(x, y, st) do { \
		if ((x) < (y)) { \
			if (np && piece[np - 1].b == (x) && piece[np - 1].state == (st)) \
				piece[np - 1].b = (y); \
			else \
				piece[np++] = (struct tl_entry){ (x), (y), (st) }; \
		} \
	} while (0)
	for (size_t i = i0; i < i1; i++) {
		struct tl_entry e = t->v[i];
		if (e.a < a)
			PUT(e.a, a, e.state);
		uint64_t ia = e.a > a ? e.a : a, ib = e.b < b ? e.b : b;
		PUT(at, ia, s);		/* the gap before this entry */
		PUT(ia, ib, e.state > s ? e.state : s);
		at = ib;
		if (e.b > b)
			PUT(b, e.b, e.state);
	}
	PUT(at, b, s);		/* the part after the last entry */
#undef PUT

	int rc = 0;
	if (np > old && tl_reserve(t, np - old) < 0) {
		rc = -1;
	} else {
		memmove(t->v + i0 + np, t->v + i1, (t->n - i1) * sizeof *t->v);
		memcpy(t->v + i0, piece, np * sizeof *piece);
		t->n = t->n - old + np;
	}
	if (piece != stack_buf)
		free(piece);
	return rc;
}

static void tl_totals(const struct timeline *t, uint64_t out[XSTATE_N])
{
	memcpy(out, t->folded, sizeof t->folded);
	for (size_t i = 0; i < t->n; i++)
		out[t->v[i].state] += t->v[i].b - t->v[i].a;
}

/* ---- per connection ---- */

/* What the capture shows of one direction's sender. */
struct sender {
	bool data_seen;
	uint64_t last_data_ts;	/* its last data segment */
	uint32_t nxt;		/* just past the highest byte sent */
	bool una_known;
	uint32_t una;		/* highest acknowledgement from the peer */
	uint32_t edge;		/* una + the peer's window: the send limit */
	uint32_t mss;		/* largest payload seen */
	bool last_full;		/* the last data segment was of that size */
	/* The last pure ACK from the peer that could have released data. */
	bool elicit;
	uint64_t elicit_ts;
	bool elicit_closed;	/* the window was full before it */
	/* One outstanding data segment whose acknowledgement is timed. */
	bool sample;
	uint32_t sample_end;
	uint64_t sample_ts;
	uint64_t min_ack_delay;	/* UINT64_MAX until measured */
};

/* A reply-bearing request (or the connection setup) not yet answered. */
struct out_req {
	uint64_t seq, ts;
	bool unsure;			/* its number is not confirmed (XMSG_F_UNCERTAIN) */
	bool sync_after;		/* see struct xstate_wait */
	uint64_t after_seq;
	char after_name[64], after_ext[32];
	char name[64], ext[32], detail[XMSG_DETAIL_MAX];
};

/* A wait found in the current silence, decided when the silence ends. */
struct found_wait {
	struct out_req r;		/* the earliest request answered in its burst */
	struct out_req last;		/* and the last */
	uint64_t start, reply_ts, queued;
	bool error, split;
	/* A request or answer in it has a number the decoder could not
	   confirm (a capture begun mid-connection, requests lost): which
	   request the answer is for is a guess, so the wait is not counted. */
	bool unsure;
};

/* Requests outstanding a connection keeps track of at most (a client
   pipelining more loses the waits on the newest), and waits one silence
   holds before the oldest are decided early. */
enum { OUT_MAX = 4096, FOUND_MAX = 16 };

struct cstate {
	struct xstate_conn info;
	int name_rank;			/* of info.name: xrec_name_takes */
	struct sender h[2];
	/* Handshake times as the capture saw them. */
	uint64_t syn_ts, synack_ts;
	bool side_fixed;
	/* Reply-bearing requests outstanding, oldest first: a ring. */
	struct out_req *out;
	size_t out_head, out_n, out_cap;
	/* The last request: the void request a GetInputFocus may sync after. */
	bool last_void;
	uint64_t last_seq, last_ts;
	char last_name[64], last_ext[32];
	/* The silence since the client's last new data: the waits found in
	   it, and when its last answer came. */
	struct found_wait found[FOUND_MAX];
	size_t n_found;
	bool answered;
	uint64_t last_answer_ts;
	/* The request direction's run of blocked intervals that ends at its
	   last data, [blocked_from, blocked_to): its own output queued. */
	uint64_t blocked_from, blocked_to;
	struct timeline tl[2];
};

struct xstate_model {
	struct xstate_options opt;
	struct xconns conns;		/* of struct cstate */
	bool started;
	uint64_t t0;			/* first packet */
	uint64_t range_a, range_b;	/* absolute */
	struct xstate_conn all;
	struct timeline all_tl[2];
	uint64_t drops;
	struct {
		void (*fn)(void *, const struct xstate_interval *);
		void *ctx;
	} on_interval[XSTATE_LISTENERS_MAX];
	struct {
		void (*fn)(void *, const struct xstate_wait *);
		void *ctx;
	} on_wait[XSTATE_LISTENERS_MAX];
	size_t n_on_interval, n_on_wait;
	bool oom;
};

static const char *const state_names[XSTATE_N] = {
	"idle", "block_send", "block_recv", "block_reply",
};

const char *xstate_name(enum xstate s)
{
	return (unsigned)s < XSTATE_N ? state_names[s] : "?";
}

void xstate_options_default(struct xstate_options *opt)
{
	memset(opt, 0, sizeof *opt);
	opt->elicit_slack = 200000;	/* 0.2 ms */
	opt->elicit_fraction = 0.25;
	opt->elicit_min_flight = 2896;	/* two Ethernet segments */
	opt->capture_side = XSIDE_AUTO;
	opt->backlog = true;
	opt->wait_rule = XWAIT_EARLIEST;
	opt->split_min = 3000000;	/* 3 ms */
	opt->split_fraction = 0.5;
	opt->split_max = 30000000;	/* 30 ms */
	opt->range_start = 0;
	opt->range_end = UINT64_MAX;
}

struct xstate_model *xstate_new(const struct xstate_options *opt)
{
	struct xstate_model *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	if (opt)
		m->opt = *opt;
	else
		xstate_options_default(&m->opt);
	xconns_init(&m->conns, sizeof (struct cstate));
	return m;
}

void xstate_free(struct xstate_model *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->conns.n; i++) {
		struct cstate *c = xconns_at(&m->conns, i);
		tl_free(&c->tl[0]);
		tl_free(&c->tl[1]);
		free(c->out);
	}
	xconns_free(&m->conns);
	tl_free(&m->all_tl[0]);
	tl_free(&m->all_tl[1]);
	free(m);
}

int xstate_on_interval(struct xstate_model *m,
		       void (*fn)(void *ctx, const struct xstate_interval *iv), void *ctx)
{
	if (!fn || m->n_on_interval == XSTATE_LISTENERS_MAX)
		return -1;
	m->on_interval[m->n_on_interval].fn = fn;
	m->on_interval[m->n_on_interval++].ctx = ctx;
	return 0;
}

int xstate_on_wait(struct xstate_model *m,
		   void (*fn)(void *ctx, const struct xstate_wait *w), void *ctx)
{
	if (!fn || m->n_on_wait == XSTATE_LISTENERS_MAX)
		return -1;
	m->on_wait[m->n_on_wait].fn = fn;
	m->on_wait[m->n_on_wait++].ctx = ctx;
	return 0;
}

static struct cstate *conn_of(struct xstate_model *m, uint32_t id, bool create)
{
	struct cstate *c = xconns_get(&m->conns, id);
	if (c || !create || id == 0 || id > XCONNS_ID_MAX)
		return c;
	if (!(c = xconns_add(&m->conns, id))) {
		m->oom = true;
		return NULL;
	}
	c->info.id = id;
	c->info.side = m->opt.capture_side == XSIDE_AUTO ? XSIDE_CLIENT : m->opt.capture_side;
	c->h[0].min_ack_delay = c->h[1].min_ack_delay = UINT64_MAX;
	c->info.rtt = m->opt.rtt;
	return c;
}

static inline int32_t sdiff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

/* The earliest time a later interval of c can start at. */
static uint64_t conn_horizon(const struct cstate *c, int dir)
{
	/* Waits start at the request direction's last data or later. */
	return c->h[dir].data_seen ? c->h[dir].last_data_ts : c->info.first;
}

static void all_fold(struct xstate_model *m, int dir)
{
	uint64_t h = UINT64_MAX;
	for (size_t i = 0; i < m->conns.n; i++) {
		uint64_t ch = conn_horizon(xconns_at(&m->conns, i), dir);
		if (ch < h)
			h = ch;
	}
	tl_fold(&m->all_tl[dir], h, TL_MAX);
}

/* Classify [a, b) of a direction of c. */
static void classify(struct xstate_model *m, struct cstate *c, int dir, uint64_t a, uint64_t b,
		     enum xstate s)
{
	if (a < m->range_a)
		a = m->range_a;
	if (b > m->range_b)
		b = m->range_b;
	if (a >= b)
		return;
	if (tl_add(&c->tl[dir], a, b, (uint8_t)s) < 0 || tl_add(&m->all_tl[dir], a, b, (uint8_t)s) < 0)
		m->oom = true;
	if (c->tl[dir].n > TL_FOLD_AT)
		tl_fold(&c->tl[dir], conn_horizon(c, dir), TL_MAX);
	if (m->all_tl[dir].n > 64 * TL_FOLD_AT)
		all_fold(m, dir);
	if (m->n_on_interval) {
		struct xstate_interval iv = { .conn = c->info.id, .dir = (uint8_t)dir,
					      .state = (uint8_t)s, .start = a, .end = b };
		for (size_t i = 0; i < m->n_on_interval; i++)
			m->on_interval[i].fn(m->on_interval[i].ctx, &iv);
	}
}

/* The delay between an acknowledgement and the data it elicits, as the
   capture sees it: none beside the sender, one round trip beside the
   receiver. */
static uint64_t elicit_delay(const struct cstate *c, int dir)
{
	bool beside_sender = (c->info.side == XSIDE_CLIENT) == (dir == XDIR_C2S);
	return beside_sender ? 0 : c->info.rtt;
}

static void update_rtt(const struct xstate_model *m, struct cstate *c)
{
	if (m->opt.rtt)
		return;
	/* Beside one end, one direction's data is acknowledged after a round
	   trip and the other's at once (give or take delayed ACKs), so the
	   sum of the smallest delays is the round trip from either end. */
	uint64_t d0 = c->h[0].min_ack_delay, d1 = c->h[1].min_ack_delay;
	if (d0 == UINT64_MAX && d1 == UINT64_MAX)
		return;
	uint64_t by_acks = (d0 == UINT64_MAX ? 0 : d0) + (d1 == UINT64_MAX ? 0 : d1);
	/* The handshake's round trip may include a first packet's own delay
	   (a neighbour lookup, a SYN queued behind others: 100 ms where the
	   path takes 40 was seen), which would make the split gap of the
	   waits longer than the gaps between a flush's replies.  Both are a
	   round trip plus some delay, so the smaller is the better; but only
	   once both directions have been timed (one alone is from beside its
	   sender, near zero), and by more than the slack the timing itself
	   has (on a loopback both are a few microseconds). */
	if (c->info.saw_handshake) {
		if (d0 != UINT64_MAX && d1 != UINT64_MAX && by_acks + m->opt.elicit_slack < c->info.rtt)
			c->info.rtt = by_acks;
		return;
	}
	c->info.rtt = by_acks;
}

static void handshake(struct xstate_model *m, struct cstate *c, const struct xrec_pkt *p)
{
	if ((p->tcp_flags & XTCP_SYN) && !(p->tcp_flags & XTCP_ACK) && p->dir == XDIR_C2S) {
		c->syn_ts = p->ts;
	} else if ((p->tcp_flags & XTCP_SYN) && (p->tcp_flags & XTCP_ACK) && p->dir == XDIR_S2C) {
		c->synack_ts = p->ts;
	} else if (p->dir == XDIR_C2S && c->syn_ts && c->synack_ts && !c->info.saw_handshake &&
		   (p->tcp_flags & XTCP_ACK) && p->ts >= c->synack_ts && c->synack_ts >= c->syn_ts) {
		/* Beside the client the SYN/ACK comes a round trip after the SYN
		   and the ACK at once; beside the server the other way round. */
		uint64_t to_synack = c->synack_ts - c->syn_ts, to_ack = p->ts - c->synack_ts;
		c->info.saw_handshake = true;
		if (!m->opt.rtt)
			c->info.rtt = p->ts - c->syn_ts;
		/* Within the slack of each other, both ends look alike (loopback):
		   keep the default. */
		if (m->opt.capture_side == XSIDE_AUTO && c->info.rtt > m->opt.elicit_slack)
			c->info.side = to_synack >= to_ack ? XSIDE_CLIENT : XSIDE_SERVER;
	}
}

/* ---- the requests waited on ---- */

static struct out_req *out_front(struct cstate *c)
{
	return c->out_n ? &c->out[c->out_head] : NULL;
}

static void out_pop(struct cstate *c)
{
	if (!c->out_n)
		return;
	c->out_head = (c->out_head + 1) % c->out_cap;
	c->out_n--;
}

/* A slot at the back of the ring, or NULL when full (or out of memory). */
static struct out_req *out_push(struct xstate_model *m, struct cstate *c)
{
	if (c->out_n == c->out_cap) {
		if (c->out_cap >= OUT_MAX)
			return NULL;
		size_t cap = c->out_cap ? c->out_cap * 2 : 8;
		struct out_req *v = malloc(cap * sizeof *v);
		if (!v) {
			m->oom = true;
			return NULL;
		}
		for (size_t i = 0; i < c->out_n; i++)
			v[i] = c->out[(c->out_head + i) % c->out_cap];
		free(c->out);
		c->out = v;
		c->out_cap = cap;
		c->out_head = 0;
	}
	return &c->out[(c->out_head + c->out_n++) % c->out_cap];
}

/* Beside the server, the client has an answer a round trip after the
   capture saw it leave (half a round trip for it to arrive, half for
   what the client then sends to come back), and its next data shows up
   here no sooner: the wait ends at the answer plus the round trip, but
   never after `bound', the client's next data, so that what is left of
   the gap beyond the round trip stays the client's own time (Idle).
   Without a round trip known, nothing bounds the client's own time, and
   the wait ends at the answer, as beside the client. */
static uint64_t client_had(const struct cstate *c, uint64_t ts, uint64_t bound)
{
	if (c->info.side != XSIDE_SERVER || !c->info.rtt || bound <= ts)
		return ts;
	return bound - ts < c->info.rtt ? bound : ts + c->info.rtt;
}

/* Decide a wait found, at `bound' (the client's data that ended its
   silence, or the last packet seen): its Block Reply, and the report
   when its request falls in the range. */
static void commit_wait(struct xstate_model *m, struct cstate *c, const struct found_wait *f,
			uint64_t bound)
{
	/* A wait opened by a gap began when the client had the answer
	   before the gap. */
	uint64_t start = f->split ? client_had(c, f->start, bound) : f->start;
	uint64_t end = client_had(c, f->reply_ts, bound);
	if (f->unsure) {
		/* Counted apart, never as Block Reply or a round trip. */
		if (f->r.ts >= m->range_a && f->r.ts < m->range_b) {
			c->info.unsure_waits++;
			c->info.unsure_time += end - start;
		}
		return;
	}
	classify(m, c, XDIR_C2S, start, end, XSTATE_BLOCK_REPLY);
	if (f->r.ts < m->range_a || f->r.ts >= m->range_b)
		return;
	c->info.waits++;
	if (m->n_on_wait) {
		const struct out_req *n = m->opt.wait_rule == XWAIT_LATEST ? &f->last : &f->r;
		struct xstate_wait w = {
			.conn = c->info.id, .seq = n->seq,
			.burst_first = f->r.seq, .burst_last = f->last.seq, .request_ts = n->ts,
			.start = start, .reply_ts = f->reply_ts, .end = end, .queued = f->queued,
			.error = f->error, .split = f->split,
			.sync_after = n->sync_after, .after_seq = n->after_seq,
			.after_name = n->after_name, .after_ext = n->after_ext,
			.name = n->name, .ext = n->ext, .detail = n->detail,
			.proto = c->info.proto,
		};
		for (size_t i = 0; i < m->n_on_wait; i++)
			m->on_wait[i].fn(m->on_wait[i].ctx, &w);
	}
}

/* The client's silence ended: by its own new data (the waits found in it
   happened), or by data the network had held back (released).  A client
   whose output the network holds back may have been writing all along:
   then only a wait on the last request before the silence is claimed (as
   for a client that does not pipeline, where Block Reply wins over Block
   Send), not one on an earlier request answered while its later output
   was still going out. */
static void end_silence(struct xstate_model *m, struct cstate *c, bool released, uint64_t ts)
{
	for (size_t i = 0; i < c->n_found; i++)
		if (!released || c->found[i].last.seq == c->last_seq)
			commit_wait(m, c, &c->found[i], ts);
	c->n_found = 0;
	c->answered = false;
	if (m->opt.wait_rule == XWAIT_LAST)
		c->out_n = 0;		/* only the last request before a silence counts */
}

/* A reply, error or setup answer for request seq came at ts.
 *
 * The first answer of a silence to a request outstanding when it began
 * opens a wait on that request: the earliest the client had no reply to.
 * Answers that follow within the split gap extend it (the client may
 * have waited for them too; it went on only after them, and a passive
 * capture cannot tell a client that waited on the first of a burst from
 * one that waited on the last); an answer after a longer gap opens a wait
 * of its own, from the answer before the gap. */
static void answer(struct xstate_model *m, struct cstate *c, uint64_t seq, uint64_t ts, bool error,
		   bool unsure)
{
	const struct sender *req = &c->h[XDIR_C2S];
	uint64_t since = c->last_answer_ts;
	c->answered = true;
	c->last_answer_ts = ts;
	struct found_wait *cur = c->n_found ? &c->found[c->n_found - 1] : NULL;
	/* A request with several replies keeps the client waiting until the
	   last. */
	if (cur && cur->last.seq == seq) {
		cur->reply_ts = ts;
		cur->error |= error;
		cur->unsure |= unsure;
		return;
	}
	/* An error for the void request a GetInputFocus syncs after answers
	   the check (xcb_request_check returns on it). */
	struct out_req *r = out_front(c);
	if (error && r && r->sync_after && r->after_seq == seq)
		seq = r->seq;
	/* Replies come in order: requests before seq still outstanding were
	   never answered in the capture (a hole). */
	while ((r = out_front(c)) && r->seq < seq)
		out_pop(c);
	if (!r || r->seq != seq || !req->data_seen)
		return;
	uint64_t start, queued = 0;
	bool split = false;
	if (!cur) {
		start = req->last_data_ts;
		if (c->blocked_to == start && c->blocked_from < start)
			queued = start - c->blocked_from;
	} else {
		/* The RTT's fraction, within [split_min, split_max]: how long
		   a client works on a reply does not grow with the RTT. */
		uint64_t gap = m->opt.split_min;
		uint64_t by_rtt = (uint64_t)(m->opt.split_fraction * (double)c->info.rtt);
		if (by_rtt > gap)
			gap = by_rtt;
		if (gap > m->opt.split_max)
			gap = m->opt.split_max > m->opt.split_min ? m->opt.split_max : m->opt.split_min;
		if (m->opt.split_fraction <= 0 || ts - since < gap) {
			cur->reply_ts = ts;
			cur->last = *r;
			cur->unsure |= unsure || r->unsure;
			out_pop(c);
			return;
		}
		if (client_had(c, cur->reply_ts, UINT64_MAX) - cur->start < gap) {
			/* The wait before the gap was over too soon to show the
			   client blocked at all (replies to an earlier flush that
			   came just after it sent): the client waited on this one
			   from the start. */
			cur->r = cur->last = *r;
			cur->reply_ts = ts;
			cur->error = error;
			cur->unsure = unsure || r->unsure;
			out_pop(c);
			return;
		}
		start = since;
		split = true;
	}
	if (start < r->ts)
		start = r->ts;
	if (c->n_found == FOUND_MAX) {
		/* Decide the oldest now rather than grow. */
		commit_wait(m, c, &c->found[0], ts);
		memmove(c->found, c->found + 1, (FOUND_MAX - 1) * sizeof *c->found);
		c->n_found--;
	}
	struct found_wait *f = &c->found[c->n_found++];
	f->r = f->last = *r;
	f->start = start;
	f->reply_ts = ts;
	f->queued = queued;
	f->error = error;
	f->split = split;
	f->unsure = unsure || r->unsure;
	out_pop(c);
}

/* snprintf(dst, size, "%s", src) without the formatting machinery, which
   cost more than the rest of a request's bookkeeping: the same bytes,
   cut at size - 1. */
static void copy_str(char *dst, size_t size, const char *src)
{
	if (!src)
		src = "(null)";		/* as glibc's printf writes it */
	size_t n = strnlen(src, size - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* A request of the client: remember it if it wants an answer. */
static void request(struct xstate_model *m, struct cstate *c, const struct xrec_msg *g)
{
	bool wants = (g->flags & XMSG_F_WANTS_REPLY) || g->kind == XMSG_SETUP;
	if (m->opt.wait_rule == XWAIT_LAST)
		c->out_n = 0;		/* only the last request counts */
	if (wants) {
		struct out_req *r = out_push(m, c);
		if (r) {
			r->seq = g->seq;
			r->ts = g->ts;
			r->unsure = g->flags & XMSG_F_UNCERTAIN;
			copy_str(r->name, sizeof r->name, g->name);
			copy_str(r->ext, sizeof r->ext, g->ext);
			copy_str(r->detail, sizeof r->detail, g->detail);
			r->sync_after = c->last_void && c->last_seq + 1 == g->seq && c->last_ts == g->ts &&
				    !g->ext[0] && strcmp(g->name, "GetInputFocus") == 0;
			if (r->sync_after) {
				r->after_seq = c->last_seq;
				copy_str(r->after_name, sizeof r->after_name, c->last_name);
				copy_str(r->after_ext, sizeof r->after_ext, c->last_ext);
			} else {
				r->after_seq = 0;
				r->after_name[0] = r->after_ext[0] = '\0';
			}
		}
	}
	c->last_void = !wants;
	c->last_seq = g->seq;
	c->last_ts = g->ts;
	copy_str(c->last_name, sizeof c->last_name, g->name);
	copy_str(c->last_ext, sizeof c->last_ext, g->ext);
}

static void start(struct xstate_model *m, uint64_t ts)
{
	m->started = true;
	m->t0 = ts;
	m->range_a = ts + m->opt.range_start;
	m->range_b = m->opt.range_end == UINT64_MAX || ts + m->opt.range_end < ts
			     ? UINT64_MAX : ts + m->opt.range_end;
}

static bool selected(const struct xstate_model *m, uint32_t conn)
{
	if (!m->opt.n_only)
		return true;
	for (size_t i = 0; i < m->opt.n_only; i++)
		if (m->opt.only[i] == conn)
			return true;
	return false;
}

static void packet(struct xstate_model *m, const struct xrec_pkt *p)
{
	if (!m->started)
		start(m, p->ts);
	if (!selected(m, p->conn))
		return;
	struct cstate *c = conn_of(m, p->conn, true);
	if (!c)
		return;
	if (!m->all.first)
		m->all.first = p->ts;
	if (!c->info.first)
		c->info.first = p->ts;
	if (p->ts > c->info.last)
		c->info.last = p->ts;
	if (p->ts > m->all.last)
		m->all.last = p->ts;
	handshake(m, c, p);

	int dir = p->dir & 1, peer = !dir;
	struct sender *me = &c->h[dir], *other = &c->h[peer];
	bool syn_fin_rst = p->tcp_flags & (XTCP_SYN | XTCP_FIN | XTCP_RST);

	/* As an acknowledgement of the peer's data. */
	if (p->tcp_flags & XTCP_ACK) {
		bool known = other->data_seen && other->una_known;
		bool advanced = !other->una_known || sdiff(p->ack, other->una) > 0;
		/* A sender the network holds back has at least a congestion
		   window's minimum in flight; a few bytes in flight were not
		   what kept more from being sent. */
		bool had_in_flight = known && sdiff(other->nxt, other->una) >=
						      (int32_t)m->opt.elicit_min_flight;
		uint32_t edge = p->ack + p->win;
		bool opened = known && sdiff(edge, other->edge) > 0;
		/* Full when not even a segment as large as the biggest yet
		   would fit in what the window leaves. */
		bool was_closed = known &&
				  sdiff(other->edge, other->nxt) < (int32_t)(other->mss ? other->mss : 1);
		if (other->data_seen && p->len == 0 && !syn_fin_rst &&
		    ((advanced && had_in_flight) || (was_closed && opened))) {
			other->elicit = true;
			other->elicit_ts = p->ts;
			other->elicit_closed = was_closed;
		}
		if (other->sample && sdiff(p->ack, other->sample_end) >= 0) {
			uint64_t d = p->ts - other->sample_ts;
			if (d < other->min_ack_delay)
				other->min_ack_delay = d;
			other->sample = false;
			update_rtt(m, c);
		}
		if (advanced) {
			other->una = p->ack;
			other->una_known = true;
		}
		if (!other->una_known || advanced || sdiff(edge, other->edge) > 0)
			other->edge = edge;
	}

	if (p->len == 0)
		return;

	/* As data.  What the peer sends next may answer these bytes rather
	   than an acknowledgement before them. */
	other->elicit = false;
	uint32_t seq = p->seq + ((p->tcp_flags & XTCP_SYN) ? 1 : 0);
	uint32_t end = seq + p->len;
	bool is_new = !me->data_seen || sdiff(end, me->nxt) > 0;
	bool full = p->len >= me->mss;
	bool blocked = false;	/* held back since the direction's last data */
	if (me->data_seen && me->elicit && p->ts >= me->elicit_ts) {
		uint64_t expect = elicit_delay(c, dir);
		uint64_t tol = m->opt.elicit_slack + (uint64_t)(m->opt.elicit_fraction * (double)expect);
		uint64_t after = p->ts - me->elicit_ts;
		if (after + tol >= expect && after <= expect + tol) {
			classify(m, c, dir, me->last_data_ts, p->ts,
				 me->elicit_closed ? XSTATE_BLOCK_RECV : XSTATE_BLOCK_SEND);
			blocked = true;
		} else if (after > expect + tol)
			me->elicit = false;
	}
	/* The client's last segment of a backlog is short (the rest of what
	   was queued, its request often among it): held back as the full
	   ones before it were, when the one before it was and it follows
	   at the backlog's pace (the ACK clock releases many segments a
	   round trip: within a quarter of one).  Later, it may be output
	   written after the backlog drained: idle, as data not elicited is. */
	bool backlog_tail = !full && dir == XDIR_C2S && c->blocked_to &&
			    c->blocked_to == me->last_data_ts && c->info.rtt &&
			    p->ts - me->last_data_ts <= c->info.rtt / 4;
	if (m->opt.backlog && me->data_seen && (full || backlog_tail) && me->last_full && is_new &&
	    me->una_known && sdiff(me->nxt, me->una) > 0) {
		/* A backlog: full segments one after the other while earlier
		   ones are unacknowledged.  A sender whose congestion control
		   paces (BBR), or whose own interface is the bottleneck, sends
		   them without waiting for acknowledgements, so no ACK elicits
		   them; it was held back all the same. */
		bool closed = sdiff(me->edge, me->nxt) < (int32_t)me->mss;
		classify(m, c, dir, me->last_data_ts, p->ts,
			 closed ? XSTATE_BLOCK_RECV : XSTATE_BLOCK_SEND);
		blocked = true;
	}
	if (dir == XDIR_C2S && blocked && me->last_data_ts < p->ts) {
		/* The run of the client's own output held back goes on. */
		if (c->blocked_to != me->last_data_ts)
			c->blocked_from = me->last_data_ts;
		c->blocked_to = p->ts;
	}
	if (p->len > me->mss)
		me->mss = p->len;
	me->last_full = full;
	if (is_new) {
		me->nxt = end;
		if (!me->sample && !(p->events & (XPKT_RETRANS | XPKT_OVERLAP))) {
			me->sample = true;
			me->sample_end = end;
			me->sample_ts = p->ts;
		}
		/* New bytes from the client end its silence. */
		if (dir == XDIR_C2S)
			end_silence(m, c, blocked, p->ts);
	} else if (me->sample && sdiff(end, me->sample_end) >= 0) {
		me->sample = false;	/* retransmitted: Karn, do not time it */
	}
	if (!me->una_known) {
		/* No acknowledgement seen yet (a capture begun mid-stream):
		   take the window as open. */
		me->una = seq;
		me->una_known = true;
		me->edge = seq + 65535;
	}
	me->data_seen = true;
	me->last_data_ts = p->ts;
}

bool xstate_uses_message(uint8_t dir, uint8_t kind)
{
	if (dir == XDIR_C2S)
		return kind == XMSG_REQUEST || kind == XMSG_SETUP;
	return dir == XDIR_S2C && (kind == XMSG_REPLY || kind == XMSG_ERROR || kind == XMSG_SETUP);
}

static void message(struct xstate_model *m, const struct xrec_msg *g)
{
	struct cstate *c = selected(m, g->conn) ? conn_of(m, g->conn, false) : NULL;
	if (!c)
		return;
	if (!xstate_uses_message(g->dir, g->kind))
		return;
	if (g->dir == XDIR_C2S)
		request(m, c, g);
	else
		answer(m, c, g->seq, g->ts, g->kind == XMSG_ERROR, g->flags & XMSG_F_UNCERTAIN);
}

/* A decoder's note read for what the delay table says: bytes it could
   not decode, and a security type that leaves the rest opaque.  The
   decoders' phrases (protocols/x11.c, protocols/rfb.c): "could not decode
   N bytes ...", "stream ended with N bytes not decoded", and RFB's totals
   "N bytes not framed", "N bytes after the security handshake not decoded
   (opaque)", and both decoders' "... the capture began mid-connection". */
static void decoder_note(struct cstate *c, const char *text)
{
	unsigned long long n;
	int used = 0;
	if (sscanf(text, "could not decode %llu bytes%n", &n, &used) == 1 && used) {
		c->info.undecoded += n;
	} else if (sscanf(text, "stream ended with %llu bytes not decoded%n", &n, &used) == 1 && used) {
		c->info.undecoded += n;
	} else if (sscanf(text, "%llu bytes not framed%n", &n, &used) == 1 && used && !text[used]) {
		c->info.undecoded += n;
	} else if (sscanf(text, "%llu bytes after the security handshake not decoded%n", &n, &used) == 1 &&
		   used) {
		c->info.opaque_bytes += n;
	} else if (strncmp(text, "security type ", 14) == 0 && !c->info.opaque[0]) {
		snprintf(c->info.opaque, sizeof c->info.opaque, "%s", text);
	} else if (strstr(text, "the capture began mid-connection")) {
		c->info.midway = true;
	}
}

int xstate_record(struct xstate_model *m, const struct xrec *rec)
{
	struct cstate *c;
	switch (rec->type) {
	case XREC_CONN:
		if (selected(m, rec->u.conn.id) && (c = conn_of(m, rec->u.conn.id, true))) {
			c->info.client = rec->u.conn.client;
			c->info.server = rec->u.conn.server;
			snprintf(c->info.proto, sizeof c->info.proto, "%s",
				 rec->u.conn.proto ? rec->u.conn.proto : "");
		}
		break;
	case XREC_PKT:
		packet(m, &rec->u.pkt);
		break;
	case XREC_MSG:
		message(m, &rec->u.msg);
		break;
	case XREC_NAME:
		if ((c = conn_of(m, rec->u.name.conn, false)) &&
		    xrec_name_takes(&c->name_rank, &rec->u.name))
			snprintf(c->info.name, sizeof c->info.name, "%s", rec->u.name.text);
		break;
	case XREC_GAP:
		/* Bytes the capture left out on purpose were not lost. */
		if (rec->u.gap.reason != XGAP_SKIPPED && (c = conn_of(m, rec->u.gap.conn, false))) {
			c->info.gaps++;
			c->info.gap_bytes += rec->u.gap.len;
			m->all.gaps++;
			m->all.gap_bytes += rec->u.gap.len;
		}
		break;
	case XREC_NOTE:
		if (rec->u.note.conn && (c = conn_of(m, rec->u.note.conn, false)))
			decoder_note(c, rec->u.note.text);
		break;
	case XREC_STATS:
		/* Statistics are cumulative: the last word counts. */
		m->drops = rec->u.stats.kernel_drop + rec->u.stats.if_drop;
		break;
	default:
		break;
	}
	return m->oom ? -1 : 0;
}

static uint64_t clipped_span(const struct xstate_model *m, uint64_t a, uint64_t b)
{
	if (a < m->range_a)
		a = m->range_a;
	if (b > m->range_b)
		b = m->range_b;
	return b > a ? b - a : 0;
}

static void totals(const struct xstate_model *m, struct xstate_conn *info,
		   const struct timeline tl[2])
{
	info->span = clipped_span(m, info->first, info->last);
	for (int d = 0; d < 2; d++) {
		tl_totals(&tl[d], info->time[d]);
		uint64_t busy = 0;
		for (int s = XSTATE_IDLE + 1; s < XSTATE_N; s++)
			busy += info->time[d][s];
		info->time[d][XSTATE_IDLE] = info->span > busy ? info->span - busy : 0;
	}
}

void xstate_finish(struct xstate_model *m)
{
	m->all.waits = m->all.unsure_waits = m->all.unsure_time = 0;
	for (size_t i = 0; i < m->conns.n; i++) {
		struct cstate *c = xconns_at(&m->conns, i);
		end_silence(m, c, false, c->info.last);
		totals(m, &c->info, c->tl);
		m->all.waits += c->info.waits;
		m->all.unsure_waits += c->info.unsure_waits;
		m->all.unsure_time += c->info.unsure_time;
	}
	totals(m, &m->all, m->all_tl);
	m->all.side = XSIDE_AUTO;
}

size_t xstate_conn_count(const struct xstate_model *m)
{
	return m->conns.n;
}

const struct xstate_conn *xstate_conn_at(const struct xstate_model *m, size_t i)
{
	return i < m->conns.n ? &((struct cstate *)xconns_at(&m->conns, i))->info : NULL;
}

const struct xstate_conn *xstate_conn_find(struct xstate_model *m, uint32_t id)
{
	struct cstate *c = conn_of(m, id, false);
	return c ? &c->info : NULL;
}

const struct xstate_conn *xstate_all(const struct xstate_model *m)
{
	return &m->all;
}

bool xstate_in_range(const struct xstate_model *m, uint64_t ts)
{
	if (!m->started)
		return m->opt.range_start == 0;
	return ts >= m->range_a && ts < m->range_b;
}

uint64_t xstate_capture_drops(const struct xstate_model *m)
{
	return m->drops;
}

uint64_t xstate_network_delay(const struct xstate_conn *c)
{
	return c->time[0][XSTATE_BLOCK_SEND] + c->time[1][XSTATE_BLOCK_SEND] +
	       c->time[0][XSTATE_BLOCK_RECV] + c->time[1][XSTATE_BLOCK_RECV] +
	       c->time[0][XSTATE_BLOCK_REPLY];
}
