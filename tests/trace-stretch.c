/*
 * trace-stretch.c — a long, heavy trace made from real captures, for the
 * benchmarks of huge traces:
 *
 *   trace-stretch PACKETS OUT.xcap CAPTURE...
 *
 * Each connection of the CAPTUREs (pcap, pcapng or .xcap) that carries
 * data becomes a template.  The output has LANES (8, or
 * $TRACE_STRETCH_LANES) connections open side by side, lane j playing
 * template j mod n again and again: the first time whole (handshake,
 * setup), then its dialogue after setup repeated, each repetition shifted
 * in time past the one before (with a pause of 1 to 20 ms, a different one
 * each time), its TCP sequence and acknowledgement numbers carried on from
 * where the repetition before ended, its protocol sequence numbers too.
 * Lanes differ in client port, initial sequence number and start time.
 * Records are written in time order across lanes until PACKETS packets
 * are written.  Nothing of a capture is pasted twice at the same time or
 * with the same numbers, so the state model, the level-of-detail index
 * and the graph see hours of traffic of the shape real clients make.
 *
 * With TRACE_STRETCH_INDEX=1 it also writes OUT.xcap.idx as xcap -w
 * writes one while capturing (xcap/traceidx.h, without the states).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"
#include "trace.h"
#include "traceidx.h"

struct tmpl {
	struct xrec *rec;	/* the connection's records, strings owned */
	size_t n, cap;
	size_t body;		/* first record of the dialogue after setup */
	struct xrec_conn conn;
	uint64_t first, last;	/* packet times */
	uint64_t body_first;
	uint32_t adv[2];	/* sequence space a repetition of the body uses, per direction */
	uint64_t xseq_adv;	/* protocol sequence numbers it uses */
	uint64_t npkt_body;
};

struct lane {
	struct tmpl *t;
	uint32_t id;
	uint64_t round;		/* 0: the template whole; k: the k-th repetition of its body */
	size_t i;		/* next record of this round */
	int64_t tshift;		/* ns added to the template's times this round */
	uint32_t sshift[2];	/* added to seq numbers of each direction */
	uint64_t xshift;
	uint64_t rng;
};

static char *dup_str(const char *s)
{
	char *d = strdup(s ? s : "");
	if (!d) {
		fprintf(stderr, "trace-stretch: out of memory: 'strings'\n");
		exit(1);
	}
	return d;
}

static void keep(struct tmpl *t, const struct xrec *r)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		if (!(t->rec = realloc(t->rec, t->cap * sizeof *t->rec))) {
			fprintf(stderr, "trace-stretch: out of memory: 'records'\n");
			exit(1);
		}
	}
	struct xrec c = *r;
	switch (c.type) {
	case XREC_CONN: c.u.conn.proto = dup_str(c.u.conn.proto); break;
	case XREC_MSG:
		c.u.msg.name = dup_str(c.u.msg.name);
		c.u.msg.ext = dup_str(c.u.msg.ext);
		c.u.msg.detail = dup_str(c.u.msg.detail);
		break;
	case XREC_EXT: c.u.ext.name = dup_str(c.u.ext.name); break;
	case XREC_NAME:
		c.u.name.source = dup_str(c.u.name.source);
		c.u.name.text = dup_str(c.u.name.text);
		break;
	default: break;
	}
	t->rec[t->n++] = c;
}

static void tmpl_free(struct tmpl *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct xrec *c = &t->rec[i];
		switch (c->type) {
		case XREC_CONN: free((void *)c->u.conn.proto); break;
		case XREC_MSG:
			free((void *)c->u.msg.name);
			free((void *)c->u.msg.ext);
			free((void *)c->u.msg.detail);
			break;
		case XREC_EXT: free((void *)c->u.ext.name); break;
		case XREC_NAME:
			free((void *)c->u.name.source);
			free((void *)c->u.name.text);
			break;
		default: break;
		}
	}
	free(t->rec);
}

/* What one repetition of the body spans: time, each direction's sequence
   space (to the end of its last segment) and the protocol numbers. */
static int measure(struct tmpl *t)
{
	int have[2] = { 0, 0 };
	uint32_t lo[2] = { 0, 0 }, hi[2] = { 0, 0 };
	uint64_t xlo = UINT64_MAX, xhi = 0;
	t->body = t->n;
	for (size_t i = 0; i < t->n; i++)
		if (t->rec[i].type == XREC_MSG && t->rec[i].u.msg.kind != XMSG_SETUP) {
			t->body = i;
			break;
		}
	for (size_t i = t->body; i < t->n; i++) {
		const struct xrec *r = &t->rec[i];
		if (r->type == XREC_PKT) {
			const struct xrec_pkt *p = &r->u.pkt;
			if (p->tcp_flags & (XTCP_SYN | XTCP_FIN | XTCP_RST))
				continue;
			int d = p->dir & 1;
			if (!have[d]) {
				lo[d] = p->seq;
				hi[d] = p->seq + p->len;
				have[d] = 1;
			} else if ((int32_t)(p->seq + p->len - hi[d]) > 0)
				hi[d] = p->seq + p->len;
			if (!t->npkt_body++)
				t->body_first = p->ts;
			t->last = p->ts;
		} else if (r->type == XREC_MSG) {
			if (r->u.msg.seq < xlo)
				xlo = r->u.msg.seq;
			if (r->u.msg.seq > xhi)
				xhi = r->u.msg.seq;
		}
	}
	if (!have[0] || t->npkt_body < 4)
		return -1;
	for (int d = 0; d < 2; d++)
		t->adv[d] = hi[d] - lo[d];
	t->xseq_adv = xhi >= xlo ? xhi - xlo + 1 : 0;
	return 0;
}

