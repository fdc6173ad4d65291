# netplot/ — the viewer's library: a renderer of plain C and cairo
# (libnetplot.a, used headless by export, the benchmark and the tests).
# The GTK application around it has its room in netplot/cmd/netplot/.
# Built when configure found GTK 3 and cairo.
# Include paths: this layer, xcapanalyse/ (the state model) and xcap/
# (the reader and records).
INC_NETPLOT = $(AM_CPPFLAGS) -I$(top_srcdir)/netplot -I$(top_srcdir)/xcapanalyse \
	-I$(top_srcdir)/xcap
if NETPLOT
noinst_LIBRARIES += netplot/libnetplot.a
netplot_libnetplot_a_CPPFLAGS = $(INC_NETPLOT)
netplot_libnetplot_a_SOURCES = \
	netplot/model.c netplot/model.h \
	netplot/lod.c \
	netplot/index.c netplot/index.h \
	netplot/render.c netplot/render.h \
	netplot/layer.c netplot/layer.h \
	netplot/layer_state.c netplot/layer_gaps.c netplot/layer_acks.c netplot/layer_data.c \
	netplot/layer_messages.c netplot/layer_marks.c netplot/layer_inputs.c \
	netplot/series.c netplot/series.h netplot/layer_series.c netplot/layer_lanes.c \
	netplot/export.c \
	netplot/cdf.c netplot/cdf.h \
	netplot/runs.c netplot/runs.h
netplot_libnetplot_a_CFLAGS = $(AM_CFLAGS) $(GTK_CFLAGS) $(PCAP_CFLAGS) $(LIBDW_CFLAGS)
# Everything that links the renderer links these, in this order.
NETPLOT_LIBS = netplot/libnetplot.a xcapanalyse/libanalyse.a $(XCAP_LIBS) $(GTK_LIBS) $(LIBDW_LIBS) -lm

include netplot/cmd/netplot/local.mk
endif
