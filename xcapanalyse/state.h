/*
 * state.h — where the time went: the state model of Packard & Gettys
 * (DESIGN.md, "The state model"), shared by xcapanalyse and netplot.
 *
 * Records go in one at a time, in the order a trace holds them; the model
 * splits the span of every connection, for each direction, into
 *
 *   Idle         nothing to send;
 *   Block Send   the sender had data and the network held it back: a data
 *                segment that a pure acknowledgement from the peer
 *                "immediately elicited" was blocked since the direction's
 *                preceding data segment; so was a full-sized segment that
 *                follows a full-sized one while data is unacknowledged
 *                (a backlog that a pacing sender, such as one using BBR,
 *                lets out without waiting for acknowledgements);
 *   Block Recv   the same, but the receiver's advertised window was closed
 *                (bytes in flight filled it): the receiver held it back;
 *   Block Reply  request direction only: the client stopped sending with
 *                requests that want a reply (or its connection setup)
 *                outstanding, and a reply came before it sent again (see
 *                struct xstate_wait for which request it waited on).
 *
 * A moment belongs to one state; when the rules give two, Block Reply
 * wins over Block Recv, and Block Recv over Block Send.  Memory does not
 * grow with the length of the trace, only with its number of connections.
 *
 * Belongs to: libanalyse, the analysis layer's library, which netplot links too (xcapanalyse/).
 */
#ifndef XCAPANALYSE_STATE_H
#define XCAPANALYSE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

enum xstate { XSTATE_IDLE, XSTATE_BLOCK_SEND, XSTATE_BLOCK_RECV, XSTATE_BLOCK_REPLY, XSTATE_N };

/* "idle", "block_send", "block_recv", "block_reply": the names of the
   columns in CSV and JSON. */
const char *xstate_name(enum xstate s);

/* Which end of the connection the capture was taken beside.  It decides
   how long after an acknowledgement the data it elicits shows up: at once
   when the capture is beside the sender, one round trip later when it is
   beside the receiver. */
enum xside { XSIDE_AUTO, XSIDE_CLIENT, XSIDE_SERVER };

struct xstate_options {
	/* Data counts as elicited by an acknowledgement when it follows it by
	   the expected delay (0 or one RTT, see enum xside) give or take
	   elicit_slack + elicit_fraction * the expected delay.  Defaults
	   0.2 ms and 0.25. */
	uint64_t elicit_slack;		/* ns */
	double elicit_fraction;
	/* ... and only when the acknowledgement found at least this many
	   bytes in flight (default 2896, Linux's least congestion window on
	   Ethernet), or a window it opened full. */
	uint32_t elicit_min_flight;
	enum xside capture_side;	/* default XSIDE_AUTO: from the handshake,
					   else beside the client */
	bool backlog;			/* the backlog rule (default on); off is
					   the paper's rule alone */
	uint64_t rtt;			/* ns; 0 (default): measured per connection */
	/* Which request a silence of the client waits on.  Earliest (the
	   default): the earliest reply-bearing request whose reply had not
	   come when the client stopped sending, however many it sent after
	   it (clients that pipeline, xcb code).  Latest: of the requests
	   answered together, the last (Xlib's way).  Last: only the last
	   request before the silence, and only if it wants a reply (the
	   original rule, which loses waits of pipelining clients). */
	enum xwait_rule { XWAIT_EARLIEST, XWAIT_LATEST, XWAIT_LAST } wait_rule;
	/* Inside one silence, a reply that follows the previous one by at
	   least split_min and split_fraction * RTT, or split_max whatever the
	   RTT, opens a wait of its own (the client had used up what came and
	   blocked again).  Defaults 3 ms, 0.5 and 30 ms; split_fraction 0
	   turns splitting off.  Below a few ms a client still busy with the
	   replies it has looks the same; how long a client works on a reply
	   does not grow with the RTT, so on long links the 30 to 50 ms a
	   window-limited server takes between its replies (GetImage over a
	   100 ms round trip) is the client blocked, as it is on short ones. */
	uint64_t split_min;		/* ns */
	double split_fraction;
	uint64_t split_max;		/* ns */
	/* Only time inside [range_start, range_end) is counted, in ns since
	   the first packet; packets outside it still drive the model.
	   Default: 0 and UINT64_MAX, everything. */
	uint64_t range_start, range_end;
	/* Only these connections (ids), or all when n_only is 0.  Times
	   still count from the first packet of the whole trace. */
	const uint32_t *only;
	size_t n_only;
};

