/*
 * gui.c — the viewer: a GtkApplication whose every command is a GAction,
 * so menus, keys and buttons all go through one place.
 *
 * One window per file.  The picture is np_render's; this file only turns
 * pointer and key input into view changes, and hits into text.
 *
 * Belongs to: the netplot command's room (netplot/cmd/netplot/).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "cdfwin.h"
#include "gui.h"
#include "index.h"
#include "render.h"
#include "sites.h"

#define STACK_MAX 64
/* The details pane: some 40 characters of its monospace text. */
#define DETAILS_WIDTH 320

enum drag { DRAG_NONE, DRAG_ZOOM, DRAG_ZOOM_X, DRAG_ZOOM_Y, DRAG_PAN, DRAG_SELECT };

struct saved { double t0, t1, y0, y1; };

struct win {
	GtkApplicationWindow *window;
	GtkWidget *area, *combo, *details, *dirbutton, *status;
	struct np_model *m;
	struct sites *sites;		/* TRACE.sites beside the trace (xcap-run), or NULL */
	struct np_view v;
	struct saved stack[STACK_MAX];	/* the zoom stack */
	int nstack;
	enum drag drag;
	double x0, y0, x1, y1;		/* drag start and current point */
	int pan_axis;			/* DRAG_PAN: 0 both, 1 time only, 2 sequence only */
	struct np_render_opts ro;
	cairo_surface_t *frame;		/* the picture, drawn as an export draws it */
	bool filling;			/* updating widgets: ignore their signals */
	bool loading;			/* reading a file: no other may open, the window stays */
	struct saved logged;		/* the view last logged (NETPLOT_LOG) */
	int logged_w, logged_h, logged_dir, logged_graph;
	size_t logged_conn;
	/* --follow: the session's files and what they were when last read */
	char **paths;
	size_t npaths;
	guint follow_source;
	unsigned long long follow_stamp;
	gint64 follow_next;		/* monotonic µs before which not to read again */
	/* A huge trace: drawn from its index (TRACE.idx), with m holding only
	   the span [win_t0, win_t1] of the connection shown, read from the
	   trace blocks the index names, once a view is fine enough. */
	struct np_index *ix;
	char *ix_path;
	size_t ix_conn;			/* index connection of m's window */
	uint64_t win_t0, win_t1;
	/* An index without the states (xcap's): made again with them in a
	   thread, looked at every 100 ms. */
	struct np_states_job *states;
	guint states_source;
	gint64 states_began;		/* µs, g_get_monotonic_time */
	/* A span too dear for one frame but not for a few: read a frame's
	   worth at a time when idle, drawn from the buckets meanwhile. */
	struct np_window_job *refine;
	guint refine_source;
	size_t refine_conn;
	uint64_t refine_t0, refine_t1;
};


/* What the command line asked (np_gui_run); the first file opened opens
   there, the later ones on their busiest connection. */
static struct np_gui_start start;
static bool start_pending;

/* NETPLOT_LOG=1: every view change, the plot's place on the screen and
   each tooltip go to stderr as one line, for scripts and the GUI test. */
static bool log_on;

static void log_view(struct win *w)
{
	if (!log_on || !w->m)
		return;
	int ox = 0, oy = 0;
	GdkWindow *gw = gtk_widget_get_window(w->area);
	if (gw)
		gdk_window_get_origin(gw, &ox, &oy);
	fprintf(stderr,
		"netplot: view conn=%u dir=%s t0=%.0f t1=%.0f y0=%.3f y1=%.3f stack=%d "
		"graph=%s plot=%.0f,%.0f,%.0f,%.0f\n",
		np_view_conn(&w->v) ? np_view_conn(&w->v)->id : 0, w->v.dir ? "reply" : "request",
		w->v.t0, w->v.t1, w->v.y0, w->v.y1, w->nstack, np_graph_name(w->v.graph),
		ox + w->v.px, oy + w->v.py, w->v.pw, w->v.ph);
}

/* A multi-line text as one log line. */
static void log_text(const char *what, const char *text)
{
	if (!log_on)
		return;
	fprintf(stderr, "netplot: %s ", what);
	for (const char *s = text; *s; s++) {
		if (*s == '\n')
			fputs(s[1] ? " | " : "", stderr);
		else
			fputc(*s, stderr);
	}
	fputc('\n', stderr);
}

static void set_details(struct win *w, const char *text)
{
	GtkTextBuffer *b = gtk_text_view_get_buffer(GTK_TEXT_VIEW(w->details));
	gtk_text_buffer_set_text(b, text, -1);
}

static void update_status(struct win *w)
{
	char a[64], b[64], buf[256];
	double step = np_time_step(w->v.t1 - w->v.t0, 8);
	np_format_time(fmax(w->v.t0, 0), step, a, sizeof a);
	np_format_time(w->v.t1, step, b, sizeof b);
	snprintf(buf, sizeof buf, "%s – %s    zoom stack %d    %s    graph %s (keys 1-6)", a, b,
		 w->nstack, w->v.dir == 0 ? "requests" : "replies", np_graph_name(w->v.graph));
	gtk_label_set_text(GTK_LABEL(w->status), buf);
}

static void redraw(struct win *w)
{
	gtk_widget_queue_draw(w->area);
	update_status(w);
}

static void push(struct win *w)
{
	if (w->nstack == STACK_MAX) {
		memmove(w->stack, w->stack + 1, (STACK_MAX - 1) * sizeof *w->stack);
		w->nstack--;
	}
	w->stack[w->nstack++] = (struct saved){ w->v.t0, w->v.t1, w->v.y0, w->v.y1 };
}

static void fill_combo(struct win *w)
{
	w->filling = true;
	gtk_combo_box_text_remove_all(GTK_COMBO_BOX_TEXT(w->combo));
	for (size_t i = 0; w->m && i < w->m->nconn; i++) {
		const struct np_conn *c = &w->m->conn[i];
		char buf[256];
		/* Through an index the model holds a span only: the label
		   has the connection's count from the index. */
		if (w->ix)
			snprintf(buf, sizeof buf, "#%u %s", c->id, c->label);
		else
			snprintf(buf, sizeof buf, "#%u %s  (%zu + %zu packets)", c->id, c->label,
				 c->dir[0].npkt, c->dir[1].npkt);
		gtk_combo_box_text_append_text(GTK_COMBO_BOX_TEXT(w->combo), buf);
	}
	if (w->m && w->m->nconn)
		gtk_combo_box_set_active(GTK_COMBO_BOX(w->combo), (gint)w->v.conn);
	w->filling = false;
}

static void index_fit_y(struct win *w);

static void show_conn(struct win *w, size_t conn, int dir)
{
	if (!w->m || conn >= w->m->nconn)
		return;
	int width = w->v.width ? w->v.width : 900, height = w->v.height ? w->v.height : 600;
	int graph = w->v.graph;	/* the graph shown stays, for the new connection */
	np_view_init(&w->v, w->m, conn, dir, width, height);
	if (graph) {
		w->v.graph = graph;
		np_view_fit_y(&w->v);
	}
	if (w->ix)
		index_fit_y(w);
	w->v.sites = w->sites;
	w->nstack = 0;
	w->ro.have_sel = w->ro.have_mark = false;
	w->filling = true;
	gtk_combo_box_set_active(GTK_COMBO_BOX(w->combo), (gint)conn);
	gtk_button_set_label(GTK_BUTTON(w->dirbutton), dir == 0 ? "Requests" : "Replies");
	w->filling = false;
	set_details(w, "Hover over a packet or message to see it; click to keep it here.\n"
		       "Drag to zoom, shift-drag to select a time span.");
	redraw(w);
}

/* The view the command line asked for (--conn, --direction, --range):
   what the trace lacks is said on the status line, and the window shows
   what it has. */
