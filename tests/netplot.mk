# tests: netplot — the renderer core (Check), exports of a real capture,
# the GUI under Xvfb driven by xdotool.  The benchmark is not a test.
if NETPLOT
check_PROGRAMS += tests/check_netplot
tests_check_netplot_SOURCES = tests/check_netplot.c
tests_check_netplot_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(GTK_CFLAGS) -I$(top_srcdir)/netplot
tests_check_netplot_LDADD = $(NETPLOT_LIBS) $(CHECK_LIBS)
TESTS += tests/check_netplot
dist_check_SCRIPTS += tests/netplot-export.sh tests/netplot-gui.sh
TESTS += tests/netplot-export.sh tests/netplot-gui.sh
endif
