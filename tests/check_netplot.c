/*
 * check_netplot.c — netplot's renderer core: coordinate transforms and
 * zooming, time axis labels, the level-of-detail index against a full pass
 * over random data (per range and per pixel column), label thinning, and
 * the model's unwrapping, reply matching and region statistics.
 */
#include "config.h"

#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"
#include "render.h"
#include "series.h"
#include "sites.h"
#include "source.h"
#include "tcpstats.h"

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)	/* xorshift: the same data on every run */
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* ---- transforms ---- */

static struct np_model *one_conn_model(void)
{
	struct np_model *m = np_model_new();
	struct xrec r = { .type = XREC_CONN };
	r.u.conn = (struct xrec_conn){ .ts = 1000000000, .id = 1, .proto = "x11" };
	np_model_add(m, &r);
	r.type = XREC_PKT;
	for (int i = 0; i < 10; i++) {
		r.u.pkt = (struct xrec_pkt){ .ts = 1000000000ull + i * 1000000ull, .conn = 1,
			.dir = XDIR_C2S, .tcp_flags = XTCP_ACK, .seq = 100 + i * 100, .ack = 7,
			.win = 1000, .len = 100 };
		np_model_add(m, &r);
	}
	np_model_finish(m);
	return m;
}

START_TEST(transforms_invert)
{
	struct np_model *m = one_conn_model();
	struct np_view v;
	np_view_init(&v, m, 0, 0, 800, 600);
	ck_assert_double_eq_tol(np_x(&v, v.t0), v.px, 1e-9);
	ck_assert_double_eq_tol(np_x(&v, v.t1), v.px + v.pw, 1e-9);
	ck_assert_double_eq_tol(np_y(&v, v.y0), v.py + v.ph, 1e-9);
	ck_assert_double_eq_tol(np_y(&v, v.y1), v.py, 1e-9);
	for (int i = 0; i < 100; i++) {
		double x = v.px + (double)(rnd() % 1000) / 1000 * v.pw;
		double y = v.py + (double)(rnd() % 1000) / 1000 * v.ph;
		ck_assert_double_eq_tol(np_x(&v, np_t_at(&v, x)), x, 1e-6);
		ck_assert_double_eq_tol(np_y(&v, np_seq_at(&v, y)), y, 1e-6);
	}
	/* the fit covers all data: first and last segment inside the plot */
	const struct np_dir *d = &m->conn[0].dir[0];
	ck_assert(np_x(&v, (double)d->pkt[0].t) > v.px);
	ck_assert(np_x(&v, (double)d->pkt[9].t) < v.px + v.pw);
	ck_assert(np_y(&v, (double)d->pkt[9].seq + 100) > v.py);
	ck_assert(np_y(&v, (double)d->pkt[0].seq) < v.py + v.ph);
	np_model_free(m);
}
END_TEST

START_TEST(zoom_keeps_point)
{
	struct np_model *m = one_conn_model();
	struct np_view v;
	np_view_init(&v, m, 0, 0, 800, 600);
	double x = 300, y = 200, t = np_t_at(&v, x), s = np_seq_at(&v, y);
	np_view_zoom(&v, 0.5, 0.25, x, y);
	ck_assert_double_eq_tol(np_t_at(&v, x), t, 1e-3);
	ck_assert_double_eq_tol(np_seq_at(&v, y), s, 1e-6);
	double t0 = v.t0, t1 = v.t1;
	np_view_zoom(&v, 2, 4, x, y);	/* and back */
	ck_assert_double_eq_tol((v.t1 - v.t0) / (t1 - t0), 2, 1e-9);

	/* a dragged rectangle becomes the plot */
	double ta = np_t_at(&v, 150), tb = np_t_at(&v, 400);
	double sa = np_seq_at(&v, 500), sb = np_seq_at(&v, 100);
	np_view_zoom_rect(&v, 400, 100, 150, 500);	/* dragged right to left */
	ck_assert_double_eq_tol(v.t0, ta, 1e-3);
	ck_assert_double_eq_tol(v.t1, tb, 1e-3);
	ck_assert_double_eq_tol(v.y0, sa, 1e-6);
	ck_assert_double_eq_tol(v.y1, sb, 1e-6);

	/* panning by pixels moves the data by as many pixels */
	double before = np_x(&v, 5e6);
	np_view_pan(&v, 37, 0);
	ck_assert_double_eq_tol(np_x(&v, 5e6), before + 37, 1e-6);

	/* zooming never goes below 10 ns across the plot */
	for (int i = 0; i < 200; i++)
		np_view_zoom(&v, 0.1, 0.1, 300, 300);
	ck_assert(v.t1 - v.t0 >= 10 - 1e-9);
	ck_assert(v.y1 - v.y0 >= 4 - 1e-9);
	np_model_free(m);
}
END_TEST

/* ---- time axis ---- */

START_TEST(time_labels)
{
	char b[64];
	np_format_time(3723.5e9, 1e8, b, sizeof b);
	ck_assert_str_eq(b, "1:02:03.5");
	np_format_time(0.3e9, 1e8, b, sizeof b);
	ck_assert_str_eq(b, "0:00:00.3");
	np_format_time(5e9, 1e9, b, sizeof b);
	ck_assert_str_eq(b, "0:00:05");
	np_format_time(65e9, 15e9, b, sizeof b);
	ck_assert_str_eq(b, "0:01:05");
	np_format_time(1.000002e9, 1e3, b, sizeof b);
	ck_assert_str_eq(b, "0:00:01.000002");
	np_format_time(59.9999999e9, 1e6, b, sizeof b);	/* rounds up across a minute */
	ck_assert_str_eq(b, "0:01:00.000");
	np_format_time(7.000000123e9, 1, b, sizeof b);
	ck_assert_str_eq(b, "0:00:07.000000123");

	/* At every zoom from 10 ns to a day the step gives 3 to 20 ticks and
	   consecutive tick labels differ (so they stay readable). */
	for (double span = 10; span < 86400e9 * 2; span *= 1.7) {
		double step = np_time_step(span, 8);
		double n = span / step;
		ck_assert_msg(n >= 3 && n <= 20, "span %g: step %g gives %g ticks", span, step, n);
		char a[64];
		double t = floor(12345.678e9 / step) * step;
		np_format_time(t, step, a, sizeof a);
		np_format_time(t + step, step, b, sizeof b);
		ck_assert_msg(strcmp(a, b) != 0, "span %g: '%s' twice", span, a);
	}
	ck_assert_double_eq(np_time_step(60e9, 4), 15e9);
	ck_assert_double_eq(np_time_step(3600e9, 6), 600e9);
	ck_assert_double_eq(np_num_step(1000, 10), 100);
	ck_assert_double_eq(np_num_step(37, 10), 5);
}
END_TEST

/* ---- LOD index ---- */

static void random_dir(struct np_dir *d, size_t n)
{
	memset(d, 0, sizeof *d);
	d->pkt = calloc(n ? n : 1, sizeof *d->pkt);
	d->npkt = d->pkt_cap = n;
	uint64_t t = 0;
	int64_t seq = 0, ack = 0;
	for (size_t i = 0; i < n; i++) {
		struct np_pkt *p = &d->pkt[i];
		t += rnd() % 1000;
		p->t = t;
		/* mostly growing, sometimes back (retransmission) */
		seq += (int64_t)(rnd() % 3000) - (rnd() % 10 == 0 ? 5000 : 0);
		p->seq = seq;
		p->len = rnd() % 4 == 0 ? 0 : (uint32_t)(rnd() % 1500);
		p->flags = (uint8_t)(rnd() % 3 ? XTCP_ACK : 0) | (rnd() % 50 == 0 ? XTCP_SYN : 0);
		ack += (int64_t)(rnd() % 2000);
		p->ack = ack;
		p->win = (uint32_t)(rnd() % 70000);
		p->events = rnd() % 30 == 0 ? XPKT_RETRANS : 0;
	}
	d->msg = calloc(n ? n : 1, sizeof *d->msg);
	d->nmsg = d->msg_cap = n / 2;
	t = 0;
	for (size_t i = 0; i < d->nmsg; i++) {
		t += rnd() % 2000;
		d->msg[i].t = t;
		d->msg[i].end = (int64_t)(rnd() % 1000000) - 1000;
		d->msg[i].prio = (uint8_t)(rnd() % 7 * 40);
	}
	ck_assert_int_eq(np_lod_build(d), 0);
}

