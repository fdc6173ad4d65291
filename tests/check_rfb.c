/*
 * check_rfb.c — the RFB decoder on conversations built byte by byte: the
 * handshakes, each encoding's framing (a Bell after each update proves the
 * framing came out exactly at the update's end), request/reply matching,
 * holes and byte-at-a-time feeding.
 */
#include "config.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

struct seen {
	enum proto_dir dir;
	enum proto_kind kind;
	unsigned flags;
	uint64_t seq, length, end;
	char name[64], detail[PROTO_DETAIL_MAX];
};

static struct seen msgs[256];
static size_t n_msgs;
static char notes[4096];
static char names[1024];

static void append(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
}

static void on_message(void *ctx, const struct proto_msg *m)
{
	(void)ctx;
	ck_assert_uint_lt(n_msgs, sizeof msgs / sizeof msgs[0]);
	struct seen *s = &msgs[n_msgs++];
	s->dir = m->dir;
	s->kind = m->kind;
	s->flags = m->flags;
	s->seq = m->seq;
	s->length = m->length;
	s->end = m->stream_end;
	snprintf(s->name, sizeof s->name, "%s", m->name ? m->name : "");
	snprintf(s->detail, sizeof s->detail, "%s", m->detail);
}

static void on_extension(void *ctx, const char *name, uint8_t major, uint8_t ev, uint8_t er)
{
	(void)ctx;
	(void)name;
	(void)major;
	(void)ev;
	(void)er;
}

static void on_name(void *ctx, const char *source, const char *text)
{
	(void)ctx;
	append(names, sizeof names, "%s=%s;", source, text);
}

static void on_note(void *ctx, enum proto_dir dir, const char *text)
{
	(void)ctx;
	append(notes, sizeof notes, "%s: %s\n", dir == PROTO_C2S ? "c2s" : "s2c", text);
}

static struct proto_decoder *dec;
static int one_byte_at_a_time;

static void setup(void)
{
	static const struct proto_sink sink = { .message = on_message, .extension = on_extension,
						.client_name = on_name, .note = on_note };
	n_msgs = 0;
	notes[0] = names[0] = '\0';
	dec = proto_rfb.create(&sink);
	ck_assert_ptr_nonnull(dec);
}

static void teardown(void)
{
	proto_rfb.destroy(dec);
}

/* ---- building bytes ---- */

struct bytes {
	uint8_t b[70000];
	size_t n;
};

static struct bytes out;

static void u8(unsigned v) { out.b[out.n++] = (uint8_t)v; }
static void u16(unsigned v) { u8(v >> 8); u8(v & 0xff); }
static void u32(uint32_t v) { u16(v >> 16); u16(v & 0xffff); }
static void s32(int32_t v) { u32((uint32_t)v); }
static void raw(const char *s, size_t n) { memcpy(out.b + out.n, s, n); out.n += n; }
static void zeros(size_t n) { memset(out.b + out.n, 0, n); out.n += n; }

static void send(enum proto_dir dir)
{
	if (one_byte_at_a_time)
		for (size_t i = 0; i < out.n; i++)
			proto_rfb.feed(dec, dir, out.b + i, 1);
	else
		proto_rfb.feed(dec, dir, out.b, out.n);
	out.n = 0;
}

static void pixel_format(unsigned bpp, unsigned depth)
{
	u8(bpp); u8(depth); u8(0); u8(1);
	u16(255); u16(255); u16(255); u8(16); u8(8); u8(0);
	zeros(3);
}

/* The 3.8 handshake with security None, a 64x48 framebuffer of 32 bits a
   pixel, and SetEncodings asking for LastRect. */
static void handshake(void)
{
	raw("RFB 003.008\n", 12); send(PROTO_S2C);
	raw("RFB 003.008\n", 12); send(PROTO_C2S);
	u8(2); u8(1); u8(2); send(PROTO_S2C);
	u8(1); send(PROTO_C2S);
	u32(0); send(PROTO_S2C);
	u8(1); send(PROTO_C2S);
	u16(64); u16(48); pixel_format(32, 24); u32(4); raw("desk", 4); send(PROTO_S2C);
	u8(2); u8(0); u16(2); s32(-224); s32(7); send(PROTO_C2S);	/* seq 1 */
}

