/*
 * wayland.c — the Wayland decoder: frames each message of both roles,
 * keeps the connection's object map and names every message as
 * WAYLAND_DEBUG does, `interface@id.message(arguments)`.
 *
 * The wire: each message is the object id (32 bits), then the size in
 * bytes (high 16 bits, header included) and the opcode (low 16 bits), then
 * the arguments, each a multiple of 32 bits; strings and arrays are a
 * 32-bit length then their bytes padded to 32 bits (a string's length
 * counts its NUL, 0 is a null string).  Words are in the host's byte
 * order: little-endian is assumed (the machines waypipe joins agree).
 * File descriptors travel beside the bytes (SCM_RIGHTS), never in them:
 * a message whose signature has one is flagged PROTO_F_NO_BYTES.
 *
 * The object map: wl_display is object 1; a new_id argument creates an
 * object of the interface its message names (the creator's version), or,
 * for wl_registry.bind, of the interface and version named on the wire
 * before it; the server's ids start at 0xff000000; wl_display.delete_id
 * frees a client id, a destructor event frees its object.  Interfaces the
 * installed XML lacks keep the name bind gave them, their messages named
 * by opcode.
 *
 * A capture that begins mid-connection (the first request is not on
 * wl_display@1) or loses bytes does not know the whole map: a message on
 * an object the decoder never saw created is named `[unknown]@id.opcode N`,
 * and one on an object created before a loss keeps its interface's name;
 * both are flagged PROTO_F_UNCERTAIN, never given as fact.
 *
 * Buffer bytes (waypipe): waypipe names the file descriptors its next
 * Wayland messages carry by remote id (INJECT_RIDS, wl_engine_fd_rids)
 * and sends a buffer's contents as fills and diffs of that id
 * (wl_engine_buffer_bytes).  The tie, as far as the wire shows it: a
 * message that carries fds takes the next ids in order, the first for the
 * object it creates (wl_shm.create_pool's pool), else for its own object
 * (zwp_linux_buffer_params_v1.add); an object created on an object with
 * an id inherits it (wl_shm_pool.create_buffer's buffer, the params'
 * buffer); wl_surface.attach names the buffer the next commit shows.  A
 * commit whose buffer has an id is charged the bytes that id's transfers
 * took on the wire since the id was last charged (waypipe sends them
 * just before the commit), said after the message's closing parenthesis:
 * `wl_surface@3.commit() + rid 1: 12843 bytes in 1 transfer`.  A pool holds
 * every buffer made from it, so buffers of one pool shown by two surfaces
 * share one count: the commit that comes first takes it.
 *
 * How Wayland maps onto the trace's kinds:
 *   PROTO_REQUEST  every message from the application, numbered 1, 2, ...;
 *                  those a PROTO_REPLY answers carry PROTO_F_WANTS_REPLY
 *   PROTO_REPLY    wl_callback.done on a callback made by wl_display.sync
 *                  (what wl_display_roundtrip waits for), the
 *                  wl_registry.global events the compositor sends at once
 *                  for get_registry (up to the first other event), and an
 *                  xdg_surface's first configure, which answers the first
 *                  wl_surface.commit after get_xdg_surface (the client may
 *                  not attach a buffer before it: it waits): seq is that
 *                  request's number
 *   PROTO_EVENT    every other message from the compositor (a frame
 *                  callback's done too: it answers when the compositor
 *                  draws, out of order with other requests); seq is the
 *                  last request's number
 *   PROTO_ERROR    wl_display.error
 *   PROTO_UNKNOWN  an opcode the object's interface does not have
 *
 * Belongs to: libprotocols, the protocol decoders (protocols/).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "digits.h"
#include "protocol.h"
#include "wayland_engine.h"
#include "wayland_tables.h"

#define SERVER_ID_FIRST 0xff000000u
/* Ids the map keeps per side: a client that uses more is out of spec
   (libwayland reuses freed ids) or a corrupt stream. */
#define MAX_IDS (1u << 20)
/* libwayland refuses messages larger than 4096 bytes; the size field
   allows 65535. */
#define MSG_MAX 65535u

/* obj.flags */
#define OBJ_LIVE 0x01
#define OBJ_BEFORE_LOSS 0x02	/* created before bytes were lost: may be stale */
#define OBJ_UNCONFIGURED 0x04	/* an xdg_surface whose first configure has not been asked for */
#define OBJ_RID 0x08		/* obj.rid holds waypipe's remote id */
#define OBJ_ATTACHED 0x10	/* a wl_surface attached a buffer (or nil) since its commit */

enum answers { ANS_NONE = 0, ANS_SYNC, ANS_REGISTRY, ANS_CONFIGURE };

