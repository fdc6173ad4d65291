/*
 * layer_messages.c — the protocol's messages: an arrow into the sequence
 * number where each ends, coloured by the client's state (or by kind),
 * named where the labels find room; the message under the pointer and its
 * description (the reply's latency, the client's wait on it and, with
 * xcap-run's call sites, the code that waited).
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer.h"
#include "sites.h"

struct np_rgb np_msg_colour(const struct np_model *m, const struct np_dir *d,
			    const struct np_msg *g)
{
	/* By the state the sender was in when the message ended, when the
	   state model ran; else by kind. */
	if (m->have_state)
		return np_state_colour(np_state_at(d, g->t));
	switch (g->kind) {
	case XMSG_REQUEST: return (struct np_rgb){ 0.15, 0.35, 0.85 };
	case XMSG_REPLY: return (struct np_rgb){ 0.0, 0.45, 0.55 };
	case XMSG_EVENT: return (struct np_rgb){ 0.5, 0.3, 0.1 };
	case XMSG_ERROR: return (struct np_rgb){ 0.85, 0.1, 0.1 };
	default: return (struct np_rgb){ 0.3, 0.3, 0.3 };
	}
}

static void draw(struct np_frame *f)
{
	const struct np_view *v = f->v;
	const struct np_dir *d = f->d;
	const struct np_render_opts *o = f->o;
	cairo_t *cr = f->cr;
	size_t i0, i1;
	size_t n = np_visible(v, np_msg_lower, d, &i0, &i1);
	if (!n)
		return;
	bool one_by_one = n <= v->pw / 2;
	if (!one_by_one && !f->col)
		return;
	/* Candidates for a label: every visible message when few, else the
	   highest-priority message of each slot of a few pixels. */
	const double slot = 4;
	size_t cap = one_by_one ? n : (size_t)(v->pw / slot) + 1;
	uint32_t *idx = malloc(cap * sizeof *idx);
	struct np_label *lab = malloc(cap * sizeof *lab);
	if (!idx || !lab) {
		free(idx);
		free(lab);
		return;
	}
	size_t nc = 0;
	if (one_by_one) {
		for (size_t i = i0; i < i1; i++)
			idx[nc++] = (uint32_t)i;
	} else {
		np_columns(f, np_msg_lower_from, d);
		const struct px_column *col = f->col;
		size_t ncol = f->ncol;
		/* the message ticks per column, in one colour (their extremes) */
		cairo_new_path(cr);
		for (size_t i = 0; i < ncol; i++) {
			if (col[i].i0 == col[i].i1)
				continue;
			struct np_magg g;
			np_msg_range(d, col[i].i0, col[i].i1, &g);
			double x = col[i].x + 0.5;
			cairo_move_to(cr, x + 3, np_cy(np_y(v, (double)g.ehi)) - 3);
			cairo_line_to(cr, x, np_cy(np_y(v, (double)g.ehi)));
		}
		cairo_set_source_rgba(cr, 0.15, 0.35, 0.85, 0.5);
		cairo_stroke(cr);
		for (size_t s = 0; s < ncol && nc < cap; s += (size_t)slot) {
			size_t e = s + (size_t)slot < ncol ? s + (size_t)slot : ncol;
			if (col[s].i0 == col[e - 1].i1)
				continue;
			struct np_magg g;
			np_msg_range(d, col[s].i0, col[e - 1].i1, &g);
			if (g.count)
				idx[nc++] = g.best;
		}
	}
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 10);
	/* Runs: consecutive candidates of the same request (name and
	   extension) are one label, "AllocColor ×212", over a bracket along
	   the run, unless the zoom gives each of them room for its own. */
	struct run { size_t k0, k1; uint64_t count; bool more; } *run = malloc(nc * sizeof *run + 1);
	if (!run) {
		free(idx);
		free(lab);
		return;
	}
	size_t nrun = 0;
	char title[160];
	for (size_t k = 0; k < nc;) {
		const struct np_msg *g = &d->msg[idx[k]];
		size_t e = k + 1;
		while (e < nc && d->msg[idx[e]].name == g->name && d->msg[idx[e]].ext == g->ext)
			e++;
		struct run r = { k, e, e - k, false };
		if (e - k >= 2) {
			/* its pixel extent against what its labels need */
			cairo_text_extents_t te;
			np_msg_title(v->m, g, title, sizeof title);
			cairo_text_extents(cr, title, &te);
			const struct np_msg *h = &d->msg[idx[e - 1]];
			double dx = np_x(v, (double)h->t) - np_x(v, (double)g->t);
			double dy = fabs(np_y(v, (double)h->end) - np_y(v, (double)g->end));
			double gaps = (double)(e - k - 1);
			if (dx >= gaps * (te.x_advance + 10) || dy >= gaps * 16) {
				for (size_t j = k; j < e; j++)	/* room for each: open */
					run[nrun++] = (struct run){ j, j + 1, 1, false };
				k = e;
				continue;
			}
			if (!one_by_one) {
				/* candidates stand for slots: count the run's own
				   messages, as far as that is cheap */
				r.count = 0;
				size_t first = idx[k], last = idx[e - 1];
				/* and its first and last, beside the slots' best */
				while (first > i0 && idx[k] - first < 4096 &&
				       d->msg[first - 1].name == g->name && d->msg[first - 1].ext == g->ext)
					first--;
				while (last + 1 < i1 && last - idx[e - 1] < 4096 &&
				       d->msg[last + 1].name == g->name && d->msg[last + 1].ext == g->ext)
					last++;
				if (last - first > 65536)
					r.more = true;
				else
					for (size_t i = first; i <= last; i++)
						r.count += d->msg[i].name == g->name &&
							   d->msg[i].ext == g->ext;
				if (!r.more && r.count < last - first + 1) {
					/* other requests between: not a run */
					for (size_t j = k; j < e; j++)
						run[nrun++] = (struct run){ j, j + 1, 1, false };
					k = e;
					continue;
				}
			}
		}
		run[nrun++] = r;
		k = e;
	}
	for (size_t q = 0; q < nrun; q++) {
		const struct run *r = &run[q];
		const struct np_msg *g = &d->msg[idx[r->k0]];
		cairo_text_extents_t te;
		np_msg_title(v->m, g, title, sizeof title);
		size_t tl = strlen(title);
		if (r->more)
			snprintf(title + tl, sizeof title - tl, " ×many");
		else if (r->count > 1)
			snprintf(title + tl, sizeof title - tl, " ×%" PRIu64, r->count);
		cairo_text_extents(cr, title, &te);
		lab[q] = (struct np_label){
			.ax = np_x(v, (double)g->t), .ay = np_y(v, (double)g->end),
			.w = te.x_advance + 2, .h = 12, .prio = g->prio, .order = idx[r->k0],
		};
		if (r->k1 - r->k0 > 1) {
			/* the bracket: along the run, 6 px above its points */
			const struct np_msg *h = &d->msg[idx[r->k1 - 1]];
			double xa = lab[q].ax, ya = lab[q].ay - 6;
			double xb = np_x(v, (double)h->t), yb = np_y(v, (double)h->end) - 6;
			lab[q].ax = (xa + xb) / 2;
			lab[q].ay = (ya + yb) / 2;
			lab[q].sx = fmin(xa, xb);
			lab[q].sy = fmin(ya, yb);
			lab[q].sw = fmax(fabs(xb - xa), 1);
			lab[q].sh = fmax(fabs(yb - ya), 1) + 4;
			lab[q].bracket = true;
			lab[q].xa = xa;
			lab[q].ya = ya + 6;
			lab[q].xb = xb;
			lab[q].yb = yb + 6;
			lab[q].prio = 255;	/* a run says more than any one request */
		}
	}
	if (!o->no_labels)
		np_place_labels(lab, nrun, v->px, fmax(v->py, f->label_top), v->px + v->pw,
				v->py + v->ph - 8);
	else
		for (size_t q = 0; q < nrun; q++)
			lab[q].placed = false;
	f->st->label_candidates += nrun;
	for (size_t q = 0; q < nrun; q++) {
		const struct run *r = &run[q];
		const struct np_msg *g = &d->msg[idx[r->k0]];
		const struct np_label *l = &lab[q];
		if (l->ay < v->py - 20 || l->ay > v->py + v->ph + 20)
			continue;
		struct np_rgb colour = np_msg_colour(v->m, d, g);
		np_set_rgb(cr, colour);
		cairo_set_line_width(cr, 1);
		bool is_run = r->k1 - r->k0 > 1;
		if (one_by_one)	/* each message its arrow, labelled or not */
			for (size_t k = r->k0; k < r->k1; k++) {
				const struct np_msg *m = &d->msg[idx[k]];
				double ax = np_x(v, (double)m->t), ay = np_y(v, (double)m->end);
				if (!l->placed || is_run)
					np_arrow(cr, ax, ay, ax + 7, ay - 7);
				f->st->items++;
			}
		if (is_run && l->placed) {
			/* the bracket, its ends ticked down to the run's first and
			   last requests */
			const struct np_msg *h = &d->msg[idx[r->k1 - 1]];
			double xa = np_x(v, (double)g->t), ya = np_y(v, (double)g->end);
			double xb = np_x(v, (double)h->t), yb = np_y(v, (double)h->end);
			cairo_move_to(cr, xa, ya - 3);
			cairo_line_to(cr, xa, ya - 6);
			cairo_line_to(cr, xb, yb - 6);
			cairo_line_to(cr, xb, yb - 3);
			cairo_stroke(cr);
		}
		if (!l->placed)
			continue;
		/* the line runs from the label's near corner to the point */
		double fx = l->bx < l->ax ? l->bx + l->w : l->bx;
		double fy = l->by < l->ay ? l->by + l->h : l->by;
		if (is_run) {
			cairo_move_to(cr, fx, fy);
			cairo_line_to(cr, l->ax, l->ay);
			cairo_stroke(cr);
			f->st->runs++;
		} else {
			np_arrow(cr, l->ax, l->ay, fx, fy);
		}
		np_msg_title(v->m, g, title, sizeof title);
		size_t tl = strlen(title);
		if (r->more)
			snprintf(title + tl, sizeof title - tl, " ×many");
		else if (r->count > 1)
			snprintf(title + tl, sizeof title - tl, " ×%" PRIu64, r->count);
		np_show_text(cr, o, l->bx + 1, l->by + 9.5, title, colour);
		f->st->labels++;
	}
	/* What was drawn, counted box by box, and each drawn bracket against
	   every text (its own too): the placing promises none. */
	for (size_t a = 0; a < nrun; a++) {
		for (size_t b = a + 1; b < nrun && lab[a].placed; b++)
			f->st->label_overlaps += lab[b].placed && lab[a].bx < lab[b].bx + lab[b].w &&
						 lab[b].bx < lab[a].bx + lab[a].w &&
						 lab[a].by < lab[b].by + lab[b].h &&
						 lab[b].by < lab[a].by + lab[a].h;
		for (size_t b = 0; b < nrun && lab[a].placed && lab[a].bracket; b++)
			f->st->label_overlaps +=
				lab[b].placed && np_bracket_crosses(&lab[a], lab[b].bx, lab[b].by,
								    lab[b].w, lab[b].h);
	}
	free(run);
	free(idx);
	free(lab);
}

