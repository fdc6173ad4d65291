/*
 * check_session.c — session files (xcap/cmd/xcap-replay/session.c): what reads, what is
 * refused and on which line, writing and reading back, and recording from
 * the two real captures of the golden tests (xterm given keys, clicks and
 * a drag by xdotool; a VNC viewer's clicks and keys against Xvnc), whose
 * inputs are known from their dumps.
 */
#include "config.h"

#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "source.h"

/* A capture of the golden tests, from the source tree ($top_srcdir, as
   the test driver sets it). */
static void capture_path(char *path, size_t n, const char *name)
{
	const char *top = getenv("top_srcdir");
	snprintf(path, n, "%s/tests/captures/%s", top ? top : "..", name);
}

static int parse(const char *text, struct xsession *s, char *err, size_t errlen)
{
	return xsession_parse((const uint8_t *)text, strlen(text), s, err, errlen);
}

START_TEST(reads_inputs)
{
	struct xsession s;
	char err[256];
	const char *text = "# a comment first\n"
			   "xcap-session 1\n"
			   "protocol x11\n"
			   "source  rec.xcap  \n"
			   "client xterm XTerm\n"
			   "connection 3\n"
			   "future-keyword whatever\n"
			   "\n"
			   "0.000000 key-press 26 100 80 0x0 0x400018 79 49 3\r\n"
			   "0.5 button-press 0x2 -5 80 4 - - - -\n"
			   "1.000000001\tmotion 0 100 134 0x204 0x400035 98 65 1";
	ck_assert_int_eq(parse(text, &s, err, sizeof err), 0);
	ck_assert_int_eq(s.proto, XSESS_X11);
	ck_assert_str_eq(s.source, "rec.xcap");
	ck_assert_str_eq(s.client, "xterm XTerm");
	ck_assert_uint_eq(s.conn, 3);
	ck_assert_uint_eq(s.n, 3);
	ck_assert_uint_eq(s.inputs[0].kind, XSESS_KEY_PRESS);
	ck_assert_uint_eq(s.inputs[0].code, 26);
	ck_assert_uint_eq(s.inputs[0].window, 0x400018);
	ck_assert_int_eq(s.inputs[0].event_x, 79);
	ck_assert_int_eq(s.inputs[0].response, 3);
	ck_assert_uint_eq(s.inputs[1].t, 500000000u);
	ck_assert_uint_eq(s.inputs[1].code, 2);
	ck_assert_int_eq(s.inputs[1].root_x, -5);
	ck_assert_uint_eq(s.inputs[1].state, 4);
	ck_assert_uint_eq(s.inputs[1].window, 0);
	ck_assert_int_eq(s.inputs[1].event_x, XSESS_UNKNOWN);
	ck_assert_int_eq(s.inputs[1].response, -1);
	ck_assert_uint_eq(s.inputs[2].t, 1000000001u);
	ck_assert_uint_eq(s.inputs[2].kind, XSESS_MOTION);
	xsession_free(&s);
}
END_TEST

