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
 * A stream whose start the capture missed (no token: xcap --decode), or
 * whose framing a loss broke, is hunted for its next message header at
 * every byte offset: a candidate must have a type waypipe 0.8 defines, a
 * size its type allows and zero padding, and be followed by a chain of
 * such headers, within HUNT_WINDOW bytes, that holds a PROTOCOL block
 * whose content frames as Wayland (object ids in their ranges, sizes that
 * tile the block, opcodes some interface has, fd counts libwayland
 * allows).  Its messages that ended in earlier packets are not reported
 * (they would carry the confirming packet's time, as the X11 decoder's
 * guesses are undecoded until confirmed); those in the confirming packet
 * are, flagged uncertain; the bytes before them are counted as not framed.  The same direction's next
 * bytes, when the other direction sent the token, begin at a boundary.
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
#include "wayland_tables.h"

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
/* INJECT_RIDS is read whole up to this many ids */
#define RIDS_READ 64u
/* How far a hunt looks ahead of a candidate header for the chain that
   confirms it: the candidate's messages up to the confirming header must
   fit (a larger buffer transfer is passed over, not taken as the first). */
#define HUNT_WINDOW (1u << 20)
/* Candidates a hunt keeps waiting for their chain's bytes at once. */
#define HUNT_PENDING 64
/* Headers a confirming chain may have before its PROTOCOL block. */
#define HUNT_LINKS 16
/* libwayland sends at most 28 file descriptors with a message. */
#define WL_MAX_FDS 28u
/* A client's ids, and the compositor's from 0xff000000, stay below
   this many (libwayland reuses freed ids). */
#define WL_MAX_IDS (1u << 20)
#define SERVER_IDS 0xff000000u

enum stage { ST_START, ST_HEAD, ST_WAYLAND, ST_SKIP, ST_HUNT };

struct rid_stat {
	int32_t rid;
	uint32_t fills, diffs;
	uint64_t wire;		/* bytes on the wire, headers included */
	uint64_t raw;		/* bytes they stand for (fill ranges, diff sizes) */
};

struct wdir {
	enum stage stage;
	uint8_t head[4 + 4 * RIDS_READ];
	uint32_t hlen, hwant;
	uint32_t size, type;	/* the current message: unpadded size, type */
	uint64_t left;		/* bytes of it still to come after the head */
	uint64_t wl_left;	/* Wayland bytes of a PROTOCOL block still to come */
	bool replay;		/* a message the receiver already had */
	bool after_gap;
	uint32_t doubt;		/* messages still to come of a chain a hunt found */
	uint8_t *hunt;		/* ST_HUNT: the bytes not yet framed */
	size_t hunt_len, hunt_cap;
	size_t scanned;		/* hunt offsets before it were tried */
	uint32_t pend[HUNT_PENDING];	/* tried, waiting for more bytes, oldest first */
	size_t npend;
	uint8_t *again;		/* bytes a hunt framed, to pass through again */
	size_t again_len;
	uint64_t feed_start;	/* the stream offset of the packet being fed */
	uint64_t pos;
	uint32_t msgno, newest;
	uint64_t count[WP_NTYPES + 1], bytes[WP_NTYPES + 1];
	uint64_t lost;
	uint64_t lost_before;	/* lost when the hunt began */
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
	if (w->doubt)
		m.flags |= PROTO_F_UNCERTAIN;
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
		uint32_t most = w->type == WP_INJECT_RIDS ? 4 + 4 * RIDS_READ : HEAD_MAX;
		w->hwant = w->size < most ? w->size : most;
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
	if (w->type == WP_PROTOCOL) {
		if (w->doubt)
			w->doubt--;
		return;	/* its Wayland messages were reported one by one */
	}

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
		if (!w->replay && is_app(d, dir))
			wl_engine_buffer_bytes(d->e, (int32_t)a, padded);
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
		if (!w->replay && is_app(d, dir))
			wl_engine_buffer_bytes(d->e, (int32_t)a, padded);
		struct rid_stat *r = rid_stat(w, (int32_t)a);
		if (r) {
			r->diffs++;
			r->wire += padded;
			r->raw += (uint64_t)b + e;
		}
		break;
	}
	case WP_INJECT_RIDS: {
		uint32_t n = (w->size - 4) / 4;
		snprintf(detail, sizeof detail, "%u fds:", n);
		int32_t rids[RIDS_READ];
		uint32_t got = (hlen - 4) / 4;
		for (uint32_t i = 0; i < got; i++) {
			struct cursor r = cursor_init(w->head + 4 + 4 * i, 4);
			rids[i] = (int32_t)cursor_le32(&r);
			if (strlen(detail) + 16 < sizeof detail)
				snprintf(detail + strlen(detail), sizeof detail - strlen(detail),
					 "%s rid %d", i ? "," : "", rids[i]);
		}
		if (got < n)
			snprintf(detail + strlen(detail), sizeof detail - strlen(detail), ", ...");
		if (!w->replay)
			wl_engine_fd_rids(d->e, is_app(d, dir), rids, got);
		break;
	}
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
	case WP_SEND_DMAVID_PACKET:
		snprintf(detail, sizeof detail, "rid %d, %u bytes", (int32_t)a,
			 w->size > 8 ? w->size - 8 : 0);
		/* a video frame of a dmabuf: the buffer's contents too */
		if (!w->replay && is_app(d, dir))
			wl_engine_buffer_bytes(d->e, (int32_t)a, padded);
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
	if (w->doubt)
		w->doubt--;
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


