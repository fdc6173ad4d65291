/*
 * check_wayland.c — the Wayland tables against the XML they came from, and
 * the decoder on conversations built word by word: the object map
 * (bind, server ids, delete_id), round trips paired, waypipe's framing and
 * fd tags, and a capture begun mid-connection; waypipe's framing found
 * again in a real stream (tests/captures/waypipe-shm.pcap) cut at every
 * offset of its first bytes.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "wayland_tables.h"

/* ---- the tables ---- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *s = malloc(cap);
	size_t r;
	while (s && (r = fread(s + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (n + 1 == cap) {
			char *t = realloc(s, cap *= 2);
			if (!t) {
				free(s);
				s = NULL;
			}
			s = t;
		}
	}
	fclose(f);
	if (s)
		s[n] = 0;
	return s;
}

static bool in_tables(const char *name)
{
	for (size_t i = 0; i < wlt_ninterfaces; i++)
		if (strcmp(wlt_interfaces[i].name, name) == 0)
			return true;
	return false;
}

START_TEST(tables_cover_the_xml)
{
	/* Count every <interface name="..."> of every XML file the tables
	   were made from, with a reading of the files of its own. */
	size_t total = 0, missing = 0;
	char seen[512][64];
	size_t nseen = 0;
	ck_assert_uint_gt(wlt_nsources, 1);
	for (size_t f = 0; f < wlt_nsources; f++) {
		char *s = slurp(wlt_sources[f]);
		ck_assert_msg(s != NULL, "cannot read %s", wlt_sources[f]);
		for (char *p = s; (p = strstr(p, "<interface name=\"")) != NULL; p++) {
			char name[64];
			ck_assert_int_eq(sscanf(p + 17, "%63[^\"]", name), 1);
			total++;
			bool dup = false;
			for (size_t i = 0; i < nseen; i++)
				dup |= strcmp(seen[i], name) == 0;
			if (!dup && nseen < 512)
				snprintf(seen[nseen++], 64, "%s", name);
			if (!in_tables(name))
				missing++;
		}
		free(s);
	}
	ck_assert_uint_eq(total, wlt_interfaces_in_xml);
	ck_assert_uint_eq(nseen, wlt_ninterfaces);
	ck_assert_uint_eq(missing, 0);
	for (size_t i = 1; i < wlt_ninterfaces; i++)
		ck_assert_int_lt(strcmp(wlt_interfaces[i - 1].name, wlt_interfaces[i].name), 0);
	printf("check_wayland: %zu interfaces in %zu XML files (%zu definitions)\n",
	       wlt_ninterfaces, wlt_nsources, total);
}
END_TEST

START_TEST(tables_know_the_core)
{
	const struct wlt_interface *d = NULL, *r = NULL, *s = NULL;
	for (size_t i = 0; i < wlt_ninterfaces; i++) {
		if (strcmp(wlt_interfaces[i].name, "wl_display") == 0)
			d = &wlt_interfaces[i];
		if (strcmp(wlt_interfaces[i].name, "wl_registry") == 0)
			r = &wlt_interfaces[i];
		if (strcmp(wlt_interfaces[i].name, "wl_shm") == 0)
			s = &wlt_interfaces[i];
	}
	ck_assert_ptr_nonnull(d);
	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(d->requests[0].name, "sync");
	ck_assert_str_eq(d->requests[1].name, "get_registry");
	ck_assert_str_eq(d->events[1].name, "delete_id");
	ck_assert_str_eq(r->requests[0].name, "bind");
	ck_assert_int_eq(r->requests[0].args[1].type, WLT_NEW_ID);
	ck_assert_int_eq(r->requests[0].args[1].iface, -1);
	ck_assert(s->requests[0].flags & WLT_HAS_FD);	/* create_pool */
	ck_assert_int_eq(s->requests[0].args[1].type, WLT_FD);
}
END_TEST

/* ---- the decoder ---- */

struct seen {
	enum proto_dir dir;
	enum proto_kind kind;
	unsigned flags;
	uint64_t seq, end;
	char name[64], ext[64], detail[PROTO_DETAIL_MAX];
};
static struct seen msgs[64];
static size_t n_msgs;

