/*
 * flight.h — a flight recorder for trace records: the last seconds (or
 * bytes) of a capture kept in memory, written out only in windows around
 * triggers.
 *
 * Every record of the capture goes through flight_put.  It stays in the
 * ring until the ring's limits push it out; what leaves the ring is not
 * lost to the reader: the recorder keeps, from the records that left, what
 * a reader of a later window needs (each open connection's conn record,
 * its ext and name records).  A trigger at time T opens a window from
 * T - before: the output is opened, that state is written first (times set
 * to the window's start), then a window-start mark saying what triggered
 * it, then every ring record from the start on.  Records go on to the
 * output as they come until T + after (a trigger inside a window extends
 * it); a window-end mark closes it.  So a window holds every record of its
 * time span and everything before it that its records refer to.
 *
 * Belongs to: the xcap command's room (xcap/cmd/xcap/).
 */
#ifndef XCAP_FLIGHT_H
#define XCAP_FLIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

struct flight_options {
	uint64_t ring_ns;	/* keep records at most this old (0: no limit by time) */
	uint64_t ring_bytes;	/* keep at most this much memory of records (0: none) */
	uint64_t before_ns;	/* a window begins this long before its trigger */
	uint64_t after_ns;	/* and ends this long after its last trigger */
};

/* Where windows go.  open starts a window whose first record is at
   start; put writes a record to it; close ends it.  open and close return
   0, or -1 on failure (the recorder stops and says so). */
struct flight_output {
	void *ctx;
	int (*open)(void *ctx, uint64_t start);
	void (*put)(void *ctx, const struct xrec *rec);
	int (*close)(void *ctx);
};

struct flight;

/* NULL when out of memory. */
struct flight *flight_new(const struct flight_options *opt, const struct flight_output *out);

/* One record of the capture, in time order.  0, or -1 when the recorder
   has failed (flight_error). */
int flight_put(struct flight *f, const struct xrec *rec);

/* Something worth keeping happened at ts: open a window, or extend the
   open one.  why is the window-start mark's text.  The mark saying what
   happened is the caller's: put it first, so that it is in the window. */
int flight_trigger(struct flight *f, uint64_t ts, const char *why);

/* The same for something that began at from and is known only at ts
   (a slow response, known once it has ended): the window begins before
   from by the same margin and ends as one triggered at ts.  A window
   already open is extended, not moved back. */
int flight_trigger_from(struct flight *f, uint64_t from, uint64_t ts, const char *why);

/* The clock reached now (live capture, no traffic): close a window whose
   end has passed. */
int flight_tick(struct flight *f, uint64_t now);

/* The capture ended at ts: close an open window there. */
int flight_finish(struct flight *f, uint64_t ts);

/* What the ring holds now, for tests and status lines. */
size_t flight_ring_records(const struct flight *f);
uint64_t flight_ring_bytes(const struct flight *f);
uint64_t flight_ring_oldest(const struct flight *f);	/* 0 when empty */
unsigned flight_windows(const struct flight *f);	/* windows opened so far */
int flight_writing(const struct flight *f);		/* a window is open */

/* Why the recorder failed, NULL while it has not. */
const char *flight_error(const struct flight *f);

void flight_free(struct flight *f);

#endif
