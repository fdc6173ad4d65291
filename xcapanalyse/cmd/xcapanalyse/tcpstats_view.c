/*
 * tcpstats_view.c — --tcp-stats: each connection's TCP statistics as
 * `tcptrace -l -r` lists them (xcapanalyse/tcpstats.h), one row per
 * statistic with the two directions side by side, as tcptrace's a->b and
 * b->a columns, in every format of the table writer.
 *
 * Belongs to: the xcapanalyse command's room (xcapanalyse/cmd/xcapanalyse/).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcpstats.h"
#include "views.h"

static const struct out_column cols[] = {
	{ "conn", "Conn", OUT_COL_UINT, 4, 0 },
	{ "statistic", "Statistic", OUT_COL_STR, -20, 0 },
	{ "client_to_server", "Client>server", OUT_COL_NUMBER, 14, 0 },
	{ "server_to_client", "Server>client", OUT_COL_NUMBER, 14, 0 },
	{ "unit", "Unit", OUT_COL_STR, -7, 0 },
};

struct tcpstats_view {
	FILE *out;
	enum out_format fmt;
	struct tcpstats s;
};

struct tcpstats_view *tcpstats_view_new(FILE *out, enum out_format fmt)
{
	struct tcpstats_view *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->out = out;
	v->fmt = fmt;
	tcpstats_init(&v->s);
	return v;
}

int tcpstats_view_record(struct tcpstats_view *v, const struct xrec *rec)
{
	return tcpstats_record(&v->s, rec);
}

/* One statistic's row: a value per direction, each written by fmt, or
   empty where the direction has none; decimals after the point.  A time
   in milliseconds (tcptrace's unit, which people read) is in seconds for
   programs, by the one rule of units (output.h). */
static void row(struct out_table *t, uint32_t conn, const char *name, const char *unit,
		int decimals, const double val[2], const bool have[2])
{
	char a[32] = "", b[32] = "";
	double scale = 1;
	if (out_for_programs(t->fmt) && strcmp(unit, "ms") == 0) {
		unit = "s";
		scale = 1e-3;
		decimals += 3;
	}
	if (have[0])
		snprintf(a, sizeof a, "%.*f", decimals, val[0] * scale);
	if (have[1])
		snprintf(b, sizeof b, "%.*f", decimals, val[1] * scale);
	struct out_cell cells[] = {
		{ .u = conn }, { .s = name }, { .s = a }, { .s = b }, { .s = unit },
	};
	out_table_row(t, cells);
}

#define BOTH(expr) { (double)(c->dir[0].expr), (double)(c->dir[1].expr) }

void tcpstats_view_finish(struct tcpstats_view *v)
{
	struct out_table t;
	out_json_open(v->out, v->fmt);
	out_table_begin(&t, v->out, v->fmt, cols, sizeof cols / sizeof cols[0], "tcp_stats");
	const bool yes[2] = { true, true };
	for (size_t i = 0; i < v->s.conns.n; i++) {
		const struct tcps_conn *c = xconns_at(&v->s.conns, i);
		const struct tcps_dir *d = c->dir;
		if (!d[0].packets && !d[1].packets)
			continue;	/* none inside --range, as --connections */
		struct { const char *name, *unit; double val[2]; } counts[] = {
			{ "total_packets", "", BOTH(packets) },
			{ "ack_packets", "", BOTH(acks) },
			{ "pure_acks", "", BOTH(pure_acks) },
			{ "unique_bytes", "bytes", BOTH(unique_bytes) },
			{ "data_packets", "", BOTH(data_pkts) },
			{ "data_bytes", "bytes", BOTH(data_bytes) },
			{ "rexmt_data_packets", "", BOTH(rexmt_pkts) },
			{ "rexmt_data_bytes", "bytes", BOTH(rexmt_bytes) },
			{ "zwnd_probe_packets", "", BOTH(zwnd_probes) },
			{ "outoforder_packets", "", BOTH(ooo_pkts) },
			{ "pushed_data_packets", "", BOTH(pushed) },
			{ "syn_packets", "", BOTH(syns) },
			{ "fin_packets", "", BOTH(fins) },
			{ "zero_window_adv", "", BOTH(zero_win) },
			{ "max_window_adv", "bytes", BOTH(win_max) },
		};
		for (size_t k = 0; k < sizeof counts / sizeof *counts; k++)
			row(&t, c->id, counts[k].name, counts[k].unit, 0, counts[k].val, yes);
		double avgw[2], ws[2], seg[3][2], xmit[2], idle[2], thr[2];
		bool hw[2], hws[2], hseg[2];
		for (int k = 0; k < 2; k++) {
			hw[k] = d[k].win_n > 0;
			avgw[k] = hw[k] ? (double)d[k].win_sum / (double)d[k].win_n : 0;
			hws[k] = d[k].wscale >= 0;
			ws[k] = d[k].wscale;
			hseg[k] = d[k].data_pkts > 0;
			seg[0][k] = d[k].seg_max;
			seg[1][k] = d[k].seg_min;
			seg[2][k] = hseg[k] ? (double)d[k].data_bytes / (double)d[k].data_pkts : 0;
			xmit[k] = (double)(d[k].last_data - d[k].first_data) / 1e9;
			idle[k] = (double)d[k].idle_max / 1e6;
			thr[k] = tcps_throughput(c, k);
		}
		double minw[2] = BOTH(win_min);
		row(&t, c->id, "min_window_adv", "bytes", 0, minw, hw);
		row(&t, c->id, "avg_window_adv", "bytes", 0, avgw, hw);
		row(&t, c->id, "window_scale", "", 0, ws, hws);
		row(&t, c->id, "max_segment_size", "bytes", 0, seg[0], hseg);
		row(&t, c->id, "min_segment_size", "bytes", 0, seg[1], hseg);
		row(&t, c->id, "avg_segment_size", "bytes", 0, seg[2], hseg);
		row(&t, c->id, "data_xmit_time", "s", 6, xmit, hseg);
		bool hp[2] = { d[0].packets > 0, d[1].packets > 0 };
		row(&t, c->id, "idletime_max", "ms", 3, idle, hp);
		row(&t, c->id, "throughput", "bytes/s", 0, thr, yes);
		double n[2] = BOTH(rtt_n), mn[2], av[2], mx[2], sd[2], hs[2];
		bool hr[2], hh[2];
		for (int k = 0; k < 2; k++) {
			hr[k] = tcps_rtt(&d[k], &mn[k], &av[k], &mx[k], &sd[k]);
			hh[k] = d[k].rtt_3whs >= 0;
			hs[k] = d[k].rtt_3whs;
		}
		row(&t, c->id, "rtt_samples", "", 0, n, yes);
		row(&t, c->id, "rtt_min", "ms", 3, mn, hr);
		row(&t, c->id, "rtt_max", "ms", 3, mx, hr);
		row(&t, c->id, "rtt_avg", "ms", 3, av, hr);
		row(&t, c->id, "rtt_stdev", "ms", 3, sd, hr);
		row(&t, c->id, "rtt_from_3whs", "ms", 3, hs, hh);
	}
	out_table_end(&t);
	out_json_close(v->out, v->fmt);
	out_sentence(v->out, v->fmt, "",
		     "As tcptrace -l -r counts them; RTTs to the microsecond (tcptrace "
		     "writes tenths of a ms); out-of-order is a segment that came ahead of a "
		     "hole (tcptrace counts the one filling it).");
	tcpstats_free(&v->s);
	free(v);
}
