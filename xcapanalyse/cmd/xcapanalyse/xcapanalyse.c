/*
 * xcapanalyse — what a trace says: where the time went (the delay table,
 * the requests waited on, the round trips), every record as text
 * (--dump), the protocol messages (--messages), or the connections it
 * holds with their traffic (--connections).
 *
 * Input is anything xsource opens: .xcap traces, .pcap and .pcapng.
 *
 * Belongs to: the xcapanalyse command's room (xcapanalyse/cmd/xcapanalyse/).
 */
#include "config.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compare.h"
#include "dump.h"
#include "events.h"
#include "messages.h"
#include "output.h"
#include "predict_view.h"
#include "progress.h"
#include "report.h"
#include "responses.h"
#include "sites.h"
#include "source.h"
#include "state.h"
#include "units.h"
#include "views.h"

const char program_name[] = "xcapanalyse";

enum { EXIT_OK = 0, EXIT_DAMAGED = 1, EXIT_USAGE = 2, EXIT_WORSE = 3 };
enum mode { MODE_DELAYS, MODE_REQUESTS, MODE_TRIPS, MODE_CONNECTIONS, MODE_DUMP, MODE_MESSAGES,
	    MODE_SITES, MODE_EVENTS, MODE_MARKS, MODE_RESPONSES, MODE_RESPONSES_SUMMARY,
	    MODE_UPDATES, MODE_COMPARE, MODE_PREDICT, MODE_PREDICT_TRIPS, MODE_ADDED,
	    MODE_ADDED_RESPONSES, MODE_ADDED_CDF };

static void usage(FILE *f)
{
	fprintf(f,
"usage: xcapanalyse [VIEW] [--format FMT] [-j N] [--conn N,...] [--range T0:T1] FILE...\n"
"       xcapanalyse --predict|--added-delay [--rates LIST] [--latencies LIST] FILE...\n"
"\n"
"Read .xcap traces, .pcap or .pcapng captures and tell where the time went.\n"
"\n"
"Views:\n"
"  --delays          per connection and direction: Idle, Block Send, Block\n"
"                    Recv, Block Reply in seconds, then All and the Total\n"
"                    Network Delay (default)\n"
"  --requests        the requests the client waited on, by name: count,\n"
"                    total and mean wait (--per-conn: for each connection)\n"
"  --round-trips     every blocking round trip in order: time, connection,\n"
"                    request, detail, wait (and the call site when known)\n"
"  --sites           round trips by the code that waited (from xcap-run's\n"
"                    FILE.sites): count, total and mean wait, requests,\n"
"                    seconds added per 100 ms of RTT; avoidable round trips\n"
"  --trace-events    round trips (with their stacks) and blocked intervals as\n"
"                    Chrome trace-event JSON (Perfetto, chrome://tracing)\n"
"  --responses       one row per input (key, button, motion): the response\n"
"                    time as the display saw it, messages and bytes each way,\n"
"                    round trips inside it, RFB updates, rectangles, pixels\n"
"  --responses-summary  per connection and All: inputs, response time\n"
"                    percentiles 50/90/95/99, the share over 50, 100 and\n"
"                    150 ms, input rate\n"
"  --updates         continuous updates (video, animation, scrolling) inside\n"
"                    --range: RFB updates per second, rectangles, pixels,\n"
"                    bytes, the longest gap between updates; with\n"
"                    --ideal-fps, slow-motion benchmarking's video quality\n"
"  --connections     one row per connection: endpoints, client name,\n"
"                    packets, bytes and messages each way, gaps\n"
"  --messages        one line per protocol message, with the wait of a reply\n"
"  --marks           the marks in order: time, connection, client, source\n"
"                    (signal, atom, property, match, round-trip, window-start,\n"
"                    window-end) and text\n"
"  --dump            every record as one line of key=value text\n"
"  --predict         the trace replayed over each link of --rates x\n"
"                    --latencies: span, Total Network Delay, Block Send,\n"
"                    Block Reply, round trips, as xcap-sweep measures them\n"
"  --predict-round-trips  each predicted blocking round trip, link by link\n"
"  --added-delay     SLIM's experiment: the trace's packets at their times\n"
"                    through a link of each of --rates; percentiles of the\n"
"                    delay each packet gains, and each input's response\n"
"  --added-delay-responses  each input at each of --rates: its response,\n"
"                    the delay added to its input and to its end, the sum,\n"
"                    and the response on the slower link\n"
"  --added-delay-cdf the CDFs of --added-delay, per rate, of packets and of\n"
"                    responses: each added delay with the share at or below\n"
"  --compare         FILE A and the others side by side: delays, round trips\n"
"                    by request, response times, each with its difference\n"
"                    and ratio to A; inputs matched with A's in order and kind\n"
"\n"
"Options:\n"
"  --fail-if-worse [METRIC=]LIMIT  with --compare: exit 3 when a run is\n"
"                    worse than A by more than LIMIT (P%%, Nms, Ns, a count N,\n"
"                    or P%%+Nms); METRIC is network-delay, block-reply,\n"
"                    block-send, block-recv, span, round-trips,\n"
"                    response-p50, -p90, -p95, -p99 or over-100ms; none\n"
"                    meaning network-delay, block-reply and (where A had\n"
"                    inputs) response-p50 and -p95; repeatable\n"
"  --sites-file PATH the call sites (default: FILE.sites when it exists)\n"
"  --format FMT      text (aligned table), csv, json, ndjson (one JSON object\n"
"                    a line: file, table, then the columns) or markdown;\n"
"                    with several FILEs csv and json name each row's file\n"
"  -j, --jobs N      read N traces at a time, in as many processes; the\n"
"                    output still comes in the order of the FILEs\n"
"  --conn N,...      only these connections\n"
"  --range T0:T1     only time between T0 and T1 seconds after the first\n"
"                    packet (either may be left out)\n"
"  --capture-side S  auto (default: from the handshake, else client),\n"
"                    client or server: where the capture was taken\n"
"  --rtt MS          round trip time, instead of measuring it\n"
"  --elicit-slack MS         data within MS (default 0.2) ...\n"
"  --elicit-fraction F       ... plus F (default 0.25) times the expected\n"
"                    delay of the acknowledgement that released it counts\n"
"                    as elicited by it: the sender was blocked\n"
"  --elicit-min-flight BYTES  if the acknowledgement found at least BYTES\n"
"                    in flight (default 2896) or a full window\n"
"  --no-backlog      do not count full-sized segments sent back to back\n"
"                    with data unacknowledged as blocked (a pacing sender's\n"
"                    backlog): the paper's rule alone\n"
"  --wait-on RULE    earliest (default): a silence of the client waits on\n"
"                    the earliest request it had no reply to; latest: on\n"
"                    the last of those answered together (Xlib's way);\n"
"                    last: only on the last request before the silence\n"
"                    (the original rule)\n"
"  --split-fraction F  a reply at least F (default 0.5) times the RTT ...\n"
"  --split-min MS    ... and MS (default 3) after the one before it, in one\n"
"                    silence, is a wait of its own (F 0: never)\n"
"  --split-max MS    ... and so is one MS (default 30) after it, whatever\n"
"                    the RTT\n"
"  --quiet-ms MS     a response ends after MS (default 100) without a message\n"
"                    and with no reply outstanding, or at the next input\n"
"  --first-ms MS     ... but waits MS (default 1000) for the response to\n"
"                    begin: an X11 client's first request, an RFB update\n"
"  --mark-span FROM:TO  --updates counts from the mark whose text is FROM\n"
"                    to the next whose text is TO (see --marks)\n"
"  --ideal-fps FPS   --updates: the video's frame rate played in real time;\n"
"                    adds updates per second against it (RFB) and the\n"
"                    bytes toward the display per frame\n"
"  --slow-motion TRACE  --updates: the same video played in slow motion,\n"
"                    every frame delivered: video quality is the bytes per\n"
"                    frame here against there\n"
"  --slow-motion-fps FPS  the frame rate the slow-motion run played at\n"
"  --synthetic-inputs  count X11 input events sent with SendEvent as inputs\n"
"  --no-fold-motion  motion while a button is held is an input of its own,\n"
"                    not part of the press's response\n"
"  --rates LIST      link rates in bit/s, suffix k, M or G (default\n"
"                    100M,10M,1M,100k,10k)\n"
"  --latencies LIST  one-way delays in ms (default 0.1,1,10,100)\n"
"  --mss BYTES       segment payload on the predicted link (default 1448)\n"
"  --initial-window SEGMENTS  TCP's initial window (default 10)\n"
"  --no-idle-restart  TCP keeps its window when idle (Linux's\n"
"                    tcp_slow_start_after_idle=0)\n"
"  --trace-rate RATE  rate of the link the trace was taken on, for\n"
"                    --added-delay and its companions (default: none,\n"
"                    loopback)\n"
"  --time-dilation K  the trace was taken with its clocks and link slowed K\n"
"                    times: divide its times by K (default 1)\n"
"  --ssh-compression  predict the X connections in an ssh -X -C tunnel: each\n"
"                    write at its deflated size (recorded by xcap, or measured\n"
"                    here when FILE is a pcap) in SSH packets\n"
"  --ssh-forward-time MS  what ssh and sshd add to a round trip through the\n"
"                    tunnel on this machine (default 0.6; see the man page)\n"
"  --wake-time MS    what a process that waited 0.15 ms or more for the\n"
"                    network takes to wake on this machine (default 0: not\n"
"                    modelled; see the man page)\n"
"  -h, --help        show this help\n"
"  -V, --version     show the version\n"
"\n"
"Exit status: 0 success, 1 an input was unreadable or damaged (what could\n"
"be read was still printed), 2 usage error, 3 --fail-if-worse: a run was\n"
"worse than A by more than allowed.\n"
"\n"
"Examples:\n"
"  xcapanalyse app.xcap                           where the time went\n"
"  xcapanalyse --round-trips --conn 2 app.xcap    the round trips to remove, in order\n"
"  xcapanalyse --requests --format markdown app.pcapng   the requests waited on, for a bug report\n"
"  xcapanalyse --compare --format markdown old.xcap new.xcap   for a merge request\n"
"  xcapanalyse --compare --fail-if-worse 10%%+5ms old.xcap new.xcap   a CI gate\n"
"  xcapanalyse --responses-summary session.pcap   how fast each input was answered\n"
"  xcapanalyse --responses --quiet-ms 50 --format csv session.pcap   per input, for a plot\n"
"  xcapanalyse --updates --range 2:7 video.pcap   updates per second while a video played\n"
"  xcapanalyse --updates --ideal-fps 30 --slow-motion slow.pcap --slow-motion-fps 1 video.pcap\n"
"  xcapanalyse -j 2 --format ndjson a.xcap b.pcap > all.ndjson   many traces, for a database\n"
"  xcapanalyse --predict --rates 10M,1M --latencies 10,50 app.xcap   the same on four links\n"
"  xcapanalyse --added-delay --rates 10M,1M,100k app.xcap   delay slower links add per packet\n"
"  xcapanalyse --added-delay-cdf --rates 1M,100k --format csv typing.pcap   the CDFs, to plot\n"
"  xcapanalyse --predict --ssh-compression --rates 1M --latencies 50 app.pcap   over ssh -C\n"
"More in man xcap-tutorial.\n");
}