static void full_pass(const struct np_dir *d, size_t i0, size_t i1, struct np_pagg *a)
{
	np_pagg_empty(a);
	for (size_t i = i0; i < i1; i++)
		np_pagg_add_pkt(a, &d->pkt[i]);
}

static void assert_pagg_eq(const struct np_pagg *a, const struct np_pagg *b)
{
	ck_assert_int_eq(a->dlo, b->dlo);
	ck_assert_int_eq(a->dhi, b->dhi);
	ck_assert_int_eq(a->alo, b->alo);
	ck_assert_int_eq(a->ahi, b->ahi);
	ck_assert_int_eq(a->wlo, b->wlo);
	ck_assert_int_eq(a->whi, b->whi);
	ck_assert_uint_eq(a->bytes, b->bytes);
	ck_assert_uint_eq(a->marks, b->marks);
	ck_assert_uint_eq(a->ndata, b->ndata);
}

static void free_dir(struct np_dir *d)
{
	np_lod_free(d);
	free(d->pkt);
	free(d->msg);
}

START_TEST(lod_ranges_match_full_pass)
{
	static const size_t sizes[] = { 0, 1, 15, 16, 17, 255, 256, 257, 4097, 70001 };
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		struct np_dir d;
		random_dir(&d, sizes[s]);
		for (int k = 0; k < 300; k++) {
			size_t n = d.npkt, i0 = n ? rnd() % (n + 1) : 0, i1 = n ? rnd() % (n + 1) : 0;
			if (i0 > i1) {
				size_t x = i0;
				i0 = i1;
				i1 = x;
			}
			if (k == 0) {
				i0 = 0;
				i1 = n;
			}
			struct np_pagg a, b;
			np_pkt_range(&d, i0, i1, &a);
			full_pass(&d, i0, i1, &b);
			assert_pagg_eq(&a, &b);

			size_t m = d.nmsg, j0 = m ? rnd() % (m + 1) : 0, j1 = m ? rnd() % (m + 1) : 0;
			if (j0 > j1) {
				size_t x = j0;
				j0 = j1;
				j1 = x;
			}
			struct np_magg ma;
			np_msg_range(&d, j0, j1, &ma);
			int64_t lo = INT64_MAX, hi = INT64_MIN;
			uint32_t best = UINT32_MAX;
			uint8_t prio = 0;
			for (size_t j = j0; j < j1; j++) {
				lo = d.msg[j].end < lo ? d.msg[j].end : lo;
				hi = d.msg[j].end > hi ? d.msg[j].end : hi;
				if (best == UINT32_MAX || d.msg[j].prio > prio) {
					prio = d.msg[j].prio;
					best = (uint32_t)j;
				}
			}
			ck_assert_uint_eq(ma.count, j1 - j0);
			if (j1 > j0) {
				ck_assert_int_eq(ma.elo, lo);
				ck_assert_int_eq(ma.ehi, hi);
				ck_assert_uint_eq(ma.best, best);	/* earliest of the best */
				ck_assert_uint_eq(ma.prio, prio);
			}
		}
		free_dir(&d);
	}
}
END_TEST

/* What the renderer asks: per pixel column of a view, the extremes of the
   items in its time span; the same as one pass over all items bucketed by
   column. */
START_TEST(lod_columns_match_full_pass)
{
	struct np_dir d;
	random_dir(&d, 200000);
	uint64_t tmax = d.pkt[d.npkt - 1].t;
	for (int k = 0; k < 20; k++) {
		size_t cols = 1 + rnd() % 1500;
		double t0 = (double)(rnd() % tmax), t1 = t0 + 1 + (double)(rnd() % (tmax - (uint64_t)t0 + 1000));
		if (k == 0) {
			t0 = 0;
			t1 = (double)tmax + 1;
		}
		double tpp = (t1 - t0) / cols;
		struct np_pagg *ref = malloc(cols * sizeof *ref);
		for (size_t c = 0; c < cols; c++)
			np_pagg_empty(&ref[c]);
		for (size_t i = 0; i < d.npkt; i++) {
			double t = (double)d.pkt[i].t;
			if (t < ceil(t0))
				continue;
			if (t >= ceil(t0 + cols * tpp))
				break;
			/* the first column whose end is past t, as the renderer cuts them */
			size_t c = (size_t)fmax(0, floor((t - t0) / tpp) - 2);
			while (t >= ceil(t0 + (c + 1) * tpp))
				c++;
			np_pagg_add_pkt(&ref[c], &d.pkt[i]);
		}
		size_t prev = np_pkt_lower(&d, (uint64_t)ceil(t0));
		for (size_t c = 0; c < cols; c++) {
			size_t next = np_pkt_lower(&d, (uint64_t)ceil(t0 + (c + 1) * tpp));
			struct np_pagg a;
			np_pkt_range(&d, prev, next, &a);
			assert_pagg_eq(&a, &ref[c]);
			prev = next;
		}
		free(ref);
	}
	free_dir(&d);
}
END_TEST

/* The renderer finds each column's edge from the previous one's
   (np_*_lower_from): the same answers as a search of the whole array, for
   any start at or before the answer, keys past either end, repeated times
   and intervals back to back. */
START_TEST(lower_from_matches_lower)
{
	struct np_dir d;
	random_dir(&d, 50000);
	size_t niv = 3000;
	d.iv = calloc(niv, sizeof *d.iv);
	d.niv = niv;
	uint64_t t = 0;
	for (size_t i = 0; i < niv; i++) {
		t += rnd() % 3 ? rnd() % 500 : 0;	/* sometimes back to back */
		d.iv[i].start = t;
		t += 1 + rnd() % 5000;
		d.iv[i].end = t;
	}
	uint64_t tmax = d.pkt[d.npkt - 1].t + 2000;
	for (int k = 0; k < 20000; k++) {
		uint64_t key = k == 0 ? 0 : k == 1 ? UINT64_MAX : rnd() % tmax;
		if (k % 7 == 0 && d.npkt)	/* exactly a packet's time */
			key = d.pkt[rnd() % d.npkt].t;
		size_t want = np_pkt_lower(&d, key);
		size_t from = want ? rnd() % (want + 1) : 0;
		ck_assert_uint_eq(np_pkt_lower_from(&d, from, key), want);
		ck_assert_uint_eq(np_pkt_lower_from(&d, want, key), want);
		want = np_msg_lower(&d, key);
		from = want ? rnd() % (want + 1) : 0;
		ck_assert_uint_eq(np_msg_lower_from(&d, from, key), want);
		want = np_iv_lower(&d, key);
		from = want ? rnd() % (want + 1) : 0;
		ck_assert_uint_eq(np_iv_lower_from(&d, from, key), want);
	}
	free(d.iv);
	d.iv = NULL;
	d.niv = 0;
	free_dir(&d);
}
END_TEST

/* ---- label thinning ---- */

static bool boxes_overlap(const struct np_label *a, const struct np_label *b)
{
	return a->bx < b->bx + b->w && b->bx < a->bx + a->w && a->by < b->by + b->h &&
	       b->by < a->by + a->h;
}

