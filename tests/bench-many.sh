#!/bin/sh
# bench-many.sh — xcapanalyse over 200 traces: one process a trace, one
# process for all (-j 1), and -j 2, with tcptrace -n one by one on the
# same pcaps as the peer.  The traces are the real captures of
# tests/captures (as pcap, and as .xcap made by xcap), copied under 200
# names, then eight long traces made from them by tests/trace-stretch.
# Printed: seconds and the largest RSS of any one process.
# Figures only; nothing passes or fails.
#
#   tests/bench-many.sh [BUILD-DIR]
set -e
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top_srcdir/build}" && pwd)
py=/usr/bin/python3
X=$build/xcapanalyse/xcapanalyse
w=$(mktemp -d /tmp/xcap-bench-many.XXXXXX)
trap 'rm -rf "$w"' EXIT INT TERM
mkdir "$w/d" "$w/runs"
for cap in "$top_srcdir"/tests/captures/*.pcap; do
	cp "$cap" "$w/d/"
	"$build/xcap/xcap" -q -r "$cap" -w "$w/d/$(basename "$cap" .pcap).xcap"
done
n=0
while [ $n -lt 200 ]; do
	for d in "$w"/d/*; do
		[ $n -lt 200 ] || break
		cp "$d" "$w/runs/$(printf %03d $n)-$(basename "$d")"
		n=$((n + 1))
	done
done
ls "$w"/runs/* >"$w/list"
ls "$w"/runs/*.pcap >"$w/pcaps"

# run LABEL SCRIPT: wall seconds and the largest max RSS of its processes.
run() {
	$py - "$1" "$2" <<'PYEOF'
import resource, subprocess, sys, time
label, script = sys.argv[1], sys.argv[2]
t = time.monotonic()
subprocess.run(['/bin/sh', '-c', script], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
t = time.monotonic() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print('%-50s %8.3f %8.1f' % (label, t, rss))
PYEOF
}
cat "$w"/runs/* >/dev/null
echo "xcapanalyse on 200 traces ($(wc -l <"$w/pcaps") pcap, the rest .xcap; $(nproc) cores):"
printf '%-50s %8s %8s\n' command seconds "RSS MB"
for view in --delays --round-trips; do
	run "xcapanalyse $view, one process a trace" \
		"while read -r f; do '$X' $view --format ndjson \"\$f\"; done <'$w/list'"
	run "xcapanalyse $view, all at once, -j 1" "'$X' -j 1 $view --format ndjson \$(cat '$w/list')"
	run "xcapanalyse $view, all at once, -j 2" "'$X' -j 2 $view --format ndjson \$(cat '$w/list')"
done
if command -v tcptrace >/dev/null; then
	run "tcptrace -n on the $(wc -l <"$w/pcaps") pcaps, one by one" \
		"while read -r f; do tcptrace -n \"\$f\"; done <'$w/pcaps'"
fi

# Fewer, longer traces, where the work is the analysis and not starting
# processes: eight traces of BENCH_MANY_PACKETS (default a million)
# packets made from the same captures by tests/trace-stretch.
stretch=$build/tests/trace-stretch
[ -x "$stretch" ] || exit 0
mkdir "$w/long"
for i in 1 2 3 4 5 6 7 8; do
	TRACE_STRETCH_LANES=$((i % 4 + 1)) "$stretch" "${BENCH_MANY_PACKETS:-1000000}" "$w/long/$i.xcap" \
		"$top_srcdir"/tests/captures/*.pcap 2>/dev/null
done
ls "$w"/long/*.xcap >"$w/longlist"
cat "$w"/long/*.xcap >/dev/null
echo
echo "xcapanalyse on 8 traces of ${BENCH_MANY_PACKETS:-1000000} packets each:"
printf '%-50s %8s %8s\n' command seconds "RSS MB"
run "xcapanalyse --delays, one process a trace" \
	"while read -r f; do '$X' --delays --format ndjson \"\$f\"; done <'$w/longlist'"
run "xcapanalyse --delays, all at once, -j 1" "'$X' -j 1 --delays --format ndjson \$(cat '$w/longlist')"
run "xcapanalyse --delays, all at once, -j 2" "'$X' -j 2 --delays --format ndjson \$(cat '$w/longlist')"
