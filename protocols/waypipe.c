/*
 * waypipe.c — waypipe's framing over a TCP stream (waypipe's documented
 * socat transport), with the Wayland messages of its PROTOCOL blocks
 * decoded by the Wayland engine (wayland_engine.h).
 *
 * The format, as waypipe 0.8 writes it (src/util.h of its source): the
 * side beside the application (`waypipe server`) opens the channel with
 * a 16-byte connection token, a 32-bit header (protocol version in the
 * high 16 bits, bit 7 set and bit 31 clear in the sender's byte order,
 * flags for reconnection, compression and video) and 96 random bits.
 * Then each side sends messages: a 32-bit header holding the size in
 * bytes (header included, padding excluded) shifted left by 5 and the
 * type in the low 5 bits, the body, and padding to 4 bytes.  PROTOCOL
 * blocks carry whole Wayland messages of the side that sends them;
 * INJECT_RIDS name the file descriptors (by remote id) the next
 * Wayland messages carry; OPEN_FILE, EXTEND_FILE, OPEN_DMABUF create
 * mirrored buffers; BUFFER_FILL (id, [start, end) then the data,
 * compressed as the token says) and BUFFER_DIFF (id, the diff's size,
 * trailing bytes, then the diff, compressed) carry pixels; pipe and video
 * messages carry pipes' bytes and encoded frames; ACK_NBLOCKS counts the
 * messages received, RESTART begins a reconnected channel with the last
 * acknowledgement seen, CLOSE ends it.  Every message but ACK_NBLOCKS,
 * RESTART and CLOSE is numbered, and after a RESTART the receiver ignores
 * those it already had (replays): so does this decoder.
 *
 * Nothing is decompressed: buffer transfers are counted as the bytes
 * they take on the wire, per remote id, and said in a note when the
 * stream ends.
 *
 * Kinds: the Wayland messages as wayland.c says; waypipe's own messages
 * are client messages (PROTO_REQUEST, numbered with the Wayland requests)
 * from the application's side and PROTO_EVENT from the compositor's, with
 * ext "waypipe"; the token is PROTO_SETUP.
 *
 * Belongs to: libprotocols, the protocol decoders (protocols/).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "protocol.h"
#include "wayland_engine.h"

enum {
	WP_PROTOCOL = 0, WP_INJECT_RIDS, WP_OPEN_FILE, WP_EXTEND_FILE, WP_OPEN_DMABUF,
	WP_BUFFER_FILL, WP_BUFFER_DIFF, WP_OPEN_IR_PIPE, WP_OPEN_IW_PIPE, WP_OPEN_RW_PIPE,
	WP_PIPE_TRANSFER, WP_PIPE_SHUTDOWN_R, WP_PIPE_SHUTDOWN_W, WP_OPEN_DMAVID_SRC,
	WP_OPEN_DMAVID_DST, WP_SEND_DMAVID_PACKET, WP_ACK_NBLOCKS, WP_RESTART, WP_CLOSE,
	WP_OPEN_DMAVID_SRC_V2, WP_OPEN_DMAVID_DST_V2, WP_NTYPES
};

static const char *const type_names[WP_NTYPES] = {
	"PROTOCOL", "INJECT_RIDS", "OPEN_FILE", "EXTEND_FILE", "OPEN_DMABUF",
	"BUFFER_FILL", "BUFFER_DIFF", "OPEN_IR_PIPE", "OPEN_IW_PIPE", "OPEN_RW_PIPE",
	"PIPE_TRANSFER", "PIPE_SHUTDOWN_R", "PIPE_SHUTDOWN_W", "OPEN_DMAVID_SRC",
	"OPEN_DMAVID_DST", "SEND_DMAVID_PACKET", "ACK_NBLOCKS", "RESTART", "CLOSE",
	"OPEN_DMAVID_SRC_V2", "OPEN_DMAVID_DST_V2",
};

#define TOKEN_LEN 16u
#define TOKEN_VERSION 1u
#define TOKEN_FIXED 0x80u
#define TOKEN_UNSET 0x80000000u
/* every flag bit waypipe 0.8 defines in the low half */
#define TOKEN_FLAGS 0x3f87u
#define HEAD_MAX 16u

