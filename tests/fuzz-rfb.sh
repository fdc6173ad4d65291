#!/bin/sh
# fuzz-rfb.sh — a short, reproducible fuzzing run of the RFB decoder, seeded
# with hand-built conversations (a 3.8 handshake, then updates in each
# encoding and client messages) in fuzz_rfb.c's chunk scripts, whole and
# with a hole punched in them.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need /usr/bin/python3
mkdir -p "$workdir/seeds"
/usr/bin/python3 - "$workdir/seeds/rfb" <<'PY' || fail "cannot build seeds"
import struct, sys
def chunk(d, b):
    return struct.pack('<BH', d, len(b)) + b
pf = struct.pack('>BBBBHHHBBB3x', 32, 24, 0, 1, 255, 255, 255, 16, 8, 0)
hs = [(1, b'RFB 003.008\n'), (0, b'RFB 003.008\n'), (1, b'\x01\x01'), (0, b'\x01'),
      (1, b'\0\0\0\0'), (0, b'\x01'), (1, struct.pack('>HH', 64, 48) + pf + b'\0\0\0\x01d'),
      (0, struct.pack('>BxHiiii', 2, 4, -224, 7, 15, 5)),
      (0, struct.pack('>BBHHHH', 3, 0, 0, 0, 64, 48))]
def rect(w, h, e):
    return struct.pack('>HHHHi', 0, 0, w, h, e)
updates = [
    rect(2, 2, 0) + bytes(16), rect(2, 2, 1) + bytes(4),
    rect(20, 17, 5) + b'\x01' + bytes(1024) + b'\x0e' + bytes(8) + b'\x02' + bytes(4) + b'\x18\x01' + bytes(6) + b'\0',
    rect(8, 8, 7) + b'\x50\x01\x02' + bytes(9) + b'\x40' + bytes(64),
    rect(4, 4, 15) + b'\x80' + bytes(3) + b'\x09' + bytes(3) + b'\x04',
    rect(9, 9, 16) + b"\0\0\0\x03" + bytes(3), rect(0, 0, -224)]
for n, u in enumerate(updates):
    body = struct.pack('>BxH', 0, 0xffff) + u + (rect(0, 0, -224) if n < len(updates) - 1 else b'')
    conv = hs + [(1, body), (1, b'\x02'), (0, struct.pack('>BBHH', 5, 1, 3, 4)),
                 (0, struct.pack('>BBxxI', 4, 1, 0x61)), (0, struct.pack('>B3xi', 6, -4) + bytes(4))]
    for holes in (False, True):
        out = b''
        for i, (d, b) in enumerate(conv):
            out += struct.pack('<BH', d | 2, len(b)) if holes and i == len(conv) - 3 else chunk(d, b)
        open('%s-%d%s' % (sys.argv[1], n, '-holes' if holes else ''), 'wb').write(out)
PY
. "$top_srcdir/tests/fuzz/libfuzzer.sh"
if lf_build rfb protocols/libprotocols.a; then
	lf_run "$workdir/seeds" "$top_srcdir/tests/fuzz/corpus/rfb"
	exit 0
fi
"$top_builddir/tests/fuzz/fuzz-rfb" -runs="${FUZZ_RUNS:-20000}" -seed=15 -max_len=8192 \
	"$workdir/seeds" "$top_srcdir/tests/fuzz/corpus/rfb" || fail "fuzz-rfb found a problem"