/* The meter of the file being read, erased before any message. */
static struct progress meter;

static void warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	progress_clear(&meter);
	/* Messages from the reader name the problem and the file already. */
	complain("%s", msg);
}

/* ---- --connections ---- */

struct conn_row {
	uint32_t id;
	bool introduced;	/* a connection record gave its addresses */
	struct xaddr client, server;
	char proto[16];
	char name[128];
	uint64_t first, last;
	uint64_t packets[2], bytes[2], messages[2], gaps[2], gap_bytes[2];
};

/* How far past the connections seen an id of one never introduced may
   lie and still be taken as a connection (netplot's CONN_ID_SLACK). */
#define ORPHAN_ID_SLACK 1024

struct conn_table {
	struct conn_row *rows;
	size_t n, cap;
};

static struct conn_row *row_for(struct conn_table *t, uint32_t id, int create)
{
	/* Ids are dense and ascending, so the row of id is usually at id-1. */
	if (id >= 1 && id <= t->n && t->rows[id - 1].id == id)
		return &t->rows[id - 1];
	for (size_t i = 0; i < t->n; i++)
		if (t->rows[i].id == id)
			return &t->rows[i];
	if (!create)
		return NULL;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->rows = realloc(t->rows, t->cap * sizeof *t->rows);
		if (!t->rows) {
			die(EXIT_DAMAGED, "out of memory: 'connection table'");
		}
	}
	struct conn_row *r = &t->rows[t->n++];
	memset(r, 0, sizeof *r);
	r->id = id;
	return r;
}

static void account(struct conn_table *t, const struct xrec *rec)
{
	struct conn_row *r;
	switch (rec->type) {
	case XREC_CONN:
		r = row_for(t, rec->u.conn.id, 1);
		r->introduced = true;
		r->client = rec->u.conn.client;
		r->server = rec->u.conn.server;
		snprintf(r->proto, sizeof r->proto, "%s", rec->u.conn.proto);
		if (!r->first)
			r->first = rec->u.conn.ts;
		break;
	case XREC_PKT:
		/* Packets of a connection the trace never introduced (a piece
		   written by an xcap that left out the record of a connection
		   closed in an earlier piece) still count, under unknown
		   addresses, as every reader of the trace counts them. */
		if (!(r = row_for(t, rec->u.pkt.conn, 0))) {
			/* (an id far past the others: damage, left out as
			   netplot leaves it out) */
			if (!rec->u.pkt.conn || rec->u.pkt.conn > t->n + ORPHAN_ID_SLACK)
				break;
			r = row_for(t, rec->u.pkt.conn, 1);
		}
		if (!r->first)
			r->first = rec->u.pkt.ts;
		r->packets[rec->u.pkt.dir & 1]++;
		r->bytes[rec->u.pkt.dir & 1] += rec->u.pkt.len;
		r->last = rec->u.pkt.ts;
		break;
	case XREC_MSG:
		if ((r = row_for(t, rec->u.msg.conn, 0)))
			r->messages[rec->u.msg.dir & 1]++;
		break;
	case XREC_GAP:
		/* Bytes the capture left out on purpose were not lost. */
		if (rec->u.gap.reason != XGAP_SKIPPED && (r = row_for(t, rec->u.gap.conn, 0))) {
			r->gaps[rec->u.gap.dir & 1]++;
			r->gap_bytes[rec->u.gap.dir & 1] += rec->u.gap.len;
		}
		break;
	case XREC_NAME:
		/* WM_CLASS names the program best; keep the first of it. */
		if ((r = row_for(t, rec->u.name.conn, 0)) &&
		    (!r->name[0] || strcmp(rec->u.name.source, "WM_CLASS") == 0))
			snprintf(r->name, sizeof r->name, "%s", rec->u.name.text);
		break;
	default:
		break;
	}
}

