/*
 * index.c — TRACE.idx: building it when the trace has none (or a stale
 * one), reading it back with every offset checked, and drawing from it.
 * The layout is xcap/traceidx.c's (the writer, shared with xcap -w).
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index.h"
#include "model.h"
#include "render.h"
#include "state.h"
#include "trace.h"
#include "traceidx.h"

enum { HEADER = 72, CONN = 216, DIR_AT = 24, DIR = 64, NAME_AT = 152, NAME = 64, LEVEL = 24,
       BUCKET = 80, IVAL = 16, MAXLEVEL = 24 };
static const char magic[8] = "XCAPIDX1";

/* ---- checked little-endian reads: a read past the end gives 0 and
   marks the index bad ---- */

struct np_index {
	const uint8_t *p;
	size_t len;
	int bad;
	void *map;		/* from np_index_open: unmapped by np_index_free */
	size_t map_len;
	uint32_t nconn;
	uint64_t t0, t_end, npkt;
	uint64_t conn_off;
	bool has_state;
};

static uint64_t rd(struct np_index *ix, uint64_t off, int n)
{
	if (off > ix->len || (uint64_t)n > ix->len - off) {
		ix->bad = 1;
		return 0;
	}
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | ix->p[off + (uint64_t)i];
	return v;
}

/* Reads of a valid index never fail; a const view for the queries. */
static uint64_t rdc(const struct np_index *ix, uint64_t off, int n)
{
	return rd((struct np_index *)ix, off, n);
}

/* ---- building: one pass of the trace through the writer of
   xcap/traceidx.c, with the state model's intervals ---- */

static void on_interval(void *ctx, const struct xstate_interval *iv)
{
	xidx_interval(ctx, iv->conn, iv->dir, iv->state, iv->start, iv->end);
}

/* Every this many bytes of the trace read, the build says how far it
   is (and may be told to stop). */
enum { PROGRESS_STEP = 1 << 20 };

static int build_watched(const char *path, const char *out_path,
			 int (*progress)(void *ctx, long long done), void *ctx, char *err,
			 size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return -1;
	}
	struct trace_reader *r = trace_reader_new(f, err, errlen);
	if (!r) {
		fclose(f);
		return -1;
	}
	trace_reader_on_warning(r, NULL, NULL);
	struct xidx *x = xidx_new();
	struct xstate_model *sm = NULL;
	struct xstate_options so;
	xstate_options_default(&so);
	int bad = !x || !(sm = xstate_new(&so)) || xstate_on_interval(sm, on_interval, x) < 0;
	struct xrec rec;
	uint64_t told = 0;
	int stopped = 0;
	while (!bad && trace_reader_next(r, &rec) == 1) {
		uint64_t at = trace_reader_block_offset(r);
		bad = xidx_record(x, &rec, at) < 0 || xstate_record(sm, &rec) < 0;
		if (progress && at >= told + PROGRESS_STEP) {
			told = at;
			if (progress(ctx, (long long)at)) {
				bad = stopped = 1;
				break;
			}
		}
	}
	if (!bad) {
		xstate_finish(sm);
		xidx_states(x);	/* even when every moment was Idle */
	}
	xstate_free(sm);
	trace_reader_free(r);
	fclose(f);
	int ret = -1;
	if (stopped)
		snprintf(err, errlen, "stopped");
	else if (bad)
		snprintf(err, errlen, "out of memory");
	else
		ret = xidx_write(x, path, out_path, err, errlen);
	xidx_free(x);
	return ret;
}

int np_index_build(const char *path, const char *out_path, char *err, size_t errlen)
{
	return build_watched(path, out_path, NULL, NULL, err, errlen);
}

/* ---- the states of an index written without them, in a thread ---- */

struct np_states_job {
	pthread_t thread;
	char *path, *ipath;
	long long total;
	atomic_llong done;
	atomic_int state;	/* 0 running, 1 made, -1 failed */
	atomic_int stop;
	char err[256];		/* the thread's, read once state is -1 */
};

static int job_progress(void *ctx, long long done)
{
	struct np_states_job *j = ctx;
	atomic_store(&j->done, done);
	return atomic_load(&j->stop);
}

