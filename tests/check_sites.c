/*
 * check_sites.c — the call-site join, folding and avoidable round trips
 * (xcapanalyse/sites.c) on hand-made stacks and waits whose answer is
 * known: a wait takes the call that blocked across it even when Xlib
 * blocked on an earlier sequence number; libxcb and Xlib frames are
 * folded; the second InternAtom of a name, the second QueryExtension, a
 * GetInputFocus after nothing and the same property of the same window
 * fetched again with no change between are avoidable; a stack is used
 * once.  Wayland: a round trip with nothing asked since the last was
 * answered, the registry fetched again and a sync per surface.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sites.h"

#define S 1000000000ull

static struct sites *load(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	ck_assert_ptr_nonnull(f);
	char err[256];
	struct sites *s = sites_load_stream(f, "test", err, sizeof err);
	fclose(f);
	return s;
}

static void conn(struct sites *s, uint32_t id, uint16_t port)
{
	struct xrec r = { .type = XREC_CONN };
	r.u.conn.id = id;
	r.u.conn.ts = 1;
	r.u.conn.client.port = port;
	ck_assert_int_eq(sites_record(s, &r), 0);
}

static void request(struct sites *s, uint64_t seq, const char *name, const char *detail)
{
	struct xrec r = { .type = XREC_MSG };
	r.u.msg.conn = 1;
	r.u.msg.kind = XMSG_REQUEST;
	r.u.msg.seq = seq;
	r.u.msg.name = name;
	r.u.msg.ext = "";
	r.u.msg.detail = detail;
	ck_assert_int_eq(sites_record(s, &r), 0);
}

static void reply(struct sites *s, uint64_t seq)
{
	struct xrec r = { .type = XREC_MSG };
	r.u.msg.conn = 1;
	r.u.msg.dir = XDIR_S2C;
	r.u.msg.kind = XMSG_REPLY;
	r.u.msg.seq = seq;
	r.u.msg.name = "x";
	r.u.msg.ext = "";
	r.u.msg.detail = "";
	ck_assert_int_eq(sites_record(s, &r), 0);
}

static void event(struct sites *s, uint64_t seq, const char *name, const char *detail)
{
	struct xrec r = { .type = XREC_MSG };
	r.u.msg.conn = 1;
	r.u.msg.dir = XDIR_S2C;
	r.u.msg.kind = XMSG_EVENT;
	r.u.msg.seq = seq;
	r.u.msg.name = name;
	r.u.msg.ext = "";
	r.u.msg.detail = detail;
	ck_assert_int_eq(sites_record(s, &r), 0);
}

static struct xstate_wait wait_on(uint64_t seq, uint64_t start, uint64_t end)
{
	struct xstate_wait w = { .conn = 1, .seq = seq, .burst_first = seq, .burst_last = seq,
				 .request_ts = start, .start = start, .reply_ts = end,
				 .name = "InternAtom", .ext = "", .detail = "" };
	return w;
}

START_TEST(xlib_blocks_on_an_earlier_request)
{
	/* Seq 7's own call returned at once; the call for 8 blocked in
	   xcb_wait_for_reply64 on 7, across the wait the trace has on 8. */
	struct sites *s = load(
		"wait 5000 7 10.000 10.000\tlibX11.so.6:_XReply+0x1\tlibgdk-3.so.0:gdk_a+0x1\tapp:main+0x1\n"
		"wait 5000 7 10.001 10.050\tlibX11.so.6:_XReply+0x1\tlibX11.so.6:XGetAtomName+0x2\t"
		"libgdk-3.so.0:gdk_b+0x2\tlibgtk-3.so.0:gtk_c+0x3\tapp:main+0x1\n"
		"wait 6000 8 10.001 10.050\tapp:other_connection+0x1\n");
	ck_assert_ptr_nonnull(s);
	conn(s, 1, 5000);
	struct xstate_wait w = wait_on(8, 10002 * (S / 1000), 10049 * (S / 1000));
	const char *site = sites_of_wait(s, &w);
	ck_assert_ptr_nonnull(site);
	ck_assert_str_eq(site, "libgdk-3.so.0:gdk_b+0x2");
	/* The same wait asked again gets the same answer. */
	ck_assert_str_eq(sites_of_wait(s, &w), "libgdk-3.so.0:gdk_b+0x2");
	const char *f;
	ck_assert_uint_eq(sites_last_stack(s, &f), 5);
	ck_assert_str_eq(f, "libX11.so.6:_XReply+0x1");
	/* A later wait on 7 finds only the call that did not block: it
	   joins by sequence number, the other stack being used. */
	w = wait_on(7, 20 * S, 21 * S);
	site = sites_of_wait(s, &w);
	ck_assert_ptr_nonnull(site);
	ck_assert_str_eq(site, "libgdk-3.so.0:gdk_a+0x1");
	/* Nothing left for a third. */
	w = wait_on(7, 30 * S, 31 * S);
	ck_assert_ptr_null(sites_of_wait(s, &w));
	sites_free(s);
}
END_TEST

