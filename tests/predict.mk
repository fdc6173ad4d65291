# tests: prediction from one trace (xcapanalyse --predict, --added-delay)
check_PROGRAMS += tests/check_predict
tests_check_predict_SOURCES = tests/check_predict.c
tests_check_predict_CPPFLAGS = $(INC_TESTS)
tests_check_predict_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(PCAP_CFLAGS)
tests_check_predict_LDADD = xcapanalyse/libanalyse.a $(XCAP_LIBS) $(CHECK_LIBS)
TESTS += tests/check_predict
dist_check_SCRIPTS += tests/predict-accuracy.sh
TESTS += tests/predict-accuracy.sh

# Benchmarks print figures beside the peer tools; they never pass or fail.
# As root it also measures how far time dilation carries the check of the
# prediction past the emulator (tests/predict-dilation.sh).
EXTRA_DIST += tests/bench-predict.sh tests/predict-dilation.sh
bench: bench-predict
bench-predict: all
	$(SHELL) $(top_srcdir)/tests/bench-predict.sh $(abs_top_builddir)
	top_srcdir=$(top_srcdir) top_builddir=$(abs_top_builddir) $(SHELL) $(top_srcdir)/tests/predict-dilation.sh || true
.PHONY: bench-predict

# Golden outputs of the prediction views (lines in tests/golden/TESTLIST).
EXTRA_DIST += tests/golden/xdpyinfo-xlogo-predict.out \
	tests/golden/xdpyinfo-xlogo-predict-csv.out \
	tests/golden/xdpyinfo-xlogo-added-delay.out \
	tests/golden/xdpyinfo-xlogo-added-json.out \
	tests/golden/xdpyinfo-xlogo-predict-trips-csv.out
