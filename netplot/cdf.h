/*
 * cdf.h — cumulative distributions of what a person at the screen feels
 * (VNCplay's and SLIM's pictures): response time, bytes and pixels per
 * input, time between inputs; several runs overlaid, one curve each,
 * drawn with cairo onto any surface and exported headless as PNG, SVG
 * or PDF.  And SLIM's own (its Figure 6): the delay a slower link adds
 * to each packet, or to each input's response, one curve per rate.  The
 * values come from the response model and SLIM's replay (runs.h reads
 * them from traces); this file only draws.
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#ifndef NETPLOT_CDF_H
#define NETPLOT_CDF_H

#include <stddef.h>

#include <cairo.h>

#include "render.h"

enum np_cdf_metric {
	NP_CDF_RESPONSE,	/* response time per input, ms */
	NP_CDF_BYTES,		/* protocol bytes per input, both ways */
	NP_CDF_PIXELS,		/* pixels updated per input (RFB) */
	NP_CDF_INTER,		/* time from one input to the next, ms */
	NP_CDF_N,		/* the metrics of inputs, the CDF window's */
	/* SLIM's replay (xcapanalyse's added_delay.h), a curve per rate: */
	NP_CDF_ADDED_PACKET = NP_CDF_N,	/* ms added to each packet */
	NP_CDF_ADDED_RESPONSE,		/* ms added to each input's response */
	NP_CDF_METRICS
};

/* "response-time", "bytes", "pixels", "inter-input", "added-delay",
   "added-delay-response"; -1 when unknown. */
int np_cdf_metric_parse(const char *name);
const char *np_cdf_metric_name(enum np_cdf_metric m);

/* One run's values in the metric's unit (ms, bytes, pixels), any order;
   np_cdf_render sorts them. */
struct np_cdf_series {
	char label[128];
	double *v;
	size_t n;
	char why_empty[96];	/* when n == 0: what the legend says instead */
};

/* The colour of the i-th curve (a palette that stays apart in print). */
struct np_rgb np_cdf_colour(size_t i);

/* Plot geometry, for the tests' pixel checks. */
struct np_cdf_frame {
	double px, py, pw, ph;	/* the plot rectangle */
	double x0, x1;		/* the x axis' range, in the metric's unit */
	int log_x;		/* bytes, pixels, added delay: decades */
	int below;		/* log: values below x0 (zeros) sit on its edge */
};

/* Draw the curves of n series onto cr (w x h pixels): axes with ticks
   and units, a legend with each run's count and median, and for
   response time and added delay guide lines at 50, 100 and 150 ms.  Sorts each series'
   values in place.  frame (may be NULL) gets the geometry. */
void np_cdf_render(cairo_t *cr, int w, int h, enum np_cdf_metric m, struct np_cdf_series *s,
		   size_t n, struct np_cdf_frame *frame);
/* The legend's line of series s (sorted): its label, count and median,
   or why it is empty. */
void np_cdf_legend(char *buf, size_t size, enum np_cdf_metric m, const struct np_cdf_series *s);
/* Where value x falls on the frame's x axis, in pixels. */
double np_cdf_x(const struct np_cdf_frame *f, double x);

/* Write the picture to path, format from its extension (.png .svg .pdf).
   0, or -1 with err filled. */
int np_cdf_export(const char *path, int w, int h, enum np_cdf_metric m, struct np_cdf_series *s,
		  size_t n, char *err, size_t errlen);
/* The same, and frame (may be NULL) gets the geometry drawn. */
int np_cdf_export_frame(const char *path, int w, int h, enum np_cdf_metric m,
			struct np_cdf_series *s, size_t n, struct np_cdf_frame *frame, char *err,
			size_t errlen);

#endif