START_TEST(only_wrapper_frames)
{
	struct sites *s = load("wait 1 3 1.0 2.0\tlibxcb.so.1:xcb_x+0x1\tlibX11.so.6:XSync+0x2\n");
	ck_assert_ptr_nonnull(s);
	conn(s, 1, 1);
	struct xstate_wait w = wait_on(3, S + S / 10, 2 * S - S / 10);
	ck_assert_str_eq(sites_of_wait(s, &w), "(only libxcb/Xlib frames)");
	sites_free(s);
}
END_TEST

START_TEST(bad_lines_are_counted)
{
	struct sites *s = load("wait x\nwait 1 2 3.0 1.0\nwait 70000 1 1 2\nwait 1 2 1.0 inf\n"
			       "wait 1 2 1.0 2.0\tapp:f+0x1\n");
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(sites_bad_lines(s), 4);
	sites_free(s);
	ck_assert_ptr_null(load("no waits here\n"));
}
END_TEST

START_TEST(addresses_and_modules)
{
	/* Frames carry their address in the module ("@0x..."), which the
	   reader takes off; "module" lines are not waits, nor bad lines. */
	struct sites *s = load("module app /nonexistent/app\n"
			       "module libxcb.so.1 /nonexistent/libxcb.so.1\n"
			       "wait 1 3 1.0 2.0\tlibxcb.so.1:xcb_x+0x1@0x5001\tapp+0x20@0x1020\t"
			       "app:main+0x8@0x1108\n");
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(sites_bad_lines(s), 0);
	/* Modules whose files are missing keep their frames as they are. */
	ck_assert_int_eq(sites_resolve_sources(s), 0);
	conn(s, 1, 1);
	struct xstate_wait w = wait_on(3, S + S / 10, 2 * S - S / 10);
	ck_assert_str_eq(sites_of_wait(s, &w), "app+0x20");
	const char *f;
	ck_assert_uint_eq(sites_last_stack(s, &f), 3);
	ck_assert_str_eq(f, "libxcb.so.1:xcb_x+0x1");
	f += strlen(f) + 1;
	ck_assert_str_eq(f, "app+0x20");
	f += strlen(f) + 1;
	ck_assert_str_eq(f, "app:main+0x8");
	sites_free(s);
}
END_TEST

static const char *avoid_text =
	"wait 5000 2 1.0 1.5\tapp:intern_again+0x1\n"
	"wait 5000 4 2.0 2.5\tapp:query_again+0x1\n"
	"wait 5000 5 3.0 3.5\tapp:sync_nothing+0x1\n";

START_TEST(avoidable_round_trips)
{
	struct sites *s = load(avoid_text);
	ck_assert_ptr_nonnull(s);
	conn(s, 1, 5000);
	request(s, 1, "InternAtom", "name=WM_STATE");
	reply(s, 1);
	request(s, 2, "InternAtom", "name=WM_STATE");
	request(s, 3, "QueryExtension", "name=RENDER");
	reply(s, 2);
	reply(s, 3);
	request(s, 4, "QueryExtension", "name=RENDER");
	reply(s, 4);
	request(s, 5, "GetInputFocus", "");
	reply(s, 5);
	/* After a void request, a GetInputFocus syncs something. */
	request(s, 6, "MapWindow", "");
	request(s, 7, "GetInputFocus", "");
	struct xstate_wait w[] = { wait_on(2, 1 * S + 1, 1 * S + S / 2), wait_on(4, 2 * S + 1, 2 * S + S / 2),
				   wait_on(5, 3 * S + 1, 3 * S + S / 2), wait_on(7, 4 * S, 4 * S + 1) };
	for (size_t i = 0; i < 4; i++)
		sites_wait(s, &w[i]);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	sites_view_print(s, out, OUT_CSV);
	fclose(out);
	ck_assert_ptr_nonnull(strstr(text, "app:intern_again+0x1"));
	free(text);
	/* Programs get one row a wait, with which earlier request it repeats. */
	out = open_memstream(&text, &len);
	sites_view_print(s, out, OUT_NDJSON);
	fclose(out);
	ck_assert_ptr_nonnull(strstr(text, "atom interned again (first #1)"));
	ck_assert_ptr_nonnull(strstr(text, "extension queried again (first #3)"));
	ck_assert_ptr_nonnull(strstr(text, "GetInputFocus as a sync after nothing"));
	free(text);
	/* People one row a site, request and reason. */
	out = open_memstream(&text, &len);
	sites_view_print(s, out, OUT_TEXT);
	fclose(out);
	ck_assert_ptr_nonnull(strstr(text, "atom interned again"));
	ck_assert_ptr_null(strstr(text, "(first #"));
	ck_assert_ptr_nonnull(strstr(text, "3 avoidable"));
	/* The wait on 7 had no stack: counted apart. */
	ck_assert_ptr_nonnull(strstr(text, "1 round trip (0.000 ms) without a stack"));
	free(text);
	sites_free(s);
}
END_TEST