/* The message whose end is nearest the pointer.  Messages are what a
   user points at: one wins a tie with the packet it rides in (it is
   asked first, and a later message must be half a pixel² nearer). */
static bool hit(const struct np_view *v, struct np_probe *p, struct np_hit *h)
{
	int dir = v->dir;
	const struct np_dir *d = &np_view_conn(v)->dir[dir];
	size_t i0 = np_msg_lower(d, p->a), i1 = np_msg_lower(d, p->b);
	p->total += i1 - i0;
	size_t j0 = i0, j1 = i1;
	struct np_magg g = { .count = 0 };
	bool have_g = false;
	if (i1 - i0 > NP_HIT_MAX_ITEMS) {
		/* too many: the most important one (the one likely labelled)
		   is the candidate */
		np_msg_range(d, i0, i1, &g);
		have_g = true;
		j0 = g.count ? g.best : 0;
		j1 = g.count ? j0 + 1 : 0;
	}
	for (size_t i = j0; i < j1; i++) {
		const struct np_msg *m = &d->msg[i];
		double y = np_y(v, (double)m->end);
		double dd = np_probe_dist2(p, np_x(v, (double)m->t), y, y);
		if (dd < p->best - 0.5) {
			p->best = dd;
			*h = (struct np_hit){ .kind = NP_HIT_MSG, .dir = dir, .index = i,
					      .t = (double)m->t, .seq = (double)m->end };
		}
	}
	if (h->kind == NP_HIT_NONE && !p->on_extent && i1 > i0) {
		if (!have_g)
			np_msg_range(d, i0, i1, &g);
		p->on_extent = g.count && p->seq >= (double)g.elo - p->reach &&
			       p->seq <= (double)g.ehi + p->reach;
	}
	return false;
}

