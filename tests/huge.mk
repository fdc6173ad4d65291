# Huge traces and many traces: xcapanalyse -j and NDJSON read by a SQL
# engine; a long trace made from real captures for the benchmarks.
dist_check_SCRIPTS += tests/analyse-many.sh tests/long-table.sh
TESTS += tests/analyse-many.sh tests/long-table.sh

check_PROGRAMS += tests/trace-stretch
tests_trace_stretch_SOURCES = tests/trace-stretch.c
tests_trace_stretch_CPPFLAGS = $(INC_TESTS)
tests_trace_stretch_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS)
tests_trace_stretch_LDADD = $(XCAP_LIBS)

# The benchmark: 200 traces one by one, together, and with -j 2.
EXTRA_DIST += tests/bench-many.sh
bench: bench-analyse-many
bench-analyse-many: all
	$(SHELL) $(top_srcdir)/tests/bench-many.sh $(abs_top_builddir)
.PHONY: bench-analyse-many

# netplot --follow on a trace xcap is still writing, under Xvfb; the
# trace index against the full model, and fuzzed.
if NETPLOT
dist_check_SCRIPTS += tests/netplot-follow.sh tests/netplot-index-gui.sh \
	tests/netplot-follow-rotate.sh
TESTS += tests/netplot-follow.sh tests/netplot-index-gui.sh tests/netplot-follow-rotate.sh
check_PROGRAMS += tests/check_index
tests_check_index_SOURCES = tests/check_index.c
tests_check_index_CPPFLAGS = $(INC_TESTS)
tests_check_index_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(GTK_CFLAGS) $(PCAP_CFLAGS)
tests_check_index_LDADD = $(NETPLOT_LIBS) $(CHECK_LIBS)
TESTS += tests/check_index
check_PROGRAMS += tests/fuzz/fuzz-index
tests_fuzz_fuzz_index_SOURCES = tests/fuzz/fuzz_index.c tests/fuzz/driver.c
tests_fuzz_fuzz_index_CPPFLAGS = $(INC_TESTS)
tests_fuzz_fuzz_index_CFLAGS = $(AM_CFLAGS) $(GTK_CFLAGS)
tests_fuzz_fuzz_index_LDADD = $(NETPLOT_LIBS)
dist_check_SCRIPTS += tests/fuzz-index.sh tests/index-capture.sh
TESTS += tests/fuzz-index.sh tests/index-capture.sh
# An index without states (xcap's): netplot makes them in a thread and
# writes them into it, under Xvfb.
dist_check_SCRIPTS += tests/netplot-index-states.sh
TESTS += tests/netplot-index-states.sh
endif

# The benchmark of huge traces: netplot from the index on a hundred
# million packets made from real captures, beside the whole trace in
# memory and xplot on ten million.
EXTRA_DIST += tests/bench-netplot-huge.sh
bench: bench-netplot-huge
bench-netplot-huge: all
	@if test -x netplot/netplot$(EXEEXT); then \
		$(MAKE) $(AM_MAKEFLAGS) tests/trace-stretch$(EXEEXT) && \
		$(SHELL) $(top_srcdir)/tests/bench-netplot-huge.sh $(abs_top_builddir); \
	else echo "bench-netplot-huge: netplot is not built (it needs GTK 3 and cairo)"; fi
.PHONY: bench-netplot-huge
EXTRA_DIST += tests/x-chatter.c
