/*
 * fuzz_index.c — fuzz entry point for netplot's trace index (TRACE.idx,
 * netplot/index.c): the bytes are the file.  What the checked parser
 * accepts is then queried and drawn as netplot would, since the offsets
 * and counts it holds steer every later read.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	struct np_index *ix = np_index_from_bytes(data, size, err, sizeof err);
	if (!ix)
		return 0;
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 64, 32);
	cairo_t *cr = cairo_create(s);
	for (size_t i = 0; i < np_index_conns(ix) && i < 8; i++) {
		uint32_t id;
		uint64_t first, last, n[2];
		np_index_conn(ix, i, &id, &first, &last, n);
		for (int dir = 0; dir < 2; dir++) {
			struct xidx_bucket k;
			np_index_range(ix, i, dir, first, last + 1, (last - first) / 64 + 1, &k);
			np_index_range(ix, i, dir, 0, UINT64_MAX, 1, &k);
			np_index_render(cr, ix, i, dir, (double)first, (double)last + 1, -1e6, 1e6, 64, 32);
		}
	}
	cairo_destroy(cr);
	cairo_surface_destroy(s);
	np_index_free(ix);
	return 0;
}
