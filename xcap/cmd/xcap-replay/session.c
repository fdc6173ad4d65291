/*
 * session.c — session files (xcap-session(5)) and recording them from a
 * capture (session.h).
 *
 * The reader takes a line at a time and reads it through the cursor
 * (protocols/cursor.h), the one bounds-checked way the suite reads bytes
 * it did not write: a token is a span the cursor hands out, never a
 * pointer walked past an end.
 *
 * Belongs to: the xcap-replay command's room (xcap/cmd/xcap-replay/).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "conns.h"
#include "cursor.h"
#include "grow.h"
#include "protocol.h"
#include "session.h"

#define LINE_MAX_BYTES 4096

static const char *const kind_names[] = {
	[XSESS_KEY_PRESS] = "key-press",
	[XSESS_KEY_RELEASE] = "key-release",
	[XSESS_BUTTON_PRESS] = "button-press",
	[XSESS_BUTTON_RELEASE] = "button-release",
	[XSESS_MOTION] = "motion",
	[XSESS_POINTER] = "pointer",
};
#define NKINDS (sizeof kind_names / sizeof kind_names[0])

const char *xsess_kind_name(enum xsess_kind k)
{
	return (unsigned)k < NKINDS && kind_names[k] ? kind_names[k] : "?";
}

const char *xsess_proto_name(enum xsess_proto p)
{
	return p == XSESS_X11 ? "x11" : p == XSESS_RFB ? "rfb" : "-";
}

void xsession_init(struct xsession *s)
{
	memset(s, 0, sizeof *s);
}

void xsession_free(struct xsession *s)
{
	free(s->inputs);
	xsession_init(s);
}

int xsession_add(struct xsession *s, const struct xsess_input *in)
{
	if (GROW(s->inputs, s->cap, s->n + 1) < 0)
		return -1;
	s->inputs[s->n++] = *in;
	return 0;
}

static void seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---- reading ---- */

/* The byte n places ahead of where the cursor is (0 past its end). */
static uint8_t ahead(const struct cursor *c, size_t n)
{
	return cursor_peek_u8(c, c->pos + n, NULL);
}