static const struct seen *last(enum proto_dir dir, size_t back)
{
	for (size_t i = n_msgs; i-- > 0;)
		if (msgs[i].dir == dir && back-- == 0)
			return &msgs[i];
	ck_abort_msg("no such message");
	return NULL;
}

static void fbur(int incremental)
{
	u8(3); u8(incremental); u16(0); u16(0); u16(64); u16(48); send(PROTO_C2S);
}

static void rect(unsigned x, unsigned y, unsigned w, unsigned h, int32_t enc)
{
	u16(x); u16(y); u16(w); u16(h); s32(enc);
}

/* An update with one rectangle whose data the caller writes, then a Bell:
   checks the update's length and that the Bell follows it. */
static void expect_update(size_t data_len)
{
	u8(2);	/* Bell */
	send(PROTO_S2C);
	const struct seen *bell = last(PROTO_S2C, 0);
	const struct seen *up = last(PROTO_S2C, 1);
	ck_assert_msg(!notes[0], "notes: %s", notes);
	ck_assert_str_eq(bell->name, "Bell");
	ck_assert_str_eq(up->name, "FramebufferUpdate");
	ck_assert_uint_eq(up->length, 4 + 12 + data_len);
	ck_assert_uint_eq(bell->end, up->end + 1);
}

static void update_header(unsigned nrects)
{
	u8(0); u8(0); u16(nrects);
}

START_TEST(handshake_38)
{
	handshake();
	ck_assert_uint_eq(n_msgs, 8);
	ck_assert_str_eq(msgs[0].name, "ProtocolVersion");
	ck_assert_int_eq(msgs[0].kind, PROTO_SETUP);
	ck_assert_str_eq(msgs[2].detail, "None,VncAuth");
	ck_assert_str_eq(msgs[6].name, "ServerInit");
	ck_assert_str_eq(names, "desktop-name=desk;");
	ck_assert_str_eq(msgs[7].name, "SetEncodings");
	ck_assert_str_eq(msgs[7].detail, "LastRect,Tight");
	ck_assert_uint_eq(msgs[7].seq, 1);
	ck_assert_int_eq(msgs[7].kind, PROTO_REQUEST);
	ck_assert_msg(!notes[0], "notes: %s", notes);
}
END_TEST

START_TEST(handshake_33_vncauth)
{
	raw("RFB 003.003\n", 12); send(PROTO_S2C);
	raw("RFB 003.003\n", 12); send(PROTO_C2S);
	u32(2); zeros(16); send(PROTO_S2C);	/* VncAuth and its challenge */
	zeros(16); u8(0); send(PROTO_C2S);	/* response, ClientInit */
	u32(0); u16(8); u16(8); pixel_format(16, 16); u32(0); send(PROTO_S2C);
	ck_assert_msg(!notes[0], "notes: %s", notes);
	ck_assert_uint_eq(n_msgs, 8);
	ck_assert_str_eq(last(PROTO_C2S, 0)->name, "ClientInit");
	ck_assert_str_eq(last(PROTO_C2S, 1)->name, "VncAuthResponse");
	ck_assert_str_eq(last(PROTO_S2C, 0)->name, "ServerInit");
	/* 16 bits a pixel now: a Raw 2x2 is 8 bytes */
	update_header(1); rect(0, 0, 2, 2, 0); zeros(8);
	expect_update(8);
}
END_TEST

START_TEST(security_failure_and_opaque)
{
	raw("RFB 003.008\n", 12); send(PROTO_S2C);
	raw("RFB 003.008\n", 12); send(PROTO_C2S);
	u8(0); u32(6); raw("nope!!", 6); send(PROTO_S2C);
	ck_assert_int_eq(last(PROTO_S2C, 0)->kind, PROTO_ERROR);
	ck_assert_ptr_nonnull(strstr(last(PROTO_S2C, 0)->detail, "nope!!"));
	teardown();
	setup();
	raw("RFB 003.008\n", 12); send(PROTO_S2C);
	raw("RFB 003.008\n", 12); send(PROTO_C2S);
	u8(1); u8(19); send(PROTO_S2C);
	u8(19); send(PROTO_C2S);
	u8(0); u8(2); zeros(40); send(PROTO_S2C);
	ck_assert_ptr_nonnull(strstr(notes, "VeNCrypt"));
	proto_rfb.end(dec, PROTO_S2C);
	ck_assert_ptr_nonnull(strstr(notes, "42 bytes after the security handshake not decoded"));
}
END_TEST

