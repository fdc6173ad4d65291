#!/bin/sh
# bench-predict.sh — xcapanalyse --predict over the paper's 5 x 4 matrix
# from a trace of a million packets, beside what measuring the same matrix
# with xcap-sweep takes.
#
# The trace: one long X11 connection of BENCH_PACKETS (default 1000000)
# packets, generated: the connection setup of xdpyinfo in
# tests/captures/xdpyinfo-xlogo.pcap (so the decoder meets a real server),
# then cycles of drawing (4 bytes to 20 kB of requests), a GetInputFocus
# the client waits on, its reply (and now and then a burst of events), and
# a millisecond of thought; xcap turns it into a trace once.  Then, timed:
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
# The connection setup of the real capture's first connection (xdpyinfo):
# its request and reply bytes, so that the decoder meets a real server.
d = open(src, "rb").read()
off, setup = 24, {0: b"", 1: b""}
cport = None
while off + 16 <= len(d):
    sec, usec, incl, orig = struct.unpack_from("<IIII", d, off)
    pkt = d[off + 16:off + 16 + incl]
    off += 16 + incl
    ihl = (pkt[14] & 15) * 4
    sp, dp = struct.unpack_from(">HH", pkt, 14 + ihl)
    thl = (pkt[14 + ihl + 12] >> 4) * 4
    payload = pkt[14 + ihl + thl:]
    if cport is None and dp >= 6000:
        cport = sp
    if cport not in (sp, dp) or not payload:
        continue
    direction = 0 if sp == cport else 1
    if direction == 0 and setup[1]:
        break                      # the first request after the setup
    setup[direction] += payload
out = open(dst, "wb")
out.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 262144, 1))   # ns, Ethernet
seq = [1000, 50000]
count = 0
def put(t, direction, payload, flags=0x18):
    global count
    ack = seq[1 - direction]
    ports = (40000, 6000) if direction == 0 else (6000, 40000)
    ips = (b"\x7f\x00\x00\x01", b"\x7f\x00\x00\x01")
    tcp = struct.pack(">HHIIBBHHH", ports[0], ports[1], seq[direction] & 0xffffffff,
                      ack & 0xffffffff, 5 << 4, flags, 65535, 0, 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp) + len(payload), 0, 0x4000, 64, 6, 0,
                     ips[0], ips[1])
    frame = b"\0" * 12 + b"\x08\x00" + ip + tcp + payload
    out.write(struct.pack("<IIII", t // 10**9, t % 10**9, len(frame), len(frame)) + frame)
    seq[direction] += len(payload) + (1 if flags & 0x03 else 0)
    count += 1
t = 1_700_000_000 * 10**9
put(t, 0, b"", 0x02); seq[0] -= 0; t += 10_000
put(t, 1, b"", 0x12); t += 10_000
put(t, 0, b"", 0x10); t += 100_000
put(t, 0, setup[0]); t += 300_000
put(t, 1, setup[1]); t += 1_000_000
# Then a long session of one connection: each cycle some drawing (a
# NoOperation padded to a size, 4 bytes to 20 kB), a GetInputFocus the
# client waits on, its reply (and every tenth cycle 100 Expose events
# after it), the client's acknowledgement, and a millisecond of thought.
k = 0
while count < want:
    k += 1
    xseq = (2 * k) & 0xffff
    size = (4, 64, 1024, 20480)[k % 4]
    noop = struct.pack("<BBH", 127, 0, size // 4) + b"\0" * (size - 4)
    focus = struct.pack("<BBH", 43, 0, 1)
    put(t, 0, noop + focus); t += 40_000
    reply = struct.pack("<BBHII", 1, 0, xseq, 0, 0x200001) + b"\0" * 20
    if k % 10 == 0:
        reply += b"".join(struct.pack("<BBHIHHHHH", 12, 0, xseq, 0x200001, 0, 0, 10, 10, 0) + b"\0" * 14
                          for _ in range(100))
    put(t, 1, reply); t += 30_000
    put(t, 0, b"", 0x10); t += 1_000_000
print("bench-predict: %d packets: one X11 connection (the setup of %s, then %d cycles of drawing, a "
      "round trip and a millisecond of thought)" % (count, src.rsplit("/", 1)[1], k))
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