START_TEST(labels_never_overlap)
{
	for (int round = 0; round < 20; round++) {
		size_t n = 1 + rnd() % 2000;
		struct np_label *l = calloc(n, sizeof *l);
		for (size_t i = 0; i < n; i++)
			l[i] = (struct np_label){ .ax = (double)(rnd() % 800), .ay = (double)(rnd() % 600),
				.w = 20 + (double)(rnd() % 100), .h = 11, .prio = (uint8_t)(rnd() % 5),
				.order = (uint32_t)i };
		np_place_labels(l, n, 0, 0, 800, 600);
		size_t placed = 0;
		for (size_t i = 0; i < n; i++) {
			if (!l[i].placed)
				continue;
			placed++;
			ck_assert(l[i].bx >= 0 && l[i].by >= 0 && l[i].bx + l[i].w <= 800 &&
				  l[i].by + l[i].h <= 600);
			for (size_t j = i + 1; j < n; j++)
				ck_assert_msg(!l[j].placed || !boxes_overlap(&l[i], &l[j]),
					      "labels %zu and %zu overlap", i, j);

		}
		ck_assert(placed > 0);
		free(l);
	}
}
END_TEST

START_TEST(labels_keep_off_points)
{
	/* B's point lies where A would go first (above right of A's point);
	   A goes elsewhere rather than hide it.  Alone, A takes that place. */
	struct np_label l[2] = {
		{ .ax = 100, .ay = 100, .w = 50, .h = 11, .prio = 9, .order = 0 },
		{ .ax = 130, .ay = 85, .w = 50, .h = 11, .prio = 1, .order = 1 },
	};
	np_place_labels(l, 2, 0, 0, 400, 300);
	ck_assert(l[0].placed && l[1].placed);
	ck_assert(!(l[1].ax > l[0].bx - 3 && l[1].ax < l[0].bx + l[0].w + 3 &&
		    l[1].ay > l[0].by - 3 && l[1].ay < l[0].by + l[0].h + 3));
	np_place_labels(l, 1, 0, 0, 400, 300);
	ck_assert_double_eq(l[0].bx, 106);
	ck_assert_double_eq(l[0].by, 79);
	/* with nowhere else to go, the more important label still shows */
	np_place_labels(l, 2, 0, 0, 160, 100);
	ck_assert(l[0].placed);
}
END_TEST

START_TEST(labels_thin_by_priority_and_reappear)
{
	/* 200 labels on one spot: one shown per free position, the most
	   important first. */
	enum { N = 200 };
	struct np_label l[N];
	for (int i = 0; i < N; i++)
		l[i] = (struct np_label){ .ax = 400, .ay = 300, .w = 60, .h = 11,
			.prio = (uint8_t)(i == 123 ? 200 : i % 7), .order = (uint32_t)i };
	np_place_labels(l, N, 0, 0, 800, 600);
	int placed = 0;
	for (int i = 0; i < N; i++)
		placed += l[i].placed;
	ck_assert_int_le(placed, 8);	/* one per position tried */
	ck_assert(l[123].placed);
	/* the others placed are of the next priority (6), earliest first */
	ck_assert(l[6].placed);
	/* zoomed in, the same labels spread out (a grid 150 by 13 px) and all
	   reappear */
	for (int i = 0; i < N; i++) {
		l[i].ax = 10 + (i / 40) * 150;
		l[i].ay = 60 + (i % 40) * 13;
	}
	np_place_labels(l, N, 0, 0, 800, 600);
	placed = 0;
	for (int i = 0; i < N; i++)
		placed += l[i].placed;
	ck_assert_int_eq(placed, N);
}
END_TEST

/* ---- model ---- */

START_TEST(model_unwraps_and_matches_replies)
{
	struct np_model *m = np_model_new();
	struct xrec r = { .type = XREC_CONN };
	r.u.conn = (struct xrec_conn){ .ts = 5000, .id = 1, .proto = "x11" };
	np_model_add(m, &r);
	/* client data crossing 2^32, server acking it */
	uint32_t seq = 0xffffff00u;
	uint64_t ts = 5000;
	for (int i = 0; i < 8; i++) {
		r.type = XREC_PKT;
		r.u.pkt = (struct xrec_pkt){ .ts = ts += 1000, .conn = 1, .dir = XDIR_C2S,
			.tcp_flags = XTCP_ACK, .seq = seq, .ack = 1, .win = 4096, .len = 100 };
		np_model_add(m, &r);
		r.u.pkt = (struct xrec_pkt){ .ts = ts += 1000, .conn = 1, .dir = XDIR_S2C,
			.tcp_flags = XTCP_ACK, .seq = 1, .ack = seq + 100, .win = 8192, .len = 0 };
		np_model_add(m, &r);
		seq += 100;
	}
	/* a request wanting a reply and its reply, then another without */
	r.type = XREC_MSG;
	r.u.msg = (struct xrec_msg){ .ts = 7000, .conn = 1, .dir = XDIR_C2S, .kind = XMSG_REQUEST,
		.flags = XMSG_F_WANTS_REPLY, .seq = 70000, .tcp_end = 0xffffff00u + 100,
		.name = "InternAtom", .ext = "", .detail = "WM_PROTOCOLS" };
	np_model_add(m, &r);
	r.u.msg = (struct xrec_msg){ .ts = 8000, .conn = 1, .dir = XDIR_C2S, .kind = XMSG_REQUEST,
		.seq = 70001, .tcp_end = 0xffffff00u + 200, .name = "MapWindow", .ext = "", .detail = "" };
	np_model_add(m, &r);
	r.u.msg = (struct xrec_msg){ .ts = 9000, .conn = 1, .dir = XDIR_S2C, .kind = XMSG_REPLY,
		.seq = 70000, .tcp_end = 33, .name = "InternAtom", .ext = "", .detail = "",
		.req_ts = 7000, .req_end = 0xffffff00u + 100 };
	np_model_add(m, &r);
	ck_assert_int_eq(np_model_finish(m), 0);

	const struct np_dir *c2s = &m->conn[0].dir[0], *s2c = &m->conn[0].dir[1];
	ck_assert_uint_eq(c2s->npkt, 8);
	for (int i = 0; i < 8; i++) {
		ck_assert_int_eq(c2s->pkt[i].seq, i * 100);	/* no jump at the wrap */
		ck_assert_int_eq(s2c->pkt[i].ack, i * 100 + 100);
	}
	ck_assert_int_eq(c2s->msg[0].end, 100);
	ck_assert_int_eq(c2s->msg[1].end, 200);
	ck_assert_uint_eq(c2s->msg[0].reply_t, 9000 - 5000);
	ck_assert_uint_eq(c2s->msg[1].reply_t, 0);
	ck_assert_uint_gt(c2s->msg[0].prio, c2s->msg[1].prio);	/* waited for: label first */
	ck_assert_str_eq(np_str(m, c2s->msg[0].detail), "WM_PROTOCOLS");
	ck_assert_uint_eq(c2s->msg[0].name, s2c->msg[0].name);	/* interned once */

	struct np_region g;
	ck_assert_int_eq(np_region_stats(m, &m->conn[0], 0, 100000, &g), 0);
	ck_assert_uint_eq(g.bytes[0], 800);
	ck_assert_uint_eq(g.bytes[1], 0);
	ck_assert_uint_eq(g.packets[1], 8);
	ck_assert_uint_eq(g.nrequests, 2);
	ck_assert_uint_eq(g.requests[0].n, 1);
	np_region_free(&g);
	/* half the span: the first four client packets (t = 1000, 3000, 5000, 7000) */
	ck_assert_int_eq(np_region_stats(m, &m->conn[0], 0, 8000, &g), 0);
	ck_assert_uint_eq(g.bytes[0], 400);
	ck_assert_double_eq_tol(g.bandwidth[0], 400 / 8e-6, 1e-3);
	np_region_free(&g);
	np_model_free(m);
}
END_TEST

/* Records of any values in any order (what a damaged trace could hold)
   load, render at every zoom and hit-test without fault; under ASan and
   UBSan this is the model's fuzz test. */
