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
#include "grow.h"
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
#include "view.h"
#include "views.h"

const char program_name[] = "xcapanalyse";

enum { EXIT_OK = 0, EXIT_DAMAGED = 1, EXIT_USAGE = 2, EXIT_WORSE = 3 };

static void usage(FILE *f)
{
	fprintf(f,
"usage: xcapanalyse [VIEW] [--format FMT] [-j N] [--conn N,...] [--range T0:T1] FILE...\n"
"       xcapanalyse --predict|--predict-responses|--added-delay [--rates LIST] [--latencies LIST]\n"
"                   FILE...\n"
"\n"
"Read .xcap traces, .pcap or .pcapng captures and tell where the time went.\n"
"\n"
"Views (one; the first is the default):\n");
	/* The table of views (viewtable.c): each one's option and lines. */
	for (size_t i = 0; i < n_views; i++) {
		const char *h = views[i].help;
		size_t len = strlen(views[i].name) + 2;
		fprintf(f, "  --%s%*s", views[i].name, len <= 16 ? (int)(18 - len) : 2, "");
		for (const char *nl; (nl = strchr(h, '\n')); h = nl + 1)
			fprintf(f, "%.*s\n%20s", (int)(nl - h), h, "");
		fprintf(f, "%s\n", h);
	}
	fprintf(f,
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
"                    a line: file, table, then the columns), markdown or tsv\n"
"                    (tab-separated, unquoted, for a shell to read);\n"
"                    with several FILEs csv, tsv and json name each row's file\n"
"  -j, --jobs N      read N traces at a time, in as many processes; the\n"
"                    output still comes in the order of the FILEs\n"
"  --conn N,...      only these connections\n"
"  --range T0:T1     only time between T0 and T1 seconds after the first\n"
"                    packet (either may be left out)\n"
"  --decode NAME:PORT  in a capture (not a trace), decode connections to\n"
"                    server PORT as NAME (x11, rfb, wayland, waypipe), as\n"
"                    xcap --decode does; repeatable\n"
"  --sort COLUMN     a ranking view's rows by COLUMN, largest first\n"
"  --top N           a ranking view's first N rows only\n"
"  --capture-side S  auto (default: from the handshake, else client),\n"
"                    client or server: where the capture was taken\n"
"  --rtt MS          round trip time, instead of measuring it; --sites\n"
"                    costs each round trip at it (default 100)\n"
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
"  --release-ms MS   a release within MS (default 50) of its press is part\n"
"                    of the press: one input, the key or the click (0: a\n"
"                    release is an input of its own)\n"
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
"  --waypipe        predict a Wayland trace of xcap-run's relay carried by\n"
"                    waypipe over TCP: each write in a PROTOCOL block, each\n"
"                    shm commit with the buffer diff the trace says; with\n"
"                    --predict-responses, each input's response over it\n"
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
"  xcapanalyse --round-trips --sort wait --top 10 app.xcap   the ten longest waits\n"
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

/* ---- options ---- */

/* --conn: the connections to look at, none meaning all. */
struct conn_set {
	uint32_t *ids;
	size_t n, cap;
};

static void parse_conns(struct conn_set *cs, const char *arg)
{
	const char *p = arg;
	while (*p) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);
		if (end == p || v == 0 || v > UINT32_MAX || (*end && *end != ','))
			die(EXIT_USAGE, "bad connection list: '%s'", arg);
		if (GROW(cs->ids, cs->cap, cs->n + 1) < 0)
			die(EXIT_DAMAGED, "out of memory: 'connection list'");
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
	const struct view *view;
	struct view_options o;
	size_t ninputs;
	bool quiet;		/* no progress meter: several traces at once */
	struct pipeline_options decode;	/* --decode: decoders by port for captures */
};

/* A hook's failure ends the command; a trace it found wrong is damaged. */
static int hook(int rc, const struct view_trace *t)
{
	if (rc < 0) {
		if (t->err[0])
			die(EXIT_DAMAGED, "%s", t->err);
		die(EXIT_DAMAGED, "out of memory: '%s'", t->path);
	}
	return rc;
}

/* The call sites: xcap-run writes them beside the trace.  -1 when the
   view cannot go without and they are not there. */
static int load_sites(struct view_trace *t, unsigned needs)
{
	char beside[4096], serr[1024];
	snprintf(beside, sizeof beside, "%s.sites", t->path);
	const char *sp = t->o->sites_file ? t->o->sites_file : beside;
	if (!(t->sites = sites_load(sp, serr, sizeof serr)) &&
	    ((needs & VIEW_SITES_NEEDED) || t->o->sites_file)) {
		complain("%s", serr);
		return -1;
	}
	if (t->sites && sites_resolve_sources(t->sites) < 0)
		die(EXIT_DAMAGED, "out of memory: '%s'", sp);
	if (t->sites && sites_bad_lines(t->sites))
		complain("%zu lines not understood, skipped: '%s'", sites_bad_lines(t->sites), sp);
	return 0;
}

/* What a trace held, for saying when the options asked for what it has
   not: nothing silent, no table of zeros taken for a result. */
struct held {
	uint64_t first, last;	/* the records' times, 0: none */
	uint32_t conns;		/* the highest connection number (they go 1, 2, ...) */
	uint32_t decoded;	/* connections a decoder took (X11, RFB) */
};

static void held_record(struct held *h, const struct xrec *rec)
{
	uint64_t ts = xrec_time(rec);
	if (ts && rec->type != XREC_STATS) {
		if (!h->first || ts < h->first)
			h->first = ts;
		if (ts > h->last)
			h->last = ts;
	}
	if (rec->type == XREC_CONN) {
		if (rec->u.conn.id > h->conns)
			h->conns = rec->u.conn.id;
		h->decoded += rec->u.conn.proto && rec->u.conn.proto[0];
	}
}

/* One line on stderr and status 1 when the trace had nothing the options
   could show; 0 otherwise. */
static int held_enough(const struct held *h, const struct run *r, const char *path)
{
	if (!h->decoded) {
		complain("no X11, RFB or Wayland connection in the capture (%u TCP %s, none of them "
			 "decoded; X11 is on port 6000+N for display :N, RFB on 5900+N; waypipe and "
			 "Wayland are known by their first bytes or by xcap --decode; a display on a "
			 "Unix socket is not captured): '%s'", h->conns, h->conns == 1 ? "connection" : "connections",
			 path);
		return EXIT_DAMAGED;
	}
	for (size_t i = 0; i < r->o.nconns; i++)
		if (r->o.conns[i] > h->conns) {
			complain("no connection %u in the capture (it has %u; xcapanalyse --connections "
				 "lists them): '%s'", r->o.conns[i], h->conns, path);
			return EXIT_DAMAGED;
		}
	const struct xstate_options *so = &r->o.sopt;
	uint64_t span = h->last - h->first;
	if (so->range_start > span) {
		char to[32] = "";
		if (so->range_end != UINT64_MAX)
			snprintf(to, sizeof to, "%.6g", (double)so->range_end / 1e9);
		complain("nothing in the range %.6g:%s (the capture spans 0:%.6f s): '%s'",
			 (double)so->range_start / 1e9, to, (double)span / 1e9, path);
		return EXIT_DAMAGED;
	}
	return EXIT_OK;
}

/* Read one trace and print its view; the exit status it deserves.  index
   is its place among the inputs. */
static int analyse(const struct run *r, const char *path, size_t index)
{
	const struct view *v = r->view;
	enum out_format fmt = r->o.fmt;
	bool all_traces = v->needs & VIEW_ALL_TRACES;
	char err[1024];
	/* A capture with payload: the compressed sizes are measured as it
	   is read, as xcap --compressed-sizes would. */
	struct pipeline_options pipe;
	pipeline_default_options(&pipe);
	pipe.compressed_sizes = (v->takes & TAKES_SSH) && r->o.popt.ssh_compression;
	memcpy(pipe.ports, r->decode.ports, sizeof pipe.ports);
	pipe.nports = r->decode.nports;
	struct xsource *src = xsource_open(path, NULL, &pipe, err, sizeof err);
	if (!src) {
		/* A comparison without one of its runs would name the others wrongly. */
		if (all_traces)
			die(EXIT_DAMAGED, "%s", err);
		complain("%s", err);
		return EXIT_DAMAGED;
	}
	/* A view of every trace names them in its own columns. */
	if (!all_traces) {
		if (r->ninputs > 1)
			out_file_heading(stdout, fmt, path, index);
		out_set_source(path, r->ninputs > 1 || fmt == OUT_NDJSON, index == 0);
	}
	xsource_on_warning(src, warn_cb, NULL);
	/* The views that print as they read keep a terminal to themselves. */
	progress_begin(&meter, program_name, path, r->quiet || (v->needs & VIEW_PRINTS_AS_READ));
	struct view_trace t = { .o = &r->o, .path = path, .index = index, .out = stdout, .src = src };
	if ((v->needs & VIEW_SITES) && load_sites(&t, v->needs) < 0) {
		xsource_close(src);
		return EXIT_DAMAGED;
	}
	if (v->needs & VIEW_MODEL) {
		struct xstate_options so = r->o.sopt;
		so.only = r->o.conns;
		so.n_only = r->o.nconns;
		if (!(t.model = xstate_new(&so)))
			die(EXIT_DAMAGED, "out of memory: '%s'", path);
	}
	if (v->begin)
		hook(v->begin(&t), &t);
	/* The model narrows by --conn itself, as it needs every packet's time. */
	bool every = v->needs & (VIEW_MODEL | VIEW_EVERY_RECORD);
	unsigned long nrec = 0;
	struct xrec rec;
	struct held held = { 0 };
	int more;
	while ((more = xsource_next(src, &rec)) == 1) {
		if ((++nrec & 1023) == 0)
			progress_at(&meter, xsource_offset(src));
		held_record(&held, &rec);
		if (!t.first_pkt && rec.type == XREC_PKT)
			t.first_pkt = rec.u.pkt.ts;
		if (!every && !view_wants(&t, &rec))
			continue;
		if (t.sites && sites_record(t.sites, &rec) < 0)
			die(EXIT_DAMAGED, "out of memory: '%s'", path);
		if (t.model && xstate_record(t.model, &rec) < 0)
			die(EXIT_DAMAGED, "out of memory: '%s'", path);
		if (v->record)
			hook(v->record(&t, &rec), &t);
	}
	progress_end(&meter);
	if (more < 0)
		die(EXIT_DAMAGED, "cannot read on: %s", xsource_error(src));
	if (t.model)
		xstate_finish(t.model);
	int status = v->finish && hook(v->finish(&t), &t) ? EXIT_DAMAGED :
		     xsource_problems(src) ? EXIT_DAMAGED : EXIT_OK;
	/* Said after the view, so that what it printed is not taken for the
	   message's subject; a damaged trace has said why already. */
	if (status == EXIT_OK)
		status = held_enough(&held, r, path);
	sites_free(t.sites);
	xstate_free(t.model);
	xsource_close(src);
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
		int st = analyse(r, paths[i], i);
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
			if (analyse(r, paths[printed], printed) != EXIT_OK)
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
	const struct view *view = NULL;
	enum out_format fmt = OUT_TEXT;
	struct conn_set conns = { 0 };
	bool per_conn = false;
	struct xstate_options sopt;
	xstate_options_default(&sopt);
	enum { OPT_CONN = 256, OPT_RANGE, OPT_SIDE, OPT_RTT, OPT_SLACK, OPT_FRACTION, OPT_MIN_FLIGHT, OPT_NO_BACKLOG, OPT_PER_CONN,
	       OPT_WAIT_ON, OPT_SPLIT_FRACTION, OPT_SPLIT_MIN, OPT_SPLIT_MAX, OPT_SITES_FILE,
	       OPT_QUIET, OPT_FIRST, OPT_SYNTHETIC, OPT_NO_FOLD, OPT_RELEASE,
	       OPT_FAIL_IF_WORSE, OPT_RATES, OPT_DELAYS, OPT_MSS,
	       OPT_IW, OPT_NO_IDLE, OPT_TRACE_RATE, OPT_DILATION, OPT_MARK_SPAN,
	       OPT_IDEAL_FPS, OPT_SLOW_MOTION, OPT_SLOW_MOTION_FPS, OPT_SSH_COMPRESSION, OPT_WAYPIPE,
	       OPT_SSH_FORWARD, OPT_WAKE, OPT_SORT, OPT_TOP, OPT_DECODE, OPT_VIEW /* + the view's place in the table */ };
	/* The options only some views take that were given (TAKES_*), each
	   by the name it was given under. */
	unsigned given = 0;
	const char *given_as[TAKES_N] = { NULL };
	const char *sort = NULL;
	size_t top = 0;
	struct compare_gate gates[64];
	size_t n_gates = 0;
	struct xresp_options ropt;
	xresp_options_default(&ropt);
	struct updates_options uopt = { .to = UINT64_MAX };
	char *mark_span = NULL;
	const char *sites_file = NULL;
	size_t njobs = 1;
	struct predict_options popt;
	struct pipeline_options decode;
	pipeline_default_options(&decode);
	bool ssh_forward_set = false;
	predict_options_default(&popt);
	uint64_t rates[64], delays[64], trace_rate = 0;
	int nrates = predict_parse_rates("100M,10M,1M,100k,10k", rates, 64);
	int ndelays = predict_parse_delays("0.1,1,10,100", delays, 64);
	static const struct option options[] = {
		{ "per-conn", no_argument, NULL, OPT_PER_CONN },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "sites-file", required_argument, NULL, OPT_SITES_FILE },
		{ "fail-if-worse", required_argument, NULL, OPT_FAIL_IF_WORSE },
		{ "quiet-ms", required_argument, NULL, OPT_QUIET },
		{ "mark-span", required_argument, NULL, OPT_MARK_SPAN },
		{ "ideal-fps", required_argument, NULL, OPT_IDEAL_FPS },
		{ "slow-motion", required_argument, NULL, OPT_SLOW_MOTION },
		{ "slow-motion-fps", required_argument, NULL, OPT_SLOW_MOTION_FPS },
		{ "first-ms", required_argument, NULL, OPT_FIRST },
		{ "synthetic-inputs", no_argument, NULL, OPT_SYNTHETIC },
		{ "no-fold-motion", no_argument, NULL, OPT_NO_FOLD },
		{ "release-ms", required_argument, NULL, OPT_RELEASE },
		{ "format", required_argument, NULL, 'f' },
		{ "conn", required_argument, NULL, OPT_CONN },
		{ "decode", required_argument, NULL, OPT_DECODE },
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
		{ "rates", required_argument, NULL, OPT_RATES },
		{ "latencies", required_argument, NULL, OPT_DELAYS },
		{ "mss", required_argument, NULL, OPT_MSS },
		{ "initial-window", required_argument, NULL, OPT_IW },
		{ "no-idle-restart", no_argument, NULL, OPT_NO_IDLE },
		{ "trace-rate", required_argument, NULL, OPT_TRACE_RATE },
		{ "time-dilation", required_argument, NULL, OPT_DILATION },
		{ "ssh-compression", no_argument, NULL, OPT_SSH_COMPRESSION },
		{ "waypipe", no_argument, NULL, OPT_WAYPIPE },
		{ "ssh-forward-time", required_argument, NULL, OPT_SSH_FORWARD },
		{ "wake-time", required_argument, NULL, OPT_WAKE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
	};
	/* The views' options come from their table. */
	enum { N_OPTIONS = sizeof options / sizeof options[0] };
	struct option *longopts = calloc(N_OPTIONS + n_views + 1, sizeof *longopts);
	if (!longopts)
		die(EXIT_DAMAGED, "out of memory: '%s'", "options");
	memcpy(longopts, options, sizeof options);
	for (size_t i = 0; i < n_views; i++)
		longopts[N_OPTIONS + i] = (struct option){ views[i].name, no_argument, NULL,
							   OPT_VIEW + (int)i };
	int opt;
	while ((opt = getopt_long(argc, argv, "hVj:", longopts, NULL)) != -1) {
		if (opt >= OPT_VIEW && opt < OPT_VIEW + (int)n_views) {
			const struct view *v = &views[opt - OPT_VIEW];
			if (view && view != v)
				die(EXIT_USAGE, "--%s and --%s are two views: choose one: '--%s'",
				    view->name, v->name, v->name);
			view = v;
			continue;
		}
		switch (opt) {
		case OPT_SITES_FILE: sites_file = optarg; break;
		case OPT_SORT:
		case OPT_TOP:
			if (opt == OPT_SORT) {
				sort = optarg;
			} else {
				char *end;
				unsigned long n = strtoul(optarg, &end, 10);
				if (end == optarg || *end || n == 0 || n > 1000000000)
					die(EXIT_USAGE, "bad row count, want a number above 0: '%s'", optarg);
				top = n;
			}
			given |= TAKES_RANK;
			given_as[4] = opt == OPT_SORT ? "--sort" : "--top";
			break;
		case OPT_FAIL_IF_WORSE: {
			char err[512];
			size_t got;
			if (compare_gate_parse(optarg, gates + n_gates, sizeof gates / sizeof gates[0] - n_gates,
					       &got, err, sizeof err) < 0)
				die(EXIT_USAGE, "%s", err);
			n_gates += got;
			given |= TAKES_GATE;
			given_as[0] = "--fail-if-worse";
			break;
		}
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
			given |= TAKES_VIDEO;
			given_as[3] = "--mark-span";
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
			given |= TAKES_VIDEO;
			given_as[3] = opt == OPT_IDEAL_FPS ? "--ideal-fps" : "--slow-motion-fps";
			break;
		}
		case OPT_SLOW_MOTION:
			uopt.reference = optarg;
			given |= TAKES_VIDEO;
			given_as[3] = "--slow-motion";
			break;
		case OPT_QUIET:
			ropt.quiet = parse_ms(optarg, "quiet period");
			if (!ropt.quiet)
				die(EXIT_USAGE, "bad quiet period, want more than 0 ms: '%s'", optarg);
			break;
		case OPT_FIRST: ropt.first = parse_ms(optarg, "first response wait"); break;
		case OPT_SYNTHETIC: ropt.synthetic = true; break;
		case OPT_NO_FOLD: ropt.fold_motion = false; break;
		case OPT_RELEASE: ropt.release_within = parse_ms(optarg, "release time"); break;
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
		case OPT_SSH_COMPRESSION:
			popt.ssh_compression = true;
			given |= TAKES_SSH;
			given_as[1] = "--ssh-compression";
			break;
		case OPT_WAYPIPE:
			popt.waypipe = true;
			given |= TAKES_SSH;
			given_as[1] = "--waypipe";
			break;
		case OPT_SSH_FORWARD:
			popt.ssh_forward = parse_ms(optarg, "ssh forwarding time");
			ssh_forward_set = true;
			break;
		case OPT_WAKE:
			popt.wake = parse_ms(optarg, "wake-up time");
			given |= TAKES_WAKE;
			given_as[2] = "--wake-time";
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
				die(EXIT_USAGE, "unknown format, want text, csv, json, ndjson, markdown or tsv: '%s'",
				    optarg);
			fmt = (enum out_format)f;
			break;
		}
		case OPT_CONN: parse_conns(&conns, optarg); break;
		case OPT_DECODE: {
			char err[160];
			if (pipeline_add_decode(&decode, optarg, err, sizeof err) < 0)
				die(EXIT_USAGE, "%s", err);
			break;
		}
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
		case 'h': usage(stdout); free(longopts); return EXIT_OK;
		case 'V': printf("xcapanalyse %s\n", PACKAGE_VERSION); free(longopts); return EXIT_OK;
		default: usage(stderr); free(longopts); return EXIT_USAGE;
		}
	}
	free(longopts);	/* getopt's alone: every return below is free of it */
	if (optind >= argc) {
		complain("no input given: 'FILE...'");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!view)
		view = &views[0];
	if (fmt == OUT_MARKDOWN && (view->needs & VIEW_NOT_MARKDOWN))
		die(EXIT_USAGE, "markdown is for the tables, not this view: '--%s'", view->name);
	if (fmt != OUT_TEXT && (view->needs & VIEW_OWN_FORMAT))
		die(EXIT_USAGE, "--format is for the tables; this view writes a format of its own: '--%s'",
		    view->name);
	/* An option of other views: name them. */
	for (int k = 0; k < TAKES_N; k++) {
		if (!(given & ~view->takes & (1u << k)))
			continue;
		char takers[256] = "";
		size_t at = 0, n = 0;
		for (size_t i = 0; i < n_views; i++)
			if (views[i].takes & (1u << k))
				n++;
		for (size_t i = 0, seen = 0; i < n_views && at < sizeof takers; i++)
			if (views[i].takes & (1u << k))
				at += (size_t)snprintf(takers + at, sizeof takers - at, "%s--%s",
						       !seen++ ? "" : seen == n ? " or " : ", ",
						       views[i].name);
		die(EXIT_USAGE, "%s is an option of %s, not of --%s: '%s'", given_as[k], takers,
		    view->name, given_as[k]);
	}
	if (uopt.reference && !(uopt.reference_fps > 0 && uopt.ideal_fps > 0))
		die(EXIT_USAGE, "a slow-motion run wants its frame rate and the ideal one: '%s'",
		    "--slow-motion-fps, --ideal-fps");
	if (uopt.reference_fps > 0 && !uopt.reference)
		die(EXIT_USAGE, "a slow-motion frame rate wants the slow-motion run: '%s'",
		    "--slow-motion");
	if (popt.waypipe && popt.ssh_compression)
		die(EXIT_USAGE, "one transport at a time, waypipe or ssh: '%s'", "--waypipe");
	if (ssh_forward_set && !popt.ssh_compression)
		die(EXIT_USAGE, "--ssh-forward-time is the tunnel's, it wants --ssh-compression: '%s'",
		    argv[optind]);
	size_t ninputs = (size_t)(argc - optind);
	if ((view->min_traces && ninputs < view->min_traces) ||
	    (view->max_traces && ninputs > view->max_traces))
		die(EXIT_USAGE, "--%s wants %zu to %zu files: '%s'", view->name, view->min_traces,
		    view->max_traces, argv[optind]);

	struct run run = {
		.view = view,
		.o = {
			.fmt = fmt, .conns = conns.ids, .nconns = conns.n, .per_conn = per_conn,
			.sopt = sopt, .sites_file = sites_file, .ropt = ropt, .popt = popt,
			.rates = rates, .delays = delays, .nrates = (size_t)nrates,
			.ndelays = (size_t)ndelays, .trace_rate = trace_rate, .uopt = uopt,
			.gates = gates, .ngates = n_gates,
		},
		.ninputs = ninputs,
		.decode = decode,
		/* A view of every trace holds them until it prints: one process. */
		.quiet = njobs > 1 && ninputs > 1 && !(view->needs & VIEW_ALL_TRACES),
	};
	out_set_ranking(sort, top);
	int status = EXIT_OK;
	if (run.quiet)
		status = analyse_parallel(&run, argv + optind, run.ninputs, njobs);
	else
		for (int i = optind; i < argc; i++)
			if (analyse(&run, argv[i], (size_t)(i - optind)) != EXIT_OK)
				status = EXIT_DAMAGED;
	if (view->end)
		status = view->end(&run.o, status);
	if (out_ranking_problem())
		die(EXIT_USAGE, "bad --sort: %s: '%s'", out_ranking_problem(), sort);
	free(conns.ids);
	free(mark_span);
	if (fflush(stdout) != 0)
		die(EXIT_DAMAGED, "cannot write output: 'stdout'");
	return status;
}
