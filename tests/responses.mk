# Responses to input (xcapanalyse --responses): the golden capture and
# outputs, the ground truth against a server-side clock, the benchmark.
EXTRA_DIST += tests/captures/xterm-input.pcap tests/captures/xterm-lossy.pcap \
	tests/captures/xterm-input-snap96.pcap
dist_check_SCRIPTS += tests/responses-truth.sh
TESTS += tests/responses-truth.sh
EXTRA_DIST += tests/xinput-truth.c

# The benchmark: a million inputs of a synthetic session.
check_PROGRAMS += tests/responses-synth
tests_responses_synth_SOURCES = tests/responses-synth.c
tests_responses_synth_CPPFLAGS = $(INC_TESTS)
tests_responses_synth_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS)
tests_responses_synth_LDADD = $(XCAP_LIBS)
EXTRA_DIST += tests/bench-responses.sh
bench: bench-responses
bench-responses: all tests/responses-synth$(EXEEXT)
	$(SHELL) $(top_srcdir)/tests/bench-responses.sh $(abs_top_builddir)
.PHONY: bench-responses
dist_check_SCRIPTS += tests/responses-truth-rfb.sh
TESTS += tests/responses-truth-rfb.sh
EXTRA_DIST += tests/rfbtruth.py
# TigerVNC's viewer against Xvnc and x11vnc, judged from the pcap's bytes;
# the golden captures of what it does that other viewers do not.
dist_check_SCRIPTS += tests/responses-vnc-viewer.sh
TESTS += tests/responses-vnc-viewer.sh
EXTRA_DIST += tests/rfbpcap.py tests/captures/rfb-tigervnc-keys.pcap \
	tests/captures/rfb-tigervnc-cursor.pcap tests/captures/rfb-tigervnc-x11vnc-clicks.pcap

check_PROGRAMS += tests/check_responses
tests_check_responses_SOURCES = tests/check_responses.c
tests_check_responses_CPPFLAGS = $(INC_TESTS)
tests_check_responses_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(PCAP_CFLAGS)
tests_check_responses_LDADD = xcapanalyse/libanalyse.a $(XCAP_LIBS) $(CHECK_LIBS)
TESTS += tests/check_responses

# Slow-motion benchmarking's video quality (--updates --ideal-fps,
# --slow-motion) against the clocks of an animation and a viewer, and a
# slow link's physics.
dist_check_SCRIPTS += tests/video-quality.sh
TESTS += tests/video-quality.sh
EXTRA_DIST += tests/xanimate.py