static void open_at(struct win *w)
{
	start_pending = false;
	char err[256];
	struct np_view v;
	if (np_view_open(&v, w->m, &start.at, 900, 600, err, sizeof err) < 0) {
		show_conn(w, w->v.conn, start.at.dir);
		char buf[400];
		snprintf(buf, sizeof buf, "%s: showing the busiest connection", err);
		gtk_label_set_text(GTK_LABEL(w->status), buf);
		log_text("warning", buf);
		fprintf(stderr, "netplot: %s\n", buf);
		return;
	}
	w->v.graph = start.at.graph;
	show_conn(w, v.conn, v.dir);
	if (start.at.r0 >= 0) {
		w->v.t0 = start.at.r0;
		w->v.t1 = start.at.r1;
		np_view_fit_y(&w->v);
		if (w->ix)
			index_fit_y(w);
		redraw(w);
	}
}

/* Traces of at least this many bytes (NETPLOT_INDEX_MIN, default 1 GB)
   open through their index. */
static bool wants_index(const char *path)
{
	const char *min = g_getenv("NETPLOT_INDEX_MIN");
	unsigned long long at_least = min ? g_ascii_strtoull(min, NULL, 10) : 1000000000ull;
	GStatBuf sb;
	return g_str_has_suffix(path, ".xcap") && g_stat(path, &sb) == 0 &&
	       (unsigned long long)sb.st_size >= at_least;
}

/* The index connection of the model's connection index conn. */
static size_t ix_conn_of(const struct win *w, size_t conn)
{
	uint32_t want = w->m && conn < w->m->nconn ? w->m->conn[conn].id : 0;
	for (size_t i = 0; i < np_index_conns(w->ix); i++) {
		uint32_t id;
		uint64_t a, b, n[2];
		np_index_conn(w->ix, i, &id, &a, &b, n);
		if (id == want)
			return i;
	}
	return 0;
}

/* The y range of the view's span from the index. */
static void index_fit_y(struct win *w)
{
	struct xidx_bucket k;
	double t0 = w->v.t0 < 0 ? 0 : w->v.t0;
	np_index_range(w->ix, ix_conn_of(w, w->v.conn), w->v.dir, (uint64_t)t0, (uint64_t)w->v.t1 + 1,
		       (uint64_t)((w->v.t1 - t0) / (w->v.pw > 1 ? w->v.pw : 1)), &k);
	double lo = k.dlo < k.alo ? (double)k.dlo : (double)k.alo;
	double hi = k.dhi > k.ahi ? (double)k.dhi : (double)k.ahi;
	if (hi > lo) {
		double pad = (hi - lo) * 0.04;
		w->v.y0 = lo - pad;
		w->v.y1 = hi + pad;
	}
}

/* m becomes the window [a, b] of index connection i. */
static void index_install(struct win *w, struct np_model *m, size_t i, uint64_t a, uint64_t b)
{
	uint32_t id;
	uint64_t first, last, n[2];
	np_index_conn(w->ix, i, &id, &first, &last, n);
	m->conn[id - 1].first = first;	/* All shows the whole connection */
	m->conn[id - 1].last = last;
	np_model_free(w->m);
	w->m = m;
	w->v.m = m;
	w->ix_conn = i;
	w->win_t0 = a;
	w->win_t1 = b;
	if (log_on)
		fprintf(stderr, "netplot: window conn=%u t0=%llu t1=%llu packets=%llu\n", id,
			(unsigned long long)a, (unsigned long long)b, (unsigned long long)m->npkt);
}

static void refine_stop(struct win *w)
{
	if (w->refine_source)
		g_source_remove(w->refine_source);
	w->refine_source = 0;
	np_index_window_free(w->refine);
	w->refine = NULL;
}

/* A frame's worth of the span being read; at its end the window drawn
   with its packets and labels. */
static gboolean refine_tick(gpointer data)
{
	struct win *w = data;
	char err[512];
	int st = np_index_window_step(w->refine, NP_INDEX_WINDOW_BYTES, err, sizeof err);
	if (st == 0)
		return G_SOURCE_CONTINUE;
	struct np_window_job *j = w->refine;
	size_t chunks = np_index_window_chunks(j);
	w->refine = NULL;
	w->refine_source = 0;
	struct np_model *m = st > 0 ? np_index_window_end(j, err, sizeof err) : NULL;
	if (st < 0)
		np_index_window_free(j);
	if (!m) {
		fprintf(stderr, "netplot: cannot read the span: %s: '%s'\n", err, w->ix_path);
		return G_SOURCE_REMOVE;
	}
	if (log_on)
		fprintf(stderr, "netplot: refined in %zu steps\n", chunks);
	index_install(w, m, w->refine_conn, w->refine_t0, w->refine_t1);
	redraw(w);
	return G_SOURCE_REMOVE;
}

/* Make m the window of the view's span when the view is fine enough and
   m does not hold it yet.  A window twice the view's span is read, so
   that panning a little reads nothing. */
static void index_sync(struct win *w)
{
	if (!w->ix)
		return;
	size_t i = ix_conn_of(w, w->v.conn);
	double t0 = w->v.t0 < 0 ? 0 : w->v.t0, t1 = w->v.t1 < 0 ? 0 : w->v.t1;
	if (i == w->ix_conn && t0 >= (double)w->win_t0 && t1 <= (double)w->win_t1)
		return;
	if (w->refine && i == w->refine_conn && t0 >= (double)w->refine_t0 &&
	    t1 <= (double)w->refine_t1)
		return;	/* on its way */
	refine_stop(w);
	double span = t1 - t0;
	uint64_t a = t0 > span / 2 ? (uint64_t)(t0 - span / 2) : 0, b = (uint64_t)(t1 + span / 2);
	/* What reading it would cost, from the index: a span too dear for
	   one frame is drawn from the buckets (index_columns), and read a
	   frame's worth at a time afterwards when it is not too dear for
	   that either. */
	char err[512];
	size_t cost = np_index_window_cost(w->ix, i, a, b);
	if (cost > NP_INDEX_WINDOW_BYTES) {
		if (cost > NP_INDEX_REFINE_BYTES)
			return;
		w->refine = np_index_window_begin(w->ix, w->ix_path, i, a, b, err, sizeof err);
		if (!w->refine) {
			fprintf(stderr, "netplot: cannot read the span: %s: '%s'\n", err, w->ix_path);
			return;
		}
		w->refine_conn = i;
		w->refine_t0 = a;
		w->refine_t1 = b;
		w->refine_source = g_idle_add(refine_tick, w);
		if (log_on)
			fprintf(stderr, "netplot: refining t0=%llu t1=%llu cost=%zu\n",
				(unsigned long long)a, (unsigned long long)b, cost);
		return;
	}
	struct np_model *m = np_index_window(w->ix, w->ix_path, i, a, b, err, sizeof err);
	if (!m) {
		fprintf(stderr, "netplot: cannot read the span: %s: '%s'\n", err, w->ix_path);
		return;
	}
	index_install(w, m, i, a, b);
}

static void states_stop(struct win *w)
{
	if (w->states_source)
		g_source_remove(w->states_source);
	w->states_source = 0;
	np_index_states_free(w->states);
	w->states = NULL;
	refine_stop(w);	/* it reads through the index going away */
}

/* The states' job: its progress on the status line as a load's, then
   the new index in place of the old and the view drawn again. */
