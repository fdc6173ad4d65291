/*
 * source.c — one way in for .xcap, .pcap and .pcapng.
 *
 * For pcap input the pipeline's records land in a queue that xsource_next
 * empties before reading the next packet.  Strings are copied into one
 * growing buffer and referred to by offset while queued, because the
 * buffer may move as it grows; the offsets turn into pointers only when a
 * record leaves the queue, by which time nothing more is appended until
 * the queue is empty again.
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "source.h"
#include "decode.h"
#include "grow.h"
#include "pcapfile.h"

struct queued {
	struct xrec rec;
	size_t str[3];		/* offsets into the string buffer, per string field */
};

struct xsource {
	enum xsource_kind kind;
	FILE *f;
	int own_file;
	char path[1024];
	struct trace_info info;
	void (*warn)(void *ctx, const char *msg);	/* NULL until installed */
	char held[1024];	/* a warning raised before then */
	void *warn_ctx;
	unsigned problems;

	/* trace input */
	struct trace_reader *reader;

	/* pcap input */
	struct pcapfile *pcap;
	struct pipeline *pipe;
	int pcap_done;
	uint64_t last_ts;
	struct queued *q;
	size_t q_len, q_head, q_cap;
	char *strs;
	size_t strs_len, strs_cap;
	/* Why reading stopped early (out of memory), "" while it has not:
	   see xsource_error. */
	char err[1400];
};

/* Without a handler, warnings still reach the user, though unnamed:
   every command installs its own (xsource_on_warning) to name itself. */
static void default_warning(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "%s\n", msg);
}

static void fail(struct xsource *s, const char *what)
{
	if (!s->err[0])
		snprintf(s->err, sizeof s->err, "%s: '%s'", what, s->path);
}

static void warnf(struct xsource *s, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	s->problems++;
	if (!s->warn) {
		/* Said while opening, before the caller could install its
		   handler: held until it does (or the first record is asked
		   for), so that the caller's program speaks. */
		if (!s->held[0])
			snprintf(s->held, sizeof s->held, "%s", buf);
		return;
	}
	s->warn(s->warn_ctx, buf);
}

static void deliver_held(struct xsource *s)
{
	if (!s->warn)
		s->warn = default_warning;
	if (s->held[0]) {
		char buf[sizeof s->held];
		memcpy(buf, s->held, sizeof buf);
		s->held[0] = '\0';
		s->warn(s->warn_ctx, buf);
	}
}

static void trace_warning(void *ctx, const char *msg)
{
	struct xsource *s = ctx;
	warnf(s, "%s: '%s'", msg, s->path);
}

/* ---- the queue behind the pipeline ---- */

/* The offset of a copy of str; without memory for it, the failure is
   kept and xsource_next returns -1 before the record goes out. */
static size_t keep_string(struct xsource *s, const char *str)
{
	size_t n = strlen(str ? str : "") + 1;
	if (GROW(s->strs, s->strs_cap, s->strs_len + n) < 0) {
		fail(s, "out of memory: record strings");
		return 0;
	}
	memcpy(s->strs + s->strs_len, str ? str : "", n);
	s->strs_len += n;
	return s->strs_len - n;
}

static void enqueue(void *ctx, const struct xrec *rec)
{
	struct xsource *s = ctx;
	if (GROW(s->q, s->q_cap, s->q_len + 1) < 0) {
		fail(s, "out of memory: record queue");
		return;
	}
	struct queued *e = &s->q[s->q_len++];
	e->rec = *rec;
	switch (rec->type) {
	case XREC_CONN:
		e->str[0] = keep_string(s, rec->u.conn.proto);
		break;
	case XREC_MSG:
		e->str[0] = keep_string(s, rec->u.msg.name);
		e->str[1] = keep_string(s, rec->u.msg.ext);
		e->str[2] = keep_string(s, rec->u.msg.detail);
		break;
	case XREC_EXT:
		e->str[0] = keep_string(s, rec->u.ext.name);
		break;
	case XREC_NAME:
		e->str[0] = keep_string(s, rec->u.name.source);
		e->str[1] = keep_string(s, rec->u.name.text);
		break;
	case XREC_NOTE:
		e->str[0] = keep_string(s, rec->u.note.text);
		break;
	case XREC_MARK:
		e->str[0] = keep_string(s, rec->u.mark.text);
		break;
	default:
		break;
	}
}

