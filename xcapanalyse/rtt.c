/*
 * rtt.c — tcptrace's round-trip samples with Karn's rule (see rtt.h).
 *
 * Belongs to: libanalyse, the analysis layer's library (xcapanalyse/).
 */
#include "config.h"

#include <stdlib.h>

#include "rtt.h"

static bool seq_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static struct rtt_seg *at(const struct rtt_flight *f, size_t i)
{
	return &f->seg[(f->head + i) % f->cap];
}

void rtt_free(struct rtt_flight *f)
{
	free(f->seg);
	*f = (struct rtt_flight){ 0 };
}

int rtt_sent(struct rtt_flight *f, uint32_t seq, uint32_t ext, uint64_t ts, bool again)
{
	uint32_t end = seq + ext;
	/* a copy of what is in flight marks it sent again */
	if (again)
		for (size_t i = 0; i < f->n; i++) {
			struct rtt_seg *s = at(f, i);
			if (seq_lt(seq, s->end) && !seq_lt(end, s->end))
				s->again = true;
		}
	/* a copy of what was acknowledged already can answer nothing */
	if (f->have_ack && !seq_lt(f->last_ack, end))
		return 0;
	if (f->n == f->cap) {
		/* a ring grows by copying it out straight */
		size_t cap = f->cap ? f->cap * 2 : 64;
		struct rtt_seg *s = malloc(cap * sizeof *s);
		if (!s)
			return -1;
		for (size_t i = 0; i < f->n; i++)
			s[i] = *at(f, i);
		free(f->seg);
		f->seg = s;
		f->head = 0;
		f->cap = cap;
	}
	*at(f, f->n++) = (struct rtt_seg){ end, ts, again };
	return 0;
}

bool rtt_acked(struct rtt_flight *f, uint32_t ack, uint64_t ts, uint64_t *ns)
{
	if (f->have_ack && !seq_lt(f->last_ack, ack))
		return false;	/* nothing new */
	f->have_ack = true;
	f->last_ack = ack;
	/* Every segment the ack covers leaves the flight (the rest keep their
	   order).  The sample is the one that ends where the ack points, as
	   tcptrace takes it: none when it was sent more than once, or when
	   another it covers was sent after it (the ack may answer that one);
	   an ack inside a segment gives none. */
	bool have = false;
	struct rtt_seg exact = { 0 };
	uint64_t last_sent = 0;	/* the latest of the others covered */
	size_t kept = 0;
	for (size_t i = 0; i < f->n; i++) {
		struct rtt_seg s = *at(f, i);
		if (seq_lt(ack, s.end)) {
			*at(f, kept++) = s;
			continue;
		}
		if (s.end == ack && (!have || s.ts > exact.ts)) {
			if (have && exact.ts > last_sent)
				last_sent = exact.ts;
			exact = s;
			have = true;
		} else if (s.ts > last_sent) {
			last_sent = s.ts;
		}
	}
	f->n = kept;
	if (!f->n)
		f->head = 0;
	if (!have || exact.again || last_sent > exact.ts || ts < exact.ts)
		return false;
	*ns = ts - exact.ts;
	return true;
}

const struct rtt_seg *rtt_oldest(const struct rtt_flight *f)
{
	return f->n ? at(f, 0) : NULL;
}
