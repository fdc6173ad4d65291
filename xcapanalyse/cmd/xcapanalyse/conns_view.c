/*
 * conns_view.c — --connections (one row per connection: endpoints, client
 * name, packets, bytes and messages each way, gaps) and --marks (the marks
 * in order, each with the name of its connection's client), which share
 * the table of connections seen.
 *
 * Belongs to: the xcapanalyse command's room (xcapanalyse/cmd/xcapanalyse/).
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "grow.h"
#include "views.h"


struct conn_row {
	uint32_t id;
	bool introduced;	/* a connection record gave its addresses */
	struct xaddr client, server;
	char proto[16];
	char name[128];
	int name_rank;		/* xrec_name_takes */
	uint64_t first, last;
	uint64_t packets[2], bytes[2], messages[2], gaps[2], gap_bytes[2];
	bool counted;		/* a packet of it fell inside --range */
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
	if (GROW(t->rows, t->cap, t->n + 1) < 0)
		return NULL;
	struct conn_row *r = &t->rows[t->n++];
	memset(r, 0, sizeof *r);
	r->id = id;
	return r;
}

/* Only in_range packets, messages and gaps count; a connection's
   addresses and name whenever they came. */
static int account(struct conn_table *t, const struct xrec *rec, bool in_range)
{
	struct conn_row *r;
	if (!in_range && (rec->type == XREC_PKT || rec->type == XREC_MSG || rec->type == XREC_GAP))
		return 0;
	switch (rec->type) {
	case XREC_CONN:
		if (!(r = row_for(t, rec->u.conn.id, 1)))
			return -1;
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
			if (!(r = row_for(t, rec->u.pkt.conn, 1)))
				return -1;
		}
		if (!r->first || !r->counted)
			r->first = rec->u.pkt.ts;
		r->counted = true;
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
		if ((r = row_for(t, rec->u.name.conn, 0)) && xrec_name_takes(&r->name_rank, &rec->u.name))
			snprintf(r->name, sizeof r->name, "%s", rec->u.name.text);
		break;
	default:
		break;
	}
	return 0;
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
	{ "time", "Time", OUT_COL_TIME, 12, 6 },
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
	bool people = out_for_people(fmt);
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

static void print_connections(FILE *out, const struct conn_table *t, enum out_format fmt,
			      bool ranged)
{
	char cl[64], sv[64];
	struct out_table t_out;
	out_json_open(out, fmt);
	out_table_begin(&t_out, out, fmt, conn_cols, sizeof conn_cols / sizeof conn_cols[0],
			"connections");
	out_table_ranks(&t_out);
	static const struct out_note notes[] = {
		{ "packets_c2s", "> client to server, < server to client (so are Bytes and Msgs)" },
	};
	out_table_notes(&t_out, notes, 1);
	for (size_t i = 0; i < t->n; i++) {
		const struct conn_row *r = &t->rows[i];
		if (ranged && !r->counted)
			continue;
		bool people = out_for_people(fmt);
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
		out_table_row(&t_out, cells);
	}
	out_table_end(&t_out);
	out_json_close(out, fmt);
}


struct conns_view {
	FILE *out;
	enum out_format fmt;
	bool marks, ranged;
	struct conn_table table;
	struct out_table t;	/* --marks: its rows come as it reads */
	uint64_t first;		/* the time of the trace's first record */
};

struct conns_view *conns_view_new(FILE *out, enum out_format fmt, bool marks, bool ranged)
{
	struct conns_view *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->out = out;
	v->fmt = fmt;
	v->marks = marks;
	v->ranged = ranged;
	if (marks) {
		out_json_open(out, fmt);
		out_table_begin(&v->t, out, fmt, mark_cols, sizeof mark_cols / sizeof mark_cols[0],
				"marks");
	}
	return v;
}

int conns_view_record(struct conns_view *v, const struct xrec *rec, bool in_range)
{
	if (v->marks && !v->first)
		v->first = xrec_time(rec);
	if (account(&v->table, rec, in_range) < 0)
		return -1;
	if (v->marks && rec->type == XREC_MARK && in_range)
		mark_row(&v->t, &v->table, v->first, &rec->u.mark, v->fmt);
	return 0;
}

void conns_view_finish(struct conns_view *v)
{
	if (v->marks) {
		out_table_end(&v->t);
		out_json_close(v->out, v->fmt);
	} else
		print_connections(v->out, &v->table, v->fmt, v->ranged);
	free(v->table.rows);
	free(v);
}
