/*
 * fuzz_wayland.c — fuzz entry point for the Wayland decoder, fed a script
 * of chunks (tests/fuzz/chunks.h) twice: as a bare Wayland stream and as
 * waypipe's channel around it; tests/fuzz-wayland.sh builds the seeds.
 */
#include "config.h"

#include "chunks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_decoder_chunks(&proto_wayland, data, size);
	return fuzz_decoder_chunks(&proto_waypipe, data, size);
}