static const struct out_column conn_cols[] = {
	{ "conn", "Conn", OUT_COL_UINT, 4, 0 },
	{ "client", "Client", OUT_COL_STR, -22, 0 },
	{ "server", "Server", OUT_COL_STR, -22, 0 },
	{ "proto", "Proto", OUT_COL_STR, -5, 0 },
	{ "name", "Name", OUT_COL_STR, -16, 0 },
	{ "duration", "Duration", OUT_COL_SECONDS, 10, 3 },
	{ "packets_c2s", "Pkts>", OUT_COL_UINT, 8, 0 },
	{ "packets_s2c", "Pkts<", OUT_COL_UINT, 8, 0 },
	{ "bytes_c2s", "Bytes>", OUT_COL_UINT, 10, 0 },
	{ "bytes_s2c", "Bytes<", OUT_COL_UINT, 10, 0 },
	{ "messages_c2s", "Msgs>", OUT_COL_UINT, 8, 0 },
	{ "messages_s2c", "Msgs<", OUT_COL_UINT, 8, 0 },
	{ "gaps", "Gaps", OUT_COL_UINT, 5, 0 },
	{ "gap_bytes", "Gap Bytes", OUT_COL_UINT, 9, 0 },
};

/* ---- --marks ---- */

static const struct out_column mark_cols[] = {
	{ "time", "Time", OUT_COL_SECONDS, 12, 6 },
	{ "conn", "Conn", OUT_COL_UINT, 4, 0 },
	{ "client", "Client", OUT_COL_STR, -16, 0 },
	{ "source", "Source", OUT_COL_STR, -12, 0 },
	{ "text", "Text", OUT_COL_STR, -1, 0 },
};

/* A mark's row as it comes: the time after the trace's first record, and
   the name of its client when the trace gave one. */
static void mark_row(struct out_table *out, const struct conn_table *t, uint64_t first,
		     const struct xrec_mark *m, enum out_format fmt)
{
	bool people = fmt == OUT_TEXT || fmt == OUT_MARKDOWN;
	const struct conn_row *r = NULL;
	for (size_t i = 0; m->conn && i < t->n && !r; i++)
		if (t->rows[i].id == m->conn)
			r = &t->rows[i];
	const char *client = r && r->name[0] ? r->name : people && m->conn ? "-" : "";
	struct out_cell cells[] = {
		{ .ns = m->ts > first ? (int64_t)(m->ts - first) : 0 },
		{ .u = m->conn, .empty = !m->conn },
		{ .s = client },
		{ .s = xmark_source_name(m->source) },
		{ .s = m->text },
	};
	out_table_row(out, cells);
}

static void print_connections(const struct conn_table *t, enum out_format fmt)
{
	char cl[64], sv[64];
	struct out_table out;
	out_json_open(stdout, fmt);
	out_table_begin(&out, stdout, fmt, conn_cols, sizeof conn_cols / sizeof conn_cols[0],
		    "connections");
	for (size_t i = 0; i < t->n; i++) {
		const struct conn_row *r = &t->rows[i];
		bool people = fmt == OUT_TEXT || fmt == OUT_MARKDOWN;
		if (r->introduced) {
			xaddr_format(cl, sizeof cl, &r->client);
			xaddr_format(sv, sizeof sv, &r->server);
		} else {	/* unknown: said, not made up */
			snprintf(cl, sizeof cl, "%s", people ? "?" : "");
			snprintf(sv, sizeof sv, "%s", people ? "?" : "");
		}
		struct out_cell cells[] = {
			{ .u = r->id }, { .s = cl }, { .s = sv },
			{ .s = r->proto[0] || !people ? r->proto : "-" },
			{ .s = r->name[0] || !people ? r->name : "-" },
			{ .ns = r->last > r->first ? (int64_t)(r->last - r->first) : 0 },
			{ .u = r->packets[0] }, { .u = r->packets[1] },
			{ .u = r->bytes[0] }, { .u = r->bytes[1] },
			{ .u = r->messages[0] }, { .u = r->messages[1] },
			{ .u = r->gaps[0] + r->gaps[1] }, { .u = r->gap_bytes[0] + r->gap_bytes[1] },
		};
		out_table_row(&out, cells);
	}
	out_table_end(&out);
	out_json_close(stdout, fmt);
}

/* ---- options ---- */

/* --conn: the connections to look at, none meaning all. */
struct conn_set {
	uint32_t *ids;
	size_t n;
};

static bool conn_wanted(const struct conn_set *cs, const struct xrec *rec)
{
	if (!cs->n)
		return true;
	uint32_t id = xrec_conn(rec);
	if (!id)	/* of the whole capture: statistics, a note, a mark */
		return true;
	for (size_t i = 0; i < cs->n; i++)
		if (cs->ids[i] == id)
			return true;
	return false;
}

static void parse_conns(struct conn_set *cs, const char *arg)
{
	const char *p = arg;
	while (*p) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);
		if (end == p || v == 0 || v > UINT32_MAX || (*end && *end != ','))
			die(EXIT_USAGE, "bad connection list: '%s'", arg);
		uint32_t *ids = realloc(cs->ids, (cs->n + 1) * sizeof *ids);
		if (!ids)
			die(EXIT_DAMAGED, "out of memory: 'connection list'");
		cs->ids = ids;
		cs->ids[cs->n++] = (uint32_t)v;
		p = *end ? end + 1 : end;
	}
}

/* Seconds as ns (or a duration with its unit); "" gives dflt. */
static uint64_t parse_seconds(const char *s, size_t len, uint64_t dflt, const char *what,
			      const char *arg)
{
	if (len == 0)
		return dflt;
	uint64_t ns;
	if (units_duration_n(s, len, UNITS_S, &ns) < 0 || ns > 1000000000 * UNITS_S)
		die(EXIT_USAGE, "bad %s: '%s'", what, arg);
	return ns;
}

static void parse_range(struct xstate_options *o, const char *arg)
{
	const char *colon = strchr(arg, ':');
	if (!colon)
		die(EXIT_USAGE, "bad range, want T0:T1 in seconds: '%s'", arg);
	o->range_start = parse_seconds(arg, (size_t)(colon - arg), 0, "range", arg);
	o->range_end = parse_seconds(colon + 1, strlen(colon + 1), UINT64_MAX, "range", arg);
	if (o->range_end <= o->range_start)
		die(EXIT_USAGE, "empty range: '%s'", arg);
}

/* Milliseconds as ns (or a duration with its unit). */
static uint64_t parse_ms(const char *arg, const char *what)
{
	uint64_t ns;
	if (units_duration(arg, UNITS_MS, &ns) < 0 || ns > 1000000000 * UNITS_MS)
		die(EXIT_USAGE, "bad %s, want milliseconds or " UNITS_DURATION_HINT ": '%s'", what,
		    arg);
	return ns;
}

