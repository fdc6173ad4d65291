/*
 * predict_view.h — the tables of --predict (xcap-sweep's matrix,
 * predicted) and --added-delay (SLIM's distribution of added delay).
 *
 * Belongs to: the xcapanalyse command's room (xcapanalyse/cmd/xcapanalyse/).
 */
#ifndef XCAPANALYSE_PREDICT_VIEW_H
#define XCAPANALYSE_PREDICT_VIEW_H

#include <stdio.h>

#include "output.h"
#include "added_delay.h"
#include "predict.h"

/* One row per rate and delay, in the order of the lists: elapsed time,
   Total Network Delay with its Block Send / Block Reply split, round
   trips, and the delay relative to the 10M / 0.1 ms cell (else the
   fastest, shortest), as xcap-sweep prints it; text and Markdown end with
   the relative figures as a matrix.  0, or -1 when out of memory. */
int predict_view_print(FILE *out, enum out_format fmt, const struct predict_trace *t,
		       const uint64_t *rates, size_t nrates, const uint64_t *delays, size_t ndelays);

/* Every predicted blocking round trip, link by link: the link, the time
   since the first packet, the connection, the request (extension, name,
   sequence number) and the predicted wait.  0, or -1 when out of
   memory. */
int predict_trips_print(FILE *out, enum out_format fmt, const struct predict_trace *t,
			const uint64_t *rates, size_t nrates, const uint64_t *delays, size_t ndelays);

/* SLIM's experiment (added_delay.h): two rows per rate, the packets'
   and the inputs' responses' added delay: how many, how many gained
   delay, the mean, the percentiles, the shares within 1, 10, 100 ms.  0,
   or -1 when out of memory. */
int added_delay_view_print(FILE *out, enum out_format fmt, const struct added_delay *a,
			   const uint64_t *rates, size_t nrates, uint64_t trace_rate);
/* Each input at each rate: its response as captured, the added delay of
   its input and of its end, their sum, and the response on the slower
   link. */
int added_delay_responses_print(FILE *out, enum out_format fmt, const struct added_delay *a,
				const uint64_t *rates, size_t nrates, uint64_t trace_rate);
/* The CDFs themselves, per rate, of packets and of responses: one row
   per distinct added delay with the count and the share at or below it. */
int added_delay_cdf_print(FILE *out, enum out_format fmt, const struct added_delay *a,
			  const uint64_t *rates, size_t nrates, uint64_t trace_rate);

/* --predict-responses: each input's response on each link of rates x
   delays, from the replay of the trace's dependencies with the
   transport asked for (added_delay_replay), beside its response in the
   trace; text and Markdown end with each link's count, median and 90th
   percentile.  0, or -1 when out of memory. */
int predict_responses_print(FILE *out, enum out_format fmt, const struct added_delay *a,
			    const uint64_t *rates, size_t nrates, const uint64_t *delays,
			    size_t ndelays);

#endif