static void describe(const struct np_view *v, const struct np_hit *h, const char *when, char *buf,
		     size_t len)
{
	const struct np_conn *c = np_view_conn(v);
	const struct np_msg *g = &c->dir[h->dir].msg[h->index];
	static const char *const kinds[] = { "?", "setup", "request", "reply", "event",
					     "error", "unknown" };
	char title[160], lat[64] = "";
	np_msg_title(v->m, g, title, sizeof title);
	if (g->kind == XMSG_REQUEST && g->reply_t)
		snprintf(lat, sizeof lat, "\nreply latency %.3f ms", (g->reply_t - g->t) / 1e6);
	/* The client blocked on it: the wait, and how much of it was its own
	   output still queued before the request left. */
	const struct np_wait *w = h->dir == XDIR_C2S ? np_conn_wait(c, g->seq) : NULL;
	char waited[224] = "";
	if (w) {
		double proper = (double)(w->reply - w->start) / 1e6, queued = (double)w->queued / 1e6;
		int o = snprintf(waited, sizeof waited, "\nclient waited %.3f ms", proper + queued);
		if (w->queued)
			o += snprintf(waited + o, sizeof waited - (size_t)o,
				      ", of which %.3f ms its own output was still queued", queued);
		if (w->burst_first != w->burst_last)
			snprintf(waited + o, sizeof waited - (size_t)o,
				 "\n(or on seq %" PRIu64 "..%" PRIu64 ": answered together)",
				 w->burst_first, w->burst_last);
	}
	/* The code that waited, when xcap-run recorded it (TRACE.sites). */
	char stack[1024] = "";
	const char *f = NULL;
	size_t nf = w && v->sites ? sites_stack_of(v->sites, c->client.port, w->seq, w->burst_first,
						   w->burst_last, v->m->t0 + w->start,
						   v->m->t0 + w->reply, &f)
				  : 0;
	for (size_t i = 0, o = 0; i < nf && i < 12 && o < sizeof stack; i++, f += strlen(f) + 1)
		o += (size_t)snprintf(stack + o, sizeof stack - o, "%s  %s", i ? "\n" : "\nstack:\n",
				      f);
	const char *detail = np_str(v->m, g->detail);
	snprintf(buf, len, "%s %s\nX seq %" PRIu64 ", %" PRIu32 " bytes, %s\ntime %s, ends at seq %" PRId64
		 "%s%s%s%s%s%s",
		 kinds[g->kind < 7 ? g->kind : 0], title, g->seq, g->length, np_dir_name(h->dir), when,
		 g->end, lat, waited, *detail ? "\n" : "", detail,
		 g->flags & XMSG_F_UNCERTAIN ? "\n(uncertain: after a gap)" : "", stack);
}

const struct np_layer np_layer_messages = {
	.name = "messages",
	.kind = NP_HIT_MSG,
	.draw = draw,
	.hit = hit,
	.describe = describe,
};
