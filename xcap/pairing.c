/*
 * pairing.c — see pairing.h.
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>

#include "pairing.h"

/* The ring's capacity is a power of two (64 doubling to PAIRING_KEPT), so
   positions wrap with a mask. */
_Static_assert((PAIRING_KEPT & (PAIRING_KEPT - 1)) == 0, "PAIRING_KEPT is a power of two");

struct pairing_req {
	uint64_t seq, ts;
	uint32_t end;
	bool unsure;	/* its number was a guess (XMSG_F_UNCERTAIN) */
};

static int keep(struct pairing *p, const struct xrec_msg *m)
{
	/* A request numbered as the one before it takes its place: RFB
	   numbers every step of its handshake 0, and each step's answer is
	   to the client's latest (a failed VNC authentication answers the
	   response, not the ProtocolVersion). */
	if (p->len) {
		struct pairing_req *newest = &p->ring[(p->head + p->len - 1) & (p->cap - 1)];
		if (newest->seq == m->seq) {
			*newest = (struct pairing_req){ m->seq, m->ts, m->tcp_end,
							(m->flags & XMSG_F_UNCERTAIN) != 0 };
			return 0;
		}
	}
	if (p->len == p->cap) {
		if (p->cap == PAIRING_KEPT) {	/* forget the oldest */
			p->head = (p->head + 1) & (p->cap - 1);
			p->len--;
		} else {
			uint32_t cap = p->cap ? 2 * p->cap : 64;
			struct pairing_req *r = malloc(cap * sizeof *r);
			if (!r)
				return -1;
			for (uint32_t i = 0; i < p->len; i++)
				r[i] = p->ring[(p->head + i) & (p->cap - 1)];
			free(p->ring);
			p->ring = r;
			p->head = 0;
			p->cap = cap;
		}
	}
	p->ring[(p->head + p->len) & (p->cap - 1)] = (struct pairing_req){
		m->seq, m->ts, m->tcp_end, (m->flags & XMSG_F_UNCERTAIN) != 0 };
	p->len++;
	return 0;
}

static void answer(struct pairing *p, struct xrec_msg *m)
{
	while (p->len && p->ring[p->head].seq < m->seq) {
		p->head = (p->head + 1) & (p->cap - 1);
		p->len--;
	}
	/* Numbers the decoder could not confirm pair a guess: no pairing. */
	if (p->len && p->ring[p->head].seq == m->seq && !p->ring[p->head].unsure &&
	    !(m->flags & XMSG_F_UNCERTAIN)) {
		m->req_ts = p->ring[p->head].ts;
		m->req_end = p->ring[p->head].end;
	}
}

int pairing_message(struct pairing *p, struct xrec_msg *m)
{
	if (m->dir == XDIR_C2S)
		return m->kind == XMSG_REQUEST || m->kind == XMSG_SETUP ? keep(p, m) : 0;
	if (m->kind == XMSG_REPLY || m->kind == XMSG_ERROR || m->kind == XMSG_SETUP)
		answer(p, m);
	return 0;
}

void pairing_free(struct pairing *p)
{
	free(p->ring);
	p->ring = NULL;
	p->head = p->len = p->cap = 0;
}