void xstate_options_default(struct xstate_options *opt);

/* One classified interval of one direction of one connection, reported
   when the model decides it (at the packet that ends it).  Intervals of a
   direction never overlap; Idle is not reported (it is what is left). */
struct xstate_interval {
	uint32_t conn;
	uint8_t dir;			/* enum xdir */
	uint8_t state;			/* enum xstate, never XSTATE_IDLE */
	uint64_t start, end;		/* ns */
};

/* One blocking round trip: a request the client waited on.
 *
 * A client that stops sending with reply-bearing requests outstanding
 * waits on the earliest of them whose reply it has not received; when a
 * reply comes and the client sends again, the wait was on that request,
 * from the client's last data (start) to the reply, and through the
 * replies that follow it closer than the split gap.  Replies that come
 * later in the same silence after a gap (struct xstate_options,
 * split_*) are waits of their own, from the reply before the gap; a
 * wait before such a gap that was shorter than the gap shows no
 * blocking and gives way to the one after it.  A
 * silence that ends with data the network had held back (Block Send or
 * Block Recv) was the network's, not the client's: no wait.
 *
 * Requests may leave long before start (pipelined); the wait proper is
 * end - start.  Beside the client end is reply_ts; beside the server
 * (struct xstate_conn, side) the client had the answer a round trip
 * after it left, so end is reply_ts plus the RTT, but no later than the
 * client's next data: the rest of that gap is the client's own time.  Before start the client's own earlier output may
 * still have been queued (the request direction was blocked up to
 * start): queued says how long, and the client, which asked for the
 * reply when it wrote the request, felt queued + end - start. */
struct xstate_wait {
	uint32_t conn;
	uint64_t seq;			/* the request's widened sequence number */
	/* The requests whose answers came together at the end of the wait
	   (closer than the split gap) before the client went on: a passive
	   capture cannot tell which of them it waited on.  Xlib waits on
	   the last request it sent (async handlers take the others), xcb
	   code on any; the rule (struct xstate_options) names one (seq).
	   burst_first == burst_last when there was one. */
	uint64_t burst_first, burst_last;
	uint64_t request_ts;		/* packet holding the request's end */
	uint64_t start;			/* the wait began: >= request_ts */
	uint64_t reply_ts;		/* packet holding the reply's (or error's) end */
	uint64_t end;			/* the client had it: see above */
	uint64_t queued;		/* ns the request direction was blocked
					   (Block Send or Recv) up to start */
	bool error;			/* answered by an error */
	bool split;			/* opened by a gap in the replies of a
					   silence, not by the silence's start */
	/* A GetInputFocus sent in the packet of the void request just before
	   it is how libxcb's xcb_request_check (and Xlib's XSync) wait for a
	   void request to be done: that request, when so. */
	bool sync_after;
	uint64_t after_seq;
	const char *after_name, *after_ext;
	const char *name;		/* request name */
	const char *ext;		/* "" for core */
	const char *detail;		/* "" when none */
	const char *proto;		/* the connection's decoder (struct xstate_conn) */
};

