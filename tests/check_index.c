/*
 * check_index.c — netplot's trace index (TRACE.idx) against the full
 * model of the same real traces: per connection and direction the same
 * packets, bytes and messages, the same extent of sequence numbers, the
 * same Block Send and Block Reply time as the state intervals; a span
 * read from the trace blocks the index names holds the full model's
 * packets of that span at the same times and sequence numbers; a second
 * open reuses the index, a changed trace rebuilds it, and every cut of
 * the file is refused by the parser rather than read past.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index.h"
#include "model.h"
#include "source.h"
#include "state.h"
#include "trace.h"

static char dir_tmpl[] = "/tmp/check_index.XXXXXX";
static const char *workdir;

/* The capture as an .xcap trace, as xcap -r would write it. */
static void to_trace(const char *pcap, const char *out)
{
	char err[512];
	struct xsource *src = xsource_open(pcap, NULL, NULL, err, sizeof err);
	ck_assert_msg(src != NULL, "%s", err);
	FILE *f = fopen(out, "wb");
	ck_assert_ptr_nonnull(f);
	struct trace_info info = { .host = "check", .iface = "check", .tool = "check_index",
				   .linktype = 1, .snaplen = 65535, .ts_precision = 9 };
	struct trace_writer *w = trace_writer_new(f, &info, err, sizeof err);
	ck_assert_msg(w != NULL, "%s", err);
	struct xrec r;
	while (xsource_next(src, &r) == 1)
		ck_assert_int_eq(trace_writer_put(w, &r), 0);
	ck_assert_int_eq(trace_writer_free(w), 0);
	fclose(f);
	xsource_close(src);
}

static const char *const captures[] = {
	"xdpyinfo-xlogo.pcap", "xdpyinfo-xlogo-lossy.pcap", "xdpyinfo-xlogo-midstream.pcap",
	"rfb-xvnc.pcap",
};

START_TEST(index_agrees_with_model)
{
	char pcap[4096], trace[4096], err[512];
	snprintf(pcap, sizeof pcap, "%s/tests/captures/%s", getenv("top_srcdir") ? getenv("top_srcdir") : "..",
		 captures[_i]);
	snprintf(trace, sizeof trace, "%s/%d.xcap", workdir, _i);
	to_trace(pcap, trace);
	bool built;
	struct np_index *ix = np_index_open(trace, &built, err, sizeof err);
	ck_assert_msg(ix != NULL, "%s", err);
	ck_assert(built);
	struct np_model *m = np_model_load(trace, err, sizeof err);
	ck_assert_msg(m != NULL, "%s", err);
	ck_assert_uint_eq(np_index_conns(ix), m->nconn);
	uint64_t blocked = 0;
	for (size_t i = 0; i < np_index_conns(ix); i++) {
		uint32_t id;
		uint64_t first, last, n[2];
		np_index_conn(ix, i, &id, &first, &last, n);
		const struct np_conn *c = NULL;
		for (size_t j = 0; j < m->nconn; j++)
			if (m->conn[j].id == id)
				c = &m->conn[j];
		ck_assert_ptr_nonnull(c);
		for (int d = 0; d < 2; d++) {
			const struct np_dir *md = &c->dir[d];
			ck_assert_uint_eq(n[d], md->npkt);
			struct xidx_bucket k;
			np_index_range(ix, i, d, 0, m->t_end + 1, 1, &k);
			ck_assert_uint_eq(k.npkt, md->npkt);
			ck_assert_uint_eq(k.nmsg, md->nmsg);
			uint64_t bytes = 0;
			int64_t lo = INT64_MAX, hi = INT64_MIN;
			for (size_t p = 0; p < md->npkt; p++) {
				const struct np_pkt *q = &md->pkt[p];
				uint32_t ext = q->len + !!(q->flags & XTCP_SYN) + !!(q->flags & XTCP_FIN);
				bytes += q->len;
				if (ext && q->seq < lo)
					lo = q->seq;
				if (ext && q->seq + (int64_t)ext > hi)
					hi = q->seq + ext;
			}
			ck_assert_uint_eq(k.bytes, bytes);
			if (hi > lo)
				ck_assert_int_eq(k.dhi - k.dlo, hi - lo);
			/* The blocked time of each state, from the same state model. */
			uint64_t st[3] = { 0, 0, 0 };
			for (size_t v = 0; v < md->niv; v++)
				if (md->iv[v].state >= 1 && md->iv[v].state <= 3)
					st[md->iv[v].state - 1] += md->iv[v].end - md->iv[v].start;
			for (int s = 0; s < 3; s++) {
				ck_assert_uint_eq(k.state[s], st[s]);
				blocked += st[s];
			}
			/* Coarse or fine, the whole range sums the same. */
			struct xidx_bucket coarse;
			np_index_range(ix, i, d, 0, m->t_end + 1, m->t_end + 1, &coarse);
			ck_assert_uint_eq(coarse.npkt, k.npkt);
			ck_assert_uint_eq(coarse.bytes, k.bytes);
		}
	}
	if (_i == 0)
		ck_assert_uint_gt(blocked, 0);	/* xlogo waits on replies */
	/* A span read from the blocks the index names holds exactly the
	   packets the full model has in it, at the same times and sequence
	   numbers (the middle third of each connection). */
	size_t compared = 0, states = 0;
	for (size_t i = 0; i < np_index_conns(ix); i++) {
		uint32_t id;
		uint64_t first, last, n[2];
		np_index_conn(ix, i, &id, &first, &last, n);
		uint64_t a = first + (last - first) / 3, b = first + 2 * (last - first) / 3;
		struct np_model *w = np_index_window(ix, trace, i, a, b, err, sizeof err);
		ck_assert_msg(w != NULL, "%s", err);
		ck_assert_uint_ge(w->nconn, id);
		const struct np_conn *c = NULL;
		for (size_t j = 0; j < m->nconn; j++)
			if (m->conn[j].id == id)
				c = &m->conn[j];
		for (int d = 0; d < 2; d++) {
			const struct np_dir *full = &c->dir[d], *part = &w->conn[id - 1].dir[d];
			size_t k = 0;
			for (size_t p = 0; p < full->npkt; p++) {
				if (full->pkt[p].t < a || full->pkt[p].t > b)
					continue;
				ck_assert_uint_lt(k, part->npkt);
				ck_assert_uint_eq(part->pkt[k].t, full->pkt[p].t);
				ck_assert_int_eq(part->pkt[k].seq, full->pkt[p].seq);
				if (full->pkt[p].flags & XTCP_ACK)
					ck_assert_int_eq(part->pkt[k].ack, full->pkt[p].ack);
				k++;
			}
			ck_assert_uint_eq(k, part->npkt);
			compared += k;
			/* Its states are the whole trace's, read from the
			   index: no starting state guessed at a.  Checked at
			   every packet and every interval's ends in the span. */
			ck_assert(w->have_state);
			for (size_t p = 0; p < full->npkt; p++)
				if (full->pkt[p].t >= a && full->pkt[p].t < b)
					ck_assert_int_eq(np_state_at(part, full->pkt[p].t),
							 np_state_at(full, full->pkt[p].t));
			for (size_t v = 0; v < full->niv; v++)
				for (int e = 0; e < 2; e++) {
					uint64_t t = e ? full->iv[v].end - 1 : full->iv[v].start;
					if (t >= a && t < b) {
						ck_assert_int_eq(np_state_at(part, t), np_state_at(full, t));
						states += full->iv[v].state != 0;
					}
				}
		}
		np_model_free(w);
	}
	if (_i == 0) {
		ck_assert_uint_gt(compared, 0);	/* xlogo draws throughout */
		ck_assert_uint_gt(states, 0);	/* and blocks inside the span */
	}
	np_index_free(ix);
	/* Opened again, the cached index serves. */
	ix = np_index_open(trace, &built, err, sizeof err);
	ck_assert_ptr_nonnull(ix);
	ck_assert(!built);
	np_index_free(ix);
	np_model_free(m);
}
END_TEST

