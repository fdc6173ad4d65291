/*
 * frames_view.c — --frames: Wayland's frame pacing, per surface.
 *
 * A client asks for a frame callback (wl_surface.frame) when it commits
 * what it drew; the compositor answers (wl_callback.done, with its own
 * time in ms) when it is a good time to draw the next frame, at its next
 * repaint.  A client that animates draws as soon as the answer comes, so
 * the answers of one surface follow each other by one refresh period of
 * its output, or by several when the frame came late: over a link, the
 * answer and the next frame cross it both ways before the next repaint.
 *
 * Per surface: the frames answered; the intervals between consecutive
 * answers by the compositor's clock (done's argument), each k refresh
 * periods, k = floor(interval / period + 1/4): k = 1 on time, k >= 2 (an
 * interval of 1.75 periods or more) a late frame with k - 1 missed
 * repaints.  The period is the output's current mode
 * (wl_output.mode's refresh, mHz) seen on the connection, else the
 * refresh a presentation feedback gave (wp_presentation_feedback.presented,
 * ns), else the shortest interval seen: then a surface that never drew at
 * the output's rate (over a long link) shows no late frame, and the view
 * says where each period came from.  An interval whose frame the client asked for
 * more than --frame-idle after the previous answer came (as captured) is
 * idle, not late: the client had nothing to draw (a terminal between
 * keys).  Beside the compositor that time includes the link's round trip.
 * fps counts the paced intervals only.  Wait: from a frame request to its
 * answer, as captured.
 *
 * Over waypipe, the buffer bytes each commit cost on the wire, as the
 * decoder ties waypipe's fills and diffs to the buffer a commit shows
 * (protocols/wayland.c: through the fds' remote ids, the pool, the
 * buffer and attach): Commits counts the surface's commits, Tied those
 * whose buffer the tie reached, Bytes/commit their mean; a surface the
 * capture saw created before its buffer's pool (or begun mid-channel) has
 * none tied.
 *
 * Memory: per surface a histogram of the intervals (1 ms buckets up to
 * 2 s), so that the period can be chosen at the end.
 *
 * Belongs to: the xcapanalyse command's room (xcapanalyse/cmd/xcapanalyse/).
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views.h"
#include "wlmsg.h"

#define HIST_MS 2000

struct pending {
	uint32_t conn, callback, surface;
	uint64_t asked;			/* the frame request, as captured */
	uint64_t sent_before;		/* the client's bytes before it, as captured */
	bool counted;			/* asked inside --range */
};

struct surface {
	uint32_t conn, id;
	uint64_t frames;
	bool have_last;
	uint32_t last_ms;		/* the previous answer, compositor's clock */
	uint64_t last_seen;		/* ... as captured */
	uint64_t idle, wait_sum, waits;
	uint32_t shortest, longest;
	uint32_t hist[HIST_MS + 1];	/* paced intervals by ms; the last: longer */
	uint64_t long_ms;		/* their total beyond the histogram */
	uint64_t commits, tied, buffer_bytes;
	bool counted;			/* a frame or commit of it inside --range */
};

struct output_period {
	uint32_t conn;
	uint64_t period_ns;
	const char *from;		/* "output", "presented" */
};

/* When a connection's client last sent bytes, as captured. */
struct sent {
	uint32_t conn;
	uint64_t ts, before;	/* its last packet with data, and the one before */
};

struct frames_view {
	FILE *out;
	enum out_format fmt;
	uint64_t idle_ns;
	struct pending *pend;
	size_t npend, cappend;
	struct surface *surf;
	size_t nsurf, capsurf;
	struct output_period *outs;
	size_t nouts;
	struct sent *sent;
	size_t nsent, capsent;
};

struct frames_view *frames_view_new(FILE *out, enum out_format fmt, uint64_t idle_ns)
{
	struct frames_view *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->out = out;
	v->fmt = fmt;
	v->idle_ns = idle_ns;
	return v;
}

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	size_t c = *cap ? *cap * 2 : 16;
	void *q = realloc(p, c * size);
	if (q)
		*cap = c;
	return q;
}

static struct surface *surface_of(struct frames_view *v, uint32_t conn, uint32_t id)
{
	for (size_t i = 0; i < v->nsurf; i++)
		if (v->surf[i].conn == conn && v->surf[i].id == id)
			return &v->surf[i];
	struct surface *s = grow(v->surf, &v->capsurf, v->nsurf, sizeof *s);
	if (!s)
		return NULL;
	v->surf = s;
	s = &v->surf[v->nsurf++];
	memset(s, 0, sizeof *s);
	s->conn = conn;
	s->id = id;
	return s;
}

static struct sent *sent_of(struct frames_view *v, uint32_t conn)
{
	for (size_t i = 0; i < v->nsent; i++)
		if (v->sent[i].conn == conn)
			return &v->sent[i];
	struct sent *s = grow(v->sent, &v->capsent, v->nsent, sizeof *s);
	if (!s)
		return NULL;
	v->sent = s;
	v->sent[v->nsent] = (struct sent){ conn, 0, 0 };
	return &v->sent[v->nsent++];
}