/* What to do with each trace, the same for all. */
struct run {
	enum mode mode;
	enum out_format fmt;
	struct conn_set conns;
	bool per_conn;
	struct xstate_options sopt;
	const char *sites_file;
	struct xresp_options ropt;
	size_t ninputs;
	bool quiet;		/* no progress meter: several traces at once */
	/* --predict, --predict-round-trips, --added-delay */
	struct predict_options popt;
	const uint64_t *rates, *delays;
	size_t nrates, ndelays;
	uint64_t trace_rate;
	struct updates_options uopt;	/* --updates: span by marks, video quality */
};

/* Read one trace and print its view; the exit status it deserves.  index
   is its place among the inputs. */
static int analyse(const struct run *r, const char *path, size_t index, struct compare_run **cmp)
{
	enum mode mode = r->mode;
	enum out_format fmt = r->fmt;
	bool per_conn = r->per_conn;
	const char *sites_file = r->sites_file;
	struct xstate_options so = r->sopt;
	struct conn_table table = { 0 };
	char err[1024];
	/* A capture with payload: the compressed sizes are measured as it
	   is read, as xcap --compressed-sizes would. */
	struct pipeline_options pipe;
	pipeline_default_options(&pipe);
	pipe.compressed_sizes = (mode == MODE_PREDICT || mode == MODE_PREDICT_TRIPS) &&
				r->popt.ssh_compression;
	struct xsource *src = xsource_open(path, NULL, &pipe, err, sizeof err);
	if (!src) {
		/* A comparison without one of its runs would name the others wrongly. */
		if (mode == MODE_COMPARE)
			die(EXIT_DAMAGED, "%s", err);
		complain("%s", err);
		return EXIT_DAMAGED;
	}
	if (r->ninputs > 1 && (fmt == OUT_TEXT || fmt == OUT_MARKDOWN) && mode != MODE_COMPARE)
		printf("%s%s%s\n\n", index ? "\n" : "", fmt == OUT_MARKDOWN ? "### " : "== ", path);
	/* --compare names the runs in its own columns. */
	if (mode != MODE_COMPARE)
		out_set_source(path, r->ninputs > 1 || fmt == OUT_NDJSON, index == 0);
	xsource_on_warning(src, warn_cb, NULL);
	/* The views that print as they read keep a terminal to themselves. */
	progress_begin(&meter, program_name, path,
		       r->quiet || mode == MODE_DUMP || mode == MODE_MESSAGES || mode == MODE_TRIPS ||
		       mode == MODE_RESPONSES);
	unsigned long nrec = 0;
	struct xrec rec;
	struct msg_view *mv = NULL;
	struct xstate_model *model = NULL;
	struct requests_view *rv = NULL;
	struct trips_view *tv = NULL;
	struct sites *sites = NULL;
	struct events_view *ev = NULL;
	struct responses_view *resv = NULL;
	struct updates_view *updv = NULL;
	struct predict_trace *pt = NULL;
	struct added_delay *ad = NULL;
	bool added = mode == MODE_ADDED || mode == MODE_ADDED_RESPONSES || mode == MODE_ADDED_CDF;
	if (added) {
		struct predict_options po = r->popt;
		po.model = so;
		po.model.only = r->conns.ids;
		po.model.n_only = r->conns.n;
		if (!(ad = added_delay_new(&po, &po.model, &r->ropt)))
			die(EXIT_DAMAGED, "out of memory: '%s'", path);
	}
	if (mode == MODE_PREDICT || mode == MODE_PREDICT_TRIPS) {
		struct predict_options po = r->popt;
		po.model = so;
		po.model.only = r->conns.ids;
		po.model.n_only = r->conns.n;
		if (!(pt = predict_new(&po)))
			die(EXIT_DAMAGED, "out of memory: '%s'", path);
	}
	if (mode == MODE_SITES || mode == MODE_TRIPS || mode == MODE_EVENTS) {
		/* The call sites: xcap-run writes them beside the trace. */
		char beside[4096], serr[1024];
		snprintf(beside, sizeof beside, "%s.sites", path);
		const char *sp = sites_file ? sites_file : beside;
		if (!(sites = sites_load(sp, serr, sizeof serr)) &&
		    (mode == MODE_SITES || sites_file)) {
			complain("%s", serr);
			xsource_close(src);
			return EXIT_DAMAGED;
		}
		if (sites && sites_resolve_sources(sites) < 0)
			die(EXIT_DAMAGED, "out of memory: '%s'", sp);
		if (sites && sites_bad_lines(sites))
			complain("%zu lines not understood, skipped: '%s'", sites_bad_lines(sites), sp);
	}
	if (mode == MODE_DUMP)
		trace_info_dump(stdout, xsource_info(src));
	struct out_table marks;
	uint64_t first_ts = 0;
	if (mode == MODE_MARKS) {
		out_json_open(stdout, fmt);
		out_table_begin(&marks, stdout, fmt, mark_cols, sizeof mark_cols / sizeof mark_cols[0],
				"marks");
	}
	if (mode == MODE_MESSAGES && !(mv = msg_view_new(stdout, fmt)))
		die(EXIT_DAMAGED, "out of memory: '%s'", path);
	if (mode == MODE_DELAYS || mode == MODE_REQUESTS || mode == MODE_TRIPS || mode == MODE_SITES ||
	    mode == MODE_EVENTS || mode == MODE_RESPONSES || mode == MODE_RESPONSES_SUMMARY ||
	    mode == MODE_UPDATES || mode == MODE_COMPARE) {
		so.only = r->conns.ids;
		so.n_only = r->conns.n;
		if (!(model = xstate_new(&so)))
			die(EXIT_DAMAGED, "out of memory: '%s'", path);
		if (mode == MODE_REQUESTS && !(rv = requests_view_new(model, per_conn)))
			die(EXIT_DAMAGED, "out of memory: '%s'", path);
		if (mode == MODE_TRIPS && !(tv = trips_view_new(model, stdout, fmt, sites)))
			die(EXIT_DAMAGED, "out of memory: '%s'", path);
		if (mode == MODE_EVENTS && !(ev = events_view_new(model, stdout, sites)))
			die(EXIT_DAMAGED, "out of memory: '%s'", path);
		if ((mode == MODE_RESPONSES || mode == MODE_RESPONSES_SUMMARY) &&
		    !(resv = responses_view_new(model, stdout, fmt, &r->ropt,
						mode == MODE_RESPONSES_SUMMARY)))
			die(EXIT_DAMAGED, "out of memory: '%s'", path);
		if (mode == MODE_UPDATES) {
			struct updates_options uo = r->uopt;
			uo.from = so.range_start;
			uo.to = so.range_end;
			if (!(updv = updates_view_new(model, &uo, err, sizeof err)))
				die(EXIT_DAMAGED, "%s", err);
		}
		if (mode == MODE_SITES && sites_view_attach(sites, model) < 0)
			die(EXIT_DAMAGED, "out of memory: '%s'", path);
		if (mode == MODE_COMPARE && !(*cmp = compare_run_new(path, model, &r->ropt)))
			die(EXIT_DAMAGED, "out of memory: '%s'", path);
	}
	int more;
	while ((more = xsource_next(src, &rec)) == 1) {
		if ((++nrec & 1023) == 0)
			progress_at(&meter, xsource_offset(src));
		/* The model narrows by itself, as it needs every packet's time. */
		if (ad) {
			if (added_delay_record(ad, &rec, conn_wanted(&r->conns, &rec)) < 0)
				die(EXIT_DAMAGED, "out of memory: '%s'", path);
			continue;
		}
		if (!model && !conn_wanted(&r->conns, &rec))
			continue;
		switch (mode) {
		case MODE_DUMP: xrec_dump(stdout, &rec); break;
		case MODE_MESSAGES: msg_view_record(mv, &rec); break;
		case MODE_CONNECTIONS: account(&table, &rec); break;
		case MODE_PREDICT:
		case MODE_PREDICT_TRIPS:
			if (predict_record(pt, &rec) < 0)
				die(EXIT_DAMAGED, "out of memory: '%s'", path);
			break;
		case MODE_MARKS:
			if (!first_ts)
				first_ts = xrec_time(&rec);
			account(&table, &rec);
			if (rec.type == XREC_MARK)
				mark_row(&marks, &table, first_ts, &rec.u.mark, fmt);
			break;
		default:
			if (sites && sites_record(sites, &rec) < 0)
				die(EXIT_DAMAGED, "out of memory: '%s'", path);
			if (xstate_record(model, &rec) < 0)
				die(EXIT_DAMAGED, "out of memory: '%s'", path);
			if (mode == MODE_COMPARE && compare_run_record(*cmp, &rec) < 0)
				die(EXIT_DAMAGED, "out of memory: '%s'", path);
			/* The model narrows by --conn itself; the responses
			   follow it. */
			if (resv && conn_wanted(&r->conns, &rec) &&
			    responses_view_record(resv, &rec) < 0)
				die(EXIT_DAMAGED, "out of memory: '%s'", path);
			/* Marks name the span whichever connection made them. */
			if (updv && (rec.type == XREC_MARK || conn_wanted(&r->conns, &rec)) &&
			    updates_view_record(updv, &rec) < 0)
				die(EXIT_DAMAGED, "out of memory: '%s'", path);
			break;
		}
	}
	progress_end(&meter);
	if (more < 0)
		die(EXIT_DAMAGED, "cannot read on: %s", xsource_error(src));
	msg_view_finish(mv);
	if (pt) {
		int rc = predict_finish(pt);
		if (rc == PREDICT_NO_ZLEN) {
			complain("no compressed sizes to predict --ssh-compression from: capture with "
				 "xcap --compressed-sizes, or give the pcap: '%s'", path);
			predict_free(pt);
			xsource_close(src);
			return EXIT_DAMAGED;
		}
		size_t with_data, unmeasured = predict_unmeasured(pt, &with_data);
		if (rc == 0 && unmeasured)
			complain("%zu of %zu writes have no compressed size (bytes not captured), "
				 "counted uncompressed: '%s'", unmeasured, with_data, path);
		if (rc == 0 && mode == MODE_PREDICT)
			rc = predict_view_print(stdout, fmt, pt, r->rates, r->nrates, r->delays, r->ndelays);
		else if (rc == 0 && mode == MODE_PREDICT_TRIPS)
			rc = predict_trips_print(stdout, fmt, pt, r->rates, r->nrates, r->delays, r->ndelays);
		if (rc < 0)
			die(EXIT_DAMAGED, "out of memory: '%s'", path);
		predict_free(pt);
	}
	if (ad) {
		int rc = added_delay_finish(ad);
		if (rc == 0 && mode == MODE_ADDED)
			rc = added_delay_view_print(stdout, fmt, ad, r->rates, r->nrates, r->trace_rate);
		else if (rc == 0 && mode == MODE_ADDED_RESPONSES)
			rc = added_delay_responses_print(stdout, fmt, ad, r->rates, r->nrates,
							 r->trace_rate);
		else if (rc == 0)
			rc = added_delay_cdf_print(stdout, fmt, ad, r->rates, r->nrates, r->trace_rate);
		if (rc < 0)
			die(EXIT_DAMAGED, "out of memory: '%s'", path);
		added_delay_free(ad);
	}
	if (mode == MODE_MARKS) {
		out_table_end(&marks);
		out_json_close(stdout, fmt);
	}
	if (model) {
		xstate_finish(model);
		if (mode == MODE_DELAYS)
			delays_print(stdout, fmt, model);
		else if (mode == MODE_REQUESTS)
			requests_view_print(rv, stdout, fmt, model);
		else if (mode == MODE_SITES)
			sites_view_print(sites, stdout, fmt);
		else if (mode == MODE_EVENTS)
			events_view_finish(ev, model);
		else if (mode == MODE_COMPARE) {
			if (compare_run_finish(*cmp, model) < 0)
				die(EXIT_DAMAGED, "out of memory: '%s'", path);
		} else if (updv)
			updates_view_finish(updv, stdout, fmt);
		else if (resv) {
			if (responses_view_finish(resv) < 0)
				die(EXIT_DAMAGED, "out of memory: '%s'", path);
		} else
			trips_view_finish(tv, model);
		requests_view_free(rv);
		sites_free(sites);
		xstate_free(model);
	}
	int status = xsource_problems(src) ? EXIT_DAMAGED : EXIT_OK;
	xsource_close(src);
	if (mode == MODE_CONNECTIONS)
		print_connections(&table, fmt);
	free(table.rows);
	return status;
}