/* Each bad file is refused, naming the line. */
START_TEST(refuses_bad_lines)
{
	static const struct {
		const char *text, *err;
	} bad[] = {
		{ "", "not a session file (empty)" },
		{ "protocol x11\n", "line 1: not a session file" },
		{ "xcap-session 2\n", "line 1: a session version" },
		{ "xcap-session 1\n0.1 key-press 1 - - 0 - - - -\n", "line 2: an input before" },
		{ "xcap-session 1\nprotocol x11\n", NULL },
		{ "xcap-session 1\nprotocol vnc\n", "line 2: protocol must be" },
		{ "xcap-session 1\nprotocol x11\n1 key-press 1 - - 0 - - - -\n0.5 key-press 1 - - 0 - - - -\n",
		  "line 4: time goes backwards" },
		{ "xcap-session 1\nprotocol x11\n1 pointer 0 1 1 0 - - - -\n", "line 3: an RFB kind" },
		{ "xcap-session 1\nprotocol rfb\n1 motion 0 1 1 0 - - - -\n", "line 3: an X11 kind" },
		{ "xcap-session 1\nprotocol x11\n1 key-press 1 - - 0 - - -\n", "line 3: bad response" },
		{ "xcap-session 1\nprotocol x11\n1 key-press 1 - - 0 - - - - extra\n", "line 3: more fields" },
		{ "xcap-session 1\nprotocol x11\n1 key-press 4294967296 - - 0 - - - -\n", "line 3: bad code" },
		{ "xcap-session 1\nprotocol x11\n1 key-press 1 2147483648 0 0 - - - -\n", "line 3: bad root" },
		{ "xcap-session 1\nprotocol x11\n1 motion 0 - - 0 - - - -\n", "line 3: pointer input without" },
		{ "xcap-session 1\nprotocol x11\n1x key-press 1 - - 0 - - - -\n", "line 3: not a time" },
		{ "xcap-session 1\nprotocol x11\n1 key-press 1 - - 0 0xg - - -\n", "line 3: bad window" },
		{ "xcap-session 1\nprotocol x11\n1 wiggle 1 - - 0 - - - -\n", "line 3: unknown kind" },
		{ "xcap-session 1\nprotocol rfb\nscreen 800\n", "line 3: screen needs" },
		{ "xcap-session 1\nprotocol rfb\nencodings Tight Wavelet\n", "line 3: not an RFB encoding" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct xsession s;
		char err[256] = "";
		int rc = parse(bad[i].text, &s, err, sizeof err);
		if (!bad[i].err) {
			ck_assert_int_eq(rc, 0);
			xsession_free(&s);
			continue;
		}
		ck_assert_msg(rc == -1, "accepted: %s", bad[i].text);
		ck_assert_msg(strncmp(err, bad[i].err, strlen(bad[i].err)) == 0, "'%s' for %s", err,
			      bad[i].text);
		ck_assert_ptr_null(s.inputs);
	}
}
END_TEST

static void record(const char *capture, struct xsession *s)
{
	char path[1024], err[512];
	capture_path(path, sizeof path, capture);
	struct xsource *src = xsource_open(path, NULL, NULL, err, sizeof err);
	ck_assert_msg(src != NULL, "%s", err);
	struct xsess_record_opts o = { .conn = 0, .motion = 1 };
	ck_assert_msg(xsession_record(src, capture, &o, s, err, sizeof err) == 0, "%s", err);
	xsource_close(src);
}

/* The xterm capture: keys d, b, c (38, 56, 54), a click, a drag from
   50,50 to 100,70, Return; the window at 1,1 on the root. */
START_TEST(records_x11)
{
	struct xsession s;
	record("xterm-input.pcap", &s);
	ck_assert_int_eq(s.proto, XSESS_X11);
	ck_assert_str_eq(s.client, "xterm XTerm");
	ck_assert_uint_eq(s.n, 14);
	ck_assert_uint_eq(s.inputs[0].t, 0);
	ck_assert_uint_eq(s.inputs[0].kind, XSESS_KEY_PRESS);
	ck_assert_uint_eq(s.inputs[0].code, 38);
	ck_assert_int_eq(s.inputs[0].root_x, 50);
	ck_assert_int_eq(s.inputs[0].event_x, 49);
	ck_assert_uint_eq(s.inputs[0].window, 0x200018);
	ck_assert_uint_eq(s.inputs[6].kind, XSESS_BUTTON_PRESS);
	ck_assert_uint_eq(s.inputs[7].kind, XSESS_BUTTON_RELEASE);
	ck_assert_uint_eq(s.inputs[7].state, 0x100);	/* Button1 still down in its state */
	ck_assert_uint_eq(s.inputs[9].kind, XSESS_MOTION);
	ck_assert_int_eq(s.inputs[9].root_x, 80);
	ck_assert_int_eq(s.inputs[9].root_y, 60);
	ck_assert_uint_eq(s.inputs[13].kind, XSESS_KEY_RELEASE);
	ck_assert_uint_eq(s.inputs[13].code, 36);
	for (size_t i = 1; i < s.n; i++)
		ck_assert_uint_ge(s.inputs[i].t, s.inputs[i - 1].t);
	/* the keys' echo is drawing: a press or its release drew */
	ck_assert_int_gt(s.inputs[0].response + s.inputs[1].response, 0);

	/* written and read back, the same */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_int_eq(xsession_write(f, &s), 0);
	fclose(f);
	struct xsession again;
	char err[256];
	ck_assert_int_eq(xsession_parse((const uint8_t *)text, len, &again, err, sizeof err), 0);
	ck_assert_uint_eq(again.n, s.n);
	for (size_t i = 0; i < s.n; i++) {
		ck_assert_uint_eq(again.inputs[i].t / 1000, s.inputs[i].t / 1000);
		ck_assert_int_eq(memcmp(&again.inputs[i].kind, &s.inputs[i].kind,
					sizeof s.inputs[i] - offsetof(struct xsess_input, kind)), 0);
	}
	free(text);
	xsession_free(&again);
	xsession_free(&s);
}
END_TEST

/* The RFB capture: a 128x96 desktop 'small'; clicks at 40,40 then moves,
   and the key 'a' (keysym 0x61) down and up, five times over. */
START_TEST(records_rfb)
{
	struct xsession s;
	record("rfb-xvnc.pcap", &s);
	ck_assert_int_eq(s.proto, XSESS_RFB);
	ck_assert_uint_eq(s.screen_w, 128);
	ck_assert_uint_eq(s.screen_h, 96);
	ck_assert_uint_eq(s.n, 20);
	ck_assert_uint_eq(s.inputs[0].kind, XSESS_POINTER);
	ck_assert_int_eq(s.inputs[0].root_x, 40);
	ck_assert_uint_eq(s.inputs[0].state, 1);
	ck_assert_uint_eq(s.inputs[1].state, 0);
	ck_assert_uint_eq(s.inputs[3].kind, XSESS_KEY_PRESS);
	ck_assert_uint_eq(s.inputs[3].code, 0x61);
	ck_assert_int_eq(s.inputs[3].root_x, XSESS_UNKNOWN);
	ck_assert_uint_eq(s.inputs[4].kind, XSESS_KEY_RELEASE);
	/* its last SetEncodings before the first input */
	ck_assert_uint_eq(s.nencodings, 2);
	ck_assert_int_eq(s.encodings[0], 0);
	ck_assert_int_eq(s.encodings[1], -223);
	xsession_free(&s);
}
END_TEST

/* TigerVNC's viewer: QEMU's extended keys are key inputs, and what it asked
   for is kept, by name, and read back: the levels at the end (QualityLevel8,
   which the capture's detail gives as -24) too. */
START_TEST(records_tigervnc_encodings)
{
	struct xsession s, back;
	record("rfb-tigervnc-keys.pcap", &s);
	ck_assert_uint_eq(s.nencodings, 22);
	ck_assert_int_eq(s.encodings[0], -314);		/* CursorWithAlpha */
	ck_assert_int_eq(s.encodings[13], 7);		/* Tight */
	ck_assert_int_eq(s.encodings[20], -256 + 2);	/* CompressLevel2 */
	ck_assert_int_eq(s.encodings[21], -32 + 8);	/* QualityLevel8 */
	ck_assert_uint_eq(s.inputs[4].kind, XSESS_KEY_PRESS);
	ck_assert_uint_eq(s.inputs[4].code, 0x61);
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_int_eq(xsession_write(f, &s), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "\nencodings CursorWithAlpha VMwareCursor "));
	ck_assert_ptr_nonnull(strstr(buf, " Raw CompressLevel2 QualityLevel8\n"));
	ck_assert_int_eq(xsession_parse((const uint8_t *)buf, len, &back, err, sizeof err), 0);
	ck_assert_uint_eq(back.nencodings, s.nencodings);
	ck_assert_mem_eq(back.encodings, s.encodings, s.nencodings * sizeof s.encodings[0]);
	free(buf);
	xsession_free(&back);
	xsession_free(&s);
}
END_TEST