static gboolean states_tick(gpointer data)
{
	struct win *w = data;
	long long done, total;
	char err[256], buf[600];
	int st = np_index_states_poll(w->states, &done, &total, err, sizeof err);
	char *base = g_path_get_basename(w->ix_path);
	if (st == 0) {
		if (total > 0)
			snprintf(buf, sizeof buf, "computing the states of '%s': %.1f of %.1f MiB (%d%%)",
				 base, done / 1048576.0, total / 1048576.0, (int)(100 * done / total));
		else
			snprintf(buf, sizeof buf, "computing the states of '%s': %.1f MiB", base,
				 done / 1048576.0);
		gtk_label_set_text(GTK_LABEL(w->status), buf);
		log_text("loading", buf);
		g_free(base);
		return G_SOURCE_CONTINUE;
	}
	w->states_source = 0;
	states_stop(w);
	struct np_index *ix = NULL;
	bool built = false;
	if (st > 0 && !(ix = np_index_open(w->ix_path, &built, err, sizeof err)))
		st = -1;
	if (st < 0) {
		snprintf(buf, sizeof buf, "no states for '%s': %s", base, err);
		gtk_label_set_text(GTK_LABEL(w->status), buf);
		log_text("states", buf);
		g_free(base);
		return G_SOURCE_REMOVE;
	}
	g_free(base);
	np_index_free(w->ix);
	w->ix = ix;
	w->ix_conn = (size_t)-1;	/* the window read again, with its states */
	if (log_on)
		fprintf(stderr, "netplot: states %s made in %.0f ms, intervals=%llu\n", w->ix_path,
			(g_get_monotonic_time() - w->states_began) / 1e3,
			(unsigned long long)np_index_state_intervals(ix));
	redraw(w);
	return G_SOURCE_REMOVE;
}

/* The trace a window shows, for the CDF window (win.cdf), which draws
   every trace open in the viewer. */
static void set_trace(struct win *w, const char *path)
{
	g_object_set_data_full(G_OBJECT(w->window), "np-trace", g_strdup(path), g_free);
}

static bool open_index(struct win *w, const char *path)
{
	char err[512];
	bool built;
	struct np_index *ix = np_index_open(path, &built, err, sizeof err);
	if (!ix) {
		fprintf(stderr, "netplot: cannot index: %s: '%s'\n", err, path);
		return false;
	}
	size_t best = np_index_busiest(ix);
	uint32_t best_id = 0;
	uint64_t first = 0, last, npkt[2];
	if (np_index_conns(ix))
		np_index_conn(ix, best, &best_id, &first, &last, npkt);
	/* An empty window: the connections, no packets yet. */
	struct np_model *m = np_index_window(ix, path, best, first, first, err, sizeof err);
	if (!m) {
		np_index_free(ix);
		fprintf(stderr, "netplot: cannot index: %s: '%s'\n", err, path);
		return false;
	}
	for (size_t i = 0; i < np_index_conns(ix); i++) {
		uint32_t id;
		uint64_t a, b, n[2];
		np_index_conn(ix, i, &id, &a, &b, n);
		if (id >= 1 && id <= m->nconn) {
			char name[80];
			np_index_conn_name(ix, i, name, sizeof name);
			m->conn[id - 1].first = a;
			m->conn[id - 1].last = b;
			if (!name[0])
				snprintf(name, sizeof name, "connection %u", id);
			snprintf(m->conn[id - 1].label, sizeof m->conn[id - 1].label,
				 "%s (%llu packets, indexed)", name, (unsigned long long)(n[0] + n[1]));
		}
	}
	states_stop(w);
	np_index_free(w->ix);
	g_free(w->ix_path);
	np_model_free(w->m);
	w->ix = ix;
	w->ix_path = g_strdup(path);
	set_trace(w, path);
	w->ix_conn = best;
	w->win_t0 = w->win_t1 = first;
	w->m = m;
	w->v.m = m;
	char *base = g_path_get_basename(path);
	char title[512];
	snprintf(title, sizeof title, "%s (indexed) — netplot", base);
	g_free(base);
	gtk_window_set_title(GTK_WINDOW(w->window), title);
	w->v.conn = best_id - 1;
	fill_combo(w);
	if (start_pending)
		open_at(w);
	else
		show_conn(w, best_id - 1, 0);
	/* xcap's index has no states: made now, without holding the window. */
	const char *states = "read";
	if (!np_index_has_state(ix)) {
		w->states = np_index_states_start(path, err, sizeof err);
		if (w->states) {
			w->states_began = g_get_monotonic_time();
			w->states_source = g_timeout_add(100, states_tick, w);
			states = "computing";
		} else {
			fprintf(stderr, "netplot: no states: %s: '%s'\n", err, path);
			states = "none";
		}
	}
	if (log_on)
		fprintf(stderr, "netplot: index %s packets=%llu%s states=%s\n", path,
			(unsigned long long)np_index_packets(ix), built ? " built" : "", states);
	log_text("open", path);
	return true;
}

/* Reading a file, the status line says how far it is and the window is
   still drawn: events are handled between steps (at most ten times a
   second), while open_file and closing the window wait for the end. */
struct loading {
	struct win *w;
	char *name;
	long long total;	/* bytes in the file, 0 unknown */
	gint64 last;		/* µs, g_get_monotonic_time */
};

static void on_load_progress(void *ctx, long long done)
{
	struct loading *l = ctx;
	gint64 now = g_get_monotonic_time();
	if (done < 0 || now - l->last < 100000)
		return;
	l->last = now;
	char buf[600];
	if (l->total > 0)
		snprintf(buf, sizeof buf, "reading '%s': %.1f of %.1f MiB (%d%%)", l->name,
			 done / 1048576.0, l->total / 1048576.0, (int)(100 * done / l->total));
	else
		snprintf(buf, sizeof buf, "reading '%s': %.1f MiB", l->name, done / 1048576.0);
	gtk_label_set_text(GTK_LABEL(l->w->status), buf);
	log_text("loading", buf);
	while (gtk_events_pending())
		gtk_main_iteration();
}

static gboolean on_delete(GtkWidget *widget, GdkEvent *ev, gpointer data)
{
	struct win *w = data;
	return w->loading;	/* TRUE keeps the window: the load would lose it */
}

static bool open_file(struct win *w, const char *path)
{
	char err[512];
	if (w->loading)
		return false;
	if (wants_index(path))
		return open_index(w, path);
	states_stop(w);
	np_index_free(w->ix);
	w->ix = NULL;
	struct stat st;
	struct loading l = { w, g_path_get_basename(path),
			     stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (long long)st.st_size : 0, 0 };
	w->loading = true;
	struct np_model *m = np_model_load_watched(path, err, sizeof err, on_load_progress, &l);
	w->loading = false;
	g_free(l.name);
	if (w->m)
		update_status(w);
	else
		gtk_label_set_text(GTK_LABEL(w->status), "");
	if (!m) {
		GtkWidget *d = gtk_message_dialog_new(GTK_WINDOW(w->window), GTK_DIALOG_MODAL,
						      GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE,
						      "cannot open '%s': %s", path, err);
		gtk_dialog_run(GTK_DIALOG(d));
		gtk_widget_destroy(d);
		return false;
	}
	np_model_free(w->m);
	w->m = m;
	w->v.m = m;
	set_trace(w, path);
	/* The stacks of the round trips, when xcap-run wrote them beside the
	   trace: the tooltip and details of a request waited on show them. */
	sites_free(w->sites);
	char spath[4096], serr[512];
	snprintf(spath, sizeof spath, "%s.sites", path);
	w->sites = access(spath, R_OK) == 0 ? sites_load(spath, serr, sizeof serr) : NULL;
	if (w->sites && sites_resolve_sources(w->sites) < 0) {
		sites_free(w->sites);
		w->sites = NULL;
	}
	w->v.sites = w->sites;
	char *base = g_path_get_basename(path);
	char title[512];
	snprintf(title, sizeof title, "%s — netplot", base);
	g_free(base);
	gtk_window_set_title(GTK_WINDOW(w->window), title);
	/* start on the busiest connection */
	size_t best = 0, n = 0;
	for (size_t i = 0; i < m->nconn; i++)
		if (m->conn[i].dir[0].npkt + m->conn[i].dir[1].npkt > n) {
			n = m->conn[i].dir[0].npkt + m->conn[i].dir[1].npkt;
			best = i;
		}
	w->v.conn = best;
	fill_combo(w);
	if (start_pending)
		open_at(w);
	else
		show_conn(w, best, 0);
	log_text("open", path);
	return true;
}