static void on_message(void *ctx, const struct proto_msg *m)
{
	(void)ctx;
	if (n_msgs >= 64)
		return;
	struct seen *s = &msgs[n_msgs++];
	s->dir = m->dir;
	s->kind = m->kind;
	s->flags = m->flags;
	s->seq = m->seq;
	s->end = m->stream_end;
	snprintf(s->name, sizeof s->name, "%s", m->name ? m->name : "");
	snprintf(s->ext, sizeof s->ext, "%s", m->ext ? m->ext : "");
	snprintf(s->detail, sizeof s->detail, "%s", m->detail);
}

static void on_note(void *ctx, enum proto_dir dir, const char *text)
{
	(void)ctx;
	(void)dir;
	(void)text;
}

struct buf {
	uint8_t b[4096];
	size_t n;
};

static void w32(struct buf *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b->b[b->n++] = (uint8_t)(v >> (8 * i));
}

static void wstr(struct buf *b, const char *s)
{
	uint32_t n = (uint32_t)strlen(s) + 1;
	w32(b, n);
	memcpy(b->b + b->n, s, n);
	b->n += n;
	while (b->n & 3)
		b->b[b->n++] = 0;
}

/* Begins a message; msg_end fills in its size. */
static size_t msg_begin(struct buf *b, uint32_t id, uint32_t opcode)
{
	size_t at = b->n;
	w32(b, id);
	w32(b, opcode);
	return at;
}

static void msg_end(struct buf *b, size_t at)
{
	uint32_t size = (uint32_t)(b->n - at);
	b->b[at + 6] = (uint8_t)size;
	b->b[at + 7] = (uint8_t)(size >> 8);
}

static const struct proto_sink sink = { .message = on_message, .note = on_note };

/* The start of a client: get_registry, sync; the compositor's globals,
   done, delete_id; a bind and a request on the bound object. */
static void conversation(struct buf *c, struct buf *s, uint32_t fd_tag)
{
	size_t m = msg_begin(c, 1, 1);
	w32(c, 2);
	msg_end(c, m);
	m = msg_begin(c, 1, 0);
	w32(c, 3);
	msg_end(c, m);

	m = msg_begin(s, 2, 0);
	w32(s, 1);
	wstr(s, "wl_compositor");
	w32(s, 4);
	msg_end(s, m);
	m = msg_begin(s, 2, 0);
	w32(s, 7);
	wstr(s, "wl_shm");
	w32(s, 1);
	msg_end(s, m);
	m = msg_begin(s, 3, 0);
	w32(s, 42);
	msg_end(s, m);
	m = msg_begin(s, 1, 1);
	w32(s, 3);
	msg_end(s, m);

	m = msg_begin(c, 2, 0);
	w32(c, 7);
	wstr(c, "wl_shm");
	w32(c, 1);
	w32(c, 4);
	msg_end(c, m);
	m = msg_begin(c, 4, 0 | fd_tag);	/* wl_shm.create_pool(new id, fd, size) */
	w32(c, 5);
	w32(c, 4096);
	msg_end(c, m);
}