/* No inputs, or no such connection: an error, not an empty session. */
START_TEST(records_nothing)
{
	char path[1024], err[512];
	capture_path(path, sizeof path, "xdpyinfo-xlogo.pcap");
	struct xsource *src = xsource_open(path, NULL, NULL, err, sizeof err);
	ck_assert_ptr_nonnull(src);
	struct xsession s;
	struct xsess_record_opts o = { .conn = 0, .motion = 1 };
	ck_assert_int_eq(xsession_record(src, "x", &o, &s, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "no inputs") != NULL, "%s", err);
	xsource_close(src);
	capture_path(path, sizeof path, "xterm-input.pcap");
	src = xsource_open(path, NULL, NULL, err, sizeof err);
	o.conn = 99;
	ck_assert_int_eq(xsession_record(src, "x", &o, &s, err, sizeof err), -1);
	ck_assert_msg(strstr(err, "no such connection") != NULL, "%s", err);
	xsource_close(src);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("session");
	TCase *tc = tcase_create("session");
	tcase_add_test(tc, reads_inputs);
	tcase_add_test(tc, refuses_bad_lines);
	tcase_add_test(tc, records_x11);
	tcase_add_test(tc, records_rfb);
	tcase_add_test(tc, records_tigervnc_encodings);
	tcase_add_test(tc, records_nothing);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
