/*
 * compare.h — xcapanalyse --compare: the same views of several runs side
 * by side (the delay table, round trips by request, response times),
 * each run beside the first with the difference and the ratio, and a
 * gate that says whether a run is worse than the first by more than
 * allowed (a toolkit's CI fails on it).
 *
 * A run is one trace read through the state model; what the comparison
 * needs of it is kept in a compare_run (constant memory per connection
 * and request name, and one small record per input for the responses).
 *
 * Belongs to: the xcapanalyse command's room (xcapanalyse/cmd/xcapanalyse/).
 */
#ifndef XCAPANALYSE_COMPARE_H
#define XCAPANALYSE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output.h"
#include "responses.h"
#include "state.h"

/* Runs are named A, B, C... in the tables: at most 26. */
enum { COMPARE_RUNS_MAX = 26 };

/* One threshold of the gate: a run is worse than the first when its
   metric exceeds first * (1 + percent / 100) + slack (the slack in the
   metric's unit: ns for times, a count for counts).  percent < 0: no
   relative part (only the slack); the limit is then first + slack. */
struct compare_gate {
	int metric;		/* index into the gate metrics (compare.c) */
	double percent;
	double slack;
	bool have_percent, have_slack;
	bool implicit;		/* one of the defaults of a bare LIMIT */
};

/* Parses "[METRIC=]LIMIT" where LIMIT is "P%", "Nms" / "Ns" / "N" (a
   count or a share), or "P%+Nms".  Without METRIC, the default metrics
   are meant (network-delay, block-reply, and response-p50 and -p95
   where the first run has inputs) and *n_out is how many gates were
   written to g (up to max).  Returns 0, or -1 with err filled. */
int compare_gate_parse(const char *spec, struct compare_gate *g, size_t max, size_t *n_out,
		       char *err, size_t errlen);
/* The gate metrics' names, for --help and errors: "network-delay, ...". */
const char *compare_gate_metric_names(void);

struct compare_run;

/* A run read from file name: attaches its listeners to m (before any
   record is fed), and a response model with ropt.  NULL when out of
   memory or the model refused. */
struct compare_run *compare_run_new(const char *name, struct xstate_model *m,
				    const struct xresp_options *ropt);
/* Feed the record to what the run keeps besides the model (the
   responses); after xstate_record.  0, or -1 when out of memory. */
int compare_run_record(struct compare_run *r, const struct xrec *rec);
/* The model finished (xstate_finish): keep its totals.  0 or -1 (memory). */
int compare_run_finish(struct compare_run *r, const struct xstate_model *m);
void compare_run_free(struct compare_run *r);
/* After compare_print: the gate found the run worse than the first (or
   could not tell, which does not pass either). */
bool compare_run_worse(const struct compare_run *r);
const char *compare_run_name(const struct compare_run *r);

/* Print the comparison of runs[0] (A) with each of the others, and the
   gate's verdicts when n_gates.  Returns the number of gate thresholds a
   run broke (0: the gate passes), or -1 when out of memory. */
int compare_print(FILE *out, enum out_format fmt, struct compare_run *const *runs, size_t n,
		  const struct compare_gate *gates, size_t n_gates);

#endif
