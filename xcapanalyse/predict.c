/*
 * predict.c — a trace replayed over another link (predict.h).
 *
 * The structure.  Every packet that carries data (or a SYN or FIN) is a
 * write of its side; pure acknowledgements and retransmissions are
 * dropped, as the replay makes its own.  A write is ready
 *
 *   after the previous write of its side, by the same gap as in the trace
 *   (what the side did in between: its think time, and on the fast link
 *   of the trace, the transfers, which the replay redoes);
 *   server: after the client's write it answers arrived, by the same gap
 *   (the server's think time) — the write holding the request of its last
 *   reply, or, when it holds no reply, the client's last write before it;
 *   client: after the reply that ended a blocking round trip of the state
 *   model arrived, by the same gap (the client's think time), for the
 *   first write after the wait; its first data after the SYN/ACK came.
 *
 * whichever is later.  Writes of a new connection follow the trace's
 * previous packet by the same gap.
 *
 * The link.  Each side's TCP cuts a write into segments of the MSS and
 * sends them while fewer than its congestion window are unacknowledged;
 * each acknowledgement (one per segment, a round trip after it left)
 * grows the window by one segment (slow start, no loss: a prediction
 * for links whose queue holds the bursts).  The receiver acknowledges
 * every second full-sized segment and the last of a write (a delayed
 * ACK ended at once), and every segment in its quick-ACK mode (the first
 * 16 of a connection, and 16 after it was idle for a timeout).  Idle for longer than the
 * retransmission timeout (the round trip plus rto_min), the window halves
 * once per timeout, down to the initial window (Linux's
 * tcp_cwnd_restart).  Each direction of the link is a queue drained at
 * the rate, then the delay, as xcap-link does:
 *
 *   start = max(sent, end of the previous segment)
 *   end   = start + (payload + overhead) * 8 / rate
 *   arrival = end + delay
 *
 * Acknowledgements take the delay back and the time of their own
 * headers; they do not queue behind the data of the other direction.
 *
 * Coalescing.  A segment that cannot leave when its bytes are written
 * (the window is full) waits in the socket, and what the application
 * writes before it leaves joins it, up to the MSS, as Linux's
 * tcp_sendmsg appends to the last unsent buffer.  An X server that
 * writes a big reply in small pieces (GLX's GetFBConfigs: 840 writes of
 * 352 bytes) so sends full segments once the link holds it back, and
 * the receiver acknowledges every second of them.  Only where the X
 * connection is on the link itself: through a tunnel ssh makes its own
 * packets.
 *
 * The replayed packets, with the times a capture beside the client would
 * give them (the client's segments as they leave, the server's as they
 * arrive), and the trace's messages at the segment holding their last
 * byte, go through the state model in time order.
 *
 * Belongs to: libanalyse, the analysis layer's library, which netplot links too (xcapanalyse/).
 */
#include "config.h"

#include "predict.h"
#include "conns.h"
#include "grow.h"
#include "units.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NONE UINT32_MAX
/* waypipe 0.8 over TCP (--waypipe).  What the replay adds to the
   Wayland bytes of a local trace, each from waypipe's source (mainloop.c,
   waypipe.c) and checked against captures of it (tests/wayland-predict.sh):
   - framing: each write of the application or the compositor crosses as
     a PROTOCOL block, 4 bytes of size and type before it;
   - buffers: each wl_shm commit adds the BUFFER_DIFF the relay's note
     gives (xcap-run's wlaccount.c: waypipe's 8-byte-block diff of the
     damage against its copy, uncompressed, waypipe 0.8's default);
   - set-up: the application's side opens the TCP connection (the trace's
     own handshake) and writes its 16-byte connection token before the
     first block, with it: no round trip of its own;
   - acknowledgements: each side acknowledges the blocks it received
     (ACK_NBLOCKS, 8 bytes) with its next write, which is its program's
     answer (never on a timer); waypipe writes the acknowledgement first
     and the answer with a later pass (the replay: a write of its own,
     wp_ack_write).  When socat reads the two together they leave as one
     segment; when it reads the acknowledgement alone, it leaves alone
     and the answer, if shorter than a segment, waits in the socket
     (Nagle's algorithm: socat, the documented TCP transport, leaves it
     on) until the peer's TCP acknowledges those 8 bytes: a round trip,
     and the peer's delayed-ACK timer once the peer has answered data
     (Linux's interactive mode; before, it acknowledges at once).  That
     wait, 2 x 25 + 40 ms at 25 ms one way, is waypipe's dearest cost
     on a short session.  The short end of a longer answer waits a
     round trip (the peer's TCP acknowledges at once there).
     Which answers wait (wp_alone, the rule): between its two writes
     waypipe collects the updates of the buffers the answer's wl_shm
     commit names (advance_waymsg_progread, collect_update, then the
     diff tasks before the answer's block may follow), which gives
     socat time to read the acknowledgement alone: such an answer waits
     every time: 49 of 49 commits of a buffer sent before, in 12
     captures (8 of weston-terminal under sway with keys typed,
     wayland-predict-responses.sh; 4 of wl-frame-client under weston,
     wayland-predict.sh).  (A new pool's first commit goes with its
     OPEN_FILE block in the acknowledgement's write; the rule holds it
     too, a long answer whose short end alone may wait.)  Any other answer follows
     its acknowledgement within a pass of waypipe's loop, a few
     microseconds, a race with socat's read that nothing in the trace
     decides: the think time before the answer (0.2 to 150 ms) and the
     side separated nothing, and the share moves from session to
     session (14 of 28 in the wl-frame-client captures, 11 of 160 in
     the weston-terminal ones, 16 of 35 and 9 of 56 turns in earlier
     wl-frame-client runs at load 2 to 4 and 4 to 5).  The replay
     counts WAYPIPE_ACK_RACE of such a wait: half, the session whose
     span it moves (a key's response waits only for its redraw's
     commit).  Against the fixed half for every answer: key responses
     (wayland-predict-responses.sh) within 15 % in 4 of 4 figures, not
     0 of 4; wl-frame-client's 2 x 2 in 20 of 24 (three runs), not 22
     (its commits' short ends, held now, did not always wait).  The waits themselves
     are the model's to a few ms (2 x 5 ms and 2 x 25 ms, first turn,
     the peer not yet interactive; 53 to 58 and 91 to 99 ms after).
   - closing: the CLOSE blocks after the application's end are past the
     session's span, not counted.
   Left out: waypipe's own processing (copying a pool to its shadow, a
   few ms for a new 480 KB pool), a big diff split among its threads
   (12 bytes a piece), and, as for any connection here, the receiver's
   window, which on a 200 ms round trip holds a 480 KB buffer's upload
   to some 1 s where the replay takes 0.7. */
#define WAYPIPE_BLOCK_HEADER 4	/* a PROTOCOL block's size and type */
#define WAYPIPE_TOKEN 16	/* the connection token, before the first block */
#define WAYPIPE_ACK 8		/* ACK_NBLOCKS: its header and a count */
#define WAYPIPE_ACK_RACE 0.5	/* of the answers without a commit: held */
#define PREDICT_WIN (4u << 20)	/* the window acknowledgements advertise */
#define PREDICT_QUICKACKS 16	/* Linux's TCP_MAX_QUICKACKS */

/* A write: one data packet of the trace, or a SYN or FIN. */
struct write {
	uint64_t ts;
	uint64_t req_ts;		/* latest request its replies answer, 0 none */
	uint32_t conn;
	uint32_t seq, ack, len;
	uint32_t req_end;
	uint32_t oseq, olen;		/* in the trace (seq, len: on the link) */
	uint32_t zlen;			/* ssh -C: its compressed bytes */
	uint32_t prev;			/* previous write of its side */
	uint32_t cause;			/* write of the other side it waited for */
	uint8_t dir, flags;
	bool wp_ack;			/* waypipe: an ACK_NBLOCKS goes before it */
	bool wp_diff;			/* waypipe: it holds a wl_shm commit */
	bool input;			/* it carries an input (predict_tie_input) */
};

/* A message, at the write holding its last byte. */
struct pmsg {
	uint32_t w, off;
	uint32_t ord;			/* in the order read */		/* write, and bytes into it of the end */
	uint32_t conn;
	uint16_t flags, minor;
	uint8_t dir, kind, major;
	uint32_t name, ext;		/* interned */
	uint64_t seq, length;
};

struct orec;
struct scratch {
	struct orec *o;
	uint64_t *ts;			/* each record's time, beside it */
	uint32_t *next;
	size_t cap;
	uint64_t *ready, *arrive;
};

/* A packet for the added-delay experiment; its connection (ids stay
   below 1 << 24, conn_get) so that an input's response finds the
   packets that carry it. */
struct spkt {
	uint64_t ts;
	uint32_t wire;
	uint32_t conn : 31, dir : 1;
};

struct pconn {
	bool seen;
	struct xrec_conn rec;
	char proto[16];
	char name[128], name_source[16];
	int name_rank;			/* xrec_name_takes */
	uint32_t last_w[2];		/* while loading */
	uint64_t wait_reply;		/* while loading: a wait's reply to attach */
	uint32_t pending_cause;		/* while loading: the reply write it ended at */
	uint32_t tseq[2];		/* while loading: the tunnel's sequence numbers */
	bool tseq_set[2];
	/* while loading, waypipe: its token is sent; a side owes an
	   acknowledgement of the other's blocks */
	bool wp_token, wp_owed[2];
	/* Captured beside the server: the gap between a server write and
	   the client's write it caused holds the trace's round trip, which
	   is the link's, not the client's think time (ns; 0 beside the
	   client). */
	uint64_t far_rtt;
};

struct wait_end {
	uint32_t conn;
	uint64_t reply_ts;
};