START_TEST(bare_stream)
{
	struct buf c = { .n = 0 }, s = { .n = 0 };
	conversation(&c, &s, 0);
	n_msgs = 0;
	ck_assert(proto_for_banner(c.b, c.n) == &proto_wayland);
	struct proto_decoder *d = proto_wayland.create(&sink);
	proto_wayland.feed(d, PROTO_C2S, c.b, 24);
	/* the compositor's bytes a few at a time */
	for (size_t i = 0; i < s.n; i += 5)
		proto_wayland.feed(d, PROTO_S2C, s.b + i, s.n - i < 5 ? s.n - i : 5);
	proto_wayland.feed(d, PROTO_C2S, c.b + 24, c.n - 24);
	proto_wayland.end(d, PROTO_C2S);
	proto_wayland.end(d, PROTO_S2C);
	proto_wayland.destroy(d);

	ck_assert_uint_eq(n_msgs, 8);
	ck_assert_str_eq(msgs[0].detail, "wl_display@1.get_registry(new id wl_registry@2)");
	ck_assert(msgs[0].flags & PROTO_F_WANTS_REPLY);
	ck_assert_uint_eq(msgs[0].seq, 1);
	ck_assert_uint_eq(msgs[0].end, 12);
	ck_assert_str_eq(msgs[1].detail, "wl_display@1.sync(new id wl_callback@3)");
	ck_assert_int_eq(msgs[2].kind, PROTO_REPLY);
	ck_assert_uint_eq(msgs[2].seq, 1);
	ck_assert_str_eq(msgs[2].detail, "wl_registry@2.global(1, \"wl_compositor\", 4)");
	ck_assert_int_eq(msgs[3].kind, PROTO_REPLY);
	ck_assert_int_eq(msgs[4].kind, PROTO_REPLY);
	ck_assert_uint_eq(msgs[4].seq, 2);
	ck_assert_str_eq(msgs[4].detail, "wl_callback@3.done(42)");
	ck_assert_int_eq(msgs[5].kind, PROTO_EVENT);
	ck_assert_str_eq(msgs[5].detail, "wl_display@1.delete_id(3)");
	ck_assert_str_eq(msgs[6].detail, "wl_registry@2.bind(7, \"wl_shm\", 1, new id [unknown]@4)");
	ck_assert_str_eq(msgs[7].ext, "wl_shm");
	ck_assert_str_eq(msgs[7].name, "create_pool");
	ck_assert_str_eq(msgs[7].detail, "wl_shm@4.create_pool(new id wl_shm_pool@5, fd, 4096)");
	ck_assert(msgs[7].flags & PROTO_F_NO_BYTES);
	ck_assert(!(msgs[7].flags & PROTO_F_UNCERTAIN));
}
END_TEST

START_TEST(waypipe_framing)
{
	struct buf c = { .n = 0 }, s = { .n = 0 }, wc = { .n = 0 }, ws = { .n = 0 };
	conversation(&c, &s, 1u << 11);
	/* the token, then each side's Wayland bytes in PROTOCOL blocks, a
	   buffer fill and an acknowledgement */
	w32(&wc, 1u << 16 | 0x80 | 0x100 | 0x800);
	w32(&wc, 1), w32(&wc, 2), w32(&wc, 3);
	w32(&wc, (uint32_t)(4 + 24) << 5 | 0);
	memcpy(wc.b + wc.n, c.b, 24);
	wc.n += 24;
	w32(&wc, (uint32_t)(4 + c.n - 24) << 5 | 0);
	memcpy(wc.b + wc.n, c.b + 24, c.n - 24);
	wc.n += c.n - 24;
	w32(&wc, (16 + 5) << 5 | 5);	/* BUFFER_FILL rid 9, [0, 4096), 5 bytes: padded */
	w32(&wc, 9), w32(&wc, 0), w32(&wc, 4096), w32(&wc, 0), w32(&wc, 0);
	w32(&ws, (uint32_t)(4 + s.n) << 5 | 0);
	memcpy(ws.b + ws.n, s.b, s.n);
	ws.n += s.n;
	w32(&ws, 8 << 5 | 16), w32(&ws, 2);
	ck_assert(proto_for_banner(wc.b, wc.n) == &proto_waypipe);

	n_msgs = 0;
	struct proto_decoder *d = proto_waypipe.create(&sink);
	for (size_t i = 0; i < wc.n; i += 7)
		proto_waypipe.feed(d, PROTO_C2S, wc.b + i, wc.n - i < 7 ? wc.n - i : 7);
	proto_waypipe.feed(d, PROTO_S2C, ws.b, ws.n);
	proto_waypipe.end(d, PROTO_C2S);
	proto_waypipe.end(d, PROTO_S2C);
	proto_waypipe.destroy(d);

	ck_assert_uint_eq(n_msgs, 11);
	ck_assert_int_eq(msgs[0].kind, PROTO_SETUP);
	ck_assert_str_eq(msgs[0].detail, "version 1, compression none, video off");
	ck_assert_str_eq(msgs[1].detail, "wl_display@1.get_registry(new id wl_registry@2)");
	ck_assert_uint_eq(msgs[1].end, 16 + 4 + 12);
	ck_assert_str_eq(msgs[4].detail, "wl_shm@4.create_pool(new id wl_shm_pool@5, fd, 4096)");
	ck_assert(msgs[4].flags & PROTO_F_NO_BYTES);
	ck_assert_str_eq(msgs[5].name, "BUFFER_FILL");
	ck_assert_str_eq(msgs[5].detail, "rid 9, bytes [0, 4096) as 5 on the wire");
	ck_assert_uint_eq(msgs[5].seq, 5);
	ck_assert_uint_eq(msgs[5].end, wc.n);
	ck_assert_int_eq(msgs[8].kind, PROTO_REPLY);
	ck_assert_str_eq(msgs[8].detail, "wl_callback@3.done(42)");
	ck_assert_str_eq(msgs[10].name, "ACK_NBLOCKS");
	ck_assert_int_eq(msgs[10].kind, PROTO_EVENT);
}
END_TEST