static void *job_run(void *arg)
{
	struct np_states_job *j = arg;
	/* The index made anew by the same writer from the same trace, with
	   the state model beside it: the same buckets as before, now with
	   their time in each state, and the intervals; written to a
	   temporary name and renamed over the old one, which a reader that
	   mapped it keeps until it lets go. */
	int rc = build_watched(j->path, j->ipath, job_progress, j, j->err, sizeof j->err);
	atomic_store(&j->state, rc < 0 ? -1 : 1);
	return NULL;
}

struct np_states_job *np_index_states_start(const char *path, char *err, size_t errlen)
{
	struct np_states_job *j = calloc(1, sizeof *j);
	size_t n = strlen(path);
	if (!j || !(j->path = strdup(path)) || !(j->ipath = malloc(n + 5))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	memcpy(j->ipath, path, n);
	memcpy(j->ipath + n, ".idx", 5);
	struct stat sb;
	j->total = stat(path, &sb) == 0 ? (long long)sb.st_size : 0;
	atomic_init(&j->done, 0);
	atomic_init(&j->state, 0);
	atomic_init(&j->stop, 0);
	int e = pthread_create(&j->thread, NULL, job_run, j);
	if (e) {
		snprintf(err, errlen, "cannot start a thread: %s", strerror(e));
		goto fail;
	}
	return j;
fail:
	if (j) {
		free(j->path);
		free(j->ipath);
	}
	free(j);
	return NULL;
}

int np_index_states_poll(struct np_states_job *j, long long *done, long long *total, char *err,
			 size_t errlen)
{
	*done = atomic_load(&j->done);
	*total = j->total;
	int st = atomic_load(&j->state);
	if (st < 0)
		snprintf(err, errlen, "%s", j->err);
	return st;
}

void np_index_states_free(struct np_states_job *j)
{
	if (!j)
		return;
	/* A job not finished stops at its next step (a megabyte of trace)
	   and writes nothing. */
	atomic_store(&j->stop, 1);
	pthread_join(j->thread, NULL);
	free(j->path);
	free(j->ipath);
	free(j);
}

/* ---- reading ---- */

static uint64_t conn_at(const struct np_index *ix, size_t i)
{
	return ix->conn_off + (uint64_t)i * CONN;
}

struct np_index *np_index_from_bytes(const uint8_t *p, size_t len, char *err, size_t errlen)
{
	struct np_index *ix = calloc(1, sizeof *ix);
	if (!ix) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ix->p = p;
	ix->len = len;
	if (len < HEADER || memcmp(p, magic, 8) != 0) {
		snprintf(err, errlen, "not a trace index");
		goto bad;
	}
	if (rd(ix, 8, 4) != XIDX_VERSION) {
		snprintf(err, errlen, "index version %u, not %u", (unsigned)rd(ix, 8, 4), XIDX_VERSION);
		goto bad;
	}
	ix->nconn = (uint32_t)rd(ix, 12, 4);
	ix->t0 = rd(ix, 40, 8);
	ix->t_end = rd(ix, 48, 8);
	ix->conn_off = rd(ix, 56, 8);
	ix->has_state = rd(ix, 64, 4) & XIDX_HAS_STATE;
	/* Every table must lie inside the file and every level be as long
	   as it says; after this, queries read only what was checked. */
	if (ix->conn_off > len || (uint64_t)ix->nconn * CONN > len - ix->conn_off) {
		snprintf(err, errlen, "index damaged: connection table past the end");
		goto bad;
	}
	for (size_t i = 0; i < ix->nconn; i++)
		for (int k = 0; k < 2; k++) {
			uint64_t de = conn_at(ix, i) + DIR_AT + (uint64_t)k * DIR;
			ix->npkt += rd(ix, de, 8);
			uint64_t nl = rd(ix, de + 20, 4), w0 = rd(ix, de + 24, 8), lt = rd(ix, de + 32, 8);
			if (nl > MAXLEVEL || (nl && (w0 == 0 || w0 > (UINT64_MAX >> 8)))) {
				snprintf(err, errlen, "index damaged: connection %zu", i + 1);
				goto bad;
			}
			for (uint64_t l = 0; l < nl; l++) {
				uint64_t cnt = rd(ix, lt + l * LEVEL + 8, 8), off = rd(ix, lt + l * LEVEL + 16, 8);
				if (ix->bad || cnt > len / BUCKET || off > len || cnt * BUCKET > len - off) {
					snprintf(err, errlen, "index damaged: connection %zu level %u", i + 1,
						 (unsigned)l);
					goto bad;
				}
			}
			uint64_t niv = rd(ix, de + 40, 8), ivo = rd(ix, de + 48, 8);
			if (ix->bad || niv > len / IVAL || ivo > len || niv * IVAL > len - ivo) {
				snprintf(err, errlen, "index damaged: connection %zu states", i + 1);
				goto bad;
			}
		}
	if (ix->bad) {
		snprintf(err, errlen, "index damaged: cut short");
		goto bad;
	}
	return ix;
bad:
	free(ix);
	return NULL;
}

void np_index_free(struct np_index *ix)
{
	if (!ix)
		return;
	if (ix->map)
		munmap(ix->map, ix->map_len);
	free(ix);
}

static struct np_index *map_index(const char *ipath, char *err, size_t errlen)
{
	int fd = open(ipath, O_RDONLY);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return NULL;
	}
	struct stat sb;
	if (fstat(fd, &sb) < 0 || sb.st_size < HEADER) {
		close(fd);
		snprintf(err, errlen, "not a trace index");
		return NULL;
	}
	void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		snprintf(err, errlen, "cannot map: %s", strerror(errno));
		return NULL;
	}
	struct np_index *ix = np_index_from_bytes(m, (size_t)sb.st_size, err, errlen);
	if (!ix) {
		munmap(m, (size_t)sb.st_size);
		return NULL;
	}
	ix->map = m;
	ix->map_len = (size_t)sb.st_size;
	return ix;
}

