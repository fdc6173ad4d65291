/*
 * xcap — capture X traffic beside a client and write a compact trace.
 *
 * Live and offline input share everything after pcap hands over a frame:
 * the pipeline (decode, connections, reassembly, protocol decoders) and
 * the trace writer.  The capture keeps up by writing small records
 * instead of whole packets, so it asks the kernel for full payloads
 * (decoders need them) but writes a few dozen bytes per packet.
 *
 * Belongs to: the xcap command's room (xcap/cmd/xcap/).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "clock.h"
#include "cut.h"
#include "flight.h"
#include "ring.h"
#include "conns.h"
#include "decode.h"
#include "grow.h"
#include "dump.h"
#include "pcapfile.h"
#include "pipeline.h"
#include "protocol.h"
#include "response_model.h"
#include "trace.h"
#include "traceidx.h"
#include "units.h"
#include "report.h"

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif

const char program_name[] = "xcap";
#define DEFAULT_FILTER "tcp portrange 6000-6063 or tcp portrange 5900-5999 or tcp port 5500"
#define SNAPLEN 262144
#define FLUSH_EVERY_NS 1000000000ull	/* a killed capture loses at most this much */
#define COALESCE_NS 5000000L		/* the least time between two reads of the ring */

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

static void usage(FILE *f)
{
	fprintf(f,
"usage: xcap [-i IFACE | -r FILE] -w OUT [-c COUNT] [-G SECONDS] [-C MB]\n"
"            [-W COUNT] [-B KIB] [-Z USER] [-k] [-p] [-q]\n"
"            [--compressed-sizes] [--ring SECONDS|SIZE] [--before SECONDS]\n"
"            [--after SECONDS] [--trigger WHAT]... [--no-index]\n"
"            [--decode NAME:PORT]... [FILTER...]\n"
"\n"
"Capture TCP beside an X client and write an xcap trace (see xcap(5)).\n"
"\n"
"  -i IFACE    capture live on IFACE (\"any\" for all interfaces)\n"
"  -r FILE     read a .pcap or .pcapng capture instead (\"-\" for stdin)\n"
"  -w OUT      write the trace to OUT (\"-\" for stdout)\n"
"  -c COUNT    stop after COUNT packets\n"
"  -G SECONDS  start a new trace file every SECONDS (or 10m, 1h); OUT is a\n"
"              strftime pattern, or gets -YYYYmmdd-HHMMSS before its extension\n"
"  -C MB       start a new trace file once one passes MB million bytes:\n"
"              OUT gets -0, -1, ... before its extension\n"
"  -W COUNT    with -C, a ring of COUNT files, the oldest overwritten;\n"
"              with -G, stop after COUNT files; with --ring, keep the\n"
"              last COUNT windows\n"
"  -B KIB      kernel capture buffer in KiB (default 65536)\n"
"  -Z USER     drop privileges to USER once the capture is open\n"
"  -k          keep every packet whole (live: by default the kernel keeps\n"
"              only the headers of packets inside large X11 messages)\n"
"  -p          do not put the interface into promiscuous mode\n"
"  -q          do not print the summary at the end\n"
"  --compressed-sizes  also record what each segment's payload takes in an\n"
"              ssh -C tunnel (deflate level 6, a partial flush a segment),\n"
"              for xcapanalyse's prediction of such a tunnel; keeps packets\n"
"              whole (-k) and costs a deflate of every byte\n"
"  --ring SECONDS|SIZE  flight recorder: keep the last SECONDS (30, 500ms,\n"
"              2m) or SIZE (64M, 1G) of records in memory and write only\n"
"              windows around triggers, one file per window named as -G\n"
"              names them; give it twice to bound both\n"
"  --before SECONDS  a window begins this long before its trigger (default:\n"
"              the ring's time, else 10)\n"
"  --after SECONDS   and ends this long after its last trigger (default 10)\n"
"  --trigger WHAT    also trigger (and mark) on: request=NAME[:TEXT],\n"
"              event=NAME[:TEXT] (TEXT in the message's detail or the\n"
"              client's name), wait>DURATION (a reply that long after its\n"
"              request), response>DURATION (an input answered that slowly,\n"
"              the window from before the input); repeatable.  SIGUSR2\n"
"              and a client's XCAP_MARK_<text> atom or XCAP_MARK property\n"
"              always mark and trigger\n"
"  --no-index  write only the trace: no side index OUT.idx (netplot builds\n"
"              one when it opens a huge trace without it)\n"
"  --decode NAME:PORT  decode connections to server PORT as NAME (x11, rfb,\n"
"              wayland, waypipe), for a capture begun after a connection's\n"
"              first bytes (waypipe and Wayland have no port of their own,\n"
"              and are otherwise known by those bytes); repeatable\n"
"  FILTER      BPF filter (live default: " DEFAULT_FILTER ";\n"
"              none when reading a file)\n"
"  -h, --help  show this help;  -V, --version  show the version\n"
"\n"
"SIGINT and SIGTERM end the capture cleanly, SIGUSR1 prints a status line,\n"
"SIGUSR2 writes a mark (and with --ring triggers a window).\n"
"Exit status: 0 success, 1 capture or write failure, 2 usage error.\n"
"\n"
"Examples:\n"
"  xcap -i lo -w app.xcap tcp port 6001    X display :1 over loopback (DISPLAY=127.0.0.1:1)\n"
"  xcap -r session.pcapng -w session.xcap  convert a tcpdump or Wireshark capture\n"
"  xcap -i lo --compressed-sizes -w app.xcap tcp port 6001\n"
"              the same as the first, ready to predict an ssh -C tunnel\n"
"  xcap -i eth0 -G 600 -w 'x-%%H%%M.xcap'     a new file every ten minutes\n"
"  xcap -i lo --ring 60 --after 5 --trigger 'wait>200ms' -w slow.xcap\n"
"              keep a minute in memory, write it and 5 s more around each\n"
"              round trip over 200 ms (and each SIGUSR2 or client mark)\n"
"  xcap -r waypipe.pcap --decode waypipe:7400 -w waypipe.xcap\n"
"              waypipe carried over TCP port 7400, captured mid-connection\n"
"  xcap -i lo --ring 60 --trigger 'response>150ms' -w slow-input.xcap\n"
"              write the windows around inputs answered after 150 ms\n"
"More in man xcap-tutorial: from a slow ssh -X application to the round trip to fix.\n");
}

/* ---- signals: only flags here, the loop does the work ---- */

/* The ring's block timeout: how long a packet may wait in the kernel
   before xcap sees it, and so how long the end of a capture waits. */
enum { BLOCK_TIMEOUT_MS = 200 };

static volatile sig_atomic_t stop_requested, status_requested, mark_requested;
static pcap_t *live_handle;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
	if (live_handle)
		pcap_breakloop(live_handle);
}

static void on_status(int sig)
{
	(void)sig;
	status_requested = 1;
	if (live_handle)
		pcap_breakloop(live_handle);
}

static void on_mark(int sig)
{
	(void)sig;
	mark_requested = 1;
	if (live_handle)
		pcap_breakloop(live_handle);
}

/* ---- triggers ---- */

enum trigger_kind { TRIGGER_REQUEST, TRIGGER_EVENT, TRIGGER_WAIT, TRIGGER_RESPONSE };

struct trigger {
	enum trigger_kind kind;
	char name[64];		/* the message's name */
	char text[128];		/* in its detail or its client's name; "" any */
	uint64_t wait_ns;	/* wait> and response>: the threshold */
};

/* The last name each connection gave (WM_CLASS, WM_NAME), which a
   trigger's TEXT may match. */
struct client_label {
	char text[128];
};

