/*
 * index.h — the side index of a huge trace (TRACE.idx): per connection
 * and direction, time buckets at several levels of detail (each level's
 * buckets 16 times wider than the level below) holding what a column of
 * the graph needs — extremes of the data's and the acknowledgements'
 * sequence numbers, bytes, packets, messages, time in each blocked state
 * — and the offset of the trace block where the bucket's first packet
 * is; and the state model's intervals, sorted, so that a window of the
 * trace gets its states without running the model from the start.
 * Written by xcap -w as it captures (without the states), or built by
 * netplot in one streaming pass over the trace, beside it; read through
 * mmap: opening it costs no pass over the trace, and a
 * picture at any zoom touches only the buckets of the level that fits its
 * pixel columns.  The format is in man/xcap.5 (INDEX FILES).
 *
 * The file is an input like any other: every read of it is checked
 * against its length (np_index_from_bytes), and a stale index (the trace
 * changed since: size, time of change or first bytes differ) is rebuilt.
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#ifndef NETPLOT_INDEX_H
#define NETPLOT_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cairo.h>

#include "traceidx.h"	/* struct xidx_bucket: what a column of the index holds */

#define NP_INDEX_FANOUT 16	/* XIDX_FANOUT of xcap/traceidx.h */
/* A span is read from the trace (packets one by one, labels) when its
   window costs at most this many bytes, about 20 ms of reading and
   decoding here; a wider one is drawn from the index's buckets. */
#define NP_INDEX_WINDOW_BYTES 1500000

struct np_index;

/* Build the index of the .xcap trace at path into out_path, in one pass
   through xcap's index writer (xcap/traceidx.h) with the state model's
   intervals (written to a temporary name and renamed, so a reader never
   sees half of one). */
int np_index_build(const char *path, const char *out_path, char *err, size_t errlen);

/* An index written while capturing has no states: a job in a thread of
   its own makes path's index again with them (the pass np_index_build
   does) and renames it over TRACE.idx, while the caller goes on drawing
   from the old one, then maps the new one with np_index_open. */
struct np_states_job;
struct np_states_job *np_index_states_start(const char *path, char *err, size_t errlen);
/* How far it is (bytes of the trace read, of total): 0 running, 1 the
   new index is in place, -1 failed (err filled). */
int np_index_states_poll(struct np_states_job *j, long long *done, long long *total, char *err,
			 size_t errlen);
/* Stop it if it runs (nothing is written then), wait for its thread and
   free it. */
void np_index_states_free(struct np_states_job *j);

/* Open path's index, TRACE.idx beside it, building it first when it is
   missing or stale (built says which).  NULL with err filled. */
struct np_index *np_index_open(const char *path, bool *built, char *err, size_t errlen);

/* An index from bytes already in memory (the checked parser: the fuzz
   entry point and np_index_open use it).  The bytes must outlive it. */
struct np_index *np_index_from_bytes(const uint8_t *p, size_t len, char *err, size_t errlen);
void np_index_free(struct np_index *ix);

size_t np_index_conns(const struct np_index *ix);
/* Connection i: id, its span (ns since t0) and packets each way. */
void np_index_conn(const struct np_index *ix, size_t i, uint32_t *id, uint64_t *first,
		   uint64_t *last, uint64_t npkt[2]);
/* The connection with the most packets (0 when there is none). */
size_t np_index_busiest(const struct np_index *ix);
/* The client's name of connection i ("" when it never said). */
void np_index_conn_name(const struct np_index *ix, size_t i, char *buf, size_t len);
/* The index holds the state model's intervals (one netplot built does;
   one xcap wrote as it captured does not). */
bool np_index_has_state(const struct np_index *ix);
/* How many state intervals it holds, all directions together. */
uint64_t np_index_state_intervals(const struct np_index *ix);
uint64_t np_index_packets(const struct np_index *ix);

/* The aggregate of direction dir of connection i over [t0, t1) (ns since
   the trace's first record), from the coarsest level whose buckets fit in
   width ns (at least one level-0 bucket).  Returns the number of buckets
   read. */
size_t np_index_range(const struct np_index *ix, size_t i, int dir, uint64_t t0, uint64_t t1,
		      uint64_t width, struct xidx_bucket *out);

/* A model of connection i holding only the packets, messages and gaps of
   [t0, t1] (ns since t0 of the trace), read from the trace blocks the
   index names for that span: the whole renderer (packets one by one,
   labels, hit tests) at a zoom fine enough, for the cost of the blocks
   read.  Times and sequence numbers are those of the whole trace's
   graph.  Its state intervals are the whole-trace model's, read from
   the index for the span (none when the index has none).  NULL with err
   filled. */
struct np_model;
/* About how many bytes of the trace np_index_window reads for that span
   (the other connections' records in between included): what it costs,
   known before reading. */
size_t np_index_window_cost(const struct np_index *ix, size_t i, uint64_t t0, uint64_t t1);
struct np_model *np_index_window(const struct np_index *ix, const char *trace, size_t i,
				 uint64_t t0, uint64_t t1, char *err, size_t errlen);

/* The same reading in steps, for a span too dear for one frame: begin
   sets the model up and opens the trace where the span begins; each step
   reads about bytes of it (0 more to read, 1 read to its end, -1 failed);
   end gives the model (and frees the job), free drops it unfinished.
   The index must outlive the job. */
#define NP_INDEX_REFINE_BYTES 64000000	/* spans up to this are read in steps */
struct np_window_job;
struct np_window_job *np_index_window_begin(const struct np_index *ix, const char *trace,
					    size_t i, uint64_t t0, uint64_t t1, char *err,
					    size_t errlen);
int np_index_window_step(struct np_window_job *j, size_t bytes, char *err, size_t errlen);
struct np_model *np_index_window_end(struct np_window_job *j, char *err, size_t errlen);
size_t np_index_window_chunks(const struct np_window_job *j);
void np_index_window_free(struct np_window_job *j);

/* Draw the graph of direction dir of connection i for the time [t0, t1]
   and sequence numbers [y0, y1] into the w by h surface of cr, a column at
   a time from the index: the data's extent, the acknowledgements', and
   the most blocked state along the bottom.  Returns the buckets read. */
size_t np_index_render(cairo_t *cr, const struct np_index *ix, size_t i, int dir, double t0,
		       double t1, double y0, double y1, int w, int h);

/* The same columns into the plot rectangle (x, y, w, h) of a picture the
   caller has drawn (axes and all), without painting over the rest. */
size_t np_index_draw(cairo_t *cr, const struct np_index *ix, size_t i, int dir, double t0,
		     double t1, double y0, double y1, double x, double y, double w, double h);

#endif
