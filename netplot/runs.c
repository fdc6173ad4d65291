/*
 * runs.c — a run's values for the CDF pictures, from its responses.
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "added_delay.h"
#include "grow.h"
#include "runs.h"
#include "source.h"
#include "state.h"

struct collect {
	enum np_cdf_metric m;
	double *v;
	size_t n, cap;
	size_t inputs, rfb;
	int oom;
};

static void put(struct collect *c, double x)
{
	if (GROW(c->v, c->cap, c->n + 1) < 0) {
		c->oom = 1;
		return;
	}
	c->v[c->n++] = x;
}

static void collect_one(struct collect *c, const struct xresponse *r)
{
	c->inputs++;
	bool rfb = r->proto && strcmp(r->proto, "rfb") == 0;
	c->rfb += rfb;
	switch (c->m) {
	case NP_CDF_RESPONSE:
		if (!(r->flags & XRESP_F_NO_RESPONSE))
			put(c, (double)r->response / 1e6);
		break;
	case NP_CDF_BYTES:
		put(c, (double)(r->bytes[0] + r->bytes[1]));
		break;
	case NP_CDF_PIXELS:
		if (rfb)
			put(c, (double)r->pixels);
		break;
	case NP_CDF_INTER:
		/* The input times, turned into gaps once all are in. */
		put(c, (double)r->input_ts);
		break;
	default:
		break;
	}
}

/* One collector per metric asked for (the rest have m == NP_CDF_N). */
struct collectors {
	struct collect c[NP_CDF_N];
};

static void on_response(void *ctx, const struct xresponse *r)
{
	struct collectors *cs = ctx;
	for (int i = 0; i < NP_CDF_N; i++)
		if (cs->c[i].m != NP_CDF_N)
			collect_one(&cs->c[i], r);
}

static bool any_oom(const struct collectors *cs)
{
	for (int i = 0; i < NP_CDF_N; i++)
		if (cs->c[i].oom)
			return true;
	return false;
}

/* The reader's warnings (a damaged block, a cut-short tail) in the
   suite's form, as the graph's loader gives them (model.c). */
static void warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "netplot: %s\n", msg);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int np_runs_load_all(const char *path, unsigned metrics, const struct xresp_options *ropt,
		     struct np_cdf_series s[NP_CDF_N], char *err, size_t errlen)
{
	const char *base = strrchr(path, '/');
	struct collectors cs;
	memset(&cs, 0, sizeof cs);
	for (int i = 0; i < NP_CDF_N; i++) {
		memset(&s[i], 0, sizeof s[i]);
		snprintf(s[i].label, sizeof s[i].label, "%s", base ? base + 1 : path);
		cs.c[i].m = metrics & (1u << i) ? (enum np_cdf_metric)i : NP_CDF_N;
	}
	struct xsource *src = xsource_open(path, NULL, NULL, err, errlen);
	if (!src)
		return -1;
	xsource_on_warning(src, warn_cb, NULL);
	struct xstate_options so;
	xstate_options_default(&so);
	struct xstate_model *sm = xstate_new(&so);
	struct xresp_model *rm = sm ? xresp_new(ropt, sm, on_response, &cs) : NULL;
	int status = 0, more = 0;
	struct xrec rec;
	if (!rm) {
		snprintf(err, errlen, "out of memory: '%s'", path);
		status = -1;
	}
	while (!status && (more = xsource_next(src, &rec)) == 1)
		if (xstate_record(sm, &rec) < 0 || xresp_record(rm, &rec) < 0 || any_oom(&cs)) {
			snprintf(err, errlen, "out of memory: '%s'", path);
			status = -1;
		}
	if (!status && more < 0) {
		snprintf(err, errlen, "%s", xsource_error(src));
		status = -1;
	}
	if (!status) {
		xstate_finish(sm);
		xresp_finish(rm);
		if (any_oom(&cs)) {
			snprintf(err, errlen, "out of memory: '%s'", path);
			status = -1;
		} else if (xsource_problems(src)) {
			status = 1;
		}
	}
	xresp_free(rm);
	xstate_free(sm);
	xsource_close(src);
	for (int i = 0; i < NP_CDF_N; i++) {
		struct collect *c = &cs.c[i];
		if (status < 0) {
			free(c->v);
			continue;
		}
		if (c->m == NP_CDF_INTER && c->n) {
			/* Inputs of all connections, in time order: the gaps between. */
			qsort(c->v, c->n, sizeof *c->v, by_value);
			for (size_t k = 1; k < c->n; k++)
				c->v[k - 1] = (c->v[k] - c->v[k - 1]) / 1e6;
			c->n--;
		}
		s[i].v = c->v;
		s[i].n = c->n;
		if (!c->n)
			snprintf(s[i].why_empty, sizeof s[i].why_empty, "%s",
				 !c->inputs ? "no inputs" :
				 c->m == NP_CDF_PIXELS && !c->rfb ? "no RFB inputs: X11 counts no pixels" :
				 c->m == NP_CDF_INTER ? "one input" : "no input had a response");
	}
	return status;
}

