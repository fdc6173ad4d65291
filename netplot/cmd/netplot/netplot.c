/*
 * netplot.c — the command: the GTK viewer by default, or headless export
 * (--export) and the renderer benchmark (--benchmark) without a display.
 *
 * Exit status: 0 success, 1 a file could not be read or written, 2 usage.
 *
 * Belongs to: the netplot command's room (netplot/cmd/netplot/).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cdf.h"
#include "gui.h"
#include "index.h"
#include "model.h"
#include "predict.h"
#include "progress.h"
#include "render.h"
#include "runs.h"

static const char *prog = "netplot";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: netplot [FILE...] [--conn N] [--direction request|reply] [--range T0:T1]\n"
		"       netplot --follow FILE [FILE...]\n"
		"       netplot FILE --export OUT.{png,svg,pdf,xpl} [--conn N] [--direction request|reply]\n"
		"               [--range T0:T1] [--graph NAME] [--size WxH]\n"
		"       netplot --cdf METRIC --export OUT.{png,svg,pdf} [--size WxH] FILE...\n"
		"       netplot --cdf added-delay[-response] --rates LIST [--trace-rate RATE]\n"
		"               [--range T0:T1] --export OUT.{png,svg,pdf} FILE...\n"
		"       netplot --benchmark FILE [--index] [--graph NAME] [--size WxH]\n"
		"\n"
		"Sequence/time graphs of X11 connections from .xcap, .pcap and .pcapng files.\n"
		"\n"
		"  -e, --export OUT       write the graph to OUT (format from its extension) and exit\n"
		"  -c, --conn N           connection id (default: the one with most packets)\n"
		"  -d, --direction DIR    request (client to server, default) or reply\n"
		"  -r, --range T0:T1      time span, seconds since the trace began or h:mm:ss.fff\n"
		"                         (--cdf added-delay: the packets replayed)\n"
		"  -g, --graph NAME       which graph of the connection's direction: tsg (time\n"
		"                         sequence, the default), rtt (round-trip times from\n"
		"                         the acks and the requests' answers), tput\n"
		"                         (throughput), owin (outstanding data and the\n"
		"                         advertised window), ssize (segment sizes), lanes\n"
		"                         (a row per kind of request)\n"
		"  -s, --size WxH         picture size in pixels (default 1200x700)\n"
		"  --no-inputs            leave out the inputs and their response spans (along\n"
		"                         the top of the graph)\n"
		"  --cdf METRIC           the CDF of METRIC over the inputs of each FILE (runs\n"
		"                         overlaid): response-time, bytes, pixels (RFB) or\n"
		"                         inter-input; with --export.  added-delay and\n"
		"                         added-delay-response: SLIM's replay, the delay a\n"
		"                         slower link adds to each packet or each input's\n"
		"                         response, a curve per rate of --rates\n"
		"  --rates LIST           link rates for --cdf added-delay, bit/s with k, M or G\n"
		"                         (default 100M,10M,1M,100k,10k)\n"
		"  --trace-rate RATE      rate of the link the trace was taken on (default:\n"
		"                         none, loopback)\n"
		"  -b, --benchmark FILE   time loading FILE and redrawing at several zoom levels\n"
		"  -i, --index            with --benchmark: draw from FILE.idx (built first when\n"
		"                         missing or stale), not from the whole trace in memory\n"
		"  -f, --follow           show FILEs as one session (the pieces of a rotated\n"
		"                         capture, OUT-1.xcap after OUT-0.xcap taken in as\n"
		"                         xcap -C or -G writes them)\n"
		"                         and read them again as xcap writes them\n"
		"  -h, --help             this help\n"
		"  -V, --version          the version\n"
		"--conn, --direction, --range, --graph, --size and --no-inputs open the window\n"
		"there too.\n"
		"Without --export, --benchmark or --cdf, GTK's options (--display ...) go to GTK.\n"
		"\n"
		"Examples:\n"
		"  netplot app.xcap                              the window (.pcap and .pcapng too)\n"
		"  netplot app.xcap --conn 2 --range 0:1.5       the window, on connection 2's start\n"
		"  netplot app.xcap --conn 2 --direction reply --export replies.svg\n"
		"  netplot app.xcap --range 0:1.5 --size 1600x900 --export startup.png\n"
		"  netplot app.xcap --graph rtt --export rtt.svg  round-trip times, as tcptrace -R\n"
		"  netplot --follow live.xcap                    a capture xcap is still writing\n"
		"  netplot --cdf response-time --export cdf.svg fast.pcap slow.pcap\n"
		"  netplot --cdf added-delay --rates 10M,1M,100k --export slim.png typing.pcap\n"
		"More in man xcap-tutorial.\n");
}

static void die(int code, const char *what, const char *subject)
{
	/* The reader's messages end with the file they are about already:
	   name it once. */
	char tail[4200];
	snprintf(tail, sizeof tail, ": '%s'", subject);
	size_t n = strlen(what), t = strlen(tail);
	if (n >= t && strcmp(what + n - t, tail) == 0)
		fprintf(stderr, "%s: %s\n", prog, what);
	else
		fprintf(stderr, "%s: %s: '%s'\n", prog, what, subject);
	exit(code);
}