START_TEST(mid_connection)
{
	struct buf c = { .n = 0 }, s = { .n = 0 };
	conversation(&c, &s, 0);
	n_msgs = 0;
	struct proto_decoder *d = proto_wayland.create(&sink);
	/* begin at the bind: the registry was never seen created */
	proto_wayland.feed(d, PROTO_C2S, c.b + 24, c.n - 24);
	proto_wayland.destroy(d);
	ck_assert_uint_eq(n_msgs, 2);
	ck_assert(msgs[0].flags & PROTO_F_UNCERTAIN);
	ck_assert_str_eq(msgs[0].ext, "[unknown]");
	ck_assert_str_eq(msgs[0].detail, "[unknown]@2.opcode 0(24 bytes)");
	ck_assert(msgs[1].flags & PROTO_F_UNCERTAIN);
	ck_assert_str_eq(msgs[1].detail, "[unknown]@4.opcode 0(8 bytes)");

	/* a hole: objects made before it are named, but not as facts */
	n_msgs = 0;
	d = proto_wayland.create(&sink);
	proto_wayland.feed(d, PROTO_C2S, c.b, 24);
	proto_wayland.gap(d, PROTO_S2C, 100);
	proto_wayland.destroy(d);
	ck_assert_uint_eq(n_msgs, 2);
}
END_TEST

START_TEST(first_configure)
{
	/* bind wl_compositor and xdg_wm_base, a surface given the
	   xdg_surface role, committed twice; the compositor's configure */
	struct buf c = { .n = 0 }, s = { .n = 0 };
	size_t m = msg_begin(&c, 1, 1);
	w32(&c, 2);
	msg_end(&c, m);
	m = msg_begin(&c, 2, 0);
	w32(&c, 1), wstr(&c, "wl_compositor"), w32(&c, 4), w32(&c, 4);
	msg_end(&c, m);
	m = msg_begin(&c, 2, 0);
	w32(&c, 2), wstr(&c, "xdg_wm_base"), w32(&c, 1), w32(&c, 5);
	msg_end(&c, m);
	m = msg_begin(&c, 4, 0);	/* create_surface */
	w32(&c, 6);
	msg_end(&c, m);
	m = msg_begin(&c, 5, 2);	/* get_xdg_surface */
	w32(&c, 7), w32(&c, 6);
	msg_end(&c, m);
	size_t first = c.n;
	m = msg_begin(&c, 6, 6);	/* commit */
	msg_end(&c, m);
	m = msg_begin(&s, 7, 0);	/* configure */
	w32(&s, 1);
	msg_end(&s, m);

	n_msgs = 0;
	struct proto_decoder *d = proto_wayland.create(&sink);
	proto_wayland.feed(d, PROTO_C2S, c.b, c.n);
	proto_wayland.feed(d, PROTO_S2C, s.b, s.n);
	proto_wayland.feed(d, PROTO_C2S, c.b + first, c.n - first);	/* commit again */
	proto_wayland.destroy(d);
	ck_assert_uint_eq(n_msgs, 8);
	ck_assert_str_eq(msgs[5].detail, "wl_surface@6.commit()");
	ck_assert(msgs[5].flags & PROTO_F_WANTS_REPLY);
	ck_assert_int_eq(msgs[6].kind, PROTO_REPLY);
	ck_assert_uint_eq(msgs[6].seq, msgs[5].seq);
	ck_assert_str_eq(msgs[6].detail, "xdg_surface@7.configure(1)");
	ck_assert(!(msgs[7].flags & PROTO_F_WANTS_REPLY));
}
END_TEST


/* waypipe's transfers charged to the commit that shows their buffer:
   INJECT_RIDS names create_pool's fd, the buffer inherits the pool's id,
   attach and commit show it; a commit without a new attach shows it
   still; a second id's transfers are not this surface's. */
