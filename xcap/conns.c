/*
 * conns.c — see conns.h.
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "conns.h"
#include "grow.h"

void xconns_init(struct xconns *t, size_t size)
{
	memset(t, 0, sizeof *t);
	t->size = size;
}

void xconns_free(struct xconns *t)
{
	free(t->v);
	free(t->pos);
	xconns_init(t, t->size);
}

void *xconns_add(struct xconns *t, uint32_t id)
{
	void *e = xconns_get(t, id);
	if (e || id == 0 || id > XCONNS_ID_MAX)
		return e;
	if (id >= t->npos) {
		size_t old = t->npos;
		if (GROW(t->pos, t->npos, (size_t)id + 1) < 0)
			return NULL;
		memset(t->pos + old, 0, (t->npos - old) * sizeof *t->pos);
	}
	if (grow(&t->v, &t->cap, t->n + 1, t->size) < 0)
		return NULL;
	e = xconns_at(t, t->n);
	memset(e, 0, t->size);
	t->pos[id] = (uint32_t)++t->n;
	return e;
}
