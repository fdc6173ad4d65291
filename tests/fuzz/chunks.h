/*
 * chunks.h — the one fuzz entry point of every protocol decoder
 * (fuzz_x11.c, fuzz_rfb.c).  The input is a script of chunks, so that
 * mutations keep the two directions apart:
 *
 *   op (1 byte: bit 0 direction, bits 1-2: 0 bytes, 1 hole, 2 end)
 *   length (2 bytes, little-endian), then for op 0 that many bytes
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

static void chunks_on_message(void *ctx, const struct proto_msg *m)
{
	/* Touch what a sink reads, so the sanitizers see bad pointers. */
	size_t *n = ctx;
	*n += strlen(m->detail) + (m->name ? strlen(m->name) : 0) + (m->ext ? strlen(m->ext) : 0);
}

static void chunks_on_extension(void *ctx, const char *name, uint8_t major, uint8_t ev, uint8_t er)
{
	size_t *n = ctx;
	*n += strlen(name) + major + ev + er;
}

static void chunks_on_name(void *ctx, const char *source, const char *text)
{
	size_t *n = ctx;
	*n += strlen(source) + strlen(text);
}

static void chunks_on_note(void *ctx, enum proto_dir dir, const char *text)
{
	size_t *n = ctx;
	*n += strlen(text) + (size_t)dir;
}

/* Run the script in data through a fresh decoder of ops. */
static int fuzz_decoder_chunks(const struct proto_ops *ops, const uint8_t *data, size_t size)
{
	size_t touched = 0;
	struct proto_sink sink = { &touched, chunks_on_message, chunks_on_extension, chunks_on_name,
				   chunks_on_note };
	struct proto_decoder *d = ops->create(&sink);
	if (!d)
		return 0;
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
			i += len;
			break;
		case 1:
			ops->gap(d, dir, len);
			break;
		default:
			ops->end(d, dir);
			break;
		}
	}
	ops->end(d, PROTO_C2S);
	ops->end(d, PROTO_S2C);
	ops->destroy(d);
	return 0;
}

#endif
