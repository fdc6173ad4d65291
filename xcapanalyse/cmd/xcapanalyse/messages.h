/*
 * messages.h — xcapanalyse --messages: one line per protocol message, as
 * xtrace prints them, with the time a reply took since its request.
 *
 * Belongs to: the xcapanalyse command's room (xcapanalyse/cmd/xcapanalyse/).
 */
#ifndef XCAPANALYSE_MESSAGES_H
#define XCAPANALYSE_MESSAGES_H

#include <stdio.h>

#include "output.h"
#include "record.h"

struct msg_view;

struct msg_view *msg_view_new(FILE *out, enum out_format fmt);
/* Every record, in order; print: it falls inside --range (times count
   from the first message whether printed or not). */
void msg_view_record(struct msg_view *v, const struct xrec *rec, bool print);
/* Ends the output (closes the JSON array) and frees the view. */
void msg_view_finish(struct msg_view *v);

#endif
