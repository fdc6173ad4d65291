#!/bin/sh
# predict-accuracy.sh — xcapanalyse --predict agrees with measurement.
#
# xdpyinfo is captured once on loopback (Xvfb listening on TCP, xcap on
# lo); xcapanalyse --predict replays that one trace over a 2 x 2 matrix
# (1 and 10 Mbit/s, 10 and 50 ms one way).  In the same run xcap-sweep
# measures the same four cells over the suite's emulated link (two
# namespaces, xcap-link or netem), three runs a cell, the median.  Each
# cell's predicted Total Network Delay must be within 15 % of the measured
# one, or 20 ms, whichever is larger.  Nothing is taken from an earlier run.
# xcap-link releases packets late on a busy machine (link.log says how
# late, run by run, and is shown): that lateness is the emulator's, not the
# model's, and shows up as a measured delay above the prediction.  A cell
# outside the tolerance whose link released packets 0.5 ms late or more on
# average was not the link asked for: the test then skips, saying so,
# rather than pass or blame the model; a cell off on a punctual link fails.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcap-sweep xcap xcapanalyse
need_root
need ip Xvfb xdpyinfo /usr/bin/python3
ip netns add "xprt$$" 2>"$workdir/err" || skip "cannot create a network namespace: $(cat "$workdir/err")"
ip netns del "xprt$$"
rates=${PREDICT_RATES:-10M,1M}
delays=${PREDICT_DELAYS:-10,50}
client=${PREDICT_CLIENT:-xdpyinfo}

# ---- once on loopback ----
start_xvfb
start_capture cap xcap -i lo -w "$workdir/lo.xcap" "tcp port $((6000 + display))"
sleep 0.3
DISPLAY=127.0.0.1:$display $client >/dev/null || fail "$client failed on loopback"
sleep 0.3
stop_capture cap
xcapanalyse --predict --rates "$rates" --latencies "$delays" --format csv "$workdir/lo.xcap" \
	>"$workdir/predicted.csv" || fail "xcapanalyse --predict failed"

# ---- measured over the emulated link ----
out=$workdir/sweep
xcap-sweep -q -o "$out" --repeat 3 --rates "$rates" --delays "$delays" --format csv $client \
	>/dev/null 2>"$workdir/sweep.err" &
sweep=$!
pids="$pids $sweep"
wait $sweep
st=$?
pids=
[ $st = 0 ] || fail "xcap-sweep: exit $st: $(cat "$workdir/sweep.err")"
# How late the emulated link released packets, run by run (cell by cell,
# three runs each, in the order of the lists).
sed -n 's/.*released \([0-9.]*\) us late on average.*/\1/p' "$out/link.log" >"$workdir/late"

/usr/bin/python3 - "$workdir/predicted.csv" "$out/results.csv" "$workdir/late" <<'PY'
import csv, sys
pred = {(r["rate_bps"], float(r["delay_ms"])): r for r in csv.DictReader(open(sys.argv[1]))}
meas = list(csv.DictReader(open(sys.argv[2])))
late = [float(x) for x in open(sys.argv[3]).read().split()]
runs = 3
bad = 0
late_cells = []
if len(meas) != len(pred):
    print("  %d cells measured, %d predicted" % (len(meas), len(pred)))
    bad = 1
for i, m in enumerate(meas):
    # The run at the median: its trace is named ...-K.xcap.
    k = int(m["trace"].rsplit("-", 1)[1].split(".")[0]) if m.get("trace") else 0
    worst = late[runs * i + k - 1] if k and runs * i + k - 1 < len(late) else None
    p = pred.get((m["rate_bps"], float(m["delay_ms"])))
    if p is None or m["total_network_delay_s"] in ("", "-"):
        print("  %s %s ms: nothing to compare" % (m["rate"], m["delay_ms"]))
        bad = 1
        continue
    pv, mv = float(p["total_network_delay_s"]), float(m["total_network_delay_s"])
    tol = max(0.15 * mv, 0.020)
    ok = abs(pv - mv) <= tol
    verdict = "ok"
    if not ok and worst is not None and worst >= 500:
        verdict = "link late"
        late_cells.append("%s/%s ms" % (m["rate"], m["delay_ms"]))
    elif not ok:
        verdict = "OFF"
        bad = 1
    print("  %-5s %5s ms  measured %.4f s  predicted %.4f s  (%+.1f %%; elapsed %s s measured, span %s s"
          " predicted; link late %s us on average in that run)  %s"
          % (m["rate"], m["delay_ms"], mv, pv, 100 * (pv - mv) / mv if mv else 0,
             m["elapsed_s"], p["span_s"], "%.0f" % worst if worst is not None else "?", verdict))
if bad:
    sys.exit(1)
if late_cells:
    print(" ".join(late_cells), file=open(sys.argv[3] + ".cells", "w"))
    sys.exit(3)
PY
st=$?
[ $st = 3 ] && skip "the emulated link released packets 0.5 ms or more late on average (a busy machine) in cells the prediction missed: $(cat "$workdir/late.cells")"
[ $st = 0 ] || fail "the prediction is off"
say "the prediction of $client agrees with xcap-sweep within 15 % or 20 ms in every cell"