enum stage { ST_START, ST_HEAD, ST_WAYLAND, ST_SKIP, ST_LOST };

struct rid_stat {
	int32_t rid;
	uint32_t fills, diffs;
	uint64_t wire;		/* bytes on the wire, headers included */
	uint64_t raw;		/* bytes they stand for (fill ranges, diff sizes) */
};

struct wdir {
	enum stage stage;
	uint8_t head[HEAD_MAX];
	uint32_t hlen, hwant;
	uint32_t size, type;	/* the current message: unpadded size, type */
	uint64_t left;		/* bytes of it still to come after the head */
	uint64_t wl_left;	/* Wayland bytes of a PROTOCOL block still to come */
	bool replay;		/* a message the receiver already had */
	bool after_gap;
	uint64_t pos;
	uint32_t msgno, newest;
	uint64_t count[WP_NTYPES + 1], bytes[WP_NTYPES + 1];
	uint64_t lost;
	struct rid_stat *rids;
	size_t nrids;
};

struct proto_decoder {
	struct proto_sink sink;
	struct wl_engine *e;
	struct wdir h[2];
	int app_dir;		/* the direction that sent the token, -1 not seen */
	uint32_t token;
};

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

static bool token_ok(uint32_t h)
{
	return (h >> 16) == TOKEN_VERSION && (h & TOKEN_FIXED) && !(h & TOKEN_UNSET) &&
	       !(h & 0xffffu & ~TOKEN_FLAGS);
}

bool proto_waypipe_banner(const uint8_t *data, size_t len)
{
	struct cursor c = cursor_init(data, len);
	uint32_t h = cursor_le32(&c);
	return !c.overrun && token_ok(h);
}

static const char *compression(uint32_t token)
{
	switch ((token >> 8) & 7) {
	case 1: return "none";
	case 2: return "lz4";
	case 3: return "zstd";
	default: return "as the other side's";
	}
}

static bool is_app(const struct proto_decoder *d, enum proto_dir dir)
{
	return d->app_dir < 0 ? dir == PROTO_C2S : (int)dir == d->app_dir;
}

static struct rid_stat *rid_stat(struct wdir *w, int32_t rid)
{
	for (size_t i = 0; i < w->nrids; i++)
		if (w->rids[i].rid == rid)
			return &w->rids[i];
	if (w->nrids >= 4096)
		return NULL;
	struct rid_stat *v = realloc(w->rids, (w->nrids + 1) * sizeof *v);
	if (!v)
		return NULL;
	w->rids = v;
	v[w->nrids] = (struct rid_stat){ .rid = rid };
	return &v[w->nrids++];
}

static void emit(struct proto_decoder *d, enum proto_dir dir, enum proto_kind kind,
		 const char *name, uint64_t length, const char *detail)
{
	struct wdir *w = &d->h[dir];
	struct proto_msg m = { .dir = dir, .kind = kind, .length = length, .stream_end = w->pos,
			       .name = name, .ext = "waypipe" };
	if (kind == PROTO_REQUEST)
		m.seq = wl_engine_next_seq(d->e);
	else
		m.seq = wl_engine_last_seq(d->e);
	if (w->after_gap) {
		m.flags |= PROTO_F_AFTER_GAP;
		w->after_gap = false;
	}
	snprintf(m.detail, sizeof m.detail, "%s", detail);
	if (d->sink.message)
		d->sink.message(d->sink.ctx, &m);
}