static void dequeue(struct xsource *s, struct xrec *rec)
{
	struct queued *e = &s->q[s->q_head++];
	*rec = e->rec;
	switch (rec->type) {
	case XREC_CONN:
		rec->u.conn.proto = s->strs + e->str[0];
		break;
	case XREC_MSG:
		rec->u.msg.name = s->strs + e->str[0];
		rec->u.msg.ext = s->strs + e->str[1];
		rec->u.msg.detail = s->strs + e->str[2];
		break;
	case XREC_EXT:
		rec->u.ext.name = s->strs + e->str[0];
		break;
	case XREC_NAME:
		rec->u.name.source = s->strs + e->str[0];
		rec->u.name.text = s->strs + e->str[1];
		break;
	case XREC_NOTE:
		rec->u.note.text = s->strs + e->str[0];
		break;
	case XREC_MARK:
		rec->u.mark.text = s->strs + e->str[0];
		break;
	default:
		break;
	}
}

/* Read packets until the pipeline has said something, or the file ends. */
static void refill(struct xsource *s)
{
	s->q_len = s->q_head = 0;
	s->strs_len = 0;
	while (s->q_len == 0 && !s->pcap_done) {
		struct pcapfile_packet pkt;
		int rc = pcapfile_next(s->pcap, &pkt);
		if (rc == 1) {
			s->last_ts = pkt.ts;
			if (pipeline_packet(s->pipe, pkt.ts, pkt.data, pkt.caplen, pkt.len) < 0) {
				fail(s, pipeline_error(s->pipe));
				s->pcap_done = 1;
				return;
			}
			continue;
		}
		if (rc < 0)
			warnf(s, "cannot read the rest of the capture: %s: '%s'",
			      pcapfile_error(s->pcap), s->path);
		if (pcapfile_skipped(s->pcap))
			warnf(s, "%llu packets of interfaces with another link type skipped: '%s'",
			      (unsigned long long)pcapfile_skipped(s->pcap), s->path);
		/* The end: close what is open and say what was skipped. */
		s->pcap_done = 1;
		if (pipeline_finish(s->pipe, s->last_ts) < 0) {
			fail(s, pipeline_error(s->pipe));
			return;
		}
		struct xrec st = { .type = XREC_STATS };
		pipeline_stats(s->pipe, &st.u.stats);
		st.u.stats.ts = s->last_ts;
		enqueue(s, &st);
	}
}

/* ---- opening ---- */

static int looks_like_pcap(int first_byte)
{
	/* pcap magic in either byte order (a1b2c3d4, a1b23c4d) or the
	   pcapng section header block (0a0d0d0a). */
	return first_byte == 0xa1 || first_byte == 0xd4 || first_byte == 0x4d ||
	       first_byte == 0x0a;
}

static struct xsource *open_pcap(struct xsource *s, const char *filter,
				 const struct pipeline_options *opt, char *err, size_t errlen)
{
	char ebuf[320] = "";
	s->kind = XSOURCE_PCAP;
	s->pcap = pcapfile_open(s->f, ebuf, sizeof ebuf);
	if (!s->pcap) {
		snprintf(err, errlen, "not a readable capture: %s: '%s'", ebuf, s->path);
		return NULL;
	}
	int dlt = pcapfile_linktype(s->pcap);
	if (filter && *filter) {
		if (pcapfile_set_filter(s->pcap, filter, ebuf, sizeof ebuf) < 0) {
			snprintf(err, errlen, "bad filter: %s: '%s'", ebuf, filter);
			return NULL;
		}
		snprintf(s->info.filter, sizeof s->info.filter, "%s", filter);
	}
	snprintf(s->info.iface, sizeof s->info.iface, "%.255s", s->path);
	snprintf(s->info.tool, sizeof s->info.tool, "%s", PACKAGE_STRING);
	s->info.linktype = (uint32_t)dlt;
	s->info.snaplen = pcapfile_snaplen(s->pcap);
	s->info.ts_precision = 9;
	s->info.version_major = 1;
	s->pipe = pipeline_new(dlt, opt, enqueue, s);
	if (!s->pipe) {
		snprintf(err, errlen, "out of memory: '%s'", s->path);
		return NULL;
	}
	if (!decode_link_supported(dlt))
		warnf(s, "link type not supported, every packet will be skipped: %s: '%s'",
		      pcap_datalink_val_to_name(dlt) ? pcap_datalink_val_to_name(dlt) : "unknown",
		      s->path);
	if (!decode_link_supported(dlt))
		s->problems--;	/* intact, only not decoded: xcap -r exits 0 on it too */
	return s;
}

