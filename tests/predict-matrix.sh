#!/bin/sh
# predict-matrix.sh — the prediction against measurement over the paper's
# 5 x 4 matrix (xcap-sweep's defaults: 100M, 10M, 1M, 100k and 10k bit/s
# by 0.1, 1, 10 and 100 ms one way), raw and through ssh -X -C, for
# xdpyinfo, xterm's start-up, gtk3-demo's start-up and an x11perf subset:
# tests/predict-accuracy.sh and tests/predict-ssh.sh run once per client
# and way with the rates that can be measured in an afternoon
# (make long-predict-matrix; xcapanalyse(1), PREDICTION: Accuracy).
#
# A rate is left out for a client when a run of one of its cells is
# predicted to take more than some three minutes (the elapsed time
# xcapanalyse --predict gives for a loopback capture): raw xterm at 100
# kbit/s (270 to 320 s a run) and 10 kbit/s (45 minutes: 3.2 MB of font
# replies), raw x11perf and gtk3-demo at 10 kbit/s (21 and 8 minutes).
# Through ssh -C every cell is measured (the longest, gtk3-demo at
# 10 kbit/s and 100 ms, 2.7 minutes).  Some an hour and a half in all.
# PREDICT_MATRIX=full measures every cell (some seven hours, three of
# them raw xterm at 10 kbit/s).
#
# Usage: predict-matrix.sh BUILDDIR GTK-MODULE
#   GTK-MODULE is tests/gtk-ready.so (tests/gtk-ready.c), which ends
#   gtk3-demo's start-up when its window is drawn; empty when GTK 3 is
#   not there, and gtk3-demo is left out.
# Each part's output goes to BUILDDIR/tests/predict-matrix-PART.log; the
# cells of all of them are printed at the end.  Exits 1 when a part
# failed.
top_builddir=${1:?usage: predict-matrix.sh BUILDDIR GTK-MODULE}
gtk_module=$2
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
export top_srcdir top_builddir
all="100M 10M 1M 100k 10k"
delays="0.1 1 10 100"
runs=${PREDICT_RUNS:-1}
[ "${PREDICT_MATRIX:-}" = full ] && full=1 || full=

# One part a line: name, test, rates (all when PREDICT_MATRIX=full), runs,
# client.
x11perf="x11perf -repeat 1 -reps 20 -atom -prop -getimage10"
parts="xdpyinfo-raw predict-accuracy.sh $all|3|xdpyinfo
xdpyinfo-ssh predict-ssh.sh $all|3|xdpyinfo
xterm-raw predict-accuracy.sh 100M 10M 1M|$runs|xterm -e true
xterm-ssh predict-ssh.sh $all|$runs|xterm -e true
x11perf-raw predict-accuracy.sh 100M 10M 1M 100k|$runs|$x11perf
x11perf-ssh predict-ssh.sh $all|$runs|$x11perf"
if [ -n "$gtk_module" ]; then
	gtk="env GTK_MODULES=$gtk_module gtk3-demo"
	parts="$parts
gtk3-demo-raw predict-accuracy.sh 100M 10M 1M 100k|$runs|$gtk
gtk3-demo-ssh predict-ssh.sh $all|$runs|$gtk"
else
	echo "predict-matrix: no GTK 3 module (configure found no GTK 3): gtk3-demo left out"
fi

status=0
summary=
while IFS='|' read -r head part_runs client <&3; do
	# shellcheck disable=SC2086
	set -- $head
	name=$1 test=$2
	shift 2
	rates=$*
	[ -n "$full" ] && rates=$all
	log=$top_builddir/tests/predict-matrix-$name.log
	echo "predict-matrix: $name: $rates x $delays ms, $part_runs run(s) a cell (log: $log)"
	PREDICT_RATES=$rates PREDICT_DELAYS=$delays PREDICT_RUNS=$part_runs PREDICT_CLIENTS=$client \
		sh "$top_srcdir/tests/$test" >"$log" 2>&1
	st=$?
	case $st in
	0) verdict=pass ;;
	77) verdict=skip ;;
	*) verdict=FAIL status=1 ;;
	esac
	summary="$summary
$name: $verdict
$(grep -E '^  .* (ok|OFF|link late|link slow)$' "$log")"
done 3<<PARTS
$parts
PARTS
echo "$summary"
exit $status
