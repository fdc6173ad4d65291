/*
 * layer_data.c — the direction's data segments as tcptrace draws them (a
 * vertical line over the bytes with bars at both ends, retransmissions
 * red), SYN/FIN/RST diamonds and zero-window boxes; the segment under the
 * pointer and its description.
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#include "config.h"

#include "layer.h"

static void mark(cairo_t *cr, double x, double y, struct np_rgb c, int shape)
{
	np_set_rgb(cr, c);
	if (shape == 0) {	/* diamond */
		cairo_move_to(cr, x, y - 4);
		cairo_line_to(cr, x + 4, y);
		cairo_line_to(cr, x, y + 4);
		cairo_line_to(cr, x - 4, y);
		cairo_close_path(cr);
		cairo_fill(cr);
	} else {		/* box */
		cairo_rectangle(cr, x - 3, y - 3, 6, 6);
		cairo_stroke(cr);
	}
}

/* marks: a packet's events, its TCP flags shifted by 16 */
static void draw_marks(cairo_t *cr, double x, double y, uint32_t marks)
{
	uint8_t fl = (uint8_t)(marks >> 16);
	if (fl & (XTCP_SYN | XTCP_FIN))
		mark(cr, x, y, NP_COL_SYNFIN, 0);
	if (fl & XTCP_RST)
		mark(cr, x, y, NP_COL_RST, 0);
	if (marks & XPKT_ZEROWIN)
		mark(cr, x, y, NP_COL_ZEROWIN, 1);
}

/* The bytes a segment takes in sequence space: SYN and FIN take one. */
static uint32_t extent(const struct np_pkt *p)
{
	return p->len + !!(p->flags & XTCP_SYN) + !!(p->flags & XTCP_FIN);
}

static void draw_one_by_one(struct np_frame *f, size_t i0, size_t i1)
{
	const struct np_view *v = f->v;
	const struct np_dir *d = f->d, *peer = f->peer;
	cairo_t *cr = f->cr;
	for (int pass = 0; pass < 2; pass++) {	/* normal, then retransmitted on top */
		cairo_new_path(cr);
		for (size_t i = i0; i < i1; i++) {
			const struct np_pkt *p = &d->pkt[i];
			bool re = p->events & (XPKT_RETRANS | XPKT_OVERLAP);
			if (re != (pass == 1))
				continue;
			uint32_t ext = extent(p);
			if (!ext)
				continue;
			double x = floor(np_x(v, (double)p->t)) + 0.5;
			double ya = np_cy(np_y(v, (double)p->seq)), yb = np_cy(np_y(v, (double)p->seq + ext));
			/* tcptrace's segment: a vertical line with bars at both ends */
			cairo_move_to(cr, x, ya);
			cairo_line_to(cr, x, fmin(yb, ya - 1));
			cairo_move_to(cr, x - 3, ya);
			cairo_line_to(cr, x + 3, ya);
			cairo_move_to(cr, x - 3, yb);
			cairo_line_to(cr, x + 3, yb);
			f->st->items++;
		}
		np_set_rgb(cr, pass ? NP_COL_RETRANS : NP_COL_DATA);
		cairo_stroke(cr);
	}
	/* flags of data and of pure acks alike, where they happen */
	for (size_t i = i0; i < i1; i++) {
		const struct np_pkt *p = &d->pkt[i];
		uint32_t mk = p->events | (uint32_t)p->flags << 16;
		if (mk & (XPKT_ZEROWIN | (XTCP_SYN | XTCP_FIN | XTCP_RST) << 16))
			draw_marks(cr, floor(np_x(v, (double)p->t)) + 0.5, np_cy(np_y(v, (double)p->seq)),
				   mk);
	}
	/* zero windows the peer advertised: on the ack line */
	size_t a0, a1;
	if (np_visible(v, np_pkt_lower, peer, &a0, &a1) <= v->pw)
		for (size_t i = a0; i < a1; i++)
			if (peer->pkt[i].events & XPKT_ZEROWIN)
				mark(cr, floor(np_x(v, (double)peer->pkt[i].t)) + 0.5,
				     np_cy(np_y(v, (double)peer->pkt[i].ack)), NP_COL_ZEROWIN, 1);
}

/* Per pixel column the span of bytes sent in it; a red tick where it
   holds a retransmission. */
static void draw_columns(struct np_frame *f)
{
	const struct np_view *v = f->v;
	const struct np_dir *d = f->d;
	cairo_t *cr = f->cr;
	np_columns(f, np_pkt_lower_from, d);
	const struct px_column *col = f->col;
	for (int pass = 0; pass < 2; pass++) {
		cairo_new_path(cr);
		for (size_t i = 0; i < f->ncol; i++) {
			if (col[i].i1 == col[i].i0)
				continue;
			struct np_pagg g;
			np_pkt_range(d, col[i].i0, col[i].i1, &g);
			f->st->columns += pass == 0;
			if (g.dlo > g.dhi)
				continue;
			bool re = g.marks & (XPKT_RETRANS | XPKT_OVERLAP);
			double x = col[i].x + 0.5, ya = np_cy(np_y(v, (double)g.dlo)),
			       yb = np_cy(np_y(v, (double)g.dhi));
			if (pass == 0) {
				cairo_move_to(cr, x, ya + 0.5);
				cairo_line_to(cr, x, fmin(yb, ya - 1) - 0.5);
			} else if (re) {
				cairo_move_to(cr, x, ya + 3);
				cairo_line_to(cr, x, ya - 3);
			}
			if (pass == 1 && (g.marks & (XPKT_ZEROWIN | (XTCP_SYN | XTCP_FIN | XTCP_RST) << 16))) {
				cairo_stroke(cr);
				draw_marks(cr, x, ya, g.marks);
				cairo_new_path(cr);
			}
		}
		np_set_rgb(cr, pass ? NP_COL_RETRANS : NP_COL_DATA);
		cairo_set_line_width(cr, pass ? 2 : 1);
		cairo_stroke(cr);
	}
}

static void draw(struct np_frame *f)
{
	size_t i0, i1;
	size_t n = np_visible(f->v, np_pkt_lower, f->d, &i0, &i1);
	cairo_set_line_width(f->cr, 1);
	if (n <= f->v->pw * NP_ONE_BY_ONE_PER_COLUMN) {
		draw_one_by_one(f, i0, i1);
		return;
	}
	if (!f->col)
		return;
	draw_columns(f);
	cairo_set_line_width(f->cr, 1);
}

/* A segment stands along its bytes. */
static bool place(const struct np_pkt *k, double *lo, double *hi)
{
	uint32_t ext = extent(k);
	if (!ext)
		return false;
	*lo = (double)k->seq;
	*hi = (double)k->seq + ext;
	return true;
}

/* The segment nearest the pointer: anywhere along its bytes. */
static bool hit(const struct np_view *v, struct np_probe *p, struct np_hit *h)
{
	np_hit_packets(v, p, h, v->dir, NP_HIT_PKT, place);
	return false;
}

static void describe(const struct np_view *v, const struct np_hit *h, const char *when, char *buf,
		     size_t len)
{
	np_describe_packet(v, h, "data segment", when, buf, len);
}

const struct np_layer np_layer_data = {
	.name = "data",
	.kind = NP_HIT_PKT,
	.draw = draw,
	.hit = hit,
	.describe = describe,
};