struct predict_trace {
	struct predict_options opt;
	struct write *w;
	size_t nw, capw;
	struct pmsg *m;
	size_t nm, capm;
	struct spkt *p;
	size_t np, capp;
	/* Not the connection table (conns.h): the replay's streams and cursors are arrays by id too, sized by nc. */
	struct pconn *c;
	size_t nc;			/* ids 0..nc-1 */
	struct wait_end *waits;
	size_t nwaits, capwaits;
	char **str;
	size_t nstr, capstr;
	struct xstate_model *model;	/* the trace as it is */
	struct predict_result measured;
	uint64_t t0;			/* first record's time, for dilation */
	/* The replays' big buffers, kept from one link to the next: fresh
	   memory costs a page fault per page, more than the replay itself. */
	struct scratch *scratch;
	size_t unmeasured, with_data;	/* writes without a compressed size */
	bool oom;
};

/* Nearest integer, halves away from zero (no libm for the library's users). */
static int64_t round_ns(double x)
{
	return x < 0 ? -(int64_t)(-x + 0.5) : (int64_t)(x + 0.5);
}


/* Names and extensions of messages: few, kept once.  Index 0 is "". */
static uint32_t intern(struct predict_trace *t, const char *s)
{
	if (!s || !*s)
		return 0;
	for (size_t i = t->nstr; i-- > 1;)	/* recent ones first */
		if (strcmp(t->str[i], s) == 0)
			return (uint32_t)i;
	if (GROW(t->str, t->capstr, t->nstr + 1) < 0 ||
	    !(t->str[t->nstr] = strdup(s))) {
		t->oom = true;
		return 0;
	}
	return (uint32_t)t->nstr++;
}

void predict_options_default(struct predict_options *opt)
{
	memset(opt, 0, sizeof *opt);
	opt->mss = 1448;
	opt->initial_window = 10;
	opt->idle_restart = true;
	opt->rto_min = 200000000;
	opt->delack = 40000000;
	opt->ssh_forward = PREDICT_SSH_FORWARD;
	opt->overhead = 52;
	opt->dilation = 1;
	xstate_options_default(&opt->model);
}

static void wait_heard(void *ctx, const struct xstate_wait *w)
{
	struct predict_trace *t = ctx;
	if (GROW(t->waits, t->capwaits, t->nwaits + 1) < 0) {
		t->oom = true;
		return;
	}
	t->waits[t->nwaits++] = (struct wait_end){ w->conn, w->reply_ts };
}

struct predict_trace *predict_new(const struct predict_options *opt)
{
	struct predict_trace *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->opt = *opt;
	if (!t->opt.mss)
		t->opt.mss = 1448;
	if (!t->opt.initial_window)
		t->opt.initial_window = 1;
	if (!(t->opt.dilation > 0))
		t->opt.dilation = 1;
	t->str = malloc(16 * sizeof *t->str);
	t->capstr = 16;
	if (!t->str || !(t->str[0] = strdup("")) || !(t->model = xstate_new(&t->opt.model)) ||
	    xstate_on_wait(t->model, wait_heard, t) < 0) {
		predict_free(t);
		return NULL;
	}
	t->nstr = 1;
	if (!(t->scratch = calloc(1, sizeof *t->scratch))) {
		predict_free(t);
		return NULL;
	}
	return t;
}

/* A replay's buffer: large, kept from one link to the next, and walked
   through once per link.  Where the system has transparent huge pages
   on request, asked for them: its first filling then costs a fault per
   2 MB rather than per 4 kB, which was a tenth of a matrix's time.  Freed
   with free(). */
static void *big_alloc(size_t size)
{
#ifdef MADV_HUGEPAGE
	enum { HUGE = 2u << 20 };
	if (size >= 4 * (size_t)HUGE) {
		void *p = NULL;
		if (posix_memalign(&p, HUGE, size) != 0)
			return NULL;
		madvise(p, size, MADV_HUGEPAGE);	/* a hint: failure is fine */
		return p;
	}
#endif
	return malloc(size);
}

static void scratch_free(struct scratch *sc)
{
	if (!sc)
		return;
	free(sc->o);
	free(sc->ts);
	free(sc->next);
	free(sc->ready);
	free(sc->arrive);
	free(sc);
}

void predict_free(struct predict_trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nstr; i++)
		free(t->str[i]);
	free(t->str);
	free(t->w);
	free(t->m);
	free(t->p);
	free(t->c);
	free(t->waits);
	xstate_free(t->model);
	scratch_free(t->scratch);
	free(t);
}

static struct pconn *conn_get(struct predict_trace *t, uint32_t id, bool create)
{
	if (id < t->nc && t->c[id].seen)
		return &t->c[id];
	if (!create || id > XCONNS_ID_MAX)
		return NULL;
	if (id >= t->nc) {
		/* Not GROW: nc also counts the replay's streams, so it stays near the highest id. */
		size_t nc = id + 16;
		struct pconn *c = realloc(t->c, nc * sizeof *c);
		if (!c) {
			t->oom = true;
			return NULL;
		}
		memset(c + t->nc, 0, (nc - t->nc) * sizeof *c);
		t->c = c;
		t->nc = nc;
	}
	struct pconn *c = &t->c[id];
	c->seen = true;
	c->last_w[0] = c->last_w[1] = NONE;
	c->pending_cause = NONE;
	return c;
}

/* ssh -C: the segment joins the write before it, as one SSH packet.
   sshd (or ssh) reads what has come from its X socket since its last read
   and sends it as channel data of up to 16 KB, one compressed packet: an
   X server writing a large reply as hundreds of small segments (GLX's
   GetFBConfigs, 296 KB in segments of 352 bytes) crosses the tunnel in
   few packets, not one each with its framing and TCP headers (which made
   gtk3-demo's start-up twice too slow at 100 kbit/s).  A segment joins
   when it follows the trace's latest write, of the same side of the same
   connection, with no SYN or FIN, within SSH_MERGE_GAP of it and within
   one X11 channel packet: nothing the other side sent can have come
   between, so no dependency is lost.  Its compressed size is the sum of
   the segments' (each partial flush costs the sum a few bytes more than
   one packet's deflate would). */
#define SSH_MERGE_GAP 1000000	/* ns */
static bool tunnel_merge(struct predict_trace *t, struct pconn *c, const struct xrec_pkt *p, int d)
{
	if (!t->nw || c->last_w[d] != t->nw - 1 || (p->tcp_flags & (XTCP_SYN | XTCP_FIN)))
		return false;
	struct write *w = &t->w[t->nw - 1];
	if ((w->flags & (XTCP_SYN | XTCP_FIN)) || !w->olen || p->ts - w->ts > SSH_MERGE_GAP ||
	    p->ts < w->ts || p->seq != w->oseq + w->olen || w->olen + p->len > (16u << 10))
		return false;
	t->with_data++;
	uint32_t z = p->len;
	if (p->has_zlen)
		z = p->zlen;
	else
		t->unmeasured++;
	uint32_t len = w->len;
	w->olen += p->len;
	w->zlen += z;
	w->len = predict_ssh_wire(w->olen, w->zlen);
	c->tseq[d] += w->len - len;
	/* Ready when its last segment is: sshd cannot send it before. */
	w->ts = p->ts;
	return true;
}

/* waypipe: the ACK_NBLOCKS it writes just before the answer of packet p
   (wp_alone), a write of its own: 8 bytes of no Wayland
   message, a nanosecond before it (so that a wait of the client ends at
   the answer, not here).  0, or -1 when out of memory. */
static int wp_ack_write(struct predict_trace *t, struct pconn *c, const struct xrec_pkt *p, int d)
{
	if (GROW(t->w, t->capw, t->nw + 2) < 0) {
		t->oom = true;
		return -1;
	}
	struct write *a = &t->w[t->nw];
	memset(a, 0, sizeof *a);
	a->ts = p->ts ? p->ts - 1 : 0;
	if (c->last_w[d] != NONE && a->ts < t->w[c->last_w[d]].ts)
		a->ts = t->w[c->last_w[d]].ts;
	a->conn = p->conn;
	a->oseq = p->seq;		/* olen 0: no message ends in it */
	a->len = WAYPIPE_ACK;
	a->dir = (uint8_t)d;
	a->flags = p->tcp_flags & (uint8_t)~(XTCP_SYN | XTCP_FIN);
	if (!c->tseq_set[d]) {
		c->tseq_set[d] = true;
		c->tseq[d] = p->seq;
	}
	a->seq = c->tseq[d];
	a->ack = c->tseq[!d];
	c->tseq[d] += WAYPIPE_ACK;
	a->prev = c->last_w[d];
	a->cause = NONE;
	c->last_w[d] = (uint32_t)t->nw++;
	c->wp_owed[d] = false;
	return 0;
}

static void take_packet(struct predict_trace *t, const struct xrec_pkt *p)
{
	if (GROW(t->p, t->capp, t->np + 1) < 0) {
		t->oom = true;
		return;
	}
	t->p[t->np++] = (struct spkt){ p->ts, p->len + t->opt.overhead, p->conn & 0x7fffffffu,
				       p->dir & 1u };
	struct pconn *c = conn_get(t, p->conn, false);
	bool control = p->tcp_flags & (XTCP_SYN | XTCP_FIN);
	if (!c || (!p->len && !control) || (p->events & XPKT_RETRANS))
		return;
	if (GROW(t->w, t->capw, t->nw + 1) < 0) {
		t->oom = true;
		return;
	}
	int d = p->dir & 1;
	if (t->opt.ssh_compression && p->len && tunnel_merge(t, c, p, d))
		return;
	bool wp_answer = t->opt.waypipe && p->len && c->wp_owed[d];
	if (wp_answer && wp_ack_write(t, c, p, d) < 0)
		return;
	struct write *w = &t->w[t->nw];
	memset(w, 0, sizeof *w);
	w->ts = p->ts;
	w->conn = p->conn;
	w->seq = w->oseq = p->seq;
	w->ack = p->ack;
	w->len = w->olen = p->len;
	w->dir = (uint8_t)d;
	w->flags = p->tcp_flags;
	if (t->opt.ssh_compression && p->len) {
		/* The tunnel's bytes: the write's compressed size and framing. */
		t->with_data++;
		if (p->has_zlen) {
			w->zlen = p->zlen;
		} else {
			t->unmeasured++;
			w->zlen = p->len;
		}
		w->len = predict_ssh_wire(w->olen, w->zlen);
	} else if (t->opt.waypipe && p->len) {
		/* waypipe's PROTOCOL block around the Wayland bytes, the
		   token before the first (an answer's acknowledgement is a
		   write of its own before it, wp_ack_write) */
		w->len = p->len + WAYPIPE_BLOCK_HEADER;
		if (d == XDIR_C2S && !c->wp_token) {
			c->wp_token = true;
			w->len += WAYPIPE_TOKEN;
		}
		w->wp_ack = wp_answer;
		c->wp_owed[!d] = true;
	}
	if (t->opt.ssh_compression || t->opt.waypipe) {
		/* The bytes on the link, numbered on from the direction's first
		   sequence number. */
		if (!c->tseq_set[d]) {
			c->tseq_set[d] = true;
			c->tseq[d] = p->seq;
		}
		w->seq = c->tseq[d];
		w->ack = c->tseq[!d];
		c->tseq[d] += w->len + ((p->tcp_flags & XTCP_SYN) ? 1 : 0) +
			      ((p->tcp_flags & XTCP_FIN) ? 1 : 0);
	}
	w->prev = c->last_w[d];
	w->cause = NONE;
	c->last_w[d] = (uint32_t)t->nw++;
}