START_TEST(changed_trace_rebuilds_and_cuts_are_refused)
{
	char pcap[4096], trace[4096], ipath[4200], err[512];
	snprintf(pcap, sizeof pcap, "%s/tests/captures/xdpyinfo-xlogo.pcap",
		 getenv("top_srcdir") ? getenv("top_srcdir") : "..");
	snprintf(trace, sizeof trace, "%s/r.xcap", workdir);
	to_trace(pcap, trace);
	bool built;
	struct np_index *ix = np_index_open(trace, &built, err, sizeof err);
	ck_assert_ptr_nonnull(ix);
	ck_assert(built);
	np_index_free(ix);
	/* The same trace written again: another time of change. */
	usleep(20000);
	to_trace(pcap, trace);
	ix = np_index_open(trace, &built, err, sizeof err);
	ck_assert_ptr_nonnull(ix);
	ck_assert(built);
	np_index_free(ix);
	/* Every prefix of the index is refused or read within bounds. */
	snprintf(ipath, sizeof ipath, "%s.idx", trace);
	FILE *f = fopen(ipath, "rb");
	ck_assert_ptr_nonnull(f);
	static uint8_t buf[1 << 20];
	size_t len = fread(buf, 1, sizeof buf, f);
	fclose(f);
	ck_assert_uint_gt(len, 64);
	size_t refused = 0;
	for (size_t n = 0; n < len; n += 7) {
		uint8_t *copy = malloc(n ? n : 1);
		memcpy(copy, buf, n);
		struct np_index *cut = np_index_from_bytes(copy, n, err, sizeof err);
		if (!cut)
			refused++;
		else {
			struct xidx_bucket k;
			for (size_t i = 0; i < np_index_conns(cut); i++)
				np_index_range(cut, i, 0, 0, UINT64_MAX, 1, &k);
			np_index_free(cut);
		}
		free(copy);
	}
	ck_assert_uint_gt(refused, len / 7 / 2);
	struct np_index *whole = np_index_from_bytes(buf, len, err, sizeof err);
	ck_assert_msg(whole != NULL, "%s", err);
	np_index_free(whole);
}
END_TEST

int main(void)
{
	workdir = mkdtemp(dir_tmpl);
	if (!workdir)
		return 1;
	Suite *s = suite_create("index");
	TCase *tc = tcase_create("index");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, index_agrees_with_model, 0, (int)(sizeof captures / sizeof captures[0]));
	tcase_add_test(tc, changed_trace_rebuilds_and_cuts_are_refused);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", workdir);
	if (system(cmd) != 0)
		return 1;
	return failed ? 1 : 0;
}