/* ---- the capture ---- */

struct capture {
	pcap_t *pcap;		/* live */
	struct pcapfile *file;	/* offline */
	FILE *rfile;
	int live;
	int dlt;
	int ts_nano;
	const char *out_pattern;
	FILE *out;
	struct trace_writer *w;
	struct trace_info info;
	struct pipeline *pipe;
	struct cut *cut;	/* live: the kernel leaves out what decoding skips */
	struct pipeline_cutter cut_hook;	/* cut, as the pipeline calls it */
	uint64_t count_limit;	/* 0: no limit */
	uint64_t seen;
	uint64_t rotate_ns;	/* 0: one file */
	uint64_t file_start_ns;
	bool open_at_first;	/* -r with -G: the first file opens at the first packet's time */
	uint64_t size_limit;	/* -C: a new file past this many bytes, 0 none */
	unsigned file_count;	/* -W: how many files, 0 no limit */
	unsigned files_opened;
	unsigned size_checks;
	bool cuts_files;	/* open_at_first, rotate_ns or size_limit: files_before has work */
	char **kept_windows;	/* --ring with -W: the names of the last windows */
	uint64_t last_flush_ns;
	uint64_t last_read_ns;	/* live: when the ring was last read */
	uint64_t last_ts;
	int quiet;
	int write_failed;
	int pipe_failed;	/* the pipeline failed (pipeline_error): stop */
	struct flight *flight;	/* --ring: records go through it */
	struct trigger *triggers;
	size_t n_triggers, cap_triggers;
	struct xconns labels;	/* of struct client_label */
	/* --trigger response>: the response model (xcap/response_model.h),
	   the smallest threshold, and the time of what it is told of now */
	struct xresp_model *resp;
	uint64_t resp_over_ns;
	uint64_t resp_now;
	unsigned windows_written;
	char out_name[PATH_MAX];
	/* Each trace file's side index (a rotated piece's and a window's
	   too), written beside it when it is closed, so that netplot opens
	   a huge capture without a pass over it: the records go to the
	   index as they are written, and closing adds one write of about
	   1.3 bytes a packet (unless --no-index). */
	bool want_index;
	struct xidx *ix;
	/* For saying when nothing of use was captured: TCP connections seen,
	   and those a decoder took (X11, RFB). */
	unsigned conns, decoded;
};

/* A record to the trace file open now. */
static __attribute__((noinline)) void write_stopped(struct capture *cap)
{
	cap->write_failed = 1;
	if (cap->pcap)
		pcap_breakloop(cap->pcap);
}

static __attribute__((noinline)) void index_record(struct capture *cap, const struct xrec *rec)
{
	/* Out of memory for the index: the trace goes on without one
	   (netplot builds it when it needs it). */
	if (xidx_record(cap->ix, rec, trace_writer_block_offset(cap->w)) < 0) {
		complain("out of memory, no index written: '%s.idx'", cap->out_name);
		xidx_free(cap->ix);
		cap->ix = NULL;
	}
}

/* Inline, its rare paths out of line: it runs twice a packet on a
   capture cut to its snap length. */
static inline void write_record(struct capture *cap, const struct xrec *rec)
{
	if (cap->write_failed || !cap->w)
		return;
	if (trace_writer_put(cap->w, rec) < 0) {
		write_stopped(cap);
		return;
	}
	if (cap->ix)
		index_record(cap, rec);
}

static void flight_failed(struct capture *cap)
{
	cap->write_failed = 1;
	if (cap->pcap)
		pcap_breakloop(cap->pcap);
}

/* A record of the capture: to the trace, or through the flight recorder. */
static void record(struct capture *cap, const struct xrec *rec)
{
	if (!cap->flight)
		write_record(cap, rec);
	else if (flight_put(cap->flight, rec) < 0)
		flight_failed(cap);
}

/* Something worth marking happened: write the mark, and with --ring open
   (or extend) a window around it whose start says why.  from: when it
   began, the window's start being --before ahead of it (ts for what
   happens at once). */
static void mark_and_trigger_from(struct capture *cap, uint64_t from, uint64_t ts, uint32_t conn,
				  uint8_t source, const char *text, int mark_written)
{
	if (!mark_written) {
		struct xrec m = { .type = XREC_MARK };
		m.u.mark = (struct xrec_mark){ ts, conn, source, text };
		record(cap, &m);
	}
	if (!cap->flight)
		return;
	char why[XMARK_TEXT_MAX + 64];
	if (conn)
		snprintf(why, sizeof why, "%s %s (connection %u)", xmark_source_name(source),
			 text, conn);
	else
		snprintf(why, sizeof why, "%s %s", xmark_source_name(source), text);
	if (flight_trigger_from(cap->flight, from, ts, why) < 0)
		flight_failed(cap);
}

static void mark_and_trigger(struct capture *cap, uint64_t ts, uint32_t conn, uint8_t source,
			     const char *text, int mark_written)
{
	mark_and_trigger_from(cap, ts, ts, conn, source, text, mark_written);
}

/* A response closed (the model's callback): one slower than the
   threshold marks and triggers, its window beginning before the input. */
static void on_response(void *ctx, const struct xresponse *r)
{
	struct capture *cap = ctx;
	if ((r->flags & XRESP_F_NO_RESPONSE) || r->response <= cap->resp_over_ns)
		return;
	char text[XMARK_TEXT_MAX];
	/* An uncertain response still opens a window (a slow one must not be
	   missed for a lost segment), but its mark does not state it as a
	   fact: xcapanalyse --responses counts it only as uncertain. */
	snprintf(text, sizeof text, "%.3f ms to %s%s%s at %llu.%09llu%s", (double)r->response / 1e6,
		 xinput_kind_name(r->kind), r->what[0] ? " " : "", r->what,
		 (unsigned long long)(r->input_ts / 1000000000u),
		 (unsigned long long)(r->input_ts % 1000000000u),
		 (r->flags & XRESP_F_UNCERTAIN) ? " (uncertain: bytes lost or framing guessed inside it)"
						: "");
	/* It is known only now, a quiet period after it ended: the mark
	   goes here, so that the trace stays in time order. */
	uint64_t ts = cap->resp_now > r->end_ts ? cap->resp_now : r->end_ts;
	mark_and_trigger_from(cap, r->input_ts, ts, r->conn, XMARK_RESPONSE, text, 0);
}

/* The response model hears a record, or the clock (rec NULL). */
static void responses_hear(struct capture *cap, const struct xrec *rec, uint64_t now)
{
	if (!cap->resp)
		return;
	cap->resp_now = now;
	if (!rec) {
		xresp_tick(cap->resp, now);
	} else if (xresp_record(cap->resp, rec) < 0) {
		complain("out of memory: 'responses'; response triggers stop");
		xresp_free(cap->resp);
		cap->resp = NULL;
	}
}

static const char *label_of(const struct capture *cap, uint32_t conn)
{
	const struct client_label *l = xconns_get(&cap->labels, conn);
	return l ? l->text : "";
}

static void learn_label(struct capture *cap, const struct xrec_name *n)
{
	if (strcmp(n->source, "WM_CLASS") != 0 && strcmp(n->source, "WM_NAME") != 0)
		return;
	struct client_label *l = xconns_add(&cap->labels, n->conn);
	if (!l)
		return;		/* the label is only for matching: go without */
	snprintf(l->text, sizeof l->text, "%s", n->text);
}

/* Triggers a record fires: after the record, so that a window holds it.
   Out of line: emit asks only for marks, names and, with triggers,
   messages. */