static void take_message(struct predict_trace *t, const struct xrec_msg *g)
{
	struct pconn *c = conn_get(t, g->conn, false);
	if (!c)
		return;
	int d = g->dir & 1;
	uint32_t wi = c->last_w[d];
	/* The write holding its last byte: the side's latest, or one shortly
	   before it when the pipeline reported late. */
	for (int k = 0; wi != NONE && k < 8; k++, wi = t->w[wi].prev) {
		const struct write *w = &t->w[wi];
		uint32_t start = w->oseq + ((w->flags & XTCP_SYN) ? 1 : 0);
		uint32_t off = g->tcp_end - start;
		if (off >= 1 && off <= w->olen)
			break;
	}
	if (wi == NONE)
		return;
	struct write *w = &t->w[wi];
	if (d == XDIR_S2C && g->req_ts && g->req_ts >= w->req_ts) {
		w->req_ts = g->req_ts;
		w->req_end = g->req_end;
	}
	/* The replays feed messages to the state model only: the ones it
	   never looks at (events, most of a busy trace's messages) are not
	   kept. */
	if (!xstate_uses_message((uint8_t)d, g->kind))
		return;
	if (GROW(t->m, t->capm, t->nm + 1) < 0) {
		t->oom = true;
		return;
	}
	struct pmsg *m = &t->m[t->nm++];
	m->w = wi;
	m->ord = (uint32_t)(t->nm - 1);
	/* (Into the write's X bytes; through the tunnel made bytes on the
	   link by predict_finish, once the write has all its segments.) */
	m->off = g->tcp_end - (w->oseq + ((w->flags & XTCP_SYN) ? 1 : 0));
	m->conn = g->conn;
	m->flags = g->flags;
	m->minor = g->minor;
	m->dir = (uint8_t)d;
	m->kind = g->kind;
	m->major = g->major;
	m->name = intern(t, g->name);
	m->ext = intern(t, g->ext);
	m->seq = g->seq;
	m->length = g->length;
}

/* waypipe: the BUFFER_DIFF a wl_shm commit adds to the write that holds
   it, as the relay's note right after the commit says (xcap-run(1)). */
static void take_note(struct predict_trace *t, const struct xrec_note *n)
{
	const char *at = strstr(n->text, ", waypipe ");
	unsigned long long bytes;
	if (!t->opt.waypipe || strncmp(n->text, "shm read ", 9) != 0 || !at ||
	    sscanf(at, ", waypipe %llu bytes", &bytes) != 1 || bytes > (1ull << 30))
		return;
	struct pconn *c = conn_get(t, n->conn, false);
	int d = n->dir & 1;
	if (!c || c->last_w[d] == NONE)
		return;
	struct write *w = &t->w[c->last_w[d]];
	w->len += (uint32_t)bytes;
	w->wp_diff = true;
	c->tseq[d] += (uint32_t)bytes;
}

/* A time of a dilated trace, as the undilated clock would have read it. */
static uint64_t undilate(struct predict_trace *t, uint64_t ts)
{
	if (!t->t0)
		t->t0 = ts;
	if (!ts || ts < t->t0)
		return ts;
	return t->t0 + (uint64_t)round_ns((double)(ts - t->t0) / t->opt.dilation);
}

/* The record is of what is replayed: of a connection --conn names (the
   model narrows by itself: it sees every record) and, for the traffic,
   inside --range, as if the capture had begun and ended there.  What says
   what a connection is counts whenever it came. */
static bool replayed(const struct predict_trace *t, const struct xrec *rec)
{
	uint32_t id = xrec_conn(rec);
	if (id && t->opt.model.n_only) {
		size_t i = 0;
		while (i < t->opt.model.n_only && t->opt.model.only[i] != id)
			i++;
		if (i == t->opt.model.n_only)
			return false;
	}
	switch (rec->type) {
	case XREC_PKT:
	case XREC_MSG:
	case XREC_GAP:
	case XREC_NOTE:
		return xstate_in_range(t->model, xrec_time(rec));
	default:
		return true;
	}
}

int predict_record(struct predict_trace *t, const struct xrec *in)
{
	struct pconn *c;
	struct xrec scaled;
	const struct xrec *rec = in;
	if (t->opt.dilation != 1) {
		scaled = *in;
		switch (scaled.type) {
		case XREC_CONN: scaled.u.conn.ts = undilate(t, scaled.u.conn.ts); break;
		case XREC_PKT: scaled.u.pkt.ts = undilate(t, scaled.u.pkt.ts); break;
		case XREC_MSG:
			scaled.u.msg.ts = undilate(t, scaled.u.msg.ts);
			scaled.u.msg.req_ts = undilate(t, scaled.u.msg.req_ts);
			break;
		case XREC_NAME: scaled.u.name.ts = undilate(t, scaled.u.name.ts); break;
		case XREC_GAP: scaled.u.gap.ts = undilate(t, scaled.u.gap.ts); break;
		case XREC_NOTE: scaled.u.note.ts = undilate(t, scaled.u.note.ts); break;
		case XREC_STATS: scaled.u.stats.ts = undilate(t, scaled.u.stats.ts); break;
		default: break;
		}
		rec = &scaled;
	}
	/* The trace as it is, measured over --range as --delays measures it. */
	if (xstate_record(t->model, rec) < 0)
		t->oom = true;
	if (!replayed(t, rec))
		return t->oom ? -1 : 0;
	switch (rec->type) {
	case XREC_CONN:
		if ((c = conn_get(t, rec->u.conn.id, true))) {
			c->rec = rec->u.conn;
			snprintf(c->proto, sizeof c->proto, "%s", rec->u.conn.proto ? rec->u.conn.proto : "");
		}
		break;
	case XREC_PKT:
		take_packet(t, &rec->u.pkt);
		break;
	case XREC_MSG:
		take_message(t, &rec->u.msg);
		break;
	case XREC_NOTE:
		take_note(t, &rec->u.note);
		break;
	case XREC_NAME:
		if ((c = conn_get(t, rec->u.name.conn, false)) &&
		    xrec_name_takes(&c->name_rank, &rec->u.name)) {
			snprintf(c->name, sizeof c->name, "%s", rec->u.name.text);
			snprintf(c->name_source, sizeof c->name_source, "%s", rec->u.name.source);
		}
		break;
	default:
		break;
	}
	return t->oom ? -1 : 0;
}

static int wait_cmp(const void *a, const void *b)
{
	const struct wait_end *x = a, *y = b;
	if (x->conn != y->conn)
		return x->conn < y->conn ? -1 : 1;
	return x->reply_ts < y->reply_ts ? -1 : x->reply_ts > y->reply_ts;
}