/* What the model knows of a connection, and its totals so far. */
struct xstate_conn {
	uint32_t id;
	struct xaddr client, server;
	char name[128];			/* client's name, "" when it never said */
	char proto[8];			/* its decoder: "x11", "rfb"; "" when none */
	uint64_t first, last;		/* first and last packet, ns */
	enum xside side;		/* where the capture was, as decided */
	bool saw_handshake;
	uint64_t rtt;			/* ns, 0 when unknown */
	uint64_t gaps, gap_bytes;	/* holes in the capture of its streams */
	/* Bytes captured that its decoder could not decode (after holes, a
	   start mid-connection), as the decoder's notes count them; and why
	   the rest is opaque by design (an encrypting security type), "". */
	uint64_t undecoded, opaque_bytes;
	char opaque[160];
	/* The capture began after the session's opening (its decoder said
	   so): what the opening carries (RFB's pixel format, X11's request
	   numbers) is missing or guessed. */
	bool midway;
	/* Seconds (as ns) in each state per direction, inside the range.
	   time[dir][XSTATE_IDLE] is the span minus the others. */
	uint64_t span;
	uint64_t time[2][XSTATE_N];
	uint64_t waits;			/* blocking round trips */
	/* Silences that ended with an answer whose pairing with a request is
	   a guess (the decoder flagged a number uncertain: a capture begun
	   mid-connection, requests lost).  They are not Block Reply and not
	   round trips; their time is left in Idle, which says only that the
	   client sent nothing.  How many, and how long they lasted. */
	uint64_t unsure_waits, unsure_time;
};

struct xstate_model;

struct xstate_model *xstate_new(const struct xstate_options *opt);
void xstate_free(struct xstate_model *m);

/* Listeners.  A model takes several of each kind, called in the order
   they were added: one pass over a trace may feed several views (the
   requests table and the round trips; netplot's intervals and a view of
   its own), and a view that silently replaced another's callback would
   leave that view empty without a word.  They are kept in the model
   (no allocation, nothing to fail but the count): adding more than
   XSTATE_LISTENERS_MAX of a kind, or a NULL fn, is refused with -1. */
enum { XSTATE_LISTENERS_MAX = 4 };
/* Adds fn, called for each interval as it is classified (netplot colours
   by it).  0, or -1 when refused. */
int xstate_on_interval(struct xstate_model *m,
		       void (*fn)(void *ctx, const struct xstate_interval *iv), void *ctx);
/* Adds fn, called for each blocking round trip whose request falls in the
   range, once the client sends again (or the input ends).  0, or -1 when
   refused. */
int xstate_on_wait(struct xstate_model *m,
		   void (*fn)(void *ctx, const struct xstate_wait *w), void *ctx);

/* Whether the model looks at a message of this direction and kind at all:
   the client's requests and setup, the server's replies, errors and
   setup.  A caller that keeps messages only to feed them to a model
   (the predictor's replays) may leave the others out. */
bool xstate_uses_message(uint8_t dir, uint8_t kind);

/* Feed one record.  Returns 0, or -1 when out of memory. */
int xstate_record(struct xstate_model *m, const struct xrec *rec);
/* The input ended: close what is still open and fix the totals. */
void xstate_finish(struct xstate_model *m);

/* Connections in order of id, valid after xstate_finish. */
size_t xstate_conn_count(const struct xstate_model *m);
const struct xstate_conn *xstate_conn_at(const struct xstate_model *m, size_t i);
/* What the model knows of connection id so far (its RTT and side while
   records are still coming; the totals only after xstate_finish), or
   NULL when it has not seen it.  The pointer is good until the next
   record. */
const struct xstate_conn *xstate_conn_find(struct xstate_model *m, uint32_t id);
/* All connections taken together: a moment is in a state when any
   connection's direction is (the same precedence as above), and the span
   runs from the trace's first packet to its last. */
const struct xstate_conn *xstate_all(const struct xstate_model *m);

/* ts (a record's time) falls inside the range (range_start, range_end),
   counted from the first packet the model has seen of the whole trace
   (--conn or not): the one test of --range for every view that has a
   model.  Before any packet, only a range that begins at 0 holds it. */
bool xstate_in_range(const struct xstate_model *m, uint64_t ts);

/* What the capture itself lost (kernel drops, from stats records). */
uint64_t xstate_capture_drops(const struct xstate_model *m);

/* Total Network Delay of a row: Block Send and Block Recv of both
   directions plus Block Reply. */
uint64_t xstate_network_delay(const struct xstate_conn *c);

#endif
