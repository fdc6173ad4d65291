/*
 * layer_state.c — the state band: a strip along the bottom of the plot
 * coloured by the client's state (Idle, Block Send, Block Recv, Block
 * Reply) when the state model ran.  Nothing to point at: the region's
 * details give the states' shares.
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#include "config.h"

#include "layer.h"

static void draw(struct np_frame *f)
{
	const struct np_view *v = f->v;
	if (!v->m->have_state)
		return;
	/* The requests' direction: the client's state, whichever is drawn. */
	const struct np_dir *d = &f->c->dir[XDIR_C2S];
	cairo_t *cr = f->cr;
	/* Per column the most severe state any interval in it has (looking
	   at a few intervals at most). */
	double tpp = (v->t1 - v->t0) / v->pw;
	double yb = v->py + v->ph - 7;
	size_t ncol = (size_t)v->pw;
	int run_state = -1;
	double run_x = v->px;
	size_t from = 0;	/* the columns' first intervals only move on */
	for (size_t i = 0; i <= ncol; i++) {
		int st = -1;
		if (i < ncol) {
			double a = v->t0 + i * tpp, b = a + tpp;
			st = 0;
			size_t k = from = np_iv_lower_from(d, from, np_tkey(a));
			for (int n = 0; n < 8 && k < d->niv && (double)d->iv[k].start < b; n++, k++)
				if (d->iv[k].state > st)
					st = d->iv[k].state;
		}
		if (st != run_state) {
			if (run_state >= 0) {
				np_set_rgb(cr, np_state_colour(run_state));
				cairo_rectangle(cr, run_x, yb, v->px + i - run_x, 6);
				cairo_fill(cr);
			}
			run_state = st;
			run_x = v->px + i;
		}
	}
}

const struct np_layer np_layer_state = {
	.name = "state",
	.kind = NP_HIT_NONE,
	.draw = draw,
};