/* Messages in the order of their writes, in the order read within one. */
static int msg_cmp(const void *a, const void *b)
{
	const struct pmsg *x = a, *y = b;
	if (x->w != y->w)
		return x->w < y->w ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

static void result_of(const struct xstate_model *m, struct predict_result *r)
{
	const struct xstate_conn *all = xstate_all(m);
	r->span = all->span;
	r->network_delay = xstate_network_delay(all);
	r->block_reply = all->time[XDIR_C2S][XSTATE_BLOCK_REPLY];
	r->block_send = r->network_delay - r->block_reply;
	r->waits = all->waits;
}

/* OpenSSH's SSH binary packet (RFC 4253, 6; OpenSSH packet.c) for its
   default cipher, chacha20-poly1305: a 4-byte length, a padding length
   byte, the payload, padding to a multiple of 8 of all but the length
   (at least 4 bytes), a 16-byte tag.  The payload of channel data is a
   message type, the channel and the data's length (9 bytes, counted
   uncompressed here: deflated with the data they take a few bytes
   less) and the data; X11 channels carry at most 16 KB of data a packet
   (CHAN_X11_PACKET_DEFAULT), each its own partial flush. */
uint32_t predict_ssh_wire(uint32_t n, uint32_t z)
{
	enum { CHANNEL_DATA = 9, PACKET_MAX = 16384, BLOCK = 8, TAG = 16 };
	uint32_t packets = n ? (n + PACKET_MAX - 1) / PACKET_MAX : 1;
	uint64_t wire = 0;
	for (uint32_t i = 0; i < packets; i++) {
		/* The compressed bytes shared out evenly among the packets. */
		uint32_t share = z / packets + (i < z % packets ? 1 : 0);
		uint32_t payload = share + CHANNEL_DATA;
		uint32_t pad = BLOCK - (1 + payload) % BLOCK;
		if (pad < 4)
			pad += BLOCK;
		wire += 4 + 1 + payload + pad + TAG;
	}
	return wire > UINT32_MAX ? UINT32_MAX : (uint32_t)wire;
}

size_t predict_unmeasured(const struct predict_trace *t, size_t *with_data)
{
	if (with_data)
		*with_data = t->with_data;
	return t->unmeasured;
}

int predict_finish(struct predict_trace *t)
{
	xstate_finish(t->model);
	result_of(t->model, &t->measured);
	if (t->oom)
		return -1;
	if (t->opt.ssh_compression && t->with_data && t->unmeasured == t->with_data)
		return PREDICT_NO_ZLEN;
	/* Almost always in that order already (the pipeline reports a
	   message with its packet); the sort is for the exceptions. */
	size_t unsorted = 1;
	while (unsorted < t->nm && msg_cmp(&t->m[unsorted - 1], &t->m[unsorted]) < 0)
		unsorted++;
	if (unsorted < t->nm)
		qsort(t->m, t->nm, sizeof *t->m, msg_cmp);
	for (size_t i = 0; i < t->nm; i++) {
		const struct write *w = &t->w[t->m[i].w];
		if (w->len != w->olen && w->olen) {
			/* Through the tunnel: as far into the write's bytes on the
			   link as the message's end is into its X bytes. */
			uint64_t off = ((uint64_t)t->m[i].off * w->len + w->olen - 1) / w->olen;
			t->m[i].off = (uint32_t)(off ? off : 1);
		}
	}
	/* The waits by connection and time, each with a cursor. */
	if (t->nwaits)
		qsort(t->waits, t->nwaits, sizeof *t->waits, wait_cmp);
	size_t *cursor = calloc(t->nc + 1, sizeof *cursor);
	if (!cursor)
		return -1;
	/* (A connection the trace never announced has no writes here.) */
	for (size_t i = t->nwaits; i-- > 0;)
		if (t->waits[i].conn < t->nc)
			cursor[t->waits[i].conn] = i;
	for (size_t i = 0; i < t->nc; i++) {
		t->c[i].last_w[0] = t->c[i].last_w[1] = NONE;
		t->c[i].pending_cause = NONE;
		const struct xstate_conn *sc = xstate_conn_find(t->model, (uint32_t)i);
		t->c[i].far_rtt = sc && sc->side == XSIDE_SERVER ? sc->rtt : 0;
	}
	for (size_t i = 0; i < t->nw; i++) {
		struct write *w = &t->w[i];
		struct pconn *c = &t->c[w->conn];
		if (w->dir == XDIR_S2C) {
			/* Which of the client's writes it answers. */
			uint32_t k = c->last_w[XDIR_C2S];
			if (w->req_ts)
				while (k != NONE && t->w[k].ts > w->req_ts)
					k = t->w[k].prev;
			w->cause = k;
			/* Does a wait of the client end with it? */
			size_t *cur = &cursor[w->conn];
			while (*cur < t->nwaits && t->waits[*cur].conn == w->conn &&
			       t->waits[*cur].reply_ts <= w->ts) {
				c->pending_cause = (uint32_t)i;
				++*cur;
			}
			/* An input the client answers, as it answers a reply. */
			if (w->input)
				c->pending_cause = (uint32_t)i;
		} else if (c->pending_cause != NONE) {
			w->cause = c->pending_cause;
			c->pending_cause = NONE;
		} else if (!t->opt.ssh_compression && w->prev != NONE &&
			   (t->w[w->prev].flags & XTCP_SYN) && c->last_w[XDIR_S2C] != NONE) {
			/* (Through a tunnel the handshake is with the local sshd,
			   which holds the data until the channel is open: the
			   replay's gate, not a wait of the client.) */
			/* The client's first data waits for the handshake. */
			w->cause = c->last_w[XDIR_S2C];
		}
		c->last_w[w->dir] = (uint32_t)i;
	}
	free(cursor);
	return 0;
}

const struct predict_options *predict_options_of(const struct predict_trace *t)
{
	return &t->opt;
}

const struct predict_result *predict_measured(const struct predict_trace *t)
{
	return &t->measured;
}

uint64_t predict_first_ts(const struct predict_trace *t)
{
	return t->nw ? t->w[0].ts : 0;
}

size_t predict_writes(const struct predict_trace *t)
{
	return t->nw;
}

size_t predict_packets(const struct predict_trace *t)
{
	return t->np;
}

/* ---- the replay ---- */

/* A replayed record: a packet, or a message (len is its index).  Its
   time is in an array of its own (struct replay, ts), which the merge
   reads alone: the records are the memory a replay walks through, and
   20 bytes rather than 32 with the time and an order (the index is
   the order). */
struct orec {
	uint8_t type, dir, flags;
	uint32_t conn, seq, ack, len;
};

/* A side's sender during a replay. */
struct sender {
	uint64_t *acks;			/* when each unacknowledged segment's
					   acknowledgement arrives */
	size_t head, n, cap;
	double cwnd;
	uint64_t seg_last;		/* its latest segment left */
	bool sent;
	bool held;			/* the peer holds the newest segment's
					   acknowledgement for the next one */
	uint64_t held_at;		/* when that segment arrived */
	unsigned quick;			/* segments the peer still acknowledges
					   at once (its quick-ACK mode) */
	uint64_t last_arrival;		/* of its latest segment at the peer */
	bool answered;			/* waypipe: it has answered the peer's
					   data (the peer then delays its ACKs) */
	uint64_t gate;			/* ssh -C: nothing leaves before (the
					   channel's confirmation is back) */
	/* ssh -C: the channel's flow control, in X bytes.  The sender may
	   have sent up to chan_limit; the receiver, having had chan_recv,
	   grants more when half its window is used (chan_adjusted so far),
	   and the grant arrives a one-way delay later (the queue). */
	uint64_t chan_sent, chan_limit, chan_recv, chan_adjusted;
	uint64_t *adj_ts, *adj_limit;
	size_t adj_head, adj_n, adj_cap;
};

/* OpenSSH's X11 channels: a window of 64 KB (CHAN_X11_WINDOW_DEFAULT),
   adjusted once less than half of it is left; an adjustment is an SSH
   packet of some 40 bytes. */
#define SSH_X11_WINDOW (64u << 10)
#define SSH_X11_PACKET (16u << 10)	/* CHAN_X11_PACKET_DEFAULT */
#define SSH_ADJUST_WIRE 40

/* Of a write through the tunnel, cut in npk SSH packets: where packet
   j begins among its bytes on the link, and among its X bytes (j = npk:
   the end). */
static uint32_t pk_wire(const struct write *w, uint32_t npk, uint32_t j)
{
	return (uint32_t)((uint64_t)j * w->len / npk);
}

static uint32_t pk_x(const struct write *w, uint32_t j)
{
	uint64_t x = (uint64_t)j * SSH_X11_PACKET;
	return x < w->olen ? (uint32_t)x : w->olen;
}

static bool adjust_push(struct sender *s, uint64_t ts, uint64_t limit)
{
	if (s->adj_n == s->adj_cap) {
		size_t cap = s->adj_cap ? s->adj_cap * 2 : 16;
		uint64_t *a = malloc(cap * sizeof *a), *b = malloc(cap * sizeof *b);
		if (!a || !b) {
			free(a);
			free(b);
			return false;
		}
		for (size_t i = 0; i < s->adj_n; i++) {
			a[i] = s->adj_ts[(s->adj_head + i) % s->adj_cap];
			b[i] = s->adj_limit[(s->adj_head + i) % s->adj_cap];
		}
		free(s->adj_ts);
		free(s->adj_limit);
		s->adj_ts = a;
		s->adj_limit = b;
		s->adj_head = 0;
		s->adj_cap = cap;
	}
	size_t k = (s->adj_head + s->adj_n++) % s->adj_cap;
	s->adj_ts[k] = ts;
	s->adj_limit[k] = limit;
	return true;
}

/* The channel lets X bytes up to `upto` leave at ts or later: the time
   it does, having taken the adjustments arrived by then. */
static uint64_t channel_wait(struct sender *s, uint64_t upto, uint64_t ts)
{
	while (s->adj_n && (s->adj_ts[s->adj_head] <= ts || upto > s->chan_limit)) {
		if (s->adj_ts[s->adj_head] > ts)
			ts = s->adj_ts[s->adj_head];
		if (s->adj_limit[s->adj_head] > s->chan_limit)
			s->chan_limit = s->adj_limit[s->adj_head];
		s->adj_head = (s->adj_head + 1) % s->adj_cap;
		s->adj_n--;
	}
	return ts;
}

struct replay {
	const struct predict_trace *t;
	const struct predict_link *link;
	struct orec *o;
	uint64_t *ts;			/* per record */
	size_t no, capo;
	struct sender *s;		/* 2 per connection */
	double free_at[2];		/* the link's queue empties */
	uint64_t *ready, *arrive;	/* per write */
	/* Raw: the short segment that ends the latest write, while the
	   sender's window keeps it in the socket, where the next write of
	   the same side may join it (see "Coalescing" above). */
	struct {
		bool on;
		uint32_t first, last;	/* the writes whose last bytes it holds */
		uint32_t seq, n;
		uint8_t flags;
		uint64_t ready;		/* when its bytes were all there */
	} pend;
	uint64_t max_queue;
	uint64_t segments;
	uint64_t wp_held, wp_wait;	/* waypipe: predict_result's */
	/* predict_run_seen's: per write, when its last byte is seen beside
	   the client (NULL: not asked) */
	uint64_t *seen;
	/* The records form streams whose times never go back (see
	   STREAM_*): each a list through next[], merged at the end instead of
	   sorted. */
	uint32_t *next;
	uint32_t *head, *tail;		/* per stream */
	size_t nstreams;
	size_t mi;			/* the next message to place */
	bool oom;
};

/* Streams of replayed records, each in time order as the replay makes
   it: what arrives at the client (the server's segments through the
   first-in first-out link, the client's acknowledgements of them, their
   messages); the server's acknowledgements of the client's segments
   (which arrive through the other link, in order); and per connection,
   the client's own segments and messages as they leave. */
enum { STREAM_AT_CLIENT, STREAM_SERVER_ACKS, STREAM_CLIENT_SENDS };

static void emit(struct replay *r, size_t stream, uint64_t ts, uint8_t type, uint8_t dir,
		 uint8_t flags, uint32_t conn, uint32_t seq, uint32_t ack, uint32_t len)
{
	if (r->no == r->capo) {		/* cannot be: capo is counted */
		r->oom = true;
		return;
	}
	uint32_t i = (uint32_t)r->no++;
	r->o[i] = (struct orec){ type, dir, flags, conn, seq, ack, len };
	r->ts[i] = ts;
	r->next[i] = NONE;
	if (r->tail[stream] == NONE)
		r->head[stream] = i;
	else
		r->next[r->tail[stream]] = i;
	r->tail[stream] = i;
}

/* The messages not yet placed that end by byte `upto` of write i (all of
   it: UINT32_MAX), and all of earlier writes', at the time the segment
   holding that byte is seen beside the client. */
static void emit_messages(struct replay *r, uint32_t i, uint32_t upto, uint64_t here)
{
	const struct predict_trace *t = r->t;
	/* (Every segment of the write passes here: the last one stays.) */
	if (r->seen)
		r->seen[i] = here;
	for (; r->mi < t->nm && t->m[r->mi].w <= i && !r->oom; r->mi++) {
		const struct pmsg *g = &t->m[r->mi];
		if (g->w == i && g->off > upto)
			break;
		emit(r, g->dir == XDIR_C2S ? STREAM_CLIENT_SENDS + g->conn : STREAM_AT_CLIENT, here,
		     XREC_MSG, g->dir, 0, g->conn, 0, 0, (uint32_t)r->mi);
	}
}

static bool ack_push(struct sender *s, uint64_t ts)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		uint64_t *v = malloc(cap * sizeof *v);
		if (!v)
			return false;
		for (size_t i = 0; i < s->n; i++)
			v[i] = s->acks[(s->head + i) % s->cap];
		free(s->acks);
		s->acks = v;
		s->head = 0;
		s->cap = cap;
	}
	s->acks[(s->head + s->n) % s->cap] = ts;
	s->n++;
	return true;
}

