/*
 * messages.c — the message list.  A reply's (or error's) wait is the time
 * from the request it answers to it, as the trace pairs them
 * (xrec_msg.req_ts, filled by the pipeline: xcap/pairing.h).
 *
 * Belongs to: the xcapanalyse command's room (xcapanalyse/cmd/xcapanalyse/).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "messages.h"

struct msg_view {
	FILE *out;
	enum out_format fmt;
	uint64_t t0;
	int started, rows;
};

struct msg_view *msg_view_new(FILE *out, enum out_format fmt)
{
	struct msg_view *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->out = out;
	v->fmt = fmt;
	return v;
}

static void header(struct msg_view *v)
{
	v->started = 1;
	if (v->fmt == OUT_CSV) {
		if (out_csv_header_wanted()) {
			out_csv_file_header(v->out);
			fputs("time,conn,dir,seq,kind,extension,name,wait,flags,detail\n", v->out);
		}
	} else if (v->fmt == OUT_NDJSON)
		;
	else if (v->fmt == OUT_JSON)
		fputs("[", v->out);
	else
		fprintf(v->out, "%12s %5s %3s %8s %-7s %-36s %10s  %s\n", "time", "conn", "dir",
			"seq", "kind", "name", "wait_ms", "detail");
}

void msg_view_record(struct msg_view *v, const struct xrec *rec)
{
	if (rec->type != XREC_MSG)
		return;
	const struct xrec_msg *m = &rec->u.msg;
	if (!v->started)
		header(v);
	if (!v->t0)
		v->t0 = m->ts;
	double wait = -1;
	if ((m->kind == XMSG_REPLY || m->kind == XMSG_ERROR) && m->req_ts && m->ts >= m->req_ts)
		wait = (double)(m->ts - m->req_ts) / 1e6;
	double t = (double)(int64_t)(m->ts - v->t0) / 1e9;
	char name[160];
	if (m->ext[0])
		snprintf(name, sizeof name, "%s:%s", m->ext, m->name[0] ? m->name : "?");
	else
		snprintf(name, sizeof name, "%s", m->name[0] ? m->name : "?");
	char waitbuf[32] = "";
	if (wait >= 0)
		snprintf(waitbuf, sizeof waitbuf, "%.3f", wait);
	const char *dir = xdir_name(m->dir), *kind = xmsg_kind_name(m->kind);
	char flags[64];
	/* For people, a mark on every request with a reply is noise: the
	   reply line that follows says it. */
	unsigned shown = v->fmt == OUT_TEXT ? m->flags & ~XMSG_F_WANTS_REPLY : m->flags;
	xmsg_flags_format(flags, sizeof flags, shown, " ");

	FILE *f = v->out;
	switch (v->fmt) {
	case OUT_CSV:
		out_csv_file_cell(f);
		fprintf(f, "%.9f,%u,%s,%llu,%s,", t, m->conn, dir, (unsigned long long)m->seq, kind);
		out_csv_field(f, m->ext);
		fputc(',', f);
		out_csv_field(f, m->name);
		fprintf(f, ",%s,%s,", waitbuf, flags);
		out_csv_field(f, m->detail);
		fputc('\n', f);
		break;
	case OUT_JSON:
	case OUT_NDJSON:
		if (v->fmt == OUT_NDJSON) {
			out_ndjson_row_open(f, "messages");
			fputc(',', f);
		} else
			fprintf(f, "%s\n{", v->rows ? "," : "");
		fprintf(f, "\"time\":%.9f,\"conn\":%u,\"dir\":\"%s\",\"seq\":%llu,\"kind\":\"%s\","
			"\"extension\":", t, m->conn, dir, (unsigned long long)m->seq, kind);
		out_json_string(f, m->ext);
		fputs(",\"name\":", f);
		out_json_string(f, m->name);
		if (wait >= 0)
			fprintf(f, ",\"wait\":%.6f", wait / 1e3);
		else if (v->fmt == OUT_NDJSON)
			fputs(",\"wait\":null", f);	/* every line has every column */
		fputs(",\"flags\":", f);
		out_json_string(f, flags);
		fputs(",\"detail\":", f);
		out_json_string(f, m->detail);
		fputs(v->fmt == OUT_NDJSON ? "}\n" : "}", f);
		break;
	default: {
		char line[1024];
		int n = snprintf(line, sizeof line, "%12.6f %5u %3s %8llu %-7s %-36s %10s  %s%s%s%s",
				 t, m->conn, dir, (unsigned long long)m->seq, kind, name, waitbuf,
				 m->detail, flags[0] ? " [" : "", flags, flags[0] ? "]" : "");
		out_trimmed(f, line, n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
		break;
	}
	}
	v->rows++;
}

void msg_view_finish(struct msg_view *v)
{
	if (!v)
		return;
	if (!v->started)
		header(v);
	if (v->fmt == OUT_JSON)
		fputs(v->rows ? "\n]\n" : "]\n", v->out);
	free(v);
}