/* The lane's next record, shifted, or 0 when the round is over. */
static int lane_peek(struct lane *l, struct xrec *out)
{
	struct tmpl *t = l->t;
	for (; l->i < t->n; l->i++) {
		const struct xrec *r = &t->rec[l->i];
		if (l->round > 0) {
			/* Repetitions carry the dialogue only: no second handshake,
			   setup, name or extension record in a connection. */
			if (r->type == XREC_CONN || r->type == XREC_NAME || r->type == XREC_EXT ||
			    r->type == XREC_STATS || r->type == XREC_NOTE)
				continue;
			if (r->type == XREC_PKT && (r->u.pkt.tcp_flags & (XTCP_SYN | XTCP_FIN | XTCP_RST)))
				continue;
			if (r->type == XREC_MSG && r->u.msg.kind == XMSG_SETUP)
				continue;
		} else if (r->type == XREC_STATS || r->type == XREC_NOTE)
			continue;
		if (l->round > 0 && l->i < t->body)
			continue;
		/* A repetition ends where the template's body ended, before its FIN. */
		if (r->type == XREC_PKT && (r->u.pkt.tcp_flags & (XTCP_FIN | XTCP_RST)))
			continue;
		*out = *r;
		switch (out->type) {
		case XREC_CONN:
			out->u.conn.id = l->id;
			out->u.conn.ts += (uint64_t)l->tshift;
			out->u.conn.client.port = (uint16_t)(40000 + l->id * 7);
			break;
		case XREC_PKT: {
			struct xrec_pkt *p = &out->u.pkt;
			int d = p->dir & 1;
			p->conn = l->id;
			p->ts += (uint64_t)l->tshift;
			p->seq += l->sshift[d];
			p->ack += l->sshift[!d];
			break;
		}
		case XREC_MSG: {
			struct xrec_msg *m = &out->u.msg;
			int d = m->dir & 1;
			m->conn = l->id;
			m->ts += (uint64_t)l->tshift;
			m->tcp_end += l->sshift[d];
			m->seq += l->xshift;
			if (m->req_ts) {
				m->req_ts += (uint64_t)l->tshift;
				m->req_end += l->sshift[!d];
			}
			break;
		}
		case XREC_GAP:
			out->u.gap.conn = l->id;
			out->u.gap.ts += (uint64_t)l->tshift;
			out->u.gap.seq += l->sshift[out->u.gap.dir & 1];
			break;
		case XREC_EXT: out->u.ext.conn = l->id; out->u.ext.ts += (uint64_t)l->tshift; break;
		case XREC_NAME: out->u.name.conn = l->id; out->u.name.ts += (uint64_t)l->tshift; break;
		default: break;
		}
		return 1;
	}
	return 0;
}