/* ---- --follow ---- */

static bool follow_on;

/* Pieces order by their name's length, then the name: xcap -C numbers
   them (OUT-0.xcap, OUT-1.xcap ... OUT-10.xcap), -G stamps them with a
   fixed-width time (OUT-20261124-015800.xcap). */
static int piece_cmp(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	return la != lb ? (la < lb ? -1 : 1) : strcmp(a, b);
}

/* Where the part of a piece's name that xcap varies begins (its dash),
   NULL when it has none: -G stamps PREFIX-YYYYmmdd-HHMMSS.EXT, so the
   stamp's own dash is not the one (a capture that runs past midnight
   goes on into pieces of the next day); -C numbers PREFIX-N.EXT, and
   other -G patterns are taken to vary after their last dash. */
static const char *piece_part(const char *base, const char *ext)
{
	const char *dash = strrchr(base, '-');
	if (!dash || (*ext && ext < dash))
		return NULL;
	const char *stamp = dash - 9;	/* "-YYYYmmdd" before "-HHMMSS" */
	if (dash - base >= 9 && stamp[0] == '-' && ext - dash == 7) {
		bool digits = true;
		for (const char *p = stamp + 1; p < ext && digits; p++)
			digits = p == dash || (*p >= '0' && *p <= '9');
		if (digits)
			return stamp;
	}
	return dash;
}

/* A rotated capture's pieces that appeared since: files beside the last
   one named as xcap names them, PREFIX-PART.EXT with the first piece's
   PREFIX and EXT, after the last piece in that order. */
static void follow_find_pieces(struct win *w)
{
	if (w->npaths == 0)
		return;
	char *dir = g_path_get_dirname(w->paths[0]), *base = g_path_get_basename(w->paths[0]);
	const char *dot = strrchr(base, '.');
	const char *dash = piece_part(base, dot ? dot : base + strlen(base));
	if (!dash) {
		g_free(dir);
		g_free(base);
		return;
	}
	size_t plen = (size_t)(dash - base) + 1;	/* with the dash */
	const char *ext = dot ? dot : "";
	GDir *d = g_dir_open(dir, 0, NULL);
	if (!d) {
		g_free(dir);
		g_free(base);
		return;
	}
	char *lastbase = g_path_get_basename(w->paths[w->npaths - 1]);
	GPtrArray *found = g_ptr_array_new();
	const char *name;
	while ((name = g_dir_read_name(d))) {
		size_t n = strlen(name);
		if (n <= plen + strlen(ext) || strncmp(name, base, plen) != 0 ||
		    strcmp(name + n - strlen(ext), ext) != 0 || piece_cmp(name, lastbase) <= 0 ||
		    strstr(name, ".idx") || strstr(name, ".tmp"))
			continue;
		g_ptr_array_add(found, g_strdup(name));
	}
	g_dir_close(d);
	/* In order, so that records go into the model as they were captured. */
	for (guint i = 0; i < found->len; i++)
		for (guint k = i + 1; k < found->len; k++)
			if (piece_cmp(found->pdata[k], found->pdata[i]) < 0) {
				gpointer t = found->pdata[i];
				found->pdata[i] = found->pdata[k];
				found->pdata[k] = t;
			}
	for (guint i = 0; i < found->len; i++) {
		w->paths = g_renew(char *, w->paths, w->npaths + 1);
		w->paths[w->npaths++] = g_build_filename(dir, found->pdata[i], NULL);
		g_free(found->pdata[i]);
	}
	g_ptr_array_free(found, TRUE);
	g_free(lastbase);
	g_free(dir);
	g_free(base);
}

/* Sizes and times of change of the session's files, folded into one
   number that changes when any of them does. */
static unsigned long long follow_stamp(const struct win *w)
{
	unsigned long long h = w->npaths;
	for (size_t i = 0; i < w->npaths; i++) {
		GStatBuf sb;
		if (g_stat(w->paths[i], &sb) == 0)
			h = h * 1000003u + (unsigned long long)sb.st_size * 31u + (unsigned long long)sb.st_mtime;
	}
	return h;
}

/* Read the session again.  A view that showed everything keeps showing
   everything, so its time range grows with the trace; a view zoomed by
   hand stays where it is. */
static bool follow_load(struct win *w)
{
	char err[512];
	size_t loaded = w->npaths;
	struct np_model *m = np_model_load_set((const char *const *)w->paths, loaded, true, err,
					       sizeof err, NULL, NULL);
	/* The newest piece may be one xcap has only just opened, its header
	   still in xcap's buffer: the session goes on without it this time. */
	if (!m && loaded > 1)
		m = np_model_load_set((const char *const *)w->paths, --loaded, true, err,
				      sizeof err, NULL, NULL);
	if (!m)
		return false;
	bool had = w->m != NULL, whole = w->nstack == 0;
	size_t conn = w->v.conn;
	int dir = w->v.dir;
	struct np_view keep = w->v;
	np_model_free(w->m);
	w->m = m;
	w->v.m = m;
	if (!had || conn >= m->nconn) {
		size_t best = 0, n = 0;
		for (size_t i = 0; i < m->nconn; i++)
			if (m->conn[i].dir[0].npkt + m->conn[i].dir[1].npkt > n) {
				n = m->conn[i].dir[0].npkt + m->conn[i].dir[1].npkt;
				best = i;
			}
		conn = best;
		dir = 0;
		whole = true;
	}
	w->v.conn = conn;
	fill_combo(w);
	if (!had && start_pending)
		open_at(w);
	else if (whole)
		show_conn(w, conn, dir);
	else {
		w->v = keep;
		w->v.m = m;
		redraw(w);
	}
	if (log_on)
		fprintf(stderr, "netplot: follow files=%zu packets=%llu end=%.0f\n", loaded,
			(unsigned long long)m->npkt, (double)m->t_end);
	return true;
}

static gboolean follow_tick(gpointer data)
{
	struct win *w = data;
	/* Reading takes longer as the trace grows: leave the window at
	   least three times as long to itself between readings. */
	gint64 now = g_get_monotonic_time();
	if (now < w->follow_next)
		return G_SOURCE_CONTINUE;
	follow_find_pieces(w);
	unsigned long long stamp = follow_stamp(w);
	if (stamp != w->follow_stamp) {
		w->follow_stamp = stamp;
		follow_load(w);
		gint64 took = g_get_monotonic_time() - now;
		w->follow_next = g_get_monotonic_time() + 3 * took;
	}
	return G_SOURCE_CONTINUE;
}

static void follow_start(struct win *w, char **paths, size_t n)
{
	w->paths = paths;
	w->npaths = n;
	if (n == 1)
		set_trace(w, paths[0]);
	follow_find_pieces(w);	/* may move w->paths: paths is gone */
	w->follow_stamp = follow_stamp(w);
	char *base = g_path_get_basename(w->paths[0]);
	char title[512];
	snprintf(title, sizeof title, "%s (following) — netplot", base);
	g_free(base);
	gtk_window_set_title(GTK_WINDOW(w->window), title);
	/* An empty or header-less file is a capture not begun yet: wait. */
	follow_load(w);
	log_text("follow", w->paths[0]);
	w->follow_source = g_timeout_add(500, follow_tick, w);
}

/* ---- drawing ---- */

