/*
 * layer_marks.c — the trace's marks (xcap-run's signals, an atom a test
 * set, ...): a dashed vertical line across the plot at each with its text
 * at the top; the mark under the pointer and its description.  Every
 * connection's graph shows every mark: a mark is a moment of the whole
 * session.
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#include "config.h"

#include <stdio.h>

#include "dump.h"
#include "layer.h"

/* Marks closer than a label's width to the previous one drawn keep their
   line and lose their text. */
static void draw(struct np_frame *f)
{
	const struct np_view *v = f->v;
	const struct np_model *m = v->m;
	const struct np_render_opts *o = f->o;
	cairo_t *cr = f->cr;
	double last_text = -1e9;
	cairo_save(cr);
	cairo_set_line_width(cr, 1);
	static const double dash[] = { 4, 3 };
	cairo_set_dash(cr, dash, 2, 0);
	cairo_set_font_size(cr, 10);
	for (size_t i = 0; i < m->nmark; i++) {
		const struct np_mark *k = &m->mark[i];
		double x = np_x(v, (double)k->t);
		if (x < v->px - 1 || x > v->px + v->pw + 1)
			continue;
		x = floor(x) + 0.5;
		np_set_rgb(cr, NP_COL_MARK);
		cairo_move_to(cr, x, v->py);
		cairo_line_to(cr, x, v->py + v->ph);
		cairo_stroke(cr);
		if (o->no_labels || x - last_text < 60)
			continue;
		char text[320];
		snprintf(text, sizeof text, "%s %s", xmark_source_name(k->source), np_str(m, k->text));
		/* right of the line, or left of it where the plot ends */
		cairo_text_extents_t te;
		cairo_text_extents(cr, text, &te);
		double tx = x + 3 + te.x_advance > v->px + v->pw ? x - 3 - te.x_advance : x + 3;
		if (o->label_fn) {
			o->label_fn(o->label_ctx, tx, v->py + 11, text, NP_COL_MARK);
		} else {
			/* on a pale ground: the top of the plot may hold labels */
			cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
			cairo_rectangle(cr, tx - 1, v->py + 1, te.x_advance + 2, 13);
			cairo_fill(cr);
			np_set_rgb(cr, NP_COL_MARK);
			cairo_move_to(cr, tx, v->py + 11);
			cairo_show_text(cr, text);
		}
		last_text = x;
	}
	cairo_restore(cr);
}

/* A mark's line runs across the whole plot, so it is what the pointer is
   on only where nothing of the connection is near: it takes the hit
   without narrowing the search (p->best), and any item within reach in
   the layers beneath takes it over. */
static bool hit(const struct np_view *v, struct np_probe *p, struct np_hit *h)
{
	double near = NP_HIT_RADIUS;
	for (size_t i = 0; i < v->m->nmark; i++) {
		double dx = fabs(p->x - np_x(v, (double)v->m->mark[i].t));
		if (dx <= near) {
			near = dx;
			*h = (struct np_hit){ .kind = NP_HIT_MARK, .index = i,
					      .t = (double)v->m->mark[i].t, .seq = p->seq };
		}
	}
	return false;
}

static void describe(const struct np_view *v, const struct np_hit *h, const char *when, char *buf,
		     size_t len)
{
	const struct np_mark *k = &v->m->mark[h->index];
	if (k->conn)
		snprintf(buf, len, "mark (%s): %s\ntime %s\nconnection %u",
			 xmark_source_name(k->source), np_str(v->m, k->text), when, k->conn);
	else
		snprintf(buf, len, "mark (%s): %s\ntime %s", xmark_source_name(k->source),
			 np_str(v->m, k->text), when);
}

const struct np_layer np_layer_marks = {
	.name = "marks",
	.kind = NP_HIT_MARK,
	.draw = draw,
	.hit = hit,
	.describe = describe,
};
