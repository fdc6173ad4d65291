#!/bin/sh
# bench-predict.sh — xcapanalyse --predict over the paper's 5 x 4 matrix
# from a trace of a million packets, beside what measuring the same matrix
# with xcap-sweep takes.
#
# The trace: tests/captures/xdpyinfo-xlogo.pcap (a real loopback capture,
# 90 packets, two connections) repeated with its client ports changed and
# its times shifted, one run after the other, until BENCH_PACKETS (default
# 1000000) packets; xcap turns it into a trace once.  Then, timed:
#   xcapanalyse trace                        the delay table (one pass)
#   xcapanalyse --predict trace              20 replays of the whole trace
#   xcapanalyse --added-delay trace          SLIM's replay at the 5 rates
# xcap-sweep measures a cell by running the session over the emulated
# link in real time: the matrix takes at least the sum of the predicted
# spans, printed; as root it also times one xcap-sweep cell of xdpyinfo
# (10M, 10 ms) to show what a cell costs besides.  Figures only; nothing
# passes or fails.
#
#   tests/bench-predict.sh [BUILD-DIR]
set -e
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top_srcdir/build}" && pwd)
py=/usr/bin/python3
packets=${BENCH_PACKETS:-1000000}
w=$(mktemp -d /tmp/xcap-bench-predict.XXXXXX)
trap 'rm -rf "$w"' EXIT INT TERM
PATH=$build/xcap:$build/xcapanalyse:$PATH

$py - "$top_srcdir/tests/captures/xdpyinfo-xlogo.pcap" "$w/big.pcap" "$packets" <<'PY'
import struct, sys
src, dst, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = open(src, "rb").read()
head, recs, off = d[:24], [], 24
while off + 16 <= len(d):
    sec, frac, incl, orig = struct.unpack_from("<IIII", d, off)
    recs.append((sec * 10**6 + frac, d[off + 16:off + 16 + incl], orig))   # microsecond pcap
    off += 16 + incl
t0, span = recs[0][0], recs[-1][0] - recs[0][0]
step = span + 200 * 10**3            # 0.2 s between runs, in us
ports = sorted({struct.unpack_from(">H", r[1], 14 + 20 + (0 if struct.unpack_from(">H", r[1], 14 + 22)[0] < 6064 else 2))[0]
                for r in recs} - set(range(6000, 6064)))
out = open(dst, "wb")
out.write(head)
n = copy = 0
while n < want:
    for ts, pkt, orig in recs:
        if n == want:
            break
        b = bytearray(pkt)
        ihl = (b[14] & 15) * 4
        for o in (14 + ihl, 14 + ihl + 2):      # source and destination port
            p = struct.unpack_from(">H", b, o)[0]
            if p in ports:
                struct.pack_into(">H", b, o, 1024 + (copy * len(ports) + ports.index(p)) % 60000)
        t = ts + copy * step
        out.write(struct.pack("<IIII", t // 10**6, t % 10**6, len(b), orig) + bytes(b))
        n += 1
    copy += 1
print("bench-predict: %d packets, %d copies of %s (%.3f s each, 0.2 s apart)" % (n, copy, src.rsplit("/", 1)[1], span / 1e6))
PY
xcap -q -r "$w/big.pcap" -w "$w/big.xcap"
rm -f "$w/big.pcap"

# timed LABEL CMD...: wall-clock seconds and peak memory of CMD.
timed() {
	label=$1; shift
	/usr/bin/time -f "%e %M" -o "$w/time" "$@" >"$w/out" 2>"$w/err" || { cat "$w/err" >&2; exit 1; }
	set -- $(cat "$w/time")
	printf '  %-44s %8.2f s  %8d kB max RSS\n' "$label" "$1" "$2"
}
echo "bench-predict: $(du -h "$w/big.xcap" | cut -f1) trace, on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
timed "xcapanalyse (the delay table)" xcapanalyse "$w/big.xcap"
timed "xcapanalyse --predict (5 x 4)" xcapanalyse --predict --format csv "$w/big.xcap"
cp "$w/out" "$w/predicted.csv"
timed "xcapanalyse --added-delay (5 rates)" xcapanalyse --added-delay "$w/big.xcap"
$py - "$w/predicted.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
total = sum(float(r["span_s"]) for r in rows)
print("  xcap-sweep, the same 5 x 4 matrix:             >= %.0f s  (the session in real time, once per cell:"
      " the sum of the predicted spans, %.0f s to %.0f s a cell)"
      % (total, min(float(r["span_s"]) for r in rows), max(float(r["span_s"]) for r in rows)))
PY
if [ "$(id -u)" = 0 ] && command -v Xvfb >/dev/null && command -v xdpyinfo >/dev/null; then
	timed "xcap-sweep, one cell of xdpyinfo (10M, 10 ms)" \
		"$build/xcap/xcap-sweep" -q -o "$w/sweep" --rates 10M --delays 10 xdpyinfo
else
	echo "  (not root: no xcap-sweep cell timed)"
fi
