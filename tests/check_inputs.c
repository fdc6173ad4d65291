/*
 * check_inputs.c — the inputs on netplot's graph, headless, on a real
 * capture (an xterm typed and clicked into): the model holds the
 * response model's inputs, each is drawn at its time in its colour (and
 * not with no_inputs), pointing at its marker or its response bar finds
 * it and describes it, and a span's statistics count its inputs and
 * their response times.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "render.h"
#include "responses.h"
#include "source.h"
#include "state.h"

static char path[4096];

/* The responses as the response model gives them, read here on its own. */
struct truth {
	struct xresponse r[256];
	size_t n;
};

static void keep(void *ctx, const struct xresponse *r)
{
	struct truth *t = ctx;
	if (t->n < 256)
		t->r[t->n++] = *r;
}

static int by_ts(const void *a, const void *b)
{
	const struct xresponse *x = a, *y = b;
	return x->input_ts < y->input_ts ? -1 : x->input_ts > y->input_ts;
}

static void read_truth(struct truth *t)
{
	char err[512];
	struct xsource *src = xsource_open(path, NULL, NULL, err, sizeof err);
	ck_assert_msg(src != NULL, "%s", err);
	struct xstate_options so;
	xstate_options_default(&so);
	struct xresp_options ro;
	xresp_options_default(&ro);
	struct xstate_model *sm = xstate_new(&so);
	struct xresp_model *rm = xresp_new(&ro, sm, keep, t);
	struct xrec rec;
	while (xsource_next(src, &rec) == 1) {
		xstate_record(sm, &rec);
		xresp_record(rm, &rec);
	}
	xstate_finish(sm);
	xresp_finish(rm);
	xresp_free(rm);
	xstate_free(sm);
	xsource_close(src);
	qsort(t->r, t->n, sizeof t->r[0], by_ts);
}

static size_t conn_with_inputs(const struct np_model *m)
{
	for (size_t i = 0; i < m->nconn; i++)
		if (m->conn[i].ninput)
			return i;
	ck_abort_msg("no connection with inputs");
	return 0;
}

START_TEST(model_holds_the_inputs)
{
	static struct truth t;
	read_truth(&t);
	ck_assert_uint_ge(t.n, 4);
	char err[512];
	struct np_model *m = np_model_load(path, err, sizeof err);
	ck_assert_msg(m != NULL, "%s", err);
	const struct np_conn *c = &m->conn[conn_with_inputs(m)];
	ck_assert_uint_eq(c->ninput, t.n);
	for (size_t i = 0; i < t.n; i++) {
		ck_assert_uint_eq(c->input[i].t + m->t0, t.r[i].input_ts);
		ck_assert_uint_eq(c->input[i].response, t.r[i].response);
		ck_assert_int_eq(c->input[i].kind, t.r[i].kind);
		ck_assert_str_eq(np_str(m, c->input[i].what), t.r[i].what);
	}
	np_model_free(m);
}
END_TEST

static int is_colour(cairo_surface_t *s, int x, int y, struct np_rgb c)
{
	cairo_surface_flush(s);
	unsigned char *d = cairo_image_surface_get_data(s);
	uint32_t p = *(uint32_t *)(d + y * cairo_image_surface_get_stride(s) + x * 4);
	double r = ((p >> 16) & 255) / 255.0, g = ((p >> 8) & 255) / 255.0, b = (p & 255) / 255.0;
	return fabs(r - c.r) < 0.1 && fabs(g - c.g) < 0.1 && fabs(b - c.b) < 0.1;
}

