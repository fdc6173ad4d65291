/*
 * check_wayland.c — the Wayland tables against the XML they came from, and
 * the decoder on conversations built word by word: the object map
 * (bind, server ids, delete_id), round trips paired, waypipe's framing and
 * fd tags, and a capture begun mid-connection.
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
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
