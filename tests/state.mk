# The state model: physics on emulated links, and tables that add up.
dist_check_SCRIPTS += tests/state-physics.sh
TESTS += tests/state-physics.sh
# Waits from a capture beside the server, against the client's own clock.
dist_check_SCRIPTS += tests/state-server-side.sh
TESTS += tests/state-server-side.sh
EXTRA_DIST += tests/captures/xphysics-server-side.xcap
EXTRA_DIST += tests/xphysics.py tests/delays-check.py
dist_check_SCRIPTS += tests/state-tables.sh
TESTS += tests/state-tables.sh
EXTRA_DIST += tests/waits-count.py
# Round trips against the clients' own record of their waits.
dist_check_SCRIPTS += tests/trips-truth.sh
TESTS += tests/trips-truth.sh
EXTRA_DIST += tests/xpipeline.py tests/trips-truth.py tests/xcbwaits.c

check_PROGRAMS += tests/check_state
tests_check_state_SOURCES = tests/check_state.c
tests_check_state_CPPFLAGS = $(INC_TESTS)
tests_check_state_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(PCAP_CFLAGS)
tests_check_state_LDADD = xcapanalyse/libanalyse.a $(XCAP_LIBS) $(CHECK_LIBS)
TESTS += tests/check_state

# A round trip's queued part on real traffic: glxgears' frames over
# 10 Mb/s and 20 ms, against the client's own record of its waits.
dist_check_SCRIPTS += tests/trips-queued.sh
TESTS += tests/trips-queued.sh
