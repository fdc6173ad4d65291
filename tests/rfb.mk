# tests: the RFB (VNC) decoder — unit tests, real servers and viewers, fuzzing.
check_PROGRAMS += tests/check_rfb
tests_check_rfb_SOURCES = tests/check_rfb.c
tests_check_rfb_CPPFLAGS = $(INC_TESTS)
tests_check_rfb_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_rfb_LDADD = protocols/libprotocols.a $(CHECK_LIBS)
TESTS += tests/check_rfb

check_PROGRAMS += tests/fuzz/fuzz-rfb
tests_fuzz_fuzz_rfb_SOURCES = tests/fuzz/fuzz_rfb.c tests/fuzz/driver.c tests/fuzz/chunks.h
tests_fuzz_fuzz_rfb_CPPFLAGS = $(INC_TESTS)
tests_fuzz_fuzz_rfb_LDADD = protocols/libprotocols.a

dist_check_SCRIPTS += tests/rfb-live.sh tests/fuzz-rfb.sh tests/rfb-oracle.sh tests/rfb-lossy.sh tests/rfb-views.sh
TESTS += tests/rfb-live.sh tests/fuzz-rfb.sh tests/rfb-oracle.sh tests/rfb-lossy.sh tests/rfb-views.sh
EXTRA_DIST += tests/bench-rfb.sh tests/rfbclient.py tests/rfb-session.sh tests/rfb-compare.py tests/rfb-lossy-compare.py \
	tests/captures/rfb-xvnc.pcap tests/captures/rfb-xvnc.msgs \
	tests/captures/rfb-banners.pcap tests/rfb-banners.py \
	tests/captures/rfb-regress.pcap tests/rfb-regress.py \
	tests/captures/rfb-xvnc-hole.pcap tests/captures/rfb-xvnc-client-hole.pcap

# The RFB benchmark (not a test; as root): make bench-rfb
bench-rfb: all
	$(SHELL) $(top_srcdir)/tests/bench-rfb.sh $(abs_top_builddir)
.PHONY: bench-rfb
