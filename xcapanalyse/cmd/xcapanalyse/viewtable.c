/*
 * viewtable.c — the table of xcapanalyse's views (view.h): each entry its
 * name, its --help lines, what it needs, the options it takes, and the
 * hooks that bind it to the view's own file.
 *
 * Belongs to: the xcapanalyse command's room (xcapanalyse/cmd/xcapanalyse/).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "added_delay.h"
#include "compare.h"
#include "dump.h"
#include "events.h"
#include "messages.h"
#include "predict_view.h"
#include "report.h"
#include "view.h"

bool view_wants(const struct view_trace *t, const struct xrec *rec)
{
	if (!t->o->nconns)
		return true;
	uint32_t id = xrec_conn(rec);
	if (!id)	/* of the whole capture: statistics, a note, a mark */
		return true;
	for (size_t i = 0; i < t->o->nconns; i++)
		if (t->o->conns[i] == id)
			return true;
	return false;
}

bool view_in_range(const struct view_trace *t, const struct xrec *rec)
{
	uint64_t ts = xrec_time(rec);
	uint64_t since = t->first_pkt && ts > t->first_pkt ? ts - t->first_pkt : 0;
	return since >= t->o->sopt.range_start && since < t->o->sopt.range_end;
}

static int oom_unless(const void *p)
{
	return p ? 0 : -1;
}

/* ---- the state model's views (views.c, sites.c, events.c) ---- */

static int delays_finish(struct view_trace *t)
{
	delays_print(t->out, t->o->fmt, t->model);
	return 0;
}

static int requests_begin(struct view_trace *t)
{
	return oom_unless(t->state = requests_view_new(t->model, t->o->per_conn));
}

static int requests_finish(struct view_trace *t)
{
	requests_view_print(t->state, t->out, t->o->fmt, t->model);
	requests_view_free(t->state);
	return 0;
}

static int trips_begin(struct view_trace *t)
{
	return oom_unless(t->state = trips_view_new(t->model, t->out, t->o->fmt, t->sites));
}

static int trips_finish(struct view_trace *t)
{
	trips_view_finish(t->state, t->model);
	return 0;
}

static int sites_begin(struct view_trace *t)
{
	return sites_view_attach(t->sites, t->model) < 0 ? -1 : 0;
}

static int sites_finish(struct view_trace *t)
{
	sites_set_cost_rtt(t->sites, t->o->sopt.rtt);	/* --rtt, else 100 ms */
	sites_view_print(t->sites, t->out, t->o->fmt);
	return 0;
}

static int events_begin(struct view_trace *t)
{
	return oom_unless(t->state = events_view_new(t->model, t->out, t->sites));
}

static int events_finish(struct view_trace *t)
{
	events_view_finish(t->state, t->model);
	return 0;
}

/* ---- responses and updates (responses_view.c) ---- */

static int responses_begin_as(struct view_trace *t, bool summary)
{
	return oom_unless(t->state = responses_view_new(t->model, t->out, t->o->fmt, &t->o->ropt,
							summary));
}

static int responses_begin(struct view_trace *t)
{
	return responses_begin_as(t, false);
}

static int summary_begin(struct view_trace *t)
{
	return responses_begin_as(t, true);
}

static int responses_record(struct view_trace *t, const struct xrec *rec)
{
	/* The model narrows by --conn itself; the responses follow it. */
	return view_wants(t, rec) ? responses_view_record(t->state, rec) : 0;
}

static int responses_finish(struct view_trace *t)
{
	return responses_view_finish(t->state);
}

static int updates_begin(struct view_trace *t)
{
	struct updates_options uo = t->o->uopt;
	uo.from = t->o->sopt.range_start;
	uo.to = t->o->sopt.range_end;
	return oom_unless(t->state = updates_view_new(t->model, &uo, t->err, sizeof t->err));
}

static int updates_record(struct view_trace *t, const struct xrec *rec)
{
	/* Marks name the span whichever connection made them. */
	if (rec->type != XREC_MARK && !view_wants(t, rec))
		return 0;
	return updates_view_record(t->state, rec);
}

