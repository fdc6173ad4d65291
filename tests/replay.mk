# tests: recording a session from a capture and replaying it (xcap-replay).
# replay.sh's runs go side by side and the suite's version takes about a
# minute; `make long-replay` adds xterm's replay at the recorded pace and a
# second rate to the sweep.
dist_check_SCRIPTS += tests/replay.sh tests/fuzz-session.sh
TESTS += tests/replay.sh tests/fuzz-session.sh

long-replay: all $(check_PROGRAMS)
	REPLAY_LONG=1 $(MAKE) $(AM_MAKEFLAGS) check TESTS=tests/replay.sh
.PHONY: long-replay

# The session file's reader, fuzzed.
check_PROGRAMS += tests/fuzz/fuzz-session
tests_fuzz_fuzz_session_SOURCES = tests/fuzz/fuzz_session.c tests/fuzz/driver.c
tests_fuzz_fuzz_session_CPPFLAGS = $(INC_TESTS)
tests_fuzz_fuzz_session_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS)
tests_fuzz_fuzz_session_LDADD = xcap/cmd/xcap-replay/libsession.a $(XCAP_LIBS)

# The session file: reading, refusing, writing, recording from real captures.
check_PROGRAMS += tests/check_session
tests_check_session_SOURCES = tests/check_session.c
tests_check_session_CPPFLAGS = $(INC_TESTS)
tests_check_session_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(PCAP_CFLAGS)
tests_check_session_LDADD = xcap/cmd/xcap-replay/libsession.a $(XCAP_LIBS) $(CHECK_LIBS)
TESTS += tests/check_session