static bool is_blank(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The next blank-separated token of the line, or an empty cursor. */
static struct cursor token(struct cursor *line)
{
	while (cursor_left(line) && is_blank(ahead(line, 0)))
		cursor_skip(line, 1);
	size_t n = 0;
	while (n < cursor_left(line) && !is_blank(ahead(line, n)))
		n++;
	return cursor_sub(line, n);
}

/* The rest of the line, blanks trimmed at both ends, as a string. */
static void rest_text(struct cursor *line, char *out, size_t outlen)
{
	while (cursor_left(line) && is_blank(ahead(line, 0)))
		cursor_skip(line, 1);
	size_t n = cursor_left(line);
	while (n && is_blank(ahead(line, n - 1)))
		n--;
	if (n >= outlen)
		n = outlen - 1;
	cursor_bytes(line, out, n);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			out[i] = '?';
	out[n] = '\0';
}

static bool tok_is(struct cursor t, const char *word)
{
	size_t n = strlen(word);
	const uint8_t *p = cursor_peek_span(&t, t.pos, n);
	return cursor_left(&t) == n && p && memcmp(p, word, n) == 0;
}

/* An unsigned decimal or 0x-hex number of the whole token. */
static bool tok_uint(struct cursor t, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	unsigned base = 10;
	if (cursor_left(&t) > 2 && ahead(&t, 0) == '0' && (ahead(&t, 1) | 0x20) == 'x') {
		base = 16;
		cursor_skip(&t, 2);
	}
	if (!cursor_left(&t))
		return false;
	while (cursor_left(&t)) {
		uint8_t c = cursor_u8(&t);
		unsigned d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && (c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (c | 0x20) - 'a' + 10;
		else
			return false;
		if (x > (max - d) / base)
			return false;
		x = x * base + d;
	}
	*v = x;
	return true;
}

/* A signed decimal, or "-" for unknown (XSESS_UNKNOWN). */
static bool tok_coord(struct cursor t, int32_t *v)
{
	if (tok_is(t, "-")) {
		*v = XSESS_UNKNOWN;
		return true;
	}
	bool neg = cursor_left(&t) > 1 && ahead(&t, 0) == '-';
	if (neg)
		cursor_skip(&t, 1);
	uint64_t x;
	if (!tok_uint(t, INT32_MAX, &x))
		return false;
	*v = neg ? -(int32_t)x : (int32_t)x;
	return true;
}

/* Seconds with up to nine decimals, as nanoseconds. */
static bool tok_time(struct cursor t, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	unsigned nfrac = 0;
	bool dot = false, digits = false;
	while (cursor_left(&t)) {
		uint8_t c = cursor_u8(&t);
		if (c == '.' && !dot) {
			dot = true;
		} else if (c >= '0' && c <= '9') {
			digits = true;
			if (!dot) {
				if (sec > 1000000000ull)	/* some 30 years is enough */
					return false;
				sec = sec * 10 + (c - '0');
			} else if (nfrac < 9) {
				frac = frac * 10 + (c - '0');
				nfrac++;
			}
		} else {
			return false;
		}
	}
	if (!digits)
		return false;
	while (nfrac++ < 9)
		frac *= 10;
	*ns = sec * 1000000000ull + frac;
	return true;
}

static int kind_of(struct cursor t)
{
	for (unsigned k = 1; k < NKINDS; k++)
		if (kind_names[k] && tok_is(t, kind_names[k]))
			return (int)k;
	return 0;
}

struct reader {
	struct xsession *s;
	unsigned lineno;
	bool magic;
	char *err;
	size_t errlen;
};

static int bad(struct reader *r, const char *what)
{
	seterr(r->err, r->errlen, "line %u: %s", r->lineno, what);
	return -1;
}

static int input_line(struct reader *r, struct cursor *line, struct cursor t0)
{
	struct xsess_input in = { 0 };
	uint64_t v;
	if (!tok_time(t0, &in.t))
		return bad(r, "not a time in seconds");
	if (r->s->n && in.t < r->s->inputs[r->s->n - 1].t)
		return bad(r, "time goes backwards");
	int k = kind_of(token(line));
	if (!k)
		return bad(r, "unknown kind of input");
	in.kind = (uint8_t)k;
	if (r->s->proto == XSESS_RFB && (k == XSESS_BUTTON_PRESS || k == XSESS_BUTTON_RELEASE ||
					 k == XSESS_MOTION))
		return bad(r, "an X11 kind of input in an RFB session");
	if (r->s->proto == XSESS_X11 && k == XSESS_POINTER)
		return bad(r, "an RFB kind of input in an X11 session");
	if (!tok_uint(token(line), UINT32_MAX, &v))
		return bad(r, "bad code (keycode, button or keysym)");
	in.code = (uint32_t)v;
	if (!tok_coord(token(line), &in.root_x) || !tok_coord(token(line), &in.root_y))
		return bad(r, "bad root coordinates");
	if (!tok_uint(token(line), UINT32_MAX, &v))
		return bad(r, "bad state");
	in.state = (uint32_t)v;
	struct cursor w = token(line);
	if (tok_is(w, "-"))
		in.window = 0;
	else if (tok_uint(w, UINT32_MAX, &v))
		in.window = (uint32_t)v;
	else
		return bad(r, "bad window");
	if (!tok_coord(token(line), &in.event_x) || !tok_coord(token(line), &in.event_y))
		return bad(r, "bad window coordinates");
	struct cursor resp = token(line);
	if (tok_is(resp, "-"))
		in.response = -1;
	else if (tok_uint(resp, INT32_MAX, &v))
		in.response = (int32_t)v;
	else
		return bad(r, "bad response count");
	struct cursor extra = token(line);
	if (cursor_left(&extra))
		return bad(r, "more fields than an input has");
	if ((k == XSESS_POINTER || k == XSESS_MOTION) &&
	    (in.root_x == XSESS_UNKNOWN || in.root_y == XSESS_UNKNOWN))
		return bad(r, "pointer input without a position");
	if (xsession_add(r->s, &in) < 0)
		return bad(r, "out of memory");
	return 0;
}

static int one_line(struct reader *r, struct cursor line)
{
	struct cursor t = token(&line);
	if (!cursor_left(&t))
		return 0;
	if (ahead(&t, 0) == '#')
		return 0;
	if (!r->magic) {
		uint64_t v;
		if (!tok_is(t, "xcap-session"))
			return bad(r, "not a session file (no 'xcap-session' line first)");
		if (!tok_uint(token(&line), 1000, &v) || v != XSESS_VERSION)
			return bad(r, "a session version this reader does not know");
		r->magic = true;
		return 0;
	}
	uint8_t c = ahead(&t, 0);
	if (c >= '0' && c <= '9') {
		if (r->s->proto == XSESS_NONE)
			return bad(r, "an input before the 'protocol' line");
		return input_line(r, &line, t);
	}
	if (tok_is(t, "protocol")) {
		struct cursor p = token(&line);
		enum xsess_proto proto = tok_is(p, "x11") ? XSESS_X11 : tok_is(p, "rfb") ? XSESS_RFB
										 : XSESS_NONE;
		if (proto == XSESS_NONE)
			return bad(r, "protocol must be x11 or rfb");
		if (r->s->n && proto != r->s->proto)
			return bad(r, "protocol changes after inputs");
		r->s->proto = proto;
	} else if (tok_is(t, "source")) {
		rest_text(&line, r->s->source, sizeof r->s->source);
	} else if (tok_is(t, "client")) {
		rest_text(&line, r->s->client, sizeof r->s->client);
	} else if (tok_is(t, "connection")) {
		uint64_t v;
		if (!tok_uint(token(&line), UINT32_MAX, &v))
			return bad(r, "bad connection number");
		r->s->conn = (uint32_t)v;
	} else if (tok_is(t, "screen")) {
		uint64_t w, h;
		if (!tok_uint(token(&line), 65535, &w) || !tok_uint(token(&line), 65535, &h))
			return bad(r, "screen needs a width and a height");
		r->s->screen_w = (uint32_t)w;
		r->s->screen_h = (uint32_t)h;
	} else if (tok_is(t, "encodings")) {
		r->s->nencodings = 0;
		for (struct cursor e = token(&line); cursor_left(&e); e = token(&line)) {
			char name[48];
			size_t n = cursor_left(&e);
			if (n >= sizeof name || r->s->nencodings == XSESS_MAX_ENCODINGS)
				return bad(r, "an encoding's name too long, or too many encodings");
			cursor_bytes(&e, name, n);
			name[n] = '\0';
			if (!proto_rfb_encoding_number(name, &r->s->encodings[r->s->nencodings++]))
				return bad(r, "not an RFB encoding's name or number");
		}
	}
	/* Other keywords are for later versions of the format: skipped. */
	return 0;
}

static int finish(struct reader *r, char *err, size_t errlen)
{
	if (!r->magic) {
		seterr(err, errlen, "not a session file (empty)");
		return -1;
	}
	if (r->s->proto == XSESS_NONE) {
		seterr(err, errlen, "no 'protocol' line");
		return -1;
	}
	return 0;
}

int xsession_parse(const uint8_t *buf, size_t len, struct xsession *s, char *err, size_t errlen)
{
	xsession_init(s);
	struct reader r = { .s = s, .err = err, .errlen = errlen };
	struct cursor all = cursor_init(buf, len);
	while (cursor_left(&all)) {
		size_t n = 0;
		while (n < cursor_left(&all) && ahead(&all, n) != '\n')
			n++;
		r.lineno++;
		if (n > LINE_MAX_BYTES || one_line(&r, cursor_sub(&all, n)) < 0) {
			if (n > LINE_MAX_BYTES)
				bad(&r, "line too long");
			xsession_free(s);
			return -1;
		}
		cursor_skip(&all, 1);	/* the newline, if any */
	}
	if (finish(&r, err, errlen) < 0) {
		xsession_free(s);
		return -1;
	}
	return 0;
}

int xsession_read(FILE *f, const char *name, struct xsession *s, char *err, size_t errlen)
{
	xsession_init(s);
	struct reader r = { .s = s, .err = err, .errlen = errlen };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;
	errno = 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		r.lineno++;
		size_t n = (size_t)len;
		if (line[n - 1] == '\n')
			n--;
		if (n > LINE_MAX_BYTES) {
			rc = bad(&r, "line too long");
			break;
		}
		if (one_line(&r, cursor_init((const uint8_t *)line, n)) < 0) {
			rc = -1;
			break;
		}
	}
	free(line);
	if (rc == 0 && ferror(f)) {
		seterr(err, errlen, "%s: '%s'", strerror(errno ? errno : EIO), name);
		rc = -1;
	}
	if (rc == 0)
		rc = finish(&r, err, errlen);
	if (rc < 0)
		xsession_free(s);
	return rc;
}

/* ---- writing ---- */

static void put_coord(FILE *f, int32_t v)
{
	if (v == XSESS_UNKNOWN)
		fputs(" -", f);
	else
		fprintf(f, " %" PRId32, v);
}

int xsession_write(FILE *f, const struct xsession *s)
{
	fprintf(f, "xcap-session %d\n", XSESS_VERSION);
	fprintf(f, "# time_s kind code root_x root_y state window event_x event_y response\n");
	fprintf(f, "protocol %s\n", xsess_proto_name(s->proto));
	if (*s->source)
		fprintf(f, "source %s\n", s->source);
	if (*s->client)
		fprintf(f, "client %s\n", s->client);
	if (s->conn)
		fprintf(f, "connection %" PRIu32 "\n", s->conn);
	if (s->screen_w && s->screen_h)
		fprintf(f, "screen %" PRIu32 " %" PRIu32 "\n", s->screen_w, s->screen_h);
	if (s->nencodings) {
		fputs("encodings", f);
		for (size_t i = 0; i < s->nencodings; i++) {
			char name[48];
			proto_rfb_encoding_name(s->encodings[i], name, sizeof name);
			fprintf(f, " %s", name);
		}
		fputc('\n', f);
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct xsess_input *in = &s->inputs[i];
		fprintf(f, "%" PRIu64 ".%06" PRIu64 " %s %" PRIu32, in->t / 1000000000u,
			in->t % 1000000000u / 1000u, xsess_kind_name(in->kind), in->code);
		put_coord(f, in->root_x);
		put_coord(f, in->root_y);
		fprintf(f, " 0x%" PRIx32, in->state);
		if (in->window)
			fprintf(f, " 0x%" PRIx32, in->window);
		else
			fputs(" -", f);
		put_coord(f, in->event_x);
		put_coord(f, in->event_y);
		if (in->response < 0)
			fputs(" -\n", f);
		else
			fprintf(f, " %" PRId32 "\n", in->response);
	}
	fflush(f);
	return ferror(f) ? -1 : 0;
}

/* ---- recording ---- */

/*
 * Which messages are inputs: X11 KeyPress, KeyRelease, ButtonPress,
 * ButtonRelease and MotionNotify events, core or XInput2's GenericEvents
 * of those names, sent by the server (not SendEvent copies another client
 * made); RFB KeyEvent (and QEMU's extended key event) and PointerEvent
 * from the viewer.  Which messages answer one in a way the screen shows:
 * X11 requests that draw, copy, clear, put images or map, unmap or move
 * windows; RFB FramebufferUpdates with a rectangle of pixels (not of a
 * cursor's shape alone: XMSG_F_NO_PIXELS).
 */
static const char *const x11_draw[] = {
	"ClearArea", "CopyArea", "CopyPlane", "PolyPoint", "PolyLine", "PolySegment",
	"PolyRectangle", "PolyArc", "FillPoly", "PolyFillRectangle", "PolyFillArc", "PutImage",
	"PolyText8", "PolyText16", "ImageText8", "ImageText16", "MapWindow", "MapSubwindows",
	"UnmapWindow", "ConfigureWindow", "Composite", "FillRectangles", "CompositeGlyphs8",
	"CompositeGlyphs16", "CompositeGlyphs32", "Trapezoids", "Triangles", "TriStrip",
	"TriFan", "AddTraps", "Pixmap", "PutImage",
};

static bool name_in(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, list[i]) == 0)
			return true;
	return false;
}

