/*
 * layer.c — what netplot's layers share: pixel columns over an array of
 * items, the visible range, arrows, and a packet's hit test and
 * description (data segments and acks both draw and describe packets).
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "layer.h"

void np_columns(struct np_frame *f, size_t (*lower)(const struct np_dir *, size_t, uint64_t),
		const struct np_dir *d)
{
	/* one binary search per column, each from the previous one's end: a
	   few steps */
	const struct np_view *v = f->v;
	double tpp = (v->t1 - v->t0) / v->pw;
	size_t prev = lower(d, 0, np_tkey(v->t0));
	for (size_t i = 0; i < f->ncol; i++) {
		double te = v->t0 + (i + 1) * tpp;
		size_t next = lower(d, prev, np_tkey(te));
		f->col[i] = (struct px_column){ .x = v->px + i, .i0 = prev, .i1 = next };
		prev = next;
	}
}

size_t np_visible(const struct np_view *v, size_t (*lower)(const struct np_dir *, uint64_t),
		  const struct np_dir *d, size_t *i0, size_t *i1)
{
	*i0 = lower(d, np_tkey(v->t0));
	*i1 = lower(d, np_tkey(v->t1));
	if (*i1 < *i0)
		*i1 = *i0;
	return *i1 - *i0;
}

void np_arrow(cairo_t *cr, double x, double y, double fx, double fy)
{
	double dx = x - fx, dy = y - fy, l = hypot(dx, dy);
	if (l < 1)
		return;
	dx /= l;
	dy /= l;
	cairo_move_to(cr, fx, fy);
	cairo_line_to(cr, x, y);
	cairo_stroke(cr);
	cairo_move_to(cr, x, y);
	cairo_line_to(cr, x - 7 * dx + 3 * dy, y - 7 * dy - 3 * dx);
	cairo_line_to(cr, x - 7 * dx - 3 * dy, y - 7 * dy + 3 * dx);
	cairo_close_path(cr);
	cairo_fill(cr);
}

void np_hit_packets(const struct np_view *v, struct np_probe *p, struct np_hit *h, int dir,
		    enum np_hit_kind kind, np_pkt_place_fn *place)
{
	const struct np_dir *d = &np_view_conn(v)->dir[dir];
	size_t i0 = np_pkt_lower(d, p->a), i1 = np_pkt_lower(d, p->b);
	p->total += i1 - i0;
	/* too many to look at one by one: none is a candidate */
	size_t j1 = i1 - i0 > NP_HIT_MAX_ITEMS ? i0 : i1;
	for (size_t i = i0; i < j1; i++) {
		const struct np_pkt *k = &d->pkt[i];
		double lo, hi;
		if (!place(k, &lo, &hi))
			continue;
		double dd = np_probe_dist2(p, np_x(v, (double)k->t), np_y(v, hi), np_y(v, lo));
		if (np_probe_beats(p, h, dd)) {
			p->best = dd;
			*h = (struct np_hit){ .kind = kind, .dir = dir, .index = i,
					      .t = (double)k->t, .seq = lo };
		}
	}
	if (h->kind == NP_HIT_NONE && !p->on_extent && i1 > i0) {
		struct np_pagg g;
		np_pkt_range(d, i0, i1, &g);
		int64_t elo = kind == NP_HIT_ACK ? g.alo : g.dlo;
		int64_t ehi = kind == NP_HIT_ACK ? g.ahi : g.dhi;
		p->on_extent = elo <= ehi && p->seq >= (double)elo - p->reach &&
			       p->seq <= (double)ehi + p->reach;
	}
}

const char *np_dir_name(int dir)
{
	return dir == XDIR_C2S ? "client → server" : "server → client";
}

static void flags_text(uint8_t f, uint16_t ev, char *buf, size_t len)
{
	static const char *const fn[] = { "FIN", "SYN", "RST", "PSH", "ACK", "URG", "ECE", "CWR" };
	static const char *const en[] = { "retransmission", "overlap", "out-of-order",
					  "truncated", "zero-window", "window-probe" };
	size_t o = 0;
	buf[0] = '\0';
	for (int i = 0; i < 8; i++)
		if (f & (1 << i) && o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "", fn[i]);
	for (int i = 0; i < 6; i++)
		if (ev & (1 << i) && o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "", en[i]);
}

void np_describe_packet(const struct np_view *v, const struct np_hit *h, const char *what,
			const char *when, char *buf, size_t len)
{
	const struct np_pkt *p = &np_view_conn(v)->dir[h->dir].pkt[h->index];
	char fl[160];
	flags_text(p->flags, p->events, fl, sizeof fl);
	snprintf(buf, len, "%s, %s\ntime %s\nseq %" PRId64 " len %" PRIu32 "\nack %" PRId64
		 " win %" PRIu32 "\n%s",
		 what, np_dir_name(h->dir), when, p->seq, p->len, p->ack, p->win, fl);
}

void np_show_text(cairo_t *cr, const struct np_render_opts *o, double x, double y,
		  const char *text, struct np_rgb colour)
{
	if (o && o->label_fn) {
		o->label_fn(o->label_ctx, x, y, text, colour);
		return;
	}
	np_set_rgb(cr, colour);
	cairo_move_to(cr, x, y);
	cairo_show_text(cr, text);
}

void np_edge_note(struct np_edge_notes *w, const struct np_view *v, double x, double value)
{
	bool above = value > v->y1;
	if (above && (!w->have || !w->above) && w->n < NP_EDGE_NOTES_MAX &&
	    (w->n == 0 || x - w->last_x >= 160)) {
		w->x[w->n] = fmax(x, v->px);
		w->value[w->n++] = value;
		w->last_x = x;
	}
	w->above = above;
	w->have = true;
}

void np_edge_notes_draw(struct np_frame *f, const struct np_edge_notes *w, const char *what)
{
	const struct np_view *v = f->v;
	cairo_t *cr = f->cr;
	if (!w->n)
		return;
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 10);
	double y = v->py + NP_INPUT_STRIP + 11;
	for (size_t i = 0; i < w->n; i++) {
		char buf[96];
		snprintf(buf, sizeof buf, "%s ↑ %.0f", what, w->value[i]);
		cairo_text_extents_t te;
		cairo_text_extents(cr, buf, &te);
		double x = fmin(w->x[i] + 3, v->px + v->pw - te.x_advance - 3);
		cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
		cairo_rectangle(cr, x - 1, y - 10, te.x_advance + 2, 13);
		cairo_fill(cr);
		/* the window's colour, darker */
		np_show_text(cr, f->o, x, y, buf, (struct np_rgb){ 0.55, 0.45, 0.0 });
	}
	f->label_top = fmax(f->label_top, y + 4);
}