struct np_index *np_index_open(const char *path, bool *built, char *err, size_t errlen)
{
	char ipath[4096];
	snprintf(ipath, sizeof ipath, "%s.idx", path);
	*built = false;
	uint64_t size, mtime, hash;
	if (xidx_stamp(path, &size, &mtime, &hash) < 0) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return NULL;
	}
	char ierr[256];
	struct np_index *ix = map_index(ipath, ierr, sizeof ierr);
	if (ix && (rd(ix, 16, 8) != size || rd(ix, 24, 8) != mtime || rd(ix, 32, 8) != hash)) {
		np_index_free(ix);	/* stale: the trace changed since */
		ix = NULL;
	}
	if (ix)
		return ix;
	if (np_index_build(path, ipath, err, errlen) < 0)
		return NULL;
	*built = true;
	return map_index(ipath, err, errlen);
}

size_t np_index_conns(const struct np_index *ix)
{
	return ix->nconn;
}

uint64_t np_index_packets(const struct np_index *ix)
{
	return ix->npkt;
}

void np_index_conn(const struct np_index *ix, size_t i, uint32_t *id, uint64_t *first,
		   uint64_t *last, uint64_t npkt[2])
{
	uint64_t c = conn_at(ix, i);
	*id = (uint32_t)rdc(ix, c, 4);
	*first = rdc(ix, c + 8, 8);
	*last = rdc(ix, c + 16, 8);
	for (int k = 0; k < 2; k++)
		npkt[k] = rdc(ix, c + DIR_AT + (uint64_t)k * DIR, 8);
}

bool np_index_has_state(const struct np_index *ix)
{
	return ix->has_state;
}

uint64_t np_index_state_intervals(const struct np_index *ix)
{
	uint64_t n = 0;
	for (size_t i = 0; i < ix->nconn; i++)
		for (int k = 0; k < 2; k++)
			n += rdc(ix, conn_at(ix, i) + DIR_AT + (uint64_t)k * DIR + 40, 8);
	return n;
}

void np_index_conn_name(const struct np_index *ix, size_t i, char *buf, size_t len)
{
	size_t n = 0;
	uint64_t at = conn_at(ix, i) + NAME_AT;
	while (len && n + 1 < len && n < NAME) {
		char ch = (char)rdc(ix, at + n, 1);
		if (!ch)
			break;
		buf[n++] = ch;
	}
	if (len)
		buf[n] = '\0';
}

/* The state intervals of direction dir of connection i that meet [t0,
   t1] (ns since the trace's t0), each given to fn: a binary search of
   the direction's sorted table, then the intervals one by one. */
