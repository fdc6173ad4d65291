# Comparing runs (xcapanalyse --compare and its gate) and the pictures of
# responses (netplot --cdf, the inputs on the graph).
dist_check_SCRIPTS += tests/compare.sh
TESTS += tests/compare.sh

# The CDF pictures, headless: curves where their values say, exports.
if NETPLOT
check_PROGRAMS += tests/check_cdf
tests_check_cdf_SOURCES = tests/check_cdf.c
tests_check_cdf_CPPFLAGS = $(INC_TESTS)
tests_check_cdf_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(GTK_CFLAGS)
tests_check_cdf_LDADD = $(NETPLOT_LIBS) $(CHECK_LIBS)
TESTS += tests/check_cdf
# The inputs on the graph: drawn, pointed at, counted in a span.
check_PROGRAMS += tests/check_inputs
tests_check_inputs_SOURCES = tests/check_inputs.c
tests_check_inputs_CPPFLAGS = $(INC_TESTS)
tests_check_inputs_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(GTK_CFLAGS)
tests_check_inputs_LDADD = $(NETPLOT_LIBS) $(CHECK_LIBS)
TESTS += tests/check_inputs
endif
dist_check_SCRIPTS += tests/netplot-cdf.sh
TESTS += tests/netplot-cdf.sh