/* The acknowledgement of the segment before the newest one (held back)
   comes with the newest one's. */
static void ack_release_held(struct sender *s)
{
	if (s->n >= 2) {
		size_t newest = (s->head + s->n - 1) % s->cap, before = (s->head + s->n - 2) % s->cap;
		s->acks[before] = s->acks[newest];
	}
	s->held = false;
}

static void ack_pop(struct sender *s)
{
	s->head = (s->head + 1) % s->cap;
	s->n--;
	s->cwnd += 1;		/* slow start */
}

/* Serialisation of bytes at the rate, in ns. */
static double ser(const struct predict_link *l, uint64_t bytes)
{
	return l->rate ? (double)bytes * 8e9 / (double)l->rate : 0;
}

/* How long the receiver holds an acknowledgement for the next segment.
   Linux's timer (icsk_ack.ato) starts at TCP_ATO_MIN, doubles each time
   it runs out, and grows with the gaps between segments, but is cut to
   the connection's smoothed round trip when that is longer than
   TCP_ATO_MIN, and to TCP_DELACK_MAX (tcp_send_delayed_ack): on a slow
   link, where segments come further apart than 40 ms, that is the round
   trip, or 40 ms.  On a link of 100 ms one way every second segment is
   acknowledged with the next (the capture shows them unacknowledged on
   arrival), on one of 10 ms each alone. */
#define PREDICT_DELACK_MAX 200000000	/* ns */
static uint64_t delack_timeout(const struct predict_options *o, const struct predict_link *l)
{
	uint64_t rtt = 2 * l->delay;
	if (rtt > PREDICT_DELACK_MAX)
		rtt = PREDICT_DELACK_MAX;
	return rtt > o->delack ? rtt : o->delack;
}

/* When the sender's window lets one more segment leave, at ts or later,
   without taking the acknowledgements: *arrived of them have come by ts,
   and it waits for *waited more (each grows the window by one). */
static uint64_t window_wait(const struct sender *s, uint64_t ts, size_t *arrived, size_t *waited)
{
	if (ts < s->seg_last)
		ts = s->seg_last;
	size_t k = 0;
	while (k < s->n && s->acks[(s->head + k) % s->cap] <= ts)
		k++;
	*arrived = k;
	double cwnd = s->cwnd + (double)k;
	while ((double)(s->n - k) >= cwnd) {
		uint64_t a = s->acks[(s->head + k) % s->cap];
		if (a == UINT64_MAX)
			break;
		if (a > ts)
			ts = a;
		k++;
		cwnd += 1;
	}
	*waited = k - *arrived;
	return ts;
}

/* When a segment of n payload bytes that may leave at ts (not before the
   sender's window lets it) leaves, and when it arrives.  hold: the
   receiver acknowledges it only with the next one.  *timer: when the
   receiver's delayed-ACK timer sent the acknowledgement it held for this
   segment, as this one came later than the timer (0: it did not). */
static uint64_t send_segment(struct replay *r, struct sender *s, int dir, uint64_t ts, uint32_t n,
			     bool hold, uint64_t *arrival, uint64_t *timer)
{
	*timer = 0;
	const struct predict_options *o = &r->t->opt;
	const struct predict_link *l = r->link;
	if (ts < s->seg_last)
		ts = s->seg_last;
	if (n) {
		size_t arrived, waited;
		uint64_t go = window_wait(s, ts, &arrived, &waited);
		while (arrived--)
			ack_pop(s);
		uint64_t rto = 2 * l->delay + o->rto_min;
		if (o->idle_restart && s->sent && !s->n && ts - s->seg_last > rto) {
			/* tcp_cwnd_restart: halve once per timeout idle. */
			double restart = o->initial_window < s->cwnd ? o->initial_window : s->cwnd;
			uint64_t idle = ts - s->seg_last - rto;
			while (idle > rto && s->cwnd > restart) {
				s->cwnd = (double)(uint64_t)(s->cwnd / 2);
				idle -= rto;
			}
			if (s->cwnd < restart)
				s->cwnd = restart;
		}
		/* (After a restart nothing is in flight: waited is 0.) */
		while (waited--)
			ack_pop(s);
		ts = go;
	}
	double start = (double)ts > r->free_at[dir] ? (double)ts : r->free_at[dir];
	if (l->rate && r->free_at[dir] > (double)ts) {
		uint64_t q = (uint64_t)((r->free_at[dir] - (double)ts) * (double)l->rate / 8e9);
		if (q > r->max_queue)
			r->max_queue = q;
	}
	double end = start + ser(l, (uint64_t)n + o->overhead);
	r->free_at[dir] = end;
	*arrival = (uint64_t)round_ns(end) + l->delay;
	if (n && s->held && o->delack) {
		uint64_t timer_end = s->held_at + delack_timeout(o, l);
		if (*arrival > timer_end) {
			/* The held acknowledgement went when the timer ran out. */
			*timer = timer_end;
			s->acks[(s->head + s->n - 1) % s->cap] =
				*timer + l->delay + (uint64_t)round_ns(ser(l, o->overhead));
			s->held = false;
		}
	}
	if (n) {
		uint64_t acked = *arrival + l->delay + (uint64_t)round_ns(ser(l, o->overhead));
		if (!ack_push(s, hold ? UINT64_MAX : acked))
			r->oom = true;
		else if (s->held && !hold)
			ack_release_held(s);
		s->held = hold;
		s->held_at = *arrival;
		r->segments++;
	}
	s->seg_last = ts;
	s->sent = true;
	return ts;
}

/* When the sender's window lets one more segment leave, at ts or later. */
static uint64_t sender_free(const struct sender *s, uint64_t ts)
{
	size_t arrived, waited;
	return window_wait(s, ts, &arrived, &waited);
}

/* Linux acknowledges at once the first 16 segments of a connection, and
   again after the receiver was idle longer than its retransmission
   timeout (quick-ACK mode): whether the segment of n bytes sent at ts is
   one of those. */
static bool quick_ack(const struct replay *r, struct sender *s, uint64_t ts, uint32_t n)
{
	uint64_t rto = 2 * r->link->delay + r->t->opt.rto_min;
	if (n && s->last_arrival && ts > s->last_arrival + rto)
		s->quick = PREDICT_QUICKACKS;
	bool quick = s->quick != 0;
	if (n && s->quick)
		s->quick--;
	return quick;
}

/* A segment over the link itself (raw X): seq and n bytes, ready at ts,
   the bytes of write i up to `upto` its last.  Emits it, its
   acknowledgement and its messages as a capture beside the client sees
   them; returns when it left and sets *arrival. */
static uint64_t raw_segment(struct replay *r, uint32_t i, uint32_t upto, uint64_t ts, uint32_t seq,
			    uint32_t n, uint8_t flags, bool hold, uint64_t *arrival)
{
	const struct write *w = &r->t->w[i];
	int d = w->dir;
	struct sender *s = &r->s[2 * w->conn + d];
	uint64_t delay = r->link->delay, timer;
	uint32_t data = seq + ((flags & XTCP_SYN) ? 1 : 0);
	ts = send_segment(r, s, d, ts, n, hold, arrival, &timer);
	if (timer && d == XDIR_C2S)
		emit(r, STREAM_SERVER_ACKS, timer + delay, XREC_PKT, XDIR_S2C, XTCP_ACK, w->conn, 0,
		     data, 0);
	else if (timer)
		emit(r, STREAM_AT_CLIENT, timer, XREC_PKT, XDIR_C2S, XTCP_ACK, w->conn, 0, data, 0);
	if (n)
		s->last_arrival = *arrival;
	/* The capture is beside the client. */
	uint64_t here = d == XDIR_C2S ? ts : *arrival;
	/* Data carries no acknowledgement here: the replay's own
	   acknowledgements say what was received, and when. */
	uint8_t pf = flags;
	if (!(pf & (XTCP_SYN | XTCP_FIN | XTCP_RST)))
		pf &= (uint8_t)~XTCP_ACK;
	emit(r, d == XDIR_C2S ? STREAM_CLIENT_SENDS + w->conn : STREAM_AT_CLIENT, here, XREC_PKT,
	     (uint8_t)d, pf, w->conn, seq, w->ack, n);
	uint32_t acked = data + n + ((flags & XTCP_FIN) ? 1 : 0);
	if (n && !hold && d == XDIR_C2S)
		emit(r, STREAM_SERVER_ACKS, *arrival + delay, XREC_PKT, XDIR_S2C, XTCP_ACK, w->conn, 0,
		     acked, 0);
	else if ((n && !hold) || (!n && d == XDIR_S2C))
		emit(r, STREAM_AT_CLIENT, *arrival, XREC_PKT, XDIR_C2S, XTCP_ACK, w->conn, 0, acked, 0);
	emit_messages(r, i, upto, here);
	return ts;
}

