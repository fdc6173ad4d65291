/*
 * wlaccount.c — descriptors and shared-memory reads of Wayland
 * connections (wlaccount.h).
 *
 * Belongs to: the xcap-run command's room (xcap/cmd/xcap-run/).
 */
#include "config.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wlaccount.h"

#define ARGS_MAX 8
#define RECTS_MAX 64

struct rect {
	int64_t x0, y0, x1, y1;
};

enum obj_kind { OBJ_POOL = 1, OBJ_SHM_BUFFER, OBJ_DMABUF_BUFFER, OBJ_SURFACE };

struct obj {
	uint32_t id;
	uint8_t kind;
	/* pool */
	uint64_t size;
	int fd;			/* its memory, ours (-1 none) */
	uint8_t *mirror;	/* what waypipe's other side holds of it */
	uint64_t mirror_size;
	/* shm buffer */
	uint32_t pool;
	int64_t offset, width, height, stride;
	uint32_t format;
	bool committed;
	/* surface: pending state, applied by commit */
	bool attached;		/* an attach since the last commit */
	uint32_t buffer;	/* the attached buffer, 0 none */
	int32_t scale, pending_scale;
	size_t ndamage;
	bool damage_all;	/* more rectangles than kept: the whole buffer */
	/* last: only its first ndamage are read, so a new object clears
	   what comes before it (2 KB a surface, on the relay's path) */
	struct rect damage[RECTS_MAX];
};

struct fdq {
	char **what;
	int *fd;		/* a duplicate of each, or -1 */
	size_t head, len, cap;
};

struct conn {
	uint32_t id;
	struct obj *objs;
	size_t nobjs, cap;
	struct fdq fds[2];
};

struct wl_account {
	xrec_emit_fn emit;
	void *ctx;
	struct conn *conns;
	size_t nconns;
	uint64_t commits, bytes, fd_messages, waypipe;
	bool oom;
};

static void pool_release(struct obj *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	free(p->mirror);
	p->mirror = NULL;
	p->mirror_size = 0;
}

struct wl_account *wl_account_new(xrec_emit_fn emit, void *ctx)
{
	struct wl_account *a = calloc(1, sizeof *a);
	if (a) {
		a->emit = emit;
		a->ctx = ctx;
	}
	return a;
}

void wl_account_free(struct wl_account *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nconns; i++) {
		for (size_t k = 0; k < a->conns[i].nobjs; k++)
			if (a->conns[i].objs[k].kind == OBJ_POOL)
				pool_release(&a->conns[i].objs[k]);
		free(a->conns[i].objs);
		for (int d = 0; d < 2; d++) {
			struct fdq *q = &a->conns[i].fds[d];
			for (size_t k = 0; k < q->len; k++) {
				free(q->what[(q->head + k) % q->cap]);
				if (q->fd[(q->head + k) % q->cap] >= 0)
					close(q->fd[(q->head + k) % q->cap]);
			}
			free(q->what);
			free(q->fd);
		}
	}
	free(a->conns);
	free(a);
}

void wl_account_totals(const struct wl_account *a, uint64_t *commits, uint64_t *bytes,
		       uint64_t *fd_messages, uint64_t *waypipe)
{
	*commits = a->commits;
	*bytes = a->bytes;
	*fd_messages = a->fd_messages;
	*waypipe = a->waypipe;
}

static struct conn *conn_of(struct wl_account *a, uint32_t id)
{
	for (size_t i = 0; i < a->nconns; i++)
		if (a->conns[i].id == id)
			return &a->conns[i];
	struct conn *n = realloc(a->conns, (a->nconns + 1) * sizeof *n);
	if (!n) {
		a->oom = true;
		return NULL;
	}
	a->conns = n;
	struct conn *c = &a->conns[a->nconns++];
	memset(c, 0, sizeof *c);
	c->id = id;
	return c;
}

static struct obj *obj_of(struct conn *c, uint32_t id)
{
	for (size_t i = 0; i < c->nobjs; i++)
		if (c->objs[i].id == id)
			return &c->objs[i];
	return NULL;
}

