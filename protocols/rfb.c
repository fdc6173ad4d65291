/*
 * rfb.c — the RFB (VNC) decoder: frames every message of both directions
 * without decompressing anything.
 *
 * The catalogue (message types and their fixed layouts, encodings and
 * pseudo-encodings, security types) is data: protocols/rfb.def, compiled to
 * rfb_tables.c at build time.  Code is written here only where framing
 * needs a walk: the handshake, FramebufferUpdate's rectangles, Hextile's,
 * ZlibHex's and TRLE's tiles, Tight's control byte, filters and compact
 * lengths, the cursors' masks, gii's byte order.
 *
 * How RFB maps onto the trace's kinds (roles in a dialogue):
 *   PROTO_SETUP    the handshake, each direction (ProtocolVersion, security,
 *                  ClientInit/ServerInit)
 *   PROTO_REQUEST  every client message, numbered 1, 2, ... after ClientInit
 *                  as X11 numbers requests (afresh from the next thousand
 *                  after bytes lost: see renumber()); FramebufferUpdateRequest
 *                  carries PROTO_F_WANTS_REPLY
 *   PROTO_REPLY    a FramebufferUpdate that begins while update requests are
 *                  outstanding.  It answers all of them (TigerVNC and
 *                  libvncserver merge pending requests into one region and
 *                  clear it when they send an update), and its seq is the
 *                  NEWEST outstanding request's: the one after which a
 *                  client in the pull loop falls silent, from which the state
 *                  model measures Block Reply (an update carrying an older
 *                  request's number would leave that wait unmatched).
 *   PROTO_EVENT    every other server message, and an update that begins with
 *                  no request outstanding (ContinuousUpdates, or a server that
 *                  sends unprompted); seq is the last client message's number.
 *                  Without ContinuousUpdates such an update is flagged
 *                  PROTO_F_UNCERTAIN: it may answer a request not seen.
 *                  A FramebufferUpdate of pseudo-encodings alone (a cursor's
 *                  shape, a new size, LastRect) carries PROTO_F_NO_PIXELS:
 *                  it changes no pixel of the screen.
 *   PROTO_ERROR    a security or setup failure and its reason
 *   PROTO_UNKNOWN  not used for framed bytes: an unknown message type cannot
 *                  be framed in RFB (no length field), so the direction's
 *                  framing is lost there and the bytes are counted as such
 *
 * A direction is a resumable sequence of units: the step functions below
 * parse one unit from the bytes buffered so far (through a bounds-checked
 * cursor; an overrun means "wait for more"), and bulk data whose length is
 * known (pixels, zlib data, cut text past what a detail shows) is skipped
 * without being buffered.
 *
 * Belongs to: libprotocols, the protocol decoders (protocols/).
 */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "protocol.h"
#include "rfb_tables.h"

/* The largest unit buffered whole: a Hextile tile is at most 1540 bytes, a
   TRLE tile's runs a few KiB; a layout message's varying part is buffered
   only as far as a detail shows (DETAIL_WANT) and the rest skipped. */
#define BUF_MAX (64u * 1024)
#define DETAIL_WANT 1024u
/* How many client bytes a lost direction keeps while it looks for
   message boundaries again. */
#define RESYNC_WINDOW 4096u
/* Bytes copied from a chunk into the buffer at a time, so bulk data after a
   small header is skipped in place rather than copied. */
#define TAKE_STEP 2048u

enum stage {
	ST_VERSION,
	ST_SEC_OFFER,		/* server: the security type (3.3) or the list */
	ST_SEC_CHOICE,		/* client 3.7+: its choice */
	ST_SEC_AFTER,		/* server 3.7+: waits for the client's choice */
	ST_CLIENT_AUTH,		/* client 3.3: waits for the server's type */
	ST_CHALLENGE,		/* server: VncAuth's 16 bytes */
	ST_RESPONSE,		/* client: VncAuth's 16 bytes */
	ST_SEC_RESULT,
	ST_CLIENT_INIT,
	ST_SERVER_INIT,
	ST_MESSAGES,
	ST_UPDATE,		/* server: inside a FramebufferUpdate */
	ST_MSG_DONE,		/* the message ends where the skipped bytes end */
	ST_OPAQUE,		/* encrypted or not framed by design: counted only */
	ST_LOST,		/* framing lost: counted; the client side looks for it again */
	ST_CLOSED,		/* after a failure the server closes: anything more is counted */
};

struct pixfmt {
	bool known;
	uint8_t bpp;		/* bits */
	uint8_t depth;
	bool big_endian, true_colour;
	uint16_t max[3];
	uint8_t shift[3];
};

struct msg {
	enum proto_kind kind;
	unsigned flags;
	uint8_t major;
	uint16_t minor;
	uint64_t seq;
	uint64_t start;
	const char *name, *ext;
	char detail[PROTO_DETAIL_MAX];
};

/* Rectangles of one encoding in the update being framed. */
struct enc_stat {
	int32_t enc;
	uint32_t rects;
	uint64_t pixels, bytes;
};

enum rect_stage {
	R_HEADER, R_DATA, R_TILE, R_ALPHA_ENC, R_DONE,
};

struct update {
	uint32_t nrects, done;
	bool until_lastrect;	/* nrects 0xffff: a LastRect rectangle ends it */
	bool pixels;		/* a rectangle of a real encoding, not a pseudo-encoding */
	enum rect_stage rs;
	uint16_t x, y, w, h;
	int32_t enc;
	const struct rfb_encoding *e;
	uint32_t tile;		/* next tile of a Hextile/ZlibHex/TRLE rectangle */
	uint16_t trle_palette;	/* TRLE: the last palette's size, for reuse */
	uint64_t rect_start;
	struct enc_stat st[8];
	unsigned nst;
};

struct stream_dir {
	enum stage stage;
	uint8_t *buf;
	size_t len;
	uint64_t buf_off;	/* stream offset of buf[0] */
	uint64_t skip;		/* bytes to drop before the next unit */
	bool in_msg;
	struct msg m;
	bool waiting;		/* a step needs what the other direction will say */
	bool after_gap;
	unsigned uncertain;	/* messages still to mark uncertain after resynchronising */
	uint64_t unframed;	/* bytes counted but not framed */
	size_t rs_checked;	/* server, lost: buffered offsets already refused */
	uint64_t opaque;	/* bytes after an encrypting security type */
	uint64_t messages;
};

struct proto_decoder {
	struct proto_sink sink;
	struct stream_dir h[2];
	int version;		/* the effective minor version: 3, 7 or 8; 0 unknown */
	int server_version, client_version;	/* major * 1000 + minor; 0 unknown */
	int sec_type;		/* the security type in use, -1 not yet known */
	struct pixfmt pf, pending_pf;
	bool pf_pending;
	uint16_t fb_w, fb_h;
	uint64_t client_seq;	/* client messages after ClientInit */
	uint64_t *fbur;		/* outstanding FramebufferUpdateRequests, oldest first */
	size_t nfbur, fbur_cap, fbur_head;
	bool want_lastrect;
	/* The client direction lost bytes (a hole, a capture begun after the
	   connection, framing given up): requests may be missing from fbur,
	   so which request an update answers is not sure until an update
	   answers one that was seen (the server answers in order). */
	bool requests_unknown;
	/* The client direction lost bytes after its numbering began: how
	   many messages they held is not known, so the next message found
	   is numbered afresh, from the next thousand (see renumber()). */
	bool renumber;
	bool continuous;	/* the client enabled ContinuousUpdates */
	struct update up;
};

enum step { STEP_MORE, STEP_OK, STEP_FAIL };

