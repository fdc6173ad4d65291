/*
 * added_delay.c — SLIM's replay per packet and per input's response
 * (added_delay.h).
 *
 * Belongs to: libanalyse, the analysis layer's library, which netplot links too (xcapanalyse/).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "added_delay.h"
#include "grow.h"

struct added_delay {
	struct predict_trace *pt;
	struct xstate_model *sm;
	struct xresp_model *rm;
	struct added_input *in;
	size_t n, cap;
	size_t responses;
	bool oom;
};

static void on_response(void *ctx, const struct xresponse *r)
{
	struct added_delay *a = ctx;
	if (GROW(a->in, a->cap, a->n + 1) < 0) {
		a->oom = true;
		return;
	}
	struct added_input *in = &a->in[a->n++];
	in->r = *r;
	/* The model's protocol name may not outlive it. */
	in->rfb = r->proto && strcmp(r->proto, "rfb") == 0;
	in->r.proto = NULL;
	in->in_pkt = in->end_pkt = in->in_w = in->end_w = PREDICT_NO_PACKET;
}

struct added_delay *added_delay_new(const struct predict_options *po,
				    const struct xstate_options *so,
				    const struct xresp_options *ro)
{
	struct added_delay *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->pt = predict_new(po);
	a->sm = xstate_new(so);
	a->rm = a->sm ? xresp_new(ro, a->sm, on_response, a) : NULL;
	if (!a->pt || !a->rm) {
		added_delay_free(a);
		return NULL;
	}
	return a;
}

void added_delay_free(struct added_delay *a)
{
	if (!a)
		return;
	predict_free(a->pt);
	xresp_free(a->rm);
	xstate_free(a->sm);
	free(a->in);
	free(a);
}

int added_delay_record(struct added_delay *a, const struct xrec *rec, bool wanted)
{
	/* The state model and the replay narrow by themselves (--conn,
	   --range): they need every packet's time.  The replay keeps to the
	   packets inside --range, as if the capture had begun and ended
	   there; the response model sees the whole trace, so that inputs are
	   numbered as --responses numbers them (finish keeps those inside). */
	if (xstate_record(a->sm, rec) < 0 || predict_record(a->pt, rec) < 0)
		return -1;
	if (wanted && (xresp_record(a->rm, rec) < 0 || a->oom))
		return -1;
	return 0;
}

int added_delay_finish(struct added_delay *a)
{
	xstate_finish(a->sm);
	xresp_finish(a->rm);
	if (a->oom)
		return -1;
	size_t kept = 0;
	for (size_t i = 0; i < a->n; i++)
		if (xstate_in_range(a->sm, a->in[i].r.input_ts))
			a->in[kept++] = a->in[i];
	a->n = kept;
	/* The packets of each response: the input going away from the
	   display, the end coming back to it. */
	struct predict_packet_query *q = malloc((a->n ? a->n : 1) * 2 * sizeof *q);
	size_t *idx = malloc((a->n ? a->n : 1) * 2 * sizeof *idx);
	if (!q || !idx) {
		free(q);
		free(idx);
		return -1;
	}
	for (size_t i = 0; i < a->n; i++) {
		const struct added_input *in = &a->in[i];
		uint8_t away = in->rfb ? XDIR_C2S : XDIR_S2C;
		q[2 * i] = (struct predict_packet_query){ in->r.input_ts, in->r.conn, away };
		q[2 * i + 1] = (struct predict_packet_query){ in->r.end_ts, in->r.conn, (uint8_t)!away };
	}
	if (predict_find_packets(a->pt, q, a->n * 2, idx) < 0) {
		free(q);
		free(idx);
		return -1;
	}
	a->responses = 0;
	for (size_t i = 0; i < a->n; i++) {
		struct added_input *in = &a->in[i];
		in->in_pkt = idx[2 * i];
		/* Without a visible response there is no end to move. */
		in->end_pkt = in->r.flags & XRESP_F_NO_RESPONSE ? PREDICT_NO_PACKET : idx[2 * i + 1];
		a->responses += in->in_pkt != PREDICT_NO_PACKET && in->end_pkt != PREDICT_NO_PACKET;
	}
	/* The same messages' writes, for the replay of the dependencies. */
	if (predict_find_writes(a->pt, q, a->n * 2, idx) < 0) {
		free(q);
		free(idx);
		return -1;
	}
	for (size_t i = 0; i < a->n; i++) {
		struct added_input *in = &a->in[i];
		in->in_w = idx[2 * i];
		in->end_w = in->r.flags & XRESP_F_NO_RESPONSE ? PREDICT_NO_PACKET : idx[2 * i + 1];
		/* (RFB's input is the client's: its server's answer is tied
		   by nothing in the replay; X11's and Wayland's are.) */
		if (!in->rfb && in->in_w != PREDICT_NO_PACKET)
			predict_tie_input(a->pt, in->in_w);
	}
	free(q);
	free(idx);
	/* The dependencies, the inputs' among them. */
	return predict_finish(a->pt);
}

uint64_t added_delay_first_ts(const struct added_delay *a)
{
	return xstate_all(a->sm)->first;
}

const struct predict_trace *added_delay_trace(const struct added_delay *a)
{
	return a->pt;
}

size_t added_delay_inputs(const struct added_delay *a)
{
	return a->n;
}

const struct added_input *added_delay_input(const struct added_delay *a, size_t i)
{
	return &a->in[i];
}

size_t added_delay_responses(const struct added_delay *a)
{
	return a->responses;
}

int added_delay_run(const struct added_delay *a, uint64_t rate, uint64_t trace_rate, int64_t *pkt,
		    struct added_response *resp)
{
	size_t np = predict_packets(a->pt);
	int64_t *d = pkt;
	if (!d && !(d = malloc((np ? np : 1) * sizeof *d)))
		return -1;
	int rc = predict_added_delays(a->pt, rate, trace_rate, d);
	if (rc == 0 && resp)
		for (size_t i = 0; i < a->n; i++) {
			const struct added_input *in = &a->in[i];
			struct added_response *r = &resp[i];
			r->known = in->in_pkt != PREDICT_NO_PACKET && in->end_pkt != PREDICT_NO_PACKET;
			r->input = r->known ? d[in->in_pkt] : 0;
			r->end = r->known ? d[in->end_pkt] : 0;
			r->total = r->input + r->end;
		}
	if (d != pkt)
		free(d);
	return rc;
}

int added_delay_replay(const struct added_delay *a, const struct predict_link *link,
		       struct predict_result *res, int64_t *resp)
{
	size_t nw = predict_writes(a->pt);
	uint64_t *seen = malloc((nw ? nw : 1) * sizeof *seen);
	if (!seen || predict_run_seen(a->pt, link, res, seen) < 0) {
		free(seen);
		return -1;
	}
	for (size_t i = 0; i < a->n; i++) {
		const struct added_input *in = &a->in[i];
		resp[i] = -1;
		if (in->in_w == PREDICT_NO_PACKET || in->end_w == PREDICT_NO_PACKET)
			continue;
		uint64_t from = seen[in->in_w], to = seen[in->end_w];
		if (from == PREDICT_NOT_SEEN || to == PREDICT_NOT_SEEN || to < from)
			continue;
		/* Beside the client, as --responses sees a capture there: the
		   display (X11's and Wayland's server) a round trip away. */
		resp[i] = (int64_t)(to - from) + (in->rfb ? 0 : 2 * (int64_t)link->delay);
	}
	free(seen);
	return 0;
}
