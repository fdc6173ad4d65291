/*
 * tcpstats.c — tcptrace's per-connection statistics, one pass over the
 * records (see tcpstats.h).
 *
 * Belongs to: libanalyse, the analysis layer's library (xcapanalyse/).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tcpstats.h"

void tcpstats_init(struct tcpstats *s)
{
	xconns_init(&s->conns, sizeof(struct tcps_conn));
}

void tcpstats_free(struct tcpstats *s)
{
	for (size_t i = 0; i < s->conns.n; i++) {
		struct tcps_conn *c = xconns_at(&s->conns, i);
		rtt_free(&c->dir[0].flight);
		rtt_free(&c->dir[1].flight);
	}
	xconns_free(&s->conns);
}

static bool seq_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/* An ack from the peer of direction d's data. */
static void acked(struct tcps_dir *d, uint32_t ack, uint64_t ts)
{
	uint64_t ns;
	if (!rtt_acked(&d->flight, ack, ts, &ns))
		return;
	double ms = (double)ns / 1e6;
	if (d->rtt_n == 0 || ms < d->rtt_min)
		d->rtt_min = ms;
	if (d->rtt_n == 0 || ms > d->rtt_max)
		d->rtt_max = ms;
	d->rtt_n++;
	d->rtt_sum += ms;
	d->rtt_sq += ms * ms;
}

/* -1 when out of memory */
static int packet(struct tcps_conn *c, const struct xrec_pkt *p)
{
	struct tcps_dir *d = &c->dir[p->dir & 1], *peer = &c->dir[!(p->dir & 1)];
	if (c->first == 0 || p->ts < c->first)
		c->first = p->ts;
	if (p->ts > c->last)
		c->last = p->ts;
	if (d->packets && p->ts - d->last_ts > d->idle_max && p->ts > d->last_ts)
		d->idle_max = p->ts - d->last_ts;
	if (!d->packets)
		d->first_ts = p->ts;
	d->last_ts = p->ts;
	d->packets++;
	bool syn = p->tcp_flags & XTCP_SYN, fin = p->tcp_flags & XTCP_FIN;
	d->syns += syn;
	d->fins += fin;
	d->rsts += !!(p->tcp_flags & XTCP_RST);
	if (p->tcp_flags & XTCP_ACK) {
		d->acks++;
		if (!p->len && !syn && !fin && !(p->tcp_flags & XTCP_RST))
			d->pure_acks++;
		/* the 3WHS: the SYN answered by the SYN/ACK, the SYN/ACK by the
		   first ack of it */
		const struct rtt_seg *syn_seg = rtt_oldest(&peer->flight);
		if (peer->saw_syn && peer->rtt_3whs < 0 && peer->rtt_n == 0 && syn_seg &&
		    !seq_lt(p->ack, syn_seg->end))
			peer->rtt_3whs = (double)(p->ts - syn_seg->ts) / 1e6;
		if (peer->have_seq)
			acked(peer, p->ack, p->ts);
	}
	/* windows as tcptrace keeps them: of the packets after the SYN (a
	   SYN's window is never scaled) */
	if (!(p->tcp_flags & (XTCP_RST | XTCP_SYN))) {
		uint64_t w = p->win;
		if (d->win_n++ == 0 || w < d->win_min)
			d->win_min = w;
		if (w > d->win_max)
			d->win_max = w;
		d->win_sum += w;
		d->zero_win += w == 0;
	}
	uint32_t ext = p->len + syn + fin;
	if (syn) {
		d->saw_syn = true;
		d->rtt_3whs = -1;
	}
	if (!d->have_seq && (ext || syn)) {
		d->have_seq = true;
		d->high = p->seq;
		d->high_w = 0;
		if (!d->saw_syn)
			d->rtt_3whs = -1;
	}
	if (p->len && d->have_seq) {
		/* bytes not sent before: the unique ones */
		uint32_t a = p->seq + syn, b = a + p->len;
		uint32_t dhigh = d->have_data ? d->high_data : a;
		/* below the highest: a hole's filling, seen first now, unless
		   reassembly saw its bytes before */
		if (seq_lt(a, dhigh) && !(p->events & (XPKT_RETRANS | XPKT_OVERLAP)))
			d->unique_bytes += (uint32_t)((seq_lt(dhigh, b) ? dhigh : b) - a);
		if (seq_lt(dhigh, b)) {
			d->unique_bytes += seq_lt(a, dhigh) ? (uint32_t)(b - dhigh) : p->len;
			d->high_data = b;
		}
		d->have_data = true;
	}
	if (p->len) {
		d->data_pkts++;
		d->data_bytes += p->len;
		d->pushed += !!(p->tcp_flags & XTCP_PSH);
		if (d->data_pkts == 1 || p->len < d->seg_min)
			d->seg_min = p->len;
		if (p->len > d->seg_max)
			d->seg_max = p->len;
		if (!d->first_data)
			d->first_data = p->ts;
		d->last_data = p->ts;
	}
	bool again = p->events & (XPKT_RETRANS | XPKT_OVERLAP);
	if (p->len && again) {
		d->rexmt_pkts++;
		d->rexmt_bytes += p->len;
	}
	d->ooo_pkts += !!(p->events & XPKT_OOO);
	d->zwnd_probes += !!(p->events & XPKT_WINPROBE);
	if (ext && d->have_seq) {
		uint32_t end = p->seq + ext;
		if (seq_lt(d->high, end)) {
			d->high_w += (uint32_t)(end - d->high);
			d->high = end;
		}
		if (rtt_sent(&d->flight, p->seq, ext, p->ts, again) < 0)
			return -1;
	}
	return 0;
}

