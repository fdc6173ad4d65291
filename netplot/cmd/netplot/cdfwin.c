/*
 * cdfwin.c — the CDF window (cdfwin.h).  It reads the traces once for
 * every metric (runs.c), so switching metric only redraws; the drawing is
 * np_cdf_render's, the export's own.
 *
 * Belongs to: the netplot command's room (netplot/cmd/netplot/).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cdf.h"
#include "cdfwin.h"
#include "runs.h"

struct cdfwin {
	GtkWidget *window, *area, *combo, *status;
	size_t n;
	struct np_cdf_series (*s)[NP_CDF_N];	/* per trace, per metric */
	struct np_cdf_series *shown;		/* n copies of the metric's, for drawing */
	enum np_cdf_metric m;
	bool log;
	char title_base[256];
};

static const char *const metric_label[NP_CDF_N] = {
	"Response time per input", "Bytes per input", "Pixels per input", "Time between inputs",
};

static void show_metric(struct cdfwin *c, enum np_cdf_metric m)
{
	c->m = m;
	size_t values = 0;
	for (size_t i = 0; i < c->n; i++) {
		c->shown[i] = c->s[i][m];
		values += c->shown[i].n;
	}
	char title[512];
	snprintf(title, sizeof title, "CDF: %s — %s — netplot", metric_label[m], c->title_base);
	gtk_window_set_title(GTK_WINDOW(c->window), title);
	if (gtk_combo_box_get_active(GTK_COMBO_BOX(c->combo)) != (int)m)
		gtk_combo_box_set_active(GTK_COMBO_BOX(c->combo), (int)m);
	if (c->log)
		fprintf(stderr, "netplot: cdf metric=%s runs=%zu values=%zu\n", np_cdf_metric_name(m),
			c->n, values);
	gtk_widget_queue_draw(c->area);
}

static gboolean on_draw(GtkWidget *widget, cairo_t *cr, gpointer data)
{
	struct cdfwin *c = data;
	int w = gtk_widget_get_allocated_width(widget), h = gtk_widget_get_allocated_height(widget);
	/* np_cdf_render sorts in place: the series it sorts are the
	   window's own, and sorted once they stay so. */
	np_cdf_render(cr, w, h, c->m, c->shown, c->n, NULL);
	return TRUE;
}

static void on_changed(GtkComboBox *cb, gpointer data)
{
	struct cdfwin *c = data;
	int i = gtk_combo_box_get_active(cb);
	if (i >= 0 && i < NP_CDF_N && (enum np_cdf_metric)i != c->m)
		show_metric(c, (enum np_cdf_metric)i);
}

static gboolean on_key(GtkWidget *widget, GdkEventKey *ev, gpointer data)
{
	struct cdfwin *c = data;
	if (ev->keyval >= GDK_KEY_1 && ev->keyval < GDK_KEY_1 + NP_CDF_N) {
		show_metric(c, (enum np_cdf_metric)(ev->keyval - GDK_KEY_1));
		return TRUE;
	}
	if ((ev->keyval == GDK_KEY_w && (ev->state & GDK_CONTROL_MASK)) ||
	    ev->keyval == GDK_KEY_Escape) {
		gtk_widget_destroy(c->window);
		return TRUE;
	}
	return FALSE;
}

static void on_destroy(GtkWidget *widget, gpointer data)
{
	struct cdfwin *c = data;
	for (size_t i = 0; i < c->n; i++)
		for (int m = 0; m < NP_CDF_N; m++)
			np_runs_series_free(&c->s[i][m]);
	g_free(c->s);
	g_free(c->shown);
	g_free(c);
}

void np_cdf_window_open(GtkApplication *app, const char *const *paths, size_t n, bool log)
{
	struct cdfwin *c = g_new0(struct cdfwin, 1);
	c->n = n;
	c->log = log;
	c->s = g_malloc0_n(n ? n : 1, sizeof *c->s);
	c->shown = g_new0(struct np_cdf_series, n ? n : 1);
	struct xresp_options ropt;
	xresp_options_default(&ropt);
	GString *problems = g_string_new("");
	for (size_t i = 0; i < n; i++) {
		char err[512];
		int r = np_runs_load_all(paths[i], (1u << NP_CDF_N) - 1, &ropt, c->s[i], err,
					 sizeof err);
		if (r < 0) {
			/* Left in as a legend line saying why it has no curve. */
			for (int m = 0; m < NP_CDF_N; m++)
				snprintf(c->s[i][m].why_empty, sizeof c->s[i][m].why_empty, "%s",
					 "cannot be read");
			g_string_append_printf(problems, "%s%s", problems->len ? "; " : "", err);
		} else if (r > 0) {
			g_string_append_printf(problems, "%s%s: damaged, drawn as far as it reads",
					       problems->len ? "; " : "", c->s[i][0].label);
		}
	}
	if (n == 1)
		snprintf(c->title_base, sizeof c->title_base, "%s", c->s[0][0].label);
	else
		snprintf(c->title_base, sizeof c->title_base, "%zu runs", n);

	/* A plain window of the application: the viewer's menus act on a trace
	   window, not on this one. */
	c->window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
	gtk_window_set_application(GTK_WINDOW(c->window), app);
	gtk_window_set_default_size(GTK_WINDOW(c->window), 800, 520);
	GtkWidget *vbox = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
	GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
	gtk_container_set_border_width(GTK_CONTAINER(bar), 4);
	c->combo = gtk_combo_box_text_new();
	for (int m = 0; m < NP_CDF_N; m++) {
		char item[96];
		snprintf(item, sizeof item, "%s (%d)", metric_label[m], m + 1);
		gtk_combo_box_text_append_text(GTK_COMBO_BOX_TEXT(c->combo), item);
	}
	gtk_widget_set_can_focus(c->combo, FALSE);
	gtk_widget_set_tooltip_text(c->combo, "What is distributed (keys 1-4)");
	gtk_box_pack_start(GTK_BOX(bar), c->combo, FALSE, FALSE, 0);
	gtk_box_pack_start(GTK_BOX(vbox), bar, FALSE, FALSE, 0);
	c->area = gtk_drawing_area_new();
	gtk_widget_set_size_request(c->area, 400, 300);
	gtk_box_pack_start(GTK_BOX(vbox), c->area, TRUE, TRUE, 0);
	c->status = gtk_label_new(problems->str);
	gtk_label_set_xalign(GTK_LABEL(c->status), 0);
	gtk_label_set_ellipsize(GTK_LABEL(c->status), PANGO_ELLIPSIZE_END);
	gtk_box_pack_start(GTK_BOX(vbox), c->status, FALSE, FALSE, 2);
	gtk_container_add(GTK_CONTAINER(c->window), vbox);
	g_string_free(problems, TRUE);

	g_signal_connect(c->area, "draw", G_CALLBACK(on_draw), c);
	g_signal_connect(c->window, "key-press-event", G_CALLBACK(on_key), c);
	g_signal_connect(c->window, "destroy", G_CALLBACK(on_destroy), c);
	c->m = NP_CDF_N;	/* so that the first show_metric sets the selector */
	show_metric(c, NP_CDF_RESPONSE);
	g_signal_connect(c->combo, "changed", G_CALLBACK(on_changed), c);
	gtk_widget_show_all(c->window);
}
