/*
 * chunks.h — the one fuzz entry point of every protocol decoder
 * (fuzz_x11.c, fuzz_rfb.c).  The input is a script of chunks, so that
 * mutations keep the two directions apart:
 *
 *   op (1 byte: bit 0 direction, bits 1-2: 0 bytes, 1 hole, 2 end,
 *       3 bytes then a hole: a packet cut by its snap length)
 *   length (2 bytes, little-endian), then for ops 0 and 3 that many bytes,
 *   and for op 3 the hole's length (2 bytes, little-endian)
 *
 * A decoder with a feed_cut is run twice, the twin told every cut packet
 * as feed then gap: what the two tell their sinks must agree after every
 * step, or feed_cut did more than bookkeeping.
 *
 * tests/fuzz-x11.sh and tests/fuzz-rfb.sh build seeds in this form.  A
 * header of static functions, so that the libFuzzer build
 * (tests/fuzz/libfuzzer.sh), which compiles fuzz_NAME.c with the
 * libraries' sources only, needs nothing more.
 */
#ifndef XCAP_FUZZ_CHUNKS_H
#define XCAP_FUZZ_CHUNKS_H

#include <stdint.h>
#include <string.h>

#include "protocol.h"

/* What a decoder told its sink, folded into one number (FNV-1a). */
static void chunks_fold(size_t *n, const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t h = *n ? (uint64_t)*n : 14695981039346656037u;
	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 1099511628211u;
	*n = (size_t)h;
}

static void chunks_fold_str(size_t *n, const char *s)
{
	/* Touch what a sink reads, so the sanitizers see bad pointers. */
	chunks_fold(n, s ? s : "", s ? strlen(s) + 1 : 1);
}

static void chunks_on_message(void *ctx, const struct proto_msg *m)
{
	size_t *n = ctx;
	chunks_fold_str(n, m->detail);
	chunks_fold_str(n, m->name);
	chunks_fold_str(n, m->ext);
	uint64_t f[] = { m->dir, m->kind, m->flags, m->major, m->minor, m->seq, m->length,
			 m->stream_end };
	chunks_fold(n, f, sizeof f);
}

static void chunks_on_extension(void *ctx, const char *name, uint8_t major, uint8_t ev, uint8_t er)
{
	size_t *n = ctx;
	uint8_t f[] = { major, ev, er };
	chunks_fold_str(n, name);
	chunks_fold(n, f, sizeof f);
}

static void chunks_on_name(void *ctx, const char *source, const char *text)
{
	size_t *n = ctx;
	chunks_fold_str(n, source);
	chunks_fold_str(n, text);
}

static void chunks_on_note(void *ctx, enum proto_dir dir, const char *text)
{
	size_t *n = ctx;
	uint8_t d = (uint8_t)dir;
	chunks_fold(n, &d, 1);
	chunks_fold_str(n, text);
}

/* Run the script in data through a fresh decoder of ops. */
static int fuzz_decoder_chunks(const struct proto_ops *ops, const uint8_t *data, size_t size)
{
	size_t told = 0, twin_told = 0;
	struct proto_sink sink = { .ctx = &told, .message = chunks_on_message,
				   .extension = chunks_on_extension, .client_name = chunks_on_name,
				   .note = chunks_on_note };
	struct proto_sink twin_sink = sink;
	twin_sink.ctx = &twin_told;
	struct proto_decoder *d = ops->create(&sink);
	if (!d)
		return 0;
	struct proto_decoder *twin = ops->feed_cut ? ops->create(&twin_sink) : NULL;
	size_t i = 0;
	while (i + 3 <= size) {
		uint8_t op = data[i];
		size_t len = (size_t)data[i + 1] | (size_t)data[i + 2] << 8;
		i += 3;
		enum proto_dir dir = op & 1 ? PROTO_S2C : PROTO_C2S;
		switch ((op >> 1) & 3) {
		case 0:
			if (len > size - i)
				len = size - i;
			ops->feed(d, dir, data + i, len);
			if (twin)
				ops->feed(twin, dir, data + i, len);
			i += len;
			break;
		case 1:
			ops->gap(d, dir, len);
			if (twin)
				ops->gap(twin, dir, len);
			break;
		case 2:
			ops->end(d, dir);
			if (twin)
				ops->end(twin, dir);
			break;
		default: {
			if (len > size - i)
				len = size - i;
			const uint8_t *bytes = data + i;
			i += len;
			uint64_t hole = 1;
			if (i + 2 <= size) {
				hole = (uint64_t)data[i] | (uint64_t)data[i + 1] << 8;
				i += 2;
			}
			if (!hole)
				hole = 1;
			if (!ops->feed_cut || !ops->feed_cut(d, dir, bytes, len, hole)) {
				ops->feed(d, dir, bytes, len);
				ops->gap(d, dir, hole);
			}
			if (twin) {
				ops->feed(twin, dir, bytes, len);
				ops->gap(twin, dir, hole);
			}
			break;
		}
		}
		if (twin && told != twin_told)
			__builtin_trap();	/* feed_cut told something else */
	}
	ops->end(d, PROTO_C2S);
	ops->end(d, PROTO_S2C);
	ops->destroy(d);
	if (twin) {
		ops->end(twin, PROTO_C2S);
		ops->end(twin, PROTO_S2C);
		if (told != twin_told)
			__builtin_trap();
		ops->destroy(twin);
	}
	return 0;
}

#endif