/* -j: njobs worker processes, started once, take the traces in turn
   (a counter they share) and write each trace's output after the last
   into a file of their own; a pipe tells the parent which trace is done,
   and the parent copies the outputs to stdout in argument order.  Each
   trace is streamed as it would be alone, so memory stays flat in the
   number and length of the traces; a process per trace would cost more
   than a small trace's analysis on machines where starting one is slow. */
struct slot {
	int worker;		/* which worker took it, -1 none yet */
	int done;
	int status;
	off_t start, end;	/* its output in that worker's file */
};

struct shared {
	size_t next;		/* the next trace to take */
	struct slot slot[];
};

static void copy_out(int fd, off_t start, off_t end)
{
	char buf[65536];
	fflush(stdout);
	while (start < end) {
		size_t want = (size_t)(end - start) < sizeof buf ? (size_t)(end - start) : sizeof buf;
		ssize_t got = pread(fd, buf, want, start);
		if (got <= 0)
			die(EXIT_DAMAGED, "cannot read back an output: 'jobs'");
		if (fwrite(buf, 1, (size_t)got, stdout) != (size_t)got)
			die(EXIT_DAMAGED, "cannot write output: 'stdout'");
		start += got;
	}
}

static void worker(const struct run *r, char **paths, size_t n, struct shared *sh, int id,
		   int outfd, int donefd)
{
	if (dup2(outfd, STDOUT_FILENO) < 0)
		_exit(EXIT_DAMAGED);
	for (;;) {
		size_t i = __atomic_fetch_add(&sh->next, 1, __ATOMIC_SEQ_CST);
		if (i >= n)
			break;
		struct slot *s = &sh->slot[i];
		s->start = lseek(STDOUT_FILENO, 0, SEEK_CUR);
		__atomic_store_n(&s->worker, id, __ATOMIC_SEQ_CST);
		int st = analyse(r, paths[i], i, NULL);
		if (fflush(stdout) != 0)
			st = EXIT_DAMAGED;
		s->status = st;
		s->end = lseek(STDOUT_FILENO, 0, SEEK_CUR);
		uint32_t idx = (uint32_t)i;
		if (write(donefd, &idx, sizeof idx) != sizeof idx)
			_exit(EXIT_DAMAGED);
	}
	_exit(EXIT_OK);
}