static __attribute__((noinline)) void check_triggers(struct capture *cap, const struct xrec *rec)
{
	if (rec->type == XREC_MARK) {
		if (rec->u.mark.source == XMARK_ATOM || rec->u.mark.source == XMARK_PROPERTY)
			mark_and_trigger(cap, rec->u.mark.ts, rec->u.mark.conn, rec->u.mark.source,
					 rec->u.mark.text, 1);
		return;
	}
	if (rec->type == XREC_NAME) {
		learn_label(cap, &rec->u.name);
		return;
	}
	if (rec->type != XREC_MSG || !cap->n_triggers)
		return;
	const struct xrec_msg *m = &rec->u.msg;
	for (size_t i = 0; i < cap->n_triggers; i++) {
		const struct trigger *t = &cap->triggers[i];
		char text[XMARK_TEXT_MAX];
		if (t->kind == TRIGGER_WAIT) {
			if ((m->kind != XMSG_REPLY && m->kind != XMSG_ERROR) || !m->req_ts ||
			    m->ts <= m->req_ts || m->ts - m->req_ts <= t->wait_ns)
				continue;
			snprintf(text, sizeof text, "%s waited %.3f ms", m->name && *m->name ? m->name : "?",
				 (double)(m->ts - m->req_ts) / 1e6);
			mark_and_trigger(cap, m->ts, m->conn, XMARK_ROUND_TRIP, text, 0);
			return;
		}
		int want_kind = t->kind == TRIGGER_REQUEST ? XMSG_REQUEST : XMSG_EVENT;
		if (m->kind != want_kind || !m->name || strcmp(m->name, t->name) != 0)
			continue;
		if (t->text[0] && !(m->detail && strstr(m->detail, t->text)) &&
		    !strstr(label_of(cap, m->conn), t->text))
			continue;
		snprintf(text, sizeof text, "%s=%s%s%s", t->kind == TRIGGER_REQUEST ? "request" : "event",
			 t->name, t->text[0] ? ":" : "", t->text);
		mark_and_trigger(cap, m->ts, m->conn, XMARK_MATCH, text, 0);
		return;
	}
}

static void emit(void *ctx, const struct xrec *rec)
{
	struct capture *cap = ctx;
	if (rec->type == XREC_CONN) {
		cap->conns++;
		cap->decoded += rec->u.conn.proto && rec->u.conn.proto[0];
	}
	if (cap->write_failed)
		return;
	record(cap, rec);
	if (rec->type == XREC_MARK || rec->type == XREC_NAME ||
	    (rec->type == XREC_MSG && cap->n_triggers))
		check_triggers(cap, rec);
	if (cap->resp)		/* the record's time only then: a switch on its type */
		responses_hear(cap, rec, xrec_time(rec));
}

/* emit without the flight recorder and the response model: a pkt record,
   nearly all of a trace's, straight to the trace (it counts no
   connection and fires no trigger), skipping emit's tests of the type. */
static void emit_to_trace(void *ctx, const struct xrec *rec)
{
	if (rec->type == XREC_PKT)
		write_record(ctx, rec);
	else
		emit(ctx, rec);
}

/* emit for the flight recorder or the response model, which take records
   one by one: a pkt record with its snaplen gap inside (xrec_pkt.cut) as
   the two records it stands for.  (The trace writer takes it as it is,
   its format saying the cut the same way, and the index has no use for a
   gap: without either of those two, emit alone.) */
static void emit_cuts_apart(void *ctx, const struct xrec *rec)
{
	if (rec->type != XREC_PKT || !rec->u.pkt.cut) {
		emit(ctx, rec);
		return;
	}
	struct xrec r = *rec;
	r.u.pkt.cut = 0;
	emit(ctx, &r);
	r.type = XREC_GAP;
	r.u.gap = xrec_pkt_cut(&rec->u.pkt, rec->u.pkt.cut - 1);
	emit(ctx, &r);
}

/* The name of the file that starts at ts: with -G, OUT is a strftime
   pattern; without conversions a time stamp goes before the extension. */
static void out_name_for(struct capture *cap, uint64_t ts)
{
	const char *pat = cap->out_pattern;
	if (cap->size_limit) {
		/* -C: OUT-0.xcap, OUT-1.xcap, ...; with -W a ring of them. */
		unsigned k = cap->file_count ? cap->files_opened % cap->file_count : cap->files_opened;
		const char *slash = strrchr(pat, '/');
		const char *dot = strrchr(slash ? slash : pat, '.');
		if (dot && dot != (slash ? slash + 1 : pat))
			snprintf(cap->out_name, sizeof cap->out_name, "%.*s-%u%s", (int)(dot - pat),
				 pat, k, dot);
		else
			snprintf(cap->out_name, sizeof cap->out_name, "%s-%u", pat, k);
		return;
	}
	if ((!cap->rotate_ns && !cap->flight) || strcmp(pat, "-") == 0) {
		snprintf(cap->out_name, sizeof cap->out_name, "%s", pat);
		return;
	}
	char pattern[PATH_MAX];
	if (strchr(pat, '%')) {
		snprintf(pattern, sizeof pattern, "%s", pat);
	} else {
		const char *slash = strrchr(pat, '/');
		const char *dot = strrchr(slash ? slash : pat, '.');
		if (dot && dot != (slash ? slash + 1 : pat))
			snprintf(pattern, sizeof pattern, "%.*s-%%Y%%m%%d-%%H%%M%%S%s",
				 (int)(dot - pat), pat, dot);
		else
			snprintf(pattern, sizeof pattern, "%s-%%Y%%m%%d-%%H%%M%%S", pat);
	}
	time_t t = (time_t)(ts / 1000000000u);
	struct tm tm;
	localtime_r(&t, &tm);
	/* The pattern is the user's -w argument, by design. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	size_t n = strftime(cap->out_name, sizeof cap->out_name, pattern, &tm);
#pragma GCC diagnostic pop
	if (n == 0)
		die(EXIT_USAGE, "output name too long: '%s'", pat);
	/* Two windows may begin in the same second: the later one gets a
	   number rather than overwrite the earlier. */
	if (cap->flight && access(cap->out_name, F_OK) == 0) {
		char base[PATH_MAX];
		snprintf(base, sizeof base, "%s", cap->out_name);
		const char *slash = strrchr(base, '/');
		char *dot = strrchr(slash ? slash : base, '.');
		size_t stem = dot && dot != (slash ? slash + 1 : base) ? (size_t)(dot - base) : strlen(base);
		for (int k = 2; k < 10000 && access(cap->out_name, F_OK) == 0; k++)
			snprintf(cap->out_name, sizeof cap->out_name, "%.*s-%d%s", (int)stem, base, k,
				 base + stem);
	}
}

static void open_output(struct capture *cap, uint64_t ts)
{
	char err[256];
	out_name_for(cap, ts);
	if (strcmp(cap->out_name, "-") == 0) {
		cap->out = stdout;
	} else {
		cap->out = fopen(cap->out_name, "wb");
		if (!cap->out)
			die(EXIT_RUNTIME, "cannot open output: %s: '%s'", strerror(errno),
			    cap->out_name);
	}
	cap->w = trace_writer_new(cap->out, &cap->info, err, sizeof err);
	if (!cap->w)
		die(EXIT_RUNTIME, "cannot start the trace: %s: '%s'", err, cap->out_name);
	cap->file_start_ns = ts;
	cap->files_opened++;
	/* An index sits beside a regular file only: none beside a pipe or a
	   device (-w /dev/null is no reason to write /dev/null.idx). */
	struct stat st;
	bool regular = cap->out != stdout && fstat(fileno(cap->out), &st) == 0 && S_ISREG(st.st_mode);
	/* An index left beside a file now overwritten (-C -W, a second run)
	   describes the old trace: gone before the new one is written. */
	if (regular) {
		char ipath[PATH_MAX + 8];
		snprintf(ipath, sizeof ipath, "%s.idx", cap->out_name);
		unlink(ipath);
	}
	if (cap->want_index && regular && !(cap->ix = xidx_new()))
		complain("out of memory, no index written: '%s.idx'", cap->out_name);
}