/* ---- finding the framing again ---- */

/* Whether a header found by a hunt has a type waypipe 0.8 defines and a
   size that type allows (the sizes it writes: src/util.h's structures as
   0.8.4 sends them). */
static bool head_plausible(uint32_t size, uint32_t type)
{
	switch (type) {
	case WP_PROTOCOL:
		/* whole Wayland messages, each a multiple of 4 bytes */
		return size >= 4 + 8 && !(size & 3);
	case WP_INJECT_RIDS:
		return size >= 8 && !(size & 3);
	case WP_OPEN_FILE: case WP_EXTEND_FILE:
		return size >= 12 && size <= 16;
	case WP_BUFFER_FILL: case WP_BUFFER_DIFF:
		return size >= 16;
	case WP_ACK_NBLOCKS: case WP_RESTART: case WP_CLOSE:
		return size == 8;
	case WP_OPEN_DMABUF: case WP_OPEN_DMAVID_SRC: case WP_OPEN_DMAVID_DST:
	case WP_OPEN_DMAVID_SRC_V2: case WP_OPEN_DMAVID_DST_V2:
		return size >= 12;
	default:
		return type < WP_NTYPES && size >= 8;
	}
}

/* The most messages an interface of the installed XML has, one way or
   the other: an opcode at or above it is no Wayland message. */
static uint32_t wl_max_opcodes(void)
{
	static uint32_t most;
	if (!most)
		for (size_t i = 0; i < wlt_ninterfaces; i++) {
			uint32_t n = wlt_interfaces[i].nrequests > wlt_interfaces[i].nevents ?
				     wlt_interfaces[i].nrequests : wlt_interfaces[i].nevents;
			most = n > most ? n : most;
		}
	return most;
}

/* Whether a PROTOCOL block's content frames as Wayland messages: each an
   object id in the client's or the compositor's range, a size that keeps
   it inside the block, an opcode some interface has and at most the fds
   libwayland sends (waypipe's tag in bits 11-15); they tile the block.
   Either role: a hunt may not know which side sent it. */
