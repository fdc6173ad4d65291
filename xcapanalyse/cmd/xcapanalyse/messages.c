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

/* People get xtrace's compact line: one space apart (two before the
   detail, which begins with a space), the extension before the name, the
   wait in ms, the flags after the detail; programs get each in a column
   of its own and the wait in seconds, as every other view. */
static const struct out_column people_cols[] = {
	{ "time", "time", OUT_COL_TIME, 12, 6 },
	{ "conn", "conn", OUT_COL_UINT, 5, 0 },
	{ "dir", "dir", OUT_COL_STR, 3, 0 },
	{ "seq", "seq", OUT_COL_UINT, 8, 0 },
	{ "kind", "kind", OUT_COL_STR, -7, 0 },
	{ "name", "name", OUT_COL_STR, -36, 0 },
	{ "wait", "wait_ms", OUT_COL_MILLISECONDS, 10, 3 },
	{ "detail", " detail", OUT_COL_STR, 0, 0 },
};
static const struct out_column program_cols[] = {
	{ "time", "time", OUT_COL_TIME, 0, 0 },
	{ "conn", "conn", OUT_COL_UINT, 0, 0 },
	{ "dir", "dir", OUT_COL_STR, 0, 0 },
	{ "seq", "seq", OUT_COL_UINT, 0, 0 },
	{ "kind", "kind", OUT_COL_STR, 0, 0 },
	{ "extension", "extension", OUT_COL_STR, 0, 0 },
	{ "name", "name", OUT_COL_STR, 0, 0 },
	{ "wait", "wait", OUT_COL_MILLISECONDS, 0, 0 },
	{ "flags", "flags", OUT_COL_STR, 0, 0 },
	{ "detail", "detail", OUT_COL_STR, 0, 0 },
};
#define NCOLS(a) (sizeof (a) / sizeof (a)[0])

struct msg_view {
	FILE *out;
	enum out_format fmt;
	struct out_table t;
	uint64_t t0;
};

struct msg_view *msg_view_new(FILE *out, enum out_format fmt)
{
	struct msg_view *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->out = out;
	v->fmt = fmt;
	bool people = out_for_people(fmt);
	out_json_open(out, fmt);
	out_table_begin_gap(&v->t, out, fmt, people ? people_cols : program_cols,
			    people ? NCOLS(people_cols) : NCOLS(program_cols), "messages", 1);
	return v;
}

/* s after the first at bytes of dst (of size bytes), cut to fit, ended;
   returns the length.  What snprintf's "%s%s" did, without its cost on
   every message of a long listing. */
static size_t cat(char *dst, size_t size, size_t at, const char *s)
{
	size_t n = strlen(s);
	if (n > size - 1 - at)
		n = size - 1 - at;
	memcpy(dst + at, s, n);
	dst[at + n] = '\0';
	return at + n;
}

void msg_view_record(struct msg_view *v, const struct xrec *rec, bool print)
{
	if (rec->type != XREC_MSG)
		return;
	const struct xrec_msg *m = &rec->u.msg;
	if (!v->t0)
		v->t0 = m->ts;
	if (!print)
		return;
	bool waited = (m->kind == XMSG_REPLY || m->kind == XMSG_ERROR) && m->req_ts &&
		      m->ts >= m->req_ts;
	struct out_cell time = { .ns = (int64_t)(m->ts - v->t0) };
	struct out_cell wait = { .ns = waited ? (int64_t)(m->ts - m->req_ts) : 0, .empty = !waited };
	const char *dir = xdir_name(m->dir), *kind = xmsg_kind_name(m->kind);
	char flags[64];
	if (out_for_programs(v->fmt)) {
		xmsg_flags_format(flags, sizeof flags, m->flags, " ");
		struct out_cell cells[] = {
			time, { .u = m->conn }, { .s = dir }, { .u = m->seq }, { .s = kind },
			{ .s = m->ext }, { .s = m->name }, wait, { .s = flags }, { .s = m->detail },
		};
		out_table_row(&v->t, cells);
		return;
	}
	/* For people, a mark on every request with a reply is noise: the
	   reply line that follows says it. */
	xmsg_flags_format(flags, sizeof flags, m->flags & ~XMSG_F_WANTS_REPLY, " ");
	char name[160], detail[XMSG_DETAIL_MAX + 80];
	size_t n = 0;
	if (m->ext[0]) {
		n = cat(name, sizeof name, n, m->ext);
		n = cat(name, sizeof name, n, ":");
	}
	cat(name, sizeof name, n, m->name[0] ? m->name : "?");
	n = cat(detail, sizeof detail, 0, " ");
	n = cat(detail, sizeof detail, n, m->detail);
	if (flags[0]) {
		n = cat(detail, sizeof detail, n, " [");
		n = cat(detail, sizeof detail, n, flags);
		cat(detail, sizeof detail, n, "]");
	}
	struct out_cell cells[] = {
		time, { .u = m->conn }, { .s = dir }, { .u = m->seq }, { .s = kind },
		{ .s = name }, wait, { .s = detail },
	};
	out_table_row(&v->t, cells);
}

void msg_view_finish(struct msg_view *v)
{
	if (!v)
		return;
	out_table_end(&v->t);
	out_json_close(v->out, v->fmt);
	free(v);
}
