/*
 * fuzz_rfb.c — fuzz entry point for the RFB decoder alone, fed a script of
 * chunks (tests/fuzz/chunks.h); tests/fuzz-rfb.sh builds the seeds.
 */
#include "config.h"

#include "chunks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_decoder_chunks(&proto_rfb, data, size);
}