START_TEST(drawn_pointed_at_and_counted)
{
	char err[512], buf[2048];
	struct np_model *m = np_model_load(path, err, sizeof err);
	ck_assert_msg(m != NULL, "%s", err);
	size_t ci = conn_with_inputs(m);
	const struct np_conn *c = &m->conn[ci];
	/* The input with the longest response bar, zoomed so its bar is long. */
	size_t k = 0;
	for (size_t i = 0; i < c->ninput; i++)
		if (!(c->input[i].flags & XRESP_F_NO_RESPONSE) &&
		    c->input[i].end - c->input[i].t > c->input[k].end - c->input[k].t)
			k = i;
	const struct np_input *in = &c->input[k];
	ck_assert_uint_gt(in->end, in->t);
	struct np_view v;
	np_view_init(&v, m, ci, 0, 1000, 500);
	double span = (double)(in->end - in->t);
	v.t0 = (double)in->t - span / 4;
	v.t1 = (double)in->end + span / 4;
	np_view_fit_y(&v);
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1000, 500);
	cairo_t *cr = cairo_create(s);
	struct np_render_opts o = { 0 };
	np_render(cr, &v, &o, NULL);
	struct np_rgb col = np_input_colour(in->kind);
	int x = (int)np_x(&v, (double)in->t), xm = (int)np_x(&v, ((double)in->t + in->end) / 2);
	int y = (int)v.py + 2, yb = (int)v.py + 10;
	ck_assert_msg(is_colour(s, x, y, col), "no marker at the input");
	ck_assert_msg(is_colour(s, xm, yb, col), "no response bar at its middle");
	/* ... and past its end no bar of it. */
	ck_assert(!is_colour(s, (int)np_x(&v, (double)in->end) + 20, yb, col));
	o.no_inputs = true;
	np_render(cr, &v, &o, NULL);
	ck_assert_msg(!is_colour(s, x, y, col) && !is_colour(s, xm, yb, col),
		      "no_inputs still draws the input");
	cairo_destroy(cr);
	cairo_surface_destroy(s);

	struct np_hit h;
	np_hit_test(&v, x, y, &h);
	ck_assert_int_eq(h.kind, NP_HIT_INPUT);
	ck_assert_uint_eq(h.index, k);
	np_describe(&v, &h, buf, sizeof buf);
	ck_assert_msg(strstr(buf, xinput_kind_name(in->kind)) && strstr(buf, "response ") &&
		      strstr(buf, "bytes "), "%s", buf);
	char rt[64];
	snprintf(rt, sizeof rt, "response %.3f ms", in->response / 1e6);
	ck_assert_msg(strstr(buf, rt), "%s does not say %s", buf, rt);
	np_hit_test(&v, xm, yb, &h);
	ck_assert_int_eq(h.kind, NP_HIT_INPUT);
	ck_assert_uint_eq(h.index, k);
	/* Below the strip: not an input. */
	np_hit_test(&v, xm, v.py + v.ph / 2, &h);
	ck_assert_int_ne(h.kind, NP_HIT_INPUT);

	/* The whole trace as a span: every input, its percentiles. */
	struct np_region r;
	ck_assert_int_eq(np_region_stats(m, c, 0, m->t_end + 1, &r), 0);
	ck_assert_uint_eq(r.inputs, c->ninput);
	uint64_t rts[256];
	size_t n = 0;
	for (size_t i = 0; i < c->ninput && n < 256; i++)
		if (!(c->input[i].flags & XRESP_F_NO_RESPONSE))
			rts[n++] = c->input[i].response;
	ck_assert_uint_eq(r.responded, n);
	/* nearest rank, by hand */
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (rts[j] < rts[i]) {
				uint64_t x2 = rts[i];
				rts[i] = rts[j];
				rts[j] = x2;
			}
	ck_assert_uint_eq(r.response_p50, rts[(size_t)ceil(n * 0.5) - 1]);
	ck_assert_uint_eq(r.response_p95, rts[(size_t)ceil(n * 0.95) - 1]);
	np_region_free(&r);
	/* A span around the one input: it alone. */
	ck_assert_int_eq(np_region_stats(m, c, in->t, in->t + 1, &r), 0);
	ck_assert_uint_eq(r.inputs, 1);
	np_region_free(&r);
	np_describe_region(&v, 0, (double)m->t_end + 1, buf, sizeof buf);
	char want[64];
	snprintf(want, sizeof want, "inputs: %zu (%zu with a response)", c->ninput, n);
	ck_assert_msg(strstr(buf, want), "%s does not say %s", buf, want);
	np_model_free(m);
}
END_TEST

int main(void)
{
	const char *top = getenv("top_srcdir");
	snprintf(path, sizeof path, "%s/tests/captures/xterm-input.pcap", top ? top : "..");
	Suite *s = suite_create("inputs");
	TCase *tc = tcase_create("inputs");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, model_holds_the_inputs);
	tcase_add_test(tc, drawn_pointed_at_and_counted);
	suite_add_tcase(s, tc);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
