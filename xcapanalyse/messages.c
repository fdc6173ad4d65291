/*
 * messages.c — the message list.  A reply's wait is the time from the
 * request with its sequence number to the reply; requests are kept per
 * connection in order until a reply with a later number shows they have
 * been answered or never will be, at most REQUESTS_KEPT of them.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "messages.h"

enum { REQUESTS_KEPT = 65536 };

struct sent {
	uint64_t seq, ts;
};

struct conn_requests {
	uint32_t conn;
	struct sent *ring;
	size_t head, len, cap;
};

struct msg_view {
	FILE *out;
	enum format fmt;
	uint64_t t0;
	int started, rows;
	struct conn_requests *conns;
	size_t n_conns, last;
};

struct msg_view *msg_view_new(FILE *out, enum format fmt)
{
	struct msg_view *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->out = out;
	v->fmt = fmt;
	return v;
}

static struct conn_requests *requests_of(struct msg_view *v, uint32_t conn)
{
	/* Messages come in runs per connection: try the last one first. */
	if (v->last < v->n_conns && v->conns[v->last].conn == conn)
		return &v->conns[v->last];
	for (size_t i = 0; i < v->n_conns; i++)
		if (v->conns[i].conn == conn) {
			v->last = i;
			return &v->conns[i];
		}
	struct conn_requests *c = realloc(v->conns, (v->n_conns + 1) * sizeof *c);
	if (!c)
		return NULL;
	v->conns = c;
	v->last = v->n_conns;
	c = &v->conns[v->n_conns++];
	memset(c, 0, sizeof *c);
	c->conn = conn;
	return c;
}

static void remember(struct conn_requests *c, uint64_t seq, uint64_t ts)
{
	if (c->len == c->cap) {
		if (c->cap == REQUESTS_KEPT) {	/* forget the oldest */
			c->head = (c->head + 1) % c->cap;
			c->len--;
		} else {
			size_t cap = c->cap ? 2 * c->cap : 64;
			struct sent *r = malloc(cap * sizeof *r);
			if (!r)
				return;
			for (size_t i = 0; i < c->len; i++)
				r[i] = c->ring[(c->head + i) % c->cap];
			free(c->ring);
			c->ring = r;
			c->head = 0;
			c->cap = cap;
		}
	}
	c->ring[(c->head + c->len) % c->cap] = (struct sent){ seq, ts };
	c->len++;
}

/* The time of the request a reply with this number answers, or 0. */
static uint64_t request_time(struct conn_requests *c, uint64_t seq)
{
	while (c->len && c->ring[c->head].seq < seq) {
		c->head = (c->head + 1) % c->cap;
		c->len--;
	}
	return c->len && c->ring[c->head].seq == seq ? c->ring[c->head].ts : 0;
}

static void header(struct msg_view *v)
{
	v->started = 1;
	if (v->fmt == FMT_CSV)
		fputs("time,conn,dir,seq,kind,extension,name,wait,flags,detail\n", v->out);
	else if (v->fmt == FMT_JSON)
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
	struct conn_requests *c = requests_of(v, m->conn);
	double wait = -1;
	if (c && m->kind == XMSG_REQUEST) {
		remember(c, m->seq, m->ts);
	} else if (c && (m->kind == XMSG_REPLY || m->kind == XMSG_ERROR)) {
		uint64_t t = request_time(c, m->seq);
		if (t && m->ts >= t)
			wait = (double)(m->ts - t) / 1e6;
	}
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
	unsigned shown = v->fmt == FMT_TEXT ? m->flags & ~XMSG_F_WANTS_REPLY : m->flags;
	xmsg_flags_format(flags, sizeof flags, shown, " ");

	FILE *f = v->out;
	switch (v->fmt) {
	case FMT_CSV:
		fprintf(f, "%.9f,%u,%s,%llu,%s,", t, m->conn, dir, (unsigned long long)m->seq, kind);
		csv_field(f, m->ext);
		fputc(',', f);
		csv_field(f, m->name);
		fprintf(f, ",%s,%s,", waitbuf, flags);
		csv_field(f, m->detail);
		fputc('\n', f);
		break;
	case FMT_JSON:
		fprintf(f, "%s\n{\"time\":%.9f,\"conn\":%u,\"dir\":\"%s\",\"seq\":%llu,\"kind\":\"%s\","
			"\"extension\":", v->rows ? "," : "", t, m->conn, dir,
			(unsigned long long)m->seq, kind);
		json_string(f, m->ext);
		fputs(",\"name\":", f);
		json_string(f, m->name);
		if (wait >= 0)
			fprintf(f, ",\"wait\":%.6f", wait / 1e3);
		fputs(",\"flags\":", f);
		json_string(f, flags);
		fputs(",\"detail\":", f);
		json_string(f, m->detail);
		fputc('}', f);
		break;
	default: {
		char line[1024];
		int n = snprintf(line, sizeof line, "%12.6f %5u %3s %8llu %-7s %-36s %10s  %s%s%s%s",
				 t, m->conn, dir, (unsigned long long)m->seq, kind, name, waitbuf,
				 m->detail, flags[0] ? " [" : "", flags, flags[0] ? "]" : "");
		put_trimmed(f, line, n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
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
	if (v->fmt == FMT_JSON)
		fputs(v->rows ? "\n]\n" : "]\n", v->out);
	for (size_t i = 0; i < v->n_conns; i++)
		free(v->conns[i].ring);
	free(v->conns);
	free(v);
}