/* A Wayland message of connection 1: ext is the interface, the detail as
   WAYLAND_DEBUG names it. */
static void wl_msg(struct sites *s, int dir, int kind, uint64_t seq, const char *itf,
		   const char *name, const char *detail)
{
	struct xrec r = { .type = XREC_MSG };
	r.u.msg.conn = 1;
	r.u.msg.dir = (uint8_t)dir;
	r.u.msg.kind = (uint8_t)kind;
	r.u.msg.seq = seq;
	r.u.msg.name = name;
	r.u.msg.ext = itf;
	r.u.msg.detail = detail;
	ck_assert_int_eq(sites_record(s, &r), 0);
}

/* A wl_display_roundtrip: its sync (seq) and the callback's done. */
static void roundtrip(struct sites *s, uint64_t seq)
{
	wl_msg(s, XDIR_C2S, XMSG_REQUEST, seq, "wl_display", "sync",
	       "wl_display@1.sync(new id wl_callback@3)");
	wl_msg(s, XDIR_S2C, XMSG_REPLY, seq, "wl_callback", "done", "wl_callback@3.done(7)");
}

static const char *wl_text =
	"wait 7000 2 1.0 1.1\twlc:registry+0x1\n"
	"wait 7000 3 2.0 2.1\twlc:again+0x1\n"
	"wait 7000 5 3.0 3.1\twlc:bound+0x1\n"
	"wait 7000 7 4.0 4.1\twlc:registry2+0x1\n"
	"wait 7000 9 5.0 5.1\twlc:surface+0x1\n"
	"wait 7000 11 6.0 6.1\twlc:surface+0x1\n";

START_TEST(wayland_avoidable_round_trips)
{
	struct sites *s = load(wl_text);
	ck_assert_ptr_nonnull(s);
	conn(s, 1, 7000);
	wl_msg(s, XDIR_C2S, XMSG_REQUEST, 1, "wl_display", "get_registry",
	       "wl_display@1.get_registry(new id wl_registry@2)");
	roundtrip(s, 2);
	roundtrip(s, 3);	/* nothing asked since 2 was answered */
	wl_msg(s, XDIR_C2S, XMSG_REQUEST, 4, "wl_registry", "bind",
	       "wl_registry@2.bind(1, \"wl_compositor\", 1, new id [unknown]@4)");
	roundtrip(s, 5);
	wl_msg(s, XDIR_C2S, XMSG_REQUEST, 6, "wl_display", "get_registry",
	       "wl_display@1.get_registry(new id wl_registry@5)");
	roundtrip(s, 7);	/* waits for the registry again */
	wl_msg(s, XDIR_C2S, XMSG_REQUEST, 8, "wl_compositor", "create_surface",
	       "wl_compositor@4.create_surface(new id wl_surface@6)");
	roundtrip(s, 9);
	wl_msg(s, XDIR_C2S, XMSG_REQUEST, 10, "wl_compositor", "create_surface",
	       "wl_compositor@4.create_surface(new id wl_surface@7)");
	roundtrip(s, 11);	/* a sync per surface */
	struct xstate_wait w[6];
	uint64_t seqs[6] = { 1, 3, 5, 6, 9, 11 };
	for (size_t i = 0; i < 6; i++) {
		w[i] = wait_on(seqs[i], (i + 1) * S + 1, (i + 1) * S + S / 20);
		w[i].ext = "wl_display";
		w[i].name = "sync";
		w[i].burst_last = seqs[i] == 1 || seqs[i] == 6 ? seqs[i] + 1 : seqs[i];
		sites_wait(s, &w[i]);
	}
	sites_set_cost_rtt(s, 50000000);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	sites_view_print(s, out, OUT_TEXT);
	fclose(out);
	ck_assert_ptr_nonnull(strstr(text, "nothing asked since round trip #2 was answered"));
	/* grouped by site and reason: the reason without the first fetch's number */
	ck_assert_ptr_nonnull(strstr(text, "registry fetched again"));
	ck_assert_ptr_nonnull(strstr(text, "a sync per surface (wl_surface@6, then @7 after #9)"));
	ck_assert_ptr_null(strstr(text, "without a stack"));
	ck_assert_ptr_nonnull(strstr(text, "3 avoidable"));
	ck_assert_ptr_nonnull(strstr(text, "At 50 ms of round-trip time these round trips would add "
				  "0.3 s, the avoidable ones 0.150 s;"));
	free(text);
	sites_free(s);
}
END_TEST