START_TEST(raw_copyrect_rre_corre)
{
	handshake();
	update_header(1); rect(0, 0, 3, 2, 0); zeros(24); expect_update(24);
	update_header(1); rect(0, 0, 3, 2, 1); u16(5); u16(6); expect_update(4);
	update_header(1); rect(0, 0, 8, 8, 2); u32(2); zeros(4); zeros(2 * 12); expect_update(8 + 24);
	update_header(1); rect(0, 0, 8, 8, 4); u32(3); zeros(4); zeros(3 * 8); expect_update(8 + 24);
}
END_TEST

START_TEST(hextile)
{
	handshake();
	/* 20x17: four tiles (16x16, 4x16, 16x1, 4x1) */
	update_header(1); rect(0, 0, 20, 17, 5);
	u8(1); zeros(16 * 16 * 4);		/* raw */
	u8(2 | 4 | 8); zeros(8); u8(2); zeros(4);	/* bg, fg, 2 plain subrects */
	u8(8 | 16); u8(1); zeros(6);		/* 1 coloured subrect */
	u8(0);					/* nothing: the last background */
	expect_update(1 + 1024 + 1 + 8 + 1 + 4 + 1 + 1 + 6 + 1);
}
END_TEST

START_TEST(zlib_zrle)
{
	handshake();
	update_header(1); rect(0, 0, 10, 10, 6); u32(5); zeros(5); expect_update(9);
	update_header(1); rect(0, 0, 10, 10, 16); u32(7); zeros(7); expect_update(11);
}
END_TEST

START_TEST(tight)
{
	handshake();
	/* fill: TPIXEL is 3 bytes at 32bpp depth 24 */
	update_header(1); rect(0, 0, 10, 10, 7); u8(0x80); zeros(3); expect_update(4);
	/* JPEG, compact length of two bytes: 200 = 0xc8 0x01 */
	update_header(1); rect(0, 0, 10, 10, 7); u8(0x90); u8(0xc8); u8(0x01); zeros(200);
	expect_update(3 + 200);
	/* basic copy, 2x2: 12 bytes, so a length follows (12 = 0x0c) */
	update_header(1); rect(0, 0, 2, 2, 7); u8(0x00); u8(12); zeros(12); expect_update(2 + 12);
	/* basic copy, 1x3: 9 bytes < 12, sent as they are */
	update_header(1); rect(0, 0, 1, 3, 7); u8(0x00); zeros(9); expect_update(1 + 9);
	/* palette of 2 on 16x4: 2 bytes a row, 8 bytes raw */
	update_header(1); rect(0, 0, 16, 4, 7); u8(0x40); u8(1); u8(1); zeros(6); zeros(8);
	expect_update(3 + 6 + 8);
	/* palette of 3 on 8x8: 64 bytes, length 64 */
	update_header(1); rect(0, 0, 8, 8, 7); u8(0x50); u8(1); u8(2); zeros(9); u8(64); zeros(64);
	expect_update(3 + 9 + 1 + 64);
	/* a three-byte compact length: 0x80|1, 0x80|0, 1 = 1 + 16384 */
	update_header(1); rect(0, 0, 64, 48, 7); u8(0x00); u8(0x81); u8(0x80); u8(0x01); zeros(16385);
	expect_update(4 + 16385);
	/* TightPNG: PNG data */
	update_header(1); rect(0, 0, 10, 10, -260); u8(0xa0); u8(5); zeros(5); expect_update(7);
}
END_TEST

START_TEST(trle)
{
	handshake();
	/* CPIXEL is 3 bytes; 20x16: two tiles, 16x16 and 4x16 */
	update_header(1); rect(0, 0, 20, 16, 15);
	u8(2); zeros(6); zeros(2 * 16);			/* palette 2: 1 bit, 2 bytes a row */
	u8(127); zeros(16);				/* reuse: 4 pixels -> 1 byte a row */
	expect_update(1 + 6 + 32 + 1 + 16);
	update_header(1); rect(0, 0, 4, 4, 15);
	u8(128); zeros(3); u8(9); zeros(3); u8(5);	/* plain RLE: 10 + 6 pixels */
	expect_update(1 + 4 + 4);
	update_header(1); rect(0, 0, 16, 16, 15);
	u8(130); zeros(6); u8(0x80); u8(255); u8(0);	/* 256 pixels: 1 + 255 + 0 */
	expect_update(1 + 6 + 3);
	update_header(1); rect(0, 0, 2, 1, 15); u8(0); zeros(6); expect_update(7);
}
END_TEST