static gboolean on_draw(GtkWidget *area, cairo_t *cr, gpointer data)
{
	struct win *w = data;
	int width = gtk_widget_get_allocated_width(area), height = gtk_widget_get_allocated_height(area);
	if (!w->m) {
		cairo_set_source_rgb(cr, 1, 1, 1);
		cairo_paint(cr);
		cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
		cairo_set_font_size(cr, 16);
		cairo_move_to(cr, 30, 50);
		cairo_show_text(cr, "Open a capture (.xcap, .pcap, .pcapng) or drop one here.");
		return TRUE;
	}
	if (width != w->v.width || height != w->v.height)
		np_view_set_size(&w->v, width, height);
	if (w->logged.t0 != w->v.t0 || w->logged.t1 != w->v.t1 || w->logged.y0 != w->v.y0 ||
	    w->logged.y1 != w->v.y1 || w->logged_w != width || w->logged_h != height ||
	    w->logged_conn != w->v.conn || w->logged_dir != w->v.dir ||
	    w->logged_graph != w->v.graph) {
		w->logged_graph = w->v.graph;
		w->logged = (struct saved){ w->v.t0, w->v.t1, w->v.y0, w->v.y1 };
		w->logged_w = width;
		w->logged_h = height;
		w->logged_conn = w->v.conn;
		w->logged_dir = w->v.dir;
		log_view(w);
	}
	index_sync(w);
	/* Drawn on an image surface as the exports are, then shown: the
	   screen's pixels are the exported PNG's (an X server's own drawing
	   of lines differs in its last bits). */
	if (!w->frame || cairo_image_surface_get_width(w->frame) != width ||
	    cairo_image_surface_get_height(w->frame) != height) {
		if (w->frame)
			cairo_surface_destroy(w->frame);
		w->frame = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
	}
	cairo_t *fc = cairo_create(w->frame);
	np_render(fc, &w->v, &w->ro, NULL);
	if (w->ix) {
		/* The view's span not read (too dear for a frame): the index's
		   columns. */
		double a = w->v.t0 < 0 ? 0 : w->v.t0;
		size_t i = ix_conn_of(w, w->v.conn);
		if (i != w->ix_conn || a < (double)w->win_t0 || w->v.t1 > (double)w->win_t1 ||
		    w->win_t0 == w->win_t1) {
			if (w->v.graph == NP_GRAPH_TSG)
				np_index_draw(fc, w->ix, i, w->v.dir, w->v.t0, w->v.t1, w->v.y0,
					      w->v.y1, w->v.px, w->v.py, w->v.pw, w->v.ph);
			else {	/* the other graphs need the packets: say so */
				double cost = (double)np_index_window_cost(
					w->ix, i, (uint64_t)a, (uint64_t)fmax(w->v.t1, a));
				np_render_needs_packets(fc, &w->v, cost);
				if (log_on)
					fprintf(stderr, "netplot: needs packets graph=%s cost=%.0f\n",
						np_graph_name(w->v.graph), cost);
			}
		}
	}
	cairo_destroy(fc);
	cairo_surface_flush(w->frame);
	cairo_set_source_surface(cr, w->frame, 0, 0);
	cairo_paint(cr);
	if (w->drag == DRAG_ZOOM || w->drag == DRAG_ZOOM_X || w->drag == DRAG_ZOOM_Y ||
	    w->drag == DRAG_SELECT) {
		double x0 = w->x0, x1 = w->x1, y0 = w->y0, y1 = w->y1;
		if (w->drag == DRAG_ZOOM_X || w->drag == DRAG_SELECT) {
			y0 = w->v.py;
			y1 = w->v.py + w->v.ph;
		}
		if (w->drag == DRAG_ZOOM_Y) {
			x0 = w->v.px;
			x1 = w->v.px + w->v.pw;
		}
		cairo_rectangle(cr, fmin(x0, x1) + 0.5, fmin(y0, y1) + 0.5, fabs(x1 - x0), fabs(y1 - y0));
		cairo_set_source_rgba(cr, 0.2, 0.4, 1.0, 0.12);
		cairo_fill_preserve(cr);
		cairo_set_source_rgb(cr, 0.2, 0.4, 1.0);
		cairo_set_line_width(cr, 1);
		cairo_stroke(cr);
	}
	return TRUE;
}

/* ---- pointer ---- */

static gboolean on_press(GtkWidget *area, GdkEventButton *ev, gpointer data)
{
	struct win *w = data;
	if (!w->m || ev->type != GDK_BUTTON_PRESS)
		return FALSE;
	gtk_widget_grab_focus(area);
	w->x0 = w->x1 = ev->x;
	w->y0 = w->y1 = ev->y;
	const struct np_view *v = &w->v;
	bool below = ev->y > v->py + v->ph, left = ev->x < v->px;
	if (ev->button == 1 && (ev->state & GDK_SHIFT_MASK))
		w->drag = DRAG_SELECT;
	else if (ev->button == 1)
		w->drag = below ? DRAG_ZOOM_X : left ? DRAG_ZOOM_Y : DRAG_ZOOM;
	else if (ev->button == 2) {
		w->drag = DRAG_PAN;
		/* as in xplot: on an axis, pan along that axis only */
		w->pan_axis = below ? 1 : left ? 2 : 0;
	}
	else if (ev->button == 3) {
		/* right click: back, as xplot's click pops its zoom stack */
		g_action_group_activate_action(G_ACTION_GROUP(w->window), "back", NULL);
		return TRUE;
	}
	return TRUE;
}

static gboolean on_motion(GtkWidget *area, GdkEventMotion *ev, gpointer data)
{
	struct win *w = data;
	if (w->drag == DRAG_NONE)
		return FALSE;
	if (w->drag == DRAG_PAN) {
		np_view_pan(&w->v, w->pan_axis == 2 ? 0 : ev->x - w->x1,
			    w->pan_axis == 1 ? 0 : ev->y - w->y1);
		w->x1 = ev->x;
		w->y1 = ev->y;
		redraw(w);
		return TRUE;
	}
	w->x1 = ev->x;
	w->y1 = ev->y;
	gtk_widget_queue_draw(area);
	return TRUE;
}

static gboolean on_release(GtkWidget *area, GdkEventButton *ev, gpointer data)
{
	struct win *w = data;
	enum drag d = w->drag;
	w->drag = DRAG_NONE;
	if (d == DRAG_NONE)
		return FALSE;
	w->x1 = ev->x;
	w->y1 = ev->y;
	bool moved = fabs(w->x1 - w->x0) > 4 || fabs(w->y1 - w->y0) > 4;
	struct np_view *v = &w->v;
	if (d == DRAG_PAN) {
		/* pans are not saved on the stack, like xplot */
	} else if (d == DRAG_SELECT && moved) {
		w->ro.have_sel = true;
		w->ro.sel_t0 = np_t_at(v, fmin(w->x0, w->x1));
		w->ro.sel_t1 = np_t_at(v, fmax(w->x0, w->x1));
		char buf[4096];
		np_describe_region(v, w->ro.sel_t0, w->ro.sel_t1, buf, sizeof buf);
		set_details(w, buf);
		log_text("region", buf);
	} else if (moved) {
		push(w);
		if (d == DRAG_ZOOM_X)
			np_view_zoom_rect(v, w->x0, v->py, w->x1, v->py + v->ph);
		else if (d == DRAG_ZOOM_Y)
			np_view_zoom_rect(v, v->px, w->y0, v->px + v->pw, w->y1);
		else
			np_view_zoom_rect(v, w->x0, w->y0, w->x1, w->y1);
	} else {
		/* a click selects what is under it into the details pane */
		struct np_hit h;
		np_hit_test(v, ev->x, ev->y, &h);
		char buf[2048];
		np_describe(v, &h, buf, sizeof buf);
		w->ro.have_mark = h.kind != NP_HIT_NONE && h.kind != NP_HIT_MANY;
		w->ro.mark_t = h.t;
		w->ro.mark_seq = h.seq;
		w->ro.mark_hit = h;
		set_details(w, *buf ? buf : "Nothing here.");
		log_text("selected", *buf ? buf : "nothing");
	}
	redraw(w);
	return TRUE;
}