static int analyse_parallel(const struct run *r, char **paths, size_t n, size_t njobs)
{
	if (njobs > n)
		njobs = n;
	size_t size = sizeof(struct shared) + n * sizeof(struct slot);
	struct shared *sh = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die(EXIT_DAMAGED, "out of memory: 'jobs'");
	sh->next = 0;
	for (size_t i = 0; i < n; i++)
		sh->slot[i] = (struct slot){ .worker = -1 };
	int *outfd = calloc(njobs, sizeof *outfd);
	pid_t *pid = calloc(njobs, sizeof *pid);
	int donep[2];
	if (!outfd || !pid)
		die(EXIT_DAMAGED, "out of memory: 'jobs'");
	if (pipe(donep) < 0)
		die(EXIT_DAMAGED, "cannot make a pipe: 'jobs'");
	fflush(stdout);
	fflush(stderr);
	for (size_t k = 0; k < njobs; k++) {
		FILE *f = tmpfile();
		if (!f || (outfd[k] = dup(fileno(f))) < 0)
			die(EXIT_DAMAGED, "cannot make a temporary file: 'jobs'");
		fclose(f);
		if ((pid[k] = fork()) < 0)
			die(EXIT_DAMAGED, "cannot start a process: 'jobs'");
		if (pid[k] == 0) {
			close(donep[0]);
			worker(r, paths, n, sh, (int)k, outfd[k], donep[1]);
		}
	}
	close(donep[1]);
	int status = EXIT_OK;
	size_t printed = 0;
	uint32_t idx;
	ssize_t got;
	for (;;) {
		while ((got = read(donep[0], &idx, sizeof idx)) < 0 && errno == EINTR)
			;
		if (got != sizeof idx)
			break;	/* every worker has ended */
		if (idx < n)
			sh->slot[idx].done = 1;
		for (; printed < n && sh->slot[printed].done; printed++) {
			struct slot *s = &sh->slot[printed];
			copy_out(outfd[s->worker], s->start, s->end);
			if (s->status != EXIT_OK)
				status = EXIT_DAMAGED;
		}
	}
	close(donep[0]);
	for (size_t k = 0; k < njobs; k++) {
		int wst;
		while (waitpid(pid[k], &wst, 0) < 0 && errno == EINTR)
			;
		if (WIFSIGNALED(wst))
			complain("a worker ended by signal %d: 'jobs'", WTERMSIG(wst));
	}
	/* A worker that died (out of memory, an unreadable trace) leaves the
	   trace it had taken unfinished: print what it wrote, as one process
	   alone would have, and read whatever nobody took here. */
	for (; printed < n; printed++) {
		struct slot *s = &sh->slot[printed];
		if (!s->done && s->worker >= 0) {
			struct stat sb;
			if (fstat(outfd[s->worker], &sb) == 0)
				copy_out(outfd[s->worker], s->start, sb.st_size);
			complain("analysis did not finish: '%s'", paths[printed]);
			status = EXIT_DAMAGED;
		} else if (!s->done) {
			fflush(stdout);
			if (analyse(r, paths[printed], printed, NULL) != EXIT_OK)
				status = EXIT_DAMAGED;
		} else {
			copy_out(outfd[s->worker], s->start, s->end);
			if (s->status != EXIT_OK)
				status = EXIT_DAMAGED;
		}
	}
	for (size_t k = 0; k < njobs; k++)
		close(outfd[k]);
	free(outfd);
	free(pid);
	munmap(sh, size);
	return status;
}

