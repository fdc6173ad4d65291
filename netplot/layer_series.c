/*
 * layer_series.c — the family's graphs drawn from their series
 * (series.h): each series as dots or as joined steps, one by one while
 * few, else its extremes per pixel column from the series' pyramid; a
 * series that does not set the scale (owin's window) cut at the top, its
 * value written where it leaves; the sample under the pointer and its
 * description.
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "layer.h"
#include "series.h"

struct np_rgb np_series_colour(int i)
{
	static const struct np_rgb c[] = {
		{ 0.15, 0.35, 0.85 },	/* blue: acks' samples, the average */
		{ 0.85, 0.10, 0.10 },	/* red: the protocol's own */
		{ 0.90, 0.65, 0.0 },	/* amber: instantaneous, as tcptrace's yellow */
		{ 0.85, 0.10, 0.10 },	/* red: outstanding, as tcptrace's owin */
		{ 0.85, 0.75, 0.0 },	/* the window's yellow (NP_COL_WIN) */
		{ 0.0, 0.0, 0.0 },	/* black: segment sizes */
	};
	return c[i >= 0 && i < (int)(sizeof c / sizeof *c) ? i : 0];
}

/* notes: where a series that does not set the scale leaves the plot */
static void draw_one(struct np_frame *f, const struct np_series *s, struct np_edge_notes *notes)
{
	const struct np_view *v = f->v;
	cairo_t *cr = f->cr;
	uint64_t a = np_tkey(v->t0), b = np_tkey(v->t1);
	size_t i0 = np_series_lower(s, 0, a), i1 = np_series_lower(s, i0, b + (b < UINT64_MAX));
	/* a line starts from the sample before the view and ends after it */
	size_t j0 = s->line && i0 > 0 ? i0 - 1 : i0, j1 = s->line && i1 < s->n ? i1 + 1 : i1;
	np_set_rgb(cr, np_series_colour(s->colour));
	cairo_set_line_width(cr, s->line ? 1.5 : 1);
	cairo_new_path(cr);
	if (j1 - j0 <= (size_t)v->pw * 2) {
		bool have = false;
		double px = 0, py = 0;
		for (size_t i = j0; i < j1; i++) {
			double x = np_cx(np_x(v, (double)s->t[i])), y = np_cy(np_y(v, s->y[i]));
			if (notes)
				np_edge_note(notes, v, x, s->y[i]);
			if (s->line) {
				if (have) {
					cairo_move_to(cr, px, py);
					cairo_line_to(cr, x, py);
					cairo_line_to(cr, x, y);
				}
				have = true;
				px = x;
				py = y;
			} else {
				cairo_rectangle(cr, x - 1.5, y - 1.5, 3, 3);
			}
			f->st->items++;
		}
		if (s->line && have) {
			cairo_move_to(cr, px, py);
			cairo_line_to(cr, fmin(px + 1e4, v->px + v->pw), py);
		}
		if (s->line)
			cairo_stroke(cr);
		else
			cairo_fill(cr);
		return;
	}
	/* per pixel column: its extremes, joined to the last value before */
	double prev = NAN;
	size_t from = i0;
	for (size_t k = 0; k < (size_t)v->pw; k++) {
		double x = v->px + (double)k;
		uint64_t tb = np_tkey(np_t_at(v, x + 1));
		size_t e = np_series_lower(s, from, tb);
		double lo, hi;
		if (e > from && np_series_range(s, from, e, &lo, &hi)) {
			double ylo = np_cy(np_y(v, lo)), yhi = np_cy(np_y(v, hi));
			if (notes)
				np_edge_note(notes, v, x, hi);
			if (s->line && !isnan(prev)) {
				ylo = fmax(ylo, prev);
				yhi = fmin(yhi, prev);
			}
			cairo_move_to(cr, x + 0.5, ylo + 0.5);
			cairo_line_to(cr, x + 0.5, yhi - 0.5);
			prev = np_cy(np_y(v, s->y[e - 1]));
			f->st->columns++;
		} else if (s->line && !isnan(prev)) {
			cairo_move_to(cr, x, prev);
			cairo_line_to(cr, x + 1, prev);
		}
		from = e;
	}
	cairo_stroke(cr);
}

static void draw(struct np_frame *f)
{
	size_t n;
	const struct np_series *s = np_graph_series(f->c, f->v->dir, f->v->graph, &n);
	struct np_edge_notes notes = { .n = 0 };
	for (size_t i = 0; i < n; i++)	/* the scale's series last: on top */
		if (s[i].no_scale)
			draw_one(f, &s[i], &notes);
	for (size_t i = 0; i < n; i++)
		if (!s[i].no_scale)
			draw_one(f, &s[i], NULL);
	cairo_set_line_width(f->cr, 1);
	/* the only series that does not set the scale is owin's window */
	np_edge_notes_draw(f, &notes, "window");
}

static bool hit(const struct np_view *v, struct np_probe *p, struct np_hit *h)
{
	size_t n;
	const struct np_series *s = np_graph_series(np_view_conn(v), v->dir, v->graph, &n);
	for (size_t k = 0; k < n; k++) {
		size_t i0 = np_series_lower(&s[k], 0, p->a), i1 = np_series_lower(&s[k], i0, p->b);
		p->total += i1 - i0;
		if (i1 - i0 > NP_HIT_MAX_ITEMS)
			continue;
		for (size_t i = i0; i < i1; i++) {
			double y = np_y(v, s[k].y[i]);
			double dd = np_probe_dist2(p, np_x(v, (double)s[k].t[i]), y, y);
			if (dd < p->best) {
				p->best = dd;
				*h = (struct np_hit){ .kind = NP_HIT_SAMPLE, .dir = v->dir, .index = i,
						      .series = (int)k, .t = (double)s[k].t[i],
						      .seq = s[k].y[i] };
			}
		}
	}
	return false;
}

static void describe(const struct np_view *v, const struct np_hit *h, const char *when, char *buf,
		     size_t len)
{
	size_t n;
	const struct np_series *s = np_graph_series(np_view_conn(v), h->dir, v->graph, &n);
	if ((size_t)h->series >= n)
		return;
	const struct np_series *e = &s[h->series];
	snprintf(buf, len, "%s %s %.6g %s\n%s\ntime %s", np_graph_name(v->graph), e->name,
		 e->y[h->index], e->unit, np_dir_name(h->dir), when);
}

const struct np_layer np_layer_series = {
	.name = "series",
	.kind = NP_HIT_SAMPLE,
	.draw = draw,
	.hit = hit,
	.describe = describe,
};