/* The held short segment leaves alone, when the window lets it. */
static void flush_pending(struct replay *r)
{
	if (!r->pend.on)
		return;
	r->pend.on = false;
	const struct write *w = &r->t->w[r->pend.last];
	struct sender *s = &r->s[2 * w->conn + w->dir];
	quick_ack(r, s, r->pend.ready, r->pend.n);
	uint64_t arrival;
	raw_segment(r, r->pend.last, UINT32_MAX, r->pend.ready, r->pend.seq, r->pend.n, r->pend.flags,
		    false, &arrival);
	for (uint32_t x = r->pend.first; x <= r->pend.last; x++) {
		r->arrive[x] = arrival;
		if (r->seen)
			r->seen[x] = r->seen[r->pend.last];
	}
}

/* waypipe: the chance that answer w waits behind a lone acknowledgement
   (the rule above WAYPIPE_BLOCK_HEADER). */
static double wp_alone(const struct replay *r, const struct write *w)
{
	if (r->link->wp_none || r->link->wp_all)
		return r->link->wp_all ? 1 : 0;
	return w->wp_diff ? 1 : WAYPIPE_ACK_RACE;
}

static void replay_write(struct replay *r, uint32_t i)
{
	const struct predict_trace *t = r->t;
	const struct write *w = &t->w[i];
	const struct write *wp = w->prev != NONE ? &t->w[w->prev] : NULL;
	const struct write *wc = w->cause != NONE ? &t->w[w->cause] : NULL;
	/* A short segment of another sender held back goes first: nothing
	   of this write can join it, and this write may wait for it. */
	if (r->pend.on && (t->w[r->pend.last].conn != w->conn || t->w[r->pend.last].dir != w->dir))
		flush_pending(r);
	uint64_t ready = w->ts;
	if (wp)
		ready = r->ready[w->prev] + (w->ts - wp->ts);
	if (wc) {
		uint64_t gap = w->ts >= wc->ts ? w->ts - wc->ts : 0;
		uint64_t far = w->dir == XDIR_C2S ? t->c[w->conn].far_rtt : 0;
		uint64_t c = r->arrive[w->cause] + (gap > far ? gap - far : 0);
		if (t->opt.wake && !t->opt.ssh_compression && (!wp || c > ready)) {
			/* It waited for the cause: since its own last write, in
			   the replay and in the trace.  A wait long only in the
			   replay wakes it late; one long in the trace too has
			   that in the trace's reaction already.  Through the
			   tunnel the forwarder beside it woke instead (below):
			   a host's processor wakes once for what comes from the
			   link, and what it hands on finds it awake. */
			uint64_t last_r = wp ? r->ready[w->prev] : 0, last_t = wp ? wp->ts : 0;
			uint64_t idle_r = r->arrive[w->cause] > last_r ? r->arrive[w->cause] - last_r : 0;
			uint64_t idle_t = wc->ts > last_t ? wc->ts - last_t : 0;
			if (idle_r >= PREDICT_WAKE_AFTER && idle_t < PREDICT_WAKE_AFTER)
				c += t->opt.wake;
		}
		if (!wp || c > ready)
			ready = c;
	}
	if (!wp && !wc && i > 0) {
		/* A new connection: after the trace's previous write, as there. */
		const struct write *q = &t->w[i - 1];
		uint64_t qt = q->dir == XDIR_C2S ? r->ready[i - 1] : r->arrive[i - 1];
		ready = qt + (w->ts - q->ts);
	}
	int d = w->dir;
	struct sender *s = &r->s[2 * w->conn + d];
	uint32_t mss = t->opt.mss;
	if (w->wp_ack) {
		/* waypipe's acknowledgement (the write before) alone before
		   the answer, which Nagle's algorithm holds until the peer's
		   TCP acknowledges it (wp_alone): the expected wait.
		   The peer delays its ACK once it has itself answered data. */
		if (w->len < mss) {
			const struct predict_link *l = r->link;
			double wait = 2.0 * (double)l->delay + ser(l, WAYPIPE_ACK + t->opt.overhead) +
				      ser(l, t->opt.overhead);
			if (r->s[2 * w->conn + !d].answered)
				wait += (double)t->opt.delack;
			uint64_t expected = (uint64_t)round_ns(wp_alone(r, w) * wait);
			ready += expected;
			r->wp_held++;
			r->wp_wait += expected;
		}
		s->answered = true;
	}
	r->ready[i] = ready;

	bool syn = w->flags & XTCP_SYN;
	uint32_t base = w->seq + (syn ? 1 : 0);
	bool tunnel = t->opt.ssh_compression;
	/* Raw: the bytes of this side's previous writes still in its socket
	   when this one's come begin its first segment. */
	uint32_t carry = 0, carry_seq = 0, carry_first = i;
	if (r->pend.on) {
		if (ready < sender_free(s, r->pend.ready)) {
			carry = r->pend.n;
			carry_seq = r->pend.seq;
			carry_first = r->pend.first;
			r->pend.on = false;
		} else {
			flush_pending(r);
		}
	}
	uint32_t first = w->len < mss - carry ? w->len : mss - carry;
	uint32_t nseg = w->len > first ? 1 + (w->len - first + mss - 1) / mss : 1;
	uint64_t ts = ready, arrival = ready;
	bool held_back = false;		/* its last segment is r->pend */
	uint64_t tail_ready = ready;	/* when its last segment may leave */
	/* Through an ssh tunnel the capture is between the client and the
	   local sshd: the client's bytes are seen, and acknowledged, as it
	   writes them, and cross the link when sshd may send them.  The
	   client's connection is accepted at once, while its SYN crosses the
	   link as the channel's opening, answered by the confirmation (the
	   X server's SYN/ACK); sshd sends the client's data after that. */
	/* The time ssh and sshd take to pass a message on: half a round
	   trip's, once the link has delivered it. */
	uint64_t cross = tunnel ? t->opt.ssh_forward / 2 : 0;
	/* The forwarder that receives the write from the link last did
	   something when its latest segment either way arrived or left: idle
	   longer than PREDICT_WAKE_AFTER, it wakes late.  (ssh-forward-time,
	   measured on loopback, is a warm forwarder's.) */
	uint64_t fwd_last = 0, fwd_wake = 0;
	if (tunnel && t->opt.wake) {
		fwd_last = r->s[2 * w->conn + !d].seg_last;
		if (s->last_arrival > fwd_last)
			fwd_last = s->last_arrival;
	}
	uint64_t local = ready;
	uint32_t npk = tunnel && w->olen ? (w->olen + SSH_X11_PACKET - 1) / SSH_X11_PACKET : 0;
	uint32_t pj = 0, pe = 0;	/* the next packet to begin, to end */
	if (tunnel && d == XDIR_C2S && ts < s->gate)
		ts = s->gate;
	if (tunnel && d == XDIR_S2C && syn && w->cause != NONE)
		local = r->ready[w->cause];
	for (uint32_t k = 0; k < nseg; k++) {
		uint32_t off = k ? first + (k - 1) * mss : 0;
		uint32_t n = k ? (w->len - off < mss ? w->len - off : mss) : first;
		uint32_t size = n + (k ? 0 : carry);	/* on the link */
		uint8_t flags = w->flags;
		if (k > 0)
			flags &= (uint8_t)~XTCP_SYN;
		if (k + 1 < nseg)
			flags &= (uint8_t)~(XTCP_FIN | XTCP_PSH);
		if (w->wp_ack && k > 0 && k + 1 == nseg && size < mss) {
			/* waypipe: the short end of a long answer waits as a
			   short answer does for the lone acknowledgement's ACK,
			   which the peer sends at once (the full segments after
			   those 8 bytes fill its segment): a round trip after it
			   left, as often as wp_alone says. */
			const struct predict_link *l = r->link;
			uint64_t acked = ready + 2 * l->delay +
					 (uint64_t)round_ns(ser(l, WAYPIPE_ACK + t->opt.overhead) +
							    ser(l, t->opt.overhead));
			if (acked > ts)
				ts += (uint64_t)round_ns(wp_alone(r, w) * (double)(acked - ts));
			tail_ready = ts;
		}
		if (!tunnel && k + 1 == nseg && size && size < mss &&
		    !(flags & (XTCP_SYN | XTCP_FIN | XTCP_RST)) && sender_free(s, ts) > ready) {
			/* Short, and the window kept it in the socket since it
			   was written: the side's next write may join it there. */
			r->pend.on = true;
			r->pend.first = k ? i : carry_first;
			r->pend.last = i;
			r->pend.seq = k ? base + off : carry ? carry_seq : w->seq;
			r->pend.n = size;
			r->pend.flags = flags;
			r->pend.ready = tail_ready;
			held_back = true;
			break;
		}
		/* The receiver acknowledges every second full-sized segment, and
		   at once the end of a write (Linux's delayed ACK, which the
		   application's answer or the timer ends soon after). */
		bool quick = quick_ack(r, s, ts, size);
		bool hold = size == mss && k + 1 < nseg && !s->held && !quick;
		if (!tunnel) {
			uint32_t upto = k + 1 == nseg ? UINT32_MAX : off + n;
			ts = raw_segment(r, i, upto, ts, k == 0 && carry ? carry_seq : k ? base + off : w->seq,
					 size, flags, hold, &arrival);
			if (k == 0 && carry)
				for (uint32_t x = carry_first; x < i; x++) {
					r->arrive[x] = arrival;
					if (r->seen)
						r->seen[x] = r->seen[i];
				}
			continue;
		}
		/* Through the tunnel the write is SSH packets of up to 16 KB of
		   X data each, its segments' bytes shared evenly among them.  A
		   segment leaves when the channel's window has room for every
		   packet that begins in it; a packet that ends in it is counted
		   by the receiver, which grants more window when half of it is
		   used. */
		if (n) {
			while (pj < npk && pk_wire(w, npk, pj) < off + n) {
				ts = channel_wait(s, s->chan_sent + pk_x(w, pj + 1), ts);
				pj++;
			}
		}
		uint64_t timer;
		ts = send_segment(r, s, d, ts, n, hold, &arrival, &timer);
		if (timer && !syn && d == XDIR_S2C)
			emit(r, STREAM_AT_CLIENT, timer + cross, XREC_PKT, XDIR_C2S, XTCP_ACK, w->conn, 0,
			     base + off, 0);
		if (t->opt.wake && k == 0 && arrival >= fwd_last + PREDICT_WAKE_AFTER)
			fwd_wake = t->opt.wake;
		uint64_t delivered = arrival + cross + fwd_wake;
		if (n) {
			while (pe < npk && pk_wire(w, npk, pe + 1) <= off + n) {
				s->chan_recv += pk_x(w, pe + 1) - pk_x(w, pe);
				pe++;
				if (s->chan_recv - s->chan_adjusted <= SSH_X11_WINDOW / 2)
					continue;
				s->chan_adjusted = s->chan_recv;
				/* Passed on by the receiver's ssh and read by the
				   sender's: a round trip's forwarding. */
				uint64_t back = arrival + r->link->delay + t->opt.ssh_forward +
						(uint64_t)round_ns(ser(r->link, SSH_ADJUST_WIRE +
									   t->opt.overhead));
				if (!adjust_push(s, back, s->chan_adjusted + SSH_X11_WINDOW))
					r->oom = true;
			}
		}
		if (n)
			s->last_arrival = arrival;
		/* The capture is beside the client, between it and its sshd. */
		uint64_t here = d == XDIR_C2S || syn ? local : delivered;
		uint32_t seq = k ? base + off : w->seq;
		/* Data carries no acknowledgement here: the replay's own
		   acknowledgements say what was received, and when. */
		if (!(flags & (XTCP_SYN | XTCP_FIN | XTCP_RST)))
			flags &= (uint8_t)~XTCP_ACK;
		size_t here_stream = d == XDIR_C2S || syn ? STREAM_CLIENT_SENDS + w->conn
							  : STREAM_AT_CLIENT;
		emit(r, here_stream, here, XREC_PKT, (uint8_t)d, flags, w->conn, seq, w->ack, n);
		uint32_t acked = base + off + n + ((flags & XTCP_FIN) ? 1 : 0);
		if (d == XDIR_C2S || syn) {
			/* The local peer acknowledges at once. */
			if (n || d == XDIR_S2C)
				emit(r, here_stream, here, XREC_PKT, (uint8_t)!d, XTCP_ACK, w->conn, 0,
				     acked, 0);
		} else if (!n || !hold) {
			emit(r, STREAM_AT_CLIENT, delivered, XREC_PKT, XDIR_C2S, XTCP_ACK, w->conn, 0,
			     acked, 0);
		}
		emit_messages(r, i, k + 1 == nseg ? UINT32_MAX : off + n, here);
		arrival = delivered;
	}
	if (!held_back)
		r->arrive[i] = arrival;
	s->chan_sent += w->olen;
	if (tunnel && d == XDIR_S2C && syn)
		r->s[2 * w->conn + XDIR_C2S].gate = arrival;
}