/* A field NAME=VALUE of an X11 detail, the value a number (decimal or
   0x-hex). */
static bool detail_num(const char *detail, const char *name, int64_t *v)
{
	size_t n = strlen(name);
	for (const char *p = detail; *p;) {
		while (*p == ' ')
			p++;
		size_t i = 0;
		while (i < n && p[i] && p[i] == name[i])
			i++;
		if (i == n && p[i] == '=') {
			const char *q = p + i + 1;
			char *end;
			errno = 0;
			long long x = strtoll(q, &end, 0);
			if (end != q && !errno && (*end == ' ' || *end == '\0')) {
				*v = x;
				return true;
			}
			return false;
		}
		while (*p && *p != ' ')
			p++;
	}
	return false;
}

static bool detail_any(const char *detail, const char *const *names, int64_t *v)
{
	for (; *names; names++)
		if (detail_num(detail, *names, v))
			return true;
	return false;
}

/* The X11 input a message is, or 0. */
static int x11_kind(const struct xrec_msg *m)
{
	if (m->dir != XDIR_S2C || m->kind != XMSG_EVENT || (m->flags & XMSG_F_SYNTHETIC))
		return 0;
	bool core = !*m->ext, xi = strcmp(m->ext, "XInputExtension") == 0;
	if ((!core && !xi) || strncmp(m->detail, "raw", 3) == 0)
		return 0;
	const char *n = m->name;
	if (strcmp(n, "KeyPress") == 0)
		return XSESS_KEY_PRESS;
	if (strcmp(n, "KeyRelease") == 0)
		return XSESS_KEY_RELEASE;
	if (strcmp(n, "ButtonPress") == 0)
		return XSESS_BUTTON_PRESS;
	if (strcmp(n, "ButtonRelease") == 0)
		return XSESS_BUTTON_RELEASE;
	if ((core && strcmp(n, "MotionNotify") == 0) || (xi && strcmp(n, "Motion") == 0))
		return XSESS_MOTION;
	return 0;
}

