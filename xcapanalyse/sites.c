/*
 * sites.c — round trips by call site, and the avoidable ones (sites.h).
 *
 * Frames of libxcb, Xlib, libwayland-client (a request's marshalling,
 * where the stack of a Wayland request is taken) and the recording
 * library itself are folded: a
 * wait's site is the first frame of the code that asked, a toolkit's
 * helper (GDK's atom and property helpers, Qt's xcb plugin) or the
 * application; "via" is the first frame after it in another module (the
 * code that called that toolkit), or its caller when the site is in the
 * program itself.
 *
 * Belongs to: libanalyse, the analysis layer's library, which netplot links too (xcapanalyse/).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_LIBDW
#include <elfutils/libdwfl.h>
#endif

#include "conns.h"
#include "grow.h"
#include "sites.h"

#define REQS_SHOWN 6
#define SEQ_LOOKBACK 256

struct stack {
	uint16_t port;
	uint32_t seq;
	uint64_t start, end;	/* ns */
	bool asked;		/* an "ask" line: where the request was made, the
				   client not blocked in a call of libwayland's */
	const char *site, *via;	/* into frames */
	char *frames;		/* the line's frames, each ended by a NUL */
	size_t nframes;
	uint64_t *addrs;	/* each frame's address in its module's file, 0 unknown */
	bool used;
};

/* A "module NAME PATH" line: where the debug info of NAME's frames is. */
struct module {
	char *name, *path;
};

struct group {
	char *site, *via;
	uint64_t count, total;
	char *reqs[REQS_SHOWN];
	size_t nreqs, more;
};

struct mark {
	uint32_t conn;
	uint64_t seq;
	char why[160];
};

struct avoidable {
	uint64_t ts, wait, seq;
	uint32_t conn;
	char what[XMSG_DETAIL_MAX + 320];
	char name[64];		/* the request */
	char why[160];		/* the reason, without which earlier one */
	const char *site;
};

/* A run of awaited requests of one kind, one after the other on one
   connection from one site (a loop that waits inside each turn): sent all
   at once and then waited for, they would cost one round trip. */
struct batch {
	uint32_t conn;
	char name[64];
	const char *site;
	uint64_t first, last, count, total;
};

/* What a connection has asked so far, for the repeats. */
struct conn_seen {
	uint32_t id;
	uint16_t port;
	char **keys;
	uint64_t *key_seq;
	size_t nkeys, cap_keys, cap_seq;
	bool sent_since_answer;
	struct wl_seen *wl;	/* a Wayland connection's round trips so far */
};

struct sites {
	struct stack *st;
	size_t n, bad;
	struct module *mods;
	size_t nmods, cap_mods;
	struct xconns conns;	/* of struct conn_seen */
	struct mark *marks;
	size_t nmarks, cap_marks;
	struct group *groups;
	size_t ngroups, cap_groups;
	struct avoidable *avoid;
	size_t navoid, cap_avoid;
	struct batch *batches;	/* runs of BATCH_MIN or more */
	size_t nbatches, cap_batches;
	struct xconns runs;	/* of struct batch: the run going on, per connection */
	uint64_t unjoined, unjoined_total, t0;
	/* The last wait asked about, so that the view and the round-trips
	   column get the same answer without using up a second stack. */
	uint32_t last_conn;
	uint64_t last_seq, last_start;
	const char *last_site, *last_via;
	const struct stack *last_stack;
	bool has_last, failed;
	uint64_t cost_rtt;	/* ns: what each round trip would cost (0: 100 ms) */
};

static bool wrapper_module(const char *frame)
{
	static const char *const folded[] = { "libxcb", "libX11", "libxcapwait", "libwayland-client" };
	for (size_t i = 0; i < sizeof folded / sizeof folded[0]; i++)
		if (strncmp(frame, folded[i], strlen(folded[i])) == 0)
			return true;
	return false;
}

/* The module of a frame: up to ':' (then a function follows), else up to
   the last '+' (libstdc++ has '+' in its name). */
