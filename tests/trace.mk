# tests: the trace format — round trips, damage, truncation, dump text.
check_PROGRAMS += tests/check_trace
tests_check_trace_SOURCES = tests/check_trace.c
tests_check_trace_CPPFLAGS = $(INC_TESTS)
tests_check_trace_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(PCAP_CFLAGS)
tests_check_trace_LDADD = $(XCAP_LIBS) $(CHECK_LIBS)
TESTS += tests/check_trace

check_PROGRAMS += tests/fuzz/fuzz-trace
tests_fuzz_fuzz_trace_SOURCES = tests/fuzz/fuzz_trace.c tests/fuzz/driver.c
tests_fuzz_fuzz_trace_CPPFLAGS = $(INC_TESTS)
tests_fuzz_fuzz_trace_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS)
tests_fuzz_fuzz_trace_LDADD = xcapanalyse/libanalyse.a $(XCAP_LIBS)
dist_check_SCRIPTS += tests/fuzz-trace.sh
TESTS += tests/fuzz-trace.sh

# The pairing of replies with requests travels in the trace (1.1) and is
# made by the reader for 1.0 traces.
dist_check_SCRIPTS += tests/trace-pairing.sh
TESTS += tests/trace-pairing.sh

# tcptrace -l -r's statistics against xcapanalyse --tcp-stats.
dist_check_SCRIPTS += tests/tcpstats-tcptrace.sh
TESTS += tests/tcpstats-tcptrace.sh
