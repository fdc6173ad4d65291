# tests: link decoding, reassembly, the xcap command on real traffic.
check_PROGRAMS += tests/check_capture
tests_check_capture_SOURCES = tests/check_capture.c
tests_check_capture_CPPFLAGS = $(INC_TESTS)
tests_check_capture_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(PCAP_CFLAGS)
tests_check_capture_LDADD = $(XCAP_LIBS) $(CHECK_LIBS)
TESTS += tests/check_capture
check_PROGRAMS += tests/check_pcapfile
tests_check_pcapfile_SOURCES = tests/check_pcapfile.c
tests_check_pcapfile_CPPFLAGS = $(INC_TESTS)
tests_check_pcapfile_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(PCAP_CFLAGS)
tests_check_pcapfile_LDADD = $(XCAP_LIBS) $(CHECK_LIBS)
TESTS += tests/check_pcapfile
check_PROGRAMS += tests/check_cut
tests_check_cut_SOURCES = tests/check_cut.c
tests_check_cut_CPPFLAGS = $(INC_TESTS)
tests_check_cut_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(PCAP_CFLAGS)
tests_check_cut_LDADD = xcap/cmd/xcap/libcapture.a $(XCAP_LIBS) $(CHECK_LIBS)
TESTS += tests/check_cut
check_PROGRAMS += tests/check_ring
tests_check_ring_SOURCES = tests/check_ring.c
tests_check_ring_CPPFLAGS = $(INC_TESTS)
tests_check_ring_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(PCAP_CFLAGS)
tests_check_ring_LDADD = xcap/cmd/xcap/libcapture.a $(XCAP_LIBS) $(CHECK_LIBS)
TESTS += tests/check_ring
dist_check_SCRIPTS += tests/capture-live.sh tests/capture-tun.sh tests/cut-live.sh
TESTS += tests/capture-live.sh tests/capture-tun.sh tests/cut-live.sh
EXTRA_DIST += tests/lib.sh
EXTRA_DIST += tests/demo.sh
dist_check_SCRIPTS += tests/hostile.sh tests/fuzz-pcap.sh tests/rotate-read.sh tests/decode-ahead.sh
TESTS += tests/hostile.sh tests/fuzz-pcap.sh tests/rotate-read.sh tests/decode-ahead.sh
EXTRA_DIST += tests/captures/xdpyinfo-xlogo.pcap tests/captures/xdpyinfo-xlogo.pcapng \
	tests/captures/xdpyinfo-xlogo-midstream.pcap tests/captures/xdpyinfo-xlogo-lossy.pcap \
	tests/captures/xdpyinfo-xlogo-late-ack.pcap tests/captures/xdpyinfo-xlogo-late-ack-orphan.xcap \
	tests/captures/xdpyinfo-xlogo-rexmt.pcap

check_PROGRAMS += tests/fuzz/fuzz-pcap
tests_fuzz_fuzz_pcap_SOURCES = tests/fuzz/fuzz_pcap.c tests/fuzz/driver.c
tests_fuzz_fuzz_pcap_CPPFLAGS = $(INC_TESTS)
tests_fuzz_fuzz_pcap_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS)
tests_fuzz_fuzz_pcap_LDADD = $(XCAP_LIBS)
EXTRA_DIST += tests/bench-capture.sh tests/bench-x11.sh tests/bench-analyse.sh tests/bench-read.sh

# Benchmarks print figures beside the peer tools; they never pass or fail.
EXTRA_PROGRAMS += tests/ring-floor
tests_ring_floor_SOURCES = tests/ring-floor.c xcap/cmd/xcap/ring.c
tests_ring_floor_CPPFLAGS = $(INC_TESTS)
tests_ring_floor_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS)
tests_ring_floor_LDADD = $(PCAP_LIBS)
CLEANFILES += tests/ring-floor$(EXEEXT)
bench: all tests/ring-floor$(EXEEXT)
	$(SHELL) $(top_srcdir)/tests/bench-capture.sh $(abs_top_builddir)
	$(SHELL) $(top_srcdir)/tests/bench-read.sh $(abs_top_builddir)
	$(SHELL) $(top_srcdir)/tests/bench-x11.sh $(abs_top_builddir)
	$(SHELL) $(top_srcdir)/tests/bench-wayland.sh $(abs_top_builddir)
	$(SHELL) $(top_srcdir)/tests/bench-analyse.sh $(abs_top_builddir)
.PHONY: bench

# Library code never ends the program: every allocation in turn fails.
check_PROGRAMS += tests/check_nomem
tests_check_nomem_SOURCES = tests/check_nomem.c
tests_check_nomem_CPPFLAGS = $(INC_TESTS)
tests_check_nomem_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(PCAP_CFLAGS)
tests_check_nomem_LDFLAGS = -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc
tests_check_nomem_LDADD = $(XCAP_LIBS) $(CHECK_LIBS)
TESTS += tests/check_nomem
