/*
 * layer_gaps.c — bytes the capture lost: a grey band across the plot at
 * each gap and a red bar over the sequence numbers missing.  Nothing to
 * point at: the segments around it are.
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#include "config.h"

#include "layer.h"

static void draw(struct np_frame *f)
{
	const struct np_view *v = f->v;
	const struct np_dir *d = f->d;
	cairo_t *cr = f->cr;
	/* Gaps are rare (a lossy capture has few): all of them are looked at. */
	for (size_t i = 0; i < d->ngap; i++) {
		const struct np_gap *g = &d->gap[i];
		double x = np_x(v, (double)g->t);
		if (x < v->px - 3 || x > v->px + v->pw + 3)
			continue;
		np_set_rgb(cr, NP_COL_GAP);
		cairo_rectangle(cr, x - 2, v->py, 4, v->ph);
		cairo_fill(cr);
		double y0 = np_cy(np_y(v, (double)g->seq));
		double y1 = np_cy(np_y(v, (double)g->seq + (double)g->len));
		np_set_rgb(cr, NP_COL_RETRANS);
		cairo_set_line_width(cr, 3);
		cairo_move_to(cr, x, y0);
		cairo_line_to(cr, x, fmin(y1, y0 - 2));
		cairo_stroke(cr);
		cairo_set_line_width(cr, 1);
	}
}

const struct np_layer np_layer_gaps = {
	.name = "gaps",
	.kind = NP_HIT_NONE,
	.draw = draw,
};