static int on_frame(struct frames_view *v, const struct xrec_msg *g, const struct wlmsg *m,
		    bool in_range)
{
	uint64_t cb;
	if (!wlmsg_u64(m, 0, &cb))
		return 0;
	struct sent *last = sent_of(v, g->conn);
	if (!last)
		return -1;
	/* the packets before the one that holds the request */
	struct pending n = { g->conn, (uint32_t)cb, m->id, g->ts,
			     last->ts == g->ts ? last->before : last->ts, in_range };
	for (size_t i = 0; i < v->npend; i++)
		if (v->pend[i].conn == g->conn && v->pend[i].callback == cb) {
			/* an id used again: the earlier request was never answered */
			v->pend[i] = n;
			return 0;
		}
	struct pending *p = grow(v->pend, &v->cappend, v->npend, sizeof *p);
	if (!p)
		return -1;
	v->pend = p;
	v->pend[v->npend++] = n;
	return 0;
}

static int on_done(struct frames_view *v, const struct xrec_msg *g, const struct wlmsg *m)
{
	uint64_t ms;
	size_t i;
	for (i = 0; i < v->npend; i++)
		if (v->pend[i].conn == g->conn && v->pend[i].callback == m->id)
			break;
	if (i == v->npend || !wlmsg_u64(m, 0, &ms))
		return 0;	/* a sync's callback, or one asked before the capture */
	struct pending p = v->pend[i];
	v->pend[i] = v->pend[--v->npend];
	struct surface *s = surface_of(v, g->conn, p.surface);
	if (!s)
		return -1;
	/* Outside --range an answer is only the previous one of the next. */
	if (p.counted) {
		s->counted = true;
		s->frames++;
		s->wait_sum += g->ts - p.asked;
		s->waits++;
	}
	if (s->have_last && p.counted) {
		uint32_t d = (uint32_t)ms - s->last_ms;	/* the clock wraps at 2^32 ms */
		/* idle: the client sent nothing from the answer to its next
		   request for more than the quiet period (bytes of a frame
		   still leaving over a slow link are not idle) */
		uint64_t from = p.sent_before > s->last_seen ? p.sent_before : s->last_seen;
		if (p.asked > from && p.asked - from > v->idle_ns) {
			s->idle++;
		} else {
			if (d <= HIST_MS)
				s->hist[d]++;
			else {
				s->hist[HIST_MS]++;
				s->long_ms += d;
			}
			if (d && (!s->shortest || d < s->shortest))
				s->shortest = d;
			if (d > s->longest)
				s->longest = d;
		}
	}
	s->have_last = true;
	s->last_ms = (uint32_t)ms;
	s->last_seen = g->ts;
	return 0;
}

/* The connection's refresh period: an output's current mode says it
   first; a presentation feedback's refresh where no mode was seen. */
static int set_period(struct frames_view *v, uint32_t conn, uint64_t ns, const char *from)
{
	for (size_t i = 0; i < v->nouts; i++)
		if (v->outs[i].conn == conn) {
			if (strcmp(from, "output") == 0 || strcmp(v->outs[i].from, "output") != 0)
				v->outs[i] = (struct output_period){ conn, ns, from };
			return 0;
		}
	struct output_period *o = realloc(v->outs, (v->nouts + 1) * sizeof *o);
	if (!o)
		return -1;
	v->outs = o;
	v->outs[v->nouts++] = (struct output_period){ conn, ns, from };
	return 0;
}

int frames_view_record(struct frames_view *v, const struct xrec *rec, bool in_range)
{
	if (rec->type == XREC_PKT && rec->u.pkt.dir == XDIR_C2S && rec->u.pkt.len) {
		/* before its messages: a message's time is its last packet's */
		struct sent *s = sent_of(v, rec->u.pkt.conn);
		if (!s)
			return -1;
		s->before = s->ts;
		s->ts = rec->u.pkt.ts;
		return 0;
	}
	if (rec->type != XREC_MSG)
		return 0;
	const struct xrec_msg *g = &rec->u.msg;
	struct wlmsg m;
	if (g->dir == XDIR_C2S && wlmsg_is(g, "wl_surface", "commit")) {
		if (!wlmsg_parse(g->detail, &m))
			return 0;
		struct surface *s = surface_of(v, g->conn, m.id);
		if (!s)
			return -1;
		uint64_t bytes;
		if (!in_range)
			return 0;
		s->counted = true;
		s->commits++;
		if (wlmsg_buffer_bytes(g->detail, &bytes)) {
			s->tied++;
			s->buffer_bytes += bytes;
		}
	} else if (g->dir == XDIR_C2S && wlmsg_is(g, "wl_surface", "frame")) {
		if (wlmsg_parse(g->detail, &m))
			return on_frame(v, g, &m, in_range);
	} else if (g->dir == XDIR_S2C && wlmsg_is(g, "wl_callback", "done")) {
		if (wlmsg_parse(g->detail, &m))
			return on_done(v, g, &m);
	} else if (g->dir == XDIR_S2C && wlmsg_is(g, "wl_output", "mode")) {
		uint64_t flags, mhz;
		if (wlmsg_parse(g->detail, &m) && wlmsg_u64(&m, 0, &flags) && (flags & 1) &&
		    wlmsg_u64(&m, 3, &mhz) && mhz)
			return set_period(v, g->conn, 1000000000000ull / mhz, "output");
	} else if (g->dir == XDIR_S2C && wlmsg_is(g, "wp_presentation_feedback", "presented")) {
		uint64_t ns;
		if (wlmsg_parse(g->detail, &m) && wlmsg_u64(&m, 3, &ns) && ns)
			return set_period(v, g->conn, ns, "presented");
	}
	return 0;
}

