/*
 * added_delay.h — SLIM's experiment per packet and per input's response
 * (xcapanalyse(1), PREDICTION; predict.h for the replay itself).
 *
 * The replay (predict_added_delays) keeps every packet of the trace at
 * its time and pushes it through a first-in first-out queue per direction
 * drained at a lower rate; nothing waits for anything, as in SLIM's trace
 * replay.  This file adds the inputs: the response model (responses.h)
 * finds each input and the end of its response in the same reading, and
 * each response is delayed by what the slower link adds to the packets
 * that carry it, as the display sees it (the display is the X server, or
 * the RFB viewer, where the person is):
 *
 *   - the input starts at the display when the person acts; no link
 *     moves that;
 *   - it crosses the link to the program that answers it (X11: the
 *     server's event to the client; RFB: the viewer's KeyEvent or
 *     PointerEvent to the server): the packet carrying it gains input_i;
 *   - the response's end, the last message that changes the screen (X11:
 *     the client's last drawing request; RFB: the last update's last
 *     byte), crosses back: the packet carrying it gains end_i;
 *
 *     added_i = input_i + end_i
 *
 * Both are taken from the replay at the trace's own times: the answer's
 * packets are not moved later by input_i before they queue (the
 * replay is open-loop; --predict replays the dependencies).  Packets
 * are found by connection, direction and time, whichever side the
 * capture was taken on; the replay takes each packet's captured time as
 * the time it enters the slower link, exact for a capture on loopback or
 * beside the sender.  At the trace's own rate both parts are zero.
 *
 * Belongs to: libanalyse, the analysis layer's library, which netplot links too (xcapanalyse/).
 */
#ifndef XCAPANALYSE_ADDED_DELAY_H
#define XCAPANALYSE_ADDED_DELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "predict.h"
#include "responses.h"

/* An input whose response the model found, and the packets that carry
   it (PREDICT_NO_PACKET when the trace has none: a capture begun after
   it, or a response that drew nothing). */
struct added_input {
	struct xresponse r;		/* r.proto is NULL: see rfb */
	bool rfb;
	size_t in_pkt, end_pkt;
	size_t in_w, end_w;		/* their writes (predict_find_writes) */
};

/* One input's added delay at one rate; known false when it had no
   visible response or a packet of it is missing. */
struct added_response {
	bool known;
	int64_t input, end, total;	/* ns: input_i, end_i, their sum */
};

struct added_delay;

/* A reading for the replay: the predictor's packets (po) and the
   inputs' responses (so: the state model's options, for where the
   capture was and the connections' RTT; ro: the response model's).
   NULL when out of memory. */
struct added_delay *added_delay_new(const struct predict_options *po,
				    const struct xstate_options *so,
				    const struct xresp_options *ro);
void added_delay_free(struct added_delay *a);
/* Feed every record of the trace in order; wanted false for a record of
   a connection left out (--conn), which only the state model sees.  0,
   or -1 when out of memory. */
int added_delay_record(struct added_delay *a, const struct xrec *rec, bool wanted);
/* The input ended.  predict_finish's result (0, -1, PREDICT_NO_ZLEN). */
int added_delay_finish(struct added_delay *a);

const struct predict_trace *added_delay_trace(const struct added_delay *a);
/* The trace's first packet, as the state model saw it (for times
   printed since it, as --responses prints them). */
uint64_t added_delay_first_ts(const struct added_delay *a);
/* Every input, in the order of their responses' ends. */
size_t added_delay_inputs(const struct added_delay *a);
const struct added_input *added_delay_input(const struct added_delay *a, size_t i);
/* Inputs with a visible response whose packets were found. */
size_t added_delay_responses(const struct added_delay *a);

/* The replay at rate bit/s (trace_rate as predict_added_delays):
   pkt[0..predict_packets-1] (may be NULL) gets each packet's added
   delay, resp[0..added_delay_inputs-1] (may be NULL) each input's.  0,
   or -1 when rate is 0 or memory ran out. */
int added_delay_run(const struct added_delay *a, uint64_t rate, uint64_t trace_rate, int64_t *pkt,
		    struct added_response *resp);


/* The other experiment on the same inputs: the trace's dependencies
   replayed over link (predict_run_seen, with the transport the options
   asked for: raw, ssh -C, waypipe), and each input's response in it as
   --responses would measure it on a capture beside the client: from
   the input's write to the end's, as the replay sees them there, plus
   the link's round trip when the display is the server (X11, Wayland),
   which a capture beside the client adds (responses.h).  Which message
   ends a response is the trace's: the replay moves messages, it does
   not make new ones.  resp[0..added_delay_inputs-1] in ns, -1 when not
   known (no visible response, or its writes left out).  0, or -1 when
   out of memory. */
int added_delay_replay(const struct added_delay *a, const struct predict_link *link,
		       struct predict_result *res, int64_t *resp);

#endif