/* A field NAME=X,Y of an X11 detail. */
static void detail_pair(const char *detail, const char *name, int32_t *x, int32_t *y)
{
	size_t n = strlen(name);
	*x = *y = XSESS_UNKNOWN;
	for (const char *p = detail; *p;) {
		while (*p == ' ')
			p++;
		if (strncmp(p, name, n) == 0 && p[n] == '=') {
			long a, b;
			int used = 0;
			if (sscanf(p + n + 1, "%ld,%ld%n", &a, &b, &used) == 2 && used > 0 &&
			    (p[n + 1 + used] == ' ' || p[n + 1 + used] == '\0') &&
			    a > INT32_MIN && a <= INT32_MAX && b > INT32_MIN && b <= INT32_MAX) {
				*x = (int32_t)a;
				*y = (int32_t)b;
			}
			return;
		}
		while (*p && *p != ' ')
			p++;
	}
}

/* From the detail xcap(5) spells under "Input events". */
static void x11_input(const struct xrec_msg *m, int kind, struct xsess_input *in)
{
	static const char *const code_f[] = { "key", "button", NULL };
	static const char *const win[] = { "event", NULL };
	static const char *const st[] = { "state", NULL };
	int64_t v;
	in->kind = (uint8_t)kind;
	in->code = kind != XSESS_MOTION && detail_any(m->detail, code_f, &v) ? (uint32_t)v : 0;
	detail_pair(m->detail, "root_xy", &in->root_x, &in->root_y);
	detail_pair(m->detail, "event_xy", &in->event_x, &in->event_y);
	in->window = detail_any(m->detail, win, &v) ? (uint32_t)v : 0;
	in->state = detail_any(m->detail, st, &v) ? (uint32_t)v : 0;
}

