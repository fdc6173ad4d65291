/*
 * fuzz_rfb.c — fuzz entry point for the RFB decoder alone.  The input is a
 * script of chunks, so that mutations keep the two directions apart:
 *
 *   op (1 byte: bit 0 direction, bits 1-2: 0 bytes, 1 hole, 2 end)
 *   length (2 bytes, little-endian), then for op 0 that many bytes
 *
 * tests/fuzz-rfb.sh builds seeds in this form from real captures.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "protocol.h"

static void on_message(void *ctx, const struct proto_msg *m)
{
	/* Touch what a sink reads, so the sanitizers see bad pointers. */
	size_t *n = ctx;
	*n += strlen(m->detail) + (m->name ? strlen(m->name) : 0) + (m->ext ? strlen(m->ext) : 0);
}

static void on_extension(void *ctx, const char *name, uint8_t major, uint8_t ev, uint8_t er)
{
	size_t *n = ctx;
	*n += strlen(name) + major + ev + er;
}

static void on_name(void *ctx, const char *source, const char *text)
{
	size_t *n = ctx;
	*n += strlen(source) + strlen(text);
}

static void on_note(void *ctx, enum proto_dir dir, const char *text)
{
	size_t *n = ctx;
	*n += strlen(text) + (size_t)dir;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t touched = 0;
	struct proto_sink sink = { &touched, on_message, on_extension, on_name, on_note };
	struct proto_decoder *d = proto_rfb.create(&sink);
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
			proto_rfb.feed(d, dir, data + i, len);
			i += len;
			break;
		case 1:
			proto_rfb.gap(d, dir, len);
			break;
		default:
			proto_rfb.end(d, dir);
			break;
		}
	}
	proto_rfb.end(d, PROTO_C2S);
	proto_rfb.end(d, PROTO_S2C);
	proto_rfb.destroy(d);
	return 0;
}
