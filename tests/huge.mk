# Huge traces and many traces: xcapanalyse -j and NDJSON read by a SQL
# engine; a long trace made from real captures for the benchmarks.
dist_check_SCRIPTS += tests/analyse-many.sh
TESTS += tests/analyse-many.sh

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

# netplot --follow on a trace xcap is still writing, under Xvfb.
if NETPLOT
dist_check_SCRIPTS += tests/netplot-follow.sh
TESTS += tests/netplot-follow.sh
endif
