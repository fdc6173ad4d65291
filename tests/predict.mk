# tests: prediction from one trace (xcapanalyse --predict, --added-delay)
check_PROGRAMS += tests/check_predict
tests_check_predict_SOURCES = tests/check_predict.c
tests_check_predict_CPPFLAGS = $(INC_TESTS)
tests_check_predict_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(PCAP_CFLAGS)
tests_check_predict_LDADD = xcapanalyse/libanalyse.a $(XCAP_LIBS) $(CHECK_LIBS)
TESTS += tests/check_predict
dist_check_SCRIPTS += tests/predict-accuracy.sh tests/predict-ssh.sh
TESTS += tests/predict-accuracy.sh tests/predict-ssh.sh
EXTRA_DIST += tests/predict-compare.py tests/ssh-forward-time.py tests/link-echo.py

# gtk3-demo's start-up, ended when its first window has been drawn and the
# server has answered everything (tests/gtk-ready.c, a GTK 3 module), not
# by its own clock as --autoquit does, so that it does the same X work
# over any link.  Built only for the long runs, without the sanitizers'
# flags: it is loaded into an uninstrumented gtk3-demo.
EXTRA_DIST += tests/gtk-ready.c tests/predict-lib.sh tests/predict-matrix.sh
CLEANFILES += tests/gtk-ready.so
if NETPLOT
tests/gtk-ready.so: tests/gtk-ready.c
	$(AM_V_CC)$(CC) -std=c11 -O2 -fPIC -shared $(GTK_CFLAGS) -o $@ \
		$(srcdir)/tests/gtk-ready.c $(GTK_LIBS)
PREDICT_GTK_MODULE = tests/gtk-ready.so
PREDICT_GTK_DEMO = \nenv GTK_MODULES=$(abs_builddir)/tests/gtk-ready.so gtk3-demo
endif

# The issue's accuracy list on the same 2 x 2, raw and through ssh -X -C:
# xdpyinfo, xterm's start-up, gtk3-demo's start-up (with the module
# above) and a subset of x11perf's round-trip tests, a fixed number of
# repetitions each.  Some 40 minutes; the matrix is PREDICT_RATES and
# PREDICT_DELAYS (xcapanalyse(1), PREDICTION: Accuracy).
PREDICT_LONG_CLIENTS = xdpyinfo\nxterm -e true$(PREDICT_GTK_DEMO)\nx11perf -repeat 1 -reps 20 -atom -prop -getimage10
long-predict: all $(check_PROGRAMS) $(PREDICT_GTK_MODULE)
	PREDICT_CLIENTS="$$(printf '$(PREDICT_LONG_CLIENTS)')" $(MAKE) $(AM_MAKEFLAGS) check \
		TESTS='tests/predict-accuracy.sh tests/predict-ssh.sh'
.PHONY: long-predict

# The paper's 5 x 4 matrix, raw and through ssh -X -C, for the same
# clients, each cell that a run can measure within minutes (the others
# are named with their predicted duration in xcapanalyse(1)); some an
# hour and a half.  PREDICT_MATRIX=full measures every cell.
long-predict-matrix: all $(check_PROGRAMS) $(PREDICT_GTK_MODULE)
	top_srcdir=$(abs_top_srcdir) $(SHELL) $(top_srcdir)/tests/predict-matrix.sh \
		$(abs_top_builddir) "$(PREDICT_GTK_MODULE:%=$(abs_builddir)/%)"
.PHONY: long-predict-matrix

# Benchmarks print figures beside the peer tools; they never pass or fail.
# As root it also measures how far time dilation carries the check of the
# prediction past the emulator (tests/predict-dilation.sh).
EXTRA_DIST += tests/bench-predict.sh tests/predict-dilation.sh
bench: bench-predict
bench-predict: all
	$(SHELL) $(top_srcdir)/tests/bench-predict.sh $(abs_top_builddir)
	top_srcdir=$(top_srcdir) top_builddir=$(abs_top_builddir) $(SHELL) $(top_srcdir)/tests/predict-dilation.sh || true
.PHONY: bench-predict