START_TEST(model_survives_garbage)
{
	for (int round = 0; round < 30; round++) {
		struct np_model *m = np_model_new();
		static const char *const names[] = { "", "InternAtom", "x", "GetProperty" };
		for (int i = 0; i < 3000; i++) {
			struct xrec r;
			memset(&r, 0, sizeof r);
			uint64_t ts = rnd() % 4 ? 1000000000ull + rnd() % 1000000000ull : rnd();
			uint32_t conn = (uint32_t)(rnd() % 8 ? rnd() % 5 : rnd());
			switch (rnd() % 5) {
			case 0:
				r.type = XREC_CONN;
				r.u.conn = (struct xrec_conn){ .ts = ts, .id = conn, .proto = "x11" };
				break;
			case 1:
			case 2:
				r.type = XREC_PKT;
				r.u.pkt = (struct xrec_pkt){ .ts = ts, .conn = conn, .dir = (uint8_t)(rnd() % 3),
					.tcp_flags = (uint8_t)rnd(), .events = (uint16_t)rnd(),
					.seq = (uint32_t)rnd(), .ack = (uint32_t)rnd(), .win = (uint32_t)rnd(),
					.len = (uint32_t)(rnd() % 3 ? rnd() % 70000 : rnd()) };
				break;
			case 3:
				r.type = XREC_MSG;
				r.u.msg = (struct xrec_msg){ .ts = ts, .conn = conn, .dir = (uint8_t)(rnd() % 3),
					.kind = (uint8_t)(rnd() % 8), .flags = (uint16_t)rnd(), .seq = rnd(),
					.length = rnd(), .tcp_end = (uint32_t)rnd(), .name = names[rnd() % 4],
					.ext = names[rnd() % 4], .detail = names[rnd() % 4] };
				break;
			default:
				r.type = XREC_GAP;
				r.u.gap = (struct xrec_gap){ .ts = ts, .conn = conn, .dir = (uint8_t)(rnd() % 3),
					.reason = (uint8_t)rnd(), .seq = (uint32_t)rnd(), .len = rnd() };
				break;
			}
			ck_assert_int_eq(np_model_add(m, &r), 0);
			if (rnd() % 50 == 0)
				np_model_add_interval(m, conn, (int)(rnd() % 3) - 0, (uint8_t)(rnd() % 4), ts,
						      ts + rnd() % 100000000);
		}
		ck_assert_int_eq(np_model_finish(m), 0);
		ck_assert_uint_le(m->nconn, 5);	/* wild ids are left out */
		cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 300, 200);
		cairo_t *cr = cairo_create(s);
		for (size_t c = 0; c < m->nconn; c++)
			for (int dir = 0; dir < 2; dir++) {
				struct np_view v;
				np_view_init(&v, m, c, dir, 300, 200);
				for (int z = 0; z < 12; z++) {
					struct np_render_opts o = { .have_sel = true, .sel_t0 = v.t0,
						.sel_t1 = v.t1, .have_mark = true, .mark_t = v.t0 };
					np_render(cr, &v, &o, NULL);
					ck_assert_int_eq(cairo_status(cr), CAIRO_STATUS_SUCCESS);
					struct np_hit h;
					char buf[2048];
					np_hit_test(&v, v.px + (double)(rnd() % 200), v.py + (double)(rnd() % 100), &h);
					np_describe(&v, &h, buf, sizeof buf);
					np_describe_region(&v, v.t0, v.t1, buf, sizeof buf);
					np_view_zoom(&v, 0.2, 0.2, v.px + (double)(rnd() % 200), v.py + 50);
				}
			}
		cairo_destroy(cr);
		cairo_surface_destroy(s);
		np_model_free(m);
	}
}
END_TEST

/* The details of a request the client blocked on say how long it waited
   and which requests were answered together (xlogo waits on RENDER's
   QueryVersion and QueryPictFormats at once). */
START_TEST(details_of_a_wait)
{
	const char *top = getenv("top_srcdir");
	char path[4096], err[256];
	snprintf(path, sizeof path, "%s/tests/captures/xdpyinfo-xlogo.pcap", top ? top : "..");
	struct np_model *m = np_model_load(path, err, sizeof err);
	ck_assert_msg(m != NULL, "%s", err);
	bool found = false;
	for (size_t ci = 0; ci < m->nconn; ci++) {
		const struct np_conn *c = &m->conn[ci];
		const struct np_dir *d = &c->dir[XDIR_C2S];
		for (size_t i = 0; i < d->nmsg; i++) {
			const struct np_msg *g = &d->msg[i];
			const char *ext = m->pool + g->ext;
			if (g->kind != XMSG_REQUEST || strcmp(ext, "RENDER") != 0)
				continue;
			const struct np_wait *w = np_conn_wait(c, g->seq);
			if (!w)
				continue;
			struct np_view v;
			np_view_init(&v, m, ci, XDIR_C2S, 300, 200);
			struct np_hit h = { .kind = NP_HIT_MSG, .dir = XDIR_C2S, .index = i };
			char buf[2048];
			np_describe(&v, &h, buf, sizeof buf);
			ck_assert_msg(strstr(buf, "client waited 0.174 ms"), "%s", buf);
			ck_assert_msg(strstr(buf, "seq 12..13: answered together"), "%s", buf);
			ck_assert_msg(!strstr(buf, "stack:"), "a stack without call sites: %s", buf);
			/* With the call sites xcap-run writes beside a trace, the
			   stack of the libxcb call that blocked across the wait. */
			char text[512];
			snprintf(text, sizeof text,
				 "wait %u %" PRIu64 " %.9f %.9f\tlibxcb.so.1:xcb_wait_for_reply+0x5"
				 "\tapp:load_fonts+0x1a@0x11a\tapp:main+0x30@0x230\n",
				 c->client.port, w->burst_first,
				 (double)(m->t0 + w->start) / 1e9 - 1e-6, (double)(m->t0 + w->reply) / 1e9 + 1e-6);
			FILE *sf = fmemopen(text, strlen(text), "r");
			struct sites *st = sites_load_stream(sf, "test", err, sizeof err);
			fclose(sf);
			ck_assert_msg(st != NULL, "%s", err);
			v.sites = st;
			np_describe(&v, &h, buf, sizeof buf);
			ck_assert_msg(strstr(buf, "\nstack:\n  libxcb.so.1:xcb_wait_for_reply+0x5\n"
					       "  app:load_fonts+0x1a\n  app:main+0x30"), "%s", buf);
			sites_free(st);
			ck_assert_ptr_null(np_conn_wait(c, g->seq + 1));
			found = true;
		}
	}
	ck_assert(found);
	np_model_free(m);
}
END_TEST

/* The share of the plot's width holding data, as the first picture
   (np_view_fit) shows it: between the connection's first packet (its
   SYN) and its last data, less a pause among the connection's first 24
   packets, one longer than four times every gap before it (after the
   handshake and the setup: xlogo's Xvfb answered its setup after 53 ms,
   half its picture), where the view shows that pause. */
static double data_share(const struct np_view *v, const struct np_conn *c)
{
	double lo = v->px, hi = v->px + v->pw;
	double a = np_x(v, (double)c->first), b = np_x(v, (double)np_conn_data_end(c));
	double w = fmin(b, hi) - fmax(a, lo);
	uint64_t t[24], most = 0, gap0 = 0, gap1 = 0;
	size_t n = 0, i = 0, j = 0;
	const struct np_dir *p = &c->dir[0], *q = &c->dir[1];
	while (n < 24 && (i < p->npkt || j < q->npkt))
		t[n++] = j >= q->npkt || (i < p->npkt && p->pkt[i].t <= q->pkt[j].t) ? p->pkt[i++].t :
											 q->pkt[j++].t;
	for (size_t k = 1; k < n; k++) {
		uint64_t d = t[k] - t[k - 1];
		if (k >= 3 && d > 4 * most && d > gap1 - gap0) {
			gap0 = t[k - 1];
			gap1 = t[k];
		}
		most = d > most ? d : most;
	}
	if (gap1 > gap0) {
		double g = fmin(np_x(v, (double)gap1), hi) - fmax(np_x(v, (double)gap0), lo);
		if (g > 0)
			w -= g;
	}
	return w / v->pw;
}

