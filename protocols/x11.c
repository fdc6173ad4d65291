/*
 * x11.c — placeholder until the generated-table X11 decoder lands:
 * create() returns NULL, which the pipeline treats as "no decoder".
 */
#include "config.h"

#include "protocol.h"

static struct proto_decoder *x11_create(const struct proto_sink *sink)
{
	(void)sink;
	return NULL;
}

const struct proto_ops proto_x11 = {
	.name = "x11",
	.create = x11_create,
};
