/*
 * fuzz_session.c — fuzz entry point for the session file reader
 * (xcap/cmd/xcap-replay/session.c): the bytes are the file.  What reads is written back
 * and read again, which must give the same inputs.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xsession s, again;
	char err[256];
	if (xsession_parse(data, size, &s, err, sizeof err) < 0)
		return 0;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) {
		xsession_free(&s);
		return 0;
	}
	xsession_write(f, &s);
	fclose(f);
	if (xsession_parse((const uint8_t *)text, len, &again, err, sizeof err) < 0 ||
	    again.n != s.n || again.proto != s.proto)
		abort();
	for (size_t i = 0; i < s.n; i++) {
		const struct xsess_input *a = &s.inputs[i], *b = &again.inputs[i];
		/* written to the microsecond */
		if (a->kind != b->kind || a->code != b->code || a->root_x != b->root_x ||
		    a->root_y != b->root_y || a->state != b->state || a->window != b->window ||
		    a->response != b->response || a->t / 1000 != b->t / 1000)
			abort();
	}
	xsession_free(&again);
	xsession_free(&s);
	free(text);
	return 0;
}
