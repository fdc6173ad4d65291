/*
 * fuzz_trace.c — fuzz entry point for the trace reader: the bytes are an
 * .xcap file.  Inputs that lack the file header get a valid one put in
 * front, so that mutations reach the block and record parsers.  What the
 * reader returns also goes through the state model, since hostile record
 * sequences (time running backwards, sequence numbers anywhere, replies
 * to nothing) are what a damaged trace feeds it.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "state.h"
#include "trace.h"

static void quiet(void *ctx, const char *msg) { (void)ctx; (void)msg; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *header;
	static size_t header_len;
	if (!header) {
		FILE *h = open_memstream(&header, &header_len);
		struct trace_info info = { .tool = "fuzz", .linktype = 1 };
		char err[64];
		trace_writer_free(trace_writer_new(h, &info, err, sizeof err));
		fclose(h);
	}
	int whole = trace_looks_like(data, size);
	size_t n = whole ? size : header_len + size;
	uint8_t *buf = malloc(n ? n : 1);
	if (!buf)
		return 0;
	if (whole) {
		memcpy(buf, data, size);
	} else {
		memcpy(buf, header, header_len);
		memcpy(buf + header_len, data, size);
	}
	FILE *f = fmemopen(buf, n ? n : 1, "rb");
	FILE *out = fopen("/dev/null", "w");
	if (f && out) {
		char err[256];
		struct trace_reader *r = trace_reader_new(f, err, sizeof err);
		if (r) {
			trace_reader_on_warning(r, quiet, NULL);
			trace_info_dump(out, trace_reader_info(r));
			struct xrec rec;
			struct xstate_model *m = xstate_new(NULL);
			while (trace_reader_next(r, &rec) == 1) {
				xrec_dump(out, &rec);	/* touches every string */
				if (m)
					xstate_record(m, &rec);
			}
			if (m) {
				xstate_finish(m);
				xstate_free(m);
			}
			trace_reader_free(r);
		}
	}
	if (f)
		fclose(f);
	if (out)
		fclose(out);
	free(buf);
	return 0;
}