static bool wayland_plausible(const uint8_t *b, size_t n)
{
	struct cursor c = cursor_init(b, n);
	size_t at = 0;
	while (at < n) {
		uint32_t id = cursor_le32(&c);
		uint32_t word = cursor_le32(&c);
		if (c.overrun)
			return false;
		uint32_t size = word >> 16;
		if (!(id && (id < WL_MAX_IDS || id - SERVER_IDS < WL_MAX_IDS)))
			return false;
		if (size < 8 || (size & 3) || size > n - at)
			return false;
		if ((word & 0x7ffu) >= wl_max_opcodes() || ((word >> 11) & 31) > WL_MAX_FDS)
			return false;
		cursor_skip(&c, size - 8);
		at += size;
	}
	return n > 0;
}

enum hunt_result { HUNT_BAD, HUNT_MORE, HUNT_FOUND };

/* Whether a message header begins at b[p], confirmed: a chain of
   plausible headers from it, each message (zero-padded) followed by the
   next header, holding a PROTOCOL block whose content frames as Wayland,
   and a valid header after that block; the chain's messages number
   *links.  HUNT_MORE when the chain needs bytes not yet in (never more
   than HUNT_WINDOW past p: beyond it, HUNT_BAD). */
static enum hunt_result hunt_chain(const uint8_t *b, size_t n, size_t p, uint32_t *links)
{
	size_t q = p;
	bool protocol = false;
	for (uint32_t k = 0; k <= HUNT_LINKS; k++) {
		if (q + 4 - p > HUNT_WINDOW)
			return HUNT_BAD;
		if (q + 4 > n)
			return HUNT_MORE;
		struct cursor c = cursor_init(b + q, 4);
		uint32_t h = cursor_le32(&c);
		uint32_t size = h >> 5, type = h & 31;
		if (!head_plausible(size, type))
			return HUNT_BAD;
		if (k && protocol) {
			*links = k;
			return HUNT_FOUND;
		}
		size_t padded = ((size_t)size + 3) & ~(size_t)3;
		if (q + padded - p > HUNT_WINDOW)
			return HUNT_BAD;
		if (q + padded > n)
			return HUNT_MORE;
		if (type == WP_PROTOCOL) {
			if (!wayland_plausible(b + q + 4, size - 4))
				return HUNT_BAD;
			protocol = true;
		}
		for (size_t z = q + size; z < q + padded; z++)
			if (b[z])
				return HUNT_BAD;
		q += padded;
	}
	return HUNT_BAD;
}

/* The framing is lost: the direction's next bytes are hunted for a
   message header.  The engine is told, as for a loss: the object map may
   miss what the lost bytes created. */
static void hunt_begin(struct proto_decoder *d, enum proto_dir dir)
{
	struct wdir *w = &d->h[dir];
	w->stage = ST_HUNT;
	w->hunt_len = w->scanned = w->npend = 0;
	w->lost_before = w->lost;
	w->hlen = 0;
	w->doubt = 0;
	wl_engine_gap(d->e, is_app(d, dir));
}

/* A chain confirmed the header at w->hunt[p]; `rest` is the call's data
   not yet put in the hunt buffer.  Its messages that ended in an earlier
   packet are not reported: they would be stamped with this packet's time
   (the X11 decoder's rule: a guess is undecoded until confirmed).  Those
   that end in this packet are framed again from w->again, flagged
   uncertain, and the rest of the stream as usual. */
