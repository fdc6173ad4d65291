#!/bin/sh
# predict-accuracy.sh — xcapanalyse --predict agrees with measurement.
#
# xdpyinfo is captured once on loopback (Xvfb listening on TCP, xcap on
# lo); xcapanalyse --predict replays that one trace over a 2 x 2 matrix
# (1 and 10 Mbit/s, 10 and 50 ms one way).  In the same run xcap-sweep
# measures the same four cells over the suite's emulated link (two
# namespaces, xcap-link or netem).  Each cell's predicted Total Network
# Delay must be within 15 % of the measured one, or 20 ms, whichever is
# larger.  Nothing is taken from an earlier run.
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
xcap-sweep -q -o "$out" --rates "$rates" --delays "$delays" --format csv $client \
	>/dev/null 2>"$workdir/sweep.err" &
sweep=$!
pids="$pids $sweep"
wait $sweep
st=$?
pids=
[ $st = 0 ] || fail "xcap-sweep: exit $st: $(cat "$workdir/sweep.err")"

/usr/bin/python3 - "$workdir/predicted.csv" "$out/results.csv" <<'PY' || fail "the prediction is off"
import csv, sys
pred = {(r["rate_bps"], float(r["delay_ms"])): r for r in csv.DictReader(open(sys.argv[1]))}
meas = list(csv.DictReader(open(sys.argv[2])))
bad = 0
if len(meas) != len(pred):
    print("  %d cells measured, %d predicted" % (len(meas), len(pred)))
    bad = 1
for m in meas:
    p = pred.get((m["rate_bps"], float(m["delay_ms"])))
    if p is None or m["total_network_delay_s"] in ("", "-"):
        print("  %s %s ms: nothing to compare" % (m["rate"], m["delay_ms"]))
        bad = 1
        continue
    pv, mv = float(p["total_network_delay_s"]), float(m["total_network_delay_s"])
    tol = max(0.15 * mv, 0.020)
    ok = abs(pv - mv) <= tol
    bad |= not ok
    print("  %-5s %5s ms  measured %.4f s  predicted %.4f s  (%+.1f %%; elapsed %s s measured, span %s s predicted)  %s"
          % (m["rate"], m["delay_ms"], mv, pv, 100 * (pv - mv) / mv if mv else 0,
             m["elapsed_s"], p["span_s"], "ok" if ok else "OFF"))
sys.exit(bad)
PY
say "the prediction of $client agrees with xcap-sweep within 15 % or 20 ms in every cell"