/* The head of a message is in: decide how its body is passed. */
static void head_done(struct proto_decoder *d, enum proto_dir dir)
{
	struct wdir *w = &d->h[dir];
	uint32_t padded = (w->size + 3) & ~3u;
	if (w->hlen == 4) {
		/* the header word alone: the type says how much more head */
		if (w->type != WP_ACK_NBLOCKS && w->type != WP_RESTART && w->type != WP_CLOSE) {
			w->msgno++;
			/* after a RESTART, messages up to the newest seen are replays */
			w->replay = (int32_t)(w->newest - w->msgno) >= 0 && w->newest;
			if (!w->replay)
				w->newest = w->msgno;
		} else {
			w->replay = false;
		}
		if (w->type == WP_PROTOCOL) {
			w->wl_left = w->size - 4;
			w->left = padded - 4;
			w->stage = ST_WAYLAND;
			wl_engine_boundary(d->e, is_app(d, dir));
			return;
		}
		w->hwant = w->size < HEAD_MAX ? w->size : HEAD_MAX;
		if (w->hwant > 4)
			return;	/* collect the rest of the head */
	}
	w->left = padded - w->hlen;
	w->stage = ST_SKIP;
}

/* The whole message has passed. */
static void message_done(struct proto_decoder *d, enum proto_dir dir)
{
	struct wdir *w = &d->h[dir];
	uint32_t padded = (w->size + 3) & ~3u;
	unsigned t = w->type < WP_NTYPES ? w->type : WP_NTYPES;
	w->count[t]++;
	w->bytes[t] += padded;
	w->stage = ST_HEAD;
	w->hwant = 4;
	uint32_t hlen = w->hlen;
	w->hlen = 0;
	if (w->type == WP_PROTOCOL)
		return;	/* its Wayland messages were reported one by one */

	struct cursor c = cursor_init(w->head, hlen);
	cursor_skip(&c, 4);
	uint32_t a = cursor_le32(&c), b = cursor_le32(&c), e = cursor_le32(&c);
	char detail[PROTO_DETAIL_MAX];
	char name[24];
	const char *tn = w->type < WP_NTYPES ? type_names[w->type] : NULL;
	switch (w->type) {
	case WP_OPEN_FILE: case WP_EXTEND_FILE: case WP_OPEN_DMABUF:
		snprintf(detail, sizeof detail, "rid %d, %u bytes", (int32_t)a, b);
		break;
	case WP_OPEN_DMAVID_SRC: case WP_OPEN_DMAVID_DST:
	case WP_OPEN_DMAVID_SRC_V2: case WP_OPEN_DMAVID_DST_V2:
		snprintf(detail, sizeof detail, "rid %d, %u bytes", (int32_t)a, b);
		break;
	case WP_BUFFER_FILL: {
		uint32_t sent = w->size > 16 ? w->size - 16 : 0;
		snprintf(detail, sizeof detail, "rid %d, bytes [%u, %u) as %u on the wire",
			 (int32_t)a, b, e, sent);
		struct rid_stat *r = rid_stat(w, (int32_t)a);
		if (r) {
			r->fills++;
			r->wire += padded;
			r->raw += e > b ? e - b : 0;
		}
		break;
	}
	case WP_BUFFER_DIFF: {
		uint32_t sent = w->size > 16 ? w->size - 16 : 0;
		snprintf(detail, sizeof detail, "rid %d, diff of %u bytes + %u trailing as %u on the wire",
			 (int32_t)a, b, e, sent);
		struct rid_stat *r = rid_stat(w, (int32_t)a);
		if (r) {
			r->diffs++;
			r->wire += padded;
			r->raw += (uint64_t)b + e;
		}
		break;
	}
	case WP_INJECT_RIDS:
		snprintf(detail, sizeof detail, "%u fds", (w->size - 4) / 4);
		if (w->size >= 8)
			snprintf(detail + strlen(detail), sizeof detail - strlen(detail), ": rid %d%s",
				 (int32_t)a, w->size > 8 ? ", ..." : "");
		break;
	case WP_ACK_NBLOCKS:
		snprintf(detail, sizeof detail, "%u messages received", a);
		break;
	case WP_RESTART:
		snprintf(detail, sizeof detail, "the other side last acknowledged %u", a);
		/* the sender goes on from there: what it sends again up to the
		   newest message already had, the receiver ignores */
		w->msgno = a;
		break;
	case WP_CLOSE:
		snprintf(detail, sizeof detail, "code %d", (int32_t)a);
		break;
	default:
		snprintf(detail, sizeof detail, "rid %d, %u bytes", (int32_t)a,
			 w->size > 8 ? w->size - 8 : 0);
		break;
	}
	if (w->replay)
		snprintf(detail + strlen(detail), sizeof detail - strlen(detail),
			 " (replayed: the receiver had it)");
	enum proto_kind kind = is_app(d, dir) ? PROTO_REQUEST : PROTO_EVENT;
	if (!tn) {
		snprintf(name, sizeof name, "type %u", w->type);
		tn = name;
		kind = PROTO_UNKNOWN;
	}
	emit(d, dir, kind, tn, padded, detail);
}