static int updates_finish(struct view_trace *t)
{
	updates_view_finish(t->state, t->out, t->o->fmt);
	return 0;
}

/* ---- Wayland's frame pacing (frames_view.c) ---- */

static int frames_begin(struct view_trace *t)
{
	return oom_unless(t->state = frames_view_new(t->out, t->o->fmt, t->o->ropt.quiet));
}

static int frames_record(struct view_trace *t, const struct xrec *rec)
{
	/* A frame counts when its request falls inside --range. */
	return view_wants(t, rec) ? frames_view_record(t->state, rec, view_in_range(t, rec)) : 0;
}

static int frames_finish(struct view_trace *t)
{
	frames_view_finish(t->state);
	return 0;
}

static int photon_begin(struct view_trace *t)
{
	return oom_unless(t->state = photon_view_new(t->model, t->out, t->o->fmt, &t->o->ropt));
}

static int photon_record(struct view_trace *t, const struct xrec *rec)
{
	return view_wants(t, rec) ? photon_view_record(t->state, rec) : 0;
}

static int photon_finish(struct view_trace *t)
{
	photon_view_finish(t->state);
	return 0;
}

/* ---- the records as they come (conns_view.c, messages.c, dump) ---- */

/* A range was asked for: only what falls in it is counted or listed. */
static bool ranged(const struct view_trace *t)
{
	return t->o->sopt.range_start > 0 || t->o->sopt.range_end != UINT64_MAX;
}

static int connections_begin(struct view_trace *t)
{
	return oom_unless(t->state = conns_view_new(t->out, t->o->fmt, false, ranged(t)));
}

static int marks_begin(struct view_trace *t)
{
	return oom_unless(t->state = conns_view_new(t->out, t->o->fmt, true, ranged(t)));
}

static int conns_record(struct view_trace *t, const struct xrec *rec)
{
	return conns_view_record(t->state, rec, view_in_range(t, rec));
}

static int conns_finish(struct view_trace *t)
{
	conns_view_finish(t->state);
	return 0;
}

static int tcpstats_begin(struct view_trace *t)
{
	return oom_unless(t->state = tcpstats_view_new(t->out, t->o->fmt));
}

static int tcpstats_rec(struct view_trace *t, const struct xrec *rec)
{
	/* Only the segments inside --range, as in a capture cut to it. */
	if (rec->type == XREC_CONN || rec->type == XREC_PKT) {
		if (!view_wants(t, rec) || (rec->type == XREC_PKT && !view_in_range(t, rec)))
			return 0;
		if (tcpstats_view_record(t->state, rec) < 0) {
			t->err[0] = '\0';	/* out of memory */
			return -1;
		}
	}
	return 0;
}

static int tcpstats_finish(struct view_trace *t)
{
	tcpstats_view_finish(t->state);
	return 0;
}

static int messages_begin(struct view_trace *t)
{
	return oom_unless(t->state = msg_view_new(t->out, t->o->fmt));
}

static int messages_record(struct view_trace *t, const struct xrec *rec)
{
	msg_view_record(t->state, rec, view_in_range(t, rec));
	return 0;
}

static int messages_finish(struct view_trace *t)
{
	msg_view_finish(t->state);
	return 0;
}

static int dump_begin(struct view_trace *t)
{
	trace_info_dump(t->out, xsource_info(t->src));
	return 0;
}

static int dump_record(struct view_trace *t, const struct xrec *rec)
{
	/* What says what a connection is (its addresses, extensions, name)
	   is kept whenever it came, so that the records kept can be read. */
	bool describes = rec->type == XREC_CONN || rec->type == XREC_EXT || rec->type == XREC_NAME;
	if (view_in_range(t, rec) || describes)
		xrec_dump(t->out, rec);
	return 0;
}

/* ---- prediction and added delay (predict_view.c) ---- */

/* The link's options with the model's and --conn. */
static struct predict_options link_options(const struct view_trace *t)
{
	struct predict_options po = t->o->popt;
	po.model = t->o->sopt;
	po.model.only = t->o->conns;
	po.model.n_only = t->o->nconns;
	return po;
}

