/* gtk-ready.c — a GTK 3 module that ends a client's start-up when its
 * first window is ready, whatever the link's speed.
 *
 * GTK_MODULES=/path/to/gtk-ready.so gtk3-demo
 *
 * gtk3-demo --autoquit quits by its own clock about a second after it
 * starts, so over a slow link it draws fewer frames before it quits than
 * on loopback, and a trace taken on one link says nothing of the X work
 * done over another.  Loaded into any GTK 3 client, this module waits for
 * the server to map the first toplevel window (its MapNotify), then for
 * the first frame in which that window was drawn, then asks the server to
 * answer everything sent so far (gdk_display_sync: a round trip, as XSync)
 * and exits with status 0.  The client's X work is then what it takes to
 * show its first window, on any link.  No timer is involved: a client
 * that never shows a window runs until it is stopped.
 *
 * Built only for the long prediction tests (tests/predict.mk), without
 * the suite's sanitizer flags, as it is loaded into an uninstrumented
 * process.
 */
#include <gtk/gtk.h>
#include <stdlib.h>

/* gtk_module_init is looked up by name when GTK loads the module. */
void gtk_module_init(gint *argc, gchar ***argv);

static GtkWidget *watched;	/* the first toplevel the server mapped */
static gboolean drawn;		/* it was drawn since it was mapped */

static gboolean on_draw(GtkWidget *widget, cairo_t *cr, gpointer data)
{
	(void)widget, (void)cr, (void)data;
	drawn = TRUE;
	return FALSE;	/* let the window draw as usual */
}

/* After each frame: once a frame has drawn the mapped window, its
 * drawing has been sent; the sync makes the server answer all of it. */
static void on_after_paint(GdkFrameClock *clock, gpointer data)
{
	(void)clock, (void)data;
	if (!drawn)
		return;
	gdk_display_sync(gtk_widget_get_display(watched));
	exit(0);
}

/* Every widget's map-event (the server's MapNotify): the first toplevel
 * window's starts the watch; the hook then removes itself. */
static gboolean on_map_event(GSignalInvocationHint *hint, guint n, const GValue *params,
			     gpointer data)
{
	(void)hint, (void)data;
	if (n < 1 || !G_VALUE_HOLDS_OBJECT(&params[0]))
		return TRUE;
	GObject *object = g_value_get_object(&params[0]);
	if (watched || !GTK_IS_WINDOW(object) ||
	    gtk_window_get_window_type(GTK_WINDOW(object)) != GTK_WINDOW_TOPLEVEL)
		return TRUE;
	watched = GTK_WIDGET(object);
	g_signal_connect(watched, "draw", G_CALLBACK(on_draw), NULL);
	g_signal_connect(gtk_widget_get_frame_clock(watched), "after-paint",
			 G_CALLBACK(on_after_paint), NULL);
	return FALSE;
}

void gtk_module_init(gint *argc, gchar ***argv)
{
	(void)argc, (void)argv;
	/* The signal exists once the class does. */
	g_type_class_unref(g_type_class_ref(GTK_TYPE_WIDGET));
	g_signal_add_emission_hook(g_signal_lookup("map-event", GTK_TYPE_WIDGET), 0, on_map_event,
				   NULL, NULL);
}