START_TEST(pseudo_and_lastrect)
{
	handshake();
	u8(0); u8(0); u16(0xffff);
	rect(0, 0, 2, 2, -239); zeros(16 + 2);		/* Cursor: pixels and mask */
	rect(0, 0, 9, 2, -240); zeros(6 + 2 * 2 * 2);	/* XCursor */
	rect(0, 0, 2, 2, -314); s32(0); zeros(16);	/* CursorWithAlpha, raw */
	rect(0, 0, 64, 48, -308); u8(1); zeros(3); zeros(16);
	rect(0, 0, 0, 0, -307); u32(3); raw("new", 3);
	rect(3, 4, 0, 0, 0x574d5666);			/* VMware cursor position */
	rect(0, 0, 2, 2, 0x574d5664); u8(0); u8(0); zeros(2 * 16);	/* classic */
	rect(0, 0, 2, 1, 0x574d5664); u8(1); u8(0); zeros(8);	/* alpha */
	rect(0, 0, 0, 0, -224);
	u8(2); send(PROTO_S2C);
	ck_assert_msg(!notes[0], "notes: %s", notes);
	const struct seen *up = last(PROTO_S2C, 1);
	ck_assert_str_eq(up->name, "FramebufferUpdate");
	ck_assert_uint_eq(up->length, 4 + 9 * 12 + 18 + 14 + 20 + 20 + 7 + 34 + 10);
	ck_assert_str_eq(names, "desktop-name=desk;desktop-name=new;");
	ck_assert_ptr_nonnull(strstr(up->detail, "9 rects"));
}
END_TEST

START_TEST(requests_and_replies)
{
	handshake();
	update_header(0); send(PROTO_S2C);
	ck_assert_int_eq(last(PROTO_S2C, 0)->kind, PROTO_EVENT);	/* nothing asked */
	fbur(0);	/* seq 2 */
	fbur(1);	/* seq 3 */
	ck_assert_uint_eq(last(PROTO_C2S, 0)->flags & PROTO_F_WANTS_REPLY, PROTO_F_WANTS_REPLY);
	ck_assert_str_eq(last(PROTO_C2S, 1)->detail, "full 0,0 64x48");
	update_header(0); send(PROTO_S2C);
	ck_assert_int_eq(last(PROTO_S2C, 0)->kind, PROTO_REPLY);
	ck_assert_uint_eq(last(PROTO_S2C, 0)->seq, 3);	/* the newest: the one waited on */
	update_header(0); send(PROTO_S2C);
	ck_assert_int_eq(last(PROTO_S2C, 0)->kind, PROTO_EVENT);	/* both answered */
	u8(4); u8(1); u16(0); u32(0xff0d); send(PROTO_C2S);
	ck_assert_str_eq(last(PROTO_C2S, 0)->detail, "down keysym 0xff0d");
	u8(5); u8(3); u16(10); u16(20); send(PROTO_C2S);
	ck_assert_str_eq(last(PROTO_C2S, 0)->detail, "10,20 buttons 0x03");
	u8(6); zeros(3); s32(-12); zeros(12); send(PROTO_C2S);	/* ExtendedClipboard */
	ck_assert_uint_eq(last(PROTO_C2S, 0)->length, 20);
	u8(255); u8(0); u16(1); u32(0x61); u32(30); send(PROTO_C2S);
	ck_assert_str_eq(last(PROTO_C2S, 0)->name, "ExtendedKeyEvent");
	u8(248); zeros(3); u32(1); u8(2); zeros(2); send(PROTO_C2S);
	ck_assert_uint_eq(last(PROTO_C2S, 0)->length, 11);
	ck_assert_uint_eq(last(PROTO_C2S, 0)->seq, 8);
	ck_assert_msg(!notes[0], "notes: %s", notes);
}
END_TEST

