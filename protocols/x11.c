/*
 * x11.c — the X11 decoder: frames both byte streams of a connection into
 * setup messages, requests, replies, events and errors, numbers them as
 * the server does, and names them from the tables generated from
 * xcb-proto (x11_tables.h).
 *
 * What it has to get right, and where:
 *   byte order        from the first byte of the setup request; guessed
 *                     from what frames best when the capture began later
 *   setup             its own framing in both directions (decode_setup_*)
 *   sequence numbers  requests are counted; replies, events and errors
 *                     carry 16 bits, widened against that count (widen_seq16)
 *   BIG-REQUESTS      a request length of 0 means a 32-bit length follows
 *   extensions        majors and event/error bases per connection, learned
 *                     from QueryExtension replies (learn_extension)
 *   GenericEvent      code 35 with its own length, named by extension and
 *                     event type; XKB events are named by their sub-type
 *   SendEvent         the top bit of the code, kept as a flag
 *   KeymapNotify      the one event without a sequence number
 *   several replies   a request keeps its place until a later sequence
 *                     number answers (ListFontsWithInfo, RecordEnableContext)
 *   errors            tied to the request with their sequence number
 *   holes             skipped when they fall inside a message; otherwise
 *                     the stream is searched for a run of well-formed
 *                     messages (resync) and the decoder says what it lost
 *   guesses           framing found after a hole or a late start is a
 *                     guess, undecoded until confirmed and dropped when
 *                     the server's messages refute it (s2c_refutes); a
 *                     count of requests taken from a reply keeps the other
 *                     counts that reply fits as rivals until later replies
 *                     rule them out (check_realignment); past 65,536
 *                     requests' worth of lost bytes it is right modulo
 *                     65,536 only
 *
 * Only the first MSG_CAP bytes of a message are kept (enough for every
 * detail shown); the rest is counted and skipped, so a 16 MB PutImage
 * costs no copying.
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
#include "digits.h"
#include "protocol.h"
#include "x11_frame.h"
#include "x11_names.h"
#include "x11_tables.h"

enum {
	MSG_CAP = PROTO_X11_KEEP,	/* bytes of a message kept for details */
	RESYNC_MAX = 64 * 1024,		/* bytes searched for a boundary at once */
	PENDING_MAX = 4096,		/* reply-bearing requests awaiting a reply */
	ATOMS_MAX = 65536,		/* atom names remembered per connection */
};

/* What the first byte of a server message says, besides the event codes
   xcb-proto numbers (x11_names.h): the protocol's framing, which no XML
   describes. */
enum {
	X11_CODE_ERROR = 0,
	X11_CODE_REPLY = 1,
	X11_SEND_EVENT = 0x80,	/* set on an event sent with SendEvent */
};

enum stream_state {
	ST_SETUP,	/* expecting the setup request or its reply */
	ST_MESSAGES,	/* framing known */
	ST_RESYNC,	/* looking for a message boundary */
};

struct stream_dir {
	enum stream_state state;
	uint8_t buf[MSG_CAP];	/* the current message's first bytes */
	size_t have;		/* bytes in buf */
	uint64_t need;		/* the message's length, 0 while unknown */
	size_t keep;		/* how many of its first bytes decoding reads */
	uint64_t got;		/* bytes of it seen (kept or skipped) */
	uint64_t offset;	/* stream offset of the next byte */
	bool hole_in_msg;	/* part of the current message was never seen */
	bool after_gap;		/* the next message is the first after a hole */
	uint8_t *rs;		/* resync: bytes since the hole */
	uint8_t *rs_spare;	/* a resync buffer kept for the next time */
	size_t rs_len;
	uint64_t rs_skipped;	/* bytes given up on since the hole */
	bool seen_data;
	int align;		/* stream offset of boundaries mod 4; -1 unknown */
	bool hole_at_boundary;	/* try the byte after the hole as a boundary */
	size_t rs_checked;	/* rs positions before this cannot be boundaries */
	size_t rs_scanned;	/* rs_len when the last search ran */
	/* Client framing found again after a hole is a guess until the
	   evidence confirms it (confirm_framing): until then its requests are
	   counted as undecoded bytes, never reported as messages. */
	bool tentative;
	bool tent_note;		/* confirmed: say what was not decoded */
	uint64_t tent_before;	/* bytes given up on before the guessed boundary */
	uint64_t tent_start;	/* stream offset of the guessed boundary */
	uint64_t tent_requests;	/* d->requests at the guessed boundary */
	uint64_t tent_longest;	/* the longest request read from the guess */
	uint64_t tent_holes;	/* bytes of holes inside its requests: lost, not undecoded */
	unsigned tent_regular;	/* requests read from it that repeat the last reported */
	int tent_align;		/* align before the guess: it may have set a wrong one */
	int tent_seq;		/* server: the last sequence number read from it, -1 none */
	uint64_t tent_last_seq;	/* server: last_s2c_seq before the guess, which a
				   refuted guess must not leave behind */
	bool after_loss;	/* searching since a hole or broken framing, not
				   since a capture begun mid-connection */
};

struct pending {
	uint64_t seq;
	const struct x11_request *req;
	const char *ext;	/* extension name, NULL for core */
	uint8_t major;
	uint16_t minor;
	char *arg;		/* InternAtom's or QueryExtension's name */
	uint32_t atom;		/* GetAtomName's atom */
	uint8_t first_keycode, keycode_count;	/* GetKeyboardMapping's range */
	uint32_t epoch;		/* numbered from the count of this loss
				   (proto_decoder.loss_epoch), 0 when certain */
};

struct ext_state {
	const struct x11_extension *desc;	/* NULL: not known to xcb-proto */
	const char *xname;
	uint8_t first_event, first_error;
	bool present;
	bool xkb;	/* XKEYBOARD: all its events share one code, byte 1 says which */
};

struct atom {
	uint32_t id;
	char *name;
};

/* What a request's first byte (its major opcode) says of it, for judging
   bytes that may begin one (plausible_request): request_rule() makes it.
   The search judges a candidate by a copy of these in a table made once
   per change of the extensions known, not by walking the descriptor
   tables (request_desc) for each one. */
enum rule_kind {
	RULE_NONE,	/* no request begins with this byte */
	RULE_ANY,	/* a major no QueryExtension reply named: any length */
	RULE_EXT,	/* a known extension's: the fixed part of its minor's layout */
	RULE_LOOSE,	/* NoOperation: its fixed part, then anything */
	RULE_CORE,	/* a core request: exactly its layout */
};

struct request_rule {
	struct x11_layout layout;	/* RULE_LOOSE and RULE_CORE */
	uint8_t kind;			/* enum rule_kind */
};

struct proto_decoder {
	struct proto_sink sink;
	char order;		/* 'l', 'B', or 0 while unknown */
	bool order_guessed;	/* from framing, not from the setup byte */
	struct stream_dir h[2];
	uint64_t requests;	/* requests sent: the last request's number */
	bool seq_uncertain;	/* requests were lost or the capture began late */
	uint64_t uncertain_after;	/* requests up to this one are numbered right */
	uint32_t loss_epoch;		/* counts losses: the requests numbered since
					   the last are the ones a new count moves */
	uint64_t unseen_max;		/* at most this many requests went unseen since */
	int64_t unseen_min;		/* a realignment since may have counted up to
					   -unseen_min too many (0 or less) */
	bool realigned;			/* numbers fixed by a reply, not yet confirmed */
	/* Other counts the realigning answer fitted as well (moves from the
	   one taken, always back: the answer was taken for the oldest
	   request it fits), until later answers rule them out.  The count is
	   not confirmed while one remains; rivals_lost: more than we keep. */
	int64_t rivals[8];
	unsigned n_rivals;
	bool rivals_lost;
	uint64_t longest_request;	/* of those reported: the stream's scale */
	uint64_t regular_length;	/* the last request reported, which a regular */
	unsigned regular_major;		/* stream repeats */
	uint64_t last_s2c_seq;
	struct pending *pending;	/* ring of reply-bearing requests */
	size_t p_head, p_len;
	struct ext_state ext[128];	/* by major opcode - 128 */
	uint8_t event_ext[128];		/* by event code: 1 + index into ext, 0 none */
	bool any_ext_events;
	uint64_t ext_gen;		/* counts changes of ext[] and event_ext[] */
	bool ext_unsure;		/* a QueryExtension reply may have been missed */
	/* first_bytes() per direction, made when the search last needed it:
	   valid while first_key[dir] is first_key_now(), 0 never made; and
	   with the client's, request_rule() of every first byte. */
	bool first_ok[2][256];
	uint64_t first_key[2];
	struct request_rule rules[256];
	struct atom *atoms;		/* open hash by id */
	size_t n_atoms, atoms_cap;
	char *client_names[4];		/* last text per source, to say it once */
	char scratch[128];		/* composed names: "BadWindow" */
	/* The first keysym of each keycode, from the client's
	   GetKeyboardMapping replies (as far as their kept bytes go); 0 when
	   not seen.  Key events name it. */
	uint32_t keysym[256];
	uint8_t first[4];		/* the client's first bytes, until decided */
	size_t first_len;
	bool start_decided;
};

/* ---- small helpers ---- */

/* A message's bytes (as many as were kept) are read through a cursor at
   the offsets the protocol gives.  A field beyond them reads as 0: the
   decoder checks a message's length where a field matters, and a check it
   lacks can only cost a detail, never a read outside the message. */
static uint8_t at8(const struct cursor *b, size_t off)
{
	return cursor_peek_u8(b, off, NULL);
}

/* big: the byte order as a value of its own rather than d->order, which
   the boundary search's code reloaded from memory after every store (a
   char may alias anything) and kept on the stack; each search is made
   once per order with it constant. */
static inline uint16_t at16_in(bool big, const struct cursor *b, size_t off)
{
	return cursor_peek_u16(b, off, big, NULL);
}

static inline uint32_t at32_in(bool big, const struct cursor *b, size_t off)
{
	return cursor_peek_u32(b, off, big, NULL);
}

static uint16_t at16(const struct proto_decoder *d, const struct cursor *b, size_t off)
{
	return at16_in(d->order == 'B', b, off);
}

static uint32_t at32(const struct proto_decoder *d, const struct cursor *b, size_t off)
{
	return at32_in(d->order == 'B', b, off);
}

/* A count field of 1, 2 or 4 bytes, as the tables give its size.  Inline:
   a call took the address of the search's cursor, which then lived on the
   stack. */
static inline uint32_t at_n(bool big, const struct cursor *b, size_t off, unsigned size)
{
	return size == 1 ? at8(b, off) : size == 2 ? at16_in(big, b, off) : at32_in(big, b, off);
}

/* The n bytes at off, or NULL when the message does not hold them all. */
static const uint8_t *bytes_at(const struct cursor *b, size_t off, size_t n)
{
	return cursor_peek_span(b, off, n);
}

/* A cursor over a whole chunk or message that lies in memory. */
static inline struct cursor over(const uint8_t *p, size_t n)
{
	return cursor_init(p, n);
}

