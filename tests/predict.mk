# tests: prediction from one trace (xcapanalyse --predict, --added-delay)
check_PROGRAMS += tests/check_predict
tests_check_predict_SOURCES = tests/check_predict.c
tests_check_predict_CPPFLAGS = $(INC_TESTS)
tests_check_predict_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(PCAP_CFLAGS)
tests_check_predict_LDADD = xcapanalyse/libanalyse.a $(XCAP_LIBS) $(CHECK_LIBS)
TESTS += tests/check_predict
dist_check_SCRIPTS += tests/predict-accuracy.sh tests/predict-ssh.sh
TESTS += tests/predict-accuracy.sh tests/predict-ssh.sh
EXTRA_DIST += tests/predict-compare.py

# The issue's accuracy list on the same 2 x 2, raw and through ssh -X -C:
# xdpyinfo, xterm's start-up, gtk3-demo's start-up (it quits by itself a
# moment after its window shows) and a subset of x11perf's round-trip
# tests, a fixed number of repetitions each.  Some 40 minutes; the
# matrix is PREDICT_RATES and PREDICT_DELAYS (xcapanalyse(1), PREDICTION:
# Accuracy).
PREDICT_LONG_CLIENTS = xdpyinfo\nxterm -e true\ngtk3-demo --autoquit\nx11perf -repeat 1 -reps 20 -atom -prop -getimage10
long-predict: all $(check_PROGRAMS)
	PREDICT_CLIENTS="$$(printf '$(PREDICT_LONG_CLIENTS)')" $(MAKE) $(AM_MAKEFLAGS) check \
		TESTS='tests/predict-accuracy.sh tests/predict-ssh.sh'
.PHONY: long-predict

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
	tests/golden/xdpyinfo-xlogo-predict-ssh.out \
	tests/golden/xdpyinfo-xlogo-added-delay.out \
	tests/golden/xdpyinfo-xlogo-added-json.out \
	tests/golden/xdpyinfo-xlogo-predict-trips-csv.out