static void lane_next_round(struct lane *l)
{
	struct tmpl *t = l->t;
	l->rng = l->rng * 6364136223846793005u + 1442695040888963407u;
	uint64_t pause = 1000000 + (l->rng >> 33) % 19000000;	/* 1 to 20 ms */
	/* The body of round k+1 begins a pause after round k's last packet. */
	uint64_t round_end = t->last + (uint64_t)l->tshift;
	l->tshift = (int64_t)(round_end + pause - t->body_first);
	for (int d = 0; d < 2; d++)
		l->sshift[d] += t->adv[d];
	l->xshift += t->xseq_adv;
	l->round++;
	l->i = t->body;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: trace-stretch PACKETS OUT.xcap CAPTURE...\n");
		return 2;
	}
	unsigned long long want = strtoull(argv[1], NULL, 10);
	const char *lanes_env = getenv("TRACE_STRETCH_LANES");
	size_t nlanes = lanes_env ? strtoul(lanes_env, NULL, 10) : 8;
	if (nlanes < 1 || nlanes > 1000)
		nlanes = 8;
	struct tmpl *tm = NULL;
	size_t ntm = 0;
	for (int a = 3; a < argc; a++) {
		char err[1024];
		struct xsource *src = xsource_open(argv[a], NULL, NULL, err, sizeof err);
		if (!src) {
			fprintf(stderr, "trace-stretch: %s\n", err);
			return 1;
		}
		size_t base = ntm;
		struct xrec r;
		while (xsource_next(src, &r) == 1) {
			/* a connection's dialogue: not the capture's notes and marks */
			uint32_t id = r.type == XREC_NOTE || r.type == XREC_MARK ? 0 : xrec_conn(&r);
			if (!id)
				continue;
			if (r.type == XREC_CONN) {
				if (!(tm = realloc(tm, (ntm + 1) * sizeof *tm)))
					return 1;
				memset(&tm[ntm], 0, sizeof *tm);
				tm[ntm].conn = r.u.conn;
				tm[ntm].conn.proto = NULL;
				tm[ntm].first = r.u.conn.ts;
				ntm++;
			}
			for (size_t k = base; k < ntm; k++)
				if (tm[k].conn.id == id) {
					keep(&tm[k], &r);
					break;
				}
		}
		xsource_close(src);
	}
	/* Only connections with a dialogue to repeat. */
	size_t good = 0;
	for (size_t k = 0; k < ntm; k++)
		if (measure(&tm[k]) == 0)
			tm[good++] = tm[k];
		else
			tmpl_free(&tm[k]);
	if (!good) {
		fprintf(stderr, "trace-stretch: no connection with data in: '%s'\n", argv[3]);
		return 1;
	}
	FILE *f = fopen(argv[2], "wb");
	if (!f) {
		perror(argv[2]);
		return 1;
	}
	char err[256];
	struct trace_info info = { .host = "stretched", .iface = "trace-stretch", .tool = "trace-stretch",
				   .linktype = 1, .snaplen = 262144, .ts_precision = 9 };
	struct trace_writer *w = trace_writer_new(f, &info, err, sizeof err);
	if (!w) {
		fprintf(stderr, "trace-stretch: %s\n", err);
		return 1;
	}
	struct lane *ln = calloc(nlanes, sizeof *ln);
	struct xrec *head = calloc(nlanes, sizeof *head);
	int *live = calloc(nlanes, sizeof *live);
	if (!ln || !head || !live)
		return 1;
	uint64_t t0 = tm[0].first;
	for (size_t j = 0; j < nlanes; j++) {
		ln[j].t = &tm[j % good];
		ln[j].id = (uint32_t)j + 1;
		ln[j].rng = 0x9e3779b97f4a7c15u * (j + 1);
		/* Lanes start 137 ms apart, each from the start of its template. */
		ln[j].tshift = (int64_t)(t0 + j * 137000000u) - (int64_t)ln[j].t->first;
		/* A different initial sequence number per lane. */
		ln[j].sshift[0] = (uint32_t)(0x10000000u * (j + 1) + 12345u * j);
		ln[j].sshift[1] = (uint32_t)(0x08000000u * (j + 3) + 54321u * j);
		live[j] = lane_peek(&ln[j], &head[j]);
	}
	const char *ix_env = getenv("TRACE_STRETCH_INDEX");
	struct xidx *ix = ix_env && strcmp(ix_env, "1") == 0 ? xidx_new() : NULL;
	if (ix_env && strcmp(ix_env, "1") == 0 && !ix)
		return 1;
	unsigned long long packets = 0;
	while (packets < want) {
		size_t best = nlanes;
		for (size_t j = 0; j < nlanes; j++)
			if (live[j] && (best == nlanes || xrec_time(&head[j]) < xrec_time(&head[best])))
				best = j;
		if (best == nlanes)
			break;
		if (trace_writer_put(w, &head[best]) < 0) {
			fprintf(stderr, "trace-stretch: cannot write: '%s'\n", trace_writer_error(w));
			return 1;
		}
		if (ix && xidx_record(ix, &head[best], trace_writer_block_offset(w)) < 0) {
			fprintf(stderr, "trace-stretch: out of memory: 'index'\n");
			return 1;
		}
		packets += head[best].type == XREC_PKT;
		ln[best].i++;
		if (!lane_peek(&ln[best], &head[best])) {
			lane_next_round(&ln[best]);
			live[best] = lane_peek(&ln[best], &head[best]);
		}
	}
	if (trace_writer_free(w) < 0 || fclose(f) != 0) {
		fprintf(stderr, "trace-stretch: cannot write: '%s'\n", argv[2]);
		return 1;
	}
	if (ix) {
		char ipath[4200];
		snprintf(ipath, sizeof ipath, "%s.idx", argv[2]);
		if (xidx_write(ix, argv[2], ipath, err, sizeof err) < 0) {
			fprintf(stderr, "trace-stretch: %s: '%s'\n", err, ipath);
			return 1;
		}
		xidx_free(ix);
	}
	uint64_t tend = 0;
	for (size_t j = 0; j < nlanes; j++)
		if (xrec_time(&head[j]) > tend)
			tend = xrec_time(&head[j]);
	fprintf(stderr, "trace-stretch: %llu packets, %zu connections from %zu templates, %.0f s\n",
		packets, nlanes, good, (double)(tend - t0) / 1e9);
	for (size_t k = 0; k < good; k++)
		tmpl_free(&tm[k]);
	free(tm);
	free(ln);
	free(head);
	free(live);
	return 0;
}