static void states_in(const struct np_index *ix, size_t i, int dir, uint64_t t0, uint64_t t1,
		      void (*fn)(void *ctx, int state, uint64_t start, uint64_t end), void *ctx)
{
	uint64_t de = conn_at(ix, i) + DIR_AT + (uint64_t)(dir & 1) * DIR;
	uint64_t n = rdc(ix, de + 40, 8), off = rdc(ix, de + 48, 8);
	const uint64_t mask = ((uint64_t)1 << 62) - 1;
	/* the first whose end is past t0: ends are sorted as starts are,
	   the intervals of a direction not overlapping */
	uint64_t lo = 0, hi = n;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if ((rdc(ix, off + mid * IVAL + 8, 8) & mask) <= t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint64_t k = lo; k < n; k++) {
		uint64_t s = rdc(ix, off + k * IVAL, 8), e8 = rdc(ix, off + k * IVAL + 8, 8);
		if (s >= t1)
			break;
		fn(ctx, (int)(e8 >> 62), s, e8 & mask);
	}
}

size_t np_index_busiest(const struct np_index *ix)
{
	size_t best = 0;
	uint64_t most = 0;
	for (size_t i = 0; i < np_index_conns(ix); i++) {
		uint32_t id;
		uint64_t a, b, n[2];
		np_index_conn(ix, i, &id, &a, &b, n);
		if (n[0] + n[1] > most) {
			most = n[0] + n[1];
			best = i;
		}
	}
	return best;
}

static void bucket_read(const struct np_index *ix, uint64_t off, struct xidx_bucket *k)
{
	k->dlo = (int64_t)rdc(ix, off, 8);
	k->dhi = (int64_t)rdc(ix, off + 8, 8);
	k->alo = (int64_t)rdc(ix, off + 16, 8);
	k->ahi = (int64_t)rdc(ix, off + 24, 8);
	k->bytes = rdc(ix, off + 32, 8);
	k->npkt = (uint32_t)rdc(ix, off + 40, 4);
	k->nmsg = (uint32_t)rdc(ix, off + 44, 4);
	k->block = rdc(ix, off + 48, 8);
	for (int s = 0; s < 3; s++)
		k->state[s] = rdc(ix, off + 56 + 8 * (uint64_t)s, 8);
}

size_t np_index_range(const struct np_index *ix, size_t i, int dir, uint64_t t0, uint64_t t1,
		      uint64_t width, struct xidx_bucket *out)
{
	xidx_bucket_empty(out);
	if (i >= ix->nconn || t1 <= t0)
		return 0;
	uint64_t de = conn_at(ix, i) + DIR_AT + (uint64_t)(dir & 1) * DIR;
	uint64_t nl = rdc(ix, de + 20, 4), w = rdc(ix, de + 24, 8), lt = rdc(ix, de + 32, 8);
	if (!nl)
		return 0;
	/* The coarsest level whose buckets are no wider than width. */
	uint64_t l = 0;
	while (l + 1 < nl && w * NP_INDEX_FANOUT <= width) {
		w *= NP_INDEX_FANOUT;
		l++;
	}
	uint64_t start = rdc(ix, lt + l * LEVEL, 8), cnt = rdc(ix, lt + l * LEVEL + 8, 8);
	uint64_t off = rdc(ix, lt + l * LEVEL + 16, 8);
	uint64_t a = t0 / w, b = (t1 - 1) / w;
	if (a < start)
		a = start;
	if (b >= start + cnt)
		b = start + cnt - 1;
	size_t n = 0;
	for (uint64_t k = a; k <= b && k >= start && k < start + cnt; k++, n++) {
		struct xidx_bucket one;
		bucket_read(ix, off + (k - start) * BUCKET, &one);
		xidx_bucket_merge(out, &one);
	}
	return n;
}

size_t np_index_render(cairo_t *cr, const struct np_index *ix, size_t i, int dir, double t0,
		       double t1, double y0, double y1, int w, int h)
{
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	return np_index_draw(cr, ix, i, dir, t0, t1, y0, y1, 0, 0, w, h);
}