static void hunt_found(struct proto_decoder *d, enum proto_dir dir, size_t p, uint32_t links,
		       const uint8_t *rest, size_t len)
{
	struct wdir *w = &d->h[dir];
	uint64_t base = w->pos - w->hunt_len;	/* the stream offset of w->hunt[0] */
	size_t from = p;
	uint32_t skipped = 0;
	while (skipped < links) {
		struct cursor c = cursor_init(w->hunt + from, 4);
		size_t padded = ((size_t)(cursor_le32(&c) >> 5) + 3) & ~(size_t)3;
		if (base + from + padded > w->feed_start)
			break;
		from += padded;
		skipped++;
	}
	size_t keep = w->hunt_len - from;
	uint8_t *again = malloc(keep + len);
	if (!again) {
		w->lost += w->hunt_len + len;
		w->pos += len;
		w->hunt_len = w->scanned = w->npend = 0;
		return;
	}
	memcpy(again, w->hunt + from, keep);
	if (len)
		memcpy(again + keep, rest, len);
	w->lost += from;
	note(d, dir, "waypipe: framing found at byte %llu of the stream, confirmed by the %u "
	     "headers after it, after %llu bytes not framed; %u of its messages ended in "
	     "earlier packets and are not reported", (unsigned long long)(base + p), links,
	     (unsigned long long)(w->lost - w->lost_before - (from - p)), skipped);
	w->pos -= keep;
	w->again = again;
	w->again_len = keep + len;
	w->hunt_len = w->scanned = w->npend = 0;
	w->stage = ST_HEAD;
	w->hwant = 4;
	w->doubt = links - skipped + 1;
	w->after_gap = true;
	/* message numbers from here are relative: a RESTART's replays
	   cannot be told */
	w->msgno = w->newest = 0;
}

/* Bytes while hunting.  When a chain confirms a header, the bytes from
   it on are kept in w->again to be framed (wp_feed passes them). */
static void hunt_take(struct proto_decoder *d, enum proto_dir dir, const uint8_t *data,
		      size_t len)
{
	struct wdir *w = &d->h[dir];
	const size_t cap = HUNT_WINDOW + 8;
	while (len) {
		/* the buffer grows as the bytes a candidate waits for do */
		if (w->hunt_cap < cap && w->hunt_cap - w->hunt_len < len) {
			size_t want = w->hunt_cap ? w->hunt_cap : 4096;
			while (want < cap && want - w->hunt_len < len)
				want *= 2;
			want = want < cap ? want : cap;
			uint8_t *v = realloc(w->hunt, want);
			if (!v) {
				/* no memory to hunt with: the rest is not framed */
				w->lost += w->hunt_len + len;
				w->pos += len;
				w->hunt_len = w->scanned = w->npend = 0;
				return;
			}
			w->hunt = v;
			w->hunt_cap = want;
		}
		size_t n = w->hunt_cap - w->hunt_len < len ? w->hunt_cap - w->hunt_len : len;
		memcpy(w->hunt + w->hunt_len, data, n);
		w->hunt_len += n;
		w->pos += n;
		data += n;
		len -= n;
		/* The earliest candidate a chain confirms wins.  A candidate
		   still waiting for bytes does not hold later ones back: a
		   false header that claims a long message would keep the true
		   one waiting for up to HUNT_WINDOW bytes. */
		uint32_t links = 0;
		size_t keep = 0;
		for (size_t i = 0; i < w->npend; i++) {
			size_t p = w->pend[i];
			enum hunt_result r = hunt_chain(w->hunt, w->hunt_len, p, &links);
			if (r == HUNT_FOUND) {
				w->npend = 0;
				hunt_found(d, dir, p, links, data, len);
				return;
			}
			if (r == HUNT_MORE)
				w->pend[keep++] = (uint32_t)p;
		}
		w->npend = keep;
		for (; w->scanned + 4 <= w->hunt_len; w->scanned++) {
			enum hunt_result r = hunt_chain(w->hunt, w->hunt_len, w->scanned, &links);
			if (r == HUNT_FOUND) {
				size_t p = w->scanned;
				w->npend = 0;
				hunt_found(d, dir, p, links, data, len);
				return;
			}
			/* too many open at once: the oldest is given up */
			if (r == HUNT_MORE && w->npend == HUNT_PENDING) {
				memmove(w->pend, w->pend + 1, (HUNT_PENDING - 1) * sizeof *w->pend);
				w->npend--;
			}
			if (r == HUNT_MORE)
				w->pend[w->npend++] = (uint32_t)w->scanned;
		}
		/* bytes before the first candidate still open can begin nothing */
		size_t drop = w->npend ? w->pend[0] : w->scanned;
		w->lost += drop;
		memmove(w->hunt, w->hunt + drop, w->hunt_len - drop);
		w->hunt_len -= drop;
		w->scanned -= drop;
		for (size_t i = 0; i < w->npend; i++)
			w->pend[i] -= (uint32_t)drop;
	}
}

