/*
 * render.h — netplot's picture: the view (what part of which graph, in
 * what rectangle), its coordinate transforms, the axes, label thinning,
 * drawing onto any cairo context, and finding what is under a point.
 * Plain C and cairo, no GTK: the GUI, the exports and the tests share it.
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#ifndef NETPLOT_RENDER_H
#define NETPLOT_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cairo.h>

#include "model.h"
#include "series.h"

/* Room left around the plot for the axes and the title. */
#define NP_MARGIN_LEFT 96.0
#define NP_MARGIN_RIGHT 16.0
#define NP_MARGIN_TOP 26.0
#define NP_MARGIN_BOTTOM 40.0

struct sites;

struct np_view {
	const struct np_model *m;
	size_t conn;		/* index into m->conn */
	int dir;		/* the direction whose data is drawn */
	double t0, t1;		/* visible time, ns since m->t0 */
	double y0, y1;		/* visible relative sequence numbers */
	int width, height;	/* of the whole picture, pixels */
	double px, py, pw, ph;	/* the plot rectangle inside the axes */
	const struct sites *sites;	/* the call sites beside the trace, or NULL */
	int graph;		/* enum np_graph: which of the family */
};

void np_view_init(struct np_view *v, const struct np_model *m, size_t conn, int dir, int w,
		  int h);
void np_view_set_size(struct np_view *v, int w, int h);
/* The time of the connection's last segment with payload, last message or
   last gap (its first packet's when none). */
uint64_t np_conn_data_end(const struct np_conn *c);
/* Where the connection's activity begins after an idle start: the first
   packet after a pause longer than a tenth of the connection (first
   packet to last data) among its first packets (the handshake, the setup,
   then a client that waits before its first request); its first packet's
   time when there is none. */
uint64_t np_conn_data_start(const struct np_conn *c);
/* Show all of the connection's graph in this direction: from its first
   packet to its last data; an idle start or tail longer than a tenth of
   that is left out, and marked under the time axis. */
void np_view_fit(struct np_view *v);
/* Keep the time span, fit the vertical axis to what is in it (the
   sequence numbers, or the graph's values). */
void np_view_fit_y(struct np_view *v);
const struct np_conn *np_view_conn(const struct np_view *v);

/* Where a picture opens, as the command line asks it (the window's and
   the exports' alike): the connection by id (0: the busiest), the
   direction, the time span in ns since the trace began (r0 < 0: the
   whole connection). */
struct np_open {
	long conn;
	int dir;
	double r0, r1;
	int graph;		/* enum np_graph */
};
/* v opened there, w x h pixels; -1 with err filled when the trace has no
   such connection (err ends with the id quoted) or nothing in the span. */
int np_view_open(struct np_view *v, const struct np_model *m, const struct np_open *at, int w,
		 int h, char *err, size_t errlen);

/* Data to pixels and back.  Inline: the layers call them for every item
   they draw or hit test. */
static inline double np_x(const struct np_view *v, double t)
{
	return v->px + (t - v->t0) / (v->t1 - v->t0) * v->pw;
}
static inline double np_y(const struct np_view *v, double seq)
{
	return v->py + v->ph - (seq - v->y0) / (v->y1 - v->y0) * v->ph;
}
static inline double np_t_at(const struct np_view *v, double x)
{
	return v->t0 + (x - v->px) / v->pw * (v->t1 - v->t0);
}
static inline double np_seq_at(const struct np_view *v, double y)
{
	return v->y0 + (v->py + v->ph - y) / v->ph * (v->y1 - v->y0);
}

/* Zoom by factors about a pixel point (factor < 1 zooms in); pan by pixels;
   zoom to a pixel rectangle.  Nothing zooms below a nanosecond or a byte
   across the plot. */
void np_view_zoom(struct np_view *v, double fx, double fy, double x, double y);
void np_view_pan(struct np_view *v, double dx, double dy);
void np_view_zoom_rect(struct np_view *v, double x0, double y0, double x1, double y1);

/* Axis ticks: a "nice" step giving about `want` ticks over [a, b].  Time
   steps are 1-2-5 below a second, then 1 2 5 10 15 30 s, minutes, hours. */
double np_time_step(double span_ns, int want);
double np_num_step(double span, int want);
/* Time since the trace start as h:mm:ss with as many decimals as the
   step needs (.1 s steps: one decimal, 1 us steps: six). */
void np_format_time(double ns, double step_ns, char *buf, size_t len);

/* Label thinning.  Candidates carry an anchor (the point the arrow hits),
   a text size and a priority; placing takes them by priority and keeps a
   label only where neither it nor its leader line (from its near corner
   to the anchor) overlaps a label already placed, and it fits in the
   bounds.  The result is deterministic and never overlaps. */
struct np_label {
	double ax, ay;		/* anchor */
	double w, h;		/* text extents */
	/* What the label names, kept clear of other labels while they have
	   another place: a point (sw = 0) or, for a run of messages under
	   one label, its bracket's box. */
	double sx, sy, sw, sh;
	/* A run's bracket, drawn along the run 6 px above its ends (xa, ya)
	   and (xb, yb) with ticks 3 px down to them: no label's text may
	   cross it, its own neither. */
	bool bracket;
	double xa, ya, xb, yb;
	uint8_t prio;
	uint32_t order;		/* tie-break: lower first (time order) */
	/* out */
	bool placed;
	double bx, by;		/* top-left corner of the placed box */
};
void np_place_labels(struct np_label *c, size_t n, double x0, double y0, double x1, double y1);
/* Whether label l's bracket crosses the box (x, y, w, h). */
bool np_bracket_crosses(const struct np_label *l, double x, double y, double w, double h);