size_t np_index_draw(cairo_t *cr, const struct np_index *ix, size_t i, int dir, double t0,
		     double t1, double y0, double y1, double px, double py, double w, double h)
{
	if (t1 <= t0 || y1 <= y0 || w < 1 || h < 10)
		return 0;
	/* The graph's own mapping (np_y): the columns land where its
	   packets would. */
	double tpp = (t1 - t0) / w, ypp = (y1 - y0) / h;
	double base = py + h;
	size_t reads = 0;
	cairo_save(cr);
	cairo_rectangle(cr, px, py, w, h);
	cairo_clip(cr);
	for (int x = 0; x < (int)w; x++) {
		double a = t0 + x * tpp;
		if (a + tpp <= 0)
			continue;
		struct xidx_bucket k;
		reads += np_index_range(ix, i, dir, a < 0 ? 0 : (uint64_t)a, (uint64_t)(a + tpp),
					(uint64_t)tpp, &k);
		if (!k.npkt && !k.state[0] && !k.state[1] && !k.state[2])
			continue;
		if (k.ahi >= k.alo) {	/* acknowledgements, green as in the graph */
			cairo_set_source_rgb(cr, 0.1, 0.6, 0.1);
			double ya = base - (k.ahi - y0) / ypp, yb = base - (k.alo - y0) / ypp;
			cairo_rectangle(cr, px + x, ya, 1, yb - ya + 1);
			cairo_fill(cr);
		}
		if (k.dhi >= k.dlo) {
			cairo_set_source_rgb(cr, 0, 0, 0);
			double ya = base - (k.dhi - y0) / ypp, yb = base - (k.dlo - y0) / ypp;
			cairo_rectangle(cr, px + x, ya, 1, yb - ya + 1);
			cairo_fill(cr);
		}
		/* The state band: the state that took most of the column. */
		int st = 0;
		uint64_t most = 0;
		for (int s = 0; s < 3; s++)
			if (k.state[s] > most) {
				most = k.state[s];
				st = s + 1;
			}
		if (st) {
			struct np_rgb c = np_state_colour(st);
			cairo_set_source_rgb(cr, c.r, c.g, c.b);
			cairo_rectangle(cr, px + x, py + h - 7, 1, 6);
			cairo_fill(cr);
		}
	}
	if (!ix->has_state) {
		/* Said, not left blank: Idle would look the same. */
		cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
		cairo_set_font_size(cr, 10);
		cairo_move_to(cr, px + 4, py + h - 2);
		cairo_show_text(cr, "states not in this index (written while capturing)");
	}
	cairo_restore(cr);
	return reads;
}

/* The offset of the first block holding a packet of [t0, t1) of
   direction dir, from the level-0 buckets; 0 none. */
static uint64_t first_block(const struct np_index *ix, size_t i, int dir, uint64_t t0,
			    uint64_t t1, struct xidx_bucket *first)
{
	uint64_t de = conn_at(ix, i) + DIR_AT + (uint64_t)dir * DIR;
	uint64_t nl = rdc(ix, de + 20, 4), w = rdc(ix, de + 24, 8), lt = rdc(ix, de + 32, 8);
	if (!nl)
		return 0;
	uint64_t start = rdc(ix, lt, 8), cnt = rdc(ix, lt + 8, 8), off = rdc(ix, lt + 16, 8);
	uint64_t a = t0 / w, b = t1 ? (t1 - 1) / w : 0;
	if (a < start)
		a = start;
	for (uint64_t k = a; k <= b && k < start + cnt; k++) {
		bucket_read(ix, off + (k - start) * BUCKET, first);
		if (first->block)
			return first->block;
	}
	return 0;
}

enum { WINDOW_TAIL = 20000000 };	/* ns */

size_t np_index_window_cost(const struct np_index *ix, size_t i, uint64_t t0, uint64_t t1)
{
	if (i >= ix->nconn || t1 < t0)
		return 0;
	uint64_t from = 0, to = 0;
	struct xidx_bucket k;
	for (int d = 0; d < 2; d++) {
		uint64_t o = first_block(ix, i, d, t0, t1 + 1, &k);
		if (o && (!from || o < from))
			from = o;
		/* where the reading of the span would stop: the block of the
		   direction's first packet a tail past it */
		uint64_t e = first_block(ix, i, d, t1 + WINDOW_TAIL, t1 + 1000000000u, &k);
		if (e > to)
			to = e;
		/* none: the reading stops a second past the span, before the
		   block of the next packet after that (a bound) */
		if (!e && (e = first_block(ix, i, d, t1 + 1000000000u, t1 + 60000000000u, &k)) > to)
			to = e;
	}
	if (!from)
		return 0;
	/* no packet of its own after the span: reading stops at the first
	   record a second past it, before any connection's next block */
	for (size_t c = 0; c < ix->nconn && to <= from; c++)
		for (int d = 0; d < 2; d++) {
			uint64_t e = first_block(ix, c, d, t1 + 1000000000u, t1 + 60000000000u, &k);
			if (e > from && (to <= from || e < to))
				to = e;
		}
	if (to <= from)
		return (size_t)(rdc(ix, 16, 8) > from ? rdc(ix, 16, 8) - from : 0);
	return (size_t)(to - from);
}