static void token(struct proto_decoder *d, enum proto_dir dir, uint32_t h)
{
	d->app_dir = dir;
	d->token = h;
	char detail[PROTO_DETAIL_MAX];
	snprintf(detail, sizeof detail, "version %u, compression %s, video %s%s%s%s", h >> 16,
		 compression(h), ((h >> 11) & 7) == 1 ? "off" : ((h >> 11) & 7) == 2 ? "vp9" :
		 ((h >> 11) & 7) == 3 ? "h264" : "?",
		 h & 1 ? ", reconnectable" : "", h & 2 ? ", reconnection" : "",
		 h & 4 ? ", no dmabuf" : "");
	struct proto_msg m = { .dir = dir, .kind = PROTO_SETUP, .length = TOKEN_LEN,
			       .stream_end = d->h[dir].pos, .name = "connection token",
			       .ext = "waypipe" };
	snprintf(m.detail, sizeof m.detail, "%s", detail);
	if (d->sink.message)
		d->sink.message(d->sink.ctx, &m);
	if (dir != PROTO_C2S)
		note(d, dir, "waypipe: the application's side is the TCP server: "
		     "its requests travel from server to client");
}

static void wp_feed(struct proto_decoder *d, enum proto_dir dir, const uint8_t *data, size_t len)
{
	struct wdir *w = &d->h[dir];
	size_t i = 0;
	while (i < len) {
		switch (w->stage) {
		case ST_LOST:
			w->lost += len - i;
			w->pos += len - i;
			return;
		case ST_START:
		case ST_HEAD: {
			uint32_t want = w->stage == ST_START ? 4 : w->hwant;
			size_t take = want - w->hlen < len - i ? want - w->hlen : len - i;
			memcpy(w->head + w->hlen, data + i, take);
			w->hlen += (uint32_t)take;
			w->pos += take;
			i += take;
			if (w->hlen < want)
				break;
			struct cursor c = cursor_init(w->head, 4);
			uint32_t h = cursor_le32(&c);
			if (w->stage == ST_START) {
				w->stage = ST_HEAD;
				if (token_ok(h) && d->app_dir < 0) {
					/* the rest of the token: 12 random bytes */
					w->size = TOKEN_LEN;
					w->type = WP_NTYPES + 1;
					w->left = TOKEN_LEN - 4;
					w->stage = ST_SKIP;
					token(d, dir, h);
					break;
				}
			}
			if (w->hlen == 4) {
				w->size = h >> 5;
				w->type = h & 31;
				if (w->size < 4) {
					note(d, dir, "waypipe: message of %u bytes: framing lost", w->size);
					w->stage = ST_LOST;
					break;
				}
			}
			head_done(d, dir);
			if (w->stage == ST_SKIP && w->left == 0)
				message_done(d, dir);
			break;
		}
		case ST_WAYLAND: {
			size_t take = w->wl_left < len - i ? (size_t)w->wl_left : len - i;
			if (!w->replay)
				wl_engine_feed(d->e, is_app(d, dir), data + i, take, w->pos, dir);
			w->pos += take;
			i += take;
			w->wl_left -= take;
			w->left -= take;
			if (w->wl_left == 0) {
				w->stage = ST_SKIP;
				if (w->left == 0)
					message_done(d, dir);
			}
			break;
		}
		case ST_SKIP: {
			size_t take = w->left < len - i ? (size_t)w->left : len - i;
			w->pos += take;
			i += take;
			w->left -= take;
			if (w->left == 0) {
				if (w->type == WP_NTYPES + 1) {	/* the token */
					w->stage = ST_HEAD;
					w->hlen = 0;
					w->hwant = 4;
				} else {
					message_done(d, dir);
				}
			}
			break;
		}
		}
	}
}