START_TEST(byte_at_a_time)
{
	one_byte_at_a_time = 1;
	handshake();
	update_header(2); rect(0, 0, 20, 17, 5);
	u8(1); zeros(16 * 16 * 4); u8(0); u8(0); u8(0);
	rect(0, 0, 8, 8, 7); u8(0x50); u8(1); u8(2); zeros(9); u8(64); zeros(64);
	expect_update(1 + 1024 + 3 + 12 + 3 + 9 + 1 + 64);
	one_byte_at_a_time = 0;
}
END_TEST

START_TEST(holes)
{
	handshake();
	/* a hole inside Raw pixels: the framing holds */
	update_header(1); rect(0, 0, 10, 10, 0); zeros(100); send(PROTO_S2C);
	proto_rfb.gap(dec, PROTO_S2C, 200);
	zeros(100); u8(2); send(PROTO_S2C);
	ck_assert_msg(!notes[0], "notes: %s", notes);
	ck_assert_str_eq(last(PROTO_S2C, 0)->name, "Bell");
	ck_assert_uint_eq(last(PROTO_S2C, 1)->length, 4 + 12 + 400);
	ck_assert(last(PROTO_S2C, 1)->flags & PROTO_F_AFTER_GAP);
	/* a hole in the client's messages: found again, marked uncertain */
	proto_rfb.gap(dec, PROTO_C2S, 7);
	u8(5); u8(0); u16(1); u16(2); send(PROTO_C2S);
	u8(5); u8(0); u16(1); u16(2); send(PROTO_C2S);
	ck_assert_str_eq(last(PROTO_C2S, 0)->name, "PointerEvent");
	ck_assert(last(PROTO_C2S, 1)->flags & PROTO_F_UNCERTAIN);
	/* a hole in the server's headers: the rest is counted, not invented */
	size_t before = n_msgs;
	update_header(1); send(PROTO_S2C);
	proto_rfb.gap(dec, PROTO_S2C, 5);
	u8(2); u8(2); send(PROTO_S2C);
	ck_assert_uint_eq(n_msgs, before);
	proto_rfb.end(dec, PROTO_S2C);
	/* the update's 4-byte header, in no message now, and the 2 after */
	ck_assert_ptr_nonnull(strstr(notes, "s2c: 6 bytes not framed"));
}
END_TEST

START_TEST(mid_stream)
{
	u8(0); u8(0); u16(1); rect(0, 0, 1, 1, 0); zeros(4); send(PROTO_S2C);
	ck_assert_uint_eq(n_msgs, 0);
	ck_assert_ptr_nonnull(strstr(notes, "mid-connection"));
}
END_TEST

/* Regression (fuzz-rfb, fixed in 555ca6c): a pixel format whose colour
   shifts lie past the 32-bit pixel.  CPIXEL is then a whole pixel (4
   bytes): no byte of it is spare.  Before the fix a shift of 40 gave 3
   bytes (the mask's bits fell outside both tests) and a shift of 64 or
   more was an undefined shift. */
static void set_pixel_format_shifted(unsigned red_shift)
{
	u8(0); zeros(3);
	u8(32); u8(24); u8(0); u8(1);
	u16(255); u16(255); u16(255); u8(red_shift); u8(8); u8(0);
	zeros(3);
	send(PROTO_C2S);
}

START_TEST(cpixel_shift_past_pixel)
{
	handshake();
	static const unsigned shifts[] = { 40, 64, 255 };
	for (size_t i = 0; i < sizeof shifts / sizeof shifts[0]; i++) {
		set_pixel_format_shifted(shifts[i]);
		ck_assert_str_eq(last(PROTO_C2S, 0)->name, "SetPixelFormat");
		/* TRLE, one 1x1 tile, solid: a subencoding byte and one CPIXEL */
		update_header(1); rect(0, 0, 1, 1, 15); u8(1); zeros(4);
		expect_update(1 + 4);
		/* ZRLE's length prefix does not depend on CPIXEL: still framed */
		update_header(1); rect(0, 0, 1, 1, 16); u32(2); zeros(2);
		expect_update(4 + 2);
	}
}
END_TEST

