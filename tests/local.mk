# tests/ — Check unit tests, golden tests, integration tests, fuzz targets,
# benchmarks.  Fragments per area keep parallel work apart.
# Tests may see every layer.
INC_TESTS = $(INC_PROTOCOLS) -I$(top_srcdir)/xcap -I$(top_srcdir)/xcapanalyse \
	-I$(top_srcdir)/netplot $(INC_CMD) -I$(top_srcdir)/xcap/cmd/xcap \
	-I$(top_srcdir)/xcap/cmd/xcap-replay

include tests/capture.mk
include tests/trace.mk
include tests/x11.mk
include tests/link.mk
include tests/state.mk
include tests/sweep.mk
include tests/predict.mk
include tests/netplot.mk
include tests/run.mk
include tests/rfb.mk
include tests/wayland.mk
include tests/replay.mk
include tests/package.mk
include tests/huge.mk
include tests/flight.mk
include tests/compare.mk
include tests/responses.mk
include tests/soak.mk
include tests/slim.mk
include tests/units.mk
include tests/engines.mk

# The lock the timing tests take turns with (timing_alone in tests/lib.sh).
CLEANFILES += tests/.timing-lock

# The layers: no directory includes a header of a layer above it.
dist_check_SCRIPTS += tests/layers.sh tests/exit-status.sh tests/dist-files.sh
TESTS += tests/layers.sh tests/exit-status.sh tests/dist-files.sh

# The tests' X servers do not reset (start_xvfb and the rest: -noreset).
dist_check_SCRIPTS += tests/x-reset.sh
TESTS += tests/x-reset.sh

# Golden tests of xcapanalyse's views: each a line of tests/golden/TESTLIST
# and its tests/golden/NAME.out (golden.sh fails on one without the other).
# The folder goes to the tarball whole: a new golden needs no line here.
dist_check_SCRIPTS += tests/golden.sh tests/json-strict.sh tests/range-cut.sh
TESTS += tests/golden.sh tests/json-strict.sh tests/range-cut.sh
EXTRA_DIST += tests/golden

# one voice for errors (issue 19)
dist_check_SCRIPTS += tests/bad-input.sh
TESTS += tests/bad-input.sh

# The documentation is a test (issue 28): every command of README.md, of
# the man pages' EXAMPLES and of the tutorial, run as written.
dist_check_SCRIPTS += tests/doc-commands.sh
EXTRA_DIST += tests/doc-commands.py
TESTS += tests/doc-commands.sh