/* The RFB input a message is, or 0, from its detail ("down keysym 0x61",
   "12,40 buttons 0x01"). */
static int rfb_input(const struct xrec_msg *m, struct xsess_input *in)
{
	if (m->dir != XDIR_C2S || m->kind != XMSG_REQUEST)
		return 0;
	if (strstr(m->name, "KeyEvent")) {
		char updown[8];
		unsigned sym;
		if (sscanf(m->detail, "%7s keysym %x", updown, &sym) != 2)
			return 0;
		in->kind = strcmp(updown, "down") == 0 ? XSESS_KEY_PRESS : XSESS_KEY_RELEASE;
		in->code = sym;
		in->root_x = in->root_y = in->event_x = in->event_y = XSESS_UNKNOWN;
		return in->kind;
	}
	if (strcmp(m->name, "PointerEvent") == 0) {
		unsigned x, y, mask;
		if (sscanf(m->detail, "%u,%u buttons %x", &x, &y, &mask) != 3)
			return 0;
		in->kind = XSESS_POINTER;
		in->root_x = in->event_x = (int32_t)x;
		in->root_y = in->event_y = (int32_t)y;
		in->state = mask;
		return in->kind;
	}
	return 0;
}

/* The encodings of a SetEncodings' detail ("Tight,CopyRect,...,-24", as
   protocols/rfb.c spells it; a "+N" of those it had no room for is left
   out), into e; how many. */
