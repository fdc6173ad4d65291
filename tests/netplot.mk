# tests: netplot — the renderer core (Check), exports of a real capture,
# the GUI under Xvfb driven by xdotool.  The benchmark is not a test.
if NETPLOT
check_PROGRAMS += tests/check_netplot
tests_check_netplot_SOURCES = tests/check_netplot.c
tests_check_netplot_CPPFLAGS = $(INC_TESTS)
tests_check_netplot_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(GTK_CFLAGS)
tests_check_netplot_LDADD = $(NETPLOT_LIBS) $(CHECK_LIBS)
TESTS += tests/check_netplot
dist_check_SCRIPTS += tests/netplot-export.sh tests/netplot-gui.sh tests/netplot-dnd.sh \
	tests/netplot-cdf-gui.sh tests/netplot-open.sh tests/netplot-graphs-gui.sh
TESTS += tests/netplot-export.sh tests/netplot-gui.sh tests/netplot-dnd.sh \
	tests/netplot-cdf-gui.sh tests/netplot-open.sh tests/netplot-graphs-gui.sh

# The benchmark: a synthetic trace of ten million packets, netplot's
# figures beside xplot's for the same graph.
check_PROGRAMS += tests/netplot-synth
tests_netplot_synth_SOURCES = tests/netplot-synth.c
tests_netplot_synth_CPPFLAGS = $(INC_TESTS)
tests_netplot_synth_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS)
tests_netplot_synth_LDADD = $(XCAP_LIBS)
endif
EXTRA_DIST += tests/bench-netplot.sh
bench: bench-netplot
bench-netplot: all
	@if test -x netplot/netplot$(EXEEXT); then \
		$(MAKE) $(AM_MAKEFLAGS) tests/netplot-synth$(EXEEXT) && \
		$(SHELL) $(top_srcdir)/tests/bench-netplot.sh $(abs_top_builddir); \
	else echo "bench-netplot: netplot is not built (it needs GTK 3 and cairo)"; fi
.PHONY: bench-netplot
