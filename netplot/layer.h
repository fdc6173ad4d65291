/*
 * layer.h — one layer of netplot's picture, whole: how it draws, how it
 * finds its item under the pointer and how it tells of that item, side by
 * side in its own file (layer_NAME.c).  render.c holds the graph's list of
 * layers and walks it to draw, to hit test and to describe; it knows no
 * layer by name.  Private to the renderer: the GUI and the exports see
 * render.h only.
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#ifndef NETPLOT_LAYER_H
#define NETPLOT_LAYER_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cairo.h>

#include "render.h"

/* One pixel column of the plot and the items that fall in it (not a
   table column: those are xcapanalyse's out_column). */
struct px_column {
	double x;		/* left edge of the pixel column */
	size_t i0, i1;		/* items in it */
};

/* One np_render under way: what each layer's draw is given. */
struct np_frame {
	cairo_t *cr;
	const struct np_view *v;
	const struct np_render_opts *o;
	struct np_render_stats *st;
	const struct np_conn *c;
	const struct np_dir *d;		/* the direction drawn (v->dir) */
	const struct np_dir *peer;	/* the other one, whose acks answer it */
	struct px_column *col;		/* scratch, one per pixel column; NULL if none */
	size_t ncol;
	/* Labels are placed below this (a layer drawn before the messages
	   wrote notes along the plot's top edge). */
	double label_top;
};

/* One np_hit_test under way.  The layers are asked from the top (drawn
   last) down; each writes its nearest item into the hit when it is nearer
   than `best` and lowers `best` to it. */
struct np_probe {
	double x, y;		/* the pointer */
	uint64_t a, b;		/* time keys NP_HIT_RADIUS either side of it, [a, b) */
	double seq;		/* the sequence number under the pointer */
	double reach;		/* NP_HIT_RADIUS in sequence numbers */
	double best;		/* squared pixel distance of the hit so far */
	/* Items in [a, b), maybe too many to tell apart: when no layer has
	   a hit, the pointer is on "N packets and messages" if it is on the
	   extent a layer's columns draw there.  A layer looks at its extent
	   only while the hit is none: once there is one, that is the answer. */
	size_t total;
	bool on_extent;
};
#define NP_HIT_RADIUS 6.0
#define NP_HIT_MAX_ITEMS 4096	/* more under the pointer: say how many, not which */

struct np_layer {
	const char *name;
	/* The kind of its hits (np_hit.kind); NP_HIT_NONE for a layer that
	   cannot be pointed at, which then has no hit or describe. */
	enum np_hit_kind kind;
	/* Draw into f->cr, inside the plot's clip; the layer decides itself
	   whether it shows (a state model, f->o's switches). */
	void (*draw)(struct np_frame *f);
	/* Offer the layer's item nearest the pointer (see np_probe).  Returns
	   true when the hit is the layer's alone and no layer beneath is to
	   be asked. */
	bool (*hit)(const struct np_view *v, struct np_probe *p, struct np_hit *h);
	/* A hit of this layer as text; `when` is its time as the details
	   write it. */
	void (*describe)(const struct np_view *v, const struct np_hit *h, const char *when,
			 char *buf, size_t len);
};

/* The layers (layer_NAME.c); render.c lists them in drawing order. */
extern const struct np_layer np_layer_state, np_layer_gaps, np_layer_acks, np_layer_data,
	np_layer_messages, np_layer_marks, np_layer_inputs, np_layer_series, np_layer_lanes;

/* ---- the layers' common kit (layer.c) ---- */

/* Items drawn one by one while there are at most this many per pixel
   column of the plot; beyond it, aggregates per column. */
#define NP_ONE_BY_ONE_PER_COLUMN 1.0

static inline void np_set_rgb(cairo_t *cr, struct np_rgb c)
{
	cairo_set_source_rgb(cr, c.r, c.g, c.b);
}
/* Keep coordinates where cairo's fixed point cannot overflow when zoomed
   far in on a point. */
static inline double np_cx(double x) { return fmax(-1e5, fmin(1e5, x)); }
static inline double np_cy(double y) { return fmax(-1e5, fmin(1e5, y)); }
/* Fill f->col with each pixel column's index range over an array of
   items sorted by time (lower: np_pkt_lower_from, np_msg_lower_from). */
void np_columns(struct np_frame *f, size_t (*lower)(const struct np_dir *, size_t, uint64_t),
		const struct np_dir *d);
/* The index range of the items visible in the view; returns their count. */
size_t np_visible(const struct np_view *v, size_t (*lower)(const struct np_dir *, uint64_t),
		  const struct np_dir *d, size_t *i0, size_t *i1);
/* A line from (fx, fy) with its head at (x, y). */
void np_arrow(cairo_t *cr, double x, double y, double fx, double fy);
/* Squared distance from the pointer to the vertical segment at x from y0
   down to y1 (y0 <= y1; a point when equal). */
static inline double np_probe_dist2(const struct np_probe *p, double x, double y0, double y1)
{
	double dy = p->y < y0 ? y0 - p->y : p->y > y1 ? p->y - y1 : 0, dx = p->x - x;
	return dx * dx + dy * dy;
}
/* Whether an item at squared distance dd takes the hit from h.  A
   message's arrow head sits on the segment carrying it and on the ack
   line: within a pixel and a half of the head the pointer means the
   message, even where the rounded pointer is nearer the bar or the line. */
static inline bool np_probe_beats(const struct np_probe *p, const struct np_hit *h, double dd)
{
	return dd + (h->kind == NP_HIT_MSG ? 2.25 : 0) < p->best;
}
/* A line that does not set the vertical scale (the window's edge; owin's
   advertised window) where it leaves the plot upwards: cut at the top and
   its value written there, one note per 160 pixels.  np_edge_note for
   each point drawn, left to right; np_edge_notes_draw after the line. */
#define NP_EDGE_NOTES_MAX 16
struct np_edge_notes {
	bool above, have;
	double last_x;
	double x[NP_EDGE_NOTES_MAX], value[NP_EDGE_NOTES_MAX];
	size_t n;
};
void np_edge_note(struct np_edge_notes *w, const struct np_view *v, double x, double value);
/* "WHAT ↑ value" at each note, in the window's colour, darker. */
void np_edge_notes_draw(struct np_frame *f, const struct np_edge_notes *w, const char *what);
/* Text of the picture at (x, y), its baseline: as glyphs, or handed to
   o->label_fn (the SVG export's <text>, searchable). */
void np_show_text(cairo_t *cr, const struct np_render_opts *o, double x, double y,
		  const char *text, struct np_rgb colour);
/* Where a layer drawing a segment per packet (data, acks) draws packet k:
   from sequence number lo up to hi (equal: a point).  False when it draws
   none for k. */
typedef bool np_pkt_place_fn(const struct np_pkt *k, double *lo, double *hi);
/* Such a layer's hit test over direction dir's packets: the one nearest the
   pointer becomes a hit of `kind` (its seq: lo).  While there is no hit,
   whether the pointer is on the packets' extent: their ack numbers' for
   NP_HIT_ACK, their data's for any other kind. */
void np_hit_packets(const struct np_view *v, struct np_probe *p, struct np_hit *h, int dir,
		    enum np_hit_kind kind, np_pkt_place_fn *place);
/* "client → server" or "server → client". */
const char *np_dir_name(int dir);
/* A packet of direction h->dir, index h->index, as text; `what` names
   the layer's view of it ("data segment", "acknowledgement"). */
void np_describe_packet(const struct np_view *v, const struct np_hit *h, const char *what,
			const char *when, char *buf, size_t len);

#endif
