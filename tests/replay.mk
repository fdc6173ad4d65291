# tests: recording a session from a capture and replaying it (xcap-replay).
dist_check_SCRIPTS += tests/replay.sh tests/fuzz-session.sh
TESTS += tests/replay.sh tests/fuzz-session.sh

# The session file's reader, fuzzed.
check_PROGRAMS += tests/fuzz/fuzz-session
tests_fuzz_fuzz_session_SOURCES = tests/fuzz/fuzz_session.c tests/fuzz/driver.c
tests_fuzz_fuzz_session_CPPFLAGS = $(INC_TESTS)
tests_fuzz_fuzz_session_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS)
tests_fuzz_fuzz_session_LDADD = $(XCAP_LIBS)