int tcpstats_record(struct tcpstats *s, const struct xrec *rec)
{
	if (rec->type == XREC_CONN) {
		struct tcps_conn *c = xconns_add(&s->conns, rec->u.conn.id);
		if (!c)
			return rec->u.conn.id && rec->u.conn.id <= XCONNS_ID_MAX ? -1 : 0;
		if (!c->id) {
			c->id = rec->u.conn.id;
			c->dir[0].wscale = c->dir[1].wscale = -1;
			c->dir[0].rtt_3whs = c->dir[1].rtt_3whs = -1;
		}
		c->client = rec->u.conn.client;
		c->server = rec->u.conn.server;
		c->dir[0].wscale = rec->u.conn.wscale[0];
		c->dir[1].wscale = rec->u.conn.wscale[1];
		return 0;
	}
	if (rec->type != XREC_PKT)
		return 0;
	struct tcps_conn *c = xconns_add(&s->conns, rec->u.pkt.conn);
	if (!c)
		return rec->u.pkt.conn && rec->u.pkt.conn <= XCONNS_ID_MAX ? -1 : 0;
	if (!c->id) {
		c->id = rec->u.pkt.conn;
		c->dir[0].wscale = c->dir[1].wscale = -1;
		c->dir[0].rtt_3whs = c->dir[1].rtt_3whs = -1;
	}
	if (packet(c, &rec->u.pkt) < 0)
		return -1;	/* the flight could not grow */
	struct tcps_dir *d = &c->dir[rec->u.pkt.dir & 1];
	/* a window scale learnt from the packets when the connection record
	   came before the SYN/ACK said it (raw and scaled windows) */
	if (d->wscale < 0 && rec->u.pkt.raw_win && rec->u.pkt.win > rec->u.pkt.raw_win &&
	    !(rec->u.pkt.tcp_flags & XTCP_SYN)) {
		uint32_t r = rec->u.pkt.win / rec->u.pkt.raw_win;
		int k = 0;
		while ((1u << k) < r && k < 14)
			k++;
		if ((1u << k) == r)
			d->wscale = k;
	}
	return 0;
}

bool tcps_rtt(const struct tcps_dir *d, double *min, double *avg, double *max, double *stdev)
{
	if (!d->rtt_n)
		return false;
	*min = d->rtt_min;
	*max = d->rtt_max;
	*avg = d->rtt_sum / (double)d->rtt_n;
	double var = d->rtt_n > 1 ?
			     (d->rtt_sq - d->rtt_sum * d->rtt_sum / (double)d->rtt_n) / (double)(d->rtt_n - 1) :
			     0;
	*stdev = var > 0 ? sqrt(var) : 0;
	return true;
}

double tcps_throughput(const struct tcps_conn *c, int dir)
{
	double el = (double)(c->last - c->first) / 1e9;
	return el > 0 ? (double)c->dir[dir].unique_bytes / el : 0;
}
