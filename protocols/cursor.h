/*
 * cursor.h — the one bounds-checked way to read captured bytes.
 *
 * Every byte that came off the wire (a pcap record, a link/IP/TCP header,
 * a protocol message) is read through a cursor, in the spirit of tcpdump's
 * GET_* macros: a read can never pass the end of the bytes the cursor was
 * given.  A read that would pass the end yields 0 (or leaves the
 * destination untouched for cursor_bytes), does not move the cursor, and
 * sets `overrun`, which stays set.  A decoder can therefore read a whole
 * header with straight-line code and ask once, at the end, whether it was
 * all there — and a forgotten check can only produce zeros, never a read
 * outside the buffer.
 *
 * Lengths are compared, never pointers (`p + n > end` is undefined when
 * p + n passes the end of the object).  Peeks read at an absolute offset
 * from the start without moving, for framing code that looks ahead.
 *
 * libc only: protocols/ depends on nothing else, and xcap/ and the tests
 * use this same header.
 *
 * Belongs to: libprotocols, the protocol decoders (protocols/).
 */
#ifndef PROTOCOLS_CURSOR_H
#define PROTOCOLS_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct cursor {
	const uint8_t *base;	/* first byte */
	size_t len;		/* bytes available from base */
	size_t pos;		/* next byte to read, 0..len */
	bool overrun;		/* some read asked for more than there was (sticky) */
};

static inline struct cursor cursor_init(const uint8_t *p, size_t len)
{
	struct cursor c = { p, p ? len : 0, 0, false };
	return c;
}

/* Bytes from pos to the end. */
static inline size_t cursor_left(const struct cursor *c)
{
	return c->len - c->pos;
}

/* Whether n more bytes are there, without moving or marking anything. */
static inline bool cursor_has(const struct cursor *c, size_t n)
{
	return n <= c->len - c->pos;
}

/* Take n bytes: on success returns true and moves past them; otherwise
   sets overrun and stays put.  The helper every read goes through. */
static inline bool cursor_take_(struct cursor *c, size_t n)
{
	if (n > c->len - c->pos) {
		c->overrun = true;
		return false;
	}
	c->pos += n;
	return true;
}

/* The n bytes just taken (the reads below test what cursor_take_ said,
   not a pointer, which the compiler could not prove non-null). */
static inline const uint8_t *cursor_taken_(const struct cursor *c, size_t n)
{
	return c->base + (c->pos - n);
}

static inline bool cursor_skip(struct cursor *c, size_t n)
{
	return cursor_take_(c, n);
}

/* Moves to an absolute offset; false + overrun when off > len. */
static inline bool cursor_seek(struct cursor *c, size_t off)
{
	if (off > c->len) {
		c->overrun = true;
		return false;
	}
	c->pos = off;
	return true;
}

/* Where pos is, for handing the rest on (with cursor_left bytes); NULL
   for a cursor over nothing. */
static inline const uint8_t *cursor_here(const struct cursor *c)
{
	return c->base ? c->base + c->pos : NULL;
}

/* A pointer to the next n bytes, moving past them; NULL + overrun when
   fewer are left.  For handing a checked span to memcpy, a string copy or
   a sub-cursor. */
static inline const uint8_t *cursor_span(struct cursor *c, size_t n)
{
	size_t at = c->pos;
	if (!cursor_take_(c, n) || (!n && !c->base))
		return NULL;
	return c->base + at;
}

/* A cursor over the next n bytes (moving past them here); an empty,
   overrun cursor when fewer are left.  Once its overrun flag is checked,
   the compiler knows its length, and fixed reads from it cost no checks. */
static inline struct cursor cursor_sub(struct cursor *c, size_t n)
{
	struct cursor s = { NULL, 0, 0, true };
	if (cursor_take_(c, n)) {
		/* n > 0 was taken, so base is not null; (NULL + 0 is undefined) */
		s.base = n ? cursor_taken_(c, n) : c->base;
		s.len = n;
		s.overrun = false;
	}
	return s;
}

static inline bool cursor_bytes(struct cursor *c, void *dst, size_t n)
{
	if (!cursor_take_(c, n))
		return false;
	if (n)
		memcpy(dst, cursor_taken_(c, n), n);
	return true;
}

