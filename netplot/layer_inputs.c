/*
 * layer_inputs.c — the user's inputs (keys, buttons, motion) along the
 * top of the plot and the display's response to each as a bar; the input
 * under the pointer and its description (the response time, the bytes
 * and round trips it took).
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "layer.h"
#include "response_model.h"

struct np_rgb np_input_colour(int kind)
{
	switch (kind) {
	case XINPUT_KEY_PRESS:
	case XINPUT_KEY_RELEASE:
		return (struct np_rgb){ 0.80, 0.15, 0.55 };	/* deep pink: not a state's purple */
	case XINPUT_BUTTON_PRESS:
	case XINPUT_BUTTON_RELEASE:
		return (struct np_rgb){ 0.00, 0.55, 0.55 };	/* teal */
	default:
		return (struct np_rgb){ 0.45, 0.45, 0.45 };	/* motion: grey */
	}
}

/* Each input as a small triangle at its time along the top of the plot,
   and its response as a bar from there to the response's last activity
   as captured; an input nothing answered is a hollow triangle.  Where
   several fall in one pixel column only the first is drawn, and a bar
   only when it reaches past the last one. */
static void draw(struct np_frame *f)
{
	const struct np_view *v = f->v;
	const struct np_conn *c = f->c;
	cairo_t *cr = f->cr;
	if (f->o->no_inputs || !c->ninput)
		return;
	size_t i0 = np_input_lower(c, np_tkey(v->t0));
	/* A response begun before the view may still reach into it. */
	while (i0 > 0 && (double)c->input[i0 - 1].end >= v->t0 && c->ninput - i0 < 1u << 20)
		i0--;
	double top = v->py + 1, last_x = -1e9, last_bar = -1e9;
	cairo_set_line_width(cr, 1);
	for (size_t i = i0; i < c->ninput && (double)c->input[i].t <= v->t1; i++) {
		const struct np_input *in = &c->input[i];
		double x = np_cx(np_x(v, (double)in->t)), xe = np_cx(np_x(v, (double)in->end));
		np_set_rgb(cr, np_input_colour(in->kind));
		bool none = in->flags & XRESP_F_NO_RESPONSE;
		if (!none && xe > last_bar) {
			double a = fmax(x, last_bar);
			cairo_rectangle(cr, a, top + 8, fmax(xe - a, 1), 3);
			cairo_fill(cr);
			cairo_move_to(cr, floor(xe) + 0.5, top + 6);	/* the end, a bracket */
			cairo_line_to(cr, floor(xe) + 0.5, top + 13);
			cairo_stroke(cr);
			last_bar = xe;
		}
		if (x - last_x < 1)
			continue;
		last_x = x;
		cairo_move_to(cr, x - 4, top);
		cairo_line_to(cr, x + 4, top);
		cairo_line_to(cr, x, top + 8);
		cairo_close_path(cr);
		if (none)
			cairo_stroke(cr);
		else
			cairo_fill(cr);
	}
}

/* In the inputs' strip along the top: a marker near the pointer, else
   the response bar under it.  The strip is the inputs' alone: a hit there
   ends the search. */
static bool hit(const struct np_view *v, struct np_probe *p, struct np_hit *h)
{
	const struct np_conn *c = np_view_conn(v);
	if (p->y > v->py + NP_INPUT_STRIP || !c->ninput)
		return false;
	bool found = false;
	size_t j0 = np_input_lower(c, p->a), j1 = np_input_lower(c, p->b), at = 0;
	double near = NP_HIT_RADIUS + 1;
	for (size_t j = j0; j < j1 && j < j0 + NP_HIT_MAX_ITEMS; j++) {
		double dx = fabs(p->x - np_x(v, (double)c->input[j].t));
		if (dx < near) {
			near = dx;
			found = true;
			at = j;
		}
	}
	if (!found) {
		uint64_t t = np_tkey(np_t_at(v, p->x));
		/* The latest input begun before the pointer whose response
		   reaches it. */
		for (size_t j = np_input_lower(c, t), n = 0; j > 0 && n < NP_HIT_MAX_ITEMS; j--, n++)
			if (c->input[j - 1].end >= t && !(c->input[j - 1].flags & XRESP_F_NO_RESPONSE)) {
				found = true;
				at = j - 1;
				break;
			}
	}
	if (!found)
		return false;
	*h = (struct np_hit){ .kind = NP_HIT_INPUT, .dir = v->dir, .index = at,
			      .t = (double)c->input[at].t, .seq = np_seq_at(v, v->py + 5) };
	return true;
}

static void describe(const struct np_view *v, const struct np_hit *h, const char *when, char *buf,
		     size_t len)
{
	const struct np_input *in = &np_view_conn(v)->input[h->index];
	const char *what = np_str(v->m, in->what);
	int o = snprintf(buf, len, "input %s%s%s\ntime %s\n", xinput_kind_name(in->kind),
			 *what ? " " : "", what, when);
	if (o < 0 || (size_t)o >= len)
		return;
	if (in->flags & XRESP_F_NO_RESPONSE)
		o += snprintf(buf + o, len - (size_t)o, "no visible response\n");
	else
		o += snprintf(buf + o, len - (size_t)o,
			      "response %.3f ms as the display saw it (%.3f ms of it added for the "
			      "capture point)\nends at %.6f s\n",
			      in->response / 1e6, in->added / 1e6, (double)in->end / 1e9);
	if ((size_t)o < len)
		o += snprintf(buf + o, len - (size_t)o,
			      "bytes %" PRIu64 " client → server, %" PRIu64 " server → client; "
			      "%" PRIu64 " round trips",
			      in->bytes[0], in->bytes[1], in->trips);
	if ((size_t)o < len && in->pixels)
		o += snprintf(buf + o, len - (size_t)o, "; %" PRIu64 " pixels", in->pixels);
	if ((size_t)o < len && (in->flags & ~XRESP_F_NO_RESPONSE))
		snprintf(buf + o, len - (size_t)o, "\n%s%s%s%s",
			 in->flags & XRESP_F_CUT ? "cut short by the next input " : "",
			 in->flags & XRESP_F_UNCERTAIN ? "uncertain (capture lost bytes) " : "",
			 in->flags & XRESP_F_SYNTHETIC ? "sent with SendEvent " : "",
			 in->flags & XRESP_F_NO_RTT ? "round trip unknown, nothing added" : "");
}

const struct np_layer np_layer_inputs = {
	.name = "inputs",
	.kind = NP_HIT_INPUT,
	.draw = draw,
	.hit = hit,
	.describe = describe,
};