long long xsource_offset(const struct xsource *s)
{
	off_t o = ftello(s->f);
	if (o < 0)
		return -1;
	/* A capture file is read by a thread of pcapfile's, not through f. */
	return s->pcap ? (long long)pcapfile_offset(s->pcap) : (long long)o;
}

struct xsource *xsource_open(const char *path, const char *filter,
			     const struct pipeline_options *opt, char *err, size_t errlen)
{
	if (strcmp(path, "-") == 0)
		return xsource_open_stream(stdin, 0, path, filter, opt, err, errlen);
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot open: %s: '%s'", strerror(errno), path);
		return NULL;
	}
	return xsource_open_stream(f, 1, path, filter, opt, err, errlen);
}

struct xsource *xsource_open_stream(FILE *f, int own, const char *name, const char *filter,
				    const struct pipeline_options *opt, char *err, size_t errlen)
{
	struct xsource *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory: '%s'", name);
		if (own)
			fclose(f);
		return NULL;
	}
	snprintf(s->path, sizeof s->path, "%s", name);
	s->f = f;
	s->own_file = own;
	int c = getc(s->f);
	if (c == EOF) {
		/* A directory opens, and its first read fails: not empty. */
		if (ferror(s->f))
			snprintf(err, errlen, "cannot read: %s: '%s'", strerror(errno), name);
		else
			snprintf(err, errlen, "empty file: '%s'", name);
		xsource_close(s);
		return NULL;
	}
	ungetc(c, s->f);
	if (looks_like_pcap(c)) {
		if (!open_pcap(s, filter, opt, err, errlen)) {
			xsource_close(s);
			return NULL;
		}
		return s;
	}
	s->kind = XSOURCE_TRACE;
	char rerr[512] = "";
	s->reader = trace_reader_new(s->f, rerr, sizeof rerr);
	if (!s->reader) {
		snprintf(err, errlen, "neither an xcap trace nor a pcap capture (%s): '%s'", rerr, name);
		xsource_close(s);
		return NULL;
	}
	trace_reader_on_warning(s->reader, trace_warning, s);
	s->info = *trace_reader_info(s->reader);
	return s;
}

int xsource_next(struct xsource *s, struct xrec *rec)
{
	if (!s->warn)
		deliver_held(s);
	if (s->kind == XSOURCE_TRACE)
		return trace_reader_next(s->reader, rec);
	if (s->err[0])
		return -1;
	if (s->q_head == s->q_len)
		refill(s);
	/* A failure while the queue filled leaves records that may lack
	   their strings or their successors: none of them goes out. */
	if (s->err[0])
		return -1;
	if (s->q_head == s->q_len)
		return 0;
	dequeue(s, rec);
	return 1;
}

const char *xsource_error(const struct xsource *s)
{
	return s->err[0] ? s->err : NULL;
}

enum xsource_kind xsource_kind(const struct xsource *s) { return s->kind; }
const struct trace_info *xsource_info(const struct xsource *s) { return &s->info; }

void xsource_on_warning(struct xsource *s, void (*fn)(void *ctx, const char *msg), void *ctx)
{
	s->warn = fn ? fn : default_warning;
	s->warn_ctx = ctx;
	deliver_held(s);
}

unsigned xsource_problems(const struct xsource *s) { return s->problems; }

void xsource_close(struct xsource *s)
{
	if (!s)
		return;
	if (s->reader)
		trace_reader_free(s->reader);
	if (s->pipe)
		pipeline_free(s->pipe);
	if (s->pcap)
		pcapfile_close(s->pcap);
	if (s->own_file && s->f)
		fclose(s->f);
	free(s->q);
	free(s->strs);
	free(s);
}
