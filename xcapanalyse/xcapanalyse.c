/*
 * xcapanalyse — what a trace says: where the time went (the delay table,
 * the requests waited on, the round trips), every record as text
 * (--dump), the protocol messages (--messages), or the connections it
 * holds with their traffic (--connections).
 *
 * Input is anything xsource opens: .xcap traces, .pcap and .pcapng.
 */
#include "config.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "events.h"
#include "messages.h"
#include "predict_view.h"
#include "output.h"
#include "progress.h"
#include "report.h"
#include "sites.h"
#include "source.h"
#include "state.h"
#include "views.h"

const char program_name[] = "xcapanalyse";

enum { EXIT_OK = 0, EXIT_DAMAGED = 1, EXIT_USAGE = 2 };
enum mode { MODE_DELAYS, MODE_REQUESTS, MODE_TRIPS, MODE_CONNECTIONS, MODE_DUMP, MODE_MESSAGES,
	    MODE_SITES, MODE_EVENTS, MODE_PREDICT, MODE_PREDICT_TRIPS, MODE_ADDED };

static void usage(FILE *f)
{
	fprintf(f,
"usage: xcapanalyse [VIEW] [--format FMT] [--conn N,...] [--range T0:T1] FILE...\n"
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
"  --connections     one row per connection: endpoints, client name,\n"
"                    packets, bytes and messages each way, gaps\n"
"  --messages        one line per protocol message, with the wait of a reply\n"
"  --dump            every record as one line of key=value text\n"
"  --predict         the trace replayed over each link of --rates x\n"
"                    --latencies: span, Total Network Delay, Block Send,\n"
"                    Block Reply, round trips, as xcap-sweep measures them\n"
"  --predict-round-trips  each predicted blocking round trip, link by link\n"
"  --added-delay     SLIM's experiment: the trace's packets at their times\n"
"                    through a link of each of --rates; percentiles of the\n"
"                    delay each packet gains\n"

"\n"
"Options:\n"
"  --sites-file PATH the call sites (default: FILE.sites when it exists)\n"
"  --format FMT      text (aligned table), csv, json or markdown\n"
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
"  --rates LIST      link rates in bit/s, suffix k, M or G (default\n"
"                    100M,10M,1M,100k,10k)\n"
"  --latencies LIST  one-way delays in ms (default 0.1,1,10,100)\n"
"  --mss BYTES       segment payload on the predicted link (default 1448)\n"
"  --initial-window SEGMENTS  TCP's initial window (default 10)\n"
"  --no-idle-restart  TCP keeps its window when idle (Linux's\n"
"                    tcp_slow_start_after_idle=0)\n"
"  --trace-rate RATE  rate of the link the trace was taken on, for\n"
"                    --added-delay (default: none, loopback)\n"
"  --time-dilation K  the trace was taken with its clocks and link slowed K\n"
"                    times: divide its times by K (default 1)\n"
"  -h, --help        show this help\n"
"  -V, --version     show the version\n"
"\n"
"Exit status: 0 success, 1 an input was unreadable or damaged (what could\n"
"be read was still printed), 2 usage error.\n"
"\n"
"Examples:\n"
"  xcapanalyse app.xcap                           where the time went\n"
"  xcapanalyse --round-trips --conn 2 app.xcap    the round trips to remove, in order\n"
"  xcapanalyse --requests --format markdown app.pcapng   the requests waited on, for a bug report\n"
"  xcapanalyse --predict --rates 10M,1M --latencies 10,50 app.xcap   the same on four links\n"
"  xcapanalyse --added-delay --rates 10M,1M,100k app.xcap   delay slower links add per packet\n"
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
	struct xaddr client, server;
	char proto[16];
	char name[128];
	uint64_t first, last;
	uint64_t packets[2], bytes[2], messages[2], gaps[2], gap_bytes[2];
};

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
		r->client = rec->u.conn.client;
		r->server = rec->u.conn.server;
		snprintf(r->proto, sizeof r->proto, "%s", rec->u.conn.proto);
		if (!r->first)
			r->first = rec->u.conn.ts;
		break;
	case XREC_PKT:
		if (!(r = row_for(t, rec->u.pkt.conn, 0)))
			break;
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

static void print_connections(const struct conn_table *t, enum out_format fmt)
{
	char cl[64], sv[64];
	struct out_table out;
	out_json_open(stdout, fmt);
	out_table_begin(&out, stdout, fmt, conn_cols, sizeof conn_cols / sizeof conn_cols[0],
		    "connections");
	for (size_t i = 0; i < t->n; i++) {
		const struct conn_row *r = &t->rows[i];
		xaddr_format(cl, sizeof cl, &r->client);
		xaddr_format(sv, sizeof sv, &r->server);
		bool people = fmt == OUT_TEXT || fmt == OUT_MARKDOWN;
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
	uint32_t id;
	switch (rec->type) {
	case XREC_CONN: id = rec->u.conn.id; break;
	case XREC_PKT: id = rec->u.pkt.conn; break;
	case XREC_MSG: id = rec->u.msg.conn; break;
	case XREC_EXT: id = rec->u.ext.conn; break;
	case XREC_NAME: id = rec->u.name.conn; break;
	case XREC_GAP: id = rec->u.gap.conn; break;
	case XREC_NOTE: id = rec->u.note.conn; if (!id) return true; break;
	default: return true;
	}
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

/* Seconds as ns; "" gives dflt. */
static uint64_t parse_seconds(const char *s, size_t len, uint64_t dflt, const char *what,
			      const char *arg)
{
	if (len == 0)
		return dflt;
	char buf[64], *end;
	if (len >= sizeof buf)
		die(EXIT_USAGE, "bad %s: '%s'", what, arg);
	memcpy(buf, s, len);
	buf[len] = '\0';
	double v = strtod(buf, &end);
	if (*end || !(v >= 0) || v > 1e9)
		die(EXIT_USAGE, "bad %s: '%s'", what, arg);
	return (uint64_t)(v * 1e9 + 0.5);
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

static uint64_t parse_ms(const char *arg, const char *what)
{
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || *end || !(v >= 0) || v > 1e9)
		die(EXIT_USAGE, "bad %s: '%s'", what, arg);
	return (uint64_t)(v * 1e6 + 0.5);
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
	       OPT_WAIT_ON, OPT_SPLIT_FRACTION, OPT_SPLIT_MIN, OPT_SITES, OPT_SITES_FILE, OPT_EVENTS,
	       OPT_PREDICT, OPT_ADDED, OPT_RATES, OPT_DELAYS, OPT_MSS, OPT_IW, OPT_NO_IDLE, OPT_TRACE_RATE, OPT_DILATION,
	       OPT_PREDICT_TRIPS };
	const char *sites_file = NULL;
	struct predict_options popt;
	predict_options_default(&popt);
	uint64_t rates[64], delays[64], trace_rate = 0;
	int nrates = predict_parse_rates("100M,10M,1M,100k,10k", rates, 64);
	int ndelays = predict_parse_delays("0.1,1,10,100", delays, 64);
	static const struct option longopts[] = {
		{ "dump", no_argument, NULL, 'd' },
		{ "connections", no_argument, NULL, 'C' },
		{ "messages", no_argument, NULL, 'm' },
		{ "delays", no_argument, NULL, 'D' },
		{ "requests", no_argument, NULL, 'R' },
		{ "round-trips", no_argument, NULL, 'T' },
		{ "per-conn", no_argument, NULL, OPT_PER_CONN },
		{ "sites", no_argument, NULL, OPT_SITES },
		{ "trace-events", no_argument, NULL, OPT_EVENTS },
		{ "sites-file", required_argument, NULL, OPT_SITES_FILE },
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
		{ "predict", no_argument, NULL, OPT_PREDICT },
		{ "added-delay", no_argument, NULL, OPT_ADDED },
		{ "predict-round-trips", no_argument, NULL, OPT_PREDICT_TRIPS },
		{ "rates", required_argument, NULL, OPT_RATES },
		{ "latencies", required_argument, NULL, OPT_DELAYS },
		{ "mss", required_argument, NULL, OPT_MSS },
		{ "initial-window", required_argument, NULL, OPT_IW },
		{ "no-idle-restart", no_argument, NULL, OPT_NO_IDLE },
		{ "trace-rate", required_argument, NULL, OPT_TRACE_RATE },
		{ "time-dilation", required_argument, NULL, OPT_DILATION },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd': mode = MODE_DUMP; break;
		case 'C': mode = MODE_CONNECTIONS; break;
		case 'm': mode = MODE_MESSAGES; break;
		case 'D': mode = MODE_DELAYS; break;
		case 'R': mode = MODE_REQUESTS; break;
		case 'T': mode = MODE_TRIPS; break;
		case OPT_SITES: mode = MODE_SITES; break;
		case OPT_EVENTS: mode = MODE_EVENTS; break;
		case OPT_SITES_FILE: sites_file = optarg; break;
		case OPT_PREDICT: mode = MODE_PREDICT; break;
		case OPT_ADDED: mode = MODE_ADDED; break;
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
				die(EXIT_USAGE, "unknown format, want text, csv, json or markdown: '%s'",
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

	int status = EXIT_OK;
	struct conn_table table = { 0 };
	for (int i = optind; i < argc; i++) {
		char err[1024];
		struct xsource *src = xsource_open(argv[i], NULL, NULL, err, sizeof err);
		if (!src) {
			complain("%s", err);
			status = EXIT_DAMAGED;
			continue;
		}
		if (argc - optind > 1 && (fmt == OUT_TEXT || fmt == OUT_MARKDOWN))
			printf("%s%s%s\n\n", i > optind ? "\n" : "",
			       fmt == OUT_MARKDOWN ? "### " : "== ", argv[i]);
		xsource_on_warning(src, warn_cb, NULL);
		/* The views that print as they read keep a terminal to themselves. */
		progress_begin(&meter, program_name, argv[i],
			       mode == MODE_DUMP || mode == MODE_MESSAGES || mode == MODE_TRIPS);
		unsigned long nrec = 0;
		struct xrec rec;
		struct msg_view *mv = NULL;
		struct xstate_model *model = NULL;
		struct requests_view *rv = NULL;
		struct trips_view *tv = NULL;
		struct sites *sites = NULL;
		struct events_view *ev = NULL;
		struct predict_trace *pt = NULL;
		if (mode == MODE_PREDICT || mode == MODE_PREDICT_TRIPS || mode == MODE_ADDED) {
			popt.model = sopt;
			popt.model.only = conns.ids;
			popt.model.n_only = conns.n;
			if (!(pt = predict_new(&popt)))
				die(EXIT_DAMAGED, "out of memory: '%s'", argv[i]);
		}
		if (mode == MODE_SITES || mode == MODE_TRIPS || mode == MODE_EVENTS) {
			/* The call sites: xcap-run writes them beside the trace. */
			char path[4096], serr[1024];
			snprintf(path, sizeof path, "%s.sites", argv[i]);
			const char *sp = sites_file ? sites_file : path;
			if (!(sites = sites_load(sp, serr, sizeof serr)) &&
			    (mode == MODE_SITES || sites_file)) {
				complain("%s", serr);
				status = EXIT_DAMAGED;
				xsource_close(src);
				continue;
			}
			if (sites && sites_bad_lines(sites))
				complain("%zu lines not understood, skipped: '%s'", sites_bad_lines(sites), sp);
		}
		if (mode == MODE_DUMP)
			trace_info_dump(stdout, xsource_info(src));
		if (mode == MODE_MESSAGES && !(mv = msg_view_new(stdout, fmt)))
			die(EXIT_DAMAGED, "out of memory: '%s'", argv[i]);
		if (mode == MODE_DELAYS || mode == MODE_REQUESTS || mode == MODE_TRIPS || mode == MODE_SITES ||
		    mode == MODE_EVENTS) {
			sopt.only = conns.ids;
			sopt.n_only = conns.n;
			if (!(model = xstate_new(&sopt)))
				die(EXIT_DAMAGED, "out of memory: '%s'", argv[i]);
			if (mode == MODE_REQUESTS && !(rv = requests_view_new(model, per_conn)))
				die(EXIT_DAMAGED, "out of memory: '%s'", argv[i]);
			if (mode == MODE_TRIPS && !(tv = trips_view_new(model, stdout, fmt, sites)))
				die(EXIT_DAMAGED, "out of memory: '%s'", argv[i]);
			if (mode == MODE_EVENTS && !(ev = events_view_new(model, stdout, sites)))
				die(EXIT_DAMAGED, "out of memory: '%s'", argv[i]);
			if (mode == MODE_SITES && sites_view_attach(sites, model) < 0)
				die(EXIT_DAMAGED, "out of memory: '%s'", argv[i]);
		}
		int more;
		while ((more = xsource_next(src, &rec)) == 1) {
			if ((++nrec & 1023) == 0)
				progress_at(&meter, xsource_offset(src));
			/* The model narrows by itself, as it needs every packet's time. */
			if (!model && !conn_wanted(&conns, &rec))
				continue;
			switch (mode) {
			case MODE_DUMP: xrec_dump(stdout, &rec); break;
			case MODE_MESSAGES: msg_view_record(mv, &rec); break;
			case MODE_CONNECTIONS: account(&table, &rec); break;
			case MODE_PREDICT:
			case MODE_PREDICT_TRIPS:
			case MODE_ADDED:
				if (predict_record(pt, &rec) < 0)
					die(EXIT_DAMAGED, "out of memory: '%s'", argv[i]);
				break;
			default:
				if (sites && sites_record(sites, &rec) < 0)
					die(EXIT_DAMAGED, "out of memory: '%s'", argv[i]);
				if (xstate_record(model, &rec) < 0)
					die(EXIT_DAMAGED, "out of memory: '%s'", argv[i]);
				break;
			}
		}
		progress_end(&meter);
		if (more < 0)
			die(EXIT_DAMAGED, "cannot read on: %s", xsource_error(src));
		msg_view_finish(mv);
		if (pt) {
			int rc = predict_finish(pt);
			if (rc == 0 && mode == MODE_PREDICT)
				rc = predict_view_print(stdout, fmt, pt, rates, (size_t)nrates, delays,
							(size_t)ndelays);
			else if (rc == 0 && mode == MODE_PREDICT_TRIPS)
				rc = predict_trips_print(stdout, fmt, pt, rates, (size_t)nrates, delays,
							 (size_t)ndelays);
			else if (rc == 0)
				rc = added_delay_view_print(stdout, fmt, pt, rates, (size_t)nrates, trace_rate);
			if (rc < 0)
				die(EXIT_DAMAGED, "out of memory: '%s'", argv[i]);
			predict_free(pt);
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
			else
				trips_view_finish(tv, model);
			requests_view_free(rv);
			sites_free(sites);
			xstate_free(model);
		}
		if (xsource_problems(src))
			status = EXIT_DAMAGED;
		xsource_close(src);
		if (mode == MODE_CONNECTIONS) {
			print_connections(&table, fmt);
			table.n = 0;
		}
	}
	free(table.rows);
	free(conns.ids);
	if (fflush(stdout) != 0)
		die(EXIT_DAMAGED, "cannot write output: 'stdout'");
	return status;
}