static void write_stats(struct capture *cap)
{
	if (!cap->w)
		return;
	struct xrec r = { .type = XREC_STATS };
	pipeline_stats(cap->pipe, &r.u.stats);
	r.u.stats.ts = cap->last_ts;
	if (cap->live) {
		struct pcap_stat ps;
		if (pcap_stats(cap->pcap, &ps) == 0) {
			r.u.stats.kernel_recv = ps.ps_recv;
			r.u.stats.kernel_drop = ps.ps_drop;
			r.u.stats.if_drop = ps.ps_ifdrop;
		}
	}
	write_record(cap, &r);
}

/* Returns 0, or -1 if the trace could not be written completely. */
/* Why closing the output failed, with the reason the system gave: a full
   disk often shows only when the last buffer is written at close. */
static char close_why[512];

static int close_output(struct capture *cap)
{
	int rc = 0;
	close_why[0] = '\0';
	if (!cap->w && !cap->out)
		return cap->write_failed ? -1 : 0;
	if (cap->w && trace_writer_flush(cap->w) < 0)
		snprintf(close_why, sizeof close_why, "%s", trace_writer_error(cap->w));
	if (trace_writer_free(cap->w) < 0 || cap->write_failed)
		rc = -1;
	cap->w = NULL;
	int failed = cap->out != stdout ? fclose(cap->out) != 0 : fflush(stdout) != 0;
	if (failed) {
		if (!close_why[0])
			snprintf(close_why, sizeof close_why, "cannot write the trace: %s",
				 strerror(errno));
		rc = -1;
	}
	if (rc < 0 && !close_why[0])
		snprintf(close_why, sizeof close_why, "cannot write the trace");
	cap->out = NULL;
	/* The index only of a whole trace; a failed one is said, not fatal. */
	if (cap->ix && rc == 0) {
		char ipath[PATH_MAX + 8], err[256];
		snprintf(ipath, sizeof ipath, "%s.idx", cap->out_name);
		if (xidx_write(cap->ix, cap->out_name, ipath, err, sizeof err) < 0)
			complain("%s: '%s'", err, ipath);
	}
	xidx_free(cap->ix);
	cap->ix = NULL;
	return rc;
}

/* The pipeline failed: what it would make of further packets would be
   invented, so the capture ends here, keeping what came before. */
static void pipe_stop(struct capture *cap)
{
	cap->pipe_failed = 1;
	stop_requested = 1;
	if (cap->pcap)
		pcap_breakloop(cap->pcap);
}

static void rotate(struct capture *cap, uint64_t ts)
{
	write_stats(cap);
	if (close_output(cap) < 0)
		die(EXIT_RUNTIME, "%s: '%s'", close_why, cap->out_name);
	open_output(cap, ts);
	/* A reader of the new file must know the connections already open. */
	if (pipeline_replay_state(cap->pipe, ts) < 0)
		pipe_stop(cap);
}

/* ---- the flight recorder's windows: one trace file each ---- */

static int window_open(void *ctx, uint64_t start)
{
	struct capture *cap = ctx;
	open_output(cap, start);
	cap->windows_written++;
	/* -W: only the last COUNT windows are kept. */
	if (cap->file_count) {
		unsigned slot = (cap->windows_written - 1) % cap->file_count;
		if (cap->kept_windows[slot]) {
			unlink(cap->kept_windows[slot]);
			char ipath[PATH_MAX + 8];
			snprintf(ipath, sizeof ipath, "%s.idx", cap->kept_windows[slot]);
			unlink(ipath);
			free(cap->kept_windows[slot]);
		}
		cap->kept_windows[slot] = strdup(cap->out_name);
	}
	if (!cap->quiet)
		fprintf(stderr, "%s: writing a window: '%s'\n", program_name, cap->out_name);
	return 0;
}

static void window_put(void *ctx, const struct xrec *rec)
{
	write_record(ctx, rec);
}

static int window_close(void *ctx)
{
	struct capture *cap = ctx;
	write_stats(cap);
	if (close_output(cap) < 0) {
		complain("%s: '%s'", close_why, cap->out_name);
		return -1;
	}
	return 0;
}

/* SIGUSR2: a mark at the capture's present time. */
static void signal_mark(struct capture *cap)
{
	uint64_t ts = cap->live ? clock_ns(CLOCK_REALTIME) : cap->last_ts;
	if (ts < cap->last_ts)
		ts = cap->last_ts;
	mark_and_trigger(cap, ts, 0, XMARK_SIGNAL, "SIGUSR2", 0);
}

/* -r with -G, -G and -C: a new file due before a packet of time ts.
   False when the capture ends instead (-W's files all written).  Out of
   line, as few captures cut their output. */
static __attribute__((noinline)) bool files_before(struct capture *cap, uint64_t ts)
{
	if (cap->open_at_first && !cap->w)
		open_output(cap, ts);
	if (cap->rotate_ns && ts - cap->file_start_ns >= cap->rotate_ns && ts > cap->file_start_ns) {
		/* -G with -W: COUNT files, then the capture ends, as tcpdump's */
		if (cap->file_count && cap->files_opened >= cap->file_count) {
			stop_requested = 1;
			if (cap->pcap)
				pcap_breakloop(cap->pcap);
			return false;
		}
		rotate(cap, ts);
	}
	/* -C: the file's size, looked at every 64 packets (a block of the
	   writer, at most 64 KiB, may not be in it yet). */
	if (cap->size_limit && cap->out && !(++cap->size_checks & 63)) {
		off_t at = ftello(cap->out);
		if (at >= 0 && (uint64_t)at >= cap->size_limit)
			rotate(cap, ts);
	}
	return true;
}

/* A packet; seg, when not NULL, is its decoding done already (result).
   Inline in read_file's loop, which hands it every packet of a file. */
static inline __attribute__((always_inline)) void
take_packet(struct capture *cap, uint64_t ts, const uint8_t *data, uint32_t caplen,
	    uint32_t len, enum decode_result result, const struct tcp_seg *seg)
{
	if (cap->cuts_files && !files_before(cap, ts))
		return;
	cap->last_ts = ts;
	if ((seg ? pipeline_decoded(cap->pipe, ts, caplen, len, result, seg)
		 : pipeline_packet(cap->pipe, ts, data, caplen, len)) < 0) {
		pipe_stop(cap);
		return;
	}
	if (cap->count_limit && ++cap->seen >= cap->count_limit) {
		stop_requested = 1;
		if (cap->pcap)
			pcap_breakloop(cap->pcap);
	}
}

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *data)
{
	struct capture *cap = (struct capture *)user;
	if (cap->live) {
		/* In the kernel's ring the next packet's header follows this
		   packet, 16-byte aligned.  Reading it is the one cache miss
		   per packet that dominates a live capture; asking for it now
		   lets it arrive while this packet is decoded.  (A prefetch is
		   only a hint: where there is no next packet it does nothing.) */
		const char *next = (const char *)(((uintptr_t)data + h->caplen + 15) & ~(uintptr_t)15);
		__builtin_prefetch(next);
		__builtin_prefetch(next + 64);
		__builtin_prefetch(next + 128);
	}
	uint64_t ts = (uint64_t)h->ts.tv_sec * 1000000000u +
		      (uint64_t)h->ts.tv_usec * (cap->ts_nano ? 1u : 1000u);
	take_packet(cap, ts, data, h->caplen, h->len, DECODE_BAD, NULL);
}

