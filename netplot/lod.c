/*
 * lod.c — the level-of-detail index: pyramids of per-block aggregates
 * over the packet and message arrays of a direction.
 *
 * Level 0 is the items themselves; a node of level k aggregates
 * NP_LOD_FANOUT nodes of level k-1.  A query over an index range walks up
 * from both ends, taking at most FANOUT-1 nodes per level and side, so any
 * range costs O(FANOUT * log n) whatever its length.  Indexing by position
 * rather than by time keeps the nodes exact (no time bucketing error) and
 * small (one node per 16 items: about 4 bytes a packet).
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "model.h"

void np_pagg_empty(struct np_pagg *a)
{
	a->dlo = a->alo = a->wlo = INT64_MAX;
	a->dhi = a->ahi = a->whi = INT64_MIN;
	a->bytes = 0;
	a->marks = 0;
	a->ndata = 0;
}

void np_pagg_add_pkt(struct np_pagg *a, const struct np_pkt *p)
{
	/* SYN and FIN occupy one sequence number each, as tcptrace draws them */
	uint32_t extent = p->len + !!(p->flags & XTCP_SYN) + !!(p->flags & XTCP_FIN);
	if (extent) {
		if (p->seq < a->dlo)
			a->dlo = p->seq;
		if (p->seq + (int64_t)extent > a->dhi)
			a->dhi = p->seq + extent;
		a->ndata++;
	}
	if (p->flags & XTCP_ACK) {
		int64_t w = p->ack + (int64_t)p->win;
		if (p->ack < a->alo)
			a->alo = p->ack;
		if (p->ack > a->ahi)
			a->ahi = p->ack;
		if (w < a->wlo)
			a->wlo = w;
		if (w > a->whi)
			a->whi = w;
	}
	a->bytes += p->len;
	a->marks |= p->events | (uint32_t)p->flags << 16;
}

void np_pagg_merge(struct np_pagg *a, const struct np_pagg *b)
{
	if (b->dlo < a->dlo)
		a->dlo = b->dlo;
	if (b->dhi > a->dhi)
		a->dhi = b->dhi;
	if (b->alo < a->alo)
		a->alo = b->alo;
	if (b->ahi > a->ahi)
		a->ahi = b->ahi;
	if (b->wlo < a->wlo)
		a->wlo = b->wlo;
	if (b->whi > a->whi)
		a->whi = b->whi;
	a->bytes += b->bytes;
	a->marks |= b->marks;
	a->ndata += b->ndata;
}

void np_magg_empty(struct np_magg *a)
{
	a->elo = INT64_MAX;
	a->ehi = INT64_MIN;
	a->best = UINT32_MAX;
	a->count = 0;
	a->prio = 0;
}

/* Of equal priorities the earliest message wins, whatever the merge order. */
static void magg_merge(struct np_magg *a, const struct np_magg *b)
{
	if (!b->count)
		return;
	if (b->elo < a->elo)
		a->elo = b->elo;
	if (b->ehi > a->ehi)
		a->ehi = b->ehi;
	if (!a->count || b->prio > a->prio || (b->prio == a->prio && b->best < a->best)) {
		a->prio = b->prio;
		a->best = b->best;
	}
	a->count += b->count;
}

static void magg_item(struct np_magg *a, const struct np_msg *g, size_t i)
{
	struct np_magg b = { .elo = g->end, .ehi = g->end, .best = (uint32_t)i, .count = 1,
			     .prio = g->prio };
	magg_merge(a, &b);
}

void np_lod_free(struct np_dir *d)
{
	for (size_t l = 1; l < d->plod.nlevel; l++)
		free(d->plod.node[l]);
	for (size_t l = 1; l < d->mlod.nlevel; l++)
		free(d->mlod.node[l]);
	memset(&d->plod, 0, sizeof d->plod);
	memset(&d->mlod, 0, sizeof d->mlod);
}

int np_lod_add_pkt(struct np_dir *d)
{
	const size_t F = NP_LOD_FANOUT;
	size_t i = d->npkt - 1, j = i / F;
	if (i % F == 0) {
		if (GROW(d->l1, d->l1_cap, j + 1) < 0)
			return -1;
		np_pagg_empty(&d->l1[j]);
		d->nl1 = j + 1;
	}
	np_pagg_add_pkt(&d->l1[j], &d->pkt[i]);
	return 0;
}