/* Frames a direction's bytes (wp_feed: and again those a hunt kept). */
static void frame(struct proto_decoder *d, enum proto_dir dir, const uint8_t *data, size_t len)
{
	struct wdir *w = &d->h[dir];
	size_t i = 0;
	while (i < len) {
		switch (w->stage) {
		case ST_HUNT:
			hunt_take(d, dir, data + i, len - i);
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
				if (d->app_dir < 0) {
					/* no token on either side: the capture began
					   after the channel did, anywhere in a message
					   (4 bytes cannot confirm a header: hunt_take
					   does not finish here) */
					w->pos -= 4;
					hunt_begin(d, dir);
					hunt_take(d, dir, w->head, 4);
					break;
				}
			}
			if (w->hlen == 4) {
				w->size = h >> 5;
				w->type = h & 31;
				if (w->size < 4) {
					note(d, dir, "waypipe: message of %u bytes: framing lost", w->size);
					w->pos -= 3;
					w->lost++;
					hunt_begin(d, dir);
					hunt_take(d, dir, w->head + 1, 3);
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

static void wp_feed(struct proto_decoder *d, enum proto_dir dir, const uint8_t *data, size_t len)
{
	struct wdir *w = &d->h[dir];
	w->feed_start = w->pos;
	frame(d, dir, data, len);
	while (w->again_len) {
		uint8_t *again = w->again;
		size_t n = w->again_len;
		w->again = NULL;
		w->again_len = 0;
		frame(d, dir, again, n);
		free(again);
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
	w->lost += len;
	if (w->stage == ST_HUNT) {
		/* a chain cannot run across the hole */
		w->lost += w->hunt_len;
		w->hunt_len = w->scanned = w->npend = 0;
		return;
	}
	note(d, dir, "waypipe: %llu bytes lost outside a message's known length: framing lost",
	     (unsigned long long)len);
	hunt_begin(d, dir);
}

static void wp_end(struct proto_decoder *d, enum proto_dir dir)
{
	struct wdir *w = &d->h[dir];
	wl_engine_end(d->e, is_app(d, dir));
	if (w->stage == ST_HUNT) {
		w->lost += w->hunt_len;
		w->hunt_len = w->scanned = w->npend = 0;
	}
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

/* The engine's messages pass here: those of a chain a hunt found are
   flagged uncertain, as waypipe's own are. */
static void engine_message(void *ctx, const struct proto_msg *msg)
{
	struct proto_decoder *d = ctx;
	if (!d->sink.message)
		return;
	if (!d->h[msg->dir].doubt) {
		d->sink.message(d->sink.ctx, msg);
		return;
	}
	struct proto_msg m = *msg;
	m.flags |= PROTO_F_UNCERTAIN;
	d->sink.message(d->sink.ctx, &m);
}

static void engine_note(void *ctx, enum proto_dir dir, const char *text)
{
	struct proto_decoder *d = ctx;
	if (d->sink.note)
		d->sink.note(d->sink.ctx, dir, text);
}

static struct proto_decoder *wp_create(const struct proto_sink *sink)
{
	struct proto_decoder *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->sink = *sink;
	d->app_dir = -1;
	const struct proto_sink inner = { .ctx = d, .message = engine_message, .note = engine_note };
	d->e = wl_engine_new(&inner, true);
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
	for (int i = 0; i < 2; i++) {
		free(d->h[i].rids);
		free(d->h[i].hunt);
		free(d->h[i].again);
	}
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
