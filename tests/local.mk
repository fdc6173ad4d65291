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
include tests/replay.mk
include tests/package.mk
include tests/huge.mk
include tests/flight.mk
include tests/compare.mk
include tests/responses.mk
include tests/soak.mk
include tests/slim.mk
include tests/engines.mk

# The lock the timing tests take turns with (timing_alone in tests/lib.sh).
CLEANFILES += tests/.timing-lock

# The layers: no directory includes a header of a layer above it.
dist_check_SCRIPTS += tests/layers.sh tests/exit-status.sh tests/dist-files.sh
TESTS += tests/layers.sh tests/exit-status.sh tests/dist-files.sh

# The tests' X servers do not reset (start_xvfb and the rest: -noreset).
dist_check_SCRIPTS += tests/x-reset.sh
TESTS += tests/x-reset.sh

# Golden tests of xcapanalyse's views (tests/golden/TESTLIST).
dist_check_SCRIPTS += tests/golden.sh
TESTS += tests/golden.sh
EXTRA_DIST += tests/golden/TESTLIST \
	tests/golden/lossy-delays-json.out \
	tests/golden/lossy-trips.out \
	tests/golden/midstream-delays.out \
	tests/golden/xdpyinfo-xlogo-connections-csv.out \
	tests/golden/xdpyinfo-xlogo-connections-json.out \
	tests/golden/xdpyinfo-xlogo-connections-md.out \
	tests/golden/xdpyinfo-xlogo-connections.out \
	tests/golden/xdpyinfo-xlogo-delays-conn2.out \
	tests/golden/xdpyinfo-xlogo-delays-csv.out \
	tests/golden/xdpyinfo-xlogo-delays-json.out \
	tests/golden/xdpyinfo-xlogo-delays-md.out \
	tests/golden/xdpyinfo-xlogo-delays.out \
	tests/golden/xdpyinfo-xlogo-dump-ng.out \
	tests/golden/xdpyinfo-xlogo-dump.out \
	tests/golden/xdpyinfo-xlogo-messages-csv.out \
	tests/golden/xdpyinfo-xlogo-messages-json.out \
	tests/golden/xdpyinfo-xlogo-messages.out \
	tests/golden/xdpyinfo-xlogo-requests-csv.out \
	tests/golden/xdpyinfo-xlogo-requests-json.out \
	tests/golden/xdpyinfo-xlogo-requests-md.out \
	tests/golden/xdpyinfo-xlogo-requests-perconn-csv.out \
	tests/golden/xdpyinfo-xlogo-requests-perconn.out \
	tests/golden/xdpyinfo-xlogo-requests.out \
	tests/golden/xdpyinfo-xlogo-trips-csv.out \
	tests/golden/xdpyinfo-xlogo-trips-json.out \
	tests/golden/xdpyinfo-xlogo-trips-md.out \
	tests/golden/xdpyinfo-xlogo-trips.out \
	tests/golden/xdpyinfo-xlogo-delays-ndjson.out \
	tests/golden/xdpyinfo-xlogo-requests-ndjson.out \
	tests/golden/xdpyinfo-xlogo-trips-ndjson.out \
	tests/golden/xdpyinfo-xlogo-connections-ndjson.out

# one voice for errors (issue 19)
dist_check_SCRIPTS += tests/bad-input.sh
TESTS += tests/bad-input.sh