static void note(struct proto_decoder *d, enum proto_dir dir, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void note(struct proto_decoder *d, enum proto_dir dir, const char *fmt, ...)
{
	if (!d->sink.note)
		return;
	char text[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	d->sink.note(d->sink.ctx, dir, text);
}

/* Append to a detail, space-separated, never overflowing. */
static void detail_add(struct proto_msg *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void detail_add(struct proto_msg *m, const char *fmt, ...)
{
	size_t n = strlen(m->detail);
	if (n + 2 >= sizeof m->detail)
		return;
	if (n)
		m->detail[n++] = ' ';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->detail + n, sizeof m->detail - n, fmt, ap);
	va_end(ap);
}

/* Appends "name=" and the len bytes of val, space-separated and cut where
   the detail ends, as detail_add would: the fields of every message are put
   by hand, for a format costs ten times their copying. */
static void detail_field(struct proto_msg *m, const char *name, const char *val, size_t len)
{
	size_t n = strlen(m->detail);
	if (n + 2 >= sizeof m->detail)
		return;
	if (n)
		m->detail[n++] = ' ';
	char *p = m->detail + n, *end = m->detail + sizeof m->detail - 1;
	while (*name && p < end)
		*p++ = *name++;
	if (p < end)
		*p++ = '=';
	size_t room = (size_t)(end - p);
	if (len > room)
		len = room;
	memcpy(p, val, len);
	p[len] = '\0';
}

static void detail_u32(struct proto_msg *m, const char *name, uint32_t v, bool hex)
{
	char buf[12];
	char *t = text_u32(buf, v, hex);
	detail_field(m, name, t, (size_t)(buf + 12 - t));
}

/* The n bytes at off as a string; NULL when they are not all there. */
static char *dup_at(const struct cursor *b, size_t off, size_t n)
{
	const uint8_t *p = bytes_at(b, off, n);
	char *s = p ? malloc(n + 1) : NULL;
	if (s) {
		memcpy(s, p, n);
		s[n] = '\0';
	}
	return s;
}

/* ---- atoms ---- */

static const char *atom_name(const struct proto_decoder *d, uint32_t id)
{
	if (id < x11_npredefined_atoms && x11_predefined_atoms[id])
		return x11_predefined_atoms[id];
	if (!d->atoms_cap)
		return NULL;
	for (size_t i = id & (d->atoms_cap - 1);; i = (i + 1) & (d->atoms_cap - 1)) {
		if (!d->atoms[i].name)
			return NULL;
		if (d->atoms[i].id == id)
			return d->atoms[i].name;
	}
}

static void atom_learn(struct proto_decoder *d, uint32_t id, const char *name)
{
	if (!id || !name || id < x11_npredefined_atoms || atom_name(d, id) ||
	    d->n_atoms >= ATOMS_MAX)
		return;
	if (2 * (d->n_atoms + 1) > d->atoms_cap) {
		size_t cap = d->atoms_cap ? 2 * d->atoms_cap : 256;
		struct atom *a = calloc(cap, sizeof *a);
		if (!a)
			return;
		for (size_t i = 0; i < d->atoms_cap; i++) {
			if (!d->atoms[i].name)
				continue;
			size_t j = d->atoms[i].id & (cap - 1);
			while (a[j].name)
				j = (j + 1) & (cap - 1);
			a[j] = d->atoms[i];
		}
		free(d->atoms);
		d->atoms = a;
		d->atoms_cap = cap;
	}
	char *copy = strdup(name);
	if (!copy)
		return;
	size_t i = id & (d->atoms_cap - 1);
	while (d->atoms[i].name)
		i = (i + 1) & (d->atoms_cap - 1);
	d->atoms[i] = (struct atom){ id, copy };
	d->n_atoms++;
}

/* ---- the table of requests awaiting replies ---- */

static struct pending *pending_at(struct proto_decoder *d, size_t i)
{
	return &d->pending[(d->p_head + i) % PENDING_MAX];
}

static void pending_drop_front(struct proto_decoder *d)
{
	free(pending_at(d, 0)->arg);
	d->p_head = (d->p_head + 1) % PENDING_MAX;
	d->p_len--;
}

/* Forget the requests numbered after seq: they were read from a guess
   the stream has since refuted. */
static void pending_drop_after(struct proto_decoder *d, uint64_t seq)
{
	while (d->p_len && pending_at(d, d->p_len - 1)->seq > seq) {
		free(pending_at(d, d->p_len - 1)->arg);
		d->p_len--;
	}
}

static void pending_push(struct proto_decoder *d, const struct pending *p)
{
	if (d->p_len == PENDING_MAX)
		pending_drop_front(d);	/* a reply that never came */
	*pending_at(d, d->p_len) = *p;
	d->p_len++;
}

/* The request a reply or error with this sequence number answers, after
   dropping those it shows will get no reply.  NULL when unknown. */
static struct pending *pending_match(struct proto_decoder *d, uint64_t seq)
{
	while (d->p_len && pending_at(d, 0)->seq < seq)
		pending_drop_front(d);
	if (d->p_len && pending_at(d, 0)->seq == seq)
		return pending_at(d, 0);
	return NULL;
}

/* The server message being matched to a waiting request: a reply, or an
   error (which names the opcodes of the request that failed). */
struct answer {
	struct cursor b;	/* its first bytes */
	uint64_t len;		/* its whole length */
	bool error;
};

static bool layout_fits(bool big, const struct x11_layout *l, bool exact,
			const struct cursor *b, uint64_t bytes, unsigned shift, uint64_t least);

/* Could this answer the waiting request p?  A reply must have the length
   its request's reply can have; an error must name p's opcodes. */
static bool answers(const struct proto_decoder *d, const struct pending *p, const struct answer *a)
{
	if (a->error)
		return a->b.len >= 11 && at8(&a->b, 10) == p->major &&
		       (p->major < 128 || (uint8_t)at16(d, &a->b, 8) == (uint8_t)p->minor);
	if (!p->req)
		return true;	/* an extension the tables do not describe */
	return layout_fits(d->order == 'B', &p->req->reply_layout, p->major < 128, &a->b, a->len, 0, 32);
}

/* Requests were counted from a guess; a reply or error says the truth:
   shift the count so that the oldest waiting request it could answer
   gets its number, if no more requests than could have been lost lie
   between.  (An error may be about a request that wanted no reply, which
   is not waiting: then nothing can be learned.) */
static bool fit_tells(const struct pending *p);

/* How far the count must move for the request numbered seq to be the one
   the server numbers seq16: the server gives 16 bits, so every move that
   many apart modulo 65536 would do.  The count can have missed at most
   unseen_max requests, and counted at most -unseen_min too many (a
   realignment that proved wrong); of the moves within those bounds, the
   smallest.  False when none is within them. */
static bool count_shift(const struct proto_decoder *d, uint16_t seq16, uint64_t seq,
			int64_t *shift)
{
	int64_t up = (uint16_t)(seq16 - (uint16_t)seq), down = up - 0x10000;
	bool up_ok = (uint64_t)up <= d->unseen_max, down_ok = down >= d->unseen_min;
	if (!up_ok && !down_ok)
		return false;
	*shift = up_ok && (!down_ok || up <= -down) ? up : down;
	return true;
}

/* A reply no waiting request numbered after the loss can answer: does it
   refute the client's framing guessed after the hole?  The reply answers
   a request the client sent before it, one that wants a reply: one
   numbered before the loss (none waits with its number: realign looked),
   one lost in a hole, or one read from the guess.  When fewer requests
   can lie after the loss than 16 bits count, its number names one place:
   past what the holes and the requests counted before the guess can hold,
   it is in the guess, which has no request there that wants a reply of
   its length (realign found none within the count's bounds).  The server
   says the guess is wrong. */
static uint64_t tentative_abandon(struct proto_decoder *d, struct stream_dir *h, uint64_t upto);
static void start_resync(struct stream_dir *h);

static bool client_guess_refuted(const struct proto_decoder *d, uint16_t seq16,
				 const struct answer *a)
{
	const struct stream_dir *c = &d->h[PROTO_C2S];
	if (a->error || !c->tentative || c->state != ST_MESSAGES ||
	    d->h[PROTO_S2C].tentative || d->p_len == PENDING_MAX || d->unseen_min != 0 ||
	    d->unseen_max >= 0x8000 || d->requests < c->tent_requests ||
	    c->tent_requests < d->uncertain_after)
		return false;
	uint64_t before = c->tent_requests - d->uncertain_after + d->unseen_max;
	uint64_t span = d->requests - d->uncertain_after + d->unseen_max;
	if (span >= 0x10000)
		return false;
	uint64_t j = (uint16_t)(seq16 - (uint16_t)d->uncertain_after);
	return j > before && j <= span;
}

/* Give up the client's guessed framing and search again from here. */
static void refute_client_guess(struct proto_decoder *d)
{
	struct stream_dir *c = &d->h[PROTO_C2S];
	note(d, PROTO_C2S, "framing guessed after the loss refuted by the server's request numbers");
	uint64_t undecoded = tentative_abandon(d, c, c->offset);
	start_resync(c);
	c->after_loss = true;
	c->rs_skipped += undecoded;
}

static void realign(struct proto_decoder *d, uint16_t seq16, const struct answer *a)
{
	if (!d->seq_uncertain)
		return;
	/* A late answer to a request numbered before the loss says nothing. */
	size_t first = d->p_len;
	int64_t delta = 0;
	for (size_t i = 0; i < d->p_len; i++) {
		struct pending *p = pending_at(d, i);
		if (p->seq <= d->uncertain_after) {
			if ((uint16_t)p->seq == seq16)
				return;
		} else if (first == d->p_len && answers(d, p, a) &&
			   count_shift(d, seq16, p->seq, &delta)) {
			first = i;
		}
	}
	if (first == d->p_len) {
		if (client_guess_refuted(d, seq16, a))
			refute_client_guess(d);
		return;
	}
	bool unknown = d->unseen_max == UINT64_MAX;	/* a late start */
	bool wrapped = d->unseen_max >= 0x10000 && !unknown;
	/* Later requests the answer fits as well, within the bounds: which
	   one it is for, later answers must tell. */
	d->n_rivals = 0;
	d->rivals_lost = false;
	for (size_t i = first + 1; i < d->p_len; i++) {
		struct pending *q = pending_at(d, i);
		int64_t other;
		if (!answers(d, q, a) || !count_shift(d, seq16, q->seq, &other) || other == delta)
			continue;
		bool known = false;
		for (unsigned k = 0; k < d->n_rivals; k++)
			known |= d->rivals[k] == other - delta;
		if (known)
			continue;
		if (d->n_rivals == sizeof d->rivals / sizeof d->rivals[0])
			d->rivals_lost = true;
		else
			d->rivals[d->n_rivals++] = other - delta;
	}
	/* Every request counted since the loss moves, those before the one
	   answered too (their replies were lost): left behind, one could
	   take the number the answer gives. */
	for (size_t i = 0; i < d->p_len; i++)
		if (pending_at(d, i)->epoch == d->loss_epoch)
			pending_at(d, i)->seq += (uint64_t)delta;
	d->requests += (uint64_t)delta;
	/* What the count may still be off by, now that it moved. */
	d->unseen_min -= delta;
	if (delta >= 0)
		d->unseen_max = d->unseen_max == UINT64_MAX ? UINT64_MAX : d->unseen_max - (uint64_t)delta;
	else if (d->unseen_max != UINT64_MAX)
		d->unseen_max += (uint64_t)-delta;
	struct stream_dir *c = &d->h[PROTO_C2S];
	if (c->tentative) {
		c->tent_requests += (uint64_t)delta;	/* the unseen requests lie before the guess */
		/* When fewer requests can have gone unseen than 16 bits count,
		   the answer's number names one request alone: an answer of a
		   length only that request's reply has, to a request read from
		   the guess, confirms the guess. */
		struct pending *p = pending_at(d, first);
		if (d->unseen_max < 0x8000 && p->seq > c->tent_requests && fit_tells(p)) {
			c->tentative = false;
			c->tent_note = true;
		}
	}
	d->seq_uncertain = false;
	d->realigned = true;
	if (unknown)
		/* Nobody counted the requests sent before the capture began:
		   the server's 16 bits are all there is. */
		note(d, PROTO_S2C, "request numbers taken from a reply: the capture began "
		     "mid-connection, so they are right modulo 65536 only");
	else if (wrapped)
		/* The server's numbers have 16 bits: bytes lost that could hold
		   65,536 requests or more (over 256 KB) leave the count known
		   modulo 65,536 only.  Replies still pair with their requests
		   (by those 16 bits); the count's higher part is the least the
		   holes allow, not a fact. */
		note(d, PROTO_S2C, "request numbers taken from a reply: %lld requests were not seen, "
		     "or that many and a multiple of 65536: the bytes lost could hold 65536 requests "
		     "or more, so request numbers from here are right modulo 65536 only",
		     (long long)delta);
	else if (delta >= 0)
		note(d, PROTO_S2C, "request numbers taken from a reply: %lld requests were not seen",
		     (long long)delta);
	else
		note(d, PROTO_S2C, "request numbers taken from a reply: %lld requests fewer than counted",
		     (long long)-delta);
}

/* Does a reply that fits p's say much?  Only one whose length the core
   protocol fixes (GetGeometry's 32 bytes, QueryTree's count of children):
   a GetImage reply may be any length, and so fits any reply at all. */
static bool fit_tells(const struct pending *p)
{
	if (!p->req || p->major >= 128)
		return false;
	const struct x11_layout *l = &p->req->reply_layout;
	return l->shape == X11_SHAPE_FIXED || (l->shape == X11_SHAPE_LIST && l->count_size);
}

/* Is there a waiting request numbered seq16 once every number moves by
   shift, that the answer fits? */
static struct pending *fits_at(struct proto_decoder *d, uint16_t seq16, int64_t shift,
			       const struct answer *a)
{
	for (size_t i = 0; i < d->p_len; i++) {
		struct pending *p = pending_at(d, i);
		if ((uint16_t)(p->seq + (uint64_t)shift) == seq16 && answers(d, p, a))
			return p;
	}
	return NULL;
}

/* Move the count by shift (a rival's), with what it may still be off by. */
static void move_count(struct proto_decoder *d, int64_t shift)
{
	for (size_t i = 0; i < d->p_len; i++) {
		struct pending *p = pending_at(d, i);
		if (p->epoch == d->loss_epoch)
			p->seq += (uint64_t)shift;
	}
	d->requests += (uint64_t)shift;
	d->unseen_min -= shift;
	if (shift >= 0)
		d->unseen_max = d->unseen_max == UINT64_MAX ? UINT64_MAX : d->unseen_max - (uint64_t)shift;
	else if (d->unseen_max != UINT64_MAX)
		d->unseen_max += (uint64_t)-shift;
	struct stream_dir *c = &d->h[PROTO_C2S];
	if (c->tentative)
		c->tent_requests += (uint64_t)shift;
}

/* After a realignment, later replies either confirm it (one answers a
   request we hold, and has the length only that request's reply has,
   and no other count the realigning answer fitted fits them all), leave
   it open (one fits a request we hold, but would fit others too), show
   it wrong while a rival count fits (then that count is taken, still
   unconfirmed), or show it wrong: then the count is a guess again.  A
   run of InternAtoms whose first replies came before the capture began
   fits a count one too high as well as the right one, until a reply of
   another length (QueryFont's) tells them apart. */
static void check_realignment(struct proto_decoder *d, uint16_t seq16, const struct answer *a)
{
	if (!d->realigned)
		return;
	struct pending *p = fits_at(d, seq16, 0, a);
	unsigned kept = 0;
	for (unsigned k = 0; k < d->n_rivals; k++)
		if (fits_at(d, seq16, d->rivals[k], a))
			d->rivals[kept++] = d->rivals[k];
	d->n_rivals = kept;
	if (!p && kept) {
		int64_t shift = d->rivals[0];
		move_count(d, shift);
		for (unsigned k = 1; k < kept; k++)
			d->rivals[k - 1] = d->rivals[k] - shift;
		d->n_rivals = kept - 1;
		note(d, PROTO_S2C, "request numbers moved by %lld: a later reply fits only that count",
		     (long long)shift);
		p = fits_at(d, seq16, 0, a);
	}
	if (p) {
		if (fit_tells(p) && !d->n_rivals && !d->rivals_lost) {
			/* The numbering, and with it a byte order guessed from
			   framing, are now known. */
			d->realigned = false;
			d->order_guessed = false;
			/* Two answers, each of a length only its request's reply
			   has, to requests read from the guessed framing, as many
			   requests apart as the server's numbers say (realign
			   fixed the first): the guess is the client's framing. */
			struct stream_dir *c = &d->h[PROTO_C2S];
			if (c->tentative && p->seq > c->tent_requests) {
				c->tentative = false;
				c->tent_note = true;
			}
		}
		return;
	}
	d->seq_uncertain = true;
	d->realigned = false;
}

/* Requests from here on are counted from a guess: `bytes` bytes of the
   client's stream went undecoded (UINT64_MAX: nobody knows how many), and
   since every request is at least 4 bytes long, at most a quarter as many
   requests went unseen. */
static void lose_count(struct proto_decoder *d, uint64_t bytes)
{
	if (!d->seq_uncertain) {
		d->uncertain_after = d->requests;
		d->unseen_max = 0;
		d->unseen_min = 0;
		if (++d->loss_epoch == 0)
			d->loss_epoch = 1;
	}
	d->seq_uncertain = true;
	uint64_t more = bytes == UINT64_MAX ? UINT64_MAX : bytes / 4;
	d->unseen_max = more > UINT64_MAX - d->unseen_max ? UINT64_MAX : d->unseen_max + more;
}

/* The full sequence number of a 16-bit one from the server: the latest
   request sent with those low bits. */
static uint64_t widen_seq16(struct proto_decoder *d, uint16_t s)
{
	uint64_t ref = d->requests;
	uint64_t w = (ref & ~(uint64_t)0xffff) | s;
	if (w > ref && w >= 0x10000)
		w -= 0x10000;
	d->last_s2c_seq = w;
	return w;
}

/* ---- extensions ---- */

static const struct x11_extension *extension_by_xname(const char *xname)
{
	for (size_t i = 0; i < x11_nextensions; i++)
		if (strcmp(x11_extensions[i]->xname, xname) == 0)
			return x11_extensions[i];
	return NULL;
}

/* The extension whose events start at or below code, nearest first: a
   table by code, rebuilt whenever an extension becomes known, because
   resynchronisation asks this for every candidate byte. */
static void index_events(struct proto_decoder *d)
{
	memset(d->event_ext, 0, sizeof d->event_ext);
	d->any_ext_events = false;
	d->ext_gen++;
	for (unsigned code = 64; code < 128; code++) {
		const struct ext_state *best = NULL;
		for (int i = 0; i < 128; i++) {
			const struct ext_state *e = &d->ext[i];
			if (!e->present || !e->desc || !e->desc->nevents || !e->first_event ||
			    e->first_event > code)
				continue;
			if (e->xkb ? code != e->first_event : code - e->first_event >= e->desc->nevents)
				continue;
			if (!best || e->first_event > best->first_event)
				best = e;
		}
		d->event_ext[code] = best ? (uint8_t)(best - d->ext + 1) : 0;
		d->any_ext_events |= best != NULL;
	}
}

static void learn_extension(struct proto_decoder *d, const char *xname, const struct cursor *r,
			    struct proto_msg *m)
{
	if (r->len < 12)
		return;
	bool present = at8(r, 8) != 0;
	uint8_t major = at8(r, 9), first_event = at8(r, 10), first_error = at8(r, 11);
	if (!present) {
		detail_add(m, "present=no");
		return;
	}
	detail_add(m, "major=%u first_event=%u first_error=%u", major, first_event, first_error);
	if (major < 128 || !xname)
		return;
	struct ext_state *e = &d->ext[major - 128];
	e->desc = extension_by_xname(xname);
	e->xname = e->desc ? e->desc->xname : NULL;
	e->first_event = first_event;
	e->first_error = first_error;
	e->present = true;
	e->xkb = e->desc && strcmp(e->desc->xname, X11_XNAME_xkb) == 0;
	index_events(d);
	if (d->sink.extension)
		d->sink.extension(d->sink.ctx, xname, major, first_event, first_error);
}

static const struct ext_state *extension_for_event(const struct proto_decoder *d, uint8_t code,
						   unsigned *index)
{
	if (code >= 128 || !d->event_ext[code])
		return NULL;
	const struct ext_state *e = &d->ext[d->event_ext[code] - 1];
	*index = code - e->first_event;
	return e;
}

static const struct ext_state *extension_for_error(const struct proto_decoder *d, uint8_t code,
						   unsigned *index)
{
	for (int i = 0; i < 128; i++) {
		const struct ext_state *e = &d->ext[i];
		if (e->present && e->desc && e->desc->nerrors && e->first_error &&
		    code >= e->first_error && code - e->first_error < e->desc->nerrors &&
		    e->desc->errors[code - e->first_error]) {
			*index = code - e->first_error;
			return e;
		}
	}
	return NULL;
}

/* The descriptor of a request, and its extension's name. */
static const struct x11_request *request_desc(const struct proto_decoder *d, uint8_t major,
					      uint8_t minor, const char **ext)
{
	*ext = NULL;
	const struct x11_extension *t;
	unsigned op;
	if (major < 128) {
		t = x11_core_protocol;
		op = major;
	} else {
		const struct ext_state *e = &d->ext[major - 128];
		*ext = e->xname;
		t = e->desc;
		op = minor;
		if (!t)
			return NULL;
	}
	if (op >= t->nrequests || !t->requests[op].name)
		return NULL;
	return &t->requests[op];
}

/* ---- details ---- */

static void put_atom(const struct proto_decoder *d, struct proto_msg *m, const char *field,
		     uint32_t atom)
{
	const char *name = atom_name(d, atom);
	if (atom == 0)
		detail_field(m, field, "None", 4);
	else if (name)
		detail_field(m, field, name, strlen(name));
	else
		detail_u32(m, field, atom, false);
}

/* Printable text of up to n bytes, quoted when it holds spaces. */
static void put_string(struct proto_msg *m, const char *field, const struct cursor *b, size_t off,
		       size_t n)
{
	char text[128];
	size_t k = 0;
	bool space = false;
	/* the string: n bytes at off, as far as the message holds them */
	struct cursor s = *b;
	if (!cursor_seek(&s, off))
		n = 0;
	if (n > cursor_left(&s))
		n = cursor_left(&s);
	struct cursor str = cursor_sub(&s, n);
	while (cursor_left(&str) && k + 5 < sizeof text) {
		uint8_t c = cursor_u8(&str);
		if (c == ' ')
			space = true;
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			text[k++] = (char)c;
		else
			k += (size_t)snprintf(text + k, sizeof text - k, "\\x%02x", c);
	}
	text[k] = '\0';
	if (space || !k)
		detail_add(m, "%s=\"%s\"", field, text);
	else
		detail_add(m, "%s=%s", field, text);
}

/* The detail fields the tables name, from what was kept of the message. */
static void put_fields(const struct proto_decoder *d, struct proto_msg *m,
		       const struct x11_field *f, unsigned nf, const struct cursor *b)
{
	bool big = d->order == 'B';
	for (unsigned i = 0; i < nf; i++) {
		/* a field the message was cut short of is left out */
		bool ok = true;
		if (f[i].kind == X11_FIELD_ATOM) {
			uint32_t atom = cursor_peek_u32(b, f[i].offset, big, &ok);
			if (ok)
				put_atom(d, m, f[i].name, atom);
		} else if (f[i].kind == X11_FIELD_STRING) {
			uint32_t len = f[i].size == 1 ? cursor_peek_u8(b, f[i].len_offset, &ok)
				     : f[i].size == 2 ? cursor_peek_u16(b, f[i].len_offset, big, &ok)
						      : cursor_peek_u32(b, f[i].len_offset, big, &ok);
			if (ok && f[i].offset < b->len)	/* as much of it as was kept */
				put_string(m, f[i].name, b, f[i].offset, len);
		} else if (f[i].kind == X11_FIELD_XID) {
			uint32_t xid = cursor_peek_u32(b, f[i].offset, big, &ok);
			if (ok)
				detail_u32(m, f[i].name, xid, true);
		} else if (f[i].kind == X11_FIELD_NONZERO) {
			uint32_t v = f[i].size == 1 ? cursor_peek_u8(b, f[i].offset, &ok)
				   : f[i].size == 2 ? cursor_peek_u16(b, f[i].offset, big, &ok)
						    : cursor_peek_u32(b, f[i].offset, big, &ok);
			if (ok && v)
				detail_u32(m, f[i].name, v, false);
		}
	}
}

/* ---- client names ---- */

static void client_name(struct proto_decoder *d, int slot, const char *source, const char *text)
{
	if (!d->sink.client_name || !*text)
		return;
	if (d->client_names[slot] && strcmp(d->client_names[slot], text) == 0)
		return;
	free(d->client_names[slot]);
	d->client_names[slot] = strdup(text);
	d->sink.client_name(d->sink.ctx, source, text);
}

/* ChangeProperty of WM_CLASS, WM_NAME, _NET_WM_NAME or _NET_WM_PID names
   the client. */
static void change_property(struct proto_decoder *d, const struct cursor *b, uint64_t len)
{
	size_t n = b->len;
	if (n < 24)
		return;
	const char *prop = atom_name(d, at32(d, b, 8));
	if (!prop)
		return;
	uint8_t format = at8(b, 16);
	uint64_t count = at32(d, b, 20);
	uint64_t bytes = count * (format / 8);
	if (bytes > len - 24)
		bytes = len - 24;
	if (bytes > n - 24)
		bytes = n - 24;
	struct cursor data = *b;
	cursor_seek(&data, 24);
	char text[128];
	size_t k = 0;
	if (strcmp(prop, "_NET_WM_PID") == 0) {
		if (format == 32 && bytes >= 4) {
			snprintf(text, sizeof text, "%u", cursor_u32(&data, d->order == 'B'));
			client_name(d, 3, "_NET_WM_PID", text);
		}
		return;
	}
	int slot = strcmp(prop, "WM_CLASS") == 0 ? 0 : strcmp(prop, "WM_NAME") == 0 ? 1
		 : strcmp(prop, "_NET_WM_NAME") == 0 ? 2 : -1;
	if (slot < 0 || format != 8)
		return;
	for (uint64_t i = 0; i < bytes && k + 1 < sizeof text; i++) {
		uint8_t c = cursor_u8(&data);
		if (c == 0) {	/* WM_CLASS is "instance\0class\0" */
			if (i + 1 < bytes)
				text[k++] = ' ';
		} else {
			text[k++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
		}
	}
	if (k + 1 == sizeof text && bytes > k)	/* cut: on a character boundary */
		k = proto_utf8_cut(text, k, cursor_peek_u8(&data, data.pos, NULL));
	text[k] = '\0';
	client_name(d, slot, slot == 0 ? "WM_CLASS" : slot == 1 ? "WM_NAME" : "_NET_WM_NAME", text);
}

/* ---- marks ---- */

/* The name every mark atom begins with, and the property of marks. */
#define MARK_ATOM_PREFIX "XCAP_MARK_"
#define MARK_PROPERTY "XCAP_MARK"

/* Bytes as a mark's text: printable ASCII, anything else as '?'. */
static void mark_text(char *text, size_t size, struct cursor *c, uint64_t n)
{
	size_t k = 0;
	for (uint64_t i = 0; i < n && cursor_left(c) && k + 1 < size; i++) {
		uint8_t ch = cursor_u8(c);
		text[k++] = ch < 0x20 || ch >= 0x7f ? '?' : (char)ch;
	}
	text[k] = '\0';
}

/* A client marks a moment by interning XCAP_MARK_<text> (xlsatoms-free:
   any X library can intern an atom) or by setting the property XCAP_MARK
   to the text, on any window (the root by convention). */
static void find_mark(struct proto_decoder *d, uint8_t major, const struct cursor *b,
		      uint64_t len)
{
	if (!d->sink.mark)
		return;
	size_t n = b->len;
	char text[256];
	const size_t pre = sizeof MARK_ATOM_PREFIX - 1;
	if (major == X11_REQ_InternAtom && n >= 8) {
		uint64_t sl = at16(d, b, 4);
		if (sl <= pre || 8 + sl > n)
			return;
		struct cursor c = *b;
		cursor_seek(&c, 8);
		char head[sizeof MARK_ATOM_PREFIX];
		mark_text(head, sizeof head, &c, pre);
		if (strcmp(head, MARK_ATOM_PREFIX) != 0)
			return;
		mark_text(text, sizeof text, &c, sl - pre);
		d->sink.mark(d->sink.ctx, PROTO_MARK_ATOM, text);
	} else if (major == X11_REQ_ChangeProperty && n >= 24) {
		const char *prop = atom_name(d, at32(d, b, 8));
		if (!prop || strcmp(prop, MARK_PROPERTY) != 0 || at8(b, 16) != 8)
			return;
		uint64_t bytes = at32(d, b, 20);
		if (bytes > len - 24)
			bytes = len - 24;
		struct cursor c = *b;
		cursor_seek(&c, 24);
		mark_text(text, sizeof text, &c, bytes);
		d->sink.mark(d->sink.ctx, PROTO_MARK_PROPERTY, text);
	}
}

/* ---- messages ---- */

/* How long a stretch of client bytes must frame as one well-formed chain
   of requests before framing guessed after a hole is believed: long
   compared to the requests the stream is made of.  A stream of 8 KB
   PolyFillRectangles holds, inside each request, a thousand rectangles
   that read as 8-byte UnmapWindows; only a span of several of the long
   requests tells the two readings apart. */
static uint64_t confirm_span(const struct proto_decoder *d, const struct stream_dir *h)
{
	uint64_t scale = d->longest_request > h->tent_longest ? d->longest_request : h->tent_longest;
	uint64_t span = 4 * scale;
	if (span < 4096)
		span = 4096;
	return span;
}

/* Framing guessed after a hole is given up: it ran into bytes that start
   no request, or another hole came first.  Its requests are forgotten
   (numbers, replies awaited) and every byte since the hole, up to upto,
   is undecoded: returns how many. */
static uint64_t tentative_abandon(struct proto_decoder *d, struct stream_dir *h, uint64_t upto)
{
	uint64_t read = upto > h->tent_start + h->tent_holes ? upto - h->tent_start - h->tent_holes : 0;
	uint64_t undecoded = h->tent_before + read;
	h->tentative = false;
	h->tent_note = false;
	h->align = h->tent_align;
	if (h == &d->h[PROTO_S2C])
		d->last_s2c_seq = h->tent_last_seq;
	if (h == &d->h[PROTO_C2S]) {
		/* A realignment not yet confirmed may have matched a reply to a
		   request read from this guess: the count is a guess again,
		   within the bounds it had (lose_count keeps them). */
		if (d->realigned) {
			d->realigned = false;
			d->seq_uncertain = true;
		}
		d->requests = h->tent_requests;
		pending_drop_after(d, h->tent_requests);
		lose_count(d, read);
	}
	return undecoded;
}

static void emit(struct proto_decoder *d, struct stream_dir *h, struct proto_msg *m)
{
	if (h == &d->h[PROTO_C2S]) {
		if (h->tentative) {
			if (m->length > h->tent_longest)
				h->tent_longest = m->length;
			/* A regular stream (a benchmark's, an animation's) repeats
			   one request: two or more with the opcode and the length
			   of the last one reported before the hole, over 4 KB (in a
			   stream of one short request, a reading at another phase
			   repeats too, until the data inside breaks it), are the
			   likelier reading. */
			if (m->kind == PROTO_REQUEST && m->major == d->regular_major &&
			    m->length == d->regular_length && m->length >= 64)
				h->tent_regular++;
			bool regular = h->tent_regular >= 2 && h->tent_regular * d->regular_length >= 4096;
			if (!regular && h->offset - h->tent_start - h->tent_holes < confirm_span(d, h))
				return;	/* a guess: counted as undecoded bytes */
			h->tentative = false;
			h->tent_note = true;
		}
		if (h->tent_note) {
			uint64_t start = h->offset - m->length;
			uint64_t read = start > h->tent_start + h->tent_holes
						? start - h->tent_start - h->tent_holes : 0;
			note(d, PROTO_C2S, "could not decode %llu bytes; message boundaries found again",
			     (unsigned long long)(h->tent_before + read));
			h->tent_note = false;
			h->after_gap = true;
		}
		if (m->length > d->longest_request)
			d->longest_request = m->length;
		if (m->kind == PROTO_REQUEST) {
			d->regular_major = m->major;
			d->regular_length = m->length;
		}
	}
	if (h == &d->h[PROTO_S2C] && h->tentative) {
		/* The server's framing found again is believed once a reply in
		   it answers a request the client was seen to send (not one
		   read from the client's framing while that is a guess), with a
		   length that request's reply can have: pixel data inside a
		   long reply reads as a run of events and errors, but not as
		   the answer to a waiting request. */
		const struct stream_dir *c = &d->h[PROTO_C2S];
		if (m->kind != PROTO_REPLY || !m->name || (m->flags & PROTO_F_UNCERTAIN) ||
		    (c->tentative && m->seq > c->tent_requests))
			return;	/* a guess: counted as undecoded bytes */
		h->tentative = false;
		uint64_t start = h->offset - m->length;
		uint64_t read = start > h->tent_start + h->tent_holes
					? start - h->tent_start - h->tent_holes : 0;
		note(d, PROTO_S2C, "could not decode %llu bytes; message boundaries found again",
		     (unsigned long long)(h->tent_before + read));
		h->after_gap = true;
	}
	if (h->after_gap) {
		m->flags |= PROTO_F_AFTER_GAP;
		h->after_gap = false;
	}
	/* Numbers counted from a guess or not yet confirmed, or framing in a
	   guessed byte order. */
	if (d->seq_uncertain || d->realigned || d->order_guessed)
		m->flags |= PROTO_F_UNCERTAIN;
	m->stream_end = h->offset;
	if (d->sink.message)
		d->sink.message(d->sink.ctx, m);
}

static void base_msg(struct proto_msg *m, enum proto_dir dir, enum proto_kind kind,
		     uint64_t length)
{
	memset(m, 0, offsetof(struct proto_msg, detail));
	m->detail[0] = '\0';
	m->dir = dir;
	m->kind = kind;
	m->length = length;
}

static void decode_request(struct proto_decoder *d, struct stream_dir *h, const struct cursor *b,
			   uint64_t len)
{
	size_t n = b->len;
	uint8_t major = at8(b, 0), minor = at8(b, 1);	/* minor: an extension's */
	struct proto_msg m;
	base_msg(&m, PROTO_C2S, PROTO_REQUEST, len);
	m.major = major;
	m.minor = major >= 128 ? minor : 0;
	m.seq = ++d->requests;
	const char *ext;
	const struct x11_request *r = request_desc(d, major, minor, &ext);
	m.ext = ext;
	if (major >= 128 && !d->ext[major - 128].present)
		m.flags |= PROTO_F_UNCERTAIN;	/* major not seen in a QueryExtension */
	if (r) {
		m.name = r->name;
		put_fields(d, &m, r->fields, r->nfields, b);
		if (r->has_reply)
			m.flags |= PROTO_F_WANTS_REPLY;
	}
	if (major == X11_REQ_ChangeProperty)
		change_property(d, b, len);
	if ((r && r->has_reply) || (!r && major >= 128)) {
		/* A request of an extension the tables do not describe may have
		   a reply: keep its place, so that replies match up. */
		struct pending p = { .seq = m.seq, .req = r, .ext = ext, .major = m.major,
				     .epoch = d->seq_uncertain || d->realigned ? d->loss_epoch : 0,
				     .minor = m.minor };
		/* InternAtom and QueryExtension name what their reply numbers:
		   keep the name for it. */
		if ((major == X11_REQ_InternAtom || major == X11_REQ_QueryExtension) &&
		    r && r->nfields &&
		    r->fields[0].kind == X11_FIELD_STRING && r->fields[0].len_offset + 2u <= n) {
			const struct x11_field *f = &r->fields[0];
			size_t sl = at16(d, b, f->len_offset);
			if (f->offset + sl <= n)
				p.arg = dup_at(b, f->offset, sl);
		}
		if (major == X11_REQ_GetAtomName && n >= 8)
			p.atom = at32(d, b, 4);
		if (major == X11_REQ_GetKeyboardMapping && n >= 6) {
			p.first_keycode = at8(b, 4);
			p.keycode_count = at8(b, 5);
		}
		pending_push(d, &p);
	}
	emit(d, h, &m);
	find_mark(d, major, b, len);
}

static void decode_reply(struct proto_decoder *d, struct stream_dir *h, const struct cursor *b,
			 uint64_t len)
{
	size_t n = b->len;
	struct proto_msg m;
	base_msg(&m, PROTO_S2C, PROTO_REPLY, len);
	uint16_t s16 = at16(d, b, 2);
	struct answer a = { .b = *b, .len = len };
	check_realignment(d, s16, &a);
	realign(d, s16, &a);
	m.seq = widen_seq16(d, s16);
	struct pending *p = pending_match(d, m.seq);
	if (!p) {
		m.flags |= PROTO_F_UNCERTAIN;
		emit(d, h, &m);
		return;
	}
	m.major = p->major;
	m.minor = p->minor;
	m.name = p->req ? p->req->name : NULL;
	m.ext = p->ext;
	if (!p->req)
		m.flags |= PROTO_F_UNCERTAIN;
	if (!answers(d, p, &a)) {
		/* Not a reply that request can have: the numbering is wrong
		   (requests were lost), so the name is a guess and nothing is
		   learned from it. */
		m.flags |= PROTO_F_UNCERTAIN;
		lose_count(d, UINT64_MAX);
		emit(d, h, &m);
		return;
	}
	{
		if (p->major == X11_REQ_QueryExtension) {
			learn_extension(d, p->arg, b, &m);
		} else if (p->major == X11_REQ_GetKeyboardMapping) {
			/* keysyms_per_keycode in byte 1, then that many keysyms
			   for each keycode asked for */
			size_t per = at8(b, 1);
			for (size_t i = 0; per && i < p->keycode_count && p->first_keycode + i < 256; i++) {
				size_t off = 32 + i * per * 4;
				if (off + 4 > n)
					break;
				d->keysym[p->first_keycode + i] = at32(d, b, off);
			}
		} else if (p->major == X11_REQ_InternAtom && n >= 12) {
			uint32_t atom = at32(d, b, 8);
			atom_learn(d, atom, p->arg);
			detail_add(&m, "atom=%u", atom);
			if (p->arg) {
				struct cursor name = over((const uint8_t *)p->arg, strlen(p->arg));
				put_string(&m, "name", &name, 0, name.len);
			}
		} else {
			if (p->major == X11_REQ_GetAtomName && n >= 32) {
				size_t sl = at16(d, b, 8);
				if (32 + sl <= n) {
					char *name = dup_at(b, 32, sl);
					atom_learn(d, p->atom, name);
					free(name);
				}
			}
			if (p->req)
				put_fields(d, &m, p->req->reply_fields, p->req->nreply_fields, b);
		}
	}
	emit(d, h, &m);
}

static void decode_error(struct proto_decoder *d, struct stream_dir *h, const struct cursor *b)
{
	size_t n = b->len;
	struct proto_msg m;
	base_msg(&m, PROTO_S2C, PROTO_ERROR, 32);
	uint16_t s16 = at16(d, b, 2);
	struct answer a = { .b = *b, .len = 32, .error = true };
	realign(d, s16, &a);
	m.seq = widen_seq16(d, s16);
	m.major = at8(b, 1);
	const char *base = NULL;
	const char *ext = NULL;
	unsigned idx;
	if (at8(b, 1) < x11_core_protocol->nerrors && x11_core_protocol->errors[at8(b, 1)]) {
		base = x11_core_protocol->errors[at8(b, 1)];
	} else {
		const struct ext_state *e = extension_for_error(d, at8(b, 1), &idx);
		if (e) {
			base = e->desc->errors[idx];
			ext = e->xname;
		}
	}
	m.ext = ext;
	if (base) {
		/* xcb-proto names core errors without the "Bad" of the protocol
		   document ("Window"); people know them as BadWindow. */
		snprintf(d->scratch, sizeof d->scratch, "%s%s",
			 strncmp(base, "Bad", 3) == 0 ? "" : "Bad", base);
		m.name = d->scratch;
	}
	/* The failed request: by sequence number, else by the opcodes the
	   error carries. */
	struct pending *p = pending_match(d, m.seq);
	const char *req_name = NULL;
	if (p) {
		req_name = p->req ? p->req->name : NULL;
	} else if (n >= 11) {
		const char *rext;
		const struct x11_request *r = request_desc(d, at8(b, 10), (uint8_t)at16(d, b, 8), &rext);
		req_name = r ? r->name : NULL;
	}
	if (n >= 11) {
		if (req_name)
			detail_add(&m, "request=%s", req_name);
		else
			detail_add(&m, "request=%u.%u", at8(b, 10), at16(d, b, 8));
		detail_add(&m, "value=0x%x", at32(d, b, 4));
	}
	emit(d, h, &m);
}

/* FP16.16 (XI2 coordinates) to whole pixels, rounding towards minus
   infinity as a pixel position does. */
static long fp1616_floor(uint32_t v)
{
	int64_t x = (int32_t)v;
	return (long)(x >= 0 ? x / 65536 : -((-x + 65535) / 65536));
}

/* The fields a reader of an input event wants and a replayer needs (see
   xcap(5), "Input events"): which key or button, the server's time, the
   windows and the positions.  Core events: KeyPress .. MotionNotify. */
static void core_input_detail(struct proto_decoder *d, struct proto_msg *m,
			      const struct cursor *b, uint8_t code)
{
	if (b->len < 32)
		return;
	if (code == X11_EVENT_KeyPress || code == X11_EVENT_KeyRelease) {
		detail_add(m, "key=%u", at8(b, 1));
		if (d->keysym[at8(b, 1)])
			detail_add(m, "keysym=0x%x", d->keysym[at8(b, 1)]);
	}
	else if (code == X11_EVENT_ButtonPress || code == X11_EVENT_ButtonRelease)
		detail_add(m, "button=%u", at8(b, 1));
	else if (at8(b, 1))
		detail_add(m, "hint");
	detail_add(m, "time=%u root=0x%x event=0x%x root_xy=%d,%d event_xy=%d,%d state=0x%x",
		   at32(d, b, 4), at32(d, b, 8), at32(d, b, 12),
		   (int16_t)at16(d, b, 20), (int16_t)at16(d, b, 22),
		   (int16_t)at16(d, b, 24), (int16_t)at16(d, b, 26), at16(d, b, 28));
}

/* XI2 device events (XIDeviceEvent: key, button, motion, touch) and raw
   events (XIRawEvent, marked "raw": not delivered to a window). */
static void xi2_input_detail(struct proto_decoder *d, struct proto_msg *m,
			     const struct cursor *b, uint16_t type)
{
	enum { XI_KEY_PRESS = 2, XI_KEY_RELEASE, XI_BUTTON_PRESS, XI_BUTTON_RELEASE, XI_MOTION,
	       XI_RAW_KEY_PRESS = 13, XI_RAW_MOTION = 17, XI_TOUCH_BEGIN = 18, XI_TOUCH_END = 20,
	       XI_RAW_TOUCH_BEGIN = 22, XI_RAW_TOUCH_END = 24 };
	bool device = (type >= XI_KEY_PRESS && type <= XI_MOTION) ||
		      (type >= XI_TOUCH_BEGIN && type <= XI_TOUCH_END);
	bool raw = (type >= XI_RAW_KEY_PRESS && type <= XI_RAW_MOTION) ||
		   (type >= XI_RAW_TOUCH_BEGIN && type <= XI_RAW_TOUCH_END);
	const char *what = type == XI_KEY_PRESS || type == XI_KEY_RELEASE ||
			   type == XI_RAW_KEY_PRESS || type == XI_RAW_KEY_PRESS + 1 ? "key" :
			   type == XI_BUTTON_PRESS || type == XI_BUTTON_RELEASE ||
			   type == XI_RAW_KEY_PRESS + 2 || type == XI_RAW_KEY_PRESS + 3 ? "button" :
			   type >= XI_TOUCH_BEGIN ? "touch" : NULL;
	if (raw && b->len >= 28) {
		detail_add(m, "raw device=%u source=%u", at16(d, b, 10), at16(d, b, 20));
		if (what)
			detail_add(m, "%s=%u", what, at32(d, b, 16));
		detail_add(m, "time=%u", at32(d, b, 12));
	} else if (device && b->len >= 76) {
		detail_add(m, "device=%u source=%u", at16(d, b, 10), at16(d, b, 52));
		if (what)
			detail_add(m, "%s=%u", what, at32(d, b, 16));
		if (what && what[0] == 'k' && at32(d, b, 16) < 256 && d->keysym[at32(d, b, 16)])
			detail_add(m, "keysym=0x%x", d->keysym[at32(d, b, 16)]);
		detail_add(m, "time=%u root=0x%x event=0x%x root_xy=%ld,%ld event_xy=%ld,%ld state=0x%x",
			   at32(d, b, 12), at32(d, b, 20), at32(d, b, 24),
			   fp1616_floor(at32(d, b, 32)), fp1616_floor(at32(d, b, 36)),
			   fp1616_floor(at32(d, b, 40)), fp1616_floor(at32(d, b, 44)),
			   at32(d, b, 72));
	}
}

static void decode_event(struct proto_decoder *d, struct stream_dir *h, const struct cursor *b,
			 uint64_t len)
{
	size_t n = b->len;
	struct proto_msg m;
	base_msg(&m, PROTO_S2C, PROTO_EVENT, len);
	uint8_t code = at8(b, 0) & ~X11_SEND_EVENT;
	if (at8(b, 0) & X11_SEND_EVENT)
		m.flags |= PROTO_F_SEND_EVENT;
	m.major = code;
	const struct x11_event *ev = NULL;
	if (code == X11_EVENT_GeGeneric) {
		m.minor = n >= 10 ? at16(d, b, 8) : 0;
		if (at8(b, 1) >= 128) {
			const struct ext_state *e = &d->ext[at8(b, 1) - 128];
			m.ext = e->xname;
			if (e->desc && m.minor < e->desc->ngeneric && e->desc->generic[m.minor].name)
				ev = &e->desc->generic[m.minor];
		}
	} else if (code < x11_core_protocol->nevents && x11_core_protocol->events[code].name) {
		ev = &x11_core_protocol->events[code];
	} else {
		unsigned idx;
		const struct ext_state *e = extension_for_event(d, code, &idx);
		if (e) {
			m.ext = e->xname;
			if (e->xkb) {
				idx = at8(b, 1);
				m.minor = at8(b, 1);
			}
			if (idx < e->desc->nevents && e->desc->events[idx].name)
				ev = &e->desc->events[idx];
		}
	}
	if (ev && !ev->has_seq) {		/* KeymapNotify */
		m.seq = d->last_s2c_seq;
	} else {
		m.seq = widen_seq16(d, at16(d, b, 2));
	}
	if (ev)
		m.name = ev->name;
	if (code >= X11_EVENT_KeyPress && code <= X11_EVENT_MotionNotify)
		core_input_detail(d, &m, b, code);
	else if (code == X11_EVENT_GeGeneric && m.ext && strcmp(m.ext, X11_XNAME_xinput) == 0)
		xi2_input_detail(d, &m, b, m.minor);
	else if (ev && ev->nfields)
		put_fields(d, &m, ev->fields, ev->nfields, b);
	emit(d, h, &m);
}

static void decode_s2c(struct proto_decoder *d, struct stream_dir *h, const struct cursor *b,
		       uint64_t len)
{
	if (h->tentative && (at8(b, 0) & ~X11_SEND_EVENT) != X11_EVENT_KeymapNotify)
		h->tent_seq = at16(d, b, 2);	/* s2c_refutes follows the chain */
	switch (at8(b, 0) & ~X11_SEND_EVENT) {
	case X11_CODE_ERROR: decode_error(d, h, b); break;
	case X11_CODE_REPLY: decode_reply(d, h, b, len); break;
	default: decode_event(d, h, b, len); break;
	}
}

/* ---- setup ---- */

static bool looks_like_setup_request(const struct cursor *b)
{
	uint8_t order = at8(b, 0);
	if (b->len < 4 || (order != 'l' && order != 'B'))
		return false;
	/* Version 11 is the protocol; a client asking for another one still
	   sends a setup request, which the server refuses.  Byte 1 is unused:
	   whatever it holds says nothing (a Solaris client sends 2 there). */
	uint16_t major = cursor_peek_u16(b, 2, order == 'B', NULL);
	return major >= 10 && major <= 12;
}

static void decode_setup_request(struct proto_decoder *d, struct stream_dir *h, const struct cursor *b,
				 uint64_t len)
{
	size_t n = b->len;
	struct proto_msg m;
	base_msg(&m, PROTO_C2S, PROTO_SETUP, len);
	m.name = "SetupRequest";
	if (n >= 12) {
		detail_add(&m, "byte-order=%s version=%u.%u", d->order == 'B' ? "msb" : "lsb",
			   at16(d, b, 2), at16(d, b, 4));
		size_t an = at16(d, b, 6);
		if (an && 12 + an <= n)
			put_string(&m, "auth", b, 12, an);
	}
	emit(d, h, &m);
}

static void decode_setup_reply(struct proto_decoder *d, struct stream_dir *h, const struct cursor *b,
			       uint64_t len)
{
	size_t n = b->len;
	struct proto_msg m;
	base_msg(&m, PROTO_S2C, PROTO_SETUP, len);
	switch (at8(b, 0)) {
	case 1:
		m.name = "Setup";
		if (n >= 40) {
			size_t vl = at16(d, b, 24);
			detail_add(&m, "release=%u", at32(d, b, 8));
			if (40 + vl <= n)
				put_string(&m, "vendor", b, 40, vl);
		}
		h->state = ST_MESSAGES;
		break;
	case 0:
		m.name = "SetupFailed";
		if (8u + at8(b, 1) <= n)
			put_string(&m, "reason", b, 8, at8(b, 1));
		break;
	default:
		m.name = "SetupAuthenticate";
		if (n > 8) {
			size_t k = 8;
			while (k < n && at8(b, k))
				k++;
			put_string(&m, "reason", b, 8, k - 8);
		}
		break;
	}
	emit(d, h, &m);
}

/* ---- framing ---- */

/* Where messages of this direction stand, for the framing rules. */
static struct proto_x11_at framing_at(const struct proto_decoder *d, enum proto_dir dir,
				      const struct stream_dir *h)
{
	struct proto_x11_at at = { .server = dir == PROTO_S2C, .setup = h->state == ST_SETUP,
				   .big_endian = d->order == 'B' };
	return at;
}

/* A request's length from its first bytes: 0 while they cannot tell, -1
   when no request is that long (x11_frame.c states the rules). */
static inline __attribute__((always_inline)) int64_t request_length(bool big, const struct cursor *b)
{
	struct proto_x11_at at = { .big_endian = big };
	return proto_x11_length(at, b);
}

/* How long the message starting with these bytes is: >0 its length, 0 if
   more bytes are needed to tell, -1 if they cannot begin a message. */
static struct request_rule request_rule(const struct proto_decoder *d, uint8_t major);
static bool plausible_request(const struct proto_decoder *d, bool big,
			      const struct request_rule *rule, const struct cursor *b, uint64_t *len);

static bool plausible_s2c_shape(const struct proto_decoder *d, bool big, const struct cursor *b,
				uint64_t *len, int *seq);

/* Does this message, read from a server framing found after a hole or a
   late start and not yet confirmed, show that framing wrong?  The pixels
   of a long reply read as replies, events and errors for a while, but
   not for long as ones the server could send: an error code or a failed
   request's opcode that does not exist, a reply longer than any, an event
   code nobody has, a sequence number going back or leaping from the last
   one read, or, while every request so far was seen, going back from
   the last one the server gave, or a reply to a request that wants none
   or of a length that request's reply cannot have.  A number ahead of the
   requests seen refutes nothing: the client may have sent requests the
   capture has not shown yet (a hole in the client's stream shows only
   when its next segment comes, and the server may answer before that).
   Then the bytes since the guessed boundary are undecoded and the search
   goes on from here. */
static bool s2c_refutes(const struct proto_decoder *d, const struct stream_dir *h,
			const struct cursor *b)
{
	uint64_t len;
	int seq;
	if (!plausible_s2c_shape(d, d->order == 'B', b, &len, &seq))
		return true;
	if (seq >= 0 && h->tent_seq >= 0 && (uint16_t)(seq - h->tent_seq) > 4096)
		return true;
	bool certain = !d->seq_uncertain && !d->realigned && !d->h[PROTO_C2S].tentative;
	if (!certain || seq < 0)
		return false;
	/* The server numbers its messages in order; 16 bits tell going back
	   from going far forward only while fewer than 32,768 requests lie
	   between. */
	if (d->requests >= d->last_s2c_seq && d->requests - d->last_s2c_seq < 0x8000 &&
	    (int16_t)(seq - (uint16_t)d->last_s2c_seq) < 0)
		return true;
	if ((int16_t)(seq - (uint16_t)d->requests) > 0 ||
	    (at8(b, 0) & ~X11_SEND_EVENT) != X11_CODE_REPLY || d->p_len == PENDING_MAX)
		return false;
	/* A reply to a request the capture showed answers one still waiting. */
	for (size_t i = 0; i < d->p_len; i++) {
		struct pending *p = pending_at((struct proto_decoder *)d, i);
		if ((uint16_t)p->seq == (uint16_t)seq) {
			struct answer a = { .b = *b, .len = len };
			return !answers(d, p, &a);
		}
	}
	return true;
}

static int64_t message_length(const struct proto_decoder *d, enum proto_dir dir,
			      const struct stream_dir *h, const struct cursor *b)
{
	int64_t l = proto_x11_length(framing_at(d, dir, h), b);
	if (l > 0 && dir == PROTO_C2S && h->tentative) {
		/* Framing guessed after a hole must go on reading requests as
		   well-formed as those the search accepted, and none far longer
		   than the stream's own: a guess that reads rectangle data as
		   a 4 MB request would skip to wherever it pleased. */
		uint64_t most = 4 * d->longest_request, len;
		if (most < RESYNC_MAX)
			most = RESYNC_MAX;
		struct request_rule rule = request_rule(d, at8(b, 0));
		if ((uint64_t)l > most || !plausible_request(d, d->order == 'B', &rule, b, &len))
			return -1;
	}
	if (l > 0 && dir == PROTO_S2C && h->tentative && h->state == ST_MESSAGES) {
		if (b->len < 32)
			return 0;	/* judged on its whole header */
		if (s2c_refutes(d, h, b))
			return -1;
	}
	return l;
}

static void dispatch(struct proto_decoder *d, enum proto_dir dir, struct stream_dir *h)
{
	struct cursor b = over(h->buf, h->have);
	if (h->state == ST_SETUP) {
		if (dir == PROTO_C2S) {
			decode_setup_request(d, h, &b, h->need);
			h->state = ST_MESSAGES;
		} else {
			decode_setup_reply(d, h, &b, h->need);
		}
	} else if (dir == PROTO_C2S) {
		decode_request(d, h, &b, h->need);
	} else {
		decode_s2c(d, h, &b, h->need);
	}
	h->have = 0;
	h->need = 0;
	h->got = 0;
	h->hole_in_msg = false;
}

/* How many bytes of the current message message_length() needs to tell
   its length (always more than h->have while it cannot tell). */
static size_t header_size(const struct proto_decoder *d, enum proto_dir dir,
			  const struct stream_dir *h)
{
	struct cursor b = over(h->buf, h->have);
	/* A guessed server framing is checked on each message's whole
	   32-byte header (s2c_refutes). */
	if (dir == PROTO_S2C && h->tentative && h->state == ST_MESSAGES)
		return 32;
	return proto_x11_header_size(framing_at(d, dir, h), &b);
}

/* How many of a message's first bytes its decoding reads: all that buf
   holds for a message with details to show, only its 32-byte header for
   the rest, so that an image spread over many packets is not copied only
   to be thrown away (b holds the header, n bytes of it). */
/* How many first bytes of a request decoding reads: its header, unless
   it has fields to show (or is unknown).  ChangeProperty's data names the
   client. */
static size_t request_keep(uint8_t major, const struct x11_request *r)
{
	return major == X11_REQ_ChangeProperty || !r || r->nfields ? MSG_CAP : 32;
}

size_t proto_x11_core_request_keep(uint8_t major)
{
	const struct x11_extension *t = x11_core_protocol;
	if (major >= 128 || major >= t->nrequests || !t->requests[major].name)
		return MSG_CAP;
	return request_keep(major, &t->requests[major]);
}

static size_t bytes_wanted(struct proto_decoder *d, enum proto_dir dir, const struct stream_dir *h,
			   const struct cursor *b)
{
	if (h->state == ST_SETUP || b->len < 4)
		return MSG_CAP;
	if (dir == PROTO_C2S) {
		const char *ext;
		return request_keep(at8(b, 0), request_desc(d, at8(b, 0), at8(b, 1), &ext));
	}
	if ((at8(b, 0) & ~X11_SEND_EVENT) != X11_CODE_REPLY)
		return MSG_CAP;		/* events and errors are 32 bytes anyway */
	/* A reply: what its request says of it.  The oldest waiting request
	   with its sequence number, without disturbing the queue (decode_reply
	   does that).  Replies come in order, so it is at or near the front;
	   past the first few, not finding it only costs a copy. */
	uint16_t seq16 = at16(d, b, 2);
	for (size_t i = 0; i < d->p_len && i < 8; i++) {
		const struct pending *p = pending_at(d, i);
		if ((uint16_t)p->seq != seq16)
			continue;
		/* InternAtom, GetAtomName and QueryExtension teach names */
		bool teaches = p->major == X11_REQ_InternAtom || p->major == X11_REQ_GetAtomName ||
			       p->major == X11_REQ_QueryExtension ||
			       p->major == X11_REQ_GetKeyboardMapping;
		return !p->req || teaches || p->req->nreply_fields ? MSG_CAP : 32;
	}
	return MSG_CAP;
}

/* Take bytes into the current message; returns how many were used. */
static size_t consume(struct proto_decoder *d, enum proto_dir dir, struct stream_dir *h,
		      const uint8_t *p, size_t len)
{
	struct cursor in = over(p, len);
	if (!h->need) {
		/* Gather the header until the length is known: the bytes
		   message_length() reads, in as few copies as the chunks allow. */
		while (!h->need && cursor_left(&in)) {
			size_t n = header_size(d, dir, h) - h->have;
			if (n > cursor_left(&in))
				n = cursor_left(&in);
			cursor_bytes(&in, h->buf + h->have, n);
			h->have += n;
			h->got += n;
			struct cursor b = over(h->buf, h->have);
			int64_t l = message_length(d, dir, h, &b);
			if (l < 0) {
				return in.pos;	/* caller sees need == 0 and have > 0: bad */
			}
			if (l > 0) {
				h->need = (uint64_t)l;
				if (h->need < h->got)	/* cannot be shorter than its header */
					h->need = 0;
				h->keep = bytes_wanted(d, dir, h, &b);
				break;
			}
		}
		if (!h->need)
			return in.pos;
	}
	uint64_t want = h->need - h->got;
	size_t take = (uint64_t)cursor_left(&in) < want ? cursor_left(&in) : (size_t)want;
	/* Keep the message's first bytes, but only while they are contiguous. */
	size_t keep = h->have < h->keep && !h->hole_in_msg ? h->keep - h->have : 0;
	if (keep > take)
		keep = take;
	cursor_bytes(&in, h->buf + h->have, keep);
	cursor_skip(&in, take - keep);
	h->have += keep;
	h->got += take;
	return in.pos;
}

static void start_resync(struct stream_dir *h);
static void resync_feed(struct proto_decoder *d, enum proto_dir dir, struct stream_dir *h,
			const uint8_t *p, size_t len);

/* frame()'s loop over messages. */
static void frame_messages(struct proto_decoder *d, enum proto_dir dir, const uint8_t *data, size_t len)
{
	struct stream_dir *h = &d->h[dir];
	struct cursor in = over(data, len);
	while (cursor_left(&in)) {
		if (h->state == ST_RESYNC) {
			resync_feed(d, dir, h, cursor_here(&in), cursor_left(&in));
			return;
		}
		if (h->state == ST_MESSAGES && !h->have && !h->need) {
			/* A whole message in the chunk is decoded where it lies:
			   most are, and copying each into buf cost more than
			   decoding it. */
			struct cursor chunk = over(cursor_here(&in), cursor_left(&in));
			int64_t l = message_length(d, dir, h, &chunk);
			if (l > 0 && (uint64_t)l <= cursor_left(&in)) {
				h->offset += (uint64_t)l;
				struct cursor msg = cursor_sub(&in, (size_t)l);
				if (msg.len > MSG_CAP)
					msg.len = MSG_CAP;
				if (dir == PROTO_C2S)
					decode_request(d, h, &msg, (uint64_t)l);
				else
					decode_s2c(d, h, &msg, (uint64_t)l);
				continue;
			}
			if (l > 0) {	/* it goes on in later chunks: keep its start */
				h->need = (uint64_t)l;
				h->keep = bytes_wanted(d, dir, h, &chunk);
			}
		}
		size_t used = consume(d, dir, h, cursor_here(&in), cursor_left(&in));
		h->offset += used;
		cursor_skip(&in, used);
		if (h->need && h->got == h->need) {
			dispatch(d, dir, h);
		} else if (!h->need && h->have &&
			   (used == 0 || message_length(d, dir, h, &(struct cursor){ h->buf, h->have, 0, false }) < 0)) {
			/* These bytes cannot start a message: framing is lost. */
			uint8_t keep[16];
			size_t k = h->have < sizeof keep ? h->have : sizeof keep;
			memcpy(keep, h->buf, k);
			h->offset -= k;
			uint64_t undecoded = h->tentative ? tentative_abandon(d, h, h->offset) : 0;
			start_resync(h);
			h->after_loss = true;
			h->rs_skipped += undecoded;
			resync_feed(d, dir, h, keep, k);
			if (h->state == ST_RESYNC && cursor_left(&in)) {
				resync_feed(d, dir, h, cursor_here(&in), cursor_left(&in));
				return;
			}
		}
	}
}

/* Frame a chunk of a direction's stream. */
static inline void frame(struct proto_decoder *d, enum proto_dir dir, const uint8_t *data, size_t len)
{
	struct stream_dir *h = &d->h[dir];
	/* A snap-length capture searches after nearly every packet: straight
	   there, without setting up the framing loop (its registers, saved and
	   restored, cost more than the test). */
	if (h->state == ST_RESYNC && len) {
		resync_feed(d, dir, h, data, len);
		return;
	}
	frame_messages(d, dir, data, len);
}

/* ---- finding message boundaries again ---- */

/* Does a message of `bytes` bytes fit the layout xcb-proto gives it?
   shift: how far every field after the first word moved (4 in the
   BIG-REQUESTS form, whose 32-bit length comes first); least: the
   message's minimum size (a reply is never shorter than 32 bytes).  When
   exact is false only the fixed part is required: extensions come in
   versions whose messages differ in size.  The core protocol has not
   changed since 1987 and servers insist on its lengths, so it is exact. */
static inline __attribute__((always_inline)) bool layout_fits(bool big, const struct x11_layout *l, bool exact,
			const struct cursor *b, uint64_t bytes, unsigned shift, uint64_t least)
{
	size_t n = b->len;
	uint64_t fixed = l->fixed + shift;
	if (bytes < fixed)
		return false;
	if (!exact)
		return true;
	unsigned at = l->count_offset + shift;
	bool count_seen = l->count_size && at + l->count_size <= n;
	uint64_t want;
	switch (l->shape) {
	case X11_SHAPE_FIXED:
		want = fixed;
		break;
	case X11_SHAPE_LIST:
		if (count_seen) {
			want = fixed + (uint64_t)at_n(big, b, at, l->count_size) * l->elem;
			break;
		}
		if (l->elem && l->elem % 4 == 0 && fixed % 4 == 0)
			return bytes == least || (bytes - fixed) % l->elem == 0;
		return true;
	case X11_SHAPE_MASK:
		if (!count_seen)
			return true;
		want = ((fixed + 3) & ~(uint64_t)3) +
		       4u * (unsigned)__builtin_popcount(at_n(big, b, at, l->count_size));
		break;
	default:
		return true;
	}
	want = (want + 3) & ~(uint64_t)3;
	return bytes == (want < least ? least : want);
}

/* What a request beginning with this major opcode is judged by. */
static struct request_rule request_rule(const struct proto_decoder *d, uint8_t major)
{
	struct request_rule r = { .kind = RULE_NONE };
	if (major < 128) {
		const struct x11_extension *t = x11_core_protocol;
		if (major < t->nrequests && t->requests[major].name) {
			/* NoOperation may be any length: the protocol lets clients
			   pad with it. */
			r.kind = major == X11_REQ_NoOperation ? RULE_LOOSE : RULE_CORE;
			r.layout = t->requests[major].layout;
		}
	} else if (d->ext[major - 128].present) {
		r.kind = RULE_EXT;
	} else if (d->ext_unsure && major < 128 + 64) {
		/* A major no QueryExtension reply named.  Only a decoder that may
		   have missed that reply (the capture began late, or lost bytes)
		   can meet one, and servers number their extensions upwards from
		   128 with nowhere near 64 of them: a white 24-bit image reads
		   as major 255, again and again. */
		r.kind = RULE_ANY;
	}
	return r;
}

/* Does a request of this many bytes fit the layout its rule gives it? */
static inline __attribute__((always_inline)) bool request_fits(const struct proto_decoder *d, bool big,
							       const struct request_rule *rule,
							       const struct cursor *b, uint64_t bytes,
							       unsigned shift)
{
	const struct x11_layout *layout = &rule->layout;
	if (rule->kind == RULE_EXT) {
		const char *ext;
		const struct x11_request *r = request_desc(d, at8(b, 0), at8(b, 1), &ext);
		if (!r)
			return false;
		layout = &r->layout;
	}
	return layout_fits(big, layout, rule->kind == RULE_CORE, b, bytes, shift, 4);
}

/* Is this a plausible request header, by the rule of its first byte?  Used
   only to find boundaries, so it leans towards no: pixel data reads as
   requests all too often. */
static inline __attribute__((always_inline)) bool plausible_request(const struct proto_decoder *d, bool big,
			      const struct request_rule *rule, const struct cursor *b, uint64_t *len)
{
	/* Most bytes of pixel data fail on their first byte: before the length. */
	if (rule->kind == RULE_NONE)
		return false;
	int64_t l = request_length(big, b);
	if (l <= 0)
		return false;
	uint64_t bytes = (uint64_t)l;
	/* BIG-REQUESTS' form (a length of 0, then 32 bits) shifts the fields
	   by 4: request_fits made for each form, the shift a constant. */
	if (rule->kind != RULE_ANY &&
	    !(at16_in(big, b, 2) == 0 ? request_fits(d, big, rule, b, bytes, 4)
				      : request_fits(d, big, rule, b, bytes, 0)))
		return false;
	*len = bytes;
	return true;
}

static bool plausible_s2c_shape(const struct proto_decoder *d, bool big, const struct cursor *b,
				uint64_t *len, int *seq)
{
	if (b->len < 32)
		return false;
	uint8_t code = at8(b, 0) & ~X11_SEND_EVENT;
	*seq = at16_in(big, b, 2);
	*len = 32;
	if (code == X11_CODE_ERROR) {
		/* a core error, or one in the extensions' range (128 and up),
		   about a core request or an extension's */
		if (at8(b, 0) & X11_SEND_EVENT || at8(b, 1) == 0)
			return false;
		bool known_error = at8(b, 1) < x11_core_protocol->nerrors ? x11_core_protocol->errors[at8(b, 1)] != NULL
								      : at8(b, 1) >= 128;
		bool known_major = at8(b, 10) >= 128 || (at8(b, 10) < x11_core_protocol->nrequests &&
						   x11_core_protocol->requests[at8(b, 10)].name);
		return known_error && known_major;
	}
	if (code == X11_CODE_REPLY) {
		if (at8(b, 0) & X11_SEND_EVENT)
			return false;
		uint32_t units = at32_in(big, b, 4);
		if (units > PROTO_X11_REPLY_MAX_UNITS)
			return false;
		*len = 32 + 4 * (uint64_t)units;
		return true;
	}
	if (code == X11_EVENT_GeGeneric) {
		uint32_t units = at32_in(big, b, 4);
		if (units > 65536 || at8(b, 1) < 128)
			return false;
		*len = 32 + 4 * (uint64_t)units;
		return true;
	}
	if (code == X11_EVENT_KeymapNotify)	/* no sequence number */
		*seq = -1;
	if (code < 64)
		return code >= 2 && code < x11_core_protocol->nevents;
	unsigned idx;
	return !d->any_ext_events || extension_for_event(d, code, &idx) != NULL;
}

/* Is this a plausible reply, event or error header?  Besides its shape,
   when the client's requests were all seen its sequence number lies
   between the last one the server gave and the requests sent: the server
   numbers them in order, and the capture holds a request before the
   server's answer to it. */
static bool plausible_s2c(const struct proto_decoder *d, bool big, const struct cursor *b,
			  uint64_t *len, int *seq)
{
	if (!plausible_s2c_shape(d, big, b, len, seq))
		return false;
	if (*seq < 0 || d->seq_uncertain)
		return true;
	if (d->last_s2c_seq <= d->requests && d->requests - d->last_s2c_seq < 0x10000)
		return (uint16_t)(*seq - (uint16_t)d->last_s2c_seq) <=
		       (uint16_t)(d->requests - d->last_s2c_seq);
	return (int16_t)(*seq - (uint16_t)d->requests) <= 0;
}

/* From pos, how many well-formed messages follow each other.  *ends says
   whether the run ends exactly at the end of the data, *undecided whether
   it stopped only because the data did (so more data may lengthen it). */
static inline __attribute__((always_inline)) unsigned run_length(const struct proto_decoder *d, enum proto_dir dir, bool big, const uint8_t *b,
			   size_t n, size_t pos, bool *ends, bool *undecided, bool *alive,
			   uint64_t *visited, bool doomed)
{
	unsigned count = 0;
	int last_seq = -1;
	bool last_answer = false;	/* the last message was a reply or an error */
	*ends = *undecided = false;
	*alive = true;	/* not broken by bytes that start no message */
	while (pos < n) {
		if (n - pos < (dir == PROTO_C2S ? 8u : 32u)) {
			*undecided = true;
			return count;
		}
		uint64_t len;
		int seq = -1;
		struct cursor at = over(b + pos, n - pos);	/* the bytes from pos on */
		if (dir == PROTO_C2S && doomed && count < 4) {
			/* A hole follows the bytes: a run of fewer than four
			   whose next request does not end inside them is no
			   boundary, whether that request is plausible or not.
			   Its length, read first, tells so before its layout
			   is checked (most such requests are pixels). */
			int64_t l = request_length(big, &at);
			if (l <= 0 || (uint64_t)l > n - pos)
				return count;
		}
		bool ok = dir == PROTO_C2S ? plausible_request(d, big, &d->rules[at8(&at, 0)], &at, &len)
					   : plausible_s2c(d, big, &at, &len, &seq);
		if (!ok) {
			*alive = false;
			return count;
		}
		if (dir == PROTO_S2C && seq >= 0) {
			/* sequence numbers from the server never go back and move slowly */
			if (last_seq >= 0 && (uint16_t)(seq - last_seq) > 4096) {
				*alive = false;
				return count;
			}
			/* A request that failed has one error and no reply, so an
			   error never shares its number with the answer before it
			   (image data of zeros reads as errors, all numbered alike). */
			bool error = (at8(&at, 0) & ~X11_SEND_EVENT) == X11_CODE_ERROR;
			if (error && last_answer && seq == last_seq) {
				*alive = false;
				return count;
			}
			last_seq = seq;
			last_answer = error || (at8(&at, 0) & ~X11_SEND_EVENT) == X11_CODE_REPLY;
		}
		if (pos + len > RESYNC_MAX) {
			/* It could never be followed within the buffer, so it can
			   never be confirmed: rejecting it now keeps the search
			   from going back to it with every chunk (image data of
			   0xff bytes reads as requests of 256 KB). */
			return count;
		}
		if (pos + len > n) {
			*undecided = true;
			return count;
		}
		pos += len;
		count++;
		if (visited && pos < n)
			visited[pos / 64] |= (uint64_t)1 << (pos % 64);
	}
	*ends = true;
	*undecided = true;
	return count;
}

/* The search buffer emptied: nothing in it checked or searched.  (A hole
   that left rs_scanned behind made the next chunk of the same size look
   searched already: on a snap-length capture, every packet's.) */
static void rs_clear(struct stream_dir *h)
{
	h->rs_len = 0;
	h->rs_checked = 0;
	h->rs_scanned = 0;
}

static void start_resync(struct stream_dir *h)
{
	h->state = ST_RESYNC;
	h->have = h->need = h->got = 0;
	h->hole_in_msg = false;
	h->hole_at_boundary = false;
	rs_clear(h);
	if (!h->rs) {
		/* Resyncs come in runs on a lossy capture: reuse the buffer
		   rather than ask malloc for fresh pages every time. */
		h->rs = h->rs_spare ? h->rs_spare : malloc(RESYNC_MAX);
		h->rs_spare = NULL;
	}
}

/* Can a message in this direction begin with this byte?  What the
   plausible_* checks say of the first byte alone, as a table, so that the
   search passes over most of an image's bytes at the cost of a lookup;
   and for the client's, the rule of each first byte (d->rules). */
static void first_bytes(struct proto_decoder *d, enum proto_dir dir)
{
	bool *ok = d->first_ok[dir];
	for (unsigned c = 0; c < 256; c++) {
		if (dir == PROTO_C2S) {
			d->rules[c] = request_rule(d, (uint8_t)c);
			ok[c] = d->rules[c].kind != RULE_NONE;
			continue;
		}
		unsigned code = c & 0x7f;
		unsigned idx;
		if (code == X11_CODE_ERROR || code == X11_CODE_REPLY)
			ok[c] = c < 128;
		else if (code == X11_EVENT_GeGeneric)
			ok[c] = true;
		else if (code < 64)
			ok[c] = code < x11_core_protocol->nevents;
		else
			ok[c] = !d->any_ext_events || extension_for_event(d, (uint8_t)code, &idx);
	}
}

/* What first_bytes() depends on: the extensions known, and whether one may
   have been missed.  Never 0. */
static uint64_t first_key_now(const struct proto_decoder *d)
{
	return (d->ext_gen << 1 | d->ext_unsure) + 1;
}

/* The first position from pos on, in steps of step and before end, whose
   byte may begin a message (end or past it if none).  On its own, out of
   line, so that its loop keeps everything in registers: inside the
   search, it spilled to the stack (13 instructions a byte, not 5). */
static __attribute__((noinline)) size_t next_first(const uint8_t *bytes, const bool *first_ok,
						   size_t pos, size_t step, size_t end)
{
	while (pos < end && !first_ok[bytes[pos]])
		pos += step;
	return pos;
}

/* Does the chain of messages from pos make pos a boundary?  Four messages
   in a row, or two that end exactly where the data ends (clients write
   whole requests), or, right after a hole in an aligned stream, one that
   does; after a loss in the client's stream, only a chain still going
   where the data ends (alive_only: see find_boundary).  A chain the data
   cut short leaves pos undecided: *first_undecided is the first such. */
static inline __attribute__((always_inline)) bool chain_found(const struct proto_decoder *d, enum proto_dir dir,
			       bool big, const struct stream_dir *h, const uint8_t *bytes, size_t n,
			       size_t pos, bool alive_only, uint64_t *mark,
			       size_t *first_undecided, bool doomed)
{
	bool ends, undecided, alive;
	/* run_length made once for each direction, each without the other's
	   tests */
	unsigned run = dir == PROTO_C2S
		? run_length(d, PROTO_C2S, big, bytes, n, pos, &ends, &undecided, &alive, mark, doomed)
		: run_length(d, PROTO_S2C, big, bytes, n, pos, &ends, &undecided, &alive, mark, doomed);
	if ((run >= 4 || (run >= 2 && ends) ||
	     (pos == 0 && h->hole_at_boundary && run >= 1 && ends)) &&
	    (!alive_only || alive))
		return true;
	if (undecided && pos < *first_undecided)
		*first_undecided = pos;
	return false;
}

/* chain_found under a byte order being tried (not yet known): out of the
   search's loop, which then holds the common case alone. */
static __attribute__((noinline)) bool chain_found_in(struct proto_decoder *d, char order,
						     enum proto_dir dir, const struct stream_dir *h,
						     const uint8_t *bytes, size_t n, size_t pos,
						     bool alive_only, uint64_t *mark,
						     size_t *first_undecided)
{
	d->order = order;
	return chain_found(d, dir, order == 'B', h, bytes, n, pos, alive_only, mark, first_undecided,
			   false);
}

/* Try to find a boundary in the bytes held for the search (rs: h->rs, or
   a chunk followed by a hole while nothing is held, see x11_feed_cut).
   Returns the offset, or -1.  doomed: a hole follows rs, which it will
   throw away, so the first position a later chunk could decide
   (rs_checked) is not worked out. */
static inline __attribute__((always_inline)) long search_in(struct proto_decoder *d, enum proto_dir dir,
							    char order, struct stream_dir *h,
							    const struct cursor *rs, bool doomed)
{
	/* A lossy or snap-length capture searches after nearly every
	   packet: the table is made again only when what it says changed. */
	if (d->first_key[dir] != first_key_now(d)) {
		first_bytes(d, dir);
		d->first_key[dir] = first_key_now(d);
	}
	const bool *first_ok = d->first_ok[dir];
	/* Positions before rs_checked were rejected on data already seen; start
	   after them.  Every message is a multiple of 4 bytes long, so when the
	   alignment is known only one position in four can be a boundary
	   (h->offset is the stream offset of rs[0]). */
	size_t pos = h->rs_checked, step = 1;
	if (h->align >= 0) {
		step = 4;
		pos += (size_t)(((unsigned)h->align + 4u - (unsigned)((h->offset + pos) % 4)) % 4);
	}
	const size_t n = rs->len;
	const uint8_t *bytes = cursor_peek_span(rs, 0, n);
	size_t first_undecided = n;
	/* After a loss in the client's stream, a chain must still be going
	   where the data ends: one that breaks was a reading of data inside
	   longer requests (the rectangles of a PolyFillRectangle read as
	   UnmapWindows break at the next real request), and the real chain
	   goes on.  Positions a chain already stepped on are its suffixes and
	   are judged with it; marking them keeps the search linear.  Marks
	   are set only after where the search starts, and read only there. */
	bool alive_only = dir == PROTO_C2S && h->after_loss;
	static _Thread_local uint64_t visited[RESYNC_MAX / 64];
	uint64_t *mark = alive_only && d->order ? visited : NULL;
	/* A chain from a position marked could never be found where the one
	   that marked it was not (the client's chain from there is its
	   suffix: shorter, alive and ending alike), so marks only save work:
	   on a chunk a hole follows, a packet's few dozen bytes, they cost
	   more than they save. */
	if (doomed && n <= 64)
		mark = NULL;
	if (mark) {
		/* most searches are of one packet's bytes: one word of marks */
		size_t w = pos / 64, end = (n + 63) / 64;
		if (end == w + 1)
			visited[w] = 0;
		else if (end > w)
			memset(visited + w, 0, (end - w) * sizeof *visited);
	}
	/* A chain from a position closer to the end than the shortest
	   message's header is cut by the end at once: undecided, never found.
	   Only the positions before that tail are followed. */
	size_t least = dir == PROTO_C2S ? 8 : 32;
	size_t head_end = n >= least ? n - least + 1 : 0;
	if (doomed) {
		/* With a hole after the bytes, a chain is found only where
		   one message at least (4 bytes of the client's, 32 of the
		   server's) ends before one that has its header's bytes:
		   the positions closer to the end than that are not
		   followed either; but for 0 right after a hole at a
		   boundary, where one message ending with the bytes is. */
		size_t span = least + (dir == PROTO_C2S ? 4 : 32);
		size_t chain_end = n >= span ? n - span + 1 : 0;
		if (pos == 0 && h->hole_at_boundary && head_end && !chain_end)
			chain_end = 1;
		head_end = chain_end;
	}
	for (;; pos += step) {
		/* Most bytes of image data begin no message: pass over them
		   at the cost of a lookup. */
		if (pos >= head_end)
			break;
		/* the position at hand tested here: it begins a message
		   often enough (a packet's first) that a call for it cost
		   more than the test */
		if (!first_ok[bytes[pos]]) {
			pos = next_first(bytes, first_ok, pos + step, step, head_end);
			if (pos >= head_end)
				break;
		}
		if (mark && (mark[pos / 64] >> (pos % 64)) & 1)
			continue;
		if (order) {
			if (chain_found(d, dir, order == 'B', h, bytes, n, pos, alive_only, mark,
					&first_undecided, doomed))
				return (long)pos;
			continue;
		}
		/* A capture begun mid-connection: either byte order */
		for (int o = 0; o < 2; o++) {
			if (chain_found_in(d, o ? 'B' : 'l', dir, h, bytes, n, pos, alive_only, mark,
					   &first_undecided)) {
				d->order_guessed = true;
				return (long)pos;
			}
		}
		d->order = order;
	}
	if (doomed)
		return -1;
	for (; pos < n; pos += step)
		if (first_ok[bytes[pos]] && !(mark && (mark[pos / 64] >> (pos % 64)) & 1)) {
			if (pos < first_undecided)
				first_undecided = pos;
			break;
		}
	h->rs_checked = first_undecided;
	return -1;
}

/* search_in made once for each direction and byte order (known big- or
   little-endian, or unknown), each loop without the others' tests and
   with the order a constant. */
static long find_boundary(struct proto_decoder *d, enum proto_dir dir, struct stream_dir *h)
{
	char order = d->order;
	struct cursor rs = over(h->rs, h->rs_len);
	if (dir == PROTO_C2S)
		return order == 'l' ? search_in(d, PROTO_C2S, 'l', h, &rs, false)
		     : order == 'B' ? search_in(d, PROTO_C2S, 'B', h, &rs, false)
		     : order	    ? search_in(d, PROTO_C2S, 'l', h, &rs, false)
				    : search_in(d, PROTO_C2S, 0, h, &rs, false);
	return order == 'l' ? search_in(d, PROTO_S2C, 'l', h, &rs, false)
	     : order == 'B' ? search_in(d, PROTO_S2C, 'B', h, &rs, false)
	     : order	    ? search_in(d, PROTO_S2C, 'l', h, &rs, false)
			    : search_in(d, PROTO_S2C, 0, h, &rs, false);
}

/* find_boundary over a chunk a hole follows (x11_feed_cut), the byte
   order known. */
static long find_boundary_doomed(struct proto_decoder *d, enum proto_dir dir,
				 struct stream_dir *h, const struct cursor *chunk)
{
	if (dir == PROTO_C2S)
		return d->order == 'B' ? search_in(d, PROTO_C2S, 'B', h, chunk, true)
				       : search_in(d, PROTO_C2S, 'l', h, chunk, true);
	return d->order == 'B' ? search_in(d, PROTO_S2C, 'B', h, chunk, true)
			       : search_in(d, PROTO_S2C, 'l', h, chunk, true);
}

/* A boundary was found at pos of the resync buffer: frame from there,
   then the rest of the chunk being fed (p, len). */
static void resync_found(struct proto_decoder *d, enum proto_dir dir, struct stream_dir *h, long pos,
			 const uint8_t *p, size_t len)
{
	uint64_t skipped = h->rs_skipped + (uint64_t)pos;
	bool guess = h->after_loss;	/* said when confirmed */
	if (skipped && !guess)
		note(d, dir, "could not decode %llu bytes; message boundaries found again",
		     (unsigned long long)skipped);
	h->rs_skipped = 0;
	h->state = ST_MESSAGES;
	if (guess)
		h->tent_align = h->align;
	h->align = (int)((h->offset + (uint64_t)pos) % 4);
	h->after_gap = true;
	if (dir == PROTO_C2S)
		lose_count(d, skipped);
	/* The buffer's bytes are behind h->offset: rewind and frame them. */
	struct cursor rest = over(h->rs, h->rs_len);
	cursor_skip(&rest, (size_t)pos);
	h->offset += (uint64_t)pos;
	if (guess) {
		h->after_loss = false;
		/* Bytes after a loss frame wrongly all too often (image and
		   rectangle data read as short requests, a long reply's pixels
		   as events): hold the framing as a guess. */
		h->tentative = true;
		h->tent_note = false;
		h->tent_before = skipped;
		h->tent_start = h->offset;
		h->tent_requests = d->requests;
		h->tent_longest = 0;
		h->tent_holes = 0;
		h->tent_regular = 0;
		h->tent_seq = -1;
		h->tent_last_seq = d->last_s2c_seq;
	}
	uint8_t *rs = h->rs;
	h->rs = NULL;
	frame(d, dir, cursor_here(&rest), cursor_left(&rest));
	if (h->rs_spare)
		free(rs);
	else
		h->rs_spare = rs;
	if (len)
		frame(d, dir, p, len);
}

/* Search the resync buffer, and frame from a boundary found in it. */
static void resync_search(struct proto_decoder *d, enum proto_dir dir, struct stream_dir *h)
{
	h->rs_scanned = h->rs_len;
	long pos = find_boundary(d, dir, h);
	if (pos >= 0)
		resync_found(d, dir, h, pos, NULL, 0);
}

/* Search what came since the last search, whatever its size: before a
   hole or the end throws the buffer away. */
static inline void resync_flush(struct proto_decoder *d, enum proto_dir dir, struct stream_dir *h)
{
	if (h->state != ST_RESYNC || !h->rs || h->rs_len == h->rs_scanned)
		return;
	resync_search(d, dir, h);
}

/* Is a search due, bytes having come since the last?  A search goes back
   to the first position still undecided, which a message claiming a long
   length can hold far back: searching after every small chunk made image
   data cost quadratic time.  Search once what came since is an eighth of
   what the search would cover (small buffers: every time), and always
   with the buffer full. */
static inline bool resync_due(const struct stream_dir *h)
{
	size_t span = h->rs_len - h->rs_checked;
	return h->rs_len == RESYNC_MAX || (h->rs_len - h->rs_scanned) * 8 >= span;
}

/* resync_feed for a chunk that may not fit the buffer whole: a piece at a
   time, searching as it fills. */
static __attribute__((noinline)) void resync_feed_pieces(struct proto_decoder *d,
							 enum proto_dir dir,
							 struct stream_dir *h,
							 const uint8_t *p, size_t len)
{
	struct cursor in = over(p, len);
	while (cursor_left(&in)) {
		size_t take = RESYNC_MAX - h->rs_len;
		if (take > cursor_left(&in))
			take = cursor_left(&in);
		cursor_bytes(&in, h->rs + h->rs_len, take);
		h->rs_len += take;
		if (!resync_due(h))
			continue;
		h->rs_scanned = h->rs_len;
		long pos = find_boundary(d, dir, h);
		if (pos >= 0) {
			resync_found(d, dir, h, pos, cursor_here(&in), cursor_left(&in));
			return;
		}
		if (h->rs_len == RESYNC_MAX) {
			/* Give up on the first half; keep searching in the rest. */
			size_t drop = RESYNC_MAX / 2;
			memmove(h->rs, h->rs + drop, h->rs_len - drop);
			h->rs_len -= drop;
			h->rs_checked = h->rs_checked > drop ? h->rs_checked - drop : 0;
			h->rs_scanned = h->rs_len;
			h->rs_skipped += drop;
			h->offset += drop;
		}
	}
}

static void resync_feed(struct proto_decoder *d, enum proto_dir dir, struct stream_dir *h,
			const uint8_t *p, size_t len)
{
	if (!h->rs) {
		h->rs_skipped += len;
		h->offset += len;
		return;
	}
	if (len && len < RESYNC_MAX - h->rs_len) {
		/* Nearly always the chunk fits whole (on a snap-length capture,
		   a few dozen bytes): one copy and at most one search, without
		   the loop's set-up (out of line, with the registers it keeps). */
		struct cursor in = over(p, len);
		cursor_bytes(&in, h->rs + h->rs_len, len);
		h->rs_len += len;
		if (resync_due(h))
			resync_search(d, dir, h);
		return;
	}
	resync_feed_pieces(d, dir, h, p, len);
}

/* ---- the proto_ops ---- */

static struct proto_decoder *x11_create(const struct proto_sink *sink)
{
	struct proto_decoder *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->pending = calloc(PENDING_MAX, sizeof *d->pending);
	if (!d->pending) {
		free(d);
		return NULL;
	}
	d->sink = *sink;
	return d;
}

/* The capture began after the setup: framing has to be found. */
static void begin_midstream(struct proto_decoder *d, enum proto_dir dir)
{
	note(d, dir, "no connection setup: the capture began mid-connection");
	lose_count(d, UINT64_MAX);
	d->ext_unsure = true;
	d->h[0].align = d->h[1].align = -1;
	for (int k = 0; k < 2; k++)
		if (d->h[k].state != ST_RESYNC && !d->h[k].seen_data)
			start_resync(&d->h[k]);
	/* Framing found here is a guess as after a hole: the capture may
	   begin inside a long request or reply. */
	d->h[PROTO_C2S].after_loss = true;
	d->h[PROTO_S2C].after_loss = true;
}

/* The client's first four bytes tell a setup request (and the byte order)
   from the middle of a conversation; gather them before deciding. */
static void decide_start(struct proto_decoder *d)
{
	d->start_decided = true;
	if (looks_like_setup_request(&(struct cursor){ d->first, d->first_len, 0, false }))
		d->order = (char)at8(&(struct cursor){ d->first, d->first_len, 0, false }, 0);
	else
		begin_midstream(d, PROTO_C2S);
	d->h[PROTO_C2S].seen_data = true;
	frame(d, PROTO_C2S, d->first, d->first_len);
}

/* x11_feed before the start of the conversation is decided. */
static __attribute__((noinline)) void feed_start(struct proto_decoder *d, enum proto_dir dir,
						 const uint8_t *data, size_t len)
{
	struct cursor in = over(data, len);
	if (dir == PROTO_C2S && !d->start_decided) {
		size_t k = sizeof d->first - d->first_len;
		if (k > len)
			k = len;
		cursor_bytes(&in, d->first + d->first_len, k);
		d->first_len += k;
		if (d->first_len < sizeof d->first)
			return;
		decide_start(d);
	} else if (dir == PROTO_S2C && !d->h[dir].seen_data && !d->start_decided) {
		/* The server spoke before the client: a mid-connection start. */
		d->start_decided = true;
		begin_midstream(d, dir);
	}
	d->h[dir].seen_data = true;
	frame(d, dir, cursor_here(&in), cursor_left(&in));
}

static void x11_feed(struct proto_decoder *d, enum proto_dir dir, const uint8_t *data, size_t len)
{
	if (!len)
		return;
	/* Decided after the first bytes: then every chunk goes straight to
	   framing, without the deciding's set-up. */
	if (!d->start_decided) {
		feed_start(d, dir, data, len);
		return;
	}
	d->h[dir].seen_data = true;
	frame(d, dir, data, len);
}

/* Bytes held for the search are no longer followed by what follows a
   hole of len bytes.  (The hole's own bytes are the gap's: lost, not
   undecoded.) */
static inline void resync_gap(struct stream_dir *h, uint64_t len)
{
	h->rs_skipped += h->rs_len;
	h->offset += h->rs_len + len;
	rs_clear(h);
}

/* x11_gap, all cases. */
static __attribute__((noinline)) void take_gap(struct proto_decoder *d, enum proto_dir dir, uint64_t len)
{
	struct stream_dir *h = &d->h[dir];
	if (dir == PROTO_C2S && !d->start_decided) {
		if (!d->first_len) {
			/* The start itself is missing: whatever follows is mid-stream. */
			d->start_decided = true;
			begin_midstream(d, dir);
			d->h[dir].seen_data = true;
		} else {
			decide_start(d);
		}
	}
	resync_flush(d, dir, h);
	if (h->state == ST_RESYNC) {
		resync_gap(h, len);
		return;
	}
	if (h->need && len <= h->need - h->got) {
		/* The hole is inside the current message, or ends with it (a
		   packet cut by its snap length that held the message's end):
		   skip it, keep framing. */
		h->hole_in_msg = true;
		h->got += len;
		h->offset += len;
		h->after_gap = true;
		if (h->tentative)
			h->tent_holes += len;
		if (h->got == h->need)
			dispatch(d, dir, h);
		return;
	}
	if (h->tentative) {
		uint64_t undecoded = tentative_abandon(d, h, h->offset);
		note(d, dir, "could not decode %llu bytes before a hole", (unsigned long long)undecoded);
		h->need = h->got = h->have = 0;	/* the request read from the guess */
	}
	uint64_t lost = len;
	bool cut = h->need != 0;
	if (h->need) {
		note(d, dir, "a hole of %llu bytes cut a %llu-byte message; searching for the next",
		     (unsigned long long)len, (unsigned long long)h->need);
	} else {
		note(d, dir, "a hole of %llu bytes; searching for the next message",
		     (unsigned long long)len);
	}
	/* Segments hold whole messages more often than not, so the byte after
	   the hole is worth trying first as a boundary when the alignment is
	   known (the 4-byte rule then also holds for it). */
	bool at_boundary = h->align >= 0;
	d->ext_unsure = true;
	start_resync(h);
	h->after_loss = true;
	h->hole_at_boundary = at_boundary;
	h->offset += lost;
	if (dir == PROTO_C2S)	/* the hole, and the request it cut */
		lose_count(d, lost + (cut ? 4 : 0));
}

static void x11_gap(struct proto_decoder *d, enum proto_dir dir, uint64_t len)
{
	struct stream_dir *h = &d->h[dir];
	if (!len)
		return;
	/* A snap-length capture's stream being searched meets a hole after
	   nearly every packet, with all its bytes searched already (nothing
	   for resync_flush): that case without take_gap's set-up. */
	if (h->state == ST_RESYNC && h->rs_len == h->rs_scanned &&
	    (dir != PROTO_C2S || d->start_decided)) {
		resync_gap(h, len);
		return;
	}
	take_gap(d, dir, len);
}

/* A chunk, then a hole of `hole` bytes right after it (a packet cut by its
   snap length), taken at once where that is all bookkeeping: the stream is
   being searched with nothing held, as after every cut packet of data
   whose framing is lost.  The chunk is searched where it lies; as the
   hole will throw it away, it is neither copied nor followed past its end
   (x11_feed then x11_gap would copy it, search it, note where a later
   chunk could go on, and drop it all).  When that is not the case, or a
   boundary is found (whose messages must be told before the hole's gap
   record), nothing is changed and false returned: the caller feeds and
   tells the hole as usual. */
static bool x11_feed_cut(struct proto_decoder *d, enum proto_dir dir, const uint8_t *data,
			 size_t len, uint64_t hole)
{
	struct stream_dir *h = &d->h[dir];
	/* the conditions under which x11_feed goes straight to resync_feed
	   and its single search, and x11_gap to resync_gap; and a known byte
	   order, so that the search does not set one */
	if (!len || !hole || !d->start_decided || !d->order || h->state != ST_RESYNC || !h->rs ||
	    h->rs_len || h->rs_checked || h->rs_scanned || len >= RESYNC_MAX)
		return false;
	struct cursor chunk = over(data, len);
	if (find_boundary_doomed(d, dir, h, &chunk) >= 0)
		return false;
	h->seen_data = true;
	h->rs_skipped += len;
	h->offset += len + hole;
	return true;
}

/* Skipped bytes inside the current message are counted like the bytes
   of a large message that are not kept; anywhere else they are a hole. */
static void x11_skip(struct proto_decoder *d, enum proto_dir dir, uint64_t len)
{
	struct stream_dir *h = &d->h[dir];
	if (h->state == ST_RESYNC || !h->need || len > h->need - h->got) {
		x11_gap(d, dir, len);
		return;
	}
	if (h->have < h->keep && h->have < h->need)
		h->hole_in_msg = true;	/* wanted bytes missing: details are lost */
	if (h->tentative)
		h->tent_holes += len;
	h->got += len;
	h->offset += len;
	if (h->got == h->need)
		dispatch(d, dir, h);
}

static int x11_framing(const struct proto_decoder *d, enum proto_dir dir, struct proto_framing *f)
{
	const struct stream_dir *h = &d->h[dir];
	/* Only framing that nothing has put in doubt. */
	if (h->state != ST_MESSAGES || !d->order || d->order_guessed || d->realigned ||
	    h->after_gap || h->tentative || (h->have && !h->need))
		return 0;
	f->pos = h->offset;
	f->next = h->offset + (h->need - h->got);
	f->keep_until = h->offset - h->got + MSG_CAP;
	f->big_endian = d->order == 'B';
	return 1;
}

static void x11_end(struct proto_decoder *d, enum proto_dir dir)
{
	struct stream_dir *h = &d->h[dir];
	if (dir == PROTO_C2S && !d->start_decided && d->first_len)
		decide_start(d);
	resync_flush(d, dir, h);
	if (h->state == ST_RESYNC && (h->rs_len || h->rs_skipped)) {
		note(d, dir, "stream ended with %llu bytes not decoded",
		     (unsigned long long)(h->rs_len + h->rs_skipped));
	} else if (h->tentative) {
		note(d, dir, "stream ended with %llu bytes not decoded",
		     (unsigned long long)tentative_abandon(d, h, h->offset));
	} else if (h->got) {
		note(d, dir, "stream ended %llu bytes into a message of %llu",
		     (unsigned long long)h->got, (unsigned long long)h->need);
	}
	h->have = h->need = h->got = 0;
	h->rs_skipped = 0;
	rs_clear(h);
}

static void x11_destroy(struct proto_decoder *d)
{
	if (!d)
		return;
	while (d->p_len)
		pending_drop_front(d);
	free(d->pending);
	for (size_t i = 0; i < d->atoms_cap; i++)
		free(d->atoms[i].name);
	free(d->atoms);
	for (int i = 0; i < 4; i++)
		free(d->client_names[i]);
	for (int i = 0; i < 2; i++) {
		free(d->h[i].rs);
		free(d->h[i].rs_spare);
	}
	free(d);
}

const struct proto_ops proto_x11 = {
	.name = "x11",
	.create = x11_create,
	.feed = x11_feed,
	.gap = x11_gap,
	.skip = x11_skip,
	.feed_cut = x11_feed_cut,
	.framing = x11_framing,
	.end = x11_end,
	.destroy = x11_destroy,
};