START_TEST(waypipe_buffer_bytes)
{
	struct buf c = { .n = 0 }, wc = { .n = 0 };
	size_t m = msg_begin(&c, 1, 1);	/* get_registry */
	w32(&c, 2);
	msg_end(&c, m);
	m = msg_begin(&c, 2, 0);
	w32(&c, 1), wstr(&c, "wl_compositor"), w32(&c, 4), w32(&c, 4);
	msg_end(&c, m);
	m = msg_begin(&c, 2, 0);
	w32(&c, 2), wstr(&c, "wl_shm"), w32(&c, 1), w32(&c, 5);
	msg_end(&c, m);
	m = msg_begin(&c, 4, 0);	/* create_surface 6 */
	w32(&c, 6);
	msg_end(&c, m);
	size_t setup = c.n;
	m = msg_begin(&c, 5, 0 | 1u << 11);	/* create_pool 7, fd, 4096 */
	w32(&c, 7), w32(&c, 4096);
	msg_end(&c, m);
	m = msg_begin(&c, 7, 0);	/* create_buffer 8 */
	w32(&c, 8), w32(&c, 0), w32(&c, 16), w32(&c, 16), w32(&c, 64), w32(&c, 0);
	msg_end(&c, m);
	m = msg_begin(&c, 6, 1);	/* attach(8, 0, 0) */
	w32(&c, 8), w32(&c, 0), w32(&c, 0);
	msg_end(&c, m);
	m = msg_begin(&c, 6, 6);	/* commit */
	msg_end(&c, m);
	size_t again = c.n;
	m = msg_begin(&c, 6, 6);	/* commit, the buffer still attached */
	msg_end(&c, m);

	w32(&wc, 1u << 16 | 0x80 | 0x100 | 0x800);
	w32(&wc, 1), w32(&wc, 2), w32(&wc, 3);
	w32(&wc, (uint32_t)(4 + setup) << 5 | 0);
	memcpy(wc.b + wc.n, c.b, setup), wc.n += setup;
	w32(&wc, (16 + 5) << 5 | 5);	/* BUFFER_FILL rid 9: 24 bytes on the wire */
	w32(&wc, 9), w32(&wc, 0), w32(&wc, 4096), w32(&wc, 0), w32(&wc, 0);
	w32(&wc, (16 + 8) << 5 | 6);	/* BUFFER_DIFF rid 12: another buffer's */
	w32(&wc, 12), w32(&wc, 8), w32(&wc, 0), w32(&wc, 0), w32(&wc, 0);
	w32(&wc, 12 << 5 | 1);		/* INJECT_RIDS: 9, then 12 for a later fd */
	w32(&wc, 9), w32(&wc, 12);
	w32(&wc, (uint32_t)(4 + again - setup) << 5 | 0);
	memcpy(wc.b + wc.n, c.b + setup, again - setup), wc.n += again - setup;
	w32(&wc, (16 + 8) << 5 | 6);	/* BUFFER_DIFF rid 9: 24 bytes */
	w32(&wc, 9), w32(&wc, 8), w32(&wc, 0), w32(&wc, 0), w32(&wc, 0);
	w32(&wc, (16 + 8) << 5 | 6);	/* ... and again: 48 in all */
	w32(&wc, 9), w32(&wc, 8), w32(&wc, 0), w32(&wc, 0), w32(&wc, 0);
	w32(&wc, (uint32_t)(4 + c.n - again) << 5 | 0);
	memcpy(wc.b + wc.n, c.b + again, c.n - again), wc.n += c.n - again;

	n_msgs = 0;
	struct proto_decoder *d = proto_waypipe.create(&sink);
	proto_waypipe.feed(d, PROTO_C2S, wc.b, wc.n);
	proto_waypipe.destroy(d);
	const char *commits[2] = { NULL, NULL };
	size_t k = 0;
	for (size_t i = 0; i < n_msgs; i++)
		if (strcmp(msgs[i].name, "commit") == 0 && k < 2)
			commits[k++] = msgs[i].detail;
	ck_assert_uint_eq(k, 2);
	ck_assert_str_eq(commits[0], "wl_surface@6.commit() + rid 9: 24 bytes in 1 transfer");
	ck_assert_str_eq(commits[1], "wl_surface@6.commit() + rid 9: 48 bytes in 2 transfers");
}
END_TEST