/* Offline: up to `batch` packets from the file, as pcap_dispatch would.
   Returns how many, 0 at the end, -1 when the rest cannot be read. */
static int read_file(struct capture *cap, int batch)
{
	int n = 0;
	struct pcapfile_frame fr;
	while (n < batch && !stop_requested && !cap->write_failed) {
		int rc = pcapfile_next_frame(cap->file, &fr);
		if (rc <= 0)
			return n ? n : rc;
		take_packet(cap, fr.pkt.ts, fr.pkt.data, fr.pkt.caplen, fr.pkt.len, fr.result, fr.seg);
		n++;
	}
	return n;
}

static void print_status(struct capture *cap)
{
	struct xrec_stats st;
	pipeline_stats(cap->pipe, &st);
	fprintf(stderr, "%s: %llu packets, %llu bytes, %llu not tcp, %llu unreadable",
		program_name, (unsigned long long)st.packets, (unsigned long long)st.bytes,
		(unsigned long long)st.not_tcp, (unsigned long long)st.bad_link);
	struct pcap_stat ps;
	if (cap->live && pcap_stats(cap->pcap, &ps) == 0)
		fprintf(stderr, ", %u received by filter, %u dropped by kernel, %u dropped by interface",
			ps.ps_recv, ps.ps_drop, ps.ps_ifdrop);
	fprintf(stderr, "\n");
}

/* ---- opening the input ---- */

static bool is_loopback(const char *iface)
{
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", iface);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	bool lo = fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 && (ifr.ifr_flags & IFF_LOOPBACK);
	if (fd >= 0)
		close(fd);
	return lo;
}

/* Loopback hands every packet to a packet socket twice, once going out and
   once coming in; libpcap throws the outgoing copy away, but only after
   the kernel has copied it into the ring and libpcap has walked over it.
   The same filter with a first test that refuses outgoing packets keeps
   them out of the ring: half the work on lo.  If the kernel will not take
   it, libpcap's own filter stays and nothing is lost but the saving. */
static void refuse_outgoing(pcap_t *p, const struct bpf_program *bpf)
{
	size_t n = bpf->bf_len + 3;
	struct sock_filter *code = calloc(n, sizeof *code);
	if (!code)
		return;
	code[0] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PKTTYPE);
	code[1] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 0, 1);
	code[2] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
	/* Jumps are relative, so the original program runs unchanged after. */
	for (size_t i = 0; i < bpf->bf_len; i++) {
		code[i + 3].code = bpf->bf_insns[i].code;
		code[i + 3].jt = bpf->bf_insns[i].jt;
		code[i + 3].jf = bpf->bf_insns[i].jf;
		code[i + 3].k = bpf->bf_insns[i].k;
	}
	struct sock_fprog prog = { .len = (unsigned short)n, .filter = code };
	if (n <= BPF_MAXINSNS)
		setsockopt(pcap_fileno(p), SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog);
	free(code);
}

static void raise_priority(void)
{
	/* A capture that is starved of CPU drops packets; -20 keeps it ahead
	   of the client it watches. */
	if (setpriority(PRIO_PROCESS, 0, -20) < 0)
		complain("cannot run at nice -20, capturing at normal priority: %s: 'pid %ld'",
		      strerror(errno), (long)getpid());
}

static pcap_t *open_live(const char *iface, int buffer_kib, int promisc, int *ts_nano)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_create(iface, ebuf);
	if (!p)
		die(EXIT_RUNTIME, "cannot open interface: %s: '%s'", ebuf, iface);
	pcap_set_snaplen(p, SNAPLEN);
	pcap_set_promisc(p, promisc);
	/* Batches of packets per wakeup (TPACKET_V3), and a short timeout so
	   flushes and signals are handled even when the link is quiet. */
	pcap_set_timeout(p, BLOCK_TIMEOUT_MS);
	pcap_set_buffer_size(p, buffer_kib * 1024);
	*ts_nano = pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO) == 0;
	int rc = pcap_activate(p);
	if (rc < 0)
		die(EXIT_RUNTIME, "cannot start capturing: %s: '%s'",
		    rc == PCAP_ERROR ? pcap_geterr(p) : pcap_statustostr(rc), iface);
	if (rc > 0)
		complain("warning while starting the capture: %s: '%s'",
		      rc == PCAP_WARNING ? pcap_geterr(p) : pcap_statustostr(rc), iface);
	*ts_nano = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO;
	/* On "any", SLL2 tells the interface of each packet. */
	if (strcmp(iface, "any") == 0) {
		int *dlts = NULL;
		int n = pcap_list_datalinks(p, &dlts);
		for (int i = 0; i < n; i++)
			if (dlts[i] == DLT_LINUX_SLL2)
				pcap_set_datalink(p, DLT_LINUX_SLL2);
		pcap_free_datalinks(dlts);
	}
	/* The ring's pages are first read here rather than by the capture
	   loop, where each first read may trap to a hypervisor (ring.c). */
	ring_prefault(pcap_fileno(p));
	return p;
}

static void drop_privileges(const char *user)
{
	struct passwd *pw = getpwnam(user);
	if (!pw)
		die(EXIT_RUNTIME, "no such user: '%s'", user);
	if (initgroups(pw->pw_name, pw->pw_gid) < 0 || setgid(pw->pw_gid) < 0 ||
	    setuid(pw->pw_uid) < 0)
		die(EXIT_RUNTIME, "cannot drop privileges: %s: '%s'", strerror(errno), user);
}

static char *join_args(int argc, char **argv)
{
	size_t n = 1;
	for (int i = 0; i < argc; i++)
		n += strlen(argv[i]) + 1;
	char *s = malloc(n);
	if (!s)
		die(EXIT_RUNTIME, "out of memory: 'filter'");
	s[0] = '\0';
	for (int i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static long parse_number(const char *arg, const char *what, long min, long max)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max)
		die(EXIT_USAGE, "bad %s: '%s'", what, arg);
	return v;
}

/* A duration (a bare number is seconds) or a size: the grammar of units.h. */
static int parse_duration(const char *arg, uint64_t *ns)
{
	return units_duration(arg, UNITS_S, ns) < 0 || *ns > 10000000 * UNITS_S ? -1 : 0;
}

/* --trigger request=NAME[:TEXT] | event=NAME[:TEXT] | wait>DURATION |
   response>DURATION */
static void parse_trigger(struct capture *cap, const char *arg)
{
	struct trigger t;
	memset(&t, 0, sizeof t);
	const char *rest;
	if (strncmp(arg, "wait>", 5) == 0) {
		t.kind = TRIGGER_WAIT;
		if (parse_duration(arg + 5, &t.wait_ns) < 0 || !t.wait_ns)
			die(EXIT_USAGE, "bad trigger: a wait is a duration such as 200ms: '%s'", arg);
	} else if (strncmp(arg, "response>", 9) == 0) {
		t.kind = TRIGGER_RESPONSE;
		if (parse_duration(arg + 9, &t.wait_ns) < 0 || !t.wait_ns)
			die(EXIT_USAGE, "bad trigger: a response time is a duration such as 150ms: '%s'",
			    arg);
		if (!cap->resp_over_ns || t.wait_ns < cap->resp_over_ns)
			cap->resp_over_ns = t.wait_ns;
		return;	/* the response model's, not a per-message test */
	} else if ((rest = strncmp(arg, "request=", 8) == 0 ? arg + 8
			 : strncmp(arg, "event=", 6) == 0 ? arg + 6 : NULL)) {
		t.kind = arg[0] == 'r' ? TRIGGER_REQUEST : TRIGGER_EVENT;
		const char *colon = strchr(rest, ':');
		size_t n = colon ? (size_t)(colon - rest) : strlen(rest);
		if (!n || n >= sizeof t.name || (colon && strlen(colon + 1) >= sizeof t.text))
			die(EXIT_USAGE, "bad trigger: give a message name: '%s'", arg);
		memcpy(t.name, rest, n);
		if (colon)
			snprintf(t.text, sizeof t.text, "%s", colon + 1);
	} else {
		die(EXIT_USAGE,
		    "bad trigger: request=NAME, event=NAME, wait>DURATION or response>DURATION: '%s'",
		    arg);
	}
	if (GROW(cap->triggers, cap->cap_triggers, cap->n_triggers + 1) < 0)
		die(EXIT_RUNTIME, "out of memory: 'triggers'");
	cap->triggers[cap->n_triggers++] = t;
}

