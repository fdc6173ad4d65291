/*
 * runs.h — the values of netplot's CDF pictures (cdf.h), read from a
 * trace through the state model and the response model: one series per
 * run.
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#ifndef NETPLOT_RUNS_H
#define NETPLOT_RUNS_H

#include <stdbool.h>
#include <stdint.h>

#include "cdf.h"
#include "responses.h"

/* Read path and fill s with the values of metric m, labelled with the
   file's name: response times of the inputs that had a response (ms),
   bytes each input's response moved both ways, pixels it updated (RFB
   connections only: X11 responses carry no pixel count), or the time
   from each input to the next (ms).  A trace without such values gives
   an empty series with why_empty said.  Returns 0; 1 when the trace was
   damaged (what could be read is in s); -1 with err filled when it
   could not be read or memory ran out. */
int np_runs_load(const char *path, enum np_cdf_metric m, const struct xresp_options *ropt,
		 struct np_cdf_series *s, char *err, size_t errlen);
/* The same for several metrics in one reading: bit 1 << m of metrics
   asks for metric m; s[m] gets its series (the others are left empty,
   labelled).  For the GUI's CDF window, which switches between them. */
int np_runs_load_all(const char *path, unsigned metrics, const struct xresp_options *ropt,
		     struct np_cdf_series s[NP_CDF_N], char *err, size_t errlen);
/* SLIM's replay (xcapanalyse's added_delay.h): the rates to replay at
   (bit/s), the rate the trace was taken at (0: loopback), and the span
   replayed (ns after the first packet; 0 and UINT64_MAX: all). */
struct np_added_options {
	const uint64_t *rates;
	size_t nrates;
	uint64_t trace_rate;
	uint64_t range_start, range_end;
};
/* SLIM's replay of path at each rate: s[i] (i < nrates) gets the ms
   added to each packet (NP_CDF_ADDED_PACKET) or to each input's visible
   response (NP_CDF_ADDED_RESPONSE) at rates[i], labelled with the rate
   (after the file's name when name_file).  Returns as np_runs_load. */
int np_runs_load_added(const char *path, enum np_cdf_metric m, const struct np_added_options *ao,
		       const struct xresp_options *ropt, bool name_file, struct np_cdf_series *s,
		       char *err, size_t errlen);
void np_runs_series_free(struct np_cdf_series *s);

#endif
