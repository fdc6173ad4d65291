#!/bin/sh
# compare.sh — xcapanalyse --compare and its gate on real captures.
#
# The same client (xdpyinfo -queryExtensions, which makes a few dozen
# blocking round trips) runs three times in a client namespace against
# Xvfb in a server namespace, across xcap-link, captured beside the
# client: A and A2 over a link of $fast_ms ms one way, B over $slow_ms ms.
#  - A against A2 (a repeat of one configuration): the gate passes (0);
#  - A against B (the deliberately slowed run): the gate fails (3), and
#    says B is worse on network-delay and block-reply; B against A passes;
#  - the comparison agrees with the links: the same number of round trips
#    in A and B, and B's Block Reply exceeds A's by about 2 x (slow - fast)
#    per round trip (within 10 %);
#  - CSV, JSON and markdown carry the same rows.
# The expectations come from the links' configuration, not a former run.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need_root
need ip xcap-link xcap xcapanalyse Xvfb xdpyinfo /usr/bin/python3
[ -c /dev/net/tun ] || skip "no /dev/net/tun (the tun driver)"
. "$top_srcdir/tests/netns.sh"

py=/usr/bin/python3
fast_ms=5
slow_ms=25
gate="--fail-if-worse 30%+20ms"

# over_link TAG DELAY_MS NAME...: a link of DELAY_MS one way, Xvfb on its
# server side, and one capture of xdpyinfo for each NAME into
# $workdir/NAME.xcap.
over_link() {
	_tag=$1 _delay=$2; shift 2
	make_link "$_tag" 0 0 "$_delay"
	n=$(( ($$ % 40) + 20 ))
	tries=0
	while :; do
		if [ ! -e "/tmp/.X$n-lock" ]; then
			ip netns exec "$link_ns_s" Xvfb ":$n" -listen tcp -nolisten unix -ac \
				-screen 0 640x480x24 >"$workdir/xvfb-$_tag.log" 2>&1 &
			xpid=$!
			if wait_for ip netns exec "$link_ns_c" xdpyinfo -display "$link_addr_s:$n"; then
				break
			fi
			kill "$xpid" 2>/dev/null; wait "$xpid" 2>/dev/null
		fi
		n=$((n + 1)); [ $n -gt 63 ] && n=20
		tries=$((tries + 1)); [ $tries -gt 40 ] && fail "no Xvfb in $link_ns_s"
	done
	for _name in "$@"; do
		start_capture "cap_$_name" ip netns exec "$link_ns_c" \
			xcap -i "$link_dev_c" -w "$workdir/$_name.xcap"
		ip netns exec "$link_ns_c" xdpyinfo -display "$link_addr_s:$n" -queryExtensions \
			>/dev/null || fail "$_name: xdpyinfo failed"
		sleep 0.3	# the last ACKs
		stop_capture "cap_$_name"
	done
	kill "$xpid"; wait "$xpid" 2>/dev/null
	link_down "$_tag" || fail "xcap-link did not end cleanly"
}

over_link "cf$$" "$fast_ms" fast fast2
over_link "cs$$" "$slow_ms" slow

A=$workdir/fast.xcap A2=$workdir/fast2.xcap B=$workdir/slow.xcap

# shellcheck disable=SC2086
xcapanalyse --compare $gate "$A" "$A2" >"$workdir/repeat.txt" 2>"$workdir/repeat.err"
status=$?
cat "$workdir/repeat.txt"
[ $status = 0 ] || fail "the gate failed a repeat of one configuration ($status): $(cat "$workdir/repeat.err")"
grep -q '^Gate: passed' "$workdir/repeat.txt" || fail "the repeat's verdict is not 'passed'"

# shellcheck disable=SC2086
xcapanalyse --compare $gate "$A" "$B" >"$workdir/slow.txt" 2>"$workdir/slow.err"
status=$?
cat "$workdir/slow.txt"
[ $status = 3 ] || fail "the gate did not fail the slowed run with 3 but $status"
grep -q "worse than the first run.*'$B'" "$workdir/slow.err" ||
	fail "no message names the slowed run: $(cat "$workdir/slow.err")"
for m in network-delay block-reply; do
	grep -q "^$m  *B .* worse\$" "$workdir/slow.txt" || fail "the gate does not call B worse on $m"
done
# shellcheck disable=SC2086
xcapanalyse --compare $gate "$B" "$A" >/dev/null 2>&1 || fail "the gate failed a faster run ($?)"

# Physics: the slowed run waits 2 x (slow - fast) longer per round trip.
xcapanalyse --compare --format json "$A" "$B" >"$workdir/slow.json" || fail "--format json failed"
$py - "$workdir/slow.json" "$fast_ms" "$slow_ms" <<'PY' || fail "the comparison disagrees with the links"
import json, sys
d = json.load(open(sys.argv[1]))
fast, slow = float(sys.argv[2]) / 1e3, float(sys.argv[3]) / 1e3
rows = {(r["view"], r["row"], r["metric"]): r for r in d["rows"]}
trips = rows[("delays", "all", "round_trips")]
if trips["a"] != trips["b"] or trips["a"] < 10:
    sys.exit("round trips: A %s, B %s" % (trips["a"], trips["b"]))
reply = rows[("delays", "all", "block_reply")]
expected = trips["a"] * 2 * (slow - fast)
print("compare.sh: %d round trips each; Block Reply B-A %.6f s, expected %.6f s; B/A %.2f"
      % (trips["a"], reply["b_minus_a"], expected, reply["b_over_a"]))
if abs(reply["b_minus_a"] - expected) > 0.1 * expected:
    sys.exit("Block Reply B-A %.6f s is not within 10 %% of %.6f s" % (reply["b_minus_a"], expected))
# The requests view: the same requests waited on the same number of times.
for (view, row, metric), r in rows.items():
    if view == "requests" and metric == "count" and r["a"] != r["b"]:
        sys.exit("%s waited on %s times in A, %s in B" % (row, r["a"], r["b"]))
if d["runs"][1]["file"] != sys.argv[1].replace("slow.json", "slow.xcap"):
    sys.exit("run B is not the slow capture: %s" % d["runs"][1]["file"])
PY

# The same rows in every format.
xcapanalyse --compare --format csv "$A" "$B" >"$workdir/slow.csv" 2>/dev/null || fail "--format csv failed"
xcapanalyse --compare --format markdown "$A" "$B" >"$workdir/slow.md" || fail "--format markdown failed"
$py - "$workdir/slow.csv" "$workdir/slow.json" "$workdir/slow.md" <<'PY' || fail "the formats disagree"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
js = json.load(open(sys.argv[2]))["rows"]
if len(rows) != len(js) or not rows:
    sys.exit("CSV has %d rows, JSON %d" % (len(rows), len(js)))
for c, j in zip(rows, js):
    if (c["view"], c["row"], c["metric"]) != (j["view"], j["row"], j["metric"]) or \
       abs(float(c["b"]) - j["b"]) > 1e-9:
        sys.exit("CSV %s differs from JSON %s" % (c, j))
md = [l for l in open(sys.argv[3]) if l.startswith("| ") and "---" not in l]
# Markdown: the runs table (2 rows and a heading), then a table per view.
body = [l for l in md if not l.startswith("| Row") and not l.startswith("| Run")]
if len(body) != len(js) + 2:
    sys.exit("markdown has %d rows, JSON %d (+2 runs)" % (len(body), len(js)))
PY
say "the gate passes a repeat, fails a run slowed by $((slow_ms - fast_ms)) ms one way, and agrees with the links"
