#!/bin/sh
# trace-pairing.sh — the pairing of replies with requests is made once, by
# the pipeline, and travels in the trace: for each capture the message
# list (whose waits come from that pairing) reads the same from the
# capture, from its .xcap trace (format 1.1), and from the same trace
# marked 1.0, whose replies the reader pairs itself.  And the golden
# message list (tests/golden/) is what it was when every view paired
# replies by itself.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcap xcapanalyse
py=/usr/bin/python3
[ -x $py ] || py=python3
need $py

for cap in xdpyinfo-xlogo xdpyinfo-xlogo-lossy xdpyinfo-xlogo-midstream; do
	pcap="$top_srcdir/tests/captures/$cap.pcap"
	xcap -q -r "$pcap" -w "$workdir/$cap.xcap" || fail "cannot convert $cap"
	# The same trace, said to be 1.0: minor version 0, header CRC redone.
	$py - "$workdir/$cap.xcap" "$workdir/$cap-1.0.xcap" <<'PY' || fail "cannot make a 1.0 trace of $cap"
import struct, sys, zlib
b = bytearray(open(sys.argv[1], 'rb').read())
major, minor, hlen = struct.unpack_from('<HHI', b, 8)
# the trace carries pairing since 1.1; later minors only add record types
assert major == 1 and minor >= 1, (major, minor)
struct.pack_into('<H', b, 10, 0)
struct.pack_into('<I', b, 16 + hlen, zlib.crc32(bytes(b[8:16 + hlen])))
open(sys.argv[2], 'wb').write(b)
PY
	xcapanalyse --messages "$pcap" >"$workdir/from-pcap" || fail "xcapanalyse $cap.pcap"
	xcapanalyse --messages "$workdir/$cap.xcap" >"$workdir/from-new" || fail "xcapanalyse $cap.xcap"
	xcapanalyse --messages "$workdir/$cap-1.0.xcap" >"$workdir/from-1.0" || fail "xcapanalyse $cap 1.0"
	cmp -s "$workdir/from-pcap" "$workdir/from-new" ||
		fail "$cap: the trace pairs otherwise than the pipeline: $(diff "$workdir/from-pcap" "$workdir/from-new" | head -5)"
	cmp -s "$workdir/from-pcap" "$workdir/from-1.0" ||
		fail "$cap: a 1.0 trace pairs otherwise: $(diff "$workdir/from-pcap" "$workdir/from-1.0" | head -5)"
	waits=$(awk 'NR > 1 && ($5 == "reply" || $5 == "error") && $7 ~ /^[0-9.]+$/' "$workdir/from-pcap" | wc -l)
	[ "$waits" -gt 0 ] || fail "$cap: no reply was paired with its request"
	say "$cap: $waits replies paired alike from pcap, the current trace and trace 1.0"
done
xcapanalyse --messages "$workdir/xdpyinfo-xlogo-1.0.xcap" |
	cmp -s - "$top_srcdir/tests/golden/xdpyinfo-xlogo-messages.out" ||
	fail "the message list of a 1.0 trace differs from the golden one"
exit 0