struct obj {
	int16_t iface;		/* wlt_interfaces index, -1 not in the XML */
	uint8_t flags;
	uint8_t answers;	/* enum answers */
	uint32_t version;
	uint32_t foreign;	/* +1 index in e->names: bind's name for an interface not in the XML */
	uint64_t seq;		/* the request it answers (ANS_*) */
	uint32_t role;		/* a wl_surface's xdg_surface, 0 none */
	int32_t rid;		/* waypipe's remote id of its fd's contents (OBJ_RID) */
	uint32_t attached;	/* a wl_surface's buffer: attached, then committed */
	uint32_t shown;
};

struct idmap {
	struct obj *v;
	uint32_t cap;
};

struct role {
	uint8_t *buf;		/* a message begun in an earlier chunk */
	size_t len;
	uint32_t need;		/* its size once the header is in */
	bool lost;		/* framing lost: bytes counted until a boundary */
	bool after_gap;
	uint64_t lost_bytes;
};

/* A remote id's transfers not yet charged to a commit. */
struct rid_bytes {
	int32_t rid;
	uint32_t transfers;
	uint64_t wire;
};

#define RIDS_QUEUED 256
#define RIDS_KEPT 1024

struct wl_engine {
	struct proto_sink sink;
	/* waypipe: remote ids for the next fds of each role ([1] requests) */
	int32_t fd_rids[2][RIDS_QUEUED];
	size_t nfd_rids[2];
	struct rid_bytes *rb;	/* the application's transfers per remote id */
	size_t nrb;
	struct idmap ids[2];	/* client ids, server ids (- SERVER_ID_FIRST) */
	struct role r[2];	/* [1] requests, [0] events */
	bool fd_tags;		/* opcodes carry waypipe's count of fds */
	bool started;		/* the first request was seen */
	bool map_partial;	/* objects may exist that were never seen created */
	uint64_t seq;		/* requests counted */
	int16_t display, callback, registry, surface, xdg_wm_base, xdg_surface;
	int commit, get_xdg_surface, configure, attach;	/* opcodes, -1 not in the XML */
	uint32_t burst_id;	/* the registry whose first globals are coming, 0 none */
	char **names;
	size_t nnames;
	char opname[24];
};