static void wp_gap(struct proto_decoder *d, enum proto_dir dir, uint64_t len)
{
	struct wdir *w = &d->h[dir];
	w->pos += len;
	w->after_gap = true;
	if (w->stage == ST_WAYLAND && len <= w->wl_left) {
		/* inside a PROTOCOL block: waypipe's framing holds, the
		   Wayland messages of this block are lost from here */
		wl_engine_gap(d->e, is_app(d, dir));
		w->wl_left -= len;
		w->left -= len;
		return;
	}
	if (w->stage == ST_SKIP && len <= w->left) {
		w->left -= len;
		return;
	}
	if (w->stage != ST_LOST)
		note(d, dir, "waypipe: %llu bytes lost outside a message's known length: framing lost",
		     (unsigned long long)len);
	if (w->stage == ST_WAYLAND)
		wl_engine_gap(d->e, is_app(d, dir));
	w->stage = ST_LOST;
	w->lost += len;
}

static void wp_end(struct proto_decoder *d, enum proto_dir dir)
{
	struct wdir *w = &d->h[dir];
	wl_engine_end(d->e, is_app(d, dir));
	if (w->stage == ST_WAYLAND || (w->stage == ST_SKIP && w->left) ||
	    (w->stage == ST_HEAD && w->hlen))
		note(d, dir, "waypipe: the stream ends inside a %s message",
		     w->type < WP_NTYPES ? type_names[w->type] : "waypipe");
	if (w->lost)
		note(d, dir, "waypipe: %llu bytes not framed", (unsigned long long)w->lost);
	if (w->count[WP_PROTOCOL])
		note(d, dir, "waypipe: %llu PROTOCOL blocks, %llu bytes",
		     (unsigned long long)w->count[WP_PROTOCOL],
		     (unsigned long long)w->bytes[WP_PROTOCOL]);
	for (size_t i = 0; i < w->nrids; i++) {
		const struct rid_stat *r = &w->rids[i];
		note(d, dir, "waypipe: buffer rid %d: %u fills, %u diffs, %llu bytes on the wire "
		     "for %llu bytes of buffer (compression %s)", r->rid, r->fills, r->diffs,
		     (unsigned long long)r->wire, (unsigned long long)r->raw,
		     compression(d->token));
	}
}

static struct proto_decoder *wp_create(const struct proto_sink *sink)
{
	struct proto_decoder *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->sink = *sink;
	d->app_dir = -1;
	d->e = wl_engine_new(sink, true);
	if (!d->e) {
		free(d);
		return NULL;
	}
	return d;
}

static void wp_destroy(struct proto_decoder *d)
{
	if (!d)
		return;
	wl_engine_free(d->e);
	free(d->h[0].rids);
	free(d->h[1].rids);
	free(d);
}

const struct proto_ops proto_waypipe = {
	.name = "waypipe",
	.create = wp_create,
	.feed = wp_feed,
	.gap = wp_gap,
	.end = wp_end,
	.destroy = wp_destroy,
};