/* ---- finding waypipe's framing again in a real stream ---- */

/* One direction of a capture's TCP stream, with its packets' boundaries. */
struct stream {
	uint8_t *b;
	size_t n;
	size_t cuts[4096];	/* where each packet's payload ends */
	size_t ncuts;
};

static uint32_t rd16be(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t rd32be(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The two streams of a capture of one TCP connection over Ethernet and
   IPv4 (tcpdump's pcap), in order; [0] is the side that sent first.  A
   segment that repeats bytes already in is left out. */
static void read_streams(const char *name, struct stream st[2])
{
	char path[4096];
	const char *top = getenv("top_srcdir");
	snprintf(path, sizeof path, "%s/tests/captures/%s", top ? top : "..", name);
	char *all = NULL;
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	size_t cap = 1 << 20, n = 0, r;
	all = malloc(cap);
	while ((r = fread(all + n, 1, cap - n, f)) > 0)
		if ((n += r) == cap)
			ck_assert_ptr_nonnull(all = realloc(all, cap *= 2));
	fclose(f);
	const uint8_t *b = (const uint8_t *)all;
	ck_assert_uint_ge(n, 24);
	ck_assert_uint_eq(b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24, 0xa1b2c3d4);
	uint32_t sport0 = 0, next[2] = { 0, 0 };
	bool started[2] = { false, false };
	for (int i = 0; i < 2; i++) {
		st[i].b = malloc(n);
		st[i].n = st[i].ncuts = 0;
	}
	for (size_t at = 24; at + 16 <= n;) {
		const uint8_t *h = b + at;
		uint32_t incl = h[8] | h[9] << 8 | h[10] << 16 | (uint32_t)h[11] << 24;
		const uint8_t *e = h + 16;
		at += 16 + incl;
		ck_assert_uint_le(at, n);
		if (incl < 14 + 20 + 20 || rd16be(e + 12) != 0x0800 || e[14 + 9] != 6)
			continue;
		const uint8_t *ip = e + 14;
		size_t ihl = (size_t)(ip[0] & 15) * 4, total = rd16be(ip + 2);
		const uint8_t *tcp = ip + ihl;
		size_t doff = (size_t)(tcp[12] >> 4) * 4;
		size_t plen = total - ihl - doff;
		uint32_t seq = rd32be(tcp + 4), sport = rd16be(tcp);
		if (tcp[13] & 0x02) {	/* SYN: the data begin after it */
			if (!sport0)
				sport0 = sport;
			int s = sport != sport0;
			next[s] = seq + 1;
			started[s] = true;
			continue;
		}
		if (!plen)
			continue;
		if (!sport0)
			sport0 = sport;
		int s = sport != sport0;
		if (!started[s]) {
			next[s] = seq;
			started[s] = true;
		}
		if (seq != next[s])
			continue;
		memcpy(st[s].b + st[s].n, tcp + doff, plen);
		st[s].n += plen;
		next[s] += (uint32_t)plen;
		if (st[s].ncuts < 4096)
			st[s].cuts[st[s].ncuts++] = st[s].n;
	}
	free(all);
}

/* What a message says that does not hang on the object map: where it
   ends, its length, and for waypipe's own its name and detail, for
   Wayland's the object id. */
static void identity(const struct seen *m, uint64_t shift, char *out, size_t n)
{
	if (strcmp(m->ext, "waypipe") == 0) {
		snprintf(out, n, "%llu %s %s", (unsigned long long)(m->end + shift), m->name,
			 m->detail);
		return;
	}
	const char *at = strchr(m->detail, '@');
	snprintf(out, n, "%llu wayland @%lu", (unsigned long long)(m->end + shift),
		 at ? strtoul(at + 1, NULL, 10) : 0ul);
}

static struct seen *big;	/* the messages of a whole stream */
static size_t n_big, cap_big;

static void on_big(void *ctx, const struct proto_msg *m)
{
	(void)ctx;
	if (n_big == cap_big)
		ck_assert_ptr_nonnull(big = realloc(big, (cap_big = cap_big ? 2 * cap_big : 256) *
							     sizeof *big));
	struct seen *s = &big[n_big++];
	s->dir = m->dir;
	s->flags = m->flags;
	s->end = m->stream_end;
	snprintf(s->name, sizeof s->name, "%s", m->name ? m->name : "");
	snprintf(s->ext, sizeof s->ext, "%s", m->ext ? m->ext : "");
	snprintf(s->detail, sizeof s->detail, "%s", m->detail);
}

/* Feeds a stream from byte `from` on, packet by packet as captured, to
   a fresh decoder: the application's side first (its token) when `with`
   is given, then this direction. */
static void decode_from(const struct stream *with, const struct stream *st, enum proto_dir dir,
			size_t from)
{
	static const struct proto_sink big_sink = { .message = on_big, .note = on_note };
	n_big = 0;
	struct proto_decoder *d = proto_waypipe.create(&big_sink);
	if (with)
		proto_waypipe.feed(d, PROTO_C2S, with->b, 16);
	size_t at = from;
	for (size_t i = 0; i < st->ncuts; i++) {
		if (st->cuts[i] <= at)
			continue;
		proto_waypipe.feed(d, dir, st->b + at, st->cuts[i] - at);
		at = st->cuts[i];
	}
	proto_waypipe.end(d, dir);
	proto_waypipe.destroy(d);
}

START_TEST(waypipe_resync_real)
{
	struct stream st[2];
	read_streams("waypipe-shm.pcap", st);
	ck_assert(proto_waypipe_banner(st[0].b, st[0].n));
	for (int dir = 0; dir < 2; dir++) {
		/* the whole direction, from a decoder that saw the token */
		decode_from(dir ? &st[0] : NULL, &st[dir], (enum proto_dir)dir, 0);
		size_t n_whole = n_big;
		struct seen *whole = malloc(n_whole * sizeof *whole);
		memcpy(whole, big, n_whole * sizeof *whole);
		size_t most_skipped = 0, total_skipped = 0, tried = 0;
		for (size_t k = 1; k < 400; k++) {
			decode_from(NULL, &st[dir], (enum proto_dir)dir, k);
			ck_assert_msg(n_big > 0, "dir %d cut at %zu: framing never found", dir, k);
			/* it found the framing: what it reports is what the
			   whole stream's decoding reports from there on,
			   every message, no other */
			ck_assert_msg(n_big <= n_whole, "dir %d cut at %zu: more messages", dir, k);
			size_t j = n_whole - n_big;
			for (size_t i = 0; i < n_big; i++) {
				char a[PROTO_DETAIL_MAX + 96], b[PROTO_DETAIL_MAX + 96];	/* number, name, detail */
				identity(&whole[j + i], 0, a, sizeof a);
				identity(&big[i], k, b, sizeof b);
				ck_assert_msg(strcmp(a, b) == 0, "dir %d cut at %zu, message %zu: "
					      "'%s', the whole stream's '%s'", dir, k, i, b, a);
			}
			/* and says its first messages are a guess */
			ck_assert_msg((big[0].flags & PROTO_F_UNCERTAIN) &&
				      (big[0].flags & PROTO_F_AFTER_GAP),
				      "dir %d cut at %zu: the first message is not marked", dir, k);
			size_t skipped = (size_t)big[0].end;
			if (skipped > most_skipped)
				most_skipped = skipped;
			total_skipped += skipped;
			tried++;
		}
		printf("check_waypipe: %s stream of %zu bytes (%zu messages) cut at %zu offsets: "
		       "framing found again each time, the first message reported ending at most %zu bytes "
		       "after the cut (mean %zu), then every message as in the whole stream's decoding\n",
		       dir ? "compositor's" : "application's", st[dir].n, n_whole, tried,
		       most_skipped, total_skipped / tried);
		free(whole);
	}
	free(st[0].b);
	free(st[1].b);
	free(big);
	big = NULL;
	n_big = cap_big = 0;
}
END_TEST

int main(void)
{
	Suite *s = suite_create("wayland");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, tables_cover_the_xml);
	tcase_add_test(tc, tables_know_the_core);
	tcase_add_test(tc, bare_stream);
	tcase_add_test(tc, waypipe_framing);
	tcase_add_test(tc, mid_connection);
	tcase_add_test(tc, first_configure);
	tcase_add_test(tc, waypipe_resync_real);
	tcase_add_test(tc, waypipe_buffer_bytes);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