/* The first picture shows the data: at least 85 % of the plot's width
   holds data (data_share), on every connection of real captures, idle
   starts and tails and all (xterm's 'sleep 1' before it closes took 90 %
   of the demo's width, xlogo's wait before its first request 48 % of
   its own).  NETPLOT_TRACES adds
   traces (the demo's). */
START_TEST(first_picture_shows_the_data)
{
	const char *top = getenv("top_srcdir");
	const char *names[] = { "xterm-input.pcap", "xterm-late.pcap", "xterm-lossy.pcap",
				"xdpyinfo-xlogo.pcap", "x11perf-two-conns.pcap", "rfb-xvnc.pcap",
				"xdpyinfo-xlogo-lossy.pcap" };
	char paths[16][4096];
	size_t n = 0;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		snprintf(paths[n++], sizeof paths[0], "%s/tests/captures/%s", top ? top : "..",
			 names[i]);
	const char *more = getenv("NETPLOT_TRACES");
	if (more && *more && n < 16)
		snprintf(paths[n++], sizeof paths[0], "%s", more);
	for (size_t i = 0; i < n; i++) {
		char err[256];
		struct np_model *m = np_model_load(paths[i], err, sizeof err);
		ck_assert_msg(m != NULL, "%s", err);
		for (size_t ci = 0; ci < m->nconn; ci++) {
			const struct np_conn *c = &m->conn[ci];
			if (c->dir[0].npkt + c->dir[1].npkt < 10)
				continue;
			struct np_view v;
			np_view_init(&v, m, ci, XDIR_C2S, 1200, 700);
			double share = data_share(&v, c);
			/* what the whole connection's span gave */
			struct np_view all = v;
			all.t0 = (double)c->first;
			all.t1 = (double)c->last;
			fprintf(stderr, "first picture: %s #%u: data over %.0f %% of the width "
				"(%.0f %% over the whole connection)\n", strrchr(paths[i], '/') + 1,
				c->id, 100 * share, 100 * data_share(&all, c));
			ck_assert_msg(share >= 0.85, "%s #%u: data over only %.0f %% of the width",
				      paths[i], c->id, 100 * share);
		}
		np_model_free(m);
	}
}
END_TEST

/* No two labels overlap at any zoom, and no run's bracket crosses a
   label's text: real traces, both directions, six zoom levels (1x to
   100000x) about the middle of the busiest run of one request (xterm's
   212 AllocColors) or of the connection; the renderer counts its drawn
   label boxes pairwise and each drawn bracket against every text (15
   crossings in 10 of these pictures before brackets kept text off).  A
   run shows as one label. */
START_TEST(labels_never_pile_up)
{
	const char *top = getenv("top_srcdir");
	const char *names[] = { "xterm-input.pcap", "xdpyinfo-xlogo.pcap", "x11perf-two-conns.pcap",
				"xterm-lossy.pcap", "rfb-xvnc.pcap", "xdpyinfo-xlogo-rexmt.pcap" };
	size_t runs = 0, labels = 0;
	cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1200, 700);
	cairo_t *cr = cairo_create(sf);
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char path[4096], err[256];
		snprintf(path, sizeof path, "%s/tests/captures/%s", top ? top : "..", names[i]);
		struct np_model *m = np_model_load(path, err, sizeof err);
		ck_assert_msg(m != NULL, "%s", err);
		for (size_t ci = 0; ci < m->nconn; ci++)
			for (int dir = 0; dir < 2; dir++) {
				struct np_view v;
				np_view_init(&v, m, ci, dir, 1200, 700);
				const struct np_dir *d = &m->conn[ci].dir[dir];
				/* the middle of the longest run of one name */
				double tc = (v.t0 + v.t1) / 2;
				size_t best = 0;
				for (size_t a = 0, b; a < d->nmsg; a = b) {
					for (b = a + 1; b < d->nmsg && d->msg[b].name == d->msg[a].name; b++)
						;
					if (b - a > best) {
						best = b - a;
						tc = (double)d->msg[(a + b) / 2].t;
					}
				}
				double span = v.t1 - v.t0;
				for (double zoom = 1; zoom <= 1e5; zoom *= 10) {
					v.t0 = tc - span / zoom / 2;
					v.t1 = tc + span / zoom / 2;
					np_view_fit_y(&v);
					struct np_render_stats st;
					np_render(cr, &v, NULL, &st);
					ck_assert_msg(st.label_overlaps == 0,
						      "%s #%zu dir %d at %gx: %zu labels overlap", names[i],
						      ci + 1, dir, zoom, st.label_overlaps);
					runs += st.runs;
					labels += st.labels;
				}
			}
		np_model_free(m);
	}
	cairo_destroy(cr);
	cairo_surface_destroy(sf);
	fprintf(stderr, "labels: %zu drawn, %zu of them runs, none overlapping\n", labels, runs);
	ck_assert_uint_gt(runs, 0);
	ck_assert_uint_gt(labels, 100);
}
END_TEST

/* The same run of 212 AllocColors: one label with its count when the
   zoom leaves no room for 212, opened into single labels when it does. */
START_TEST(runs_collapse_and_open)
{
	const char *top = getenv("top_srcdir");
	char path[4096], err[256];
	snprintf(path, sizeof path, "%s/tests/captures/xterm-input.pcap", top ? top : "..");
	struct np_model *m = np_model_load(path, err, sizeof err);
	ck_assert_msg(m != NULL, "%s", err);
	const struct np_dir *d = &m->conn[0].dir[XDIR_C2S];
	size_t a = 0, n = 0;
	for (size_t i = 0; i < d->nmsg; i++)
		if (strcmp(np_str(m, d->msg[i].name), "AllocColor") == 0) {
			if (!n)
				a = i;
			n++;
		}
	ck_assert_uint_eq(n, 212);
	char svgpath[] = "/tmp/np-runs-XXXXXX.svg";
	int fd = mkstemps(svgpath, 4);
	ck_assert_int_ge(fd, 0);
	close(fd);
	struct np_view v;
	np_view_init(&v, m, 0, XDIR_C2S, 1200, 700);
	v.t0 = (double)d->msg[a].t - 1e5;
	v.t1 = (double)d->msg[a + n - 1].t + 1e5;
	np_view_fit_y(&v);
	ck_assert_int_eq(np_export(&v, svgpath, err, sizeof err), 0);
	FILE *f = fopen(svgpath, "r");
	char *text = calloc(1, 1 << 22);
	size_t got = fread(text, 1, (1 << 22) - 1, f);
	fclose(f);
	ck_assert(got > 0);
	ck_assert_msg(strstr(text, ">AllocColor ×212<"), "no run label in the SVG");
	/* three of them across the whole plot: each its own label */
	v.t0 = (double)d->msg[a + 100].t - 1e3;
	v.t1 = (double)d->msg[a + 102].t + 1e3;
	np_view_fit_y(&v);
	ck_assert_int_eq(np_export(&v, svgpath, err, sizeof err), 0);
	f = fopen(svgpath, "r");
	got = fread(text, 1, (1 << 22) - 1, f);
	text[got] = 0;
	fclose(f);
	ck_assert_ptr_null(strstr(text, "×"));
	size_t k = 0;
	for (const char *p = text; (p = strstr(p, ">AllocColor<")); p++)
		k++;
	ck_assert_uint_eq(k, 3);
	/* The selection says what it is, and draws a request's wait. */
	struct np_render_opts ro = { .have_mark = true, .mark_t = (double)d->msg[a + 101].t,
				     .mark_seq = (double)d->msg[a + 101].end,
				     .mark_hit = { .kind = NP_HIT_MSG, .dir = XDIR_C2S,
						   .index = a + 101 } };
	ck_assert_int_eq(np_export_with(&v, &ro, svgpath, err, sizeof err), 0);
	f = fopen(svgpath, "r");
	got = fread(text, 1, (1 << 22) - 1, f);
	text[got] = 0;
	fclose(f);
	ck_assert_msg(strstr(text, ">selected: request AllocColor — its reply "), "no caption");
	unlink(svgpath);
	free(text);
	np_model_free(m);
}
END_TEST