static gboolean on_scroll(GtkWidget *area, GdkEventScroll *ev, gpointer data)
{
	struct win *w = data;
	if (!w->m)
		return FALSE;
	double f;
	if (ev->direction == GDK_SCROLL_UP)
		f = 0.8;
	else if (ev->direction == GDK_SCROLL_DOWN)
		f = 1.25;
	else if (ev->direction == GDK_SCROLL_SMOOTH)
		f = pow(1.25, ev->delta_y);
	else
		return FALSE;
	/* shift zooms time only: the usual way to stretch a busy stretch */
	np_view_zoom(&w->v, f, (ev->state & GDK_SHIFT_MASK) ? 1 : f, ev->x, ev->y);
	redraw(w);
	return TRUE;
}

static gboolean on_query_tooltip(GtkWidget *area, gint x, gint y, gboolean kb, GtkTooltip *tip,
				 gpointer data)
{
	struct win *w = data;
	if (!w->m || w->drag != DRAG_NONE)
		return FALSE;
	struct np_hit h;
	np_hit_test(&w->v, x, y, &h);
	if (h.kind == NP_HIT_NONE)
		return FALSE;
	char buf[2048];
	np_describe(&w->v, &h, buf, sizeof buf);
	gtk_tooltip_set_text(tip, buf);
	if (log_on)
		fprintf(stderr, "netplot: tooltip %.*s\n", (int)strcspn(buf, "\n"), buf);
	/* a new tooltip as soon as the pointer leaves this small square */
	GdkRectangle r = { x - 3, y - 3, 6, 6 };
	gtk_tooltip_set_tip_area(tip, &r);
	return TRUE;
}

/* ---- actions ---- */

#define ACTION(name) static void act_##name(GSimpleAction *a, GVariant *p, gpointer data)

ACTION(zoom_in)
{
	struct win *w = data;
	if (!w->m)
		return;
	push(w);
	np_view_zoom(&w->v, 0.5, 0.5, w->v.px + w->v.pw / 2, w->v.py + w->v.ph / 2);
	redraw(w);
}

ACTION(zoom_out)
{
	struct win *w = data;
	if (!w->m)
		return;
	push(w);
	np_view_zoom(&w->v, 2, 2, w->v.px + w->v.pw / 2, w->v.py + w->v.ph / 2);
	redraw(w);
}

ACTION(zoom_fit)
{
	struct win *w = data;
	if (!w->m)
		return;
	push(w);
	np_view_fit(&w->v);
	if (w->ix)
		index_fit_y(w);
	redraw(w);
}

ACTION(back)
{
	struct win *w = data;
	if (!w->m || !w->nstack)
		return;
	struct saved s = w->stack[--w->nstack];
	w->v.t0 = s.t0;
	w->v.t1 = s.t1;
	w->v.y0 = s.y0;
	w->v.y1 = s.y1;
	redraw(w);
}

static void pan_by(struct win *w, double fx, double fy)
{
	if (!w->m)
		return;
	np_view_pan(&w->v, fx * w->v.pw, fy * w->v.ph);
	redraw(w);
}

ACTION(pan_left) { pan_by(data, 0.25, 0); }
ACTION(pan_right) { pan_by(data, -0.25, 0); }
ACTION(pan_up) { pan_by(data, 0, 0.25); }
ACTION(pan_down) { pan_by(data, 0, -0.25); }

ACTION(direction)
{
	struct win *w = data;
	if (w->m)
		show_conn(w, w->v.conn, !w->v.dir);
}

/* Another graph of the family (win.graph::rtt ...), over the same time. */
static void act_graph(GSimpleAction *a, GVariant *p, gpointer data)
{
	struct win *w = data;
	int g = np_graph_parse(g_variant_get_string(p, NULL));
	if (g < 0)
		return;
	g_simple_action_set_state(a, p);
	if (!w->m || g == w->v.graph)
		return;
	push(w);
	w->v.graph = g;
	w->ro.have_mark = false;
	np_view_fit_y(&w->v);
	if (w->ix && g == NP_GRAPH_TSG)
		index_fit_y(w);
	redraw(w);
}

/* The inputs along the top of the plot, on or off. */
ACTION(inputs)
{
	struct win *w = data;
	w->ro.no_inputs = !w->ro.no_inputs;
	gtk_widget_queue_draw(w->area);
}

ACTION(next_conn)
{
	struct win *w = data;
	if (w->m && w->m->nconn)
		show_conn(w, (w->v.conn + 1) % w->m->nconn, w->v.dir);
}

ACTION(prev_conn)
{
	struct win *w = data;
	if (w->m && w->m->nconn)
		show_conn(w, (w->v.conn + w->m->nconn - 1) % w->m->nconn, w->v.dir);
}

ACTION(open)
{
	struct win *w = data;
	GtkWidget *d = gtk_file_chooser_dialog_new("Open a capture", GTK_WINDOW(w->window),
						   GTK_FILE_CHOOSER_ACTION_OPEN, "_Cancel",
						   GTK_RESPONSE_CANCEL, "_Open", GTK_RESPONSE_ACCEPT, NULL);
	GtkFileFilter *f = gtk_file_filter_new();
	gtk_file_filter_set_name(f, "Captures (.xcap, .pcap, .pcapng)");
	gtk_file_filter_add_pattern(f, "*.xcap");
	gtk_file_filter_add_pattern(f, "*.pcap");
	gtk_file_filter_add_pattern(f, "*.pcapng");
	gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(d), f);
	if (gtk_dialog_run(GTK_DIALOG(d)) == GTK_RESPONSE_ACCEPT) {
		char *path = gtk_file_chooser_get_filename(GTK_FILE_CHOOSER(d));
		gtk_widget_destroy(d);
		if (path)
			open_file(w, path);
		g_free(path);
		return;
	}
	gtk_widget_destroy(d);
}

ACTION(export)
{
	struct win *w = data;
	if (!w->m)
		return;
	GtkWidget *d = gtk_file_chooser_dialog_new("Export the view (.png .svg .pdf .xpl)",
						   GTK_WINDOW(w->window), GTK_FILE_CHOOSER_ACTION_SAVE,
						   "_Cancel", GTK_RESPONSE_CANCEL, "_Save",
						   GTK_RESPONSE_ACCEPT, NULL);
	gtk_file_chooser_set_do_overwrite_confirmation(GTK_FILE_CHOOSER(d), TRUE);
	gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(d), "netplot.png");
	if (gtk_dialog_run(GTK_DIALOG(d)) == GTK_RESPONSE_ACCEPT) {
		char *path = gtk_file_chooser_get_filename(GTK_FILE_CHOOSER(d));
		char err[512];
		/* The picture as shown: with or without the inputs. */
		struct np_render_opts ro = { .no_inputs = w->ro.no_inputs };
		if (path && np_export_with(&w->v, &ro, path, err, sizeof err) < 0) {
			GtkWidget *e = gtk_message_dialog_new(GTK_WINDOW(w->window), GTK_DIALOG_MODAL,
							      GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE,
							      "cannot export '%s': %s", path, err);
			gtk_dialog_run(GTK_DIALOG(e));
			gtk_widget_destroy(e);
		}
		g_free(path);
	}
	gtk_widget_destroy(d);
}

ACTION(cdf)
{
	struct win *w = data;
	GtkApplication *app = gtk_window_get_application(GTK_WINDOW(w->window));
	/* This window's trace first, then the others open: a curve each. */
	GPtrArray *paths = g_ptr_array_new();
	const char *own = g_object_get_data(G_OBJECT(w->window), "np-trace");
	if (own)
		g_ptr_array_add(paths, (gpointer)own);
	for (GList *l = app ? gtk_application_get_windows(app) : NULL; l; l = l->next) {
		const char *trace = g_object_get_data(G_OBJECT(l->data), "np-trace");
		if (trace && trace != own)
			g_ptr_array_add(paths, (gpointer)trace);
	}
	if (!paths->len)
		gtk_label_set_text(GTK_LABEL(w->status), "No trace open: no CDF to draw.");
	else
		np_cdf_window_open(app, (const char *const *)paths->pdata, paths->len, log_on);
	g_ptr_array_free(paths, TRUE);
}

