/*
 * fuzz_pcap.c — fuzz entry point for capture ingest: the bytes are a
 * .pcap/.pcapng (or .xcap) file read through xsource, which drives link
 * decoding, the connection table, reassembly and the decoders.  The
 * first byte, when the input is long enough, picks a pcap link type to
 * patch in, so every link decoder is reached from small inputs.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"
#include "source.h"

static void quiet(void *ctx, const char *msg) { (void)ctx; (void)msg; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t dlts[] = { 1, 113, 276, 101, 12, 228, 229, 0, 108, 147 };
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	/* A classic pcap header keeps its link type at offset 20. */
	if (size >= 24 && (copy[0] == 0xd4 || copy[0] == 0xa1 || copy[0] == 0x4d)) {
		uint32_t dlt = dlts[copy[23] % (sizeof dlts / sizeof dlts[0])];
		int le = copy[0] == 0xd4 || copy[0] == 0x4d;
		for (int i = 0; i < 4; i++)
			copy[20 + (le ? i : 3 - i)] = (uint8_t)(dlt >> (8 * i));
	}
	/* Odd sizes read short frames as cut by the capture on purpose
	   (gaps of reason skipped, the decoders' skip()). */
	struct pipeline_options opt;
	pipeline_default_options(&opt);
	opt.snaplen = size & 1 ? 65535 : 0;
	/* And half of them through the compressed sizes' deflate. */
	opt.compressed_sizes = (size & 2) != 0;
	FILE *f = fmemopen(copy, size ? size : 1, "rb");
	if (f) {
		char err[512];
		struct xsource *s = xsource_open_stream(f, 1, "fuzz", NULL, &opt, err, sizeof err);
		if (s) {
			xsource_on_warning(s, quiet, NULL);
			struct xrec rec;
			for (int n = 0; n < 1000000 && xsource_next(s, &rec) == 1; n++)
				;
			xsource_close(s);
		}
	}
	free(copy);
	return 0;
}
