/*
 * responses.h — the response model (xcap/response_model.h: what a person
 * at the screen feels, the response time of every input) bound to the
 * state model, and summaries of its responses.
 *
 * The model lives in the capture layer, so that the flight recorder
 * (xcap --trigger response>...) and this analysis share one rule.  Here
 * it asks the state model where the capture was and the connection's RTT
 * (xstate's side and rtt, --capture-side), and hears its round trips.
 * Feed it the records after the state model has had them, and call
 * xresp_finish after xstate_finish.
 *
 * Belongs to: libanalyse, the analysis layer's library, which netplot links too (xcapanalyse/).
 */
#ifndef XCAPANALYSE_RESPONSES_H
#define XCAPANALYSE_RESPONSES_H

#include <stdbool.h>
#include <stdint.h>

#include "record.h"
#include "response_model.h"
#include "state.h"

/* A model that emits each response through fn, asking m for RTTs and
   listening to its waits (one of m's XSTATE_LISTENERS_MAX).  NULL when
   out of memory or m refuses another listener. */
struct xresp_model *xresp_new(const struct xresp_options *opt, struct xstate_model *m,
			      xresp_emit_fn fn, void *ctx);

/* Summaries over a stream of responses, in constant memory: response
   times go into a histogram of fixed buckets (0.1 ms up to 1 ms, then
   1 % steps), so percentiles are within 1 % of the exact ones. */
struct xresp_summary;
struct xresp_summary *xresp_summary_new(void);
void xresp_summary_add(struct xresp_summary *s, const struct xresponse *r);
void xresp_summary_free(struct xresp_summary *s);
struct xresp_stats {
	uint64_t count;			/* inputs */
	uint64_t responded;		/* with a visible response: the percentiles' */
	uint64_t no_response, cut, uncertain;
	uint64_t p50, p90, p95, p99, max; /* ns, over responded */
	uint64_t over50, over100, over150;	/* responded inputs above 50/100/150 ms */
	uint64_t first_ts, last_ts;	/* first and last input */
	double input_rate;		/* inputs per second over that span */
	uint64_t bytes[2], pixels;
};
void xresp_summary_stats(const struct xresp_summary *s, struct xresp_stats *out);

#endif