ACTION(close)
{
	struct win *w = data;
	gtk_widget_destroy(GTK_WIDGET(w->window));
}

static const GActionEntry win_actions[] = {
	{ "zoom-in", act_zoom_in, NULL, NULL, NULL, { 0 } },
	{ "zoom-out", act_zoom_out, NULL, NULL, NULL, { 0 } },
	{ "zoom-fit", act_zoom_fit, NULL, NULL, NULL, { 0 } },
	{ "back", act_back, NULL, NULL, NULL, { 0 } },
	{ "pan-left", act_pan_left, NULL, NULL, NULL, { 0 } },
	{ "pan-right", act_pan_right, NULL, NULL, NULL, { 0 } },
	{ "pan-up", act_pan_up, NULL, NULL, NULL, { 0 } },
	{ "pan-down", act_pan_down, NULL, NULL, NULL, { 0 } },
	{ "direction", act_direction, NULL, NULL, NULL, { 0 } },
	{ "inputs", act_inputs, NULL, NULL, NULL, { 0 } },
	{ "next-conn", act_next_conn, NULL, NULL, NULL, { 0 } },
	{ "prev-conn", act_prev_conn, NULL, NULL, NULL, { 0 } },
	{ "open", act_open, NULL, NULL, NULL, { 0 } },
	{ "export", act_export, NULL, NULL, NULL, { 0 } },
	{ "close", act_close, NULL, NULL, NULL, { 0 } },
	{ "cdf", act_cdf, NULL, NULL, NULL, { 0 } },
	{ "graph", act_graph, "s", "'tsg'", NULL, { 0 } },
};

static const struct { const char *action; const char *accels[4]; } accels[] = {
	{ "win.zoom-in", { "plus", "equal", "KP_Add", NULL } },
	{ "win.zoom-out", { "minus", "KP_Subtract", NULL } },
	{ "win.zoom-fit", { "0", "KP_0", "Home", NULL } },
	{ "win.back", { "BackSpace", "b", NULL } },
	{ "win.pan-left", { "Left", "h", NULL } },
	{ "win.pan-right", { "Right", "l", NULL } },
	{ "win.pan-up", { "Up", "k", NULL } },
	{ "win.pan-down", { "Down", "j", NULL } },
	{ "win.direction", { "d", NULL } },
	{ "win.inputs", { "i", NULL } },
	{ "win.cdf", { "c", NULL } },
	{ "win.graph::tsg", { "1", NULL } },
	{ "win.graph::rtt", { "2", NULL } },
	{ "win.graph::tput", { "3", NULL } },
	{ "win.graph::owin", { "4", NULL } },
	{ "win.graph::ssize", { "5", NULL } },
	{ "win.graph::lanes", { "6", NULL } },
	{ "win.next-conn", { "Page_Down", NULL } },
	{ "win.prev-conn", { "Page_Up", NULL } },
	{ "win.open", { "<Control>o", NULL } },
	{ "win.export", { "<Control>e", NULL } },
	{ "win.close", { "<Control>w", NULL } },
	{ "app.quit", { "<Control>q", "q", NULL } },
};

/* ---- window ---- */

static void on_combo(GtkComboBox *cb, gpointer data)
{
	struct win *w = data;
	int i = gtk_combo_box_get_active(cb);
	if (!w->filling && i >= 0)
		show_conn(w, (size_t)i, w->v.dir);
}

static void on_drop(GtkWidget *widget, GdkDragContext *ctx, gint x, gint y, GtkSelectionData *sel,
		    guint info, guint time, gpointer data)
{
	struct win *w = data;
	char **uris = gtk_selection_data_get_uris(sel);
	bool ok = false;
	if (uris && uris[0]) {
		char *path = g_filename_from_uri(uris[0], NULL, NULL);
		if (path)
			ok = open_file(w, path);
		g_free(path);
	}
	g_strfreev(uris);
	gtk_drag_finish(ctx, ok, FALSE, time);
}

static void on_destroy(GtkWidget *widget, gpointer data)
{
	struct win *w = data;
	if (w->follow_source)
		g_source_remove(w->follow_source);
	states_stop(w);
	for (size_t i = 0; i < w->npaths; i++)
		g_free(w->paths[i]);
	g_free(w->paths);
	np_index_free(w->ix);
	g_free(w->ix_path);
	np_model_free(w->m);
	sites_free(w->sites);
	if (w->frame)
		cairo_surface_destroy(w->frame);
	g_free(w);
}

static GtkWidget *button(const char *label, const char *action, const char *tip)
{
	GtkWidget *b = gtk_button_new_with_label(label);
	gtk_actionable_set_action_name(GTK_ACTIONABLE(b), action);
	gtk_widget_set_tooltip_text(b, tip);
	gtk_widget_set_can_focus(b, FALSE);	/* keys belong to the plot */
	return b;
}

static struct win *new_window(GtkApplication *app)
{
	struct win *w = g_new0(struct win, 1);
	w->window = GTK_APPLICATION_WINDOW(gtk_application_window_new(app));
	gtk_window_set_title(GTK_WINDOW(w->window), "netplot");
	/* As large as a laptop's 1366x768 screen holds with its panels: at
	   most 1280x800, at most 95 % x 88 % of the monitor's work area; or
	   the picture size asked (--size) with room for the details. */
	GdkRectangle wa = { 0, 0, 1366, 768 };
	GdkDisplay *dpy = gdk_display_get_default();
	GdkMonitor *mon = dpy ? gdk_display_get_primary_monitor(dpy) : NULL;
	if (!mon && dpy && gdk_display_get_n_monitors(dpy) > 0)
		mon = gdk_display_get_monitor(dpy, 0);
	if (mon)
		gdk_monitor_get_workarea(mon, &wa);
	int ww = MIN(1280, wa.width * 95 / 100), wh = MIN(800, wa.height * 88 / 100);
	if (start.w <= 0)
		gtk_window_set_default_size(GTK_WINDOW(w->window), ww, wh);
	g_action_map_add_action_entries(G_ACTION_MAP(w->window), win_actions,
					G_N_ELEMENTS(win_actions), w);
	g_signal_connect(w->window, "destroy", G_CALLBACK(on_destroy), w);
	g_signal_connect(w->window, "delete-event", G_CALLBACK(on_delete), w);

	GtkWidget *vbox = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
	GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
	gtk_container_set_border_width(GTK_CONTAINER(bar), 4);
	gtk_box_pack_start(GTK_BOX(bar), button("Open", "win.open", "Open a capture (Ctrl+O)"), FALSE, FALSE, 0);
	gtk_box_pack_start(GTK_BOX(bar), button("Back", "win.back", "Previous zoom (Backspace)"), FALSE, FALSE, 0);
	gtk_box_pack_start(GTK_BOX(bar), button("Zoom in", "win.zoom-in", "Zoom in (+)"), FALSE, FALSE, 0);
	gtk_box_pack_start(GTK_BOX(bar), button("Zoom out", "win.zoom-out", "Zoom out (-)"), FALSE, FALSE, 0);
	gtk_box_pack_start(GTK_BOX(bar), button("All", "win.zoom-fit", "Show everything (0)"), FALSE, FALSE, 0);
	w->dirbutton = button("Requests", "win.direction", "Switch direction (d)");
	gtk_box_pack_start(GTK_BOX(bar), w->dirbutton, FALSE, FALSE, 0);
	w->combo = gtk_combo_box_text_new();
	gtk_widget_set_can_focus(w->combo, FALSE);
	gtk_widget_set_tooltip_text(w->combo, "Connection (PgUp/PgDn)");
	g_signal_connect(w->combo, "changed", G_CALLBACK(on_combo), w);
	gtk_box_pack_start(GTK_BOX(bar), w->combo, TRUE, TRUE, 0);
	gtk_box_pack_start(GTK_BOX(vbox), bar, FALSE, FALSE, 0);