int main(int argc, char **argv)
{
	pipeline_steady_heap(0);
	const char *iface = NULL, *rfile = NULL, *wfile = NULL, *user = NULL;
	long count = 0, rotate_s = 0, buffer_kib = 65536, size_mb = 0, file_count = 0;
	int quiet = 0, promisc = 1, whole = 0;
	struct capture cap;
	memset(&cap, 0, sizeof cap);
	xconns_init(&cap.labels, sizeof (struct client_label));
	struct flight_options fopt = { 0, 0, 0, 10ull * 1000000000u };
	int have_ring = 0, have_before = 0;
	int compressed_sizes = 0;
	enum { OPT_RING = 256, OPT_BEFORE, OPT_AFTER, OPT_TRIGGER, OPT_COMPRESSED_SIZES, OPT_NO_INDEX,
	       OPT_DECODE };
	struct pipeline_options decode_opt;	/* the --decode choices */
	pipeline_default_options(&decode_opt);
	bool no_index = false;
	static const struct option longopts[] = {
		{ "compressed-sizes", no_argument, NULL, OPT_COMPRESSED_SIZES },
		{ "ring", required_argument, NULL, OPT_RING },
		{ "before", required_argument, NULL, OPT_BEFORE },
		{ "after", required_argument, NULL, OPT_AFTER },
		{ "trigger", required_argument, NULL, OPT_TRIGGER },
		{ "no-index", no_argument, NULL, OPT_NO_INDEX },
		{ "decode", required_argument, NULL, OPT_DECODE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return EXIT_OK;
		}
		if (strcmp(argv[i], "--version") == 0) {
			printf("%s\n", PACKAGE_STRING);
			return EXIT_OK;
		}
		if (strcmp(argv[i], "--") == 0)
			break;
	}
	int opt;
	while ((opt = getopt_long(argc, argv, "+i:r:w:c:G:C:W:B:Z:kpqhV", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_RING:
			have_ring = 1;
			/* A duration, or a size (which needs its unit: a bare
			   number is seconds); given twice, both bound the ring. */
			uint64_t v;
			if (parse_duration(optarg, &v) == 0 && v)
				fopt.ring_ns = v;
			else if (strspn(optarg, "0123456789.") < strlen(optarg) &&
				 units_size(optarg, &v) == 0 && v)
				fopt.ring_bytes = v;
			else
				die(EXIT_USAGE, "bad ring: give seconds (30, 500ms, 2m) or a size (64M): '%s'",
				    optarg);
			break;
		case OPT_BEFORE:
			have_before = 1;
			if (parse_duration(optarg, &fopt.before_ns) < 0)
				die(EXIT_USAGE, "bad time before a trigger: '%s'", optarg);
			break;
		case OPT_AFTER:
			if (parse_duration(optarg, &fopt.after_ns) < 0)
				die(EXIT_USAGE, "bad time after a trigger: '%s'", optarg);
			break;
		case OPT_TRIGGER: parse_trigger(&cap, optarg); break;
		case OPT_COMPRESSED_SIZES: compressed_sizes = 1; whole = 1; break;
		case OPT_NO_INDEX: no_index = true; break;
		case OPT_DECODE: {
			char err[160];
			if (pipeline_add_decode(&decode_opt, optarg, err, sizeof err) < 0)
				die(EXIT_USAGE, "%s", err);
			break;
		}
		case 'i': iface = optarg; break;
		case 'r': rfile = optarg; break;
		case 'w': wfile = optarg; break;
		case 'c': count = parse_number(optarg, "packet count", 1, LONG_MAX); break;
		case 'G': {
			uint64_t ns;
			if (units_duration(optarg, UNITS_S, &ns) < 0 || ns % UNITS_S || ns < UNITS_S ||
			    ns > 100000000 * UNITS_S)
				die(EXIT_USAGE, "bad rotation interval, want whole seconds (600, 10m, 1h): '%s'",
				    optarg);
			rotate_s = (long)(ns / UNITS_S);
			break;
		}
		case 'C': size_mb = parse_number(optarg, "file size", 1, 100000000); break;
		case 'W': file_count = parse_number(optarg, "file count", 1, 100000); break;
		case 'B': buffer_kib = parse_number(optarg, "buffer size", 1, 2097151); break;
		case 'Z': user = optarg; break;
		case 'p': promisc = 0; break;
		case 'k': whole = 1; break;
		case 'q': quiet = 1; break;
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': printf("%s\n", PACKAGE_STRING); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (!wfile) {
		fprintf(stderr, "%s: no output given: '-w OUT'\n", program_name);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (iface && rfile)
		die(EXIT_USAGE, "give either -i or -r, not both: '-i %s -r %s'", iface, rfile);
	if (!iface && !rfile)
		die(EXIT_USAGE, "no input given: '-i IFACE' or '-r FILE'");

	char *filter = optind < argc ? join_args(argc - optind, argv + optind) : NULL;
	if (!filter && iface)
		filter = strdup(DEFAULT_FILTER);

	if (size_mb && (rotate_s || have_ring))
		die(EXIT_USAGE, "give one way of cutting files: '-C with %s'", rotate_s ? "-G" : "--ring");
	if (size_mb && strcmp(wfile, "-") == 0)
		die(EXIT_USAGE, "-C writes several files: give a file name: '-w -'");
	if (file_count && !size_mb && !rotate_s && !have_ring)
		die(EXIT_USAGE, "-W counts the files of -C, -G or --ring: '-W %ld'", file_count);
	if (have_ring && rotate_s)
		die(EXIT_USAGE, "a flight recorder writes one file per window, not by time: '--ring with -G'");
	if (have_ring && strcmp(wfile, "-") == 0)
		die(EXIT_USAGE, "a flight recorder writes one file per window: give a file name: '-w -'");
	if (!have_ring && (have_before || fopt.after_ns != 10ull * 1000000000u))
		die(EXIT_USAGE, "windows need a flight recorder: '--ring SECONDS|SIZE'");
	if (have_ring && !have_before)
		fopt.before_ns = fopt.ring_ns ? fopt.ring_ns : 10ull * 1000000000u;
	if (have_ring && fopt.ring_ns && fopt.before_ns > fopt.ring_ns)
		die(EXIT_USAGE, "the window begins before what the ring keeps: '--before'");
	cap.quiet = quiet;
	cap.out_pattern = wfile;
	cap.count_limit = (uint64_t)count;
	cap.rotate_ns = (uint64_t)rotate_s * 1000000000u;
	cap.size_limit = (uint64_t)size_mb * 1000000u;
	cap.file_count = (unsigned)file_count;
	if (have_ring && file_count && !(cap.kept_windows = calloc((size_t)file_count, sizeof (char *))))
		die(EXIT_RUNTIME, "out of memory: 'window names'");

	if (iface) {
		pipeline_steady_heap(8u << 20);
		raise_priority();
		cap.pcap = open_live(iface, (int)buffer_kib, promisc, &cap.ts_nano);
		cap.live = 1;
		live_handle = cap.pcap;
	} else {
		char ebuf[320] = "";
		cap.rfile = strcmp(rfile, "-") == 0 ? stdin : fopen(rfile, "rb");
		if (!cap.rfile)
			die(EXIT_RUNTIME, "cannot read capture: %s: '%s'", strerror(errno), rfile);
		cap.file = pcapfile_open(cap.rfile, ebuf, sizeof ebuf);
		if (!cap.file && ferror(cap.rfile))	/* a directory opens; reading it fails */
			die(EXIT_RUNTIME, "cannot read capture: %s: '%s'", strerror(errno), rfile);
		if (!cap.file)
			die(EXIT_RUNTIME, "cannot read capture: %s: '%s'", ebuf, rfile);
		cap.ts_nano = 1;
	}
	if (filter && cap.file) {
		char ebuf[320];
		if (pcapfile_set_filter(cap.file, filter, ebuf, sizeof ebuf) < 0)
			die(EXIT_USAGE, "bad filter: %s: '%s'", ebuf, filter);
	} else if (filter) {
		struct bpf_program bpf;
		if (pcap_compile(cap.pcap, &bpf, filter, 1, PCAP_NETMASK_UNKNOWN) < 0)
			die(EXIT_USAGE, "bad filter: %s: '%s'", pcap_geterr(cap.pcap), filter);
		if (pcap_setfilter(cap.pcap, &bpf) < 0)
			die(EXIT_RUNTIME, "cannot set filter: %s: '%s'", pcap_geterr(cap.pcap), filter);
		if (cap.live && is_loopback(iface))
			refuse_outgoing(cap.pcap, &bpf);
		pcap_freecode(&bpf);
	}
	cap.dlt = cap.file ? pcapfile_linktype(cap.file) : pcap_datalink(cap.pcap);
	if (cap.file)	/* the reader thread's spare time decodes frames */
		pcapfile_decode_ahead(cap.file, cap.dlt);
	if (cap.live && !whole) {
		char why[320];
		cap.cut = cut_attach(pcap_fileno(cap.pcap), cap.dlt, why, sizeof why);
		if (!cap.cut && !quiet)
			complain("keeping whole packets: cannot cut them in the kernel: %s: '%s'",
				 why, iface);
	}
	/* Privileges are needed only to open the device and load the
	   kernel's part; the BPF maps stay usable through their descriptors. */
	if (user)
		drop_privileges(user);
	if (!decode_link_supported(cap.dlt))
		complain("link type not supported, packets will be counted and skipped: %s: '%s'",
			 pcap_datalink_val_to_name(cap.dlt) ? pcap_datalink_val_to_name(cap.dlt) : "?",
			 iface ? iface : rfile);

	gethostname(cap.info.host, sizeof cap.info.host - 1);
	snprintf(cap.info.iface, sizeof cap.info.iface, "%s", iface ? iface : rfile);
	snprintf(cap.info.filter, sizeof cap.info.filter, "%s", filter ? filter : "");
	snprintf(cap.info.tool, sizeof cap.info.tool, "%s", PACKAGE_STRING);
	cap.info.linktype = (uint32_t)cap.dlt;
	cap.info.snaplen = cap.file ? pcapfile_snaplen(cap.file) : (uint32_t)pcap_snapshot(cap.pcap);
	cap.info.ts_precision = cap.ts_nano ? 9 : 6;

	cap.want_index = !no_index;
	if (have_ring) {
		struct flight_output fout = { &cap, window_open, window_put, window_close };
		cap.flight = flight_new(&fopt, &fout);
		if (!cap.flight)
			die(EXIT_RUNTIME, "out of memory: 'flight recorder'");
	} else if (cap.file && cap.rotate_ns) {
		/* -G cuts a file by the capture's own time, as it does live:
		   the first piece is named and begun at the first packet. */
		cap.open_at_first = true;
	} else {
		open_output(&cap, clock_ns(CLOCK_REALTIME));
	}
	cap.cuts_files = cap.open_at_first || cap.rotate_ns || cap.size_limit;
	if (cap.resp_over_ns) {
		/* No state model here: the capture is taken to be beside the
		   client and the time is as captured (xcap(1) says what that
		   leaves out). */
		struct xresp_options ro;
		xresp_options_default(&ro);
		cap.resp = xresp_model_new(&ro, NULL, on_response, &cap);
		if (!cap.resp)
			die(EXIT_RUNTIME, "out of memory: 'responses'");
	}
	struct pipeline_options popt;
	pipeline_default_options(&popt);
	/* Only where the kernel cuts packets on purpose is a frame shorter
	   than the snaplen a skip: files do not say (editcap -s leaves the
	   snaplen of a pcapng's interface as it was). */
	popt.snaplen = cap.cut ? cap.info.snaplen : 0;
	if (cap.cut) {
		cut_hook(cap.cut, &cap.cut_hook);
		popt.cutter = &cap.cut_hook;
	}
	popt.compressed_sizes = compressed_sizes;
	popt.cuts_in_pkt = true;	/* emit_cuts_apart gives the gap back where it is needed */
	memcpy(popt.ports, decode_opt.ports, sizeof popt.ports);
	popt.nports = decode_opt.nports;
	cap.pipe = pipeline_new(cap.dlt, &popt, cap.flight || cap.resp ? emit_cuts_apart : emit_to_trace,
				&cap);
	if (!cap.pipe)
		die(EXIT_RUNTIME, "out of memory: 'pipeline'");

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_status;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_mark;
	sigaction(SIGUSR2, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (cap.live && !quiet)
		fprintf(stderr, "%s: listening on %s, link-type %s, snapshot length %d, %s timestamps\n",
			program_name, iface, pcap_datalink_val_to_name(cap.dlt) ? pcap_datalink_val_to_name(cap.dlt) : "?",
			pcap_snapshot(cap.pcap), cap.ts_nano ? "nanosecond" : "microsecond");

	int status = EXIT_OK;
	cap.last_flush_ns = clock_ns(CLOCK_REALTIME);
	while (!stop_requested && !cap.write_failed && !cap.pipe_failed) {
		int n = cap.file ? read_file(&cap, 4096)
				 : pcap_dispatch(cap.pcap, -1, on_packet, (u_char *)&cap);
		if (n == -1) {	/* PCAP_ERROR; PCAP_ERROR_BREAK is a stop asked for */
			complain("capture failed: %s: '%s'",
				 cap.file ? pcapfile_error(cap.file) : pcap_geterr(cap.pcap), cap.info.iface);
			status = EXIT_RUNTIME;
			break;
		}
		if (!cap.live && n == 0)
			break;		/* end of file */
		if (status_requested) {
			status_requested = 0;
			print_status(&cap);
		}
		if (mark_requested) {
			mark_requested = 0;
			signal_mark(&cap);
		}
		if (cap.live && n > 0) {
			/* The kernel wakes a reader for every ring block filled,
			   which with whole 64 KB packets (lo) is every few
			   packets, and each wakeup costs more than the packets it
			   brings.  Letting the ring fill for the rest of
			   COALESCE_NS first turns thousands of wakeups a second
			   into at most COALESCE_NS's worth; the ring holds far
			   more than arrives meanwhile.  When blocks fill slower
			   than that (packets cut in the kernel, light traffic),
			   no pause: sleeping is a wakeup too. */
			uint64_t now = clock_ns(CLOCK_REALTIME);
			if (now - cap.last_read_ns < (uint64_t)COALESCE_NS) {
				struct timespec pause = { 0, COALESCE_NS - (long)(now - cap.last_read_ns) };
				nanosleep(&pause, NULL);
				now = clock_ns(CLOCK_REALTIME);
			}
			cap.last_read_ns = now;
		}
		if (cap.live) {
			uint64_t now = clock_ns(CLOCK_REALTIME);
			/* A window ends on time even when no packet comes, once
			   the kernel has handed over every packet of its last
			   moments (a ring block waits up to BLOCK_TIMEOUT_MS). */
			uint64_t settled = now - (BLOCK_TIMEOUT_MS + 100) * 1000000ull;
			if (settled > cap.last_ts)
				responses_hear(&cap, NULL, settled);
			if (cap.flight && flight_tick(cap.flight, settled) < 0)
				cap.write_failed = 1;
			if (now - cap.last_flush_ns >= FLUSH_EVERY_NS) {
				cap.last_flush_ns = now;
				if (cap.w && trace_writer_flush(cap.w) < 0)
					cap.write_failed = 1;
			}
		}
	}

	/* Packets already in the ring belong to the capture: take them
	   before ending.  The kernel hands over a ring block only when it is
	   full or its timeout (BLOCK_TIMEOUT_MS) expires, so wait for the
	   block in progress, but no longer than that timeout and a margin. */
	char nbuf[PCAP_ERRBUF_SIZE];
	if (cap.live && !cap.write_failed && !cap.pipe_failed && status == EXIT_OK &&
	    !(cap.count_limit && cap.seen >= cap.count_limit) &&
	    pcap_setnonblock(cap.pcap, 1, nbuf) == 0) {
		int fd = pcap_get_selectable_fd(cap.pcap);
		uint64_t deadline = clock_ns(CLOCK_REALTIME) + (BLOCK_TIMEOUT_MS + 100) * 1000000ull;
		for (int round = 0; round < 1000; round++) {
			if (pcap_dispatch(cap.pcap, -1, on_packet, (u_char *)&cap) > 0)
				continue;
			uint64_t now = clock_ns(CLOCK_REALTIME);
			if (fd < 0 || now >= deadline)
				break;
			struct pollfd pfd = { .fd = fd, .events = POLLIN };
			if (poll(&pfd, 1, (int)((deadline - now) / 1000000u) + 1) <= 0)
				break;
		}
	}
	if (pipeline_finish(cap.pipe, cap.last_ts) < 0 || cap.pipe_failed) {
		complain("capture stopped: %s: '%s'", pipeline_error(cap.pipe), cap.info.iface);
		status = EXIT_RUNTIME;
	}
	if (mark_requested)
		signal_mark(&cap);
	/* A response still open at the end is judged as it stands. */
	if (cap.resp) {
		cap.resp_now = cap.last_ts;
		xresp_finish(cap.resp);
	}
	if (cap.flight && flight_finish(cap.flight, cap.last_ts) < 0 && !cap.write_failed) {
		complain("%s: '%s'", flight_error(cap.flight), cap.out_pattern);
		status = EXIT_RUNTIME;
	}
	if (cap.open_at_first && !cap.w)	/* no packet: an empty trace */
		open_output(&cap, clock_ns(CLOCK_REALTIME));
	write_stats(&cap);
	struct xrec_stats st;
	pipeline_stats(cap.pipe, &st);
	/* The writer's error already says "cannot write the trace: why". */
	if (cap.write_failed)
		complain("%s: '%s'",
			 trace_writer_error(cap.w) ? trace_writer_error(cap.w) : "cannot write the trace",
			 cap.out_name);
	if (close_output(&cap) < 0 || cap.write_failed) {
		if (!cap.write_failed)
			complain("%s: '%s'", close_why, cap.out_name);
		status = EXIT_RUNTIME;
	}
	struct pcap_stat ps;
	int have_ps = cap.live && pcap_stats(cap.pcap, &ps) == 0;
	if (!quiet) {
		fprintf(stderr, "%s: %llu packets captured", program_name, (unsigned long long)st.packets);
		if (have_ps)
			fprintf(stderr, ", %u received by filter, %u dropped by kernel", ps.ps_recv,
				ps.ps_drop);
		if (st.not_tcp || st.bad_link)
			fprintf(stderr, ", %llu skipped (not tcp), %llu skipped (unreadable)",
				(unsigned long long)st.not_tcp, (unsigned long long)st.bad_link);
		fprintf(stderr, "\n");
		if (cap.flight)
			fprintf(stderr, "%s: %u windows written\n", program_name, cap.windows_written);
		if (cap.cut) {
			struct cut_totals t;
			cut_get_totals(cap.cut, &t);
			if (t.packets)
				fprintf(stderr, "%s: %llu packets cut to their headers inside large messages "
					"(%llu payload bytes not copied)\n", program_name,
					(unsigned long long)t.packets, (unsigned long long)t.bytes);
			/* The cutter's own bookkeeping is for whoever works on it. */
			if (getenv("XCAP_CUT_LOG"))
				fprintf(stderr, "%s: the kernel lost track %llu times, %llu of its "
					"guesses were confirmed, %llu refuted\n", program_name,
					(unsigned long long)t.losses, (unsigned long long)t.arms,
					(unsigned long long)t.refuted);
			if (getenv("XCAP_CUT_LOG"))
				for (int r = 1; r < CUT_LOST_REASONS; r++)
					fprintf(stderr, "%s: lost track for reason %d: %llu times\n",
						program_name, r, (unsigned long long)t.lost_by[r]);
		}
	}
	/* Nothing of use is said as plainly as a failure, with where to look. */
	if (status == EXIT_OK && !cap.flight && st.packets == 0 && cap.live) {
		complain("no packet captured (a display on a Unix socket, DISPLAY=:N, is not on "
			 "the network: use 127.0.0.1:N; display :N is TCP port 6000+N, VNC's 5900+N; "
			 "a local server is on -i lo): '%s%s%s'", cap.info.iface, filter ? " " : "",
			 filter ? filter : "");
		status = EXIT_RUNTIME;
	} else if (status == EXIT_OK && !cap.flight && !cap.decoded) {
		complain("no X11, RFB or Wayland connection in the capture (%u TCP %s, none of them "
			 "decoded; display :N is TCP port 6000+N, VNC's 5900+N; waypipe begun before "
			 "the capture wants --decode waypipe:PORT): '%s'", cap.conns,
			 cap.conns == 1 ? "connection" : "connections", cap.live ? cap.info.iface : rfile);
		status = EXIT_RUNTIME;
	}
	if (have_ps && ps.ps_drop)
		complain("the kernel dropped %u packets: the trace has gaps: '%s'", ps.ps_drop,
		      cap.info.iface);
	if (cap.file && pcapfile_skipped(cap.file))
		complain("%llu packets of interfaces with another link type skipped: '%s'",
			 (unsigned long long)pcapfile_skipped(cap.file), cap.info.iface);
	pipeline_free(cap.pipe);
	flight_free(cap.flight);
	xresp_free(cap.resp);
	free(cap.triggers);
	for (long i = 0; cap.kept_windows && i < file_count; i++)
		free(cap.kept_windows[i]);
	free(cap.kept_windows);
	xconns_free(&cap.labels);
	cut_free(cap.cut);
	if (cap.pcap)
		pcap_close(cap.pcap);
	pcapfile_close(cap.file);
	if (cap.rfile && cap.rfile != stdin)
		fclose(cap.rfile);
	free(filter);
	return status;
}