int main(int argc, char **argv)
{
	pipeline_steady_heap(0);
	enum mode mode = MODE_DELAYS;
	enum out_format fmt = OUT_TEXT;
	struct conn_set conns = { 0 };
	bool per_conn = false;
	struct xstate_options sopt;
	xstate_options_default(&sopt);
	enum { OPT_CONN = 256, OPT_RANGE, OPT_SIDE, OPT_RTT, OPT_SLACK, OPT_FRACTION, OPT_MIN_FLIGHT, OPT_NO_BACKLOG, OPT_PER_CONN,
	       OPT_WAIT_ON, OPT_SPLIT_FRACTION, OPT_SPLIT_MIN, OPT_SPLIT_MAX, OPT_SITES, OPT_SITES_FILE, OPT_EVENTS,
	       OPT_RESPONSES, OPT_RESPONSES_SUMMARY, OPT_UPDATES, OPT_QUIET, OPT_FIRST, OPT_SYNTHETIC, OPT_NO_FOLD,
	       OPT_COMPARE, OPT_FAIL_IF_WORSE, OPT_PREDICT, OPT_ADDED, OPT_RATES, OPT_DELAYS, OPT_MSS,
	       OPT_IW, OPT_NO_IDLE, OPT_TRACE_RATE, OPT_DILATION, OPT_PREDICT_TRIPS, OPT_MARK_SPAN,
	       OPT_ADDED_RESPONSES, OPT_ADDED_CDF,
	       OPT_IDEAL_FPS, OPT_SLOW_MOTION, OPT_SLOW_MOTION_FPS, OPT_SSH_COMPRESSION,
	       OPT_SSH_FORWARD, OPT_WAKE };
	struct compare_gate gates[64];
	size_t n_gates = 0;
	struct xresp_options ropt;
	xresp_options_default(&ropt);
	struct updates_options uopt = { .to = UINT64_MAX };
	char *mark_span = NULL;
	const char *sites_file = NULL;
	size_t njobs = 1;
	struct predict_options popt;
	bool ssh_forward_set = false, wake_set = false;
	predict_options_default(&popt);
	uint64_t rates[64], delays[64], trace_rate = 0;
	int nrates = predict_parse_rates("100M,10M,1M,100k,10k", rates, 64);
	int ndelays = predict_parse_delays("0.1,1,10,100", delays, 64);
	static const struct option longopts[] = {
		{ "dump", no_argument, NULL, 'd' },
		{ "connections", no_argument, NULL, 'C' },
		{ "messages", no_argument, NULL, 'm' },
		{ "marks", no_argument, NULL, 'M' },
		{ "delays", no_argument, NULL, 'D' },
		{ "requests", no_argument, NULL, 'R' },
		{ "round-trips", no_argument, NULL, 'T' },
		{ "per-conn", no_argument, NULL, OPT_PER_CONN },
		{ "sites", no_argument, NULL, OPT_SITES },
		{ "trace-events", no_argument, NULL, OPT_EVENTS },
		{ "sites-file", required_argument, NULL, OPT_SITES_FILE },
		{ "compare", no_argument, NULL, OPT_COMPARE },
		{ "fail-if-worse", required_argument, NULL, OPT_FAIL_IF_WORSE },
		{ "responses", no_argument, NULL, OPT_RESPONSES },
		{ "responses-summary", no_argument, NULL, OPT_RESPONSES_SUMMARY },
		{ "updates", no_argument, NULL, OPT_UPDATES },
		{ "quiet-ms", required_argument, NULL, OPT_QUIET },
		{ "mark-span", required_argument, NULL, OPT_MARK_SPAN },
		{ "ideal-fps", required_argument, NULL, OPT_IDEAL_FPS },
		{ "slow-motion", required_argument, NULL, OPT_SLOW_MOTION },
		{ "slow-motion-fps", required_argument, NULL, OPT_SLOW_MOTION_FPS },
		{ "first-ms", required_argument, NULL, OPT_FIRST },
		{ "synthetic-inputs", no_argument, NULL, OPT_SYNTHETIC },
		{ "no-fold-motion", no_argument, NULL, OPT_NO_FOLD },
		{ "format", required_argument, NULL, 'f' },
		{ "conn", required_argument, NULL, OPT_CONN },
		{ "range", required_argument, NULL, OPT_RANGE },
		{ "capture-side", required_argument, NULL, OPT_SIDE },
		{ "rtt", required_argument, NULL, OPT_RTT },
		{ "elicit-slack", required_argument, NULL, OPT_SLACK },
		{ "elicit-fraction", required_argument, NULL, OPT_FRACTION },
		{ "elicit-min-flight", required_argument, NULL, OPT_MIN_FLIGHT },
		{ "no-backlog", no_argument, NULL, OPT_NO_BACKLOG },
		{ "wait-on", required_argument, NULL, OPT_WAIT_ON },
		{ "split-fraction", required_argument, NULL, OPT_SPLIT_FRACTION },
		{ "split-min", required_argument, NULL, OPT_SPLIT_MIN },
		{ "split-max", required_argument, NULL, OPT_SPLIT_MAX },
		{ "jobs", required_argument, NULL, 'j' },
		{ "predict", no_argument, NULL, OPT_PREDICT },
		{ "added-delay", no_argument, NULL, OPT_ADDED },
		{ "added-delay-responses", no_argument, NULL, OPT_ADDED_RESPONSES },
		{ "added-delay-cdf", no_argument, NULL, OPT_ADDED_CDF },
		{ "predict-round-trips", no_argument, NULL, OPT_PREDICT_TRIPS },
		{ "rates", required_argument, NULL, OPT_RATES },
		{ "latencies", required_argument, NULL, OPT_DELAYS },
		{ "mss", required_argument, NULL, OPT_MSS },
		{ "initial-window", required_argument, NULL, OPT_IW },
		{ "no-idle-restart", no_argument, NULL, OPT_NO_IDLE },
		{ "trace-rate", required_argument, NULL, OPT_TRACE_RATE },
		{ "time-dilation", required_argument, NULL, OPT_DILATION },
		{ "ssh-compression", no_argument, NULL, OPT_SSH_COMPRESSION },
		{ "ssh-forward-time", required_argument, NULL, OPT_SSH_FORWARD },
		{ "wake-time", required_argument, NULL, OPT_WAKE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "hVj:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd': mode = MODE_DUMP; break;
		case 'C': mode = MODE_CONNECTIONS; break;
		case 'm': mode = MODE_MESSAGES; break;
		case 'M': mode = MODE_MARKS; break;
		case 'D': mode = MODE_DELAYS; break;
		case 'R': mode = MODE_REQUESTS; break;
		case 'T': mode = MODE_TRIPS; break;
		case OPT_SITES: mode = MODE_SITES; break;
		case OPT_EVENTS: mode = MODE_EVENTS; break;
		case OPT_SITES_FILE: sites_file = optarg; break;
		case OPT_COMPARE: mode = MODE_COMPARE; break;
		case OPT_FAIL_IF_WORSE: {
			char err[512];
			size_t got;
			if (compare_gate_parse(optarg, gates + n_gates, sizeof gates / sizeof gates[0] - n_gates,
					       &got, err, sizeof err) < 0)
				die(EXIT_USAGE, "%s", err);
			n_gates += got;
			break;
		}
		case OPT_RESPONSES: mode = MODE_RESPONSES; break;
		case OPT_RESPONSES_SUMMARY: mode = MODE_RESPONSES_SUMMARY; break;
		case OPT_UPDATES: mode = MODE_UPDATES; break;
		case OPT_MARK_SPAN: {
			char *colon = strchr(optarg, ':');
			if (!colon || colon == optarg || !colon[1])
				die(EXIT_USAGE, "bad mark span, want FROM:TO (the marks' texts): '%s'",
				    optarg);
			free(mark_span);
			if (!(mark_span = strdup(optarg)))
				die(EXIT_DAMAGED, "out of memory: '%s'", optarg);
			mark_span[colon - optarg] = '\0';
			uopt.from_mark = mark_span;
			uopt.to_mark = mark_span + (colon - optarg) + 1;
			break;
		}
		case OPT_IDEAL_FPS:
		case OPT_SLOW_MOTION_FPS: {
			char *end;
			double v = strtod(optarg, &end);
			if (end == optarg || *end || !(v > 0) || v > 1e6)
				die(EXIT_USAGE, "bad frame rate, want frames per second above 0: '%s'",
				    optarg);
			*(opt == OPT_IDEAL_FPS ? &uopt.ideal_fps : &uopt.reference_fps) = v;
			break;
		}
		case OPT_SLOW_MOTION: uopt.reference = optarg; break;
		case OPT_QUIET:
			ropt.quiet = parse_ms(optarg, "quiet period");
			if (!ropt.quiet)
				die(EXIT_USAGE, "bad quiet period, want more than 0 ms: '%s'", optarg);
			break;
		case OPT_FIRST: ropt.first = parse_ms(optarg, "first response wait"); break;
		case OPT_SYNTHETIC: ropt.synthetic = true; break;
		case OPT_NO_FOLD: ropt.fold_motion = false; break;
		case OPT_PREDICT: mode = MODE_PREDICT; break;
		case OPT_ADDED: mode = MODE_ADDED; break;
		case OPT_ADDED_RESPONSES: mode = MODE_ADDED_RESPONSES; break;
		case OPT_ADDED_CDF: mode = MODE_ADDED_CDF; break;
		case OPT_PREDICT_TRIPS: mode = MODE_PREDICT_TRIPS; break;
		case OPT_RATES:
			if ((nrates = predict_parse_rates(optarg, rates, 64)) < 0)
				die(EXIT_USAGE, "bad rate list, want up to 64 rates like 10M,1M,100k: '%s'", optarg);
			break;
		case OPT_DELAYS:
			if ((ndelays = predict_parse_delays(optarg, delays, 64)) < 0)
				die(EXIT_USAGE, "bad delay list, want up to 64 delays in ms like 0.1,10: '%s'", optarg);
			break;
		case OPT_TRACE_RATE:
			if (predict_parse_rates(optarg, &trace_rate, 1) != 1)
				die(EXIT_USAGE, "bad trace rate, want one rate like 1G: '%s'", optarg);
			break;
		case OPT_MSS:
		case OPT_IW: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (end == optarg || *end || v == 0 || v > 65495)
				die(EXIT_USAGE, "bad %s: '%s'", opt == OPT_MSS ? "segment size" : "initial window", optarg);
			*(opt == OPT_MSS ? &popt.mss : &popt.initial_window) = (uint32_t)v;
			break;
		}
		case OPT_NO_IDLE: popt.idle_restart = false; break;
		case OPT_SSH_COMPRESSION: popt.ssh_compression = true; break;
		case OPT_SSH_FORWARD:
			popt.ssh_forward = parse_ms(optarg, "ssh forwarding time");
			ssh_forward_set = true;
			break;
		case OPT_WAKE:
			popt.wake = parse_ms(optarg, "wake-up time");
			wake_set = true;
			break;
		case OPT_DILATION: {
			char *end;
			popt.dilation = strtod(optarg, &end);
			if (end == optarg || *end || !(popt.dilation >= 1) || popt.dilation > 1000)
				die(EXIT_USAGE, "bad time dilation, want a factor from 1 to 1000: '%s'", optarg);
			break;
		}
		case 'f': {
			int f = out_format_parse(optarg);
			if (f < 0)
				die(EXIT_USAGE, "unknown format, want text, csv, json, ndjson or markdown: '%s'",
				    optarg);
			fmt = (enum out_format)f;
			break;
		}
		case OPT_CONN: parse_conns(&conns, optarg); break;
		case OPT_PER_CONN: per_conn = true; break;
		case OPT_RANGE: parse_range(&sopt, optarg); break;
		case OPT_SIDE:
			if (strcmp(optarg, "auto") == 0) sopt.capture_side = XSIDE_AUTO;
			else if (strcmp(optarg, "client") == 0) sopt.capture_side = XSIDE_CLIENT;
			else if (strcmp(optarg, "server") == 0) sopt.capture_side = XSIDE_SERVER;
			else die(EXIT_USAGE, "bad capture side, want auto, client or server: '%s'", optarg);
			break;
		case OPT_RTT: sopt.rtt = parse_ms(optarg, "round trip time"); break;
		case OPT_NO_BACKLOG: sopt.backlog = false; break;
		case OPT_WAIT_ON:
			if (strcmp(optarg, "earliest") == 0) sopt.wait_rule = XWAIT_EARLIEST;
			else if (strcmp(optarg, "latest") == 0) sopt.wait_rule = XWAIT_LATEST;
			else if (strcmp(optarg, "last") == 0) sopt.wait_rule = XWAIT_LAST;
			else die(EXIT_USAGE, "bad wait rule, want earliest, latest or last: '%s'", optarg);
			break;
		case OPT_SPLIT_MIN: sopt.split_min = parse_ms(optarg, "split minimum"); break;
		case OPT_SPLIT_MAX: sopt.split_max = parse_ms(optarg, "split maximum"); break;
		case OPT_SPLIT_FRACTION: {
			char *end;
			sopt.split_fraction = strtod(optarg, &end);
			if (end == optarg || *end || !(sopt.split_fraction >= 0) ||
			    sopt.split_fraction > 100)
				die(EXIT_USAGE, "bad split fraction: '%s'", optarg);
			break;
		}
		case OPT_MIN_FLIGHT: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (end == optarg || *end || v > INT32_MAX)
				die(EXIT_USAGE, "bad elicit minimum in flight: '%s'", optarg);
			sopt.elicit_min_flight = (uint32_t)v;
			break;
		}
		case OPT_SLACK: sopt.elicit_slack = parse_ms(optarg, "elicit slack"); break;
		case OPT_FRACTION: {
			char *end;
			sopt.elicit_fraction = strtod(optarg, &end);
			if (end == optarg || *end || !(sopt.elicit_fraction >= 0) ||
			    sopt.elicit_fraction > 10)
				die(EXIT_USAGE, "bad elicit fraction: '%s'", optarg);
			break;
		}
		case 'j': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (end == optarg || *end || v < 1 || v > 1024)
				die(EXIT_USAGE, "bad number of jobs, want 1 to 1024: '%s'", optarg);
			njobs = v;
			break;
		}
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': printf("xcapanalyse %s\n", PACKAGE_VERSION); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		complain("no input given: 'FILE...'");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (fmt == OUT_MARKDOWN && (mode == MODE_DUMP || mode == MODE_MESSAGES))
		die(EXIT_USAGE, "markdown is for the tables, not this view: '%s'",
		    mode == MODE_DUMP ? "--dump" : "--messages");
	if ((uopt.from_mark || uopt.ideal_fps > 0 || uopt.reference || uopt.reference_fps > 0) &&
	    mode != MODE_UPDATES)
		die(EXIT_USAGE, "the span by marks and video quality are --updates': '%s'",
		    uopt.from_mark ? "--mark-span" : uopt.reference ? "--slow-motion" : "--ideal-fps");
	if (uopt.reference && !(uopt.reference_fps > 0 && uopt.ideal_fps > 0))
		die(EXIT_USAGE, "a slow-motion run wants its frame rate and the ideal one: '%s'",
		    "--slow-motion-fps, --ideal-fps");
	if (uopt.reference_fps > 0 && !uopt.reference)
		die(EXIT_USAGE, "a slow-motion frame rate wants the slow-motion run: '%s'",
		    "--slow-motion");
	if (n_gates && mode != MODE_COMPARE)
		die(EXIT_USAGE, "--fail-if-worse compares runs, it wants --compare: '%s'", argv[optind]);
	if (popt.ssh_compression && mode != MODE_PREDICT && mode != MODE_PREDICT_TRIPS)
		die(EXIT_USAGE, "--ssh-compression is a prediction's, it wants --predict or "
			"--predict-round-trips: '%s'", argv[optind]);
	if (wake_set && mode != MODE_PREDICT && mode != MODE_PREDICT_TRIPS)
		die(EXIT_USAGE, "--wake-time is a prediction's, it wants --predict or "
			"--predict-round-trips: '%s'", argv[optind]);
	if (ssh_forward_set && !popt.ssh_compression)
		die(EXIT_USAGE, "--ssh-forward-time is the tunnel's, it wants --ssh-compression: '%s'",
		    argv[optind]);
	if (mode == MODE_COMPARE && (argc - optind < 2 || argc - optind > COMPARE_RUNS_MAX))
		die(EXIT_USAGE, "--compare wants 2 to %d files: '%s'", COMPARE_RUNS_MAX, argv[optind]);

	struct run run = {
		.mode = mode, .fmt = fmt, .conns = conns, .per_conn = per_conn, .sopt = sopt,
		.sites_file = sites_file, .ropt = ropt, .ninputs = (size_t)(argc - optind),
		.popt = popt, .rates = rates, .delays = delays, .nrates = (size_t)nrates,
		.ndelays = (size_t)ndelays, .trace_rate = trace_rate, .uopt = uopt,
		/* --compare holds every run until it prints: one process */
		.quiet = njobs > 1 && argc - optind > 1 && mode != MODE_COMPARE,
	};
	int status = EXIT_OK;
	struct compare_run *runs[COMPARE_RUNS_MAX] = { 0 };
	size_t n_runs = 0;
	if (run.quiet)
		status = analyse_parallel(&run, argv + optind, run.ninputs, njobs);
	else
		for (int i = optind; i < argc; i++)
			if (analyse(&run, argv[i], (size_t)(i - optind),
				    mode == MODE_COMPARE ? &runs[n_runs++] : NULL) != EXIT_OK)
				status = EXIT_DAMAGED;
	if (mode == MODE_COMPARE) {
		int broken = compare_print(stdout, fmt, runs, n_runs, gates, n_gates);
		if (broken < 0)
			die(EXIT_DAMAGED, "out of memory: '%s'", "--compare");
		if (fflush(stdout) != 0)
			die(EXIT_DAMAGED, "cannot write output: 'stdout'");
		for (size_t k = 0; k < n_runs; k++) {
			if (compare_run_worse(runs[k]))
				complain("worse than the first run by more than --fail-if-worse allows: '%s'",
					 compare_run_name(runs[k]));
			compare_run_free(runs[k]);
		}
		/* A damaged input says more than the verdict on it. */
		if (broken && status == EXIT_OK)
			status = EXIT_WORSE;
	}
	free(conns.ids);
	free(mark_span);
	if (fflush(stdout) != 0)
		die(EXIT_DAMAGED, "cannot write output: 'stdout'");
	return status;
}
