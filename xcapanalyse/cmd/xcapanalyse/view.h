/*
 * view.h — xcapanalyse's views as a table, as protocols/ has its decoders
 * (struct proto_ops): each view is one entry saying its name, its --help
 * lines, what it needs of the reading (the state model, the call sites,
 * every record), which of the options that only some views take it
 * takes, and its hooks.  The command reads each trace once and calls the
 * hooks of the one view asked; --help's list of views is the table.
 *
 * Adding a view: its file, and one entry in the table (viewtable.c).
 *
 * Belongs to: the xcapanalyse command's room (xcapanalyse/cmd/xcapanalyse/).
 */
#ifndef XCAPANALYSE_VIEW_H
#define XCAPANALYSE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compare.h"
#include "output.h"
#include "predict.h"
#include "responses.h"
#include "sites.h"
#include "source.h"
#include "state.h"
#include "views.h"

/* The options as given, the same for every trace. */
struct view_options {
	enum out_format fmt;
	const uint32_t *conns;		/* --conn; none: all */
	size_t nconns;
	bool per_conn;			/* --per-conn */
	struct xstate_options sopt;	/* the model's, --range among them */
	const char *sites_file;		/* --sites-file */
	struct xresp_options ropt;	/* the responses' */
	struct predict_options popt;	/* the link's */
	const uint64_t *rates, *delays;	/* --rates, --latencies */
	size_t nrates, ndelays;
	uint64_t trace_rate;		/* --trace-rate */
	struct updates_options uopt;	/* --mark-span and video quality */
	const struct compare_gate *gates;	/* --fail-if-worse */
	size_t ngates;
};

/* One trace read for the view. */
struct view_trace {
	const struct view_options *o;
	const char *path;
	size_t index;			/* its place among the inputs */
	FILE *out;
	struct xsource *src;
	struct xstate_model *model;	/* VIEW_MODEL: fed each record before the view */
	struct sites *sites;		/* VIEW_SITES: NULL when there are none */
	void *state;			/* the view's own */
	uint64_t first_pkt;		/* the trace's first packet, whatever --conn:
					   --range counts from it */
	char err[1024];			/* why a hook failed; empty: out of memory */
};

/* The record is of a connection --conn asked for (or of none). */
bool view_wants(const struct view_trace *t, const struct xrec *rec);

/* The record's time falls inside --range (seconds after the trace's first
   packet, of any connection, as the state model counts them: state.h; a
   record before any packet counts from itself).  For the views without the
   model; those with it ask it (xstate_in_range). */
bool view_in_range(const struct view_trace *t, const struct xrec *rec);

/* What a view needs of the reading. */
enum {
	VIEW_MODEL = 1 << 0,		/* the state model, finished before finish */
	VIEW_SITES = 1 << 1,		/* the call sites, when the trace has them */
	VIEW_SITES_NEEDED = 1 << 2,	/* ... and none is an error */
	VIEW_EVERY_RECORD = 1 << 3,	/* records of every connection (it narrows
					   by --conn itself: view_wants) */
	VIEW_PRINTS_AS_READ = 1 << 4,	/* no progress meter on the terminal */
	VIEW_ALL_TRACES = 1 << 5,	/* holds every trace until end: one process,
					   and it names the traces itself */
	VIEW_NOT_MARKDOWN = 1 << 6,	/* a listing, not a table for a report */
	VIEW_OWN_FORMAT = 1 << 7,	/* writes a format of its own (key=value,
					   trace-event JSON), not tables: --format
					   is refused */
};

/* The options only some views take: a view lists those it takes, and
   any other view given one is a usage error that names the views taking it. */
enum {
	TAKES_GATE = 1 << 0,		/* --fail-if-worse */
	TAKES_SSH = 1 << 1,		/* the transports: --ssh-compression,
					   --ssh-forward-time, --waypipe */
	TAKES_WAKE = 1 << 2,		/* --wake-time */
	TAKES_VIDEO = 1 << 3,		/* --mark-span, --ideal-fps, --slow-motion,
					   --slow-motion-fps */
	TAKES_RANK = 1 << 4,		/* --sort, --top: a ranking view (its
					   table calls out_table_ranks) */
	TAKES_N = 5
};

/* Hooks return 0; -1 when they failed (err says why, empty: out of
   memory), which ends the command; or 1 when they said what was wrong
   with the trace, whose status is then 1. */
struct view {
	const char *name;		/* the option without its dashes */
	const char *help;		/* --help's lines after it, '\n' between */
	unsigned needs, takes;
	size_t min_traces, max_traces;	/* 0: any */
	int (*begin)(struct view_trace *t);
	int (*record)(struct view_trace *t, const struct xrec *rec);
	int (*finish)(struct view_trace *t);	/* prints what it has not and frees */
	/* VIEW_ALL_TRACES: after the last trace; the command's exit status
	   given that of the reading. */
	int (*end)(const struct view_options *o, int status);
};

/* In the order of --help; the first is the default. */
extern const struct view views[];
extern const size_t n_views;

/* The view of that name (without dashes), or NULL. */
const struct view *view_find(const char *name);

#endif
