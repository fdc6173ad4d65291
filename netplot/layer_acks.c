/*
 * layer_acks.c — the peer's acknowledgements: the acknowledged-data line
 * (green) and the window's edge (yellow), as tcptrace draws them, in
 * connected steps; the ack under the pointer and its description.
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "layer.h"

static void draw(struct np_frame *f)
{
	const struct np_view *v = f->v;
	const struct np_dir *peer = f->peer;
	cairo_t *cr = f->cr;
	size_t i0, i1;
	size_t n = np_visible(v, np_pkt_lower, peer, &i0, &i1);
	bool one_by_one = n <= v->pw * NP_ONE_BY_ONE_PER_COLUMN;
	/* The columns' aggregates serve both lines: made once. */
	struct np_pagg *agg = NULL;
	if (!one_by_one) {
		if (!f->col)
			return;
		agg = malloc(f->ncol * sizeof *agg);
		if (!agg)
			return;
		np_columns(f, np_pkt_lower_from, peer);
		for (size_t i = 0; i < f->ncol; i++)
			if (f->col[i].i1 != f->col[i].i0)
				np_pkt_range(peer, f->col[i].i0, f->col[i].i1, &agg[i]);
	}
	const struct px_column *col = f->col;
	struct np_edge_notes notes = { .n = 0 };
	for (int win = 1; win >= 0; win--) {
		cairo_new_path(cr);
		if (one_by_one) {
			/* from the last ack before the view to the first after it */
			size_t a = i0;
			while (a > 0 && i0 - a < 4096 && !(peer->pkt[a - 1].flags & XTCP_ACK))
				a--;
			if (a > 0)
				a--;
			size_t b = i1;
			while (b < peer->npkt && b - i1 < 4096 && !(peer->pkt[b].flags & XTCP_ACK))
				b++;
			if (b < peer->npkt)
				b++;
			bool have = false;
			double px = 0, py = 0;
			for (size_t i = a; i < b; i++) {
				const struct np_pkt *p = &peer->pkt[i];
				if (!(p->flags & XTCP_ACK))
					continue;
				double x = np_cx(np_x(v, (double)p->t));
				double y = np_cy(np_y(v, (double)p->ack + (win ? (double)p->win : 0)));
				if (have) {
					cairo_move_to(cr, px, py);
					cairo_line_to(cr, x, py);
					cairo_line_to(cr, x, y);
				}
				if (win == 0)
					f->st->items++;
				else
					np_edge_note(&notes, v, x, (double)p->ack + (double)p->win);
				have = true;
				px = x;
				py = y;
			}
		} else {
			/* Per column: the range of values in it, joined to the
			   previous column's last (= highest, acks only grow) value. */
			bool have = false;
			double py = 0, pxl = 0;
			if (i0 > 0) {
				size_t a = i0;
				while (a > 0 && i0 - a < 64 && !(peer->pkt[a - 1].flags & XTCP_ACK))
					a--;
				if (a > 0) {
					const struct np_pkt *p = &peer->pkt[a - 1];
					have = true;
					py = np_cy(np_y(v, (double)p->ack + (win ? (double)p->win : 0)));
					pxl = v->px;
				}
			}
			for (size_t i = 0; i < f->ncol; i++) {
				if (col[i].i1 == col[i].i0)
					continue;
				const struct np_pagg *g = &agg[i];
				if (g->alo > g->ahi)
					continue;
				double lo = win ? (double)g->wlo : (double)g->alo;
				double hi = win ? (double)g->whi : (double)g->ahi;
				double x = col[i].x + 0.5, ylo = np_cy(np_y(v, lo)), yhi = np_cy(np_y(v, hi));
				if (win)
					np_edge_note(&notes, v, x, hi);
				if (have) {
					cairo_move_to(cr, pxl, py);
					cairo_line_to(cr, x, py);
				}
				cairo_move_to(cr, x, fmax(ylo, have ? py : ylo) + 0.5);
				cairo_line_to(cr, x, yhi - 0.5);
				have = true;
				py = yhi;
				pxl = x;
			}
			if (have) {
				cairo_move_to(cr, pxl, py);
				cairo_line_to(cr, v->px + v->pw, py);
			}
		}
		np_set_rgb(cr, win ? NP_COL_WIN : NP_COL_ACK);
		cairo_set_line_width(cr, win ? 1.5 : 2);
		cairo_stroke(cr);
	}
	cairo_set_line_width(cr, 1);
	free(agg);
	np_edge_notes_draw(f, &notes, "window");
}

/* An ack is a point at its number (the green line; not the window's). */
static bool place(const struct np_pkt *k, double *lo, double *hi)
{
	if (!(k->flags & XTCP_ACK))
		return false;
	*lo = *hi = (double)k->ack;
	return true;
}

/* The ack nearest the pointer: the view's data is acked by the other
   direction. */
static bool hit(const struct np_view *v, struct np_probe *p, struct np_hit *h)
{
	np_hit_packets(v, p, h, !v->dir, NP_HIT_ACK, place);
	return false;
}

static void describe(const struct np_view *v, const struct np_hit *h, const char *when, char *buf,
		     size_t len)
{
	np_describe_packet(v, h, "acknowledgement", when, buf, len);
}

const struct np_layer np_layer_acks = {
	.name = "acks",
	.kind = NP_HIT_ACK,
	.draw = draw,
	.hit = hit,
	.describe = describe,
};
