# netplot/ — the viewer: a renderer of plain C and cairo (libnetplot.a,
# used headless by export, the benchmark and the tests) and the GTK
# application around it.  Built when configure found GTK 3 and cairo.
if NETPLOT
# The state model (xcapanalyse/state.c) colours messages and fills the
# region statistics; without it they fall back to message kinds.
NETPLOT_STATE_CFLAGS =
NETPLOT_STATE_LIBS =

noinst_LIBRARIES += netplot/libnetplot.a
netplot_libnetplot_a_SOURCES = \
	netplot/model.c netplot/model.h \
	netplot/lod.c \
	netplot/render.c netplot/render.h \
	netplot/export.c
netplot_libnetplot_a_CFLAGS = $(AM_CFLAGS) $(GTK_CFLAGS) $(NETPLOT_STATE_CFLAGS)

# Everything that links the renderer links these, in this order.
NETPLOT_LIBS = netplot/libnetplot.a $(NETPLOT_STATE_LIBS) $(XCAP_LIBS) $(GTK_LIBS) -lm

bin_PROGRAMS += netplot/netplot
netplot_netplot_SOURCES = netplot/netplot.c netplot/gui.c netplot/gui.h
netplot_netplot_CFLAGS = $(AM_CFLAGS) $(GTK_CFLAGS)
netplot_netplot_LDADD = $(NETPLOT_LIBS)
endif
dist_man_MANS += man/netplot.1