static const struct out_column frame_cols[] = {
	{ "conn", "Conn", OUT_COL_UINT, 4, 0 },
	{ "surface", "Surface", OUT_COL_STR, -16, 0 },
	{ "frames", "Frames", OUT_COL_UINT, 7, 0 },
	{ "fps", "FPS", OUT_COL_NUMBER, 7, 0 },
	{ "period", "Period", OUT_COL_MILLISECONDS, 8, 3 },
	{ "period_from", "From", OUT_COL_STR, -8, 0 },
	{ "longest", "Longest", OUT_COL_MILLISECONDS, 9, 1 },
	{ "late", "Late", OUT_COL_UINT, 6, 0 },
	{ "missed", "Missed", OUT_COL_UINT, 7, 0 },
	{ "idle", "Idle", OUT_COL_UINT, 6, 0 },
	{ "wait", "Wait", OUT_COL_MILLISECONDS, 9, 3 },
	{ "commits", "Commits", OUT_COL_UINT, 8, 0 },
	{ "tied", "Tied", OUT_COL_UINT, 6, 0 },
	{ "bytes_per_commit", "Bytes/commit", OUT_COL_UINT, 13, 0 },
};

void frames_view_finish(struct frames_view *v)
{
	struct out_table t;
	out_json_open(v->out, v->fmt);
	out_table_begin(&t, v->out, v->fmt, frame_cols, sizeof frame_cols / sizeof frame_cols[0],
			"frames");
	size_t shown = 0;
	for (size_t i = 0; i < v->nsurf; i++) {
		const struct surface *s = &v->surf[i];
		if (!s->counted)
			continue;
		uint64_t period = 0;
		const char *from = "";
		for (size_t k = 0; k < v->nouts; k++)
			if (v->outs[k].conn == s->conn) {
				period = v->outs[k].period_ns;
				from = v->outs[k].from;
			}
		if (!period && s->shortest) {
			period = (uint64_t)s->shortest * 1000000;
			from = "shortest";
		}
		uint64_t paced = 0, paced_ms = s->long_ms, late = 0, missed = 0;
		for (uint32_t d = 0; d <= HIST_MS; d++) {
			uint64_t n = s->hist[d];
			if (!n)
				continue;
			paced += n;
			if (d < HIST_MS)
				paced_ms += (uint64_t)d * n;
			if (!period)
				continue;
			/* whole periods, late from 1.75 of them: the clock is in
			   ms, and a compositor's timer need not keep to the mode
			   it announces (weston's headless output announces 60 Hz
			   and repaints every 25 ms) */
			uint64_t ns = d < HIST_MS ? (uint64_t)d * 1000000 : s->long_ms / n * 1000000;
			uint64_t k = (ns + period / 4) / period;
			if (k >= 2) {
				late += n;
				missed += (k - 1) * n;
			}
		}
		char name[32], fps[32] = "";
		snprintf(name, sizeof name, "wl_surface@%u", s->id);
		if (paced_ms)
			snprintf(fps, sizeof fps, "%.2f", paced * 1000.0 / (double)paced_ms);
		struct out_cell cells[] = {
			{ .u = s->conn }, { .s = name }, { .u = s->frames }, { .s = fps },
			{ .ns = (int64_t)period, .empty = !period }, { .s = from },
			{ .ns = (int64_t)s->longest * 1000000, .empty = !paced },
			{ .u = late }, { .u = missed }, { .u = s->idle },
			{ .ns = s->waits ? (int64_t)(s->wait_sum / s->waits) : 0, .empty = !s->waits },
			{ .u = s->commits }, { .u = s->tied },
			{ .u = s->tied ? s->buffer_bytes / s->tied : 0, .empty = !s->tied },
		};
		out_table_row(&t, cells);
		shown++;
	}
	out_table_end(&t);
	if (!shown)
		out_sentence(v->out, v->fmt, "", "No frame callback was answered (wl_surface.frame, "
			     "then wl_callback.done): no Wayland surface drew in this trace.");
	out_json_close(v->out, v->fmt);
	free(v->pend);
	free(v->surf);
	free(v->outs);
	free(v->sent);
	free(v);
}