static int predict_begin(struct view_trace *t)
{
	struct predict_options po = link_options(t);
	return oom_unless(t->state = predict_new(&po));
}

static int predict_rec(struct view_trace *t, const struct xrec *rec)
{
	/* Every record: the replay narrows by --conn and --range itself. */
	return predict_record(t->state, rec) < 0 ? -1 : 0;
}

static int predict_finish_as(struct view_trace *t, bool trips)
{
	const struct view_options *o = t->o;
	struct predict_trace *pt = t->state;
	int rc = predict_finish(pt);
	if (rc == PREDICT_NO_ZLEN) {
		complain("no compressed sizes to predict --ssh-compression from: capture with "
			 "xcap --compressed-sizes, or give the pcap: '%s'", t->path);
		predict_free(pt);
		return 1;
	}
	size_t with_data, unmeasured = predict_unmeasured(pt, &with_data);
	if (rc == 0 && unmeasured)
		complain("%zu of %zu writes have no compressed size (bytes not captured), "
			 "counted uncompressed: '%s'", unmeasured, with_data, t->path);
	if (rc == 0)
		rc = (trips ? predict_trips_print : predict_view_print)(t->out, o->fmt, pt, o->rates,
									 o->nrates, o->delays,
									 o->ndelays);
	predict_free(pt);
	return rc < 0 ? -1 : 0;
}

static int predict_fin(struct view_trace *t)
{
	return predict_finish_as(t, false);
}

static int predict_trips_fin(struct view_trace *t)
{
	return predict_finish_as(t, true);
}

static int added_begin(struct view_trace *t)
{
	struct predict_options po = link_options(t);
	return oom_unless(t->state = added_delay_new(&po, &po.model, &t->o->ropt));
}

static int added_record(struct view_trace *t, const struct xrec *rec)
{
	/* Every packet's time counts, wanted or not. */
	return added_delay_record(t->state, rec, view_wants(t, rec)) < 0 ? -1 : 0;
}

typedef int added_print_fn(FILE *, enum out_format, const struct added_delay *,
			   const uint64_t *, size_t, uint64_t);

static int added_finish_with(struct view_trace *t, added_print_fn *print)
{
	int rc = added_delay_finish(t->state);
	if (rc == 0)
		rc = print(t->out, t->o->fmt, t->state, t->o->rates, t->o->nrates, t->o->trace_rate);
	added_delay_free(t->state);
	return rc < 0 ? -1 : 0;
}

static int added_fin(struct view_trace *t)
{
	return added_finish_with(t, added_delay_view_print);
}

static int added_responses_fin(struct view_trace *t)
{
	return added_finish_with(t, added_delay_responses_print);
}

static int added_cdf_fin(struct view_trace *t)
{
	return added_finish_with(t, added_delay_cdf_print);
}

static int predict_responses_fin(struct view_trace *t)
{
	int rc = added_delay_finish(t->state);
	if (rc == PREDICT_NO_ZLEN)
		complain("no compressed sizes to predict --ssh-compression from: capture with "
			 "xcap --compressed-sizes, or give the pcap: '%s'", t->path);
	if (rc == 0)
		rc = predict_responses_print(t->out, t->o->fmt, t->state, t->o->rates, t->o->nrates,
					     t->o->delays, t->o->ndelays);
	added_delay_free(t->state);
	return rc == PREDICT_NO_ZLEN ? 1 : rc < 0 ? -1 : 0;
}

/* ---- --compare (compare.c): every run kept until the last is read ---- */

static struct compare_run *compare_runs[COMPARE_RUNS_MAX];
static size_t compare_n;

static int compare_begin(struct view_trace *t)
{
	return oom_unless(t->state = compare_runs[compare_n++] =
			  compare_run_new(t->path, t->model, &t->o->ropt));
}

static int compare_record(struct view_trace *t, const struct xrec *rec)
{
	return compare_run_record(t->state, rec);
}

static int compare_finish(struct view_trace *t)
{
	return compare_run_finish(t->state, t->model) < 0 ? -1 : 0;
}