/* Record x before record y: by time, ties in the order made. */
static bool orec_before(const struct replay *r, uint32_t x, uint32_t y)
{
	return r->ts[x] != r->ts[y] ? r->ts[x] < r->ts[y] : x < y;
}

/* What the replayed records are fed to, in time order. */
struct feed {
	const struct predict_trace *t;
	struct xstate_model *m;
	bool *announced;		/* per connection */
};

/* One replayed record into the state model, as a trace would hold it.
   0, or -1 when out of memory. */
static int feed_record(struct feed *f, const struct orec *o, uint64_t ts)
{
	const struct predict_trace *t = f->t;
	struct xrec rec;
	if (o->conn < t->nc && !f->announced[o->conn] && t->c[o->conn].seen) {
		/* The connection, and its name, before its first packet, as
		   in a trace: the model's horizon for the All rows starts
		   there. */
		const struct pconn *pc = &t->c[o->conn];
		f->announced[o->conn] = true;
		rec.type = XREC_CONN;
		rec.u.conn = pc->rec;
		rec.u.conn.id = o->conn;
		rec.u.conn.ts = ts;
		rec.u.conn.proto = pc->proto;
		if (xstate_record(f->m, &rec) < 0)
			return -1;
		if (pc->name[0]) {
			rec.type = XREC_NAME;
			rec.u.name = (struct xrec_name){ ts, o->conn, pc->name_source, pc->name };
			xstate_record(f->m, &rec);
		}
	}
	if (o->type == XREC_PKT) {
		rec.type = XREC_PKT;
		rec.u.pkt = (struct xrec_pkt){ .ts = ts, .conn = o->conn, .dir = o->dir,
					       .tcp_flags = o->flags, .seq = o->seq, .ack = o->ack,
					       .raw_win = 0xffff, .win = PREDICT_WIN, .len = o->len };
	} else {
		const struct pmsg *g = &t->m[o->len];
		rec.type = XREC_MSG;
		rec.u.msg = (struct xrec_msg){ .ts = ts, .conn = g->conn, .dir = g->dir,
					       .kind = g->kind, .flags = g->flags, .major = g->major,
					       .minor = g->minor, .seq = g->seq, .length = g->length,
					       .name = t->str[g->name], .ext = t->str[g->ext],
					       .detail = "" };
	}
	return xstate_record(f->m, &rec);
}

/* The records in time order (ties in the order made), straight into the
   model: a heap of the streams' heads.  No array of the order is made:
   a fresh one per link cost a page fault per page, more than the merge.
   0, or -1 when out of memory. */
static int merge_streams(struct replay *r, struct feed *f)
{
	uint32_t *heap = malloc((r->nstreams + 1) * sizeof *heap);	/* record indices */
	if (!heap)
		return -1;
	size_t n = 0;
	for (size_t s = 0; s < r->nstreams; s++) {
		if (r->head[s] == NONE)
			continue;
		/* sift up */
		size_t c = n++;
		heap[c] = r->head[s];
		while (c > 0 && orec_before(r, heap[c], heap[(c - 1) / 2])) {
			uint32_t tmp = heap[c];
			heap[c] = heap[(c - 1) / 2];
			heap[(c - 1) / 2] = tmp;
			c = (c - 1) / 2;
		}
	}
	int rc = 0;
	while (n) {
		uint32_t top = heap[0];
		if (feed_record(f, &r->o[top], r->ts[top]) < 0) {
			rc = -1;
			break;
		}
		if (r->next[top] != NONE)
			heap[0] = r->next[top];
		else
			heap[0] = heap[--n];
		/* sift down */
		size_t c = 0;
		for (;;) {
			size_t a = 2 * c + 1, b = a + 1, m = c;
			if (a < n && orec_before(r, heap[a], heap[m]))
				m = a;
			if (b < n && orec_before(r, heap[b], heap[m]))
				m = b;
			if (m == c)
				break;
			uint32_t tmp = heap[c];
			heap[c] = heap[m];
			heap[m] = tmp;
			c = m;
		}
	}
	free(heap);
	return rc;
}