	GtkWidget *paned = gtk_paned_new(GTK_ORIENTATION_HORIZONTAL);
	w->area = gtk_drawing_area_new();
	/* --size: the picture exactly that size, as an export of it is (the
	   window as small as that leaves it) */
	if (start.w > 0)
		gtk_widget_set_size_request(w->area, start.w, start.h);
	else
		gtk_widget_set_size_request(w->area, 400, 300);
	gtk_widget_set_can_focus(w->area, TRUE);
	gtk_widget_add_events(w->area, GDK_BUTTON_PRESS_MASK | GDK_BUTTON_RELEASE_MASK |
					       GDK_POINTER_MOTION_MASK | GDK_SCROLL_MASK);
	gtk_widget_set_has_tooltip(w->area, TRUE);
	g_signal_connect(w->area, "draw", G_CALLBACK(on_draw), w);
	g_signal_connect(w->area, "button-press-event", G_CALLBACK(on_press), w);
	g_signal_connect(w->area, "button-release-event", G_CALLBACK(on_release), w);
	g_signal_connect(w->area, "motion-notify-event", G_CALLBACK(on_motion), w);
	g_signal_connect(w->area, "scroll-event", G_CALLBACK(on_scroll), w);
	g_signal_connect(w->area, "query-tooltip", G_CALLBACK(on_query_tooltip), w);
	gtk_paned_pack1(GTK_PANED(paned), w->area, TRUE, FALSE);
	w->details = gtk_text_view_new();
	gtk_text_view_set_editable(GTK_TEXT_VIEW(w->details), FALSE);
	gtk_text_view_set_monospace(GTK_TEXT_VIEW(w->details), TRUE);
	/* Lines wrap between words only: a library's or a file's name is
	   never cut in two (a name longer than the pane scrolls). */
	gtk_text_view_set_wrap_mode(GTK_TEXT_VIEW(w->details), GTK_WRAP_WORD);
	gtk_text_view_set_left_margin(GTK_TEXT_VIEW(w->details), 4);
	gtk_widget_set_can_focus(w->details, FALSE);
	GtkWidget *scroll = gtk_scrolled_window_new(NULL, NULL);
	gtk_widget_set_size_request(scroll, DETAILS_WIDTH, -1);
	gtk_container_add(GTK_CONTAINER(scroll), w->details);
	gtk_paned_pack2(GTK_PANED(paned), scroll, FALSE, TRUE);
	gtk_box_pack_start(GTK_BOX(vbox), paned, TRUE, TRUE, 0);
	w->status = gtk_label_new("");
	gtk_label_set_xalign(GTK_LABEL(w->status), 0);
	gtk_box_pack_start(GTK_BOX(vbox), w->status, FALSE, FALSE, 2);
	gtk_container_add(GTK_CONTAINER(w->window), vbox);

	gtk_drag_dest_set(GTK_WIDGET(w->window), GTK_DEST_DEFAULT_ALL, NULL, 0, GDK_ACTION_COPY);
	gtk_drag_dest_add_uri_targets(GTK_WIDGET(w->window));
	g_signal_connect(w->window, "drag-data-received", G_CALLBACK(on_drop), w);

	w->ro.no_inputs = start.no_inputs;
	gtk_widget_show_all(GTK_WIDGET(w->window));
	gtk_widget_grab_focus(w->area);
	set_details(w, "No capture open.");
	return w;
}

static void app_quit(GSimpleAction *a, GVariant *p, gpointer app)
{
	g_application_quit(G_APPLICATION(app));
}

static void on_startup(GApplication *app, gpointer data)
{
	static const GActionEntry app_actions[] = {
		{ "quit", app_quit, NULL, NULL, NULL, { 0 } },
	};
	g_action_map_add_action_entries(G_ACTION_MAP(app), app_actions, G_N_ELEMENTS(app_actions), app);
	for (size_t i = 0; i < G_N_ELEMENTS(accels); i++)
		gtk_application_set_accels_for_action(GTK_APPLICATION(app), accels[i].action,
						      accels[i].accels);
	GMenu *bar = g_menu_new(), *file = g_menu_new(), *view = g_menu_new(), *graph = g_menu_new();
	g_menu_append(graph, "_Time sequence", "win.graph::tsg");
	g_menu_append(graph, "_Round-trip times", "win.graph::rtt");
	g_menu_append(graph, "Through_put", "win.graph::tput");
	g_menu_append(graph, "_Outstanding data", "win.graph::owin");
	g_menu_append(graph, "_Segment sizes", "win.graph::ssize");
	g_menu_append(graph, "The protocol's _lanes", "win.graph::lanes");
	g_menu_append(file, "_Open…", "win.open");
	g_menu_append(file, "_Export view…", "win.export");
	g_menu_append(file, "_Close", "win.close");
	g_menu_append(file, "_Quit", "app.quit");
	g_menu_append(view, "Zoom _in", "win.zoom-in");
	g_menu_append(view, "Zoom _out", "win.zoom-out");
	g_menu_append(view, "Show _all", "win.zoom-fit");
	g_menu_append(view, "_Back", "win.back");
	g_menu_append(view, "Switch _direction", "win.direction");
	g_menu_append(view, "_Next connection", "win.next-conn");
	g_menu_append(view, "_Previous connection", "win.prev-conn");
	g_menu_append(view, "_CDF of the inputs…", "win.cdf");
	g_menu_append_submenu(bar, "_File", G_MENU_MODEL(file));
	g_menu_append_submenu(bar, "_View", G_MENU_MODEL(view));
	g_menu_append_submenu(bar, "_Graph", G_MENU_MODEL(graph));
	gtk_application_set_menubar(GTK_APPLICATION(app), G_MENU_MODEL(bar));
	g_object_unref(file);
	g_object_unref(view);
	g_object_unref(graph);
	g_object_unref(bar);
}

static void on_activate(GApplication *app, gpointer data)
{
	new_window(GTK_APPLICATION(app));
}

static void on_open(GApplication *app, GFile **files, gint n, const gchar *hint, gpointer data)
{
	if (follow_on) {
		/* One window for the session, however many pieces. */
		struct win *w = new_window(GTK_APPLICATION(app));
		char **paths = g_new0(char *, n);
		for (gint i = 0; i < n; i++)
			if (!(paths[i] = g_file_get_path(files[i])))
				paths[i] = g_file_get_parse_name(files[i]);
		follow_start(w, paths, (size_t)n);
		return;
	}
	for (gint i = 0; i < n; i++) {
		struct win *w = new_window(GTK_APPLICATION(app));
		char *path = g_file_get_path(files[i]);
		if (!path || !open_file(w, path)) {
			char *name = g_file_get_parse_name(files[i]);
			fprintf(stderr, "netplot: cannot open: '%s'\n", name);
			g_free(name);
		}
		g_free(path);
	}
}

int np_gui_run(int argc, char **argv, const struct np_gui_start *at)
{
	start = *at;
	start_pending = true;
	follow_on = at->follow;
	if (!gtk_init_check(&argc, &argv)) {
		fprintf(stderr, "netplot: cannot open the display: '%s'\n",
			g_getenv("DISPLAY") ? g_getenv("DISPLAY") : "(DISPLAY unset)");
		return 1;
	}
	log_on = g_getenv("NETPLOT_LOG") && *g_getenv("NETPLOT_LOG") == '1';
	/* NON_UNIQUE: every invocation is its own viewer (scripts and tests
	   start several at once). */
	GtkApplication *app = gtk_application_new("io.github.xcap.netplot",
						  G_APPLICATION_NON_UNIQUE | G_APPLICATION_HANDLES_OPEN);
	g_signal_connect(app, "startup", G_CALLBACK(on_startup), NULL);
	g_signal_connect(app, "activate", G_CALLBACK(on_activate), NULL);
	g_signal_connect(app, "open", G_CALLBACK(on_open), NULL);
	int status = g_application_run(G_APPLICATION(app), argc, argv);
	g_object_unref(app);
	return status;
}