struct np_rgb { double r, g, b; };

/* What is under pixel (x, y).  Each kind but NONE and MANY is one
   layer's (layer.h: struct np_layer's kind), and that layer describes it;
   MANY is the renderer's own: items too many to tell apart. */
enum np_hit_kind { NP_HIT_NONE, NP_HIT_PKT, NP_HIT_ACK, NP_HIT_MSG, NP_HIT_MANY,
		   NP_HIT_MARK /* index: into the model's marks */,
		   NP_HIT_INPUT /* index: into the connection's inputs */,
		   NP_HIT_SAMPLE /* index: into the graph's series number `series` */ };
struct np_hit {
	enum np_hit_kind kind;
	int dir;			/* direction of the array holding it */
	size_t index;			/* NP_HIT_INPUT: into the connection's inputs */
	size_t count;			/* NP_HIT_MANY: items under the pointer */
	int series;			/* NP_HIT_SAMPLE: which of the graph's series */
	double t, seq;			/* where to ring it */
};
struct np_render_opts {
	bool have_sel;			/* a selected time span to shade */
	double sel_t0, sel_t1;
	bool have_mark;			/* a selected item to ring */
	double mark_t, mark_seq;
	/* What the ring is (a hit; kind NP_HIT_NONE: a bare ring): written
	   beside it, and a request's wait for its reply drawn to the reply. */
	struct np_hit mark_hit;
	bool no_labels;
	bool no_inputs;			/* leave out the inputs and their response spans */
	/* When set, message labels are handed here instead of drawn as glyphs
	   (the SVG export writes them as <text>, searchable and selectable). */
	void (*label_fn)(void *ctx, double x, double y, const char *text, struct np_rgb colour);
	void *label_ctx;
};

/* Stats of the last render, for the benchmark and tests. */
struct np_render_stats {
	size_t columns;			/* pixel columns aggregated */
	size_t items;			/* items drawn one by one */
	size_t labels, label_candidates;
	size_t runs;			/* labels of a run of one request ("AllocColor ×212") */
	/* Pairs of drawn label boxes that overlap, counted box by box after
	   drawing: 0 unless the placing is wrong. */
	size_t label_overlaps;
};

/* The family's graphs other than the time-sequence graph are drawn from
   the packets: a span of a huge trace too long to read for a picture
   (drawn from TRACE.idx's buckets, which hold what the time-sequence
   graph needs only) gets this note over the plot instead, the span's
   cost (bytes of the trace) in it. */
void np_render_needs_packets(cairo_t *cr, const struct np_view *v, double cost_bytes);
void np_render(cairo_t *cr, const struct np_view *v, const struct np_render_opts *o,
	       struct np_render_stats *st);
/* Have the renderer's text ready for cr's kind of surface: the font found
   (fontconfig) and the glyphs of its sizes made, drawn on a scratch
   surface of one pixel.  Otherwise the first np_render of a process pays
   for it, some 10-30 ms; the benchmark does it before timing and says how
   long it took.  Draws nothing on cr. */
void np_render_prepare_text(cairo_t *cr);

/* Colours, one place: tcptrace's green ack and yellow window, etc. */
extern const struct np_rgb NP_COL_ACK, NP_COL_WIN, NP_COL_DATA, NP_COL_RETRANS, NP_COL_SYNFIN,
	NP_COL_RST, NP_COL_ZEROWIN, NP_COL_GAP, NP_COL_MARK;
struct np_rgb np_msg_colour(const struct np_model *m, const struct np_dir *d,
			    const struct np_msg *g);
struct np_rgb np_state_colour(int state);
/* The family's series (struct np_series.colour). */
struct np_rgb np_series_colour(int i);
/* Inputs along the top of the plot, by kind (enum xinput_kind): keys,
   buttons, motion. */
struct np_rgb np_input_colour(int kind);
/* The strip at the top of the plot where inputs are drawn: [y0, y1). */
#define NP_INPUT_STRIP 14.0

void np_hit_test(const struct np_view *v, double x, double y, struct np_hit *h);
/* The hit as text for a tooltip or the details pane. */
void np_describe(const struct np_view *v, const struct np_hit *h, char *buf, size_t len);
void np_describe_region(const struct np_view *v, double t0, double t1, char *buf, size_t len);

/* A graph's title ("round-trip time"; "" for the time-sequence graph)
   and its vertical axis's label. */
const char *np_graph_title(int g);
const char *np_graph_ylabel(int g);

/* Headless output (export.c): format from the name's extension, .png
   .svg .pdf or .xpl.  Returns 0 or -1 with err filled. */
int np_export(const struct np_view *v, const char *path, char *err, size_t errlen);
/* The same with render options (NULL: the defaults), such as no_inputs. */
int np_export_with(const struct np_view *v, const struct np_render_opts *ro, const char *path,
		   char *err, size_t errlen);
int np_export_xpl(const struct np_view *v, const char *path, char *err, size_t errlen);

#endif