/* One link's replay with the buffers of sc. */
static int run_with(const struct predict_trace *t, struct scratch *sc,
		    const struct predict_link *link, struct predict_result *res,
		    void (*on_wait)(void *ctx, const struct xstate_wait *w), void *ctx, uint64_t *seen)
{
	memset(res, 0, sizeof *res);
	struct replay r = { .t = t, .link = link, .seen = seen };
	r.s = calloc(2 * (t->nc + 1), sizeof *r.s);
	if (!sc->ready)
		sc->ready = big_alloc((t->nw + 1) * sizeof *sc->ready);
	if (!sc->arrive)
		sc->arrive = big_alloc((t->nw + 1) * sizeof *sc->arrive);
	r.ready = sc->ready;
	r.arrive = sc->arrive;
	r.nstreams = STREAM_CLIENT_SENDS + t->nc + 1;
	r.head = malloc(r.nstreams * sizeof *r.head);
	r.tail = malloc(r.nstreams * sizeof *r.tail);
	int rc = -1;
	struct xstate_model *m = NULL;
	if (!r.s || !r.ready || !r.arrive || !r.head || !r.tail)
		goto out;
	for (size_t i = 0; i < r.nstreams; i++)
		r.head[i] = r.tail[i] = NONE;
	/* At most a packet and an acknowledgement per segment, and the
	   messages: allocated once. */
	size_t most = t->nm + 1;
	for (size_t i = 0; i < t->nw; i++)
		most += 2 * (t->w[i].len ? (t->w[i].len + t->opt.mss - 1) / t->opt.mss : 1);
	if (sc->cap < most) {
		free(sc->o);
		free(sc->ts);
		free(sc->next);
		sc->ts = NULL;
		sc->next = NULL;
		sc->cap = 0;
		if (!(sc->o = big_alloc(most * sizeof *sc->o)) ||
		    !(sc->ts = big_alloc(most * sizeof *sc->ts)) ||
		    !(sc->next = big_alloc(most * sizeof *sc->next)))
			goto out;
		sc->cap = most;
	}
	r.o = sc->o;
	r.ts = sc->ts;
	r.next = sc->next;
	r.capo = sc->cap;
	for (size_t i = 0; i < 2 * (t->nc + 1); i++) {
		r.s[i].cwnd = t->opt.initial_window;
		r.s[i].quick = PREDICT_QUICKACKS;
		r.s[i].chan_limit = SSH_X11_WINDOW;
	}
	for (uint32_t i = 0; i < t->nw && !r.oom; i++)
		replay_write(&r, i);
	flush_pending(&r);
	if (r.oom)
		goto out;

	/* The replay is seen from beside the client, on its own link: where
	   the trace was captured and its round trip (--capture-side, --rtt)
	   are the trace's, not the replay's. */
	struct xstate_options replay_opt = t->opt.model;
	replay_opt.capture_side = XSIDE_CLIENT;
	replay_opt.rtt = 0;
	/* (Only --range was replayed: all of the replay counts.) */
	replay_opt.range_start = 0;
	replay_opt.range_end = UINT64_MAX;
	if (!(m = xstate_new(&replay_opt)) || (on_wait && xstate_on_wait(m, on_wait, ctx) < 0))
		goto out;
	struct feed f = { t, m, calloc(t->nc + 1, sizeof *f.announced) };
	bool *announced = f.announced;
	if (!announced)
		goto out;
	if (merge_streams(&r, &f) < 0) {
		free(announced);
		goto out;
	}
	free(announced);
	xstate_finish(m);
	result_of(m, res);
	res->segments = r.segments;
	res->max_queue = r.max_queue;
	res->wp_held = r.wp_held;
	res->wp_wait = r.wp_wait;
	rc = 0;
out:
	xstate_free(m);
	if (r.s)
		for (size_t i = 0; i < 2 * (t->nc + 1); i++) {
			free(r.s[i].acks);
			free(r.s[i].adj_ts);
			free(r.s[i].adj_limit);
		}
	free(r.s);
	free(r.head);
	free(r.tail);
	return rc;
}

int predict_run(const struct predict_trace *t, const struct predict_link *link,
		struct predict_result *res,
		void (*on_wait)(void *ctx, const struct xstate_wait *w), void *ctx)
{
	return run_with(t, t->scratch, link, res, on_wait, ctx, NULL);
}

int predict_run_seen(const struct predict_trace *t, const struct predict_link *link,
		     struct predict_result *res, uint64_t *seen)
{
	for (size_t i = 0; i < t->nw; i++)
		seen[i] = PREDICT_NOT_SEEN;
	return run_with(t, t->scratch, link, res, NULL, NULL, seen);
}

/* ---- many links at once ---- */

struct run_all {
	const struct predict_trace *t;
	const struct predict_link *links;
	struct predict_result *res;
	size_t n;
	atomic_size_t next;		/* the next link to take */
	atomic_bool failed;
};

/* A worker: links from the shared counter until none is left, with its
   own buffers (sc), or the trace's for the calling thread. */
static void run_links(struct run_all *a, struct scratch *sc)
{
	for (;;) {
		size_t k = atomic_fetch_add(&a->next, 1);
		if (k >= a->n || atomic_load(&a->failed))
			return;
		if (run_with(a->t, sc, &a->links[k], &a->res[k], NULL, NULL, NULL) < 0)
			atomic_store(&a->failed, true);
	}
}

static void *run_links_thread(void *arg)
{
	struct run_all *a = arg;
	struct scratch *sc = calloc(1, sizeof *sc);
	if (!sc)
		atomic_store(&a->failed, true);
	else
		run_links(a, sc);
	scratch_free(sc);
	return NULL;
}

/* The processors this process may run on. */
static unsigned cpus_available(void)
{
#ifdef CPU_COUNT
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
#endif
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

int predict_run_all(const struct predict_trace *t, const struct predict_link *links, size_t n,
		    struct predict_result *res, unsigned threads)
{
	if (!threads)
		threads = cpus_available();
	if (threads > n)
		threads = n ? (unsigned)n : 1;
	if (threads > PREDICT_THREADS_MAX)
		threads = PREDICT_THREADS_MAX;
	struct run_all a = { .t = t, .links = links, .res = res, .n = n };
	atomic_init(&a.next, 0);
	atomic_init(&a.failed, false);
	pthread_t tid[PREDICT_THREADS_MAX];
	unsigned started = 0;
	/* Threads that cannot start leave their links to the others. */
	while (started + 1 < threads && pthread_create(&tid[started], NULL, run_links_thread, &a) == 0)
		started++;
	run_links(&a, t->scratch);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	return atomic_load(&a.failed) ? -1 : 0;
}

/* ---- SLIM's experiment ---- */

int predict_added_delays(const struct predict_trace *t, uint64_t rate, uint64_t trace_rate,
			 int64_t *out)
{
	if (!rate)
		return -1;
	/* Exact in integers: end times in units of 1/rate ns, so that a hand
	   computation agrees to the ns. */
	unsigned __int128 end[2] = { 0, 0 };	/* ns * rate */
	for (size_t i = 0; i < t->np; i++) {
		const struct spkt *p = &t->p[i];
		unsigned __int128 ts = (unsigned __int128)p->ts * rate;
		unsigned __int128 start = ts > end[p->dir] ? ts : end[p->dir];
		end[p->dir] = start + (unsigned __int128)p->wire * 8 * 1000000000u;
		/* added = (end - ts) / rate - wire * 8 / trace_rate, in ns */
		double added = (double)(end[p->dir] - ts) / (double)rate;
		if (trace_rate)
			added -= (double)p->wire * 8e9 / (double)trace_rate;
		out[i] = (int64_t)round_ns(added);
	}
	return 0;
}

struct query_at {
	uint64_t ts;			/* undilated */
	size_t k;			/* which query */
};

static int query_by_time(const void *a, const void *b)
{
	const struct query_at *x = a, *y = b;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* find_at_time: each query's packet (writes false) or write (true) of
   its very time, connection and direction, by one walk of the queries in
   time beside the packets or writes, which are in time already.  Only
   that very time: one left out of the replay (--range) is not stood in
   for by an earlier one.  A write comes last of its time (a waypipe
   acknowledgement made a nanosecond before its answer comes before it),
   and a write of no bytes is none. */
static int find_at_time(struct predict_trace *t, const struct predict_packet_query *q, size_t n,
			size_t *idx, bool writes)
{
	struct query_at *order = malloc((n ? n : 1) * sizeof *order);
	/* The last packet or write so far of each connection and direction. */
	size_t *last = malloc((t->nc ? t->nc : 1) * 2 * sizeof *last);
	if (!order || !last) {
		free(order);
		free(last);
		return -1;
	}
	for (size_t k = 0; k < n; k++)
		/* The packets' times were undilated as they were read. */
		order[k] = (struct query_at){ t->opt.dilation != 1 ? undilate(t, q[k].ts) : q[k].ts, k };
	for (size_t c = 0; c < t->nc * 2; c++)
		last[c] = PREDICT_NO_PACKET;
	qsort(order, n, sizeof *order, query_by_time);
	size_t i = 0, end = writes ? t->nw : t->np;
	for (size_t j = 0; j < n; j++) {
		const struct predict_packet_query *a = &q[order[j].k];
		for (; i < end; i++) {
			uint64_t ts = writes ? t->w[i].ts : t->p[i].ts;
			if (ts > order[j].ts)
				break;
			size_t conn = writes ? t->w[i].conn : t->p[i].conn;
			unsigned dir = writes ? t->w[i].dir : t->p[i].dir;
			if (conn < t->nc && (!writes || t->w[i].len))
				last[conn * 2 + (dir & 1)] = i;
		}
		size_t at = a->conn < t->nc ? last[a->conn * 2 + (a->dir & 1)] : PREDICT_NO_PACKET;
		uint64_t at_ts = at == PREDICT_NO_PACKET ? 0 : writes ? t->w[at].ts : t->p[at].ts;
		idx[order[j].k] = at != PREDICT_NO_PACKET && at_ts == order[j].ts ? at : PREDICT_NO_PACKET;
	}
	free(order);
	free(last);
	return 0;
}

int predict_find_packets(struct predict_trace *t, const struct predict_packet_query *q, size_t n,
			 size_t *idx)
{
	return find_at_time(t, q, n, idx, false);
}

int predict_find_writes(struct predict_trace *t, const struct predict_packet_query *q,
			size_t n, size_t *idx)
{
	return find_at_time(t, q, n, idx, true);
}

void predict_tie_input(struct predict_trace *t, size_t w)
{
	if (w < t->nw && t->w[w].dir == XDIR_S2C)
		t->w[w].input = true;
}

/* ---- lists ---- */

/* The grammar of units.h, in the model's ranges: a rate from 1 bit/s to
   1 Tbit/s, a latency up to about 17 minutes (a bare number is ms). */
int predict_parse_rates(const char *s, uint64_t *out, size_t max)
{
	int n = units_rate_list(s, out, max);
	for (int i = 0; i < n; i++)
		if (out[i] < 1 || out[i] > 1000000000000ull)
			return -1;
	return n;
}

int predict_parse_delays(const char *s, uint64_t *out, size_t max)
{
	int n = units_duration_list(s, UNITS_MS, out, max);
	for (int i = 0; i < n; i++)
		if (out[i] > 1000000 * UNITS_MS)
			return -1;
	return n;
}

void predict_format_rate(char *buf, size_t len, uint64_t rate)
{
	static const struct { uint64_t unit; const char *suffix; } units[] = {
		{ 1000000000, "G" }, { 1000000, "M" }, { 1000, "k" },
	};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (rate >= units[i].unit) {
			snprintf(buf, len, "%g%s", (double)rate / (double)units[i].unit, units[i].suffix);
			return;
		}
	snprintf(buf, len, "%llu", (unsigned long long)rate);
}