static size_t rfb_encodings(const char *detail, int32_t *e)
{
	size_t n = 0;
	char name[48];
	for (const char *p = detail; *p && n < XSESS_MAX_ENCODINGS;) {
		size_t k = strcspn(p, ",");
		if (k < sizeof name && *p != '+') {
			memcpy(name, p, k);
			name[k] = '\0';
			if (proto_rfb_encoding_number(name, &e[n]))
				n++;
		}
		p += k + (p[k] == ',');
	}
	return n;
}

struct conn_inputs {
	uint32_t id;
	enum xsess_proto proto;
	char client[128];
	int client_rank;		/* xrec_name_takes */
	uint32_t fb_w, fb_h;
	int32_t encodings[XSESS_MAX_ENCODINGS];
	size_t nencodings;
	struct xsession s;	/* times absolute until the end */
};

int xsession_record(struct xsource *src, const char *source_name,
		    const struct xsess_record_opts *opt, struct xsession *out, char *err,
		    size_t errlen)
{
	struct xconns c;	/* of struct conn_inputs */
	xconns_init(&c, sizeof (struct conn_inputs));
	int rc = -1, r;
	struct xrec rec;
	xsession_init(out);
	while ((r = xsource_next(src, &rec)) > 0) {
		uint32_t id = rec.type == XREC_CONN ? rec.u.conn.id
			    : rec.type == XREC_MSG ? rec.u.msg.conn
			    : rec.type == XREC_NAME ? rec.u.name.conn : 0;
		if (!id)
			continue;
		struct conn_inputs *ci = xconns_get(&c, id);
		if (!ci) {
			if (id > XCONNS_ID_MAX)
				continue;	/* a damaged id */
			if (!(ci = xconns_add(&c, id))) {
				seterr(err, errlen, "out of memory");
				goto out;
			}
			ci->id = id;
			xsession_init(&ci->s);
		}
		if (rec.type == XREC_CONN) {
			ci->proto = strcmp(rec.u.conn.proto, "x11") == 0 ? XSESS_X11
				  : strcmp(rec.u.conn.proto, "rfb") == 0 ? XSESS_RFB : XSESS_NONE;
			continue;
		}
		if (rec.type == XREC_NAME) {
			if (xrec_name_takes(&ci->client_rank, &rec.u.name))
				snprintf(ci->client, sizeof ci->client, "%s", rec.u.name.text);
			continue;
		}
		const struct xrec_msg *m = &rec.u.msg;
		struct xsess_input in = { .t = m->ts, .response = 0 };
		int kind = 0;
		if (ci->proto == XSESS_X11) {
			kind = x11_kind(m);
			if (kind == XSESS_MOTION && !opt->motion)
				continue;
			if (kind)
				x11_input(m, kind, &in);
			else if (m->dir == XDIR_C2S && m->kind == XMSG_REQUEST && ci->s.n &&
				 name_in(m->name, x11_draw, sizeof x11_draw / sizeof *x11_draw))
				ci->s.inputs[ci->s.n - 1].response++;
		} else if (ci->proto == XSESS_RFB) {
			unsigned w, h;
			if (m->kind == XMSG_SETUP && m->dir == XDIR_S2C &&
			    sscanf(m->detail, "%ux%u ", &w, &h) == 2) {
				ci->fb_w = w;
				ci->fb_h = h;
			}
			if (m->dir == XDIR_C2S && m->kind == XMSG_REQUEST && !ci->s.n &&
			    strcmp(m->name, "SetEncodings") == 0)
				ci->nencodings = rfb_encodings(m->detail, ci->encodings);
			kind = rfb_input(m, &in);
			if (!kind && m->dir == XDIR_S2C && ci->s.n &&
			    strcmp(m->name, "FramebufferUpdate") == 0 && strncmp(m->detail, "0 rect", 6) != 0 &&
			    !(m->flags & XMSG_F_NO_PIXELS))
				ci->s.inputs[ci->s.n - 1].response++;
		}
		if (kind && xsession_add(&ci->s, &in) < 0) {
			seterr(err, errlen, "out of memory");
			goto out;
		}
	}
	if (r < 0) {
		seterr(err, errlen, "%s", xsource_error(src));
		goto out;
	}
	struct conn_inputs *best = NULL;
	for (size_t i = 0; i < c.n; i++) {
		struct conn_inputs *ci = xconns_at(&c, i);
		if (opt->conn ? ci->id == opt->conn : (ci->s.n && (!best || ci->s.n > best->s.n)))
			best = ci;
	}
	if (!best) {
		if (opt->conn)
			seterr(err, errlen, "no such connection in the capture: '%" PRIu32 "'", opt->conn);
		else
			seterr(err, errlen, "no inputs in the capture: '%s'", source_name);
		goto out;
	}
	if (!best->s.n) {
		seterr(err, errlen, "no inputs on connection %" PRIu32 ": '%s'", best->id, source_name);
		goto out;
	}
	*out = best->s;
	xsession_init(&best->s);
	out->proto = best->proto;
	out->conn = best->id;
	out->screen_w = best->fb_w;
	out->screen_h = best->fb_h;
	memcpy(out->encodings, best->encodings, sizeof out->encodings);
	out->nencodings = best->nencodings;
	snprintf(out->client, sizeof out->client, "%s", best->client);
	snprintf(out->source, sizeof out->source, "%s", source_name);
	uint64_t t0 = out->inputs[0].t;
	for (size_t i = 0; i < out->n; i++)
		out->inputs[i].t -= t0;
	rc = 0;
out:
	for (size_t i = 0; i < c.n; i++)
		xsession_free(&((struct conn_inputs *)xconns_at(&c, i))->s);
	xconns_free(&c);
	return rc;
}