/* Regression (fuzz-rfb, fixed in 555ca6c): a client direction that lost
   its framing, then given a hole of no bytes, ran its resynchronisation
   with no data: a memcpy from a null pointer (UBSan's nonnull-attribute
   under the sanitizer build).  The search must go on unharmed after it. */
START_TEST(lost_then_empty_gap)
{
	handshake();
	proto_rfb.gap(dec, PROTO_C2S, 3);	/* lost: searching, nothing buffered */
	proto_rfb.gap(dec, PROTO_C2S, 0);	/* run() with a null chunk while lost */
	u8(5); u8(0); u16(1); u16(2); send(PROTO_C2S);
	u8(5); u8(0); u16(1); u16(2); send(PROTO_C2S);
	ck_assert_str_eq(last(PROTO_C2S, 0)->name, "PointerEvent");
	ck_assert(last(PROTO_C2S, 0)->flags & PROTO_F_UNCERTAIN);
	ck_assert_ptr_nonnull(strstr(notes, "found again"));
}
END_TEST

/* Requests lost with a hole in the client direction: an update may answer
   one of them, so until an update answers a request that was seen, an
   update is not sure of its kind (found by rfb-lossy: the update after a
   lost segment of requests was called an unasked event). */
START_TEST(lost_requests_make_updates_uncertain)
{
	handshake();
	proto_rfb.gap(dec, PROTO_C2S, 10);
	u8(5); u8(0); u16(1); u16(2); send(PROTO_C2S);
	u8(5); u8(0); u16(1); u16(2); send(PROTO_C2S);
	update_header(0); send(PROTO_S2C);
	ck_assert_int_eq(last(PROTO_S2C, 0)->kind, PROTO_EVENT);
	ck_assert(last(PROTO_S2C, 0)->flags & PROTO_F_UNCERTAIN);
	fbur(1);
	update_header(0); send(PROTO_S2C);
	ck_assert_int_eq(last(PROTO_S2C, 0)->kind, PROTO_REPLY);
	ck_assert(last(PROTO_S2C, 0)->flags & PROTO_F_UNCERTAIN);
	fbur(1);
	update_header(0); send(PROTO_S2C);	/* in step again */
	ck_assert_int_eq(last(PROTO_S2C, 0)->kind, PROTO_REPLY);
	ck_assert_uint_eq(last(PROTO_S2C, 0)->flags & PROTO_F_UNCERTAIN, 0);
	/* unasked without ContinuousUpdates: it answers a request not seen */
	update_header(0); send(PROTO_S2C);
	ck_assert_int_eq(last(PROTO_S2C, 0)->kind, PROTO_EVENT);
	ck_assert(last(PROTO_S2C, 0)->flags & PROTO_F_UNCERTAIN);
	/* with ContinuousUpdates on, the server sends unasked: sure */
	u8(150); u8(1); u16(0); u16(0); u16(64); u16(48); send(PROTO_C2S);
	ck_assert_str_eq(last(PROTO_C2S, 0)->name, "EnableContinuousUpdates");
	update_header(0); send(PROTO_S2C);
	ck_assert_int_eq(last(PROTO_S2C, 0)->kind, PROTO_EVENT);
	ck_assert_uint_eq(last(PROTO_S2C, 0)->flags & PROTO_F_UNCERTAIN, 0);
}
END_TEST

static Suite *rfb_suite(void)
{
	Suite *s = suite_create("rfb");
	TCase *tc = tcase_create("decoder");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, handshake_38);
	tcase_add_test(tc, handshake_33_vncauth);
	tcase_add_test(tc, security_failure_and_opaque);
	tcase_add_test(tc, raw_copyrect_rre_corre);
	tcase_add_test(tc, hextile);
	tcase_add_test(tc, zlib_zrle);
	tcase_add_test(tc, tight);
	tcase_add_test(tc, trle);
	tcase_add_test(tc, pseudo_and_lastrect);
	tcase_add_test(tc, requests_and_replies);
	tcase_add_test(tc, byte_at_a_time);
	tcase_add_test(tc, holes);
	tcase_add_test(tc, mid_stream);
	tcase_add_test(tc, cpixel_shift_past_pixel);
	tcase_add_test(tc, lost_then_empty_gap);
	tcase_add_test(tc, lost_requests_make_updates_uncertain);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(rfb_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
