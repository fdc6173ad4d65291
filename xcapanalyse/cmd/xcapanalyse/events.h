/*
 * events.h — the round trips and the blocked intervals of a trace as
 * Chrome trace-event JSON (read by Perfetto's UI, chrome://tracing and
 * speedscope), each round trip with its call stack when the call sites are
 * known, to put beside a toolkit's own traces.
 *
 * Belongs to: the xcapanalyse command's room (xcapanalyse/cmd/xcapanalyse/).
 */
#ifndef XCAPANALYSE_EVENTS_H
#define XCAPANALYSE_EVENTS_H

#include <stdio.h>

#include "sites.h"
#include "state.h"

struct events_view;
/* Attach before feeding the model; sites may be NULL.  NULL when out of
   memory or the model takes no more listeners. */
struct events_view *events_view_new(struct xstate_model *m, FILE *out, struct sites *sites);
/* After xstate_finish: names the tracks and closes the JSON. */
void events_view_finish(struct events_view *v, const struct xstate_model *m);

#endif