struct win_states {
	struct np_model *m;
	uint32_t id;
	int dir;
	uint64_t t0, from, to;	/* the trace's t0 (absolute); the span (ns since it) */
};

static void add_state(void *ctx, int state, uint64_t start, uint64_t end)
{
	struct win_states *ws = ctx;
	uint64_t s = start > ws->from ? start : ws->from, e = end < ws->to ? end : ws->to;
	if (e > s)
		np_model_add_interval(ws->m, ws->id, ws->dir, (uint8_t)state, ws->t0 + s, ws->t0 + e);
}

/* Reading a span: the model set up, the trace open at the span's first
   block, and where to stop. */
struct np_window_job {
	const struct np_index *ix;
	size_t i;
	uint32_t id;
	uint64_t t0, t1;
	struct np_model *m;
	FILE *f;
	struct trace_reader *r;
	uint64_t stop, settled;	/* absolute ns */
	bool waiting[2];
	bool done;
	size_t chunks;
};

struct np_window_job *np_index_window_begin(const struct np_index *ix, const char *trace,
					    size_t i, uint64_t t0, uint64_t t1, char *err,
					    size_t errlen)
{
	if (i >= ix->nconn) {
		snprintf(err, errlen, "no such connection");
		return NULL;
	}
	uint64_t c = conn_at(ix, i);
	uint32_t id = (uint32_t)rdc(ix, c, 4);
	struct xidx_bucket fb[2];
	xidx_bucket_empty(&fb[0]);
	xidx_bucket_empty(&fb[1]);
	uint64_t from = 0;
	for (int d = 0; d < 2; d++) {
		uint64_t o = first_block(ix, i, d, t0, t1, &fb[d]);
		if (o && (!from || o < from))
			from = o;
	}
	struct np_window_job *j = calloc(1, sizeof *j);
	struct np_model *m = j ? np_model_new() : NULL;
	if (!m) {
		free(j);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	*j = (struct np_window_job){ .ix = ix, .i = i, .id = id, .t0 = t0, .t1 = t1, .m = m };
	m->t0 = ix->t0;
	/* The connection at its place (ids are dense from 1), with the
	   whole graph's zero of each direction and the unwrapping carried
	   on from the span's first bucket. */
	for (uint32_t k = 1; k <= id; k++) {
		struct xrec r = { .type = XREC_CONN };
		r.u.conn = (struct xrec_conn){ .ts = ix->t0 + t0, .id = k, .proto = "" };
		if (np_model_add(m, &r) < 0) {
			snprintf(err, errlen, "out of memory");
			np_index_window_free(j);
			return NULL;
		}
	}
	if (id == 0 || m->nconn < id) {
		snprintf(err, errlen, "connection id out of range");
		np_index_window_free(j);
		return NULL;
	}
	struct np_conn *nc = &m->conn[id - 1];
	for (int d = 0; d < 2; d++) {
		struct np_dir *nd = &nc->dir[d];
		uint64_t de = c + DIR_AT + (uint64_t)d * DIR;
		nd->have_base = true;
		nd->base = (uint32_t)rdc(ix, de + 16, 4);
		if (from && fb[d].dhi >= fb[d].dlo) {
			nd->have_seq = true;
			nd->seq_w = fb[d].dlo;
			nd->seq_raw = nd->base + (uint32_t)fb[d].dlo;
		}
		if (from && fb[d].ahi >= fb[d].alo) {
			nd->have_ack = true;
			nd->ack_w = fb[d].alo;
			nd->ack_raw = nd->base + (uint32_t)fb[d].alo;
		}
	}
	j->done = !from;
	if (from) {
		j->f = fopen(trace, "rb");
		j->r = j->f ? trace_reader_new(j->f, err, errlen) : NULL;
		if (!j->r || trace_reader_seek(j->r, from) < 0) {
			if (!j->f)
				snprintf(err, errlen, "cannot open: %s", strerror(errno));
			else if (j->r)
				snprintf(err, errlen, "cannot seek in the trace");
			np_index_window_free(j);
			return NULL;
		}
		trace_reader_on_warning(j->r, NULL, NULL);
		/* Records come in capture order, a message after the packet
		   holding its end, later only when its stream waited for a
		   retransmission.  Reading stops once each direction with
		   packets in the span has shown one WINDOW_TAIL past its end,
		   or at a second past it: the other connections' records in
		   between cost as much as the span's own (GUI windows reach
		   half a view beyond the view, so what a long retransmission
		   delays past the edge is off the screen). */
		j->stop = ix->t0 + t1 + 1000000000u;
		j->settled = ix->t0 + t1 + WINDOW_TAIL;
		j->waiting[0] = fb[0].block != 0;
		j->waiting[1] = fb[1].block != 0;
	}
	return j;
}

int np_index_window_step(struct np_window_job *j, size_t bytes, char *err, size_t errlen)
{
	if (j->done)
		return 1;
	j->chunks++;
	uint64_t begin = trace_reader_block_offset(j->r);
	const struct np_index *ix = j->ix;
	struct xrec rec;
	int got;
	while ((got = trace_reader_next(j->r, &rec)) == 1) {
		uint64_t ts;
		uint32_t cid;
		switch (rec.type) {
		case XREC_PKT: ts = rec.u.pkt.ts; cid = rec.u.pkt.conn; break;
		case XREC_MSG: ts = rec.u.msg.ts; cid = rec.u.msg.conn; break;
		case XREC_GAP: ts = rec.u.gap.ts; cid = rec.u.gap.conn; break;
		default: continue;
		}
		if (ts > j->stop)
			break;
		if (cid == j->id && rec.type == XREC_PKT && ts > j->settled) {
			j->waiting[rec.u.pkt.dir & 1] = false;
			if (!j->waiting[0] && !j->waiting[1])
				break;
		}
		if (cid != j->id || ts < ix->t0 + j->t0 || ts > ix->t0 + j->t1)
			continue;
		if (np_model_add(j->m, &rec) < 0) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		/* A step ends between records, at the first block past its
		   share: the next goes on from the same reader. */
		if (trace_reader_block_offset(j->r) - begin >= bytes)
			return 0;
	}
	j->done = true;
	return 1;
}

struct np_model *np_index_window_end(struct np_window_job *j, char *err, size_t errlen)
{
	const struct np_index *ix = j->ix;
	struct np_model *m = j->m;
	uint64_t t0 = j->t0, t1 = j->t1;
	size_t i = j->i;
	uint32_t id = j->id;
	struct np_conn *nc = &m->conn[id - 1];
	j->m = NULL;
	np_index_window_free(j);
	/* The states of the span: the whole-trace state model's own
	   intervals, kept in the index, so the window needs no starting
	   state.  An index without them (written at capture time, where the
	   state model is not at hand) leaves the window without a band
	   rather than show a band that might be wrong. */
	if (ix->has_state) {
		struct win_states ws = { m, id, 0, ix->t0, t0, t1 };
		for (ws.dir = 0; ws.dir < 2; ws.dir++)
			states_in(ix, i, ws.dir, t0, t1 + 1, add_state, &ws);
		m->have_state = true;
	}
	char name[NAME + 1];
	np_index_conn_name(ix, i, name, sizeof name);
	if (name[0]) {
		snprintf(nc->label, sizeof nc->label, "%s", name);
		nc->named = true;
	}
	if (np_model_finish(m) < 0) {
		snprintf(err, errlen, "out of memory");
		np_model_free(m);
		return NULL;
	}
	return m;
}

size_t np_index_window_chunks(const struct np_window_job *j)
{
	return j->chunks;
}

void np_index_window_free(struct np_window_job *j)
{
	if (!j)
		return;
	trace_reader_free(j->r);
	if (j->f)
		fclose(j->f);
	np_model_free(j->m);
	free(j);
}

struct np_model *np_index_window(const struct np_index *ix, const char *trace, size_t i,
				 uint64_t t0, uint64_t t1, char *err, size_t errlen)
{
	struct np_window_job *j = np_index_window_begin(ix, trace, i, t0, t1, err, errlen);
	if (!j)
		return NULL;
	if (np_index_window_step(j, SIZE_MAX, err, errlen) < 0) {
		np_index_window_free(j);
		return NULL;
	}
	return np_index_window_end(j, err, errlen);
}
