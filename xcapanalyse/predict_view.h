/*
 * predict_view.h — the tables of --predict (xcap-sweep's matrix,
 * predicted) and --added-delay (SLIM's distribution of added delay).
 */
#ifndef XCAPANALYSE_PREDICT_VIEW_H
#define XCAPANALYSE_PREDICT_VIEW_H

#include <stdio.h>

#include "output.h"
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

/* One row per rate: packets, how many gained delay, the mean and the
   percentiles of the added delay.  0, or -1 when out of memory. */
int added_delay_view_print(FILE *out, enum out_format fmt, const struct predict_trace *t,
			   const uint64_t *rates, size_t nrates, uint64_t trace_rate);

#endif