static size_t module_len(const char *frame, size_t len)
{
	/* A source position may follow, after a space: " (file.c:12)". */
	const char *space = memchr(frame, ' ', len);
	if (space)
		len = (size_t)(space - frame);
	const char *colon = memchr(frame, ':', len);
	if (colon)
		return (size_t)(colon - frame);
	for (size_t i = len; i > 0; i--)
		if (frame[i - 1] == '+')
			return i - 1;
	return len;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct stack *x = a, *y = b;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void fold_site(struct stack *s, char **f, size_t n);

/* The address a frame ends with ("@0x1a2b", the module's own address of
   the return address), taken off the frame; 0 when it has none. */
static uint64_t take_address(char *frame)
{
	char *at = strrchr(frame, '@');
	if (!at || at[1] != '0' || at[2] != 'x' || !at[3])
		return 0;
	char *end;
	unsigned long long a = strtoull(at + 3, &end, 16);
	if (*end || !a)
		return 0;
	*at = '\0';
	return a;
}

/* Split the frames in place and find site and via.  0, or -1 when out of
   memory. */
static int fold(struct stack *s)
{
	char *f[64];
	uint64_t a[64];
	size_t n = 0;
	/* Each frame is moved down over the address taken off the one before,
	   so that the frames follow each other, each ended by its NUL. */
	char *w = s->frames;
	for (char *p = s->frames; p && *p && n < 64;) {
		char *tab = strchr(p, '\t');
		if (tab)
			*tab = '\0';
		size_t len = strlen(p);
		memmove(w, p, len + 1);
		f[n] = w;
		a[n] = take_address(w);
		w += strlen(w) + 1;
		n++;
		if (!tab)
			break;
		p = tab + 1;
	}
	s->site = s->via = NULL;
	s->nframes = n;
	free(s->addrs);
	s->addrs = NULL;
	for (size_t i = 0; i < n; i++)
		if (a[i]) {
			if (!(s->addrs = malloc(n * sizeof *s->addrs)))
				return -1;
			memcpy(s->addrs, a, n * sizeof *a);
			break;
		}
	fold_site(s, f, n);
	return 0;
}

/* Site and via of stack s, whose frames are f[0..n). */
static void fold_site(struct stack *s, char **f, size_t n)
{
	size_t i = 0;
	while (i < n && wrapper_module(f[i]))
		i++;
	if (i == n)
		return;
	s->site = f[i];
	size_t ml = module_len(f[i], strlen(f[i]));
	/* A site in a shared library (a toolkit) is shown with the code that
	   called into it; a site in the program itself with its caller. */
	bool in_library = strstr(f[i], ".so") && strstr(f[i], ".so") < f[i] + ml;
	for (size_t j = i + 1; j < n; j++) {
		if (wrapper_module(f[j]))
			continue;
		if (!in_library || module_len(f[j], strlen(f[j])) != ml || strncmp(f[j], f[i], ml) != 0) {
			s->via = f[j];
			break;
		}
	}
}

/* "NAME PATH": where the frames of module NAME come from (a later line
   for the same name replaces it).  0, 1 when the line is not one, -1 when
   out of memory. */
static int add_module(struct sites *s, const char *line)
{
	const char *sp = strchr(line, ' ');
	if (!sp || sp == line || !sp[1]) {
		s->bad++;
		return 1;
	}
	char *name = strndup(line, (size_t)(sp - line)), *path = strdup(sp + 1);
	struct module *m = NULL;
	for (size_t i = 0; i < s->nmods && name; i++)
		if (strcmp(s->mods[i].name, name) == 0)
			m = &s->mods[i];
	if (!m && name && path) {
		if (GROW(s->mods, s->cap_mods, s->nmods + 1) == 0) {
			m = &s->mods[s->nmods++];
			m->name = m->path = NULL;
		}
	}
	if (!m || !name || !path) {
		free(name);
		free(path);
		return -1;
	}
	free(m->name);
	free(m->path);
	m->name = name;
	m->path = path;
	return 0;
}

struct sites *sites_load(const char *path, char *err, size_t errlen)
{
	err[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f) {
		/* Say where such a file comes from: only xcap-run writes it. */
		snprintf(err, errlen, "cannot open the call sites (%s; xcap-run writes them beside "
			 "its trace as TRACE.sites: xcap-run -w TRACE -- APP): '%s'", strerror(errno), path);
		return NULL;
	}
	struct sites *s = sites_load_stream(f, path, err, errlen);
	fclose(f);
	return s;
}

struct sites *sites_load_stream(FILE *f, const char *path, char *err, size_t errlen)
{
	err[0] = '\0';
	struct sites *s = calloc(1, sizeof *s);
	if (s) {
		xconns_init(&s->conns, sizeof (struct conn_seen));
		xconns_init(&s->runs, sizeof (struct batch));
	}
	size_t cap = 0;
	char *line = NULL;
	size_t lcap = 0;
	ssize_t len;
	while (s && (len = getline(&line, &lcap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (strncmp(line, "module ", 7) == 0) {
			if (add_module(s, line + 7) < 0) {
				snprintf(err, errlen, "out of memory: '%s'", path);
				sites_free(s);
				s = NULL;
				break;
			}
			continue;
		}
		unsigned port;
		unsigned long long seq;
		double start, end;
		int used = 0;
		bool asked = strncmp(line, "ask ", 4) == 0, waited = strncmp(line, "wait ", 5) == 0;
		if ((!asked && !waited) ||
		    sscanf(line + (asked ? 4 : 5), "%u %llu %lf %lf%n", &port, &seq, &start, &end, &used) != 4 ||
		    port > 65535 || !(end >= start) || !(start >= 0) || end > 1e11) {
			s->bad++;
			continue;
		}
		if (GROW(s->st, cap, s->n + 1) < 0) {
			snprintf(err, errlen, "out of memory: '%s'", path);
			sites_free(s);
			s = NULL;
			break;
		}
		struct stack *k = &s->st[s->n];
		memset(k, 0, sizeof *k);
		k->port = (uint16_t)port;
		k->seq = (uint32_t)seq;
		k->asked = asked;
		k->start = (uint64_t)(start * 1e9);
		k->end = (uint64_t)(end * 1e9);
		const char *rest = line + (asked ? 4 : 5) + used;
		if (*rest == '\t')
			rest++;
		if (!(k->frames = strdup(rest))) {
			snprintf(err, errlen, "out of memory: '%s'", path);
			sites_free(s);
			s = NULL;
			break;
		}
		if (fold(k) < 0) {
			free(k->frames);
			snprintf(err, errlen, "out of memory: '%s'", path);
			sites_free(s);
			s = NULL;
			break;
		}
		s->n++;
	}
	free(line);
	if (!s) {
		if (!err[0])
			snprintf(err, errlen, "out of memory: '%s'", path);
		return NULL;
	}
	if (!s->n) {
		snprintf(err, errlen, "no waits in the call sites: '%s'", path);
		sites_free(s);
		return NULL;
	}
	qsort(s->st, s->n, sizeof *s->st, cmp_stack);
	return s;
}

#ifdef HAVE_LIBDW
/* " (file.c:LINE)" for address addr of module m, "" when its debug info
   does not say. */
static void source_of(Dwfl_Module *m, uint64_t addr, char *out, size_t size)
{
	out[0] = '\0';
	Dwarf_Addr bias = 0;
	if (!m || !dwfl_module_getelf(m, &bias))
		return;
	/* A return address: the call is the byte before it. */
	Dwfl_Line *l = dwfl_module_getsrc(m, addr - 1 + bias);
	int line = 0;
	const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
	if (!file || line <= 0)
		return;
	const char *base = strrchr(file, '/');
	snprintf(out, size, " (%s:%d)", base ? base + 1 : file, line);
}

int sites_resolve_sources(struct sites *s)
{
	if (!s->nmods)
		return 0;
	static char *debuginfo_path;
	static const Dwfl_Callbacks offline = {
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &debuginfo_path,
	};
	Dwfl *dwfl = dwfl_begin(&offline);
	Dwfl_Module **dm = calloc(s->nmods, sizeof *dm);
	if (!dwfl || !dm) {
		if (dwfl)
			dwfl_end(dwfl);
		free(dm);
		return -1;
	}
	dwfl_report_begin(dwfl);
	for (size_t i = 0; i < s->nmods; i++)
		dm[i] = dwfl_report_offline(dwfl, s->mods[i].name, s->mods[i].path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	int status = 0;
	for (size_t k = 0; k < s->n && status == 0; k++) {
		struct stack *st = &s->st[k];
		if (!st->addrs)
			continue;
		/* The frames again, each with its source position, tab-separated
		   as in the file, and folded anew. */
		size_t cap = 0;
		const char *f = st->frames;
		for (size_t i = 0; i < st->nframes; i++, f += strlen(f) + 1)
			cap += strlen(f) + 1 + 300;
		char *nf = malloc(cap + 1), *at = nf;
		if (!nf) {
			status = -1;
			break;
		}
		f = st->frames;
		for (size_t i = 0; i < st->nframes; i++, f += strlen(f) + 1) {
			char src[300] = "";
			size_t ml = module_len(f, strlen(f));
			for (size_t j = 0; st->addrs[i] && j < s->nmods; j++)
				if (strlen(s->mods[j].name) == ml && strncmp(s->mods[j].name, f, ml) == 0) {
					source_of(dm[j], st->addrs[i], src, sizeof src);
					break;
				}
			at += sprintf(at, "%s%s%s", i ? "\t" : "", f, src);
		}
		free(st->frames);
		st->frames = nf;
		status = fold(st);
	}
	free(dm);
	dwfl_end(dwfl);
	return status;
}
#else
int sites_resolve_sources(struct sites *s)
{
	(void)s;
	return 0;
}
#endif

size_t sites_bad_lines(const struct sites *s)
{
	return s->bad;
}

static struct conn_seen *conn_of(struct sites *s, uint32_t id)
{
	return xconns_get(&s->conns, id);
}

static int mark(struct sites *s, uint32_t conn, uint64_t seq, const char *why)
{
	if (GROW(s->marks, s->cap_marks, s->nmarks + 1) < 0)
		return -1;
	struct mark *m = &s->marks[s->nmarks++];
	m->conn = conn;
	m->seq = seq;
	snprintf(m->why, sizeof m->why, "%s", why);
	return 0;
}

/* Remember key for c; if it was asked before, the request is a repeat.
   Returns the earlier request's sequence number, or 0 when new. */
static int remember(struct conn_seen *c, const char *key, uint64_t seq, uint64_t *earlier)
{
	*earlier = 0;
	for (size_t i = 0; i < c->nkeys; i++)
		if (strcmp(c->keys[i], key) == 0) {
			*earlier = c->key_seq[i];
			return 0;
		}
	if (GROW(c->keys, c->cap_keys, c->nkeys + 1) < 0 ||
	    GROW(c->key_seq, c->cap_seq, c->nkeys + 1) < 0)
		return -1;
	if (!(c->keys[c->nkeys] = strdup(key)))
		return -1;
	c->key_seq[c->nkeys++] = seq;
	return 0;
}

/* Forget the keys that begin with prefix: after a change, the properties
   they fetched may hold something else ("P" forgets every property). */
static void forget_keys(struct conn_seen *c, const char *prefix)
{
	size_t k = 0, pl = strlen(prefix);
	for (size_t i = 0; i < c->nkeys; i++) {
		if (strncmp(c->keys[i], prefix, pl) == 0) {
			free(c->keys[i]);
			continue;
		}
		c->keys[k] = c->keys[i];
		c->key_seq[k++] = c->key_seq[i];
	}
	c->nkeys = k;
}

/* The value of the field name= of a detail, up to the next space, into
   out; false when the detail has no such field (or a longer value). */
static bool detail_field(const char *detail, const char *name, char *out, size_t size)
{
	size_t nl = strlen(name);
	for (const char *p = detail; p && *p; p = strchr(p, ' '), p = p ? p + 1 : NULL) {
		if (strncmp(p, name, nl) != 0 || p[nl] != '=')
			continue;
		const char *v = p + nl + 1;
		size_t vl = strcspn(v, " ");
		if (vl >= size)
			return false;
		memcpy(out, v, vl);
		out[vl] = '\0';
		return true;
	}
	return false;
}

/* A property of a window changed, or every property of the window when
   atom is NULL, or every property when the detail does not say which
   window (a trace older than the window in property details). */
static void property_changed(struct conn_seen *c, const char *detail, const char *atom_field)
{
	char window[32], atom[XMSG_DETAIL_MAX], prefix[sizeof window + sizeof atom + 4];
	if (!detail_field(detail, "window", window, sizeof window))
		snprintf(prefix, sizeof prefix, "P");
	else if (!atom_field)
		snprintf(prefix, sizeof prefix, "P%s ", window);
	else if (detail_field(detail, atom_field, atom, sizeof atom))
		snprintf(prefix, sizeof prefix, "P%s %s\t", window, atom);
	else
		snprintf(prefix, sizeof prefix, "P%s ", window);
	forget_keys(c, prefix);
}

/* The key of a GetProperty: "P", window, property, then what else makes
   it the same fetch (type and offset); false when the detail does not
   name the window and property.  A GetProperty that deletes what it
   read is a change, never a repeat. */
static bool property_key(struct conn_seen *c, const char *detail, char *key, size_t size)
{
	char window[32], prop[XMSG_DETAIL_MAX], type[XMSG_DETAIL_MAX], offset[16] = "0";
	if (!detail_field(detail, "window", window, sizeof window) ||
	    !detail_field(detail, "property", prop, sizeof prop))
		return false;
	if (detail_field(detail, "delete", type, sizeof type)) {
		property_changed(c, detail, "property");
		return false;
	}
	if (!detail_field(detail, "type", type, sizeof type))
		type[0] = '\0';
	detail_field(detail, "long_offset", offset, sizeof offset);
	/* the parts come from one detail: they fit in a key of its size */
	int n = snprintf(key, size, "P%s %s\t%s %s", window, prop, type, offset);
	return n > 0 && (size_t)n < size;
}

/* ---- Wayland's avoidable round trips ----
 *
 * Marked as the requests come, before the model reports the wait (it
 * does when the client's silence ends, at its next request):
 *  - a round trip whose answer the code never used before the next: no
 *    request between its wl_callback.done and the next round trip's
 *    request; the next one is marked (the two could have been one);
 *  - the registry fetched again: every global is sent again, and the
 *    round trip that waits for them is one more;
 *  - a sync per surface: consecutive round trips each after its own
 *    surface's creation or commit, where one could serve them all.
 */
struct wl_seen {
	uint64_t sync_seq, sync_done;	/* the last sync, and whether it was answered */
	bool asked_since_done;		/* a request after the last sync's done */
	bool sync_answered;
	uint64_t registries, first_registry;
	bool registry_again;		/* the next sync waits for a repeated registry */
	uint32_t surface;		/* the one surface made or committed since the last sync */
	int nsurfaces;			/* how many different ones */
	uint32_t last_sync_surface;	/* the last sync's one surface, 0 none */
	uint64_t last_sync_surface_seq;
};

/* A message of a Wayland connection: its detail begins "interface@". */
static bool wayland_message(const struct xrec_msg *m)
{
	size_t n = strlen(m->ext);
	return n && strncmp(m->detail, m->ext, n) == 0 && m->detail[n] == '@';
}

/* The object id in "iface@ID." at the start of a detail, 0 when none. */
static uint32_t wayland_self(const char *detail)
{
	const char *at = strchr(detail, '@');
	return at ? (uint32_t)strtoul(at + 1, NULL, 10) : 0;
}

static int wayland_record(struct sites *s, struct conn_seen *c, const struct xrec_msg *m)
{
	if (!c->wl && !(c->wl = calloc(1, sizeof *c->wl)))
		goto oom;
	struct wl_seen *w = c->wl;
	if (m->dir == XDIR_S2C) {
		if (m->kind == XMSG_REPLY && m->seq == w->sync_seq && strcmp(m->name, "done") == 0) {
			w->sync_answered = true;
			w->asked_since_done = false;
		}
		return 0;
	}
	if (m->kind != XMSG_REQUEST)
		return 0;
	bool sync = strcmp(m->ext, "wl_display") == 0 && strcmp(m->name, "sync") == 0;
	bool registry = strcmp(m->ext, "wl_display") == 0 && strcmp(m->name, "get_registry") == 0;
	char why[160];
	if (registry) {
		if (w->registries++ && (snprintf(why, sizeof why, "registry fetched again (first #%" PRIu64
					 "): every global sent again", w->first_registry),
					 mark(s, m->conn, m->seq, why) < 0))
			goto oom;
		if (w->registries == 1)
			w->first_registry = m->seq;
		else
			w->registry_again = true;
	}
	if (!sync) {
		if (w->sync_answered)
			w->asked_since_done = true;
		uint32_t surface = 0;
		if (strcmp(m->ext, "wl_surface") == 0 && strcmp(m->name, "commit") == 0)
			surface = wayland_self(m->detail);
		else if (strcmp(m->ext, "wl_compositor") == 0 && strcmp(m->name, "create_surface") == 0) {
			const char *at = strstr(m->detail, "wl_surface@");
			surface = at ? (uint32_t)strtoul(at + 11, NULL, 10) : 0;
		}
		if (surface && surface != w->surface) {
			w->surface = surface;
			w->nsurfaces++;
		}
		return 0;
	}
	if (w->sync_seq && w->sync_answered && !w->asked_since_done) {
		snprintf(why, sizeof why, "nothing asked since round trip #%" PRIu64
			 " was answered: its answer unused, the two could be one", w->sync_seq);
		if (mark(s, m->conn, m->seq, why) < 0)
			goto oom;
	}
	if (w->registry_again) {
		if (mark(s, m->conn, m->seq, "waits for a registry fetched again") < 0)
			goto oom;
		w->registry_again = false;
	}
	uint32_t one = w->nsurfaces == 1 ? w->surface : 0;
	if (one && w->last_sync_surface && one != w->last_sync_surface) {
		snprintf(why, sizeof why, "a sync per surface (wl_surface@%u, then @%u after #%" PRIu64
			 "): one round trip could serve both", w->last_sync_surface, one,
			 w->last_sync_surface_seq);
		if (mark(s, m->conn, m->seq, why) < 0)
			goto oom;
	}
	w->last_sync_surface = one;
	w->last_sync_surface_seq = m->seq;
	w->surface = 0;
	w->nsurfaces = 0;
	w->sync_seq = m->seq;
	w->sync_answered = false;
	w->asked_since_done = false;
	return 0;
oom:
	s->failed = true;
	return -1;
}

int sites_record(struct sites *s, const struct xrec *rec)
{
	if (s->failed)
		return -1;
	if (rec->type == XREC_CONN) {
		if (!s->t0 || rec->u.conn.ts < s->t0)
			s->t0 = rec->u.conn.ts;
		uint32_t id = rec->u.conn.id;
		if (conn_of(s, id) || id == 0 || id > XCONNS_ID_MAX)
			return 0;
		struct conn_seen *c = xconns_add(&s->conns, id);
		if (!c)
			goto oom;
		c->id = id;
		c->port = rec->u.conn.client.port;
		return 0;
	}
	if (rec->type != XREC_MSG)
		return 0;
	const struct xrec_msg *m = &rec->u.msg;
	struct conn_seen *c = conn_of(s, m->conn);
	if (c && wayland_message(m))
		return wayland_record(s, c, m);
	if (!c || m->ext[0])
		return 0;
	if (m->dir == XDIR_S2C) {
		if (m->kind == XMSG_REPLY || m->kind == XMSG_ERROR || m->kind == XMSG_SETUP)
			c->sent_since_answer = false;
		if (m->kind == XMSG_EVENT && strcmp(m->name, "PropertyNotify") == 0)
			property_changed(c, m->detail, "atom");
		return 0;
	}
	if (m->kind != XMSG_REQUEST)
		return 0;
	char key[XMSG_DETAIL_MAX + 8], why[160];
	key[0] = '\0';
	if (strcmp(m->name, "InternAtom") == 0)
		snprintf(key, sizeof key, "A%s", m->detail);
	else if (strcmp(m->name, "QueryExtension") == 0)
		snprintf(key, sizeof key, "E%s", m->detail);
	else if (strcmp(m->name, "GetProperty") == 0 && !property_key(c, m->detail, key, sizeof key))
		key[0] = '\0';
	else if (strcmp(m->name, "ChangeProperty") == 0 || strcmp(m->name, "DeleteProperty") == 0)
		property_changed(c, m->detail, "property");
	else if (strcmp(m->name, "RotateProperties") == 0)
		property_changed(c, m->detail, NULL);
	if (strcmp(m->name, "GetInputFocus") == 0 && !c->sent_since_answer &&
	    mark(s, m->conn, m->seq, "GetInputFocus as a sync after nothing") < 0)
		goto oom;
	c->sent_since_answer = true;
	if (key[0]) {
		uint64_t earlier;
		if (remember(c, key, m->seq, &earlier) < 0)
			goto oom;
		if (earlier) {
			snprintf(why, sizeof why, "%s again (first #%" PRIu64 ")",
				 key[0] == 'A' ? "atom interned" : key[0] == 'E' ? "extension queried" :
				 "property fetched", earlier);
			if (mark(s, m->conn, m->seq, why) < 0)
				goto oom;
		}
	}
	return 0;
oom:
	s->failed = true;
	return -1;
}

/* The stack of a wait on port's connection naming request seq, answered
   with burst_first..burst_last at its end, from start to end (ns); NULL
   when none.  With unused_only, stacks already joined are passed over. */
static struct stack *best_stack(const struct sites *s, uint16_t port, uint64_t seq,
				uint64_t burst_first, uint64_t burst_last, uint64_t start,
				uint64_t end, bool unused_only)
{
	uint32_t lo = (uint32_t)burst_first, hi = (uint32_t)burst_last;
	if (seq < burst_first || seq > burst_last)
		lo = hi = (uint32_t)seq;
	/* Xlib blocks in xcb_wait_for_reply64 on the head of its pending
	   requests, which may be an earlier request than the one whose
	   answer it needs: the stack of the wait is the call on this
	   connection, on a request at or before the burst, that blocked
	   across the wait.  Look back a while for it. */
	uint32_t from = lo > SEQ_LOOKBACK ? lo - SEQ_LOOKBACK : 0;
	size_t a = 0, b = s->n;
	while (a < b) {
		size_t mid = (a + b) / 2;
		if (s->st[mid].port < port || (s->st[mid].port == port && s->st[mid].seq < from))
			a = mid + 1;
		else
			b = mid;
	}
	struct stack *best = NULL;
	uint64_t best_overlap = 0;
	bool best_exact = false;
	uint64_t w0 = start, w1 = end;
	for (size_t i = a; i < s->n && s->st[i].port == port && s->st[i].seq <= hi; i++) {
		struct stack *k = &s->st[i];
		if (unused_only && k->used)
			continue;
		uint64_t o0 = k->start > w0 ? k->start : w0, o1 = k->end < w1 ? k->end : w1;
		uint64_t overlap = o1 > o0 ? o1 - o0 : 0;
		bool exact = k->seq >= lo;
		/* The call that blocked through most of the wait; of two
		   through all of it, one on a request answered at its end
		   (a round trip a listener made inside another's), and a
		   call that blocked before the place a request was made
		   (ask); without any overlap (a wait the trace's clock
		   cannot place), the longest call on a request answered at
		   its end. */
		if (overlap > best_overlap ||
		    (overlap && overlap == best_overlap &&
		     ((exact && !best_exact) || (exact == best_exact && best->asked && !k->asked))) ||
		    (!best_overlap && exact &&
		     (!best_exact || k->end - k->start > best->end - best->start))) {
			best = k;
			best_overlap = overlap;
			best_exact = exact;
		}
	}
	return best && !best_overlap && !best_exact ? NULL : best;
}

size_t sites_stack_of(const struct sites *s, uint16_t port, uint64_t seq, uint64_t burst_first,
		      uint64_t burst_last, uint64_t start, uint64_t end, const char **first)
{
	const struct stack *k = best_stack(s, port, seq, burst_first, burst_last, start, end, false);
	*first = k ? k->frames : NULL;
	return k ? k->nframes : 0;
}

const char *sites_of_wait(struct sites *s, const struct xstate_wait *w)
{
	if (s->has_last && s->last_conn == w->conn && s->last_seq == w->seq &&
	    s->last_start == w->start)
		return s->last_site;
	struct conn_seen *c = conn_of(s, w->conn);
	const char *site = NULL;
	s->last_via = NULL;
	s->last_stack = NULL;
	if (c) {
		struct stack *best = best_stack(s, c->port, w->seq, w->burst_first, w->burst_last,
						w->start, w->reply_ts, true);
		if (best) {
			best->used = true;
			site = best->site ? best->site : "(only libxcb/Xlib frames)";
			s->last_via = best->via;
			s->last_stack = best;
		}
	}
	s->has_last = true;
	s->last_conn = w->conn;
	s->last_seq = w->seq;
	s->last_start = w->start;
	s->last_site = site;
	return site;
}

size_t sites_last_stack(const struct sites *s, const char **first)
{
	if (!s->has_last || !s->last_stack) {
		*first = NULL;
		return 0;
	}
	*first = s->last_stack->frames;
	return s->last_stack->nframes;
}

static struct group *group_of(struct sites *s, const char *site, const char *via)
{
	for (size_t i = 0; i < s->ngroups; i++)
		if (strcmp(s->groups[i].site, site) == 0 &&
		    strcmp(s->groups[i].via, via ? via : "") == 0)
			return &s->groups[i];
	if (GROW(s->groups, s->cap_groups, s->ngroups + 1) < 0)
		return NULL;
	struct group *g = &s->groups[s->ngroups];
	memset(g, 0, sizeof *g);
	g->site = strdup(site);
	g->via = strdup(via ? via : "");
	if (!g->site || !g->via) {
		free(g->site);
		free(g->via);
		return NULL;
	}
	s->ngroups++;
	return g;
}

/* The requests whose answers a client does not need for the next one of
   their kind: a loop of them can send all, then collect the replies. */
static bool independent(const char *ext, const char *name)
{
	static const char *const kinds[] = {
		"AllocColor", "AllocNamedColor", "LookupColor", "QueryColors", "InternAtom",
		"GetAtomName", "GetProperty", "QueryExtension", "QueryFont", "GetWindowAttributes",
		"GetGeometry", "QueryTree", "ListProperties", "OpenFont",
	};
	if (ext[0])
		return false;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(name, kinds[i]) == 0)
			return true;
	return false;
}

enum { BATCH_MIN = 3 };	/* a loop, not a pair */

static int run_end(struct sites *s, struct batch *r)
{
	if (r->count >= BATCH_MIN) {
		if (GROW(s->batches, s->cap_batches, s->nbatches + 1) < 0)
			return -1;
		s->batches[s->nbatches++] = *r;
	}
	r->count = 0;
	return 0;
}

/* Follow the runs: a wait of the same independent kind, from the same
   site, on the request right after the run's last, lengthens it; any
   other wait on the connection ends it. */
static int run_wait(struct sites *s, const struct xstate_wait *w, const char *site, uint64_t wait)
{
	struct batch *r = xconns_get(&s->runs, w->conn);
	if (!r) {
		r = xconns_add(&s->runs, w->conn);
		if (!r)
			return -1;
		r->conn = w->conn;
	}
	const char *here = site ? site : "-";
	if (r->count && strcmp(r->name, w->name) == 0 && w->seq == r->last + 1 && r->site &&
	    strcmp(r->site, here) == 0 && independent(w->ext, w->name)) {
		r->last = w->seq;
		r->count++;
		r->total += wait;
		return 0;
	}
	if (run_end(s, r) < 0)
		return -1;
	if (independent(w->ext, w->name)) {
		snprintf(r->name, sizeof r->name, "%s", w->name);
		r->site = here;
		r->first = r->last = w->seq;
		r->count = 1;
		r->total = wait;
	}
	return 0;
}

void sites_wait(struct sites *s, const struct xstate_wait *w)
{
	if (s->failed)
		return;
	const char *site = sites_of_wait(s, w);
	uint64_t wait = w->end > w->start ? w->end - w->start : 0;
	for (size_t i = 0; i < s->nmarks; i++) {
		if (s->marks[i].conn != w->conn || s->marks[i].seq != w->seq)
			continue;
		if (GROW(s->avoid, s->cap_avoid, s->navoid + 1) < 0) {
			s->failed = true;
			return;
		}
		struct avoidable *a = &s->avoid[s->navoid++];
		a->ts = w->request_ts;
		a->wait = wait;
		a->seq = w->seq;
		a->conn = w->conn;
		snprintf(a->what, sizeof a->what, "%s%s%s: %s", w->name, w->detail[0] ? " " : "",
			 w->detail, s->marks[i].why);
		snprintf(a->name, sizeof a->name, "%s", w->name);
		snprintf(a->why, sizeof a->why, "%s", s->marks[i].why);
		char *first = strstr(a->why, " (first #");
		if (first)
			*first = '\0';
		a->site = site ? site : "-";
		break;
	}
	if (run_wait(s, w, site, wait) < 0) {
		s->failed = true;
		return;
	}
	if (!site) {
		s->unjoined++;
		s->unjoined_total += wait;
		return;
	}
	struct group *g = group_of(s, site, s->last_via);
	if (!g) {
		s->failed = true;
		return;
	}
	g->count++;
	g->total += wait;
	char req[XMSG_DETAIL_MAX + 80];
	snprintf(req, sizeof req, "%s%s%s%s%s", w->ext[0] ? w->ext : "", w->ext[0] ? ":" : "",
		 w->name, w->detail[0] ? " " : "", w->detail);
	for (size_t i = 0; i < g->nreqs; i++)
		if (strcmp(g->reqs[i], req) == 0)
			return;
	if (g->nreqs < REQS_SHOWN && (g->reqs[g->nreqs] = strdup(req)))
		g->nreqs++;
	else
		g->more++;
}

static void on_wait(void *ctx, const struct xstate_wait *w)
{
	sites_wait(ctx, w);
}

int sites_view_attach(struct sites *s, struct xstate_model *m)
{
	return xstate_on_wait(m, on_wait, s);
}

static int by_total(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->count > y->count ? -1 : x->count < y->count;
}

static const struct out_column site_cols[] = {
	{ "site", "Site", OUT_COL_STR, -44, 0 },
	{ "via", "Via", OUT_COL_STR, -36, 0 },
	{ "count", "Count", OUT_COL_UINT, 5, 0 },
	{ "total", "Total", OUT_COL_SECONDS, 9, 6 },
	{ "mean", "Mean", OUT_COL_SECONDS, 9, 6 },
	{ "per_100ms_rtt", "ms at 100ms RTT", OUT_COL_MILLISECONDS, 11, 3 },
	{ "requests", "Requests", OUT_COL_STR, -1, 0 },
};

static const struct out_column avoid_cols[] = {
	{ "time", "Time", OUT_COL_TIME, 10, 6 },
	{ "conn", "Conn", OUT_COL_UINT, 4, 0 },
	{ "seq", "Seq", OUT_COL_UINT, 6, 0 },
	{ "wait", "Wait", OUT_COL_SECONDS, 9, 6 },
	{ "site", "Site", OUT_COL_STR, -44, 0 },
	{ "why", "Why", OUT_COL_STR, -1, 0 },
};

static const struct out_column avoid_group_cols[] = {
	{ "site", "Site", OUT_COL_STR, -44, 0 },
	{ "request", "Request", OUT_COL_STR, -16, 0 },
	{ "why", "Why", OUT_COL_STR, -30, 0 },
	{ "count", "Count", OUT_COL_UINT, 5, 0 },
	{ "wait", "Total Wait", OUT_COL_SECONDS, 9, 6 },
	{ "first_seq", "First Seq", OUT_COL_UINT, 9, 0 },
};

static const struct out_column batch_cols[] = {
	{ "conn", "Conn", OUT_COL_UINT, 4, 0 },
	{ "site", "Site", OUT_COL_STR, -44, 0 },
	{ "request", "Request", OUT_COL_STR, -16, 0 },
	{ "count", "Count", OUT_COL_UINT, 5, 0 },
	{ "first_seq", "First Seq", OUT_COL_UINT, 9, 0 },
	{ "last_seq", "Last Seq", OUT_COL_UINT, 8, 0 },
	{ "wait", "Waited", OUT_COL_SECONDS, 9, 6 },
	{ "saves_at_100ms_rtt", "Saves at 100ms RTT", OUT_COL_SECONDS, 9, 3 },
};

static int by_count(const void *a, const void *b)
{
	const struct batch *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->conn < y->conn ? -1 : x->conn > y->conn;
}

/* A frame named by its module and offset only ("libgdk-3.so.0+0x9de49"):
   no function before the offset, no source line after. */
static bool unnamed(const char *frame)
{
	if (!frame || !strstr(frame, "+0x") || strchr(frame, ' '))
		return false;
	size_t mod = module_len(frame, strlen(frame));
	return frame[mod] != ':';
}

/* The avoidable waits, one row per site, request and reason, with how
   many and how long, the most costly first. */
static void avoid_groups(const struct sites *s, struct out_table *t)
{
	bool *done = calloc(s->navoid ? s->navoid : 1, sizeof *done);
	size_t *order = calloc(s->navoid ? s->navoid : 1, sizeof *order);
	uint64_t *sum = calloc(s->navoid ? s->navoid : 1, sizeof *sum), *num = calloc(s->navoid ? s->navoid : 1, sizeof *num);
	size_t n = 0;
	for (size_t i = 0; done && order && sum && num && i < s->navoid; i++) {
		if (done[i])
			continue;
		const struct avoidable *a = &s->avoid[i];
		order[n] = i;
		for (size_t k = i; k < s->navoid; k++) {
			const struct avoidable *b = &s->avoid[k];
			if (!done[k] && strcmp(a->site, b->site) == 0 && strcmp(a->name, b->name) == 0 &&
			    strcmp(a->why, b->why) == 0) {
				done[k] = true;
				sum[n] += b->wait;
				num[n]++;
			}
		}
		n++;
	}
	/* the most costly first: a few groups, a simple sort */
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && sum[k] > sum[k - 1]; k--) {
			size_t o = order[k]; order[k] = order[k - 1]; order[k - 1] = o;
			uint64_t v = sum[k]; sum[k] = sum[k - 1]; sum[k - 1] = v;
			v = num[k]; num[k] = num[k - 1]; num[k - 1] = v;
		}
	for (size_t i = 0; i < n; i++) {
		const struct avoidable *a = &s->avoid[order[i]];
		struct out_cell cells[] = {
			{ .s = a->site }, { .s = a->name }, { .s = a->why }, { .u = num[i] },
			{ .ns = (int64_t)sum[i] }, { .u = a->seq },
		};
		out_table_row(t, cells);
	}
	free(done);
	free(order);
	free(sum);
	free(num);
}

void sites_view_print(struct sites *s, FILE *out, enum out_format fmt)
{
	if (s->ngroups)
		qsort(s->groups, s->ngroups, sizeof *s->groups, by_total);
	out_json_open(out, fmt);
	struct out_table t;
	out_table_begin(&t, out, fmt, site_cols, sizeof site_cols / sizeof site_cols[0], "sites");
	out_table_ranks(&t);
	for (size_t i = 0; i < s->ngroups; i++) {
		const struct group *g = &s->groups[i];
		char reqs[REQS_SHOWN * (XMSG_DETAIL_MAX + 80) + 32];
		size_t at = 0;
		reqs[0] = '\0';
		for (size_t k = 0; k < g->nreqs && at < sizeof reqs; k++)
			at += (size_t)snprintf(reqs + at, sizeof reqs - at, "%s%s", k ? "; " : "",
					       g->reqs[k]);
		if (g->more && at < sizeof reqs)
			snprintf(reqs + at, sizeof reqs - at, "; +%zu more", g->more);
		bool people = out_for_people(fmt);
		struct out_cell cells[] = {
			{ .s = g->site }, { .s = g->via[0] || !people ? g->via : "-" }, { .u = g->count },
			{ .ns = (int64_t)g->total }, { .ns = (int64_t)(g->total / g->count) },
			/* Each round trip costs one more round-trip time: 100 ms of
			   RTT adds 0.1 s per round trip of the site. */
			{ .ns = (int64_t)(g->count * 100000000u) }, { .s = reqs },
		};
		out_table_row(&t, cells);
	}
	out_table_end(&t);
	if (out_one_table(fmt)) {
		if (s->navoid)
			fprintf(stderr, "xcapanalyse: %zu avoidable round trips not shown in CSV: use text, json or markdown\n",
				s->navoid);
		return;
	}
	/* Runs still going at the end are ended. */
	for (size_t i = 0; i < s->runs.n; i++)
		if (run_end(s, xconns_at(&s->runs, i)) < 0)
			s->failed = true;
	bool people = out_for_people(fmt);
	uint64_t avoid_total = 0;
	for (size_t i = 0; i < s->navoid; i++)
		avoid_total += s->avoid[i].wait;
	if (people) {
		/* People read one line per site and reason, not one per wait. */
		out_heading(out, fmt, "Avoidable round trips, by site and reason:");
		if (s->navoid) {
			out_table_begin(&t, out, fmt, avoid_group_cols,
					sizeof avoid_group_cols / sizeof avoid_group_cols[0], "avoidable_groups");
			avoid_groups(s, &t);
			out_table_end(&t);
		} else {
			fputs("none\n", out);
		}
	} else {
		out_table_begin(&t, out, fmt, avoid_cols, sizeof avoid_cols / sizeof avoid_cols[0], "avoidable");
		for (size_t i = 0; i < s->navoid; i++) {
			const struct avoidable *a = &s->avoid[i];
			struct out_cell cells[] = {
				{ .ns = (int64_t)(a->ts - s->t0) }, { .u = a->conn }, { .u = a->seq },
				{ .ns = (int64_t)a->wait }, { .s = a->site }, { .s = a->what },
			};
			out_table_row(&t, cells);
		}
		out_table_end(&t);
	}
	out_heading(out, fmt, "Batchable: loops that wait for each answer in turn (send them all, then "
		    "collect the replies: one round trip):");
	uint64_t saved = 0;
	if (people && !s->nbatches)
		fputs("none\n", out);
	else
		out_table_begin(&t, out, fmt, batch_cols, sizeof batch_cols / sizeof batch_cols[0], "batchable");
	if (s->nbatches > 1)
		qsort(s->batches, s->nbatches, sizeof *s->batches, by_count);
	for (size_t i = 0; i < s->nbatches; i++) {
		const struct batch *b = &s->batches[i];
		struct out_cell cells[] = {
			{ .u = b->conn }, { .s = b->site }, { .s = b->name }, { .u = b->count },
			{ .u = b->first }, { .u = b->last }, { .ns = (int64_t)b->total },
			{ .ns = (int64_t)((b->count - 1) * 100000000u) },
		};
		out_table_row(&t, cells);
		saved += b->count - 1;
	}
	if (!people || s->nbatches)
		out_table_end(&t);
	out_json_count(out, fmt, "unjoined", s->unjoined);
	out_json_close(out, fmt);
	if (out_for_programs(fmt))
		return;
	uint64_t total = 0, count = 0;
	bool bare = false;	/* a frame without its function's name */
	for (size_t i = 0; i < s->ngroups; i++) {
		total += s->groups[i].total;
		count += s->groups[i].count;
		bare |= unnamed(s->groups[i].site) || unnamed(s->groups[i].via);
	}
	char unjoined[128] = "";
	if (s->unjoined)
		snprintf(unjoined, sizeof unjoined, "; %" PRIu64 " round trip%s (%.3f ms) without a stack",
			 s->unjoined, s->unjoined == 1 ? "" : "s", (double)s->unjoined_total / 1e6);
	double rtt = s->cost_rtt ? (double)s->cost_rtt / 1e9 : 0.1;
	out_sentence(out, fmt, "", "%" PRIu64 " round trip%s at %zu call site%s, %.3f ms waited; "
		     "%zu avoidable (%.3f ms)%s\nAt %g ms of round-trip time these round trips would "
		     "add %.1f s, the avoidable ones %.3f s; batching the loops above would save %.1f s.",
		     count, count == 1 ? "" : "s", s->ngroups, s->ngroups == 1 ? "" : "s",
		     (double)total / 1e6, s->navoid, (double)avoid_total / 1e6, unjoined, rtt * 1e3,
		     (double)(count + s->unjoined) * rtt, (double)s->navoid * rtt, (double)saved * rtt);
	if (bare)
		out_sentence(out, fmt, "Frames shown as FILE+0xOFFSET", " have no symbols: install the "
			     "library's debug symbols (Debian: its -dbgsym package from the debug "
			     "archive, e.g. libgtk-3-0-dbgsym) or set DEBUGINFOD_URLS "
			     "(https://debuginfod.debian.net) before xcapanalyse --sites, which then "
			     "fetches them and names the functions and lines.");
}

void sites_set_cost_rtt(struct sites *s, uint64_t rtt)
{
	s->cost_rtt = rtt;
}

void sites_free(struct sites *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->st[i].frames);
		free(s->st[i].addrs);
	}
	free(s->st);
	for (size_t i = 0; i < s->nmods; i++) {
		free(s->mods[i].name);
		free(s->mods[i].path);
	}
	free(s->mods);
	for (size_t i = 0; i < s->conns.n; i++) {
		struct conn_seen *c = xconns_at(&s->conns, i);
		for (size_t k = 0; k < c->nkeys; k++)
			free(c->keys[k]);
		free(c->keys);
		free(c->key_seq);
		free(c->wl);
	}
	xconns_free(&s->conns);
	free(s->marks);
	for (size_t i = 0; i < s->ngroups; i++) {
		free(s->groups[i].site);
		free(s->groups[i].via);
		for (size_t k = 0; k < s->groups[i].nreqs; k++)
			free(s->groups[i].reqs[k]);
	}
	free(s->groups);
	free(s->avoid);
	free(s->batches);
	xconns_free(&s->runs);
	free(s);
}