int np_lod_build(struct np_dir *d)
{
	const size_t F = NP_LOD_FANOUT;
	struct np_pagg *l1 = NULL;
	/* the first level built while loading is good unless the packets
	   were sorted since */
	if (d->l1 && !d->unsorted && d->nl1 == (d->npkt + F - 1) / F && d->npkt > 1) {
		l1 = realloc(d->l1, d->nl1 * sizeof *l1);
		if (!l1)
			l1 = d->l1;
	} else {
		free(d->l1);
	}
	d->l1 = NULL;
	d->nl1 = d->l1_cap = 0;
	np_lod_free(d);
	/* packets */
	d->plod.count[0] = d->npkt;
	d->plod.nlevel = 1;
	if (l1) {
		d->plod.node[1] = l1;
		d->plod.count[1] = (d->npkt + F - 1) / F;
		d->plod.nlevel = 2;
	}
	while (d->plod.count[d->plod.nlevel - 1] > 1 && d->plod.nlevel < NP_LOD_MAXLEVEL) {
		size_t l = d->plod.nlevel, below = d->plod.count[l - 1], n = (below + F - 1) / F;
		struct np_pagg *v = malloc(n * sizeof *v);
		if (!v)
			return -1;
		for (size_t j = 0; j < n; j++) {
			np_pagg_empty(&v[j]);
			size_t end = (j + 1) * F < below ? (j + 1) * F : below;
			for (size_t i = j * F; i < end; i++) {
				if (l == 1)
					np_pagg_add_pkt(&v[j], &d->pkt[i]);
				else
					np_pagg_merge(&v[j], &d->plod.node[l - 1][i]);
			}
		}
		d->plod.node[l] = v;
		d->plod.count[l] = n;
		d->plod.nlevel++;
	}
	/* messages */
	d->mlod.count[0] = d->nmsg;
	d->mlod.nlevel = 1;
	while (d->mlod.count[d->mlod.nlevel - 1] > 1 && d->mlod.nlevel < NP_LOD_MAXLEVEL) {
		size_t l = d->mlod.nlevel, below = d->mlod.count[l - 1], n = (below + F - 1) / F;
		struct np_magg *v = malloc(n * sizeof *v);
		if (!v)
			return -1;
		for (size_t j = 0; j < n; j++) {
			np_magg_empty(&v[j]);
			size_t end = (j + 1) * F < below ? (j + 1) * F : below;
			for (size_t i = j * F; i < end; i++) {
				if (l == 1)
					magg_item(&v[j], &d->msg[i], i);
				else
					magg_merge(&v[j], &d->mlod.node[l - 1][i]);
			}
		}
		d->mlod.node[l] = v;
		d->mlod.count[l] = n;
		d->mlod.nlevel++;
	}
	return 0;
}

/* The walk shared by both pyramids: unaligned items at each end are taken
   one by one, the aligned middle moves up a level. */
void np_pkt_range(const struct np_dir *d, size_t i0, size_t i1, struct np_pagg *out)
{
	const size_t F = NP_LOD_FANOUT;
	np_pagg_empty(out);
	if (i1 > d->npkt)
		i1 = d->npkt;
	size_t lo = i0, hi = i1, l = 0;
	while (lo < hi) {
		bool up = l + 1 < d->plod.nlevel;
		while (lo < hi && (!up || lo % F)) {
			if (l == 0)
				np_pagg_add_pkt(out, &d->pkt[lo]);
			else
				np_pagg_merge(out, &d->plod.node[l][lo]);
			lo++;
		}
		while (lo < hi && hi % F) {
			hi--;
			if (l == 0)
				np_pagg_add_pkt(out, &d->pkt[hi]);
			else
				np_pagg_merge(out, &d->plod.node[l][hi]);
		}
		lo /= F;
		hi /= F;
		l++;
	}
}

void np_msg_range(const struct np_dir *d, size_t i0, size_t i1, struct np_magg *out)
{
	const size_t F = NP_LOD_FANOUT;
	np_magg_empty(out);
	if (i1 > d->nmsg)
		i1 = d->nmsg;
	size_t lo = i0, hi = i1, l = 0;
	/* order of merging does not matter: ties go to the lower index */
	while (lo < hi) {
		bool up = l + 1 < d->mlod.nlevel;
		while (lo < hi && (!up || lo % F)) {
			if (l == 0)
				magg_item(out, &d->msg[lo], lo);
			else
				magg_merge(out, &d->mlod.node[l][lo]);
			lo++;
		}
		while (lo < hi && hi % F) {
			hi--;
			if (l == 0)
				magg_item(out, &d->msg[hi], hi);
			else
				magg_merge(out, &d->mlod.node[l][hi]);
		}
		lo /= F;
		hi /= F;
		l++;
	}
}