/* The family's series on a dialogue of known times: the handshake's and
   each newly acked segment's round trip, none from a segment sent again
   (Karn), the outstanding bytes against the window, segment sizes. */
START_TEST(graph_series_known)
{
	struct np_model *m = np_model_new();
	struct xrec r = { .type = XREC_CONN };
	r.u.conn = (struct xrec_conn){ .ts = 1000, .id = 1, .proto = "" };
	np_model_add(m, &r);
	r.type = XREC_PKT;
	const struct xrec_pkt pk[] = {
		{ .ts = 1000, .dir = 0, .tcp_flags = XTCP_SYN, .seq = 99 },
		{ .ts = 3000, .dir = 1, .tcp_flags = XTCP_SYN | XTCP_ACK, .seq = 5, .ack = 100, .win = 5000 },
		{ .ts = 10000, .dir = 0, .tcp_flags = XTCP_ACK, .seq = 100, .ack = 6, .len = 100 },
		{ .ts = 11000, .dir = 0, .tcp_flags = XTCP_ACK, .seq = 200, .ack = 6, .len = 300 },
		{ .ts = 15000, .dir = 1, .tcp_flags = XTCP_ACK, .seq = 6, .ack = 200, .win = 5000 },
		{ .ts = 18000, .dir = 1, .tcp_flags = XTCP_ACK, .seq = 6, .ack = 500, .win = 4000 },
		/* sent, sent again, then acked: no sample */
		{ .ts = 20000, .dir = 0, .tcp_flags = XTCP_ACK, .seq = 500, .ack = 6, .len = 50 },
		{ .ts = 30000, .dir = 0, .tcp_flags = XTCP_ACK, .seq = 500, .ack = 6, .len = 50,
		  .events = XPKT_RETRANS },
		{ .ts = 31000, .dir = 1, .tcp_flags = XTCP_ACK, .seq = 6, .ack = 550, .win = 4000 },
	};
	for (size_t i = 0; i < sizeof pk / sizeof *pk; i++) {
		r.u.pkt = pk[i];
		r.u.pkt.conn = 1;
		np_model_add(m, &r);
	}
	np_model_finish(m);
	const struct np_conn *c = &m->conn[0];
	size_t n;
	const struct np_series *s = np_graph_series(c, XDIR_C2S, NP_GRAPH_RTT, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(s[0].n, 3);
	ck_assert_double_eq_tol(s[0].y[0], 0.002, 1e-9);	/* SYN → SYN/ACK */
	ck_assert_double_eq_tol(s[0].y[1], 0.005, 1e-9);	/* 100 bytes at 10 µs, acked at 15 */
	ck_assert_double_eq_tol(s[0].y[2], 0.007, 1e-9);	/* 300 bytes at 11 µs, acked at 18 */
	s = np_graph_series(c, XDIR_C2S, NP_GRAPH_OWIN, &n);
	ck_assert_uint_eq(n, 2);
	/* at 11 µs: 500 sent, 100 acked (the SYN's) → 400 out; window 5000 */
	ck_assert_double_eq(s[0].y[2], 400);
	ck_assert_double_eq(s[1].y[1], 5000);	/* (none at the SYN: no ack yet) */
	s = np_graph_series(c, XDIR_C2S, NP_GRAPH_SSIZE, &n);
	ck_assert_uint_eq(s[0].n, 4);
	ck_assert_double_eq(s[0].y[1], 300);
	double lo, hi;
	ck_assert(np_series_range(&s[0], 0, 4, &lo, &hi));
	ck_assert_double_eq(lo, 50);
	ck_assert_double_eq(hi, 300);
	np_model_free(m);
}
END_TEST

/* netplot's ack round trips are --tcp-stats's, sample for sample, on a
   capture with retransmissions and holes filled late (taken at the
   client's end of a link losing 5 %): one rule, xcapanalyse/rtt.h. */
START_TEST(graph_rtt_as_tcpstats)
{
	const char *top = getenv("top_srcdir");
	char path[4096], err[256];
	snprintf(path, sizeof path, "%s/tests/captures/xdpyinfo-xlogo-rexmt.pcap", top ? top : "..");
	struct np_model *m = np_model_load(path, err, sizeof err);
	ck_assert_msg(m != NULL, "%s", err);
	struct xsource *src = xsource_open(path, NULL, NULL, err, sizeof err);
	ck_assert_msg(src != NULL, "%s", err);
	struct tcpstats ts;
	tcpstats_init(&ts);
	struct xrec rec;
	int r;
	while ((r = xsource_next(src, &rec)) > 0)
		ck_assert_int_eq(tcpstats_record(&ts, &rec), 0);
	ck_assert_int_eq(r, 0);
	xsource_close(src);
	uint64_t rexmt = 0, samples = 0;
	for (size_t i = 0; i < m->nconn; i++) {
		const struct np_conn *c = &m->conn[i];
		const struct tcps_conn *t = NULL;
		for (size_t k = 0; k < ts.conns.n && !t; k++) {
			const struct tcps_conn *q = xconns_at(&ts.conns, k);
			if (q->id == c->id)
				t = q;
		}
		ck_assert_msg(t != NULL, "connection %u not in --tcp-stats", (unsigned)c->id);
		for (int dir = 0; dir < 2; dir++) {
			const struct tcps_dir *d = &t->dir[dir];
			size_t n;
			const struct np_series *s = np_graph_series(c, dir, NP_GRAPH_RTT, &n);
			ck_assert_ptr_nonnull(s);
			ck_assert_uint_eq(s[0].n, d->rtt_n);
			double sum = 0, lo = INFINITY, hi = -INFINITY;
			for (size_t k = 0; k < s[0].n; k++) {
				sum += s[0].y[k];
				lo = fmin(lo, s[0].y[k]);
				hi = fmax(hi, s[0].y[k]);
			}
			if (d->rtt_n) {
				ck_assert_double_eq_tol(sum, d->rtt_sum, 1e-6);
				ck_assert_double_eq_tol(lo, d->rtt_min, 1e-9);
				ck_assert_double_eq_tol(hi, d->rtt_max, 1e-9);
			}
			rexmt += d->rexmt_pkts;
			samples += d->rtt_n;
		}
	}
	ck_assert_uint_ge(rexmt, 8);	/* what the capture is for */
	ck_assert_uint_ge(samples, 100);
	tcpstats_free(&ts);
	np_model_free(m);
}
END_TEST

/* Each graph of the family on a real capture: something drawn, a sample
   or a message under the pointer where one is, and the pyramid's
   extremes those of a pass over the samples. */
START_TEST(graph_family_draws)
{
	const char *top = getenv("top_srcdir");
	char path[4096], err[256];
	snprintf(path, sizeof path, "%s/tests/captures/xterm-input.pcap", top ? top : "..");
	struct np_model *m = np_model_load(path, err, sizeof err);
	ck_assert_msg(m != NULL, "%s", err);
	cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1000, 600);
	cairo_t *cr = cairo_create(sf);
	for (int g = NP_GRAPH_RTT; g < NP_GRAPH_N; g++) {
		struct np_view v;
		struct np_open at = { .graph = g, .r0 = -1 };
		ck_assert_int_eq(np_view_open(&v, m, &at, 1000, 600, err, sizeof err), 0);
		struct np_render_stats st;
		np_render(cr, &v, NULL, &st);
		ck_assert_msg(st.items + st.columns > 0, "graph %s drew nothing", np_graph_name(g));
		if (g == NP_GRAPH_LANES)
			continue;
		size_t n;
		const struct np_series *s = np_graph_series(&m->conn[0], 0, g, &n);
		ck_assert(n > 0 && s[0].n > 0);
		size_t i = s[0].n / 2;
		struct np_hit h;
		np_hit_test(&v, np_x(&v, (double)s[0].t[i]), np_y(&v, s[0].y[i]), &h);
		ck_assert_int_eq(h.kind, NP_HIT_SAMPLE);
		char buf[512];
		np_describe(&v, &h, buf, sizeof buf);
		ck_assert_msg(strncmp(buf, np_graph_name(g), strlen(np_graph_name(g))) == 0, "%s", buf);
		for (size_t a = 0; a < s[0].n; a += 7)
			for (size_t b = a + 1; b <= s[0].n; b += 97) {
				double lo, hi, l2 = INFINITY, h2 = -INFINITY;
				np_series_range(&s[0], a, b, &lo, &hi);
				for (size_t k = a; k < b; k++) {
					l2 = fmin(l2, s[0].y[k]);
					h2 = fmax(h2, s[0].y[k]);
				}
				ck_assert_double_eq(lo, l2);
				ck_assert_double_eq(hi, h2);
			}
	}
	cairo_destroy(cr);
	cairo_surface_destroy(sf);
	np_model_free(m);
}
END_TEST

