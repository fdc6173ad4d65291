/*
 * conns.h — the one per-connection table, keyed by trace id: the state
 * each reader keeps about a connection (the response model, the state
 * model, call sites, the responses and updates views).  Entries are kept
 * in the order their connections were first seen, which is the order the
 * readers print them in, and found by id through an index, in constant
 * time; ids above XCONNS_ID_MAX (a damaged or hostile trace) are never
 * taken, so no id makes the index huge.
 *
 *   struct xconns t;  xconns_init(&t, sizeof (struct my_conn));
 *   struct my_conn *c = xconns_add(&t, id);	// found, or new and zeroed
 *   for (size_t i = 0; i < t.n; i++) { struct my_conn *c = xconns_at(&t, i); ... }
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#ifndef XCAP_CONNS_H
#define XCAP_CONNS_H

#include <stddef.h>
#include <stdint.h>

/* Trace ids count connections from 1 in order of appearance: more than
   16 million in one trace is a damaged id, not a connection. */
#define XCONNS_ID_MAX (1u << 24)

struct xconns {
	void *v;		/* n entries of size bytes, in order of first sight */
	size_t n, cap, size;
	uint32_t *pos;		/* pos[id]: the entry's index + 1, 0 for none */
	size_t npos;
};

void xconns_init(struct xconns *t, size_t size);
void xconns_free(struct xconns *t);	/* the table's memory, not what entries point to */

/* The entry of id, or NULL. */
static inline void *xconns_get(const struct xconns *t, uint32_t id)
{
	if (id >= t->npos || !t->pos[id])
		return NULL;
	return (char *)t->v + (size_t)(t->pos[id] - 1) * t->size;
}

/* The entry of id, added (zeroed, at the end) when it has none; NULL for
   id 0, an id above XCONNS_ID_MAX, or no memory. */
void *xconns_add(struct xconns *t, uint32_t id);

static inline void *xconns_at(const struct xconns *t, size_t i)
{
	return (char *)t->v + i * t->size;
}

#endif