/* The model's reading, on the meter (done -1: erase it for a message). */
static void on_progress(void *ctx, long long done)
{
	if (done < 0)
		progress_clear(ctx);
	else
		progress_at(ctx, done);
}

/* A library's error names its subject itself ("...: 'file'") most of the
   time: add the subject only when it does not. */
static void die_err(int code, const char *err, const char *subject)
{
	char quoted[1024];
	snprintf(quoted, sizeof quoted, "'%s'", subject);
	size_t n = strlen(err), q = strlen(quoted);
	if (n >= q && strcmp(err + n - q, quoted) == 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		exit(code);
	}
	die(code, err, subject);
}

/* "12.5", "1:02.5" or "1:00:02.5" to ns; -1 when malformed. */
static double parse_time(const char *s)
{
	double total = 0;
	int parts = 0;
	while (*s) {
		char *end;
		errno = 0;
		double x = strtod(s, &end);
		if (end == s || errno || x < 0 || ++parts > 3)
			return -1;
		total = total * 60 + x;
		if (*end == ':')
			end++;
		else if (*end)
			return -1;
		s = end;
	}
	return parts ? total * 1e9 : -1;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int benchmark(const char *path, int w, int h, int graph)
{
	char err[512];
	double t = now_ms();
	struct np_model *m = np_model_load(path, err, sizeof err);
	if (!m)
		die_err(1, err, path);
	double open_ms = now_ms() - t;
	size_t mem = np_model_memory(m);
	printf("open: %.0f ms\n", open_ms);
	size_t niv = 0;
	for (size_t i = 0; i < m->nconn; i++)
		niv += m->conn[i].dir[0].niv + m->conn[i].dir[1].niv;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);	/* ru_maxrss: kB on Linux */
	printf("memory: %.0f MB (%.1f bytes/packet, %" PRIu64 " packets, %" PRIu64
	       " messages, %zu state intervals; process peak %.0f MB)\n",
	       mem / 1e6, m->npkt ? (double)mem / m->npkt : 0.0, m->npkt, m->nmsg, niv,
	       ru.ru_maxrss / 1e3);
	struct np_view v;
	np_view_init(&v, m, np_model_busiest(m), 0, w, h);
	if (graph > 0) {
		/* the graph's series, derived once: timed apart from the redraws */
		double a = now_ms();
		v.graph = graph;
		np_view_fit_y(&v);
		printf("graph %s: derived from the packets in %.0f ms\n", np_graph_name(graph),
		       now_ms() - a);
	}
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	cairo_t *cr = cairo_create(s);
	/* Zoom about the middle of the connection by 10x steps until a few
	   packets are left in view. */
	const struct np_dir *d = &m->conn[v.conn].dir[0];
	double tc = (v.t0 + v.t1) / 2;
	size_t mid = np_pkt_lower(d, np_tkey(tc));
	if (mid < d->npkt)
		tc = (double)d->pkt[mid].t;
	double span = v.t1 - v.t0, ys = v.y1 - v.y0;
	double yc = mid < d->npkt && !graph ? (double)d->pkt[mid].seq : (v.y0 + v.y1) / 2;
	for (double zoom = 1;; zoom *= 10) {
		if (zoom == 1) {
			np_view_fit(&v);
		} else {
			v.t0 = tc - span / zoom / 2;
			v.t1 = tc + span / zoom / 2;
			v.y0 = yc - ys / zoom / 2;
			v.y1 = yc + ys / zoom / 2;
			if (graph)
				np_view_fit_y(&v);	/* the values of the span, as the window does */
		}
		size_t i0 = np_pkt_lower(d, np_tkey(v.t0));
		size_t i1 = np_pkt_lower(d, np_tkey(v.t1));
		double best = INFINITY;
		struct np_render_stats st;
		for (int rep = 0; rep < 3; rep++) {	/* best of three: the others are noise */
			double a = now_ms();
			np_render(cr, &v, NULL, &st);
			cairo_surface_flush(s);
			best = fmin(best, now_ms() - a);
		}
		printf("redraw %.0fx: %.1f ms (%zu packets in view, %zu columns aggregated, %zu drawn one by one, %zu labels)\n",
		       zoom, best, i1 - i0, st.columns, st.items, st.labels);
		if (i1 - i0 <= 10 || v.t1 - v.t0 < 100)
			break;
	}
	cairo_destroy(cr);
	cairo_surface_destroy(s);
	np_model_free(m);
	return 0;
}

