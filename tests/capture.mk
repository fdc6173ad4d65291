# tests: link decoding, reassembly, the xcap command on real traffic.
check_PROGRAMS += tests/check_capture
tests_check_capture_SOURCES = tests/check_capture.c
tests_check_capture_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(PCAP_CFLAGS)
tests_check_capture_LDADD = $(XCAP_LIBS) $(CHECK_LIBS)
TESTS += tests/check_capture