/* GetProperty fetched, answered and waited on, as Xlib's
   XGetWindowProperty does. */
static void fetch(struct sites *s, uint64_t seq, const char *detail)
{
	request(s, seq, "GetProperty", detail);
	reply(s, seq);
}

#define WM_NAME "window=0x200003 property=WM_NAME type=STRING"

START_TEST(property_fetched_again)
{
	struct sites *s = load("wait 5000 2 2.0 2.5\tapp:read_title+0x1\n"
			       "wait 5000 7 7.0 7.5\tapp:poll_title+0x1\n");
	ck_assert_ptr_nonnull(s);
	conn(s, 1, 5000);
	fetch(s, 1, WM_NAME);
	fetch(s, 2, WM_NAME);					/* again: avoidable */
	request(s, 3, "ChangeProperty", "window=0x200003 property=WM_NAME type=UTF8_STRING");
	fetch(s, 4, WM_NAME);					/* changed between */
	fetch(s, 5, "window=0x200004 property=WM_NAME type=STRING");	/* another window */
	event(s, 5, "PropertyNotify", "window=0x200003 atom=WM_NAME");
	fetch(s, 6, WM_NAME);					/* notified between */
	fetch(s, 7, WM_NAME);					/* again: avoidable */
	event(s, 7, "PropertyNotify", "window=0x200003 atom=WM_ICON_NAME");
	event(s, 7, "PropertyNotify", "window=0x200004 atom=WM_NAME");
	fetch(s, 8, WM_NAME);			/* only other properties changed: avoidable */
	request(s, 9, "DeleteProperty", "window=0x200003 property=WM_NAME");
	fetch(s, 10, WM_NAME);					/* deleted between */
	fetch(s, 11, "delete=1 " WM_NAME);			/* reads and deletes */
	fetch(s, 12, WM_NAME);					/* deleted by 11 */
	fetch(s, 13, WM_NAME " long_offset=16");		/* the rest of it */
	fetch(s, 14, "window=0x200003 property=WM_NAME type=UTF8_STRING");	/* other type */
	request(s, 15, "RotateProperties", "window=0x200003");
	fetch(s, 16, WM_NAME);					/* rotated between */
	/* A trace whose details lack the window tells no repeat. */
	fetch(s, 17, "property=WM_CLASS type=STRING");
	fetch(s, 18, "property=WM_CLASS type=STRING");
	for (uint64_t seq = 2; seq <= 18; seq++) {
		if (seq == 3 || seq == 9 || seq == 15)
			continue;
		struct xstate_wait w = wait_on(seq, seq * S + 1, seq * S + S / 2);
		w.name = "GetProperty";
		w.detail = seq == 2 ? WM_NAME : "";	/* the one whose text is checked */
		sites_wait(s, &w);
	}
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	sites_view_print(s, out, OUT_NDJSON);
	fclose(out);
	/* The rows of the avoidable table (one a wait for programs), by
	   sequence number. */
	char seqs[64] = "";
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		const char *at = strstr(line, "\"seq\": ");
		unsigned seq;
		if (strstr(line, "property fetched again") && at && sscanf(at + 7, "%u", &seq) == 1)
			snprintf(seqs + strlen(seqs), sizeof seqs - strlen(seqs), "%u ", seq);
	}
	ck_assert_str_eq(seqs, "2 7 8 ");
	free(text);
	out = open_memstream(&text, &len);
	sites_view_print(s, out, OUT_TEXT);
	fclose(out);
	ck_assert_ptr_nonnull(strstr(text, "3 avoidable"));
	free(text);
	out = open_memstream(&text, &len);
	sites_view_print(s, out, OUT_NDJSON);
	fclose(out);
	ck_assert_ptr_nonnull(strstr(text, "app:read_title+0x1"));
	ck_assert_ptr_nonnull(strstr(text, "GetProperty " WM_NAME ": property fetched again (first #1)"));
	ck_assert_ptr_nonnull(strstr(text, "app:poll_title+0x1"));
	ck_assert_ptr_nonnull(strstr(text, "property fetched again (first #6)"));
	free(text);
	sites_free(s);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("sites");
	TCase *tc = tcase_create("join");
	tcase_add_test(tc, xlib_blocks_on_an_earlier_request);
	tcase_add_test(tc, only_wrapper_frames);
	tcase_add_test(tc, bad_lines_are_counted);
	tcase_add_test(tc, addresses_and_modules);
	tcase_add_test(tc, avoidable_round_trips);
	tcase_add_test(tc, property_fetched_again);
	tcase_add_test(tc, wayland_avoidable_round_trips);
	suite_add_tcase(su, tc);
	SRunner *sr = srunner_create(su);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