/* --benchmark --index: the same zoom levels drawn from TRACE.idx: from
   its buckets while reading the view's span would cost more than
   NP_INDEX_WINDOW_BYTES of the trace, and from the blocks of the trace
   the index names for the span when less (the whole renderer, packets
   one by one, labels, the state band from the index's intervals). */
/* The view of connection id (from 1) of a window read from the index,
   over the span the benchmark chose. */
static void window_view(struct np_view *v, const struct np_model *wm, uint32_t id, double t0,
			double t1, double y0, double y1, int w, int h)
{
	np_view_init(v, wm, id - 1, 0, w, h);
	v->t0 = t0;
	v->t1 = t1;
	v->y0 = y0;
	v->y1 = y1;
}

/* A middle zoom as the window refines it: the span read a frame's worth
   (NP_INDEX_WINDOW_BYTES) a step, then drawn packet by packet. */
static void bench_refine(const struct np_index *ix, const char *path, size_t i, uint32_t id,
			 double t0, double t1, double y0, double y1, cairo_t *cr,
			 cairo_surface_t *s, int w, int h, int graph)
{
	char err[512];
	double a = now_ms(), longest = 0;
	struct np_window_job *j = np_index_window_begin(ix, path, i, t0 < 0 ? 0 : (uint64_t)t0,
							(uint64_t)t1, err, sizeof err);
	int st = j ? 0 : -1;
	while (st == 0) {
		double b = now_ms();
		st = np_index_window_step(j, NP_INDEX_WINDOW_BYTES, err, sizeof err);
		longest = fmax(longest, now_ms() - b);
	}
	size_t steps = j ? np_index_window_chunks(j) : 0;
	struct np_model *wm = st > 0 ? np_index_window_end(j, err, sizeof err) : NULL;
	if (st < 0)
		np_index_window_free(j);
	if (!wm)
		die_err(1, err, path);
	double total = now_ms() - a;
	struct np_view v;
	window_view(&v, wm, id, t0, t1, y0, y1, w, h);
	if (graph != NP_GRAPH_TSG) {
		v.graph = graph;
		np_view_fit_y(&v);
	}
	struct np_render_stats st2;
	double b = now_ms();
	np_render(cr, &v, NULL, &st2);
	cairo_surface_flush(s);
	double first = now_ms() - b;
	/* Once more: the first draw of a new window finds none of it in the
	   processor's caches; a pan or a resize inside it is the second. */
	b = now_ms();
	np_render(cr, &v, NULL, &st2);
	cairo_surface_flush(s);
	printf("  refined: read in %zu steps (longest %.1f ms, %.0f ms in all), then drawn in %.1f ms,"
	       " again %.1f ms (%zu columns aggregated, %zu drawn one by one, %zu labels)\n",
	       steps, longest, total, first, now_ms() - b, st2.columns, st2.items, st2.labels);
	np_model_free(wm);
}