/* State intervals: looked up by time, merged when they touch, summed
   over a region, and colouring the messages sent in them. */
START_TEST(state_intervals)
{
	struct np_model *m = np_model_new();
	struct xrec r = { .type = XREC_CONN };
	r.u.conn = (struct xrec_conn){ .ts = 1000, .id = 1, .proto = "x11" };
	np_model_add(m, &r);
	r.type = XREC_MSG;
	r.u.msg = (struct xrec_msg){ .ts = 1500, .conn = 1, .dir = 0, .kind = XMSG_REQUEST,
		.seq = 1, .tcp_end = 10, .name = "GetInputFocus", .ext = "", .detail = "" };
	np_model_add(m, &r);
	r.u.msg.ts = 4500;
	r.u.msg.seq = 2;
	np_model_add(m, &r);
	/* times are absolute, as the state model gives them; t0 is 1000 */
	np_model_add_interval(m, 1, 0, 3, 1500, 2000);	/* Block Reply [500, 1000) */
	np_model_add_interval(m, 1, 0, 1, 3000, 3500);	/* Block Send [2000, 3000) once merged */
	np_model_add_interval(m, 1, 0, 1, 3500, 4000);
	np_model_finish(m);
	const struct np_dir *d = &m->conn[0].dir[0];
	ck_assert_uint_eq(d->niv, 2);
	ck_assert_int_eq(np_state_at(d, 499), 0);
	ck_assert_int_eq(np_state_at(d, 500), 3);
	ck_assert_int_eq(np_state_at(d, 999), 3);
	ck_assert_int_eq(np_state_at(d, 1000), 0);
	ck_assert_int_eq(np_state_at(d, 2500), 1);
	ck_assert_int_eq(np_state_at(d, 3000), 0);
	struct np_rgb a = np_msg_colour(m, d, &d->msg[0]), b = np_msg_colour(m, d, &d->msg[1]);
	struct np_rgb ra = np_state_colour(3), rb = np_state_colour(0);
	ck_assert(a.r == ra.r && a.g == ra.g && a.b == ra.b);	/* sent while waiting */
	ck_assert(b.r == rb.r && b.g == rb.g && b.b == rb.b);	/* sent when idle */
	struct np_region g;
	ck_assert_int_eq(np_region_stats(m, &m->conn[0], 0, 4000, &g), 0);
	ck_assert(g.have_state);
	ck_assert_uint_eq(g.state[0][3], 500);
	ck_assert_uint_eq(g.state[0][1], 1000);
	ck_assert_uint_eq(g.state[0][0], 2500);
	ck_assert_uint_eq(g.nrequests, 1);
	ck_assert_uint_eq(g.requests[0].n, 2);
	np_region_free(&g);
	ck_assert_int_eq(np_region_stats(m, &m->conn[0], 750, 2500, &g), 0);	/* clipped */
	ck_assert_uint_eq(g.state[0][3], 250);
	ck_assert_uint_eq(g.state[0][1], 500);
	np_region_free(&g);
	np_model_free(m);
}
END_TEST

/* Rendering a dense random trace: aggregated columns, labels within the
   plot, no cairo error. */
START_TEST(render_smoke)
{
	struct np_model *m = np_model_new();
	struct xrec r = { .type = XREC_CONN };
	r.u.conn = (struct xrec_conn){ .ts = 1, .id = 1, .proto = "x11" };
	np_model_add(m, &r);
	for (int i = 0; i < 600000; i++) {
		r.type = XREC_PKT;
		r.u.pkt = (struct xrec_pkt){ .ts = 1 + i * 1000ull, .conn = 1, .dir = i % 2,
			.tcp_flags = XTCP_ACK, .seq = (uint32_t)(i / 2 * 100), .ack = (uint32_t)(i / 2 * 100),
			.win = 4096, .len = i % 2 ? 0 : 100 };
		np_model_add(m, &r);
		if (i % 2 == 0) {
			r.type = XREC_MSG;
			r.u.msg = (struct xrec_msg){ .ts = 1 + i * 1000ull, .conn = 1, .dir = 0,
				.kind = i / 2 % 20000 == 7 ? XMSG_ERROR : XMSG_REQUEST, .seq = (uint64_t)i / 2 + 1,
				.tcp_end = (uint32_t)(i / 2 * 100 + 100), .name = "PolyPoint", .ext = "", .detail = "" };
			np_model_add(m, &r);
		}
	}
	np_model_finish(m);
	struct np_view v;
	np_view_init(&v, m, 0, 0, 640, 480);
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 640, 480);
	cairo_t *cr = cairo_create(s);
	struct np_render_stats st;
	np_render(cr, &v, NULL, &st);
	ck_assert_int_eq(cairo_status(cr), CAIRO_STATUS_SUCCESS);
	ck_assert_uint_gt(st.columns, 100);	/* 300000 segments: aggregated */
	ck_assert_uint_eq(st.items, 0);
	ck_assert_uint_gt(st.labels, 0);
	ck_assert_uint_lt(st.labels, 200);	/* thinned */
	/* hovering where thousands of messages crowd finds the most important
	   of them (an error, one in 20000), not nothing */
	{
		const struct np_dir *d = &m->conn[0].dir[0];
		size_t k = d->nmsg / 2;
		while (d->msg[k].kind != XMSG_ERROR)
			k++;
		double x = np_x(&v, (double)d->msg[k].t);
		ck_assert_uint_gt(np_msg_lower(d, (uint64_t)np_t_at(&v, x + 6)) -
				  np_msg_lower(d, (uint64_t)np_t_at(&v, x - 6)), 4096);
		struct np_hit h;
		np_hit_test(&v, x, np_y(&v, (double)d->msg[k].end), &h);
		ck_assert_int_eq(h.kind, NP_HIT_MSG);
		ck_assert_uint_eq(h.index, k);
	}
	/* where segments crowd: "many here" on the line, nothing beside it */
	{
		const struct np_dir *d = &m->conn[0].dir[0];
		double x = v.px + v.pw / 3;
		size_t i = np_pkt_lower(d, np_tkey(np_t_at(&v, x)));
		struct np_hit h;
		np_hit_test(&v, x, np_y(&v, (double)d->pkt[i].seq), &h);
		ck_assert_int_ne(h.kind, NP_HIT_NONE);
		np_hit_test(&v, x, v.py + 5, &h);	/* far above the data there */
		ck_assert_int_eq(h.kind, NP_HIT_NONE);
	}
	np_view_zoom(&v, 0.001, 0.001, v.px + v.pw / 2, v.py + v.ph / 2);
	np_render(cr, &v, NULL, &st);
	ck_assert_uint_eq(st.columns, 0);	/* a few segments: one by one */
	ck_assert_uint_gt(st.items, 0);
	cairo_destroy(cr);
	cairo_surface_destroy(s);
	np_model_free(m);
}
END_TEST

/* The marks tcptrace users look for, in their colours: a retransmission
   red, SYN and FIN orange, a zero window violet, a capture gap grey. */
