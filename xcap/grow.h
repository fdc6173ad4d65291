/*
 * grow.h — the one growable array: room for at least need elements,
 * doubling, the size checked for overflow.  Every list the suite builds
 * as it reads (records, strings, connections, rows) grows through it.
 *
 *   struct thing *v = NULL; size_t n = 0, cap = 0;
 *   if (GROW(v, cap, n + 1) < 0)
 *           return -1;		// v and cap as they were
 *   v[n++] = ...;
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#ifndef XCAP_GROW_H
#define XCAP_GROW_H

#include <stddef.h>

/* *v holds *cap elements of size bytes; make it hold at least need
   (16 at first, then doubling).  0, or -1 when out of memory or when the
   bytes would not fit in a size_t: then *v and *cap are unchanged. */
int grow(void **v, size_t *cap, size_t need, size_t size);

/* The test of room is made here, so that an append with room left costs
   a comparison, as a hand-written one did, and no call: need and cap are
   read more than once (give them no side effects). */
#define GROW(v, cap, need) \
	((size_t)(need) <= (cap) ? 0 : grow((void **)&(v), &(cap), (need), sizeof *(v)))

#endif