int np_runs_load(const char *path, enum np_cdf_metric m, const struct xresp_options *ropt,
		 struct np_cdf_series *s, char *err, size_t errlen)
{
	struct np_cdf_series all[NP_CDF_N];
	if (m >= NP_CDF_N) {
		snprintf(err, errlen, "not a metric of inputs: '%s'", np_cdf_metric_name(m));
		return -1;
	}
	int r = np_runs_load_all(path, 1u << m, ropt, all, err, errlen);
	*s = all[m];
	return r;
}

int np_runs_load_added(const char *path, enum np_cdf_metric m, const struct np_added_options *ao,
		       const struct xresp_options *ropt, bool name_file, struct np_cdf_series *s,
		       char *err, size_t errlen)
{
	const uint64_t *rates = ao->rates;
	size_t nrates = ao->nrates;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t i = 0; i < nrates; i++) {
		char rate[32];
		memset(&s[i], 0, sizeof s[i]);
		predict_format_rate(rate, sizeof rate, rates[i]);
		snprintf(s[i].label, sizeof s[i].label, "%s%s%s", name_file ? base : "",
			 name_file ? " " : "", rate);
	}
	if (m != NP_CDF_ADDED_PACKET && m != NP_CDF_ADDED_RESPONSE) {
		snprintf(err, errlen, "not an added delay: '%s'", np_cdf_metric_name(m));
		return -1;
	}
	struct xsource *src = xsource_open(path, NULL, NULL, err, errlen);
	if (!src)
		return -1;
	xsource_on_warning(src, warn_cb, NULL);
	struct predict_options po;
	predict_options_default(&po);
	po.model.range_start = ao->range_start;
	po.model.range_end = ao->range_end;
	struct added_delay *a = added_delay_new(&po, &po.model, ropt);
	int status = 0, more = 0;
	struct xrec rec;
	if (!a)
		status = -1;
	while (!status && (more = xsource_next(src, &rec)) == 1)
		if (added_delay_record(a, &rec, true) < 0)
			status = -1;
	if (status < 0)
		snprintf(err, errlen, "out of memory: '%s'", path);
	else if (more < 0) {
		snprintf(err, errlen, "%s", xsource_error(src));
		status = -1;
	} else if (added_delay_finish(a) < 0) {
		snprintf(err, errlen, "out of memory: '%s'", path);
		status = -1;
	} else if (xsource_problems(src))
		status = 1;
	xsource_close(src);
	size_t np = status < 0 ? 0 : predict_packets(added_delay_trace(a));
	size_t ni = status < 0 ? 0 : added_delay_inputs(a);
	int64_t *d = malloc((np ? np : 1) * sizeof *d);
	struct added_response *r = malloc((ni ? ni : 1) * sizeof *r);
	if (status >= 0 && (!d || !r)) {
		snprintf(err, errlen, "out of memory: '%s'", path);
		status = -1;
	}
	for (size_t i = 0; status >= 0 && i < nrates; i++) {
		size_t n = m == NP_CDF_ADDED_PACKET ? np : added_delay_responses(a);
		if (added_delay_run(a, rates[i], ao->trace_rate, d, r) < 0 ||
		    !(s[i].v = malloc((n ? n : 1) * sizeof *s[i].v))) {
			snprintf(err, errlen, "out of memory: '%s'", path);
			status = -1;
			break;
		}
		if (m == NP_CDF_ADDED_PACKET)
			for (size_t k = 0; k < np; k++)
				s[i].v[s[i].n++] = (double)d[k] / 1e6;
		else
			for (size_t k = 0; k < ni; k++)
				if (r[k].known)
					s[i].v[s[i].n++] = (double)r[k].total / 1e6;
		if (!s[i].n)
			snprintf(s[i].why_empty, sizeof s[i].why_empty, "%s",
				 m == NP_CDF_ADDED_PACKET ? "no packets" :
				 !ni ? "no inputs" : "no input had a visible response");
	}
	if (status < 0)
		for (size_t i = 0; i < nrates; i++)
			np_runs_series_free(&s[i]);
	free(d);
	free(r);
	added_delay_free(a);
	return status;
}

void np_runs_series_free(struct np_cdf_series *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}
