/*
 * series.h — the graphs of tcptrace's family other than the time-sequence
 * graph, as series of (time, value) samples derived from one direction of
 * a connection: round-trip times (from the acks and from the protocol's
 * request → answer pairs), throughput, outstanding data against the
 * advertised window, segment sizes; and the protocol's lanes (one row per
 * request kind).  Derived once, on the first picture that needs them, and
 * kept beside the direction's arrays with a min/max pyramid so that a
 * redraw costs O(pixels) as the time-sequence graph's does.
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#ifndef NETPLOT_SERIES_H
#define NETPLOT_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* The graphs, by tcptrace's names for them (its -S -R -T -N and the
   segment size graph; "lanes" is ours). */
enum np_graph {
	NP_GRAPH_TSG,		/* time-sequence */
	NP_GRAPH_RTT,		/* round-trip time samples */
	NP_GRAPH_TPUT,		/* throughput */
	NP_GRAPH_OWIN,		/* outstanding data and the advertised window */
	NP_GRAPH_SSIZE,		/* segment sizes */
	NP_GRAPH_LANES,		/* the protocol's requests, a row per kind */
	NP_GRAPH_N
};
/* "tsg", "rtt", "tput", "owin", "ssize", "lanes"; parse gives -1 for
   another name. */
const char *np_graph_name(int g);
int np_graph_parse(const char *name);

#define NP_PYR_FANOUT 16
#define NP_PYR_LEVELS 8

struct np_series {
	const char *name;		/* "ack", "request → reply", ... */
	const char *unit;		/* of the values: "ms", "bytes/s", "bytes" */
	int colour;			/* index into np_series_colour */
	bool line;			/* joined steps (else dots) */
	bool no_scale;			/* drawn, cut at the top: does not set the scale */
	size_t n;
	uint64_t *t;			/* ns since the model's t0, sorted */
	double *y;
	size_t nlevel;			/* pyramid: lo/hi of NP_PYR_FANOUT^k items */
	double *lo[NP_PYR_LEVELS], *hi[NP_PYR_LEVELS];
};

/* One lane: the messages of one kind (name and extension), by time. */
struct np_lane {
	uint32_t name, ext;
	size_t n;
	uint32_t *msg;			/* indices into the direction's messages */
};

#define NP_SERIES_MAX 3
#define NP_LANES_MAX 48

/* What a direction's graphs derive (np_dir.derived). */
struct np_derived {
	bool done[NP_GRAPH_N];
	struct np_series s[NP_GRAPH_N][NP_SERIES_MAX];
	size_t ns[NP_GRAPH_N];
	struct np_lane lane[NP_LANES_MAX];
	size_t nlane;
	double build_ms[NP_GRAPH_N];	/* what deriving took, for the benchmark */
};

/* The series of graph g for direction dir of c, derived on first use
   (NULL when out of memory); *n their count.  The lanes: np_lanes. */
const struct np_series *np_graph_series(const struct np_conn *c, int dir, int g, size_t *n);
const struct np_lane *np_lanes(const struct np_conn *c, int dir, size_t *n);
double np_graph_build_ms(const struct np_conn *c, int dir, int g);
void np_derived_free(struct np_derived *d);

/* Index of the first sample at or after t. */
size_t np_series_lower(const struct np_series *s, size_t from, uint64_t t);
/* Extremes of samples [i0, i1); false when empty. */
bool np_series_range(const struct np_series *s, size_t i0, size_t i1, double *lo, double *hi);

#endif