static void note(struct proto_decoder *d, enum proto_dir dir, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void note(struct proto_decoder *d, enum proto_dir dir, const char *fmt, ...)
{
	char text[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (d->sink.note)
		d->sink.note(d->sink.ctx, dir, text);
}

static void dappend(char *detail, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void dappend(char *detail, const char *fmt, ...)
{
	size_t n = strlen(detail);
	if (n + 1 >= PROTO_DETAIL_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail + n, PROTO_DETAIL_MAX - n, fmt, ap);
	va_end(ap);
}

/* ---- the catalogue ---- */

static const struct rfb_encoding *encoding_find(int32_t n)
{
	size_t lo = 0, hi = rfb_nencodings;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct rfb_encoding *e = &rfb_encodings[mid];
		if (n < e->first)
			hi = mid;
		else if (n > e->last)
			lo = mid + 1;
		else
			return e;
	}
	return NULL;
}

static void encoding_name(int32_t n, char *out, size_t size)
{
	const struct rfb_encoding *e = encoding_find(n);
	if (!e)
		snprintf(out, size, "%ld", (long)n);
	else if (e->last > e->first)
		snprintf(out, size, "%s%ld", e->name, (long)n - e->first);
	else
		snprintf(out, size, "%s", e->name);
}

bool proto_rfb_encoding_number(const char *name, int32_t *n)
{
	char *end;
	long v = strtol(name, &end, 10);
	if (end != name && !*end && v >= INT32_MIN && v <= INT32_MAX) {
		*n = (int32_t)v;
		return true;
	}
	for (size_t i = 0; i < rfb_nencodings; i++) {
		const struct rfb_encoding *e = &rfb_encodings[i];
		size_t k = strlen(e->name);
		if (strncmp(name, e->name, k) != 0)
			continue;
		if (!name[k] && e->last == e->first) {
			*n = e->first;
			return true;
		}
		/* a level of a family: its name and the level's number */
		unsigned long level = name[k] >= '0' && name[k] <= '9' ? strtoul(name + k, &end, 10) : 0;
		if (e->last > e->first && name[k] && !*end && level <= (unsigned long)(e->last - e->first)) {
			*n = e->first + (int32_t)level;
			return true;
		}
	}
	return false;
}

void proto_rfb_encoding_name(int32_t n, char *out, size_t size)
{
	encoding_name(n, out, size);
}

bool proto_rfb_encoding_framed(int32_t n)
{
	return encoding_find(n) != NULL;
}

static const struct rfb_security *security_find(int type)
{
	for (size_t i = 0; i < rfb_nsecurities; i++)
		if (rfb_securities[i].type == type)
			return &rfb_securities[i];
	return NULL;
}

/* The message of a direction whose first bytes the cursor holds; NULL
   when unknown, and *more when the bytes that decide are not there yet. */
static const struct rfb_message *message_find(enum proto_dir dir, const struct cursor *c, bool *more)
{
	bool ok = true;
	uint8_t type = cursor_peek_u8(c, 0, &ok);
	int16_t i = rfb_message_by_type[dir][type];
	*more = !ok;
	if (!ok || i < 0)
		return NULL;
	for (size_t k = (size_t)i; k < rfb_nmessages[dir] && rfb_messages[dir][k].type == type; k++) {
		const struct rfb_message *m = &rfb_messages[dir][k];
		if (m->sub >= 0) {
			ok = true;
			uint8_t sub = cursor_peek_u8(c, 1, &ok);
			if (!ok) {
				*more = true;
				return NULL;
			}
			if (sub != m->sub)
				continue;
		}
		if (m->op >= 0) {
			ok = true;
			uint16_t op = cursor_peek_be16(c, 2, &ok);
			if (!ok) {
				*more = true;
				return NULL;
			}
			if (op != m->op)
				continue;
		}
		return m;
	}
	return NULL;
}

/* The length a layout gives the bytes at the cursor's start; false when
   the count field is not there yet. */
static bool layout_length(const struct rfb_layout *l, const struct cursor *c, uint64_t *len)
{
	bool ok = true;
	uint64_t count = 0;
	switch (l->count) {
	case RFB_COUNT_NONE:
		break;
	case RFB_COUNT_U8:
		count = cursor_peek_u8(c, l->count_off, &ok);
		break;
	case RFB_COUNT_U16:
		count = cursor_peek_be16(c, l->count_off, &ok);
		break;
	case RFB_COUNT_U32:
		count = cursor_peek_be32(c, l->count_off, &ok);
		break;
	case RFB_COUNT_S32_MAGNITUDE: {
		uint32_t v = cursor_peek_be32(c, l->count_off, &ok);
		count = v & 0x80000000u ? (uint64_t)(~v) + 1 : v;
		break;
	}
	}
	*len = l->fixed + count * l->elem;
	return ok;
}

/* ---- pixel formats ---- */

static bool pixfmt_read(struct cursor *c, struct pixfmt *pf)
{
	pf->bpp = cursor_u8(c);
	pf->depth = cursor_u8(c);
	pf->big_endian = cursor_u8(c) != 0;
	pf->true_colour = cursor_u8(c) != 0;
	for (int i = 0; i < 3; i++)
		pf->max[i] = cursor_be16(c);
	for (int i = 0; i < 3; i++)
		pf->shift[i] = cursor_u8(c);
	cursor_skip(c, 3);
	pf->known = !c->overrun;
	return pf->known && (pf->bpp == 8 || pf->bpp == 16 || pf->bpp == 32);
}

static unsigned bytes_pp(const struct pixfmt *pf)
{
	return pf->bpp / 8u;
}

/* Tight's TPIXEL: 3 bytes for 32-bit true colour of depth 24 with 8 bits
   a channel, else a whole pixel. */
static unsigned tight_pixel(const struct pixfmt *pf)
{
	if (pf->true_colour && pf->bpp == 32 && pf->depth == 24 &&
	    pf->max[0] == 255 && pf->max[1] == 255 && pf->max[2] == 255)
		return 3;
	return bytes_pp(pf);
}

/* ZRLE's and TRLE's CPIXEL: 3 bytes for 32-bit true colour of depth 24 or
   less whose colours all fit in the least or the most significant three
   bytes, else a whole pixel. */
static unsigned cpixel(const struct pixfmt *pf)
{
	if (!pf->true_colour || pf->bpp != 32 || pf->depth > 24)
		return bytes_pp(pf);
	uint64_t mask = 0;
	for (int i = 0; i < 3; i++) {
		if (pf->shift[i] >= 32)
			return 4;	/* a colour outside the pixel: no bytes to spare */
		mask |= (uint64_t)pf->max[i] << pf->shift[i];
	}
	if ((mask & 0xff000000u) == 0 || (mask & 0xffu) == 0)
		return 3;
	return 4;
}

static void pixfmt_detail(const struct pixfmt *pf, char *detail)
{
	dappend(detail, "%ubpp depth %u %s %s-endian", pf->bpp, pf->depth,
		pf->true_colour ? "true-colour" : "colour-map", pf->big_endian ? "big" : "little");
}

/* ---- messages ---- */

static void msg_begin(struct proto_decoder *d, enum proto_dir dir, enum proto_kind kind,
		      const char *name, const char *ext, uint8_t major)
{
	struct stream_dir *h = &d->h[dir];
	memset(&h->m, 0, sizeof h->m);
	h->in_msg = true;
	h->m.kind = kind;
	h->m.name = name;
	h->m.ext = ext;
	h->m.major = major;
	h->m.start = h->buf_off;
	h->m.seq = d->client_seq;
	if (h->after_gap) {
		h->m.flags |= PROTO_F_AFTER_GAP | PROTO_F_UNCERTAIN;
		h->after_gap = false;
	}
	if (h->uncertain) {
		h->m.flags |= PROTO_F_UNCERTAIN;
		h->uncertain--;
	}
}

/* The message ends at the buffer's start (after what was consumed). */
static void msg_end(struct proto_decoder *d, enum proto_dir dir)
{
	struct stream_dir *h = &d->h[dir];
	struct proto_msg out;
	memset(&out, 0, sizeof out);
	out.dir = dir;
	out.kind = h->m.kind;
	out.flags = h->m.flags;
	out.major = h->m.major;
	out.minor = h->m.minor;
	out.seq = h->m.seq;
	out.length = h->buf_off - h->m.start;
	out.stream_end = h->buf_off;
	out.name = h->m.name;
	out.ext = h->m.ext;
	memcpy(out.detail, h->m.detail, sizeof out.detail);
	h->in_msg = false;
	h->messages++;
	if (d->sink.message)
		d->sink.message(d->sink.ctx, &out);
}

static void consume(struct stream_dir *h, size_t n)
{
	memmove(h->buf, h->buf + n, h->len - n);
	h->len -= n;
	h->buf_off += n;
}

/* Consume n bytes of the buffer and skip `more` bytes after them; the
   message ends after those (or at once when none), and the direction goes
   on at `next` (after skipped bytes always ST_MESSAGES: only ServerInit's
   name and messages are skipped into). */
static void finish_after(struct proto_decoder *d, enum proto_dir dir, size_t n, uint64_t more,
			 enum stage next)
{
	struct stream_dir *h = &d->h[dir];
	consume(h, n);
	if (more) {
		h->skip = more;
		h->stage = ST_MSG_DONE;
		return;
	}
	msg_end(d, dir);
	h->stage = next;
}

/* ---- the handshake ---- */

/* The version a ProtocolVersion names, as major * 1000 + minor. */
static int version_number(const uint8_t *b, bool *ok)
{
	/* "RFB 003.008\n"; RealVNC's servers say 004.001 and 005.000 and then
	   go on as 3.8 does, up to security types of their own. */
	static const char pat[] = "RFB 000.000\n";
	int major = 0, minor = 0;
	for (int i = 0; i < 12; i++) {
		if (pat[i] == '0') {
			if (b[i] < '0' || b[i] > '9') {
				*ok = false;
				return 0;
			}
			if (i < 7)
				major = major * 10 + (b[i] - '0');
			else
				minor = minor * 10 + (b[i] - '0');
		} else if (b[i] != (uint8_t)pat[i]) {
			*ok = false;
			return 0;
		}
	}
	*ok = major >= 3 && major <= 5;
	return major * 1000 + minor;
}

/* 3.3 for the old minors (and UltraVNC's 3.4 and 3.6, which behave so),
   3.7, else 3.8 (Apple's 3.889 and RealVNC's 4.x and 5.x frame as 3.8). */
static int effective(int version)
{
	if (version >= 4000)
		return 8;
	int minor = version % 1000;
	return minor < 7 ? 3 : minor == 7 ? 7 : 8;
}

/* The most of a desktop name shown and given as the connection's label. */
enum { NAME_SHOW = 200 };

/* A desktop name's n bytes as text (control characters as '?'); when n is
   NAME_SHOW + 1 the last byte is the one after the cut, which is made on
   a character boundary. */
static void name_text(char text[NAME_SHOW + 1], const uint8_t *p, size_t n)
{
	size_t k = n <= NAME_SHOW ? n : NAME_SHOW;
	for (size_t i = 0; i < k; i++)
		text[i] = p[i] >= 32 && p[i] != 127 ? (char)p[i] : '?';
	text[n > NAME_SHOW ? proto_utf8_cut(text, k, p[k]) : k] = '\0';
}

static bool reason_string(struct cursor *c, char *detail, const char *what)
{
	uint32_t n = cursor_be32(c);
	if (c->overrun)
		return false;
	size_t show = n < 120 ? n : 120;
	const uint8_t *p = cursor_span(c, n);
	if (!p)
		return false;
	dappend(detail, "%s: '", what);
	for (size_t i = 0; i < show; i++)
		dappend(detail, "%c", p[i] >= 32 && p[i] < 127 ? p[i] : '?');
	dappend(detail, "'");
	return true;
}

static void security_name(int type, char *detail)
{
	const struct rfb_security *s = security_find(type);
	if (s)
		dappend(detail, "%s", s->name);
	else
		dappend(detail, "type %d", type);
}

/* After the security type is known: what each side does next. */
static enum stage after_security(struct proto_decoder *d, enum proto_dir dir, int type)
{
	const struct rfb_security *s = security_find(type);
	int kind = s ? s->kind : RFB_SEC_OPAQUE;
	if (kind == RFB_SEC_OPAQUE) {
		note(d, dir, "security type %d (%s) is not framed or encrypts: the rest of the "
			     "connection is not decoded", type, s ? s->name : "unknown");
		return ST_OPAQUE;
	}
	if (kind == RFB_SEC_VNCAUTH)
		return dir == PROTO_S2C ? ST_CHALLENGE : ST_RESPONSE;
	if (dir == PROTO_C2S)
		return ST_CLIENT_INIT;
	return d->version >= 8 ? ST_SEC_RESULT : ST_SERVER_INIT;
}

static enum step step_version(struct proto_decoder *d, enum proto_dir dir, struct cursor *c)
{
	struct stream_dir *h = &d->h[dir];
	const uint8_t *b = cursor_span(c, 12);
	if (!b)
		return STEP_MORE;
	bool ok = true;
	int version = version_number(b, &ok);
	if (!ok) {
		note(d, dir, "no RFB ProtocolVersion at the start: the capture began mid-connection "
			     "or this is not RFB");
		return STEP_FAIL;
	}
	msg_begin(d, dir, PROTO_SETUP, "ProtocolVersion", NULL, 0);
	dappend(h->m.detail, "%d.%d", version / 1000, version % 1000);
	if (dir == PROTO_S2C)
		d->server_version = version;
	else
		d->client_version = version;
	/* The client answers with the version both will speak. */
	if (d->client_version)
		d->version = effective(d->client_version);
	finish_after(d, dir, 12, 0, dir == PROTO_S2C ? ST_SEC_OFFER
			: (d->version >= 7 ? ST_SEC_CHOICE : ST_CLIENT_AUTH));
	return STEP_OK;
}

static enum step step_server_handshake(struct proto_decoder *d, struct cursor *c)
{
	struct stream_dir *h = &d->h[PROTO_S2C];
	switch (h->stage) {
	case ST_SEC_OFFER:
		if (!d->version) {
			h->waiting = true;	/* for the client's version */
			return STEP_MORE;
		}
		if (d->version == 3) {
			uint32_t type = cursor_be32(c);
			if (c->overrun)
				return STEP_MORE;
			if (type == 0) {
				msg_begin(d, PROTO_S2C, PROTO_ERROR, "SecurityFailure", NULL, 0);
				if (!reason_string(c, h->m.detail, "reason"))
					return STEP_MORE;
				finish_after(d, PROTO_S2C, c->pos, 0, ST_CLOSED);
				return STEP_OK;
			}
			msg_begin(d, PROTO_S2C, PROTO_SETUP, "SecurityType", NULL, 0);
			security_name((int)type, h->m.detail);
			d->sec_type = type > 255 ? 256 : (int)type;
			finish_after(d, PROTO_S2C, 4, 0, after_security(d, PROTO_S2C, d->sec_type));
			return STEP_OK;
		}
		{
			uint8_t n = cursor_u8(c);
			if (c->overrun)
				return STEP_MORE;
			if (n == 0) {
				msg_begin(d, PROTO_S2C, PROTO_ERROR, "SecurityFailure", NULL, 0);
				if (!reason_string(c, h->m.detail, "reason"))
					return STEP_MORE;
				finish_after(d, PROTO_S2C, c->pos, 0, ST_CLOSED);
				return STEP_OK;
			}
			const uint8_t *t = cursor_span(c, n);
			if (!t)
				return STEP_MORE;
			msg_begin(d, PROTO_S2C, PROTO_SETUP, "SecurityTypes", NULL, 0);
			for (unsigned i = 0; i < n; i++) {
				if (i)
					dappend(h->m.detail, ",");
				security_name(t[i], h->m.detail);
			}
			finish_after(d, PROTO_S2C, c->pos, 0, ST_SEC_AFTER);
			return STEP_OK;
		}
	case ST_SEC_AFTER:
		if (d->sec_type < 0) {
			h->waiting = true;	/* for the client's choice */
			return STEP_MORE;
		}
		h->stage = after_security(d, PROTO_S2C, d->sec_type);
		return STEP_OK;
	case ST_CHALLENGE:
		if (!cursor_skip(c, 16))
			return STEP_MORE;
		msg_begin(d, PROTO_S2C, PROTO_SETUP, "VncAuthChallenge", NULL, 0);
		finish_after(d, PROTO_S2C, 16, 0, ST_SEC_RESULT);
		return STEP_OK;
	case ST_SEC_RESULT: {
		uint32_t result = cursor_be32(c);
		if (c->overrun)
			return STEP_MORE;
		if (result == 0) {
			msg_begin(d, PROTO_S2C, PROTO_SETUP, "SecurityResult", NULL, 0);
			dappend(h->m.detail, "OK");
			finish_after(d, PROTO_S2C, 4, 0, ST_SERVER_INIT);
			return STEP_OK;
		}
		msg_begin(d, PROTO_S2C, PROTO_ERROR, "SecurityResult", NULL, 0);
		dappend(h->m.detail, result == 2 ? "too many attempts" : "failed");
		if (d->version >= 8) {
			dappend(h->m.detail, ", ");
			if (!reason_string(c, h->m.detail, "reason"))
				return STEP_MORE;
		}
		finish_after(d, PROTO_S2C, c->pos, 0, ST_CLOSED);
		return STEP_OK;
	}
	case ST_SERVER_INIT: {
		uint16_t w = cursor_be16(c), hgt = cursor_be16(c);
		struct pixfmt pf;
		bool good = pixfmt_read(c, &pf);
		uint32_t namelen = cursor_be32(c);
		if (c->overrun)
			return STEP_MORE;
		size_t show = namelen < NAME_SHOW ? namelen : NAME_SHOW + 1;	/* and the next byte */
		const uint8_t *name = cursor_span(c, show);
		if (!name)
			return STEP_MORE;
		if (!good) {
			note(d, PROTO_S2C, "ServerInit gives %u bits a pixel: updates cannot be framed",
			     pf.bpp);
			return STEP_FAIL;
		}
		d->pf = pf;
		d->fb_w = w;
		d->fb_h = hgt;
		msg_begin(d, PROTO_S2C, PROTO_SETUP, "ServerInit", NULL, 0);
		char text[NAME_SHOW + 1];
		name_text(text, name, show);
		dappend(h->m.detail, "%ux%u ", w, hgt);
		pixfmt_detail(&pf, h->m.detail);
		dappend(h->m.detail, " '%s'", text);
		if (d->sink.client_name)
			d->sink.client_name(d->sink.ctx, "desktop-name", text);
		finish_after(d, PROTO_S2C, c->pos, namelen - show, ST_MESSAGES);
		return STEP_OK;
	}
	default:
		return STEP_FAIL;
	}
}

static enum step step_client_handshake(struct proto_decoder *d, struct cursor *c)
{
	struct stream_dir *h = &d->h[PROTO_C2S];
	switch (h->stage) {
	case ST_SEC_CHOICE: {
		uint8_t type = cursor_u8(c);
		if (c->overrun)
			return STEP_MORE;
		msg_begin(d, PROTO_C2S, PROTO_SETUP, "SecurityType", NULL, 0);
		security_name(type, h->m.detail);
		d->sec_type = type;
		finish_after(d, PROTO_C2S, 1, 0, after_security(d, PROTO_C2S, type));
		return STEP_OK;
	}
	case ST_CLIENT_AUTH:
		if (d->sec_type < 0) {
			h->waiting = true;	/* for the server's type (3.3) */
			return STEP_MORE;
		}
		h->stage = after_security(d, PROTO_C2S, d->sec_type);
		return STEP_OK;
	case ST_RESPONSE:
		if (!cursor_skip(c, 16))
			return STEP_MORE;
		msg_begin(d, PROTO_C2S, PROTO_SETUP, "VncAuthResponse", NULL, 0);
		finish_after(d, PROTO_C2S, 16, 0, ST_CLIENT_INIT);
		return STEP_OK;
	case ST_CLIENT_INIT: {
		uint8_t shared = cursor_u8(c);
		if (c->overrun)
			return STEP_MORE;
		msg_begin(d, PROTO_C2S, PROTO_SETUP, "ClientInit", NULL, 0);
		dappend(h->m.detail, shared ? "shared" : "exclusive");
		finish_after(d, PROTO_C2S, 1, 0, ST_MESSAGES);
		return STEP_OK;
	}
	default:
		return STEP_FAIL;
	}
}

/* ---- client messages ---- */

/* Client messages are numbered by counting them; bytes lost in the client
   direction may have held any number of messages, so after a loss the
   count is not a fact.  Counting on would show it as one: the numbering
   restarts instead, visibly, at the thousand after the last number given
   (12 then 1001; 1500 then 2001), said in a note.  Numbers still grow,
   so the updates that answer requests pair with them as before. */
static void renumber(struct proto_decoder *d)
{
	d->renumber = false;
	d->client_seq = (d->client_seq / 1000 + 1) * 1000;
	note(d, PROTO_C2S, "client messages numbered afresh from %llu: how many the lost bytes held "
			   "is not known", (unsigned long long)d->client_seq + 1);
}

static void fbur_push(struct proto_decoder *d, uint64_t seq)
{
	if (d->nfbur == d->fbur_cap) {
		size_t cap = d->fbur_cap ? 2 * d->fbur_cap : 16;
		uint64_t *v = malloc(cap * sizeof *v);
		if (!v)
			return;	/* the request is not matched; nothing invented */
		for (size_t i = 0; i < d->nfbur; i++)
			v[i] = d->fbur[(d->fbur_head + i) % d->fbur_cap];
		free(d->fbur);
		d->fbur = v;
		d->fbur_cap = cap;
		d->fbur_head = 0;
	}
	d->fbur[(d->fbur_head + d->nfbur) % d->fbur_cap] = seq;
	d->nfbur++;
}

/* The detail of a client message, from its buffered first bytes. */
static void client_detail(struct proto_decoder *d, const struct rfb_message *m,
			  struct cursor c, uint64_t total, char *detail)
{
	uint8_t type = cursor_u8(&c);
	if (m->ext) {
		if (type == 255 && m->sub == 0) {
			cursor_skip(&c, 1);
			uint16_t down = cursor_be16(&c);
			uint32_t sym = cursor_be32(&c), code = cursor_be32(&c);
			dappend(detail, "%s keysym 0x%x keycode %u", down ? "down" : "up", sym, code);
		} else if (type == 253) {
			dappend(detail, "%llu bytes", (unsigned long long)total);
		}
		return;
	}
	switch (type) {
	case 0: {
		struct pixfmt pf;
		cursor_skip(&c, 3);
		if (pixfmt_read(&c, &pf)) {
			pixfmt_detail(&pf, detail);
			/* Updates already under way keep the old format. */
			d->pending_pf = pf;
			d->pf_pending = true;
		} else {
			dappend(detail, "unusable: %u bits a pixel", pf.bpp);
		}
		break;
	}
	case 2: {
		cursor_skip(&c, 1);
		uint16_t n = cursor_be16(&c);
		d->want_lastrect = false;
		for (unsigned i = 0; i < n; i++) {
			int32_t e = cursor_be32s(&c);
			if (c.overrun) {
				dappend(detail, ",+%u", n - i);
				break;
			}
			if (e == -224)
				d->want_lastrect = true;
			/* By name while names fit, then by number (a long list's
			   last ones are the levels, QualityLevel8 is -24), so that
			   what the viewer asked for is all there for a reader
			   (xcap-replay asks for it again); "+N" when not even
			   the numbers fit. */
			char name[48];
			encoding_name(e, name, sizeof name);
			size_t used = strlen(detail);
			if (used + strlen(name) + 12 >= PROTO_DETAIL_MAX)
				snprintf(name, sizeof name, "%ld", (long)e);
			if (used + strlen(name) + 8 >= PROTO_DETAIL_MAX) {
				dappend(detail, ",+%u", n - i);
				break;
			}
			dappend(detail, "%s%s", i ? "," : "", name);
		}
		break;
	}
	case 3: {
		uint8_t inc = cursor_u8(&c);
		uint16_t x = cursor_be16(&c), y = cursor_be16(&c), w = cursor_be16(&c), h = cursor_be16(&c);
		dappend(detail, "%s %u,%u %ux%u", inc ? "incremental" : "full", x, y, w, h);
		break;
	}
	case 4: {
		uint8_t down = cursor_u8(&c);
		cursor_skip(&c, 2);
		uint32_t sym = cursor_be32(&c);
		dappend(detail, "%s keysym 0x%x", down ? "down" : "up", sym);
		break;
	}
	case 5: {
		uint8_t buttons = cursor_u8(&c);
		uint16_t x = cursor_be16(&c), y = cursor_be16(&c);
		dappend(detail, "%u,%u buttons 0x%02x", x, y, buttons);
		break;
	}
	case 6: {
		cursor_skip(&c, 3);
		int32_t len = cursor_be32s(&c);
		if (len < 0)
			dappend(detail, "extended %llu bytes", (unsigned long long)(total - 8));
		else
			dappend(detail, "%ld bytes", (long)len);
		break;
	}
	case 150: {
		uint8_t on = cursor_u8(&c);
		uint16_t x = cursor_be16(&c), y = cursor_be16(&c), w = cursor_be16(&c), h = cursor_be16(&c);
		dappend(detail, "%s %u,%u %ux%u", on ? "on" : "off", x, y, w, h);
		if (!c.overrun)
			d->continuous = on != 0;
		break;
	}
	case 248: {
		cursor_skip(&c, 3);
		uint32_t flags = cursor_be32(&c);
		uint8_t n = cursor_u8(&c);
		dappend(detail, "flags 0x%x, %u bytes", flags, n);
		break;
	}
	case 251: {
		cursor_skip(&c, 1);
		uint16_t w = cursor_be16(&c), h = cursor_be16(&c);
		uint8_t n = cursor_u8(&c);
		dappend(detail, "%ux%u, %u screen%s", w, h, n, n == 1 ? "" : "s");
		break;
	}
	default:
		break;
	}
}

/* gii: u8 type, u8 endian-and-subtype (bit 7: big-endian), u16 length in
   that byte order, then length bytes. */
static bool gii_length(const struct cursor *c, uint64_t *len)
{
	bool ok = true;
	bool big = (cursor_peek_u8(c, 1, &ok) & 0x80) != 0;
	uint16_t n = cursor_peek_u16(c, 2, big, &ok);
	*len = 4u + n;
	return ok;
}

/* Frame one message of a layout: buffer its fixed part and as much of the
   rest as a detail shows, skip the remainder. */
static enum step step_layout_message(struct proto_decoder *d, enum proto_dir dir,
				     const struct rfb_message *m, struct cursor *c, enum proto_kind kind)
{
	struct stream_dir *h = &d->h[dir];
	uint64_t total;
	bool ok = m->walk == RFB_WALK_GII ? gii_length(c, &total) : layout_length(&m->layout, c, &total);
	if (!ok)
		return STEP_MORE;
	uint64_t want = m->walk == RFB_WALK_GII ? 4 : m->layout.fixed + DETAIL_WANT;
	if (want > total)
		want = total;
	if (cursor_left(c) < want)
		return STEP_MORE;
	msg_begin(d, dir, kind, m->name, m->ext, m->type);
	if (m->sub >= 0)
		h->m.minor = (uint16_t)(m->op >= 0 ? m->sub << 8 | m->op : m->sub);
	struct cursor part = cursor_init(h->buf, (size_t)want);
	if (dir == PROTO_C2S) {
		if (d->renumber)
			renumber(d);
		h->m.seq = ++d->client_seq;
		if (m->flags & RFB_MSG_WANTS_REPLY) {
			h->m.flags |= PROTO_F_WANTS_REPLY;
			fbur_push(d, h->m.seq);
		}
		client_detail(d, m, part, total, h->m.detail);
	} else {
		uint8_t type = cursor_u8(&part);
		if (type == 1) {
			cursor_skip(&part, 1);
			uint16_t first = cursor_be16(&part), n = cursor_be16(&part);
			dappend(h->m.detail, "first %u, %u colours", first, n);
		} else if (type == 3) {
			cursor_skip(&part, 3);
			int32_t len = cursor_be32s(&part);
			if (len < 0)
				dappend(h->m.detail, "extended %llu bytes", (unsigned long long)(total - 8));
			else
				dappend(h->m.detail, "%ld bytes", (long)len);
		} else if (type == 248) {
			cursor_skip(&part, 3);
			uint32_t flags = cursor_be32(&part);
			dappend(h->m.detail, "flags 0x%x, %u bytes", flags, cursor_u8(&part));
		} else if (type == 255 && total > 8) {
			dappend(h->m.detail, "%llu bytes", (unsigned long long)(total - 8));
		}
	}
	finish_after(d, dir, (size_t)want, total - want, ST_MESSAGES);
	return STEP_OK;
}

/* ---- FramebufferUpdate ---- */

static void stat_add(struct update *u, int32_t enc, uint64_t pixels, uint64_t bytes)
{
	unsigned i;
	for (i = 0; i < u->nst; i++)
		if (u->st[i].enc == enc)
			break;
	if (i == u->nst) {
		if (u->nst == sizeof u->st / sizeof u->st[0])
			i = u->nst - 1;	/* the last slot gathers the rest */
		else
			u->st[u->nst++] = (struct enc_stat){ enc, 0, 0, 0 };
	}
	u->st[i].rects++;
	u->st[i].pixels += pixels;
	u->st[i].bytes += bytes;
}

static void update_detail(struct proto_decoder *d, char *detail)
{
	struct update *u = &d->up;
	dappend(detail, "%u rect%s", u->done, u->done == 1 ? "" : "s");
	for (unsigned i = 0; i < u->nst; i++) {
		char name[48];
		encoding_name(u->st[i].enc, name, sizeof name);
		dappend(detail, "; %s %u %llupx %lluB", name, u->st[i].rects,
			(unsigned long long)u->st[i].pixels, (unsigned long long)u->st[i].bytes);
	}
}

/* The update's last rectangle is framed: its detail, and whether it
   carried pixels at all (an update of a cursor shape, a new size or
   LastRect alone changes nothing on the screen: PROTO_F_NO_PIXELS). */
static void update_end(struct proto_decoder *d)
{
	struct stream_dir *h = &d->h[PROTO_S2C];
	update_detail(d, h->m.detail);
	if (!d->up.pixels)
		h->m.flags |= PROTO_F_NO_PIXELS;
	msg_end(d, PROTO_S2C);
	h->stage = ST_MESSAGES;
}

static enum step step_update_start(struct proto_decoder *d, struct cursor *c)
{
	struct stream_dir *h = &d->h[PROTO_S2C];
	cursor_skip(c, 2);
	uint16_t n = cursor_be16(c);
	if (c->overrun)
		return STEP_MORE;
	if (d->pf_pending) {
		d->pf = d->pending_pf;
		d->pf_pending = false;
	}
	bool answers = d->nfbur > 0;
	msg_begin(d, PROTO_S2C, answers ? PROTO_REPLY : PROTO_EVENT, "FramebufferUpdate", NULL, 0);
	if (d->requests_unknown) {
		h->m.flags |= PROTO_F_UNCERTAIN;
		d->requests_unknown = !answers;
	}
	/* Without ContinuousUpdates a server sends updates only when asked:
	   one with no request outstanding answers a request this decoder did
	   not see (lost before the capture said so, as when a client segment
	   is missing and the hole shows only with the client's next segment)
	   or one an earlier update was taken to answer. */
	if (!answers && !d->continuous)
		h->m.flags |= PROTO_F_UNCERTAIN;
	if (answers) {
		h->m.seq = d->fbur[(d->fbur_head + d->nfbur - 1) % d->fbur_cap];
		d->nfbur = 0;
		d->fbur_head = 0;
	}
	memset(&d->up, 0, sizeof d->up);
	d->up.nrects = n;
	d->up.until_lastrect = n == 0xffff && d->want_lastrect;
	d->up.rs = R_HEADER;
	consume(h, 4);
	h->stage = ST_UPDATE;
	return STEP_OK;
}

static void rect_done(struct proto_decoder *d)
{
	struct update *u = &d->up;
	struct stream_dir *h = &d->h[PROTO_S2C];
	/* A pseudo-encoding's width and height are a cursor's, a new size's:
	   no pixel of the screen. */
	bool pseudo = u->e && u->e->pseudo;
	stat_add(u, u->enc, pseudo ? 0 : (uint64_t)u->w * u->h, h->buf_off - u->rect_start);
	u->pixels |= !pseudo;
	u->done++;
	u->rs = R_HEADER;
}

/* Tight's compact length: 1 to 3 bytes, 7 bits each but the third's 8. */
static bool compact_length(struct cursor *c, uint32_t *len)
{
	uint32_t v = 0;
	for (int i = 0; i < 3; i++) {
		uint8_t b = cursor_u8(c);
		if (c->overrun)
			return false;
		if (i == 2) {
			v |= (uint32_t)b << 14;
			break;
		}
		v |= (uint32_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			break;
	}
	*len = v;
	return true;
}

/* A Tight (or TightPNG) rectangle: the control byte, the fill colour, the
   filter and palette, then the data length; the data is skipped. */
static enum step walk_tight(struct proto_decoder *d, struct cursor *c, bool png, uint64_t *skip)
{
	struct update *u = &d->up;
	unsigned tp = tight_pixel(&d->pf);
	uint8_t ctl = cursor_u8(c);
	if (c->overrun)
		return STEP_MORE;
	unsigned comp = ctl >> 4;
	uint32_t len;
	if (comp == 8) {		/* fill */
		cursor_skip(c, tp);
		*skip = 0;
		return c->overrun ? STEP_MORE : STEP_OK;
	}
	if (comp == 9 || (comp == 10 && png)) {	/* JPEG, PNG */
		if (!compact_length(c, &len))
			return STEP_MORE;
		*skip = len;
		return STEP_OK;
	}
	if (comp > 7) {
		note(d, PROTO_S2C, "Tight control byte 0x%02x is not a compression type", ctl);
		return STEP_FAIL;
	}
	uint64_t row = (uint64_t)u->w * tp;
	if (comp & 4) {			/* an explicit filter */
		uint8_t filter = cursor_u8(c);
		if (c->overrun)
			return STEP_MORE;
		if (filter == 1) {	/* palette */
			unsigned ncolours = cursor_u8(c) + 1u;
			cursor_skip(c, (size_t)ncolours * tp);
			if (c->overrun)
				return STEP_MORE;
			row = ncolours == 2 ? (u->w + 7u) / 8u : u->w;
		} else if (filter > 2) {
			note(d, PROTO_S2C, "Tight filter %u is not copy, palette or gradient", filter);
			return STEP_FAIL;
		}
	}
	uint64_t size = row * u->h;
	/* Less than 12 bytes are sent as they are, with no length. */
	if (size < 12) {
		*skip = size;
		return STEP_OK;
	}
	if (!compact_length(c, &len))
		return STEP_MORE;
	*skip = len;
	return STEP_OK;
}

static uint32_t tiles_in(const struct update *u, unsigned edge)
{
	return ((u->w + edge - 1u) / edge) * ((u->h + edge - 1u) / edge);
}

static void tile_size(const struct update *u, unsigned edge, unsigned *tw, unsigned *th)
{
	uint32_t across = (u->w + edge - 1u) / edge;
	uint32_t tx = u->tile % across, ty = u->tile / across;
	*tw = u->w - tx * edge < edge ? u->w - tx * edge : edge;
	*th = u->h - ty * edge < edge ? u->h - ty * edge : edge;
}

/* One Hextile (or ZlibHex) tile. */
static enum step walk_hextile_tile(struct proto_decoder *d, struct cursor *c, bool zlibhex,
				   uint64_t *skip)
{
	unsigned bpp = bytes_pp(&d->pf), tw, th;
	tile_size(&d->up, 16, &tw, &th);
	uint8_t mask = cursor_u8(c);
	if (c->overrun)
		return STEP_MORE;
	*skip = 0;
	if (zlibhex && (mask & 0x60)) {
		/* ZlibRaw (32): the raw tile deflated; Zlib (64): the rest of
		   the Hextile tile deflated.  Either way a 16-bit length and
		   the data, as UltraVNC writes them. */
		uint16_t len = cursor_be16(c);
		if (c->overrun)
			return STEP_MORE;
		*skip = len;
		return STEP_OK;
	}
	if (mask & 1) {			/* Raw */
		*skip = (uint64_t)tw * th * bpp;
		return STEP_OK;
	}
	if (mask & 2)
		cursor_skip(c, bpp);
	if (mask & 4)
		cursor_skip(c, bpp);
	if (mask & 8) {
		unsigned n = cursor_u8(c);
		cursor_skip(c, (size_t)n * ((mask & 16 ? bpp : 0) + 2));
	}
	return c->overrun ? STEP_MORE : STEP_OK;
}

/* TRLE's run lengths: 1 plus the bytes, each 255 meaning more follow. */
static bool run_length(struct cursor *c, uint64_t *n)
{
	uint64_t v = 1;
	for (;;) {
		uint8_t b = cursor_u8(c);
		if (c->overrun)
			return false;
		v += b;
		if (b != 255)
			break;
	}
	*n = v;
	return true;
}

/* One TRLE tile (16x16). */
static enum step walk_trle_tile(struct proto_decoder *d, struct cursor *c, uint64_t *skip)
{
	struct update *u = &d->up;
	unsigned cp = cpixel(&d->pf), tw, th;
	tile_size(u, 16, &tw, &th);
	uint64_t pixels = (uint64_t)tw * th;
	uint8_t s = cursor_u8(c);
	if (c->overrun)
		return STEP_MORE;
	*skip = 0;
	if (s == 0) {
		*skip = pixels * cp;
		return STEP_OK;
	}
	if (s == 1) {
		cursor_skip(c, cp);
		return c->overrun ? STEP_MORE : STEP_OK;
	}
	if (s <= 16 || s == 127) {	/* packed palette, new or reused */
		unsigned p = s == 127 ? u->trle_palette : s;
		if (s == 127 && p < 2) {
			note(d, PROTO_S2C, "TRLE tile reuses a palette of %u colours", p);
			return STEP_FAIL;
		}
		if (s != 127)
			cursor_skip(c, (size_t)p * cp);
		unsigned bits = p <= 2 ? 1 : p <= 4 ? 2 : 4;
		*skip = ((uint64_t)tw * bits + 7) / 8 * th;
		if (c->overrun)
			return STEP_MORE;
		u->trle_palette = (uint16_t)p;
		return STEP_OK;
	}
	if (s < 127) {
		note(d, PROTO_S2C, "TRLE subencoding %u is not defined", s);
		return STEP_FAIL;
	}
	uint64_t covered = 0, n;
	if (s == 128) {			/* plain RLE */
		while (covered < pixels) {
			cursor_skip(c, cp);
			if (!run_length(c, &n))
				return STEP_MORE;
			covered += n;
		}
	} else {			/* palette RLE, new (130-255) or reused (129) */
		unsigned p = s == 129 ? u->trle_palette : s - 128u;
		if (s != 129)
			cursor_skip(c, (size_t)p * cp);
		while (covered < pixels) {
			uint8_t index = cursor_u8(c);
			if (c->overrun)
				return STEP_MORE;
			n = 1;
			if ((index & 0x80) && !run_length(c, &n))
				return STEP_MORE;
			covered += n;
		}
		if (c->overrun)
			return STEP_MORE;
		u->trle_palette = (uint16_t)p;
	}
	if (covered != pixels) {
		note(d, PROTO_S2C, "TRLE runs cover %llu pixels of a %llu-pixel tile",
		     (unsigned long long)covered, (unsigned long long)pixels);
		return STEP_FAIL;
	}
	return STEP_OK;
}

static enum step step_update(struct proto_decoder *d, struct cursor *c)
{
	struct stream_dir *h = &d->h[PROTO_S2C];
	struct update *u = &d->up;
	unsigned bpp = bytes_pp(&d->pf);
	uint64_t skip = 0;
	enum step r;

	switch (u->rs) {
	case R_HEADER:
		if (!u->until_lastrect && u->done >= u->nrects) {
			update_end(d);
			return STEP_OK;
		}
		u->x = cursor_be16(c);
		u->y = cursor_be16(c);
		u->w = cursor_be16(c);
		u->h = cursor_be16(c);
		u->enc = cursor_be32s(c);
		if (c->overrun)
			return STEP_MORE;
		u->e = encoding_find(u->enc);
		if (!u->e) {
			note(d, PROTO_S2C, "rectangle %u of a FramebufferUpdate has encoding %ld, which "
				"this decoder cannot frame", u->done + 1, (long)u->enc);
			return STEP_FAIL;
		}
		u->rect_start = h->buf_off;
		u->tile = 0;
		consume(h, 12);
		u->rs = u->e->walk == RFB_WALK_HEXTILE || u->e->walk == RFB_WALK_ZLIBHEX ||
			u->e->walk == RFB_WALK_TRLE ? R_TILE
			: u->e->walk == RFB_WALK_ALPHACURSOR ? R_ALPHA_ENC : R_DATA;
		return STEP_OK;
	case R_DATA:
		switch (u->e->walk) {
		case RFB_WALK_LAYOUT: {
			uint64_t total;
			if (!layout_length(&u->e->layout, c, &total))
				return STEP_MORE;
			if (u->enc == -307) {	/* DesktopName: the connection's new label */
				uint64_t show = total - 4 <= NAME_SHOW ? total - 4 : NAME_SHOW + 1;
				cursor_skip(c, 4);
				const uint8_t *p = cursor_span(c, (size_t)show);
				if (!p)
					return STEP_MORE;
				char text[NAME_SHOW + 1];
				name_text(text, p, (size_t)show);
				if (d->sink.client_name)
					d->sink.client_name(d->sink.ctx, "desktop-name", text);
				consume(h, c->pos);
				skip = total - c->pos;
			} else {
				skip = total;
			}
			if (u->enc == -223 || u->enc == -308) {
				d->fb_w = u->w;
				d->fb_h = u->h;
			}
			break;
		}
		case RFB_WALK_RAW:
			skip = (uint64_t)u->w * u->h * bpp;
			break;
		case RFB_WALK_RRE:
		case RFB_WALK_CORRE: {
			uint32_t n = cursor_be32(c);
			cursor_skip(c, bpp);
			if (c->overrun)
				return STEP_MORE;
			consume(h, c->pos);
			skip = (uint64_t)n * (bpp + (u->e->walk == RFB_WALK_RRE ? 8 : 4));
			break;
		}
		case RFB_WALK_TIGHT:
		case RFB_WALK_TIGHTPNG:
			r = walk_tight(d, c, u->e->walk == RFB_WALK_TIGHTPNG, &skip);
			if (r != STEP_OK)
				return r;
			consume(h, c->pos);
			break;
		case RFB_WALK_CURSOR:
			skip = (uint64_t)u->w * u->h * bpp + (uint64_t)((u->w + 7u) / 8u) * u->h;
			break;
		case RFB_WALK_XCURSOR:
			skip = u->w && u->h ? 6 + 2 * (uint64_t)((u->w + 7u) / 8u) * u->h : 0;
			break;
		case RFB_WALK_VMWARECURSOR: {
			/* A type byte and a padding byte; a classic cursor (0) is
			   an AND and an XOR mask of whole pixels, an alpha one (1)
			   RGBA at 4 bytes a pixel. */
			uint8_t type = cursor_u8(c);
			cursor_skip(c, 1);
			if (c->overrun)
				return STEP_MORE;
			if (type > 1) {
				note(d, PROTO_S2C, "VMware cursor of type %u is not framed", type);
				return STEP_FAIL;
			}
			consume(h, c->pos);
			skip = (uint64_t)u->w * u->h * (type == 0 ? 2u * bpp : 4u);
			break;
		}
		case RFB_WALK_LASTRECT:
			u->rs = R_DONE;
			rect_done(d);
			update_end(d);
			return STEP_OK;
		default:
			return STEP_FAIL;
		}
		h->skip = skip;
		u->rs = R_DONE;
		return STEP_OK;
	case R_ALPHA_ENC: {
		/* CursorWithAlpha: an encoding, then the cursor in it at 32 bits
		   a pixel.  Servers send Raw; others would need the walks with
		   another pixel format, which none sends. */
		int32_t enc = cursor_be32s(c);
		if (c->overrun)
			return STEP_MORE;
		if (enc != 0) {
			note(d, PROTO_S2C, "CursorWithAlpha in encoding %ld is not framed", (long)enc);
			return STEP_FAIL;
		}
		consume(h, 4);
		h->skip = (uint64_t)u->w * u->h * 4;
		u->rs = R_DONE;
		return STEP_OK;
	}
	case R_TILE: {
		unsigned edge = 16;
		if (u->tile >= tiles_in(u, edge)) {
			u->rs = R_DONE;
			return STEP_OK;
		}
		if (u->e->walk == RFB_WALK_TRLE)
			r = walk_trle_tile(d, c, &skip);
		else
			r = walk_hextile_tile(d, c, u->e->walk == RFB_WALK_ZLIBHEX, &skip);
		if (r != STEP_OK)
			return r;
		consume(h, c->pos);
		h->skip = skip;
		u->tile++;
		return STEP_OK;
	}
	case R_DONE:
		rect_done(d);
		return STEP_OK;
	}
	return STEP_FAIL;
}

/* ---- the message loop ---- */

static enum step step_messages(struct proto_decoder *d, enum proto_dir dir, struct cursor *c)
{
	bool more;
	const struct rfb_message *m = message_find(dir, c, &more);
	if (!m) {
		if (more)
			return STEP_MORE;
		bool ok = true;
		note(d, dir, "message type %u is not known: its length cannot be told",
		     cursor_peek_u8(c, 0, &ok));
		return STEP_FAIL;
	}
	if (m->walk == RFB_WALK_UPDATE)
		return step_update_start(d, c);
	return step_layout_message(d, dir, m, c, dir == PROTO_C2S ? PROTO_REQUEST : PROTO_EVENT);
}

static enum step step(struct proto_decoder *d, enum proto_dir dir)
{
	struct stream_dir *h = &d->h[dir];
	struct cursor c = cursor_init(h->buf, h->len);
	switch (h->stage) {
	case ST_VERSION:
		return step_version(d, dir, &c);
	case ST_MESSAGES:
		return step_messages(d, dir, &c);
	case ST_UPDATE:
		return step_update(d, &c);
	case ST_MSG_DONE:
		msg_end(d, dir);
		h->stage = ST_MESSAGES;
		return STEP_OK;
	default:
		return dir == PROTO_S2C ? step_server_handshake(d, &c) : step_client_handshake(d, &c);
	}
}

/* ---- losing and finding the framing ---- */

/* Whether bytes at c's start look like one client message; its length. */
static bool client_plausible(const struct proto_decoder *d, const struct cursor *c, uint64_t *len,
			     bool *strong)
{
	bool more;
	const struct rfb_message *m = message_find(PROTO_C2S, c, &more);
	if (!m || m->walk != RFB_WALK_LAYOUT || !layout_length(&m->layout, c, len))
		return false;
	if (*len > cursor_left(c))
		return false;
	bool ok = true;
	*strong = false;
	switch (m->type) {
	case 3: {
		uint8_t inc = cursor_peek_u8(c, 1, &ok);
		uint32_t x = cursor_peek_be16(c, 2, &ok), y = cursor_peek_be16(c, 4, &ok);
		uint32_t w = cursor_peek_be16(c, 6, &ok), h = cursor_peek_be16(c, 8, &ok);
		if (inc > 1 || (d->fb_w && (x + w > d->fb_w || y + h > d->fb_h)))
			return false;
		*strong = d->fb_w != 0;
		return ok;
	}
	case 4:
		/* Bytes 2-3 are padding: zeros there (what clients send) make a
		   KeyEvent strong evidence, anything else does not refuse one. */
		if (cursor_peek_u8(c, 1, &ok) > 1)
			return false;
		*strong = cursor_peek_be16(c, 2, &ok) == 0;
		return ok;
	case 5:
		if (d->fb_w && (cursor_peek_be16(c, 2, &ok) >= d->fb_w ||
				cursor_peek_be16(c, 4, &ok) >= d->fb_h))
			return false;
		return ok;
	case 6:
		return cursor_peek_u8(c, 1, &ok) == 0 && cursor_peek_be16(c, 2, &ok) == 0 && ok;
	case 2:
		return cursor_peek_u8(c, 1, &ok) == 0 && *len <= 4 + 4 * 64u && ok;
	default:
		return false;	/* too weak to resynchronise on */
	}
}

/* A lost client direction: find an offset from which whole plausible
   messages run exactly to the end of what is buffered (clients send
   messages whole, usually one a packet). */
static bool client_resync(struct proto_decoder *d)
{
	struct stream_dir *h = &d->h[PROTO_C2S];
	for (size_t i = 0; i < h->len; i++) {
		struct cursor c = cursor_init(h->buf + i, h->len - i);
		unsigned n = 0;
		bool strong = false, s;
		uint64_t len;
		while (cursor_left(&c) && client_plausible(d, &c, &len, &s)) {
			cursor_skip(&c, (size_t)len);
			c = cursor_init(c.base + c.pos, cursor_left(&c));
			strong |= s;
			n++;
		}
		if (n && !cursor_left(&c) && (n >= 2 || strong)) {
			note(d, PROTO_C2S, "message boundaries found again after %llu bytes not framed",
			     (unsigned long long)(h->unframed + i));
			h->unframed += i;
			consume(h, i);
			h->stage = ST_MESSAGES;
			h->uncertain = n;
			return true;
		}
	}
	return false;
}

/* Whether a rectangle header at c's start fits the framebuffer: a known
   encoding, and an area inside it (a pixel encoding's area not empty).
   Pseudo-encodings carry other things in x, y, w and h (a cursor's hot
   spot, a new size), so only their encoding counts, and they are weak. */
static bool rect_plausible(const struct proto_decoder *d, const struct cursor *c, size_t at,
			   bool *strong)
{
	bool ok = true;
	uint32_t x = cursor_peek_be16(c, at, &ok), y = cursor_peek_be16(c, at + 2, &ok);
	uint32_t w = cursor_peek_be16(c, at + 4, &ok), hgt = cursor_peek_be16(c, at + 6, &ok);
	const struct rfb_encoding *e = encoding_find((int32_t)cursor_peek_be32(c, at + 8, &ok));
	if (!ok || !e)
		return false;
	*strong = false;
	if (e->pseudo)
		return true;
	if (!w || !hgt || x + w > d->fb_w || y + hgt > d->fb_h)
		return false;
	*strong = true;
	return true;
}

/* Whether bytes at c's start look like one server message.  *len: its
   length, 0 for a FramebufferUpdate (only its walk tells); *strong: a
   FramebufferUpdate whose first rectangle (and second, when the first's
   length is plain and the bytes are there) fits the framebuffer.  *more:
   the bytes that decide are not all there yet.  Padding is not looked at:
   the protocol leaves it unused, whatever it holds. */
static bool server_plausible(const struct proto_decoder *d, const struct cursor *c, uint64_t *len,
			     bool *strong, bool *more)
{
	bool ok = true;
	*strong = *more = false;
	*len = 0;
	switch (cursor_peek_u8(c, 0, &ok)) {
	case 0: {	/* FramebufferUpdate: 4 bytes, then 12-byte rectangle headers */
		uint16_t n = cursor_peek_be16(c, 2, &ok);
		if (cursor_left(c) < 16) {
			*more = true;
			return false;
		}
		bool first;
		if (n == 0 || !rect_plausible(d, c, 4, &first) || !first)
			return false;
		const struct rfb_encoding *e = encoding_find((int32_t)cursor_peek_be32(c, 12, &ok));
		uint64_t data = e->walk == RFB_WALK_RAW ? (uint64_t)cursor_peek_be16(c, 8, &ok) *
			cursor_peek_be16(c, 10, &ok) * bytes_pp(&d->pf)
			: e->walk == RFB_WALK_LAYOUT && !e->layout.count ? e->layout.fixed : UINT64_MAX;
		if (n > 1 && n != 0xffff && data != UINT64_MAX) {
			bool second;
			if (16 + data + 12 > cursor_left(c)) {
				*more = 16 + data + 12 <= RESYNC_WINDOW;
				if (*more)
					return false;
			} else if (!rect_plausible(d, c, 16 + (size_t)data, &second)) {
				return false;
			}
		}
		*strong = true;
		return true;
	}
	case 2:		/* Bell */
		*len = 1;
		return true;
	case 3: {	/* ServerCutText: 3 unused bytes, a length, the text */
		uint32_t n = cursor_peek_be32(c, 4, &ok);
		*more = !ok;
		if (!ok || n > RESYNC_WINDOW)
			return false;
		*len = 8 + n;
		return true;
	}
	case 248: {	/* Fence: 3 unused bytes, flags, a length of at most 64 */
		uint32_t flags = cursor_peek_be32(c, 4, &ok);
		uint8_t n = cursor_peek_u8(c, 8, &ok);
		*more = !ok;
		if (!ok || (flags & 0x7ffffff8u) || n > 64)
			return false;
		*len = 9u + n;
		return true;
	}
	default:
		return false;
	}
}

/* A lost server direction: find the next message again.  Only a
   FramebufferUpdate whose rectangles fit the framebuffer is trusted; a
   Bell, ServerCutText or Fence only when such an update follows it.  Each
   message found so is flagged uncertain. */
static bool server_resync(struct proto_decoder *d)
{
	struct stream_dir *h = &d->h[PROTO_S2C];
	if (!d->pf.known || !d->fb_w)
		return false;	/* no ServerInit: nothing to measure rectangles by */
	for (size_t i = h->rs_checked; i < h->len; i++) {
		struct cursor c = cursor_init(h->buf + i, h->len - i);
		unsigned n = 0;
		bool strong = false, more = false, plausible;
		uint64_t len;
		while ((plausible = server_plausible(d, &c, &len, &strong, &more)) && !strong &&
		       len < cursor_left(&c) && n < 8) {
			cursor_skip(&c, (size_t)len);
			c = cursor_init(c.base + c.pos, cursor_left(&c));
			n++;
		}
		if (more || (plausible && !strong && len >= cursor_left(&c))) {
			h->rs_checked = i;	/* decided by bytes still to come */
			return false;
		}
		if (!strong)
			continue;
		note(d, PROTO_S2C, "message boundaries found again after %llu bytes not framed",
		     (unsigned long long)(h->unframed + i));
		h->unframed += i;
		consume(h, i);
		h->rs_checked = 0;
		h->stage = ST_MESSAGES;
		h->uncertain = n + 1;
		return true;
	}
	h->rs_checked = h->len;
	return false;
}

static void lose(struct proto_decoder *d, enum proto_dir dir)
{
	struct stream_dir *h = &d->h[dir];
	/* Lost at the very start (ST_VERSION: a capture begun mid-connection)
	   the numbering has not begun: it starts from 1, the note saying so. */
	if (dir == PROTO_C2S && h->stage != ST_LOST && h->stage != ST_VERSION)
		d->renumber = true;
	if (h->in_msg) {
		note(d, dir, "%s not framed to its end", h->m.name ? h->m.name : "a message");
		/* its bytes already consumed are in no message: count them */
		h->unframed += h->buf_off - h->m.start;
	}
	h->in_msg = false;
	h->stage = ST_LOST;
	h->rs_checked = 0;
	h->waiting = false;
	if (dir == PROTO_C2S)
		d->requests_unknown = true;
}

/* ---- the entry points ---- */

/* Keep bytes of a direction that waits for the other one. */
static void queue(struct proto_decoder *d, enum proto_dir dir, const uint8_t *data, size_t len)
{
	struct stream_dir *h = &d->h[dir];
	size_t room = BUF_MAX - h->len;
	size_t n = len < room ? len : room;
	if (n)
		memcpy(h->buf + h->len, data, n);
	h->len += n;
	if (n < len) {
		note(d, dir, "waited too long for the other direction: framing given up");
		lose(d, dir);
		h->unframed += h->len + (len - n);
		h->buf_off += h->len + (len - n);
		h->len = 0;
	}
}

static void run(struct proto_decoder *d, enum proto_dir dir, const uint8_t *data, size_t len)
{
	/* A hole's chunk may come as NULL with no length: walk an empty array
	   instead, so no offset is ever applied to a null pointer. */
	static const uint8_t nothing[1];
	if (!data)
		data = nothing;
	struct stream_dir *h = &d->h[dir];
	for (;;) {
		if (h->skip) {
			uint64_t n = h->skip < h->len ? h->skip : h->len;
			consume(h, (size_t)n);
			h->skip -= n;
			if (h->skip) {
				n = h->skip < len ? h->skip : len;
				h->skip -= n;
				h->buf_off += n;
				data += n;
				len -= (size_t)n;
				if (h->skip)
					return;
			}
		}
		if (h->stage == ST_OPAQUE || h->stage == ST_CLOSED) {
			uint64_t n = h->len + len;
			if (h->stage == ST_OPAQUE)
				h->opaque += n;
			else
				h->unframed += n;
			h->buf_off += n;
			h->len = 0;
			return;
		}
		if (h->stage == ST_LOST) {
			size_t n = len < RESYNC_WINDOW - h->len ? len : RESYNC_WINDOW - h->len;
			if (n) {	/* data may be NULL (a hole's empty chunk) */
				memcpy(h->buf + h->len, data, n);
				h->len += n;
				data += n;
				len -= n;
			}
			if (dir == PROTO_C2S ? client_resync(d) : server_resync(d))
				continue;
			if (h->len == RESYNC_WINDOW) {	/* the oldest half is given up */
				h->unframed += RESYNC_WINDOW / 2;
				consume(h, RESYNC_WINDOW / 2);
				h->rs_checked = h->rs_checked > RESYNC_WINDOW / 2 ?
					h->rs_checked - RESYNC_WINDOW / 2 : 0;
			}
			if (!len)
				return;
			continue;
		}
		h->waiting = false;
		enum step r = step(d, dir);
		if (r == STEP_OK)
			continue;
		if (r == STEP_FAIL) {
			lose(d, dir);
			continue;
		}
		if (h->waiting) {
			queue(d, dir, data, len);	/* until the other direction says more */
			return;
		}
		if (!len)
			return;
		size_t room = BUF_MAX - h->len;
		if (!room) {
			note(d, dir, "a unit of more than %u bytes: framing given up", BUF_MAX);
			lose(d, dir);
			continue;
		}
		size_t n = len < TAKE_STEP ? len : TAKE_STEP;
		if (n > room)
			n = room;
		memcpy(h->buf + h->len, data, n);
		h->len += n;
		data += n;
		len -= n;
	}
}

static struct proto_decoder *rfb_create(const struct proto_sink *sink)
{
	struct proto_decoder *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->sink = *sink;
	d->sec_type = -1;
	for (int i = 0; i < 2; i++) {
		d->h[i].buf = malloc(BUF_MAX);
		if (!d->h[i].buf) {
			free(d->h[0].buf);
			free(d);
			return NULL;
		}
	}
	return d;
}

static void rfb_feed(struct proto_decoder *d, enum proto_dir dir, const uint8_t *data, size_t len)
{
	if (d->h[dir].waiting)
		queue(d, dir, data, len);
	else
		run(d, dir, data, len);
	if (d->h[!dir].waiting)
		run(d, !dir, NULL, 0);
}

static void rfb_gap(struct proto_decoder *d, enum proto_dir dir, uint64_t len)
{
	struct stream_dir *h = &d->h[dir];
	if (h->skip >= len && h->len == 0) {
		/* Inside bytes whose length was known: the framing holds. */
		h->skip -= len;
		h->buf_off += len;
		if (h->in_msg)
			h->m.flags |= PROTO_F_AFTER_GAP;
		run(d, dir, NULL, 0);
		return;
	}
	if (h->stage == ST_OPAQUE || h->stage == ST_CLOSED) {
		h->buf_off += len;
		return;
	}
	uint64_t partial = h->len;
	if (h->stage != ST_LOST)
		note(d, dir, "a hole of %llu bytes%s; %s", (unsigned long long)len,
		     h->in_msg ? " inside a message" : "",
		     "searching for the next message");
	lose(d, dir);
	h->unframed += partial;
	h->buf_off += partial + len;	/* the hole begins after what is buffered */
	h->len = 0;
	h->skip = 0;
	h->after_gap = true;
}

static void rfb_end(struct proto_decoder *d, enum proto_dir dir)
{
	struct stream_dir *h = &d->h[dir];
	if (h->stage == ST_LOST)
		h->unframed += h->len;
	else if (h->len || h->skip || h->in_msg)
		note(d, dir, "stream ended inside %s: %llu bytes buffered, %llu more expected",
		     h->in_msg && h->m.name ? h->m.name : "a message",
		     (unsigned long long)h->len, (unsigned long long)h->skip);
	if (h->unframed)
		note(d, dir, "%llu bytes not framed", (unsigned long long)h->unframed);
	if (h->opaque)
		note(d, dir, "%llu bytes after the security handshake not decoded (opaque)",
		     (unsigned long long)h->opaque);
	h->len = 0;
	h->skip = 0;
	h->in_msg = false;
	h->unframed = h->opaque = 0;
	h->stage = ST_CLOSED;
	h->waiting = false;
}

static void rfb_destroy(struct proto_decoder *d)
{
	if (!d)
		return;
	free(d->h[0].buf);
	free(d->h[1].buf);
	free(d->fbur);
	free(d);
}

bool proto_rfb_banner(const uint8_t *data, size_t len)
{
	if (len < 12)
		return false;
	bool ok = true;
	version_number(data, &ok);
	return ok;
}

const struct proto_ops proto_rfb = {
	.name = "rfb",
	.create = rfb_create,
	.feed = rfb_feed,
	.gap = rfb_gap,
	.end = rfb_end,
	.destroy = rfb_destroy,
};