/* A new object id of kind k, replacing any earlier one of that id (ids
   are reused once deleted). */
static struct obj *obj_make(struct wl_account *a, struct conn *c, uint32_t id, uint8_t k)
{
	struct obj *o = obj_of(c, id);
	if (!o) {
		if (c->nobjs == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 32;
			struct obj *n = realloc(c->objs, cap * sizeof *n);
			if (!n) {
				a->oom = true;
				return NULL;
			}
			/* nothing is read of a new slot before it is set below */
			c->objs = n;
			c->cap = cap;
		}
		o = &c->objs[c->nobjs++];
	} else if (o->kind == OBJ_POOL) {
		pool_release(o);
	}
	memset(o, 0, offsetof(struct obj, damage));
	o->id = id;
	o->kind = k;
	o->fd = -1;
	o->scale = o->pending_scale = 1;
	return o;
}

static void obj_drop(struct conn *c, uint32_t id)
{
	struct obj *o = obj_of(c, id);
	if (o) {
		if (o->kind == OBJ_POOL)
			pool_release(o);
		*o = c->objs[--c->nobjs];
	}
}

int wl_account_fds(struct wl_account *a, uint32_t conn, int dir, const char *const *what,
		   const int *fds, int n)
{
	struct conn *c = conn_of(a, conn);
	if (!c) {
		for (int i = 0; i < n; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		return -1;
	}
	struct fdq *q = &c->fds[dir & 1];
	for (int i = 0; i < n; i++) {
		if (q->len == q->cap) {
			size_t cap = q->cap ? q->cap * 2 : 16;
			char **w = malloc(cap * sizeof *w);
			int *f = malloc(cap * sizeof *f);
			if (!w || !f) {
				free(w);
				free(f);
				return -1;
			}
			for (size_t k = 0; k < q->len; k++) {
				w[k] = q->what[(q->head + k) % q->cap];
				f[k] = q->fd[(q->head + k) % q->cap];
			}
			free(q->what);
			free(q->fd);
			q->what = w;
			q->fd = f;
			q->head = 0;
			q->cap = cap;
		}
		char *s = strdup(what[i]);
		if (!s)
			return -1;
		q->what[(q->head + q->len) % q->cap] = s;
		q->fd[(q->head + q->len++) % q->cap] = fds[i];
	}
	return 0;
}

/* The id after '@' in "iface@ID", "new id iface@ID"; 0 for "nil". */
static uint32_t id_arg(const char *s)
{
	const char *at = strrchr(s, '@');
	return at ? (uint32_t)strtoul(at + 1, NULL, 10) : 0;
}

/* The arguments of a detail "iface@id.name(a, b, c)" into args (pointers
   into copy); their count, -1 when the detail is not in that form. */
static int split_args(const char *detail, char *copy, size_t size, char **args)
{
	const char *open = strchr(detail, '(');
	size_t len = strlen(detail);
	if (!open || len < 2 || detail[len - 1] != ')' || len >= size)
		return -1;
	size_t n = len - (size_t)(open - detail) - 2;
	memcpy(copy, open + 1, n);
	copy[n] = '\0';
	int k = 0;
	if (!n)
		return 0;
	for (char *p = copy; p && k < ARGS_MAX;) {
		args[k++] = p;
		char *comma = strstr(p, ", ");
		if (comma) {
			*comma = '\0';
			p = comma + 2;
		} else {
			p = NULL;
		}
	}
	return k;
}

static void note(struct wl_account *a, const struct xrec_msg *m, const char *text)
{
	struct xrec r = { .type = XREC_NOTE };
	r.u.note.ts = m->ts;
	r.u.note.conn = m->conn;
	r.u.note.dir = m->dir;
	r.u.note.text = text;
	a->emit(a->ctx, &r);
}

/* The descriptors the message carried, from the queue of its direction;
   the first one's duplicate (ours), or -1. */
static int take_fds(struct wl_account *a, struct conn *c, const struct xrec_msg *m, char **args,
		    int nargs)
{
	int want = 0, first = -1;
	for (int i = 0; i < nargs; i++)
		want += strcmp(args[i], "fd") == 0;
	if (!want)
		return -1;
	struct fdq *q = &c->fds[m->dir & 1];
	char text[XMSG_DETAIL_MAX + 512];
	int at = snprintf(text, sizeof text, "fds %d: %s:", want, m->detail);
	for (int i = 0; i < want; i++) {
		if (!q->len) {
			at += snprintf(text + at, sizeof text - (size_t)at, "%s (none came with the bytes)",
				       i ? "," : "");
			break;
		}
		char *w = q->what[q->head];
		int fd = q->fd[q->head];
		if (i == 0)
			first = fd;
		else if (fd >= 0)
			close(fd);
		q->head = (q->head + 1) % q->cap;
		q->len--;
		if ((size_t)at < sizeof text)
			at += snprintf(text + at, sizeof text - (size_t)at, "%s %s", i ? "," : "", w);
		free(w);
	}
	a->fd_messages++;
	note(a, m, text);
	return first;
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static int cmp_span(const void *x, const void *y)
{
	const int64_t *a = x, *b = y;
	return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* The damaged bytes of buffer b: each row's union of the rectangles'
   spans, counted once. */
static uint64_t damaged_bytes(const struct obj *s, const struct obj *b)
{
	int64_t bpp = b->width > 0 ? b->stride / b->width : 0;
	if (bpp < 1)
		bpp = 1;
	struct rect r[RECTS_MAX];
	size_t n = 0;
	if (s->damage_all) {
		r[n++] = (struct rect){ 0, 0, b->width, b->height };
	} else {
		for (size_t i = 0; i < s->ndamage; i++) {
			struct rect d = s->damage[i];
			d.x0 = clamp(d.x0, 0, b->width);
			d.x1 = clamp(d.x1, 0, b->width);
			d.y0 = clamp(d.y0, 0, b->height);
			d.y1 = clamp(d.y1, 0, b->height);
			if (d.x1 > d.x0 && d.y1 > d.y0)
				r[n++] = d;
		}
	}
	if (!n)
		return 0;
	/* Rows between consecutive rectangle edges share one union. */
	int64_t ys[2 * RECTS_MAX];
	size_t ny = 0;
	for (size_t i = 0; i < n; i++) {
		ys[ny++] = r[i].y0;
		ys[ny++] = r[i].y1;
	}
	qsort(ys, ny, sizeof *ys, cmp_span);
	uint64_t total = 0;
	for (size_t k = 0; k + 1 < ny; k++) {
		int64_t y0 = ys[k], y1 = ys[k + 1];
		if (y1 <= y0)
			continue;
		int64_t span[RECTS_MAX][2];
		size_t ns = 0;
		for (size_t i = 0; i < n; i++)
			if (r[i].y0 <= y0 && r[i].y1 >= y1) {
				span[ns][0] = r[i].x0;
				span[ns][1] = r[i].x1;
				ns++;
			}
		qsort(span, ns, sizeof *span, cmp_span);
		int64_t width = 0, end = INT64_MIN;
		for (size_t i = 0; i < ns; i++) {
			int64_t from = span[i][0] > end ? span[i][0] : end;
			if (span[i][1] > from)
				width += span[i][1] - from;
			if (span[i][1] > end)
				end = span[i][1];
		}
		total += (uint64_t)(width * bpp) * (uint64_t)(y1 - y0);
	}
	return total;
}

/* ---- what waypipe would send: its diff of the damage ----
 *
 * waypipe 0.8 (src/kernel.c, src/shadow.c of its source) keeps on each
 * side a copy of every shared-memory pool, the other side's starting as
 * zeros.  On a commit it turns the damage into byte intervals of the pool
 * and, in 8-byte blocks, compares each interval with its copy: a run of
 * changed blocks goes as an 8-byte header (its first and last block) and
 * the blocks, and a run goes on across up to 12 unchanged blocks rather
 * than pay another header; what was sent is copied into the copy.  The
 * BUFFER_DIFF message adds 16 bytes (its header, the buffer's id, the
 * diff's size and its trailing bytes).  Nothing is compressed (waypipe
 * 0.8's default); a commit with nothing changed sends nothing.  The
 * relay keeps the same copy from the pool's own memory, read at the
 * commit (the buffer is the compositor's then: the client may not write
 * it before its release).
 */
#define WP_BLOCK 8
#define WP_WINDOW 12
#define WP_HEADER 16

struct span {
	uint64_t from, to;	/* bytes of the pool */
};

static int cmp_u64pair(const void *x, const void *y)
{
	const struct span *a = x, *b = y;
	return a->from < b->from ? -1 : a->from > b->from;
}

/* The diff's bytes for the blocks [from, to) of pool memory now against
   the copy, which is brought up to date. */
static uint64_t diff_interval(const uint64_t *now, uint64_t *copy, size_t from, size_t to)
{
	uint64_t bytes = 0;
	size_t i = from;
	while (i < to) {
		while (i < to && now[i] == copy[i])
			i++;
		if (i == to)
			break;
		size_t run = 0, quiet = 0;
		while (i < to && quiet <= WP_WINDOW) {
			quiet = now[i] == copy[i] ? quiet + 1 : 0;
			copy[i] = now[i];
			run++;
			i++;
		}
		if (quiet > WP_WINDOW)
			run -= quiet;
		bytes += WP_BLOCK + run * WP_BLOCK;
	}
	return bytes;
}

/* waypipe's bytes for the commit of buffer b with surface s's damage, or
   -1 when the pool's memory cannot be read. */
static int64_t waypipe_diff(struct obj *p, const struct obj *s, const struct obj *b)
{
	if (p->fd < 0 || !p->size || p->size > (1ull << 31))
		return -1;
	size_t size = (size_t)p->size & ~(size_t)(WP_BLOCK - 1);
	if (p->mirror_size != size) {
		uint8_t *m = realloc(p->mirror, size ? size : 1);
		if (!m)
			return -1;
		if (size > p->mirror_size)
			memset(m + p->mirror_size, 0, size - p->mirror_size);
		p->mirror = m;
		p->mirror_size = size;
	}
	void *map = mmap(NULL, (size_t)p->size, PROT_READ, MAP_SHARED, p->fd, 0);
	if (map == MAP_FAILED)
		return -1;
	/* the damage as byte intervals of the pool, row by row, merged */
	int64_t bpp = b->width > 0 ? b->stride / b->width : 1;
	if (bpp < 1)
		bpp = 1;
	size_t cap = 0, n = 0;
	struct span *v = NULL;
	struct rect all = { 0, 0, b->width, b->height };
	size_t nr = s->damage_all ? 1 : s->ndamage;
	for (size_t k = 0; k < nr; k++) {
		struct rect d = s->damage_all ? all : s->damage[k];
		int64_t x0 = clamp(d.x0, 0, b->width), x1 = clamp(d.x1, 0, b->width);
		int64_t y0 = clamp(d.y0, 0, b->height), y1 = clamp(d.y1, 0, b->height);
		for (int64_t y = y0; x1 > x0 && y < y1; y++) {
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				struct span *nv = realloc(v, cap * sizeof *v);
				if (!nv) {
					free(v);
					munmap(map, (size_t)p->size);
					return -1;
				}
				v = nv;
			}
			uint64_t from = (uint64_t)(b->offset + y * b->stride + x0 * bpp);
			uint64_t to = (uint64_t)(b->offset + y * b->stride + x1 * bpp);
			/* whole blocks, inside the pool */
			from = from / WP_BLOCK * WP_BLOCK;
			to = (to + WP_BLOCK - 1) / WP_BLOCK * WP_BLOCK;
			if (to > size)
				to = size;
			if (from < to)
				v[n++] = (struct span){ from, to };
		}
	}
	if (n)
		qsort(v, n, sizeof *v, cmp_u64pair);
	uint64_t bytes = 0;
	for (size_t k = 0; k < n;) {
		struct span u = v[k++];
		while (k < n && v[k].from <= u.to) {
			if (v[k].to > u.to)
				u.to = v[k].to;
			k++;
		}
		bytes += diff_interval(map, (uint64_t *)(void *)p->mirror, u.from / WP_BLOCK,
				       u.to / WP_BLOCK);
	}
	free(v);
	munmap(map, (size_t)p->size);
	return bytes ? (int64_t)(bytes + WP_HEADER) : 0;
}

static void add_damage(struct obj *s, int64_t x, int64_t y, int64_t w, int64_t h, int64_t scale)
{
	if (w <= 0 || h <= 0)
		return;
	if (s->ndamage == RECTS_MAX) {
		s->damage_all = true;
		return;
	}
	/* INT32_MAX-sized damage (the whole surface) stays huge: clipped later. */
	s->damage[s->ndamage++] = (struct rect){ x * scale, y * scale, (x + w) * scale, (y + h) * scale };
}

static void commit(struct wl_account *a, struct conn *c, struct obj *s, const struct xrec_msg *m)
{
	s->scale = s->pending_scale;
	if (s->attached && !s->buffer) {
		s->ndamage = 0;
		s->damage_all = false;
	}
	struct obj *b = s->buffer ? obj_of(c, s->buffer) : NULL;
	char text[512];
	if (b && b->kind == OBJ_SHM_BUFFER && (s->ndamage || s->damage_all)) {
		struct obj *p = obj_of(c, b->pool);
		uint64_t read = damaged_bytes(s, b);
		char wp[64] = "";
		int64_t diff = p ? waypipe_diff(p, s, b) : -1;
		if (diff >= 0) {
			snprintf(wp, sizeof wp, ", waypipe %" PRId64 " bytes", diff);
			a->waypipe += (uint64_t)diff;
		}
		uint64_t whole = (uint64_t)(b->height * b->stride);
		snprintf(text, sizeof text,
			 "shm read %" PRIu64 " of %" PRIu64 " bytes: wl_surface@%u.commit wl_buffer@%u "
			 "%" PRId64 "x%" PRId64 " stride %" PRId64 " format %u pool %" PRIu64 ", %zu damage rect%s%s%s",
			 read, whole, s->id, b->id, b->width, b->height, b->stride, b->format,
			 p ? p->size : 0, s->damage_all ? (size_t)RECTS_MAX : s->ndamage,
			 s->ndamage == 1 && !s->damage_all ? "" : "s", b->committed ? "" : ", new buffer", wp);
		b->committed = true;
		a->commits++;
		a->bytes += read;
		note(a, m, text);
	} else if (b && b->kind == OBJ_DMABUF_BUFFER && s->attached) {
		snprintf(text, sizeof text, "dmabuf commit: wl_surface@%u.commit wl_buffer@%u", s->id, b->id);
		note(a, m, text);
	}
	s->attached = false;
	s->ndamage = 0;
	s->damage_all = false;
}

/* The interfaces whose requests the account follows (below). */
static bool followed(const char *itf)
{
	return strcmp(itf, "wl_surface") == 0 || strcmp(itf, "wl_shm_pool") == 0 ||
	       strcmp(itf, "wl_buffer") == 0 || strcmp(itf, "wl_shm") == 0 ||
	       strcmp(itf, "zwp_linux_buffer_params_v1") == 0;
}

void wl_account_message(struct wl_account *a, const struct xrec_msg *m)
{
	if (a->oom || m->kind == XMSG_SETUP)
		return;
	/* Most messages neither carry descriptors nor are requests on an
	   object the account follows: they are left before their detail is
	   read (this runs on the relay's path). */
	if (!(m->flags & XMSG_F_NO_BYTES) && (m->dir != XDIR_C2S || !followed(m->ext)))
		return;
	char copy[XMSG_DETAIL_MAX], *args[ARGS_MAX];
	int n = split_args(m->detail, copy, sizeof copy, args);
	if (n < 0)
		return;
	struct conn *c = NULL;
	int fd = -1;
	if (m->flags & XMSG_F_NO_BYTES) {
		if (!(c = conn_of(a, m->conn)))
			return;
		fd = take_fds(a, c, m, args, n);
	}
	if (m->dir != XDIR_C2S || !(strcmp(m->ext, "wl_shm") == 0 && strcmp(m->name, "create_pool") == 0)) {
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	if (m->dir != XDIR_C2S)
		return;
	const char *itf = m->ext, *name = m->name;
	/* the object the request is on: "iface@ID." at the detail's start */
	const char *dot = strchr(m->detail, '.');
	const char *at = strchr(m->detail, '@');
	if (!at || !dot || dot < at)
		return;
	uint32_t self = (uint32_t)strtoul(at + 1, NULL, 10);
	bool pool = strcmp(itf, "wl_shm_pool") == 0, surface = strcmp(itf, "wl_surface") == 0;
	bool shm = strcmp(itf, "wl_shm") == 0, dmabuf = strcmp(itf, "zwp_linux_buffer_params_v1") == 0;
	if (!pool && !surface && !shm && !dmabuf && strcmp(itf, "wl_buffer") != 0)
		return;
	if (!c && !(c = conn_of(a, m->conn)))
		return;
	if (shm && strcmp(name, "create_pool") == 0 && n == 3) {
		struct obj *p = obj_make(a, c, id_arg(args[0]), OBJ_POOL);
		if (p) {
			p->size = strtoull(args[2], NULL, 10);
			p->fd = fd;
		} else if (fd >= 0) {
			close(fd);
		}
	} else if (pool && strcmp(name, "resize") == 0 && n == 1) {
		struct obj *p = obj_of(c, self);
		if (p)
			p->size = strtoull(args[0], NULL, 10);
	} else if (pool && strcmp(name, "create_buffer") == 0 && n == 6) {
		struct obj *b = obj_make(a, c, id_arg(args[0]), OBJ_SHM_BUFFER);
		if (b) {
			b->pool = self;
			b->offset = strtoll(args[1], NULL, 10);
			b->width = strtoll(args[2], NULL, 10);
			b->height = strtoll(args[3], NULL, 10);
			b->stride = strtoll(args[4], NULL, 10);
			b->format = (uint32_t)strtoul(args[5], NULL, 10);
		}
	} else if (dmabuf && strncmp(name, "create", 6) == 0 && n >= 1 && strstr(args[0], "new id")) {
		obj_make(a, c, id_arg(args[0]), OBJ_DMABUF_BUFFER);
	} else if (surface) {
		struct obj *s = obj_of(c, self);
		if (!s && !(s = obj_make(a, c, self, OBJ_SURFACE)))
			return;
		if (strcmp(name, "attach") == 0 && n == 3) {
			s->attached = true;
			s->buffer = strcmp(args[0], "nil") == 0 ? 0 : id_arg(args[0]);
		} else if (strcmp(name, "damage") == 0 && n == 4) {
			add_damage(s, strtoll(args[0], NULL, 10), strtoll(args[1], NULL, 10),
				   strtoll(args[2], NULL, 10), strtoll(args[3], NULL, 10), s->pending_scale);
		} else if (strcmp(name, "damage_buffer") == 0 && n == 4) {
			add_damage(s, strtoll(args[0], NULL, 10), strtoll(args[1], NULL, 10),
				   strtoll(args[2], NULL, 10), strtoll(args[3], NULL, 10), 1);
		} else if (strcmp(name, "set_buffer_scale") == 0 && n == 1) {
			s->pending_scale = (int32_t)strtol(args[0], NULL, 10);
			if (s->pending_scale < 1)
				s->pending_scale = 1;
		} else if (strcmp(name, "commit") == 0) {
			commit(a, c, s, m);
		} else if (strcmp(name, "destroy") == 0) {
			obj_drop(c, self);
		}
	} else if (strcmp(name, "destroy") == 0 && !pool) {
		/* a pool destroyed lives on in its buffers: kept until its id
		   is reused */
		obj_drop(c, self);
	}
}