static int compare_end(const struct view_options *o, int status)
{
	int broken = compare_print(stdout, o->fmt, compare_runs, compare_n, o->gates, o->ngates);
	if (broken < 0)
		die(1, "out of memory: '%s'", "--compare");
	if (fflush(stdout) != 0)
		die(1, "cannot write output: 'stdout'");
	for (size_t k = 0; k < compare_n; k++) {
		if (compare_run_worse(compare_runs[k]))
			complain("worse than the first run by more than --fail-if-worse allows: '%s'",
				 compare_run_name(compare_runs[k]));
		compare_run_free(compare_runs[k]);
	}
	/* A damaged input says more than the verdict on it. */
	return broken && status == 0 ? 3 : status;
}

/* ---- the table ---- */

const struct view views[] = {
	{ "delays",
	  "per connection and direction: Idle, Block Send, Block\n"
	  "Recv, Block Reply in ms, then All and the Total\n"
	  "Network Delay (default)",
	  VIEW_MODEL, 0, 0, 0, NULL, NULL, delays_finish, NULL },
	{ "requests",
	  "the requests the client waited on, by name: count,\n"
	  "total and mean wait (--per-conn: for each connection)",
	  VIEW_MODEL, TAKES_RANK, 0, 0, requests_begin, NULL, requests_finish, NULL },
	{ "round-trips",
	  "every blocking round trip in order: time, connection,\n"
	  "request, detail, wait (and the call site when known)",
	  VIEW_MODEL | VIEW_SITES | VIEW_PRINTS_AS_READ, TAKES_RANK, 0, 0,
	  trips_begin, NULL, trips_finish, NULL },
	{ "sites",
	  "round trips by the code that waited (from xcap-run's\n"
	  "FILE.sites): count, total and mean wait, requests,\n"
	  "ms added per 100 ms of RTT; avoidable round trips;\n"
	  "loops that could be batched",
	  VIEW_MODEL | VIEW_SITES | VIEW_SITES_NEEDED, TAKES_RANK, 0, 0,
	  sites_begin, NULL, sites_finish, NULL },
	{ "trace-events",
	  "round trips (with their stacks) and blocked intervals as\n"
	  "Chrome trace-event JSON (Perfetto, chrome://tracing)",
	  VIEW_MODEL | VIEW_SITES | VIEW_OWN_FORMAT, 0, 0, 0, events_begin, NULL, events_finish, NULL },
	{ "responses",
	  "one row per input (key, button, motion): the response\n"
	  "time as the display saw it, messages and bytes each way,\n"
	  "round trips inside it, RFB updates, rectangles, pixels",
	  VIEW_MODEL | VIEW_PRINTS_AS_READ, TAKES_RANK, 0, 0,
	  responses_begin, responses_record, responses_finish, NULL },
	{ "responses-summary",
	  "per connection and All: inputs, response time\n"
	  "percentiles 50/90/95/99, the share over 50, 100 and\n"
	  "150 ms, input rate",
	  VIEW_MODEL, 0, 0, 0, summary_begin, responses_record, responses_finish, NULL },
	{ "updates",
	  "continuous updates (video, animation, scrolling) inside\n"
	  "--range: RFB updates per second, rectangles, pixels,\n"
	  "bytes, the longest gap between updates; with\n"
	  "--ideal-fps, slow-motion benchmarking's video quality",
	  VIEW_MODEL, TAKES_VIDEO, 0, 0, updates_begin, updates_record, updates_finish, NULL },
	{ "frames",
	  "Wayland's frame pacing per surface: frames answered,\n"
	  "frames per second, the refresh period, late and missed\n"
	  "frames, idle gaps (longer than --quiet-ms), the wait\n"
	  "from wl_surface.frame to its wl_callback.done; over\n"
	  "waypipe, the buffer bytes on the wire per commit",
	  VIEW_EVERY_RECORD, 0, 0, 0, frames_begin, frames_record, frames_finish, NULL },
	{ "input-to-photon",
	  "Wayland: per input, the wire's time to the first commit\n"
	  "with new content and to its presentation, and input to\n"
	  "photon by the compositor's own clock",
	  VIEW_MODEL | VIEW_PRINTS_AS_READ, 0, 0, 0,
	  photon_begin, photon_record, photon_finish, NULL },
	{ "connections",
	  "one row per connection: endpoints, client name,\n"
	  "packets, bytes and messages each way, gaps",
	  0, TAKES_RANK, 0, 0, connections_begin, conns_record, conns_finish, NULL },
	{ "tcp-stats",
	  "each connection's TCP statistics as tcptrace -l -r lists\n"
	  "them, both directions side by side: packets, acks, data\n"
	  "and retransmitted bytes, out of order, windows, segment\n"
	  "sizes, round-trip times (data and handshake), throughput",
	  VIEW_EVERY_RECORD, 0, 0, 0, tcpstats_begin, tcpstats_rec, tcpstats_finish, NULL },
	{ "messages",
	  "one line per protocol message, with the wait of a reply",
	  VIEW_NOT_MARKDOWN | VIEW_PRINTS_AS_READ, 0, 0, 0,
	  messages_begin, messages_record, messages_finish, NULL },
	{ "marks",
	  "the marks in order: time, connection, client, source\n"
	  "(signal, atom, property, match, round-trip, window-start,\n"
	  "window-end) and text",
	  0, 0, 0, 0, marks_begin, conns_record, conns_finish, NULL },
	{ "dump",
	  "every record as one line of key=value text",
	  VIEW_OWN_FORMAT | VIEW_PRINTS_AS_READ, 0, 0, 0, dump_begin, dump_record, NULL, NULL },
	{ "predict",
	  "the trace replayed over each link of --rates x\n"
	  "--latencies: span, Total Network Delay, Block Send,\n"
	  "Block Reply, round trips, as xcap-sweep measures them",
	  VIEW_EVERY_RECORD, TAKES_SSH | TAKES_WAKE, 0, 0, predict_begin, predict_rec, predict_fin,
	  NULL },
	{ "predict-round-trips",
	  "each predicted blocking round trip, link by link",
	  VIEW_EVERY_RECORD, TAKES_SSH | TAKES_WAKE, 0, 0, predict_begin, predict_rec,
	  predict_trips_fin, NULL },
	{ "predict-responses",
	  "each input's response on each link of --rates x\n"
	  "--latencies, from the same replay as --predict\n"
	  "(raw, --ssh-compression or --waypipe), beside its\n"
	  "response in the trace",
	  VIEW_EVERY_RECORD, TAKES_SSH | TAKES_WAKE, 0, 0, added_begin, added_record,
	  predict_responses_fin, NULL },
	{ "added-delay",
	  "SLIM's experiment: the trace's packets at their times\n"
	  "through a link of each of --rates; percentiles of the\n"
	  "delay each packet gains, and each input's response",
	  VIEW_EVERY_RECORD, 0, 0, 0, added_begin, added_record, added_fin, NULL },
	{ "added-delay-responses",
	  "each input at each of --rates: its response,\n"
	  "the delay added to its input and to its end, the sum,\n"
	  "and the response on the slower link",
	  VIEW_EVERY_RECORD, 0, 0, 0, added_begin, added_record, added_responses_fin, NULL },
	{ "added-delay-cdf",
	  "the CDFs of --added-delay, per rate, of packets and of\n"
	  "responses: each added delay with the share at or below",
	  VIEW_EVERY_RECORD, 0, 0, 0, added_begin, added_record, added_cdf_fin, NULL },
	{ "compare",
	  "FILE A and the others side by side: delays, round trips\n"
	  "by request, response times, each with its difference\n"
	  "and ratio to A; inputs matched with A's in order and kind",
	  VIEW_MODEL | VIEW_ALL_TRACES, TAKES_GATE, 2, COMPARE_RUNS_MAX,
	  compare_begin, compare_record, compare_finish, compare_end },
};
const size_t n_views = sizeof views / sizeof views[0];

const struct view *view_find(const char *name)
{
	for (size_t i = 0; i < n_views; i++)
		if (strcmp(views[i].name, name) == 0)
			return &views[i];
	return NULL;
}
