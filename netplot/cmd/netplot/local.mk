# netplot/cmd/netplot/ — the command (netplot.c: options, headless
# export) and the GTK application (gui.c; cdfwin.c, the CDF window).
bin_PROGRAMS += netplot/netplot
netplot_netplot_SOURCES = netplot/cmd/netplot/netplot.c \
	netplot/cmd/netplot/gui.c netplot/cmd/netplot/gui.h \
	netplot/cmd/netplot/cdfwin.c netplot/cmd/netplot/cdfwin.h
netplot_netplot_CPPFLAGS = $(INC_NETPLOT) $(INC_CMD) -I$(top_srcdir)/netplot/cmd/netplot
netplot_netplot_CFLAGS = $(AM_CFLAGS) $(GTK_CFLAGS)
netplot_netplot_LDADD = $(NETPLOT_LIBS) xcap/cmd/libcmd.a
dist_man_MANS += man/netplot.1