static size_t count_colour(cairo_surface_t *s, struct np_rgb c)
{
	cairo_surface_flush(s);
	const unsigned char *data = cairo_image_surface_get_data(s);
	int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
	int stride = cairo_image_surface_get_stride(s);
	int r = (int)(c.r * 255 + 0.5), g = (int)(c.g * 255 + 0.5), b = (int)(c.b * 255 + 0.5);
	size_t n = 0;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			uint32_t px = *(const uint32_t *)(data + y * stride + 4 * x);
			int pr = px >> 16 & 255, pg = px >> 8 & 255, pb = px & 255;
			n += abs(pr - r) <= 8 && abs(pg - g) <= 8 && abs(pb - b) <= 8;
		}
	return n;
}

START_TEST(render_marks)
{
	struct np_model *m = np_model_new();
	struct xrec r = { .type = XREC_CONN };
	r.u.conn = (struct xrec_conn){ .ts = 1000, .id = 1, .proto = "x11" };
	np_model_add(m, &r);
	r.type = XREC_PKT;
	const struct xrec_pkt pk[] = {
		{ .ts = 1000, .dir = 0, .tcp_flags = XTCP_SYN, .seq = 99 },
		{ .ts = 2000, .dir = 1, .tcp_flags = XTCP_SYN | XTCP_ACK, .seq = 5, .ack = 100, .win = 2000 },
		{ .ts = 3000, .dir = 0, .tcp_flags = XTCP_ACK, .seq = 100, .ack = 6, .len = 500 },
		{ .ts = 4000, .dir = 1, .tcp_flags = XTCP_ACK, .seq = 6, .ack = 600, .win = 0,
		  .events = XPKT_ZEROWIN },
		{ .ts = 6000, .dir = 0, .tcp_flags = XTCP_ACK, .seq = 100, .ack = 6, .len = 500,
		  .events = XPKT_RETRANS },
		{ .ts = 8000, .dir = 0, .tcp_flags = XTCP_ACK | XTCP_FIN, .seq = 1100, .ack = 6 },
		{ .ts = 9000, .dir = 1, .tcp_flags = XTCP_ACK, .seq = 6, .ack = 1101, .win = 2000 },
	};
	for (size_t i = 0; i < sizeof pk / sizeof *pk; i++) {
		r.u.pkt = pk[i];
		r.u.pkt.conn = 1;
		np_model_add(m, &r);
	}
	r.type = XREC_GAP;
	r.u.gap = (struct xrec_gap){ .ts = 7000, .conn = 1, .dir = 0, .reason = XGAP_LOST, .seq = 600,
				     .len = 500 };
	np_model_add(m, &r);
	np_model_finish(m);
	m->have_state = false;	/* no state strip: its colours are not asked about here */

	struct np_view v;
	np_view_init(&v, m, 0, 0, 500, 400);
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 500, 400);
	cairo_t *cr = cairo_create(s);
	np_render(cr, &v, NULL, NULL);
	ck_assert_uint_gt(count_colour(s, NP_COL_RETRANS), 20);
	ck_assert_uint_gt(count_colour(s, NP_COL_SYNFIN), 20);
	ck_assert_uint_gt(count_colour(s, NP_COL_ZEROWIN), 6);
	ck_assert_uint_gt(count_colour(s, NP_COL_GAP), v.ph * 2);	/* a band across the plot */
	ck_assert_uint_gt(count_colour(s, NP_COL_ACK), 50);
	/* The window (edge at 2600) is above the data's scale: cut, its
	   value written where it leaves; drawn when the view reaches it. */
	ck_assert_uint_eq(count_colour(s, NP_COL_WIN), 0);
	ck_assert_uint_gt(count_colour(s, (struct np_rgb){ 0.55, 0.45, 0.0 }), 10);
	struct np_view high = v;
	high.y1 = 3000;
	np_render(cr, &high, NULL, NULL);
	ck_assert_uint_gt(count_colour(s, NP_COL_WIN), 50);
	np_render(cr, &v, NULL, NULL);

	/* without the retransmission and the gap, no red at all */
	m->conn[0].dir[0].pkt[2].events = 0;
	m->conn[0].dir[0].ngap = 0;
	np_lod_build(&m->conn[0].dir[0]);
	np_render(cr, &v, NULL, NULL);
	ck_assert_uint_eq(count_colour(s, NP_COL_RETRANS), 0);
	cairo_destroy(cr);
	cairo_surface_destroy(s);
	np_model_free(m);
}
END_TEST

/* A trace's mark is a line across the plot in its own colour, found by
   pointing at it, and described with its source and text. */
START_TEST(render_trace_marks)
{
	struct np_model *m = np_model_new();
	struct xrec r = { .type = XREC_CONN };
	r.u.conn = (struct xrec_conn){ .ts = 1000, .id = 1, .proto = "x11" };
	np_model_add(m, &r);
	r.type = XREC_PKT;
	for (int i = 0; i < 10; i++) {
		r.u.pkt = (struct xrec_pkt){ .ts = 1000 + i * 1000ull, .conn = 1, .dir = 0,
			.tcp_flags = XTCP_ACK, .seq = (uint32_t)(i * 100), .len = 100 };
		np_model_add(m, &r);
	}
	np_model_finish(m);
	m->have_state = false;
	struct np_view v;
	np_view_init(&v, m, 0, 0, 500, 400);
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 500, 400);
	cairo_t *cr = cairo_create(s);
	np_render(cr, &v, NULL, NULL);
	ck_assert_uint_eq(count_colour(s, NP_COL_MARK), 0);

	r.type = XREC_MARK;
	r.u.mark = (struct xrec_mark){ .ts = 5500, .conn = 1, .source = XMARK_ATOM,
				       .text = "middle" };
	ck_assert_int_eq(np_model_add(m, &r), 0);
	np_render(cr, &v, NULL, NULL);
	ck_assert_uint_gt(count_colour(s, NP_COL_MARK), (size_t)(v.ph / 2));	/* dashed, across */
	double x = np_x(&v, 4500.0);	/* t is relative to the first record */
	struct np_hit h;
	np_hit_test(&v, x + 2, v.py + 5, &h);
	ck_assert_int_eq(h.kind, NP_HIT_MARK);
	char text[256];
	np_describe(&v, &h, text, sizeof text);
	ck_assert_ptr_nonnull(strstr(text, "mark (atom): middle"));
	np_hit_test(&v, x + 40, v.py + 5, &h);	/* beside it: not the mark */
	ck_assert_int_ne(h.kind, NP_HIT_MARK);
	cairo_destroy(cr);
	cairo_surface_destroy(s);
	np_model_free(m);
}
END_TEST

static Suite *netplot_suite(void)
{
	Suite *s = suite_create("netplot");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, transforms_invert);
	tcase_add_test(tc, zoom_keeps_point);
	tcase_add_test(tc, time_labels);
	tcase_add_test(tc, lod_ranges_match_full_pass);
	tcase_add_test(tc, lod_columns_match_full_pass);
	tcase_add_test(tc, lower_from_matches_lower);
	tcase_add_test(tc, labels_never_overlap);
	tcase_add_test(tc, labels_keep_off_points);
	tcase_add_test(tc, labels_thin_by_priority_and_reappear);
	tcase_add_test(tc, model_unwraps_and_matches_replies);
	tcase_add_test(tc, state_intervals);
	tcase_add_test(tc, details_of_a_wait);
	tcase_add_test(tc, model_survives_garbage);
	tcase_add_test(tc, render_smoke);
	tcase_add_test(tc, render_marks);
	tcase_add_test(tc, render_trace_marks);
	tcase_add_test(tc, first_picture_shows_the_data);
	tcase_add_test(tc, labels_never_pile_up);
	tcase_add_test(tc, runs_collapse_and_open);
	tcase_add_test(tc, graph_series_known);
	tcase_add_test(tc, graph_rtt_as_tcpstats);
	tcase_add_test(tc, graph_family_draws);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(netplot_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
