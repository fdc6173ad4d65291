/*
 * pairing.h — which request a server message answers: the one place in
 * the suite where replies and errors are paired with their requests.
 *
 * The pipeline fills xrec_msg.req_ts and req_end with it as the trace is
 * made, so every reader (xcapanalyse's views, netplot) takes the pairing
 * from the record instead of pairing again; the trace reader uses it too,
 * to fill those fields in traces written before they existed (format 1.0).
 *
 * The rule is protocol-neutral: a decoder gives a reply or error the
 * sequence number of the request it answers (X11: the widened sequence
 * number; RFB: the FramebufferUpdateRequest's count), and answers come in
 * the order of their requests, so a request older than the one being
 * answered will never be: it is forgotten.  A request may be answered
 * several times (X11 ListFontsWithInfo).  Requests of one number answer
 * to the latest of them (RFB numbers every step of its handshake 0, and
 * each step answers the client's step before it, as the state model
 * pairs them).  At most PAIRING_KEPT unanswered
 * requests are kept per connection; a client that sends more before any
 * answer loses the pairing of the oldest, never memory without bound.
 * When the request's or the answer's number is flagged uncertain (a
 * capture begun mid-connection, requests lost), which request the answer
 * is for is a guess: it is left unpaired, so that no view shows the wait
 * as a fact.
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#ifndef XCAP_PAIRING_H
#define XCAP_PAIRING_H

#include <stdint.h>

#include "record.h"

enum { PAIRING_KEPT = 65536 };

/* The requests of one connection not yet answered. */
struct pairing {
	struct pairing_req *ring;
	uint32_t head, len, cap;
};

/* Note m if it is a client request (or the setup request); fill
   m->req_ts and m->req_end if it is a server message that answers one
   (a reply, an error, the setup reply).  Other messages pass unchanged.
   Returns 0, or -1 when a request could not be kept (out of memory: its
   answer will not be paired, and nothing else is lost). */
int pairing_message(struct pairing *p, struct xrec_msg *m);

void pairing_free(struct pairing *p);

#endif