/* Decoding n bytes at p that are known to be there. */
static inline uint16_t cursor_dec_be16_(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}
static inline uint16_t cursor_dec_le16_(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t cursor_dec_be32_(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint32_t cursor_dec_le32_(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint8_t cursor_u8(struct cursor *c)
{
	return cursor_take_(c, 1) ? cursor_taken_(c, 1)[0] : 0;
}
static inline uint16_t cursor_be16(struct cursor *c)
{
	return cursor_take_(c, 2) ? cursor_dec_be16_(cursor_taken_(c, 2)) : 0;
}
static inline uint16_t cursor_le16(struct cursor *c)
{
	return cursor_take_(c, 2) ? cursor_dec_le16_(cursor_taken_(c, 2)) : 0;
}
static inline uint32_t cursor_be32(struct cursor *c)
{
	return cursor_take_(c, 4) ? cursor_dec_be32_(cursor_taken_(c, 4)) : 0;
}
static inline uint32_t cursor_le32(struct cursor *c)
{
	return cursor_take_(c, 4) ? cursor_dec_le32_(cursor_taken_(c, 4)) : 0;
}
static inline int32_t cursor_be32s(struct cursor *c)
{
	uint32_t v = cursor_be32(c);
	/* two's complement by arithmetic, not by an implementation-defined cast */
	return v <= INT32_MAX ? (int32_t)v : (int32_t)(v - INT32_MAX - 1) + INT32_MIN;
}

/* 64-bit numbers, for file formats (pcapng's if_tsoffset). */
static inline uint64_t cursor_be64(struct cursor *c)
{
	if (!cursor_take_(c, 8))
		return 0;
	const uint8_t *p = cursor_taken_(c, 8);
	return (uint64_t)cursor_dec_be32_(p) << 32 | cursor_dec_be32_(p + 4);
}
static inline uint64_t cursor_le64(struct cursor *c)
{
	if (!cursor_take_(c, 8))
		return 0;
	const uint8_t *p = cursor_taken_(c, 8);
	return (uint64_t)cursor_dec_le32_(p + 4) << 32 | cursor_dec_le32_(p);
}

/* Reads in a byte order chosen at run time (X11: from the setup's first
   byte; pcap: from the file's magic).  big = most significant byte first. */
static inline uint16_t cursor_u16(struct cursor *c, bool big)
{
	return big ? cursor_be16(c) : cursor_le16(c);
}
static inline uint32_t cursor_u32(struct cursor *c, bool big)
{
	return big ? cursor_be32(c) : cursor_le32(c);
}
static inline uint64_t cursor_u64(struct cursor *c, bool big)
{
	return big ? cursor_be64(c) : cursor_le64(c);
}

/* Peeks at an absolute offset from base, not moving and not marking the
   cursor.  *ok (may be NULL) is set false when the bytes are not all
   there, and left alone otherwise, so one flag can collect several peeks;
   the value is then 0. */
static inline bool cursor_peek_ok_(const struct cursor *c, size_t off, size_t n, bool *ok)
{
	if (off > c->len || n > c->len - off) {
		if (ok)
			*ok = false;
		return false;
	}
	return true;
}
/* A pointer to the n bytes at off, or NULL when they are not all there:
   a checked span for memcpy or a string. */
static inline const uint8_t *cursor_peek_span(const struct cursor *c, size_t off, size_t n)
{
	return cursor_peek_ok_(c, off, n, NULL) ? c->base + off : NULL;
}
static inline uint8_t cursor_peek_u8(const struct cursor *c, size_t off, bool *ok)
{
	return cursor_peek_ok_(c, off, 1, ok) ? c->base[off] : 0;
}
static inline uint16_t cursor_peek_be16(const struct cursor *c, size_t off, bool *ok)
{
	return cursor_peek_ok_(c, off, 2, ok) ? cursor_dec_be16_(c->base + off) : 0;
}
static inline uint16_t cursor_peek_le16(const struct cursor *c, size_t off, bool *ok)
{
	return cursor_peek_ok_(c, off, 2, ok) ? cursor_dec_le16_(c->base + off) : 0;
}
static inline uint32_t cursor_peek_be32(const struct cursor *c, size_t off, bool *ok)
{
	return cursor_peek_ok_(c, off, 4, ok) ? cursor_dec_be32_(c->base + off) : 0;
}
static inline uint32_t cursor_peek_le32(const struct cursor *c, size_t off, bool *ok)
{
	return cursor_peek_ok_(c, off, 4, ok) ? cursor_dec_le32_(c->base + off) : 0;
}
static inline uint16_t cursor_peek_u16(const struct cursor *c, size_t off, bool big, bool *ok)
{
	return big ? cursor_peek_be16(c, off, ok) : cursor_peek_le16(c, off, ok);
}
static inline uint32_t cursor_peek_u32(const struct cursor *c, size_t off, bool big, bool *ok)
{
	return big ? cursor_peek_be32(c, off, ok) : cursor_peek_le32(c, off, ok);
}

#endif