static int benchmark_index(const char *path, int w, int h, int graph)
{
	char err[512];
	bool built;
	double t = now_ms();
	struct np_index *ix = np_index_open(path, &built, err, sizeof err);
	if (!ix)
		die_err(1, err, path);
	double ms = now_ms() - t;
	if (built) {
		printf("index: built in %.0f ms (one pass over the trace)\n", ms);
		np_index_free(ix);
		t = now_ms();
		if (!(ix = np_index_open(path, &built, err, sizeof err)))
			die_err(1, err, path);
		ms = now_ms() - t;
	}
	printf("open: %.1f ms (index mapped and checked)\n", ms);
	/* The busiest connection's request direction. */
	size_t best = np_index_busiest(ix);
	uint64_t first = 0, last = 0, npkt[2];
	uint32_t id;
	if (np_index_conns(ix))
		np_index_conn(ix, best, &id, &first, &last, npkt);
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	cairo_t *cr = cairo_create(s);
	/* Once a process, as the GUI's first frame does it: not a zoom's cost. */
	t = now_ms();
	np_render_prepare_text(cr);
	printf("text: fonts and glyphs made in %.1f ms (once a process, before the first frame)\n",
	       now_ms() - t);
	double tc = ((double)first + (double)last) / 2, span = (double)(last - first) + 1;
	for (double zoom = 1; zoom <= 100000; zoom *= 10) {
		double t0 = tc - span / zoom / 2, t1 = tc + span / zoom / 2;
		struct xidx_bucket k;
		np_index_range(ix, best, 0, t0 < 0 ? 0 : (uint64_t)t0, (uint64_t)t1,
			       (uint64_t)((t1 - t0) / w), &k);
		double y0 = k.dlo < k.alo ? (double)k.dlo : (double)k.alo;
		double y1 = k.dhi > k.ahi ? (double)k.dhi : (double)k.ahi;
		if (!(y1 > y0))
			y0 = 0, y1 = 1;
		double fastest = INFINITY;
		size_t reads = 0;
		size_t cost = np_index_window_cost(ix, best, t0 < 0 ? 0 : (uint64_t)t0, (uint64_t)t1);
		if (cost > NP_INDEX_WINDOW_BYTES && graph != NP_GRAPH_TSG) {
			/* the buckets hold the time-sequence graph only: the
			   window says so (np_render_needs_packets) */
			struct np_model *empty = np_model_new();
			struct np_view v;
			np_view_init(&v, empty, 0, 0, w, h);
			v.graph = graph;
			for (int rep = 0; rep < 3; rep++) {
				double a = now_ms();
				np_render_needs_packets(cr, &v, (double)cost);
				cairo_surface_flush(s);
				fastest = fmin(fastest, now_ms() - a);
			}
			np_model_free(empty);
			printf("redraw %.0fx: the %s graph needs the packets, its span would read %.1f MB:"
			       " the note drawn instead in %.1f ms (%" PRIu64 " packets in view)\n",
			       zoom, np_graph_name(graph), cost / 1e6, fastest, (uint64_t)k.npkt);
			if (cost <= NP_INDEX_REFINE_BYTES)
				bench_refine(ix, path, best, id, t0, t1, y0, y1, cr, s, w, h, graph);
			continue;
		}
		if (cost > NP_INDEX_WINDOW_BYTES) {
			for (int rep = 0; rep < 3; rep++) {
				double a = now_ms();
				reads = np_index_render(cr, ix, best, 0, t0, t1, y0, y1, w, h);
				cairo_surface_flush(s);
				fastest = fmin(fastest, now_ms() - a);
			}
			printf("redraw %.0fx: %.1f ms (%" PRIu64 " packets in view, %zu buckets read;"
			       " its span would read %.1f MB of the trace)\n",
			       zoom, fastest, (uint64_t)k.npkt, reads, cost / 1e6);
			if (cost <= NP_INDEX_REFINE_BYTES)
				bench_refine(ix, path, best, id, t0, t1, y0, y1, cr, s, w, h, graph);
			continue;
		}
		/* Fine enough to draw packets: read the span's blocks of the
		   trace into a small model and draw it as any trace is drawn. */
		double a = now_ms();
		struct np_model *wm = np_index_window(ix, path, best, t0 < 0 ? 0 : (uint64_t)t0,
						      (uint64_t)t1, err, sizeof err);
		if (!wm)
			die_err(1, err, path);
		double load_ms = now_ms() - a;
		struct np_view v;
		window_view(&v, wm, id, t0, t1, y0, y1, w, h);
		double derive_ms = 0;
		if (graph != NP_GRAPH_TSG) {
			/* the graph's series derived from the window's packets,
			   once a window: part of the first picture */
			v.graph = graph;
			double b = now_ms();
			np_view_fit_y(&v);
			derive_ms = now_ms() - b;
		}
		load_ms += derive_ms;
		struct np_render_stats st;
		for (int rep = 0; rep < 3; rep++) {
			double b = now_ms();
			np_render(cr, &v, NULL, &st);
			cairo_surface_flush(s);
			fastest = fmin(fastest, now_ms() - b);
		}
		printf("redraw %.0fx: %.1f ms, %.1f ms the first time reading its blocks (%.2f MB; %" PRIu64
		       " packets in view, %zu drawn one by one, %zu labels, %zu state intervals)\n",
		       zoom, fastest, load_ms + fastest, cost / 1e6, (uint64_t)wm->conn[id - 1].dir[0].npkt,
		       st.items, st.labels, wm->conn[id - 1].dir[0].niv + wm->conn[id - 1].dir[1].niv);
		np_model_free(wm);
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("memory: process peak %.1f MB (%.2f bytes/packet, %" PRIu64 " packets)\n",
	       ru.ru_maxrss / 1e3, ru.ru_maxrss * 1e3 / (double)(np_index_packets(ix) ? np_index_packets(ix) : 1),
	       np_index_packets(ix));
	cairo_destroy(cr);
	cairo_surface_destroy(s);
	np_index_free(ix);
	return 0;
}

/* --cdf: one curve per run; a run that cannot be read is left out and
   said, the others still drawn. */
static int cdf_pictures(const char *out, enum np_cdf_metric m, char **files, int n, int w, int h,
			const struct np_added_options *ao)
{
	if (!out || n < 1) {
		usage(stderr);
		return 2;
	}
	struct xresp_options ro;
	xresp_options_default(&ro);
	/* SLIM's pictures: a curve per rate of each file. */
	bool added = m >= NP_CDF_N;
	size_t per = added ? ao->nrates : 1;
	struct np_cdf_series *s = calloc((size_t)n * per, sizeof *s);
	if (!s)
		die(1, "out of memory", out);
	int status = 0;
	size_t got = 0;
	for (int i = 0; i < n; i++) {
		char err[512];
		int r = added ? np_runs_load_added(files[i], m, ao, &ro, n > 1, &s[got], err,
						   sizeof err) :
				np_runs_load(files[i], m, &ro, &s[got], err, sizeof err);
		if (r < 0) {
			char quoted[1024];
			snprintf(quoted, sizeof quoted, "'%s'", files[i]);
			size_t el = strlen(err), ql = strlen(quoted);
			if (el >= ql && strcmp(err + el - ql, quoted) == 0)
				fprintf(stderr, "%s: %s\n", prog, err);
			else
				fprintf(stderr, "%s: %s: '%s'\n", prog, err, files[i]);
			status = 1;
			continue;
		}
		if (r > 0)
			status = 1;
		got += per;
	}
	if (!got)
		die(1, "no run could be read", files[0]);
	char err[512];
	struct np_cdf_frame f;
	if (np_cdf_export_frame(out, w, h, m, s, got, &f, err, sizeof err) < 0)
		die_err(1, err, out);
	/* NETPLOT_LOG=1: what was drawn, for the tests to hold the picture
	   to (its axis, and each curve's legend line). */
	const char *log = getenv("NETPLOT_LOG");
	if (log && strcmp(log, "1") == 0) {
		fprintf(stderr, "netplot: cdf frame px=%g py=%g pw=%g ph=%g x0=%g x1=%g log=%d\n",
			f.px, f.py, f.pw, f.ph, f.x0, f.x1, f.log_x);
		for (size_t i = 0; i < got; i++) {
			char line[256];
			np_cdf_legend(line, sizeof line, m, &s[i]);
			fprintf(stderr, "netplot: cdf curve=%zu legend=%s\n", i + 1, line);
		}
	}
	for (size_t i = 0; i < got; i++)
		np_runs_series_free(&s[i]);
	free(s);
	return status;
}

/* What the options ask for, the window's and the exports' alike. */
struct settings {
	const char *out, *bench;
	int cdf;
	uint64_t rates[64];
	struct np_added_options ao;
	bool rates_given, use_index;
	struct np_gui_start at;		/* where to open, the size, the switches */
};

static const struct option opts[] = {
	{ "export", required_argument, NULL, 'e' },
	{ "conn", required_argument, NULL, 'c' },
	{ "direction", required_argument, NULL, 'd' },
	{ "range", required_argument, NULL, 'r' },
	{ "size", required_argument, NULL, 's' },
	{ "benchmark", required_argument, NULL, 'b' },
	{ "index", no_argument, NULL, 'i' },
	{ "cdf", required_argument, NULL, 'C' },
	{ "no-inputs", no_argument, NULL, 'I' },
	{ "rates", required_argument, NULL, 'R' },
	{ "trace-rate", required_argument, NULL, 'T' },
	{ "follow", no_argument, NULL, 'f' },
	{ "graph", required_argument, NULL, 'g' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* One option into s; a bad value is a usage error (exit 2).  Returns
   -1 for an option it does not know. */
static int set_option(struct settings *s, int c, const char *arg)
{
	char *end;
	switch (c) {
	case 'e':
		s->out = arg;
		return 0;
	case 'c':
		s->at.at.conn = strtol(arg, &end, 10);
		if (*end || s->at.at.conn < 1)
			die(2, "bad connection id", arg);
		return 0;
	case 'd':
		if (strcmp(arg, "request") == 0 || strcmp(arg, "c2s") == 0)
			s->at.at.dir = 0;
		else if (strcmp(arg, "reply") == 0 || strcmp(arg, "s2c") == 0)
			s->at.at.dir = 1;
		else
			die(2, "direction must be request or reply", arg);
		return 0;
	case 'r': {
		/* T0:T1 where each may itself be h:mm:ss: split at the colon
		   that leaves two valid times */
		for (const char *p = arg; (p = strchr(p, ':')); p++) {
			char a[64];
			size_t n = (size_t)(p - arg);
			if (n >= sizeof a)
				break;
			memcpy(a, arg, n);
			a[n] = '\0';
			double x = parse_time(a), y = parse_time(p + 1);
			if (x >= 0 && y > x) {
				s->at.at.r0 = x;
				s->at.at.r1 = y;
				return 0;
			}
		}
		die(2, "bad range, want T0:T1 with T0 < T1", arg);
		return 0;
	}
	case 's':
		if (sscanf(arg, "%dx%d", &s->at.w, &s->at.h) != 2 || s->at.w < 100 || s->at.h < 100 ||
		    s->at.w > 20000 || s->at.h > 20000)
			die(2, "bad size, want WxH between 100 and 20000", arg);
		return 0;
	case 'b':
		s->bench = arg;
		return 0;
	case 'i':
		s->use_index = true;
		return 0;
	case 'I':
		s->at.no_inputs = true;
		return 0;
	case 'f':
		s->at.follow = true;
		return 0;
	case 'g':
		if ((s->at.at.graph = np_graph_parse(arg)) < 0)
			die(2, "unknown graph, want tsg, rtt, tput, owin, ssize or lanes", arg);
		return 0;
	case 'C':
		if ((s->cdf = np_cdf_metric_parse(arg)) < 0)
			die(2, "unknown CDF, want response-time, bytes, pixels, inter-input, "
			       "added-delay or added-delay-response", arg);
		return 0;
	case 'R': {
		int nr = predict_parse_rates(arg, s->rates, sizeof s->rates / sizeof s->rates[0]);
		if (nr < 1)
			die(2, "bad rate list, want bit/s with k, M or G, such as 10M,1M", arg);
		s->ao.nrates = (size_t)nr;
		s->rates_given = true;
		return 0;
	}
	case 'T':
		if (predict_parse_rates(arg, &s->ao.trace_rate, 1) != 1)
			die(2, "bad trace rate, want bit/s with k, M or G", arg);
		s->rates_given = true;
		return 0;
	default:
		return -1;
	}
}

/* The window: our options that say what to show are taken out of argv
   (as --name=value, --name value, -x value), GTK gets the rest. */
static int window(int argc, char **argv, struct settings *s)
{
	int k = 1;
	for (int i = 1; i < argc; i++) {
		const struct option *hit = NULL;
		const char *val = NULL;
		for (const struct option *o = opts; o->name && !hit; o++) {
			size_t n = strlen(o->name);
			if (strncmp(argv[i], "--", 2) == 0 && strncmp(argv[i] + 2, o->name, n) == 0 &&
			    (argv[i][2 + n] == '\0' || argv[i][2 + n] == '=')) {
				hit = o;
				val = argv[i][2 + n] == '=' ? argv[i] + 3 + n : NULL;
			} else if (argv[i][0] == '-' && argv[i][1] == o->val && argv[i][2] == '\0') {
				hit = o;
			}
		}
		if (!hit) {
			argv[k++] = argv[i];
			continue;
		}
		if (hit->has_arg == required_argument && !val) {
			if (i + 1 >= argc)
				die(2, "option needs a value", argv[i]);
			val = argv[++i];
		}
		if (!strchr("cdrsIfg", hit->val)) {
			char name[64];
			snprintf(name, sizeof name, "--%s", hit->name);
			die(2, "option only for --export, --benchmark or --cdf", name);
		}
		set_option(s, hit->val, val);
	}
	argv[k] = NULL;
	return np_gui_run(k, argv, &s->at);
}

int main(int argc, char **argv)
{
	struct settings s = {
		.cdf = -1,
		.rates = { 100000000, 10000000, 1000000, 100000, 10000 },
		.at = { .w = 1200, .h = 700, .at = { .r0 = -1, .r1 = -1 } },
	};
	s.ao = (struct np_added_options){ s.rates, 5, 0, 0, UINT64_MAX };
	/* Without --export, --benchmark or --cdf the command is the window,
	   opened where the other options say. */
	bool headless = false;
	for (int i = 1; i < argc; i++)
		for (const struct option *o = opts; o->name; o++) {
			if (!strchr("ebChV", o->val))
				continue;
			size_t n = strlen(o->name);
			if (strncmp(argv[i], "--", 2) == 0 && strncmp(argv[i] + 2, o->name, n) == 0 &&
			    (argv[i][2 + n] == '\0' || argv[i][2 + n] == '='))
				headless = true;
			if (argv[i][0] == '-' && argv[i][1] == o->val && argv[i][2] == '\0')
				headless = true;
		}
	if (!headless) {
		s.at.w = s.at.h = 0;	/* the window's own size unless asked */
		return window(argc, argv, &s);
	}
	int c;
	while ((c = getopt_long(argc, argv, "e:c:d:r:s:b:g:ihV", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == 'V') {
			printf("netplot %s\n", PACKAGE_VERSION);
			return 0;
		}
		if (c == 'f' || set_option(&s, c, optarg) < 0) {
			usage(stderr);
			return 2;
		}
	}
	if (s.bench)
		return s.use_index ? benchmark_index(s.bench, s.at.w, s.at.h, s.at.at.graph) :
				     benchmark(s.bench, s.at.w, s.at.h, s.at.at.graph);
	if (s.rates_given && s.cdf < NP_CDF_N)
		die(2, "--rates and --trace-rate are for --cdf added-delay[-response]",
		    s.cdf < 0 ? "--cdf" : np_cdf_metric_name((enum np_cdf_metric)s.cdf));
	if (s.cdf >= 0) {
		/* SLIM's replay of only the span asked for (--range). */
		if (s.at.at.r0 >= 0) {
			s.ao.range_start = (uint64_t)(s.at.at.r0 + 0.5);	/* ns */
			s.ao.range_end = (uint64_t)(s.at.at.r1 + 0.5);
		}
		return cdf_pictures(s.out, (enum np_cdf_metric)s.cdf, argv + optind, argc - optind,
				    s.at.w, s.at.h, &s.ao);
	}
	if (!s.out || optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	const char *in = argv[optind];
	char err[512];
	struct progress meter;
	progress_begin(&meter, prog, in, false);
	struct np_model *m = np_model_load_watched(in, err, sizeof err, on_progress, &meter);
	progress_end(&meter);
	if (!m)
		die_err(1, err, in);
	if (!m->nconn)
		die(1, "no connections in the trace", in);
	double r0 = s.at.at.r0, r1 = s.at.at.r1;
	if (r0 >= 0 && r0 > (double)m->t_end) {
		/* A blank picture would pass for one of a quiet moment. */
		char what[160];
		snprintf(what, sizeof what, "nothing in the range %.6g:%.6g (the trace spans 0:%.6f s)",
			 r0 / 1e9, r1 / 1e9, (double)m->t_end / 1e9);
		die(1, what, in);
	}
	struct np_view v;
	if (np_view_open(&v, m, &s.at.at, s.at.w, s.at.h, err, sizeof err) < 0) {
		if (err[strlen(err) - 1] == '\'')
			fprintf(stderr, "%s: %s\n", prog, err);	/* names the connection */
		else
			die(1, err, in);
		exit(1);
	}
	struct np_render_opts ro = { .no_inputs = s.at.no_inputs };
	if (np_export_with(&v, &ro, s.out, err, sizeof err) < 0)
		die_err(1, err, s.out);
	/* A damaged input is exported as far as it reads, and says so in
	   its status, as xcap -r and xcapanalyse do. */
	int status = m->damaged ? 1 : 0;
	np_model_free(m);
	return status;
}