static void note(struct wl_engine *e, enum proto_dir dir, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void note(struct wl_engine *e, enum proto_dir dir, const char *fmt, ...)
{
	char text[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (e->sink.note)
		e->sink.note(e->sink.ctx, dir, text);
}

/* Appends len bytes of s to a detail, as one piece: a detail that does
   not fit ends in "...", and one within 4 bytes of its end takes
   nothing more.  Every message's detail is built this way on the relay's
   path (xcap-run records as it relays), so the common arguments are put
   together by hand below rather than by vsnprintf, which cost a third of
   a relayed burst; the text is the same. */
static void dput(char *detail, const char *s, size_t len)
{
	size_t n = strlen(detail);
	if (n + 4 >= PROTO_DETAIL_MAX)
		return;
	if (len < PROTO_DETAIL_MAX - n) {
		memcpy(detail + n, s, len);
		detail[n + len] = '\0';
	} else {
		memcpy(detail + n, s, PROTO_DETAIL_MAX - 4 - n);
		memcpy(detail + PROTO_DETAIL_MAX - 4, "...", 4);
	}
}

/* A piece of a detail being put together: what does not fit in b is
   counted in len only (dput cuts it anyway). */
struct piece {
	char b[PROTO_DETAIL_MAX];
	size_t len;
};

static void pc_str(struct piece *p, const char *s, size_t n)
{
	if (p->len < sizeof p->b) {
		size_t k = n < sizeof p->b - p->len ? n : sizeof p->b - p->len;
		memcpy(p->b + p->len, s, k);
	}
	p->len += n;
}

static void pc_cstr(struct piece *p, const char *s)
{
	pc_str(p, s, strlen(s));
}

/* v in decimal, at least width digits (zeros before, up to 12) */
static void pc_uint(struct piece *p, uint32_t v, int width)
{
	char d[12];
	char *t = text_u32(d, v, false);
	while (t > d && d + sizeof d - t < width)
		*--t = '0';
	pc_str(p, t, (size_t)(d + sizeof d - t));
}

static void pc_int(struct piece *p, int32_t v)
{
	if (v < 0) {
		pc_str(p, "-", 1);
		pc_uint(p, 0u - (uint32_t)v, 0);
	} else {
		pc_uint(p, (uint32_t)v, 0);
	}
}

static void pc_put(char *detail, const struct piece *p)
{
	dput(detail, p->b, p->len);
}

/* dput of a C string */
static void dcat(char *detail, const char *s)
{
	dput(detail, s, strlen(s));
}

/* Appends to a detail by a format: for the rare lines. */
static void dappend(char *detail, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void dappend(char *detail, const char *fmt, ...)
{
	char text[PROTO_DETAIL_MAX];
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (w >= 0)
		dput(detail, text, (size_t)w);
}

static int16_t iface_find(const char *name)
{
	size_t lo = 0, hi = wlt_ninterfaces;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, wlt_interfaces[mid].name);
		if (c == 0)
			return (int16_t)mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

/* The opcode of an interface's request (to_server) or event, -1 when
   the XML lacks either. */
static int msg_find(int16_t iface, bool to_server, const char *name)
{
	if (iface < 0)
		return -1;
	const struct wlt_interface *itf = &wlt_interfaces[iface];
	uint16_t n = to_server ? itf->nrequests : itf->nevents;
	const struct wlt_message *v = to_server ? itf->requests : itf->events;
	for (uint16_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return i;
	return -1;
}

/* ---- the object map ---- */

static struct obj *obj_at(struct wl_engine *e, uint32_t id, bool grow)
{
	if (id == 0)
		return NULL;
	struct idmap *m = &e->ids[id >= SERVER_ID_FIRST];
	uint32_t i = id >= SERVER_ID_FIRST ? id - SERVER_ID_FIRST : id;
	if (i >= m->cap) {
		if (!grow || i >= MAX_IDS)
			return NULL;
		uint32_t cap = m->cap ? m->cap : 64;
		while (cap <= i)
			cap *= 2;
		struct obj *v = realloc(m->v, cap * sizeof *v);
		if (!v)
			return NULL;
		memset(v + m->cap, 0, (cap - m->cap) * sizeof *v);
		m->v = v;
		m->cap = cap;
	}
	return &m->v[i];
}

static uint32_t name_keep(struct wl_engine *e, const char *name)
{
	for (size_t i = 0; i < e->nnames; i++)
		if (strcmp(e->names[i], name) == 0)
			return (uint32_t)i + 1;
	if (e->nnames >= 4096)
		return 0;
	char **v = realloc(e->names, (e->nnames + 1) * sizeof *v);
	if (!v)
		return 0;
	e->names = v;
	char *s = strdup(name);
	if (!s)
		return 0;
	e->names[e->nnames++] = s;
	return (uint32_t)e->nnames;
}

static void obj_create(struct wl_engine *e, uint32_t id, int16_t iface, uint32_t version,
		       uint32_t foreign)
{
	struct obj *o = obj_at(e, id, true);
	if (!o)
		return;
	*o = (struct obj){ .iface = iface, .flags = OBJ_LIVE, .version = version,
			   .foreign = foreign };
}

static void obj_forget(struct wl_engine *e, uint32_t id)
{
	struct obj *o = obj_at(e, id, false);
	if (o)
		memset(o, 0, sizeof *o);
}

/* The interface's name for printing an object argument. */
static const char *obj_iface_name(struct wl_engine *e, const struct obj *o)
{
	if (!o || !(o->flags & OBJ_LIVE))
		return "[unknown]";
	if (o->iface >= 0)
		return wlt_interfaces[o->iface].name;
	if (o->foreign && o->foreign <= e->nnames)
		return e->names[o->foreign - 1];
	return "[unknown]";
}

/* ---- buffer bytes (waypipe) ---- */

void wl_engine_fd_rids(struct wl_engine *e, bool to_server, const int32_t *rids, size_t n)
{
	size_t *q = &e->nfd_rids[to_server];
	for (size_t i = 0; i < n; i++) {
		if (*q == RIDS_QUEUED) {
			/* ids no message took: the oldest goes */
			memmove(e->fd_rids[to_server], e->fd_rids[to_server] + 1,
				(RIDS_QUEUED - 1) * sizeof e->fd_rids[0][0]);
			--*q;
		}
		e->fd_rids[to_server][(*q)++] = rids[i];
	}
}

static struct rid_bytes *rid_bytes(struct wl_engine *e, int32_t rid, bool make)
{
	for (size_t i = 0; i < e->nrb; i++)
		if (e->rb[i].rid == rid)
			return &e->rb[i];
	if (!make || e->nrb == RIDS_KEPT)
		return NULL;
	struct rid_bytes *v = realloc(e->rb, (e->nrb + 1) * sizeof *v);
	if (!v)
		return NULL;
	e->rb = v;
	v[e->nrb] = (struct rid_bytes){ .rid = rid };
	return &v[e->nrb++];
}

void wl_engine_buffer_bytes(struct wl_engine *e, int32_t rid, uint64_t wire)
{
	struct rid_bytes *b = rid_bytes(e, rid, true);
	if (b) {
		b->transfers++;
		b->wire += wire;
	}
}

/* The tie of waypipe's remote ids to buffers and surfaces (the comment
   at the top): an fd's id to the object the message made or is on, an
   object made on one with an id inherits it, attach and commit name the
   buffer a commit shows, and the commit says what its buffer's transfers
   took on the wire. */
static void buffer_ties(struct wl_engine *e, struct obj *self, uint16_t opcode,
			bool to_server, bool have_rid, int32_t rid, const uint32_t *created,
			size_t ncreated, const uint8_t *bytes, uint32_t size, char *detail)
{
	if (!self || !(self->flags & OBJ_LIVE))
		return;
	for (size_t i = 0; i < ncreated; i++) {
		struct obj *made = obj_at(e, created[i], false);
		if (made && (self->flags & OBJ_RID)) {
			made->rid = self->rid;
			made->flags |= OBJ_RID;
		}
	}
	if (have_rid) {
		struct obj *t = ncreated ? obj_at(e, created[0], false) : self;
		if (t) {
			t->rid = rid;
			t->flags |= OBJ_RID;
		}
	}
	if (!to_server || self->iface != e->surface || self->iface < 0)
		return;
	if (opcode == e->attach) {
		struct cursor c = cursor_init(bytes, size);
		cursor_skip(&c, 8);
		uint32_t buffer = cursor_le32(&c);
		if (!c.overrun) {
			self->attached = buffer;
			self->flags |= OBJ_ATTACHED;
		}
	} else if (opcode == e->commit) {
		if (self->flags & OBJ_ATTACHED)
			self->shown = self->attached;
		self->flags &= (uint8_t)~OBJ_ATTACHED;
		struct obj *b = obj_at(e, self->shown, false);
		if (!self->shown || !b || !(b->flags & OBJ_LIVE) || !(b->flags & OBJ_RID))
			return;
		struct rid_bytes *t = rid_bytes(e, b->rid, false);
		dappend(detail, " + rid %d: %llu bytes in %u transfer%s", b->rid,
			(unsigned long long)(t ? t->wire : 0), t ? t->transfers : 0,
			t && t->transfers == 1 ? "" : "s");
		if (t)
			t->transfers = 0, t->wire = 0;
	}
}

/* ---- one message ---- */

/* Reads the arguments, printing them into detail and acting on those
   that change the map.  Returns false when the arguments overrun the
   message (a corrupt or misnamed message: nothing created). */
static bool walk_args(struct wl_engine *e, const struct wlt_message *m, const struct obj *self,
		      struct cursor *c, char *detail, uint32_t *created, size_t ncreated_max,
		      size_t *ncreated)
{
	struct pending { uint32_t id; int16_t iface; uint32_t version, foreign; } made[4];
	size_t nmade = 0;
	for (unsigned i = 0; i < m->nargs; i++) {
		const struct wlt_arg *a = &m->args[i];
		if (i)
			dput(detail, ", ", 2);
		struct piece pc;
		pc.len = 0;
		switch (a->type) {
		case WLT_INT:
			pc_int(&pc, (int32_t)cursor_le32(c));
			pc_put(detail, &pc);
			break;
		case WLT_UINT:
			pc_uint(&pc, cursor_le32(c), 0);
			pc_put(detail, &pc);
			break;
		case WLT_FIXED: {
			/* as libwayland prints it: integer part, then 8 digits
			   of the 1/256 fraction */
			int32_t f = (int32_t)cursor_le32(c);
			if (f >= 0) {
				pc_int(&pc, f / 256);
				pc_str(&pc, ".", 1);
				pc_uint(&pc, (uint32_t)(390625 * (f % 256)), 8);
			} else {
				pc_str(&pc, "-", 1);
				pc_int(&pc, f / -256);
				pc_str(&pc, ".", 1);
				pc_uint(&pc, (uint32_t)(-390625 * (f % 256)), 8);
			}
			pc_put(detail, &pc);
			break;
		}
		case WLT_STRING: {
			uint32_t n = cursor_le32(c);
			if (n == 0) {
				dcat(detail, "nil");
				break;
			}
			const uint8_t *s = cursor_span(c, ((size_t)n + 3) & ~(size_t)3);
			if (!s)
				return false;
			/* as %.*s: up to a NUL within it */
			pc_str(&pc, "\"", 1);
			pc_str(&pc, (const char *)s, strnlen((const char *)s, n - 1));
			pc_str(&pc, "\"", 1);
			pc_put(detail, &pc);
			break;
		}
		case WLT_OBJECT: {
			uint32_t id = cursor_le32(c);
			if (id == 0) {
				dcat(detail, "nil");
			} else {
				pc_cstr(&pc, obj_iface_name(e, obj_at(e, id, false)));
				pc_str(&pc, "@", 1);
				pc_uint(&pc, id, 0);
				pc_put(detail, &pc);
			}
			break;
		}
		case WLT_NEW_ID: {
			int16_t iface = a->iface;
			uint32_t version = self ? self->version : 1, foreign = 0;
			if (iface < 0) {
				/* wl_registry.bind: the interface is named on the wire */
				uint32_t n = cursor_le32(c);
				const uint8_t *s = n ? cursor_span(c, ((size_t)n + 3) & ~(size_t)3) : NULL;
				if (c->overrun)
					return false;
				/* the name as %.*s would have it, cut to 127 bytes */
				char name[128];
				size_t k = s ? strnlen((const char *)s, n - 1) : 0;
				if (k >= sizeof name)
					k = sizeof name - 1;
				memcpy(name, s ? (const char *)s : "", k);
				name[k] = '\0';
				version = cursor_le32(c);
				uint32_t id = cursor_le32(c);
				if (s) {
					pc_str(&pc, "\"", 1);
					pc_str(&pc, name, k);
					pc_str(&pc, "\", ", 3);
					pc_put(detail, &pc);
				} else {
					dput(detail, "nil, ", 5);
				}
				pc.len = 0;
				pc_uint(&pc, version, 0);
				pc_str(&pc, ", new id [unknown]@", 19);
				pc_put(detail, &pc);
				iface = iface_find(name);
				if (iface < 0 && name[0])
					foreign = name_keep(e, name);
				if (id) {
					pc.len = 0;
					pc_uint(&pc, id, 0);
					pc_put(detail, &pc);
				} else {
					dput(detail, "nil", 3);
				}
				if (id && nmade < 4)
					made[nmade++] = (struct pending){ id, iface, version, foreign };
				break;
			}
			uint32_t id = cursor_le32(c);
			pc_str(&pc, "new id ", 7);
			pc_cstr(&pc, wlt_interfaces[iface].name);
			pc_str(&pc, "@", 1);
			pc_put(detail, &pc);
			if (id) {
				pc.len = 0;
				pc_uint(&pc, id, 0);
				pc_put(detail, &pc);
			} else {
				dcat(detail, "nil");
			}
			if (id && nmade < 4)
				made[nmade++] = (struct pending){ id, iface, version, 0 };
			break;
		}
		case WLT_ARRAY: {
			uint32_t n = cursor_le32(c);
			if (!cursor_skip(c, ((size_t)n + 3) & ~(size_t)3))
				return false;
			pc_str(&pc, "array[", 6);
			pc_uint(&pc, n, 0);
			pc_str(&pc, "]", 1);
			pc_put(detail, &pc);
			break;
		}
		case WLT_FD:
			dput(detail, "fd", 2);
			break;
		}
	}
	if (c->overrun)
		return false;
	for (size_t i = 0; i < nmade; i++) {
		obj_create(e, made[i].id, made[i].iface, made[i].version, made[i].foreign);
		if (*ncreated < ncreated_max)
			created[(*ncreated)++] = made[i].id;
	}
	return true;
}

static void message(struct wl_engine *e, bool to_server, const uint8_t *bytes, uint32_t size,
		    uint64_t outer_end, enum proto_dir outer_dir)
{
	struct cursor c = cursor_init(bytes, size);
	uint32_t id = cursor_le32(&c);
	uint32_t word = cursor_le32(&c);
	uint16_t opcode = (uint16_t)(word & 0xffff);
	unsigned nfds = 0;
	if (e->fd_tags) {
		nfds = (word >> 11) & 31;
		opcode &= 0x7ff;
	}
	struct role *r = &e->r[to_server];
	/* the remote ids of the fds it carries, taken in order whatever the
	   message turns out to be */
	bool have_rid = false;
	int32_t rid = 0;
	for (unsigned i = 0; i < nfds && e->nfd_rids[to_server]; i++) {
		if (!have_rid)
			rid = e->fd_rids[to_server][0];
		have_rid = true;
		memmove(e->fd_rids[to_server], e->fd_rids[to_server] + 1,
			--e->nfd_rids[to_server] * sizeof e->fd_rids[0][0]);
	}

	if (to_server && !e->started) {
		e->started = true;
		/* A client's first message is on wl_display (get_registry or
		   sync): anything else means the capture began after it. */
		if (id != 1) {
			e->map_partial = true;
			note(e, outer_dir, "wayland: the capture begins mid-connection: "
			     "objects created before it are unknown");
		}
	}

	struct proto_msg m = { .dir = outer_dir, .length = size, .stream_end = outer_end };
	m.kind = to_server ? PROTO_REQUEST : PROTO_EVENT;
	if (to_server)
		m.seq = ++e->seq;
	else
		m.seq = e->seq;
	if (r->after_gap) {
		m.flags |= PROTO_F_AFTER_GAP;
		r->after_gap = false;
	}

	struct obj *o = obj_at(e, id, false);
	bool known = o && (o->flags & OBJ_LIVE);
	const struct wlt_interface *itf = known && o->iface >= 0 ? &wlt_interfaces[o->iface] : NULL;
	const struct wlt_message *msg = NULL;
	if (itf) {
		uint16_t n = to_server ? itf->nrequests : itf->nevents;
		if (opcode < n)
			msg = &(to_server ? itf->requests : itf->events)[opcode];
	}
	if (!known || (o->flags & OBJ_BEFORE_LOSS))
		m.flags |= PROTO_F_UNCERTAIN;
	/* An object never seen created names nothing; after a loss the map
	   may be stale, which the flag says. */
	m.ext = known ? obj_iface_name(e, o) : "[unknown]";
	{
		struct piece pc;
		pc.len = 0;
		pc_cstr(&pc, m.ext);
		pc_str(&pc, "@", 1);
		pc_uint(&pc, id, 0);
		pc_str(&pc, ".", 1);
		/* as snprintf: never more than fits (a name is far shorter) */
		size_t k = pc.len < sizeof m.detail - 1 ? pc.len : sizeof m.detail - 1;
		memcpy(m.detail, pc.b, k);
		m.detail[k] = '\0';
	}

	if (!msg) {
		snprintf(e->opname, sizeof e->opname, "opcode %u", opcode);
		m.name = e->opname;
		if (known && itf)
			m.kind = PROTO_UNKNOWN;
		dappend(m.detail, "%s(%u bytes)", e->opname, size - 8);
		if (e->sink.message)
			e->sink.message(e->sink.ctx, &m);
		return;
	}

	m.name = msg->name;
	{
		struct piece pc;
		pc.len = 0;
		pc_cstr(&pc, msg->name);
		pc_str(&pc, "(", 1);
		pc_put(m.detail, &pc);
	}
	if ((msg->flags & WLT_HAS_FD) || nfds)
		m.flags |= PROTO_F_NO_BYTES;
	uint32_t created[4];
	size_t ncreated = 0;
	if (!walk_args(e, msg, o, &c, m.detail, created, 4, &ncreated)) {
		m.flags |= PROTO_F_UNCERTAIN;
		dput(m.detail, "?)", 2);
		note(e, outer_dir, "wayland: %s@%u.%s: arguments overrun its %u bytes",
		     m.ext, id, msg->name, size);
	} else {
		dput(m.detail, ")", 1);
	}
	/* what the message created may have moved the map */
	o = obj_at(e, id, false);
	buffer_ties(e, o, opcode, to_server, have_rid, rid, created, ncreated, bytes, size,
		    m.detail);

	int16_t self = itf ? (int16_t)(itf - wlt_interfaces) : -1;
	if (to_server) {
		if (self == e->display && (opcode == 0 || opcode == 1) && ncreated) {
			/* sync's callback is done when the compositor has
			   handled every request before it; get_registry is
			   answered at once with the globals */
			struct obj *made = obj_at(e, created[0], false);
			if (made) {
				made->answers = opcode == 0 ? ANS_SYNC : ANS_REGISTRY;
				made->seq = m.seq;
			}
			m.flags |= PROTO_F_WANTS_REPLY;
		}
		if (self == e->xdg_wm_base && opcode == e->get_xdg_surface && ncreated) {
			/* the surface's first commit asks for the first configure */
			struct cursor a = cursor_init(bytes, size);
			cursor_skip(&a, 12);
			struct obj *x = obj_at(e, created[0], false);
			struct obj *sf = obj_at(e, cursor_le32(&a), false);
			if (!a.overrun && x && sf && (sf->flags & OBJ_LIVE) && sf->iface == e->surface) {
				x->flags |= OBJ_UNCONFIGURED;
				sf->role = created[0];
			}
		}
		if (self == e->surface && opcode == e->commit && o->role) {
			struct obj *x = obj_at(e, o->role, false);
			if (x && (x->flags & OBJ_LIVE) && x->iface == e->xdg_surface &&
			    (x->flags & OBJ_UNCONFIGURED)) {
				x->flags &= (uint8_t)~OBJ_UNCONFIGURED;
				x->answers = ANS_CONFIGURE;
				x->seq = m.seq;
				m.flags |= PROTO_F_WANTS_REPLY;
			}
			o->role = 0;
		}
		if (msg->flags & WLT_DESTRUCTOR) {
			/* the id stays taken until delete_id, but the object
			   is gone for new messages */
			if (o && id >= SERVER_ID_FIRST)
				obj_forget(e, id);
		}
	} else {
		bool global = self == e->registry && opcode == 0;
		if (e->burst_id && !(global && id == e->burst_id)) {
			/* the burst is over: later globals are hot-plugged */
			struct obj *b = obj_at(e, e->burst_id, false);
			if (b)
				b->answers = ANS_NONE;
			e->burst_id = 0;
		}
		if (global && o->answers == ANS_REGISTRY) {
			e->burst_id = id;
			m.kind = PROTO_REPLY;
			m.seq = o->seq;
		} else if (self == e->callback && o->answers == ANS_SYNC) {
			m.kind = PROTO_REPLY;
			m.seq = o->seq;
		} else if (self == e->xdg_surface && opcode == e->configure &&
			   o->answers == ANS_CONFIGURE) {
			m.kind = PROTO_REPLY;
			m.seq = o->seq;
			o->answers = ANS_NONE;
		} else if (self == e->display && opcode == 0) {
			m.kind = PROTO_ERROR;
		}
		if (self == e->display && opcode == 1) {
			/* delete_id */
			struct cursor a = cursor_init(bytes, size);
			cursor_skip(&a, 8);
			uint32_t gone = cursor_le32(&a);
			if (!a.overrun)
				obj_forget(e, gone);
		} else if (msg->flags & WLT_DESTRUCTOR) {
			obj_forget(e, id);
		}
	}
	if (e->sink.message)
		e->sink.message(e->sink.ctx, &m);
}

/* ---- framing ---- */

static bool header_size(struct wl_engine *e, enum proto_dir dir, const uint8_t *h, uint32_t *size)
{
	struct cursor c = cursor_init(h, 8);
	uint32_t id = cursor_le32(&c);
	uint32_t word = cursor_le32(&c);
	uint32_t n = word >> 16;
	if (id == 0 || n < 8 || (n & 3)) {
		note(e, dir, "wayland: not a message header (object %u, size %u): framing lost", id, n);
		return false;
	}
	*size = n;
	return true;
}

static void lose(struct role *r, uint64_t n)
{
	r->lost = true;
	r->len = 0;
	r->lost_bytes += n;
}

void wl_engine_feed(struct wl_engine *e, bool to_server, const uint8_t *data, size_t len,
		    uint64_t outer_start, enum proto_dir outer_dir)
{
	struct role *r = &e->r[to_server];
	size_t i = 0;
	if (r->lost) {
		r->lost_bytes += len;
		return;
	}
	while (i < len) {
		if (r->len) {
			/* finish the message begun in an earlier chunk */
			uint32_t want = r->len < 8 ? 8 : r->need;
			size_t take = want - r->len < len - i ? want - r->len : len - i;
			memcpy(r->buf + r->len, data + i, take);
			r->len += take;
			i += take;
			if (r->len == 8 && want == 8) {
				if (!header_size(e, outer_dir, r->buf, &r->need)) {
					lose(r, len - i + 8);
					return;
				}
			}
			if (r->len >= 8 && r->len == r->need) {
				message(e, to_server, r->buf, r->need, outer_start + i, outer_dir);
				r->len = 0;
			}
			continue;
		}
		uint32_t size;
		if (len - i >= 8) {
			if (!header_size(e, outer_dir, data + i, &size)) {
				lose(r, len - i);
				return;
			}
			if (len - i >= size) {
				message(e, to_server, data + i, size, outer_start + i + size, outer_dir);
				i += size;
				continue;
			}
			r->need = size;
		}
		/* the rest of the chunk begins a message: keep it */
		memcpy(r->buf, data + i, len - i);
		r->len = len - i;
		i = len;
	}
}

void wl_engine_gap(struct wl_engine *e, bool to_server)
{
	struct role *r = &e->r[to_server];
	e->nfd_rids[to_server] = 0;	/* which message takes which id is lost */
	if (!r->lost)
		lose(r, 0);
	r->after_gap = true;
	/* Objects made before the loss may have been destroyed and their ids
	   reused in the bytes lost: their names are no longer facts. */
	for (int s = 0; s < 2; s++)
		for (uint32_t i = 0; i < e->ids[s].cap; i++)
			if (e->ids[s].v[i].flags & OBJ_LIVE)
				e->ids[s].v[i].flags |= OBJ_BEFORE_LOSS;
	struct obj *d = obj_at(e, 1, false);
	if (d)
		d->flags &= (uint8_t)~OBJ_BEFORE_LOSS;	/* wl_display is always 1 */
	e->map_partial = true;
}

void wl_engine_boundary(struct wl_engine *e, bool to_server)
{
	struct role *r = &e->r[to_server];
	r->lost = false;
	r->len = 0;
}

void wl_engine_end(struct wl_engine *e, bool to_server)
{
	struct role *r = &e->r[to_server];
	enum proto_dir dir = to_server ? PROTO_C2S : PROTO_S2C;
	if (r->len)
		note(e, dir, "wayland: the stream ends inside a message (%zu bytes of it)", r->len);
	if (r->lost_bytes)
		note(e, dir, "wayland: %llu bytes not framed", (unsigned long long)r->lost_bytes);
	r->len = 0;
}

uint64_t wl_engine_next_seq(struct wl_engine *e)
{
	return ++e->seq;
}

uint64_t wl_engine_last_seq(const struct wl_engine *e)
{
	return e->seq;
}

struct wl_engine *wl_engine_new(const struct proto_sink *sink, bool fd_tags)
{
	struct wl_engine *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	e->sink = *sink;
	e->fd_tags = fd_tags;
	for (int i = 0; i < 2; i++) {
		e->r[i].buf = malloc(MSG_MAX);
		if (!e->r[i].buf) {
			wl_engine_free(e);
			return NULL;
		}
	}
	e->display = iface_find("wl_display");
	e->callback = iface_find("wl_callback");
	e->registry = iface_find("wl_registry");
	e->surface = iface_find("wl_surface");
	e->xdg_wm_base = iface_find("xdg_wm_base");
	e->xdg_surface = iface_find("xdg_surface");
	e->commit = msg_find(e->surface, true, "commit");
	e->get_xdg_surface = msg_find(e->xdg_wm_base, true, "get_xdg_surface");
	e->configure = msg_find(e->xdg_surface, false, "configure");
	e->attach = msg_find(e->surface, true, "attach");
	obj_create(e, 1, e->display, 1, 0);
	return e;
}

void wl_engine_free(struct wl_engine *e)
{
	if (!e)
		return;
	for (int i = 0; i < 2; i++) {
		free(e->r[i].buf);
		free(e->ids[i].v);
	}
	for (size_t i = 0; i < e->nnames; i++)
		free(e->names[i]);
	free(e->names);
	free(e->rb);
	free(e);
}

/* ---- a bare Wayland stream ---- */

struct proto_decoder {
	struct wl_engine *e;
	uint64_t pos[2];
};

static struct proto_decoder *wl_create(const struct proto_sink *sink)
{
	struct proto_decoder *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->e = wl_engine_new(sink, false);
	if (!d->e) {
		free(d);
		return NULL;
	}
	return d;
}

static void wl_feed(struct proto_decoder *d, enum proto_dir dir, const uint8_t *data, size_t len)
{
	wl_engine_feed(d->e, dir == PROTO_C2S, data, len, d->pos[dir], dir);
	d->pos[dir] += len;
}

static void wl_gap(struct proto_decoder *d, enum proto_dir dir, uint64_t len)
{
	/* A bare stream has no block boundary to find its framing again. */
	wl_engine_gap(d->e, dir == PROTO_C2S);
	d->pos[dir] += len;
}

static void wl_end(struct proto_decoder *d, enum proto_dir dir)
{
	wl_engine_end(d->e, dir == PROTO_C2S);
}

static void wl_destroy(struct proto_decoder *d)
{
	if (!d)
		return;
	wl_engine_free(d->e);
	free(d);
}

const struct proto_ops proto_wayland = {
	.name = "wayland",
	.create = wl_create,
	.feed = wl_feed,
	.gap = wl_gap,
	.end = wl_end,
	.destroy = wl_destroy,
};

/* A client's first message is wl_display@1.get_registry (12 bytes) or
   wl_display@1.sync. */
bool proto_wayland_banner(const uint8_t *data, size_t len)
{
	struct cursor c = cursor_init(data, len);
	uint32_t id = cursor_le32(&c);
	uint32_t word = cursor_le32(&c);
	uint32_t arg = cursor_le32(&c);
	return !c.overrun && id == 1 && (word == (12u << 16 | 1) || word == (12u << 16 | 0)) &&
	       arg >= 2 && arg < 0x10000;
}
