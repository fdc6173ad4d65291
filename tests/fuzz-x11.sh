#!/bin/sh
# fuzz-x11.sh — a short, reproducible fuzzing run of the X11 decoder,
# seeded with the X11 conversations of the suite's captures (and the same
# with holes punched in them), as fuzz_x11.c's chunk scripts.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need tshark /usr/bin/python3
mkdir -p "$workdir/seeds"
for c in "$top_srcdir"/tests/captures/*.pcap; do
	tshark -r "$c" -Y 'tcp.len > 0' -T fields -e tcp.srcport -e tcp.dstport -e tcp.payload \
		2>/dev/null >"$workdir/payloads" || fail "tshark cannot read $c"
	/usr/bin/python3 - "$workdir/payloads" "$workdir/seeds/$(basename "$c" .pcap)" <<'PY' ||
import struct, sys
conns = {}
for line in open(sys.argv[1]):
    src, dst, payload = line.rstrip('\n').split('\t')
    src, dst = int(src), int(dst)
    client = dst if 6000 <= src <= 6063 else src
    conns.setdefault(client, []).append((1 if client == dst else 0, bytes.fromhex(payload.replace(':', ''))))
for n, (client, chunks) in enumerate(sorted(conns.items())):
    for holes in (False, True, 'cut'):
        out = bytearray()
        for i, (d, b) in enumerate(chunks):
            if holes == 'cut' and len(b) > 30:
                # cut to its first 30 bytes, as by a 96-byte snap length
                out += struct.pack('<BH', d | 6, 30) + b[:30] + struct.pack('<H', len(b) - 30)
                continue
            if holes is True and i % 7 == 3:
                out += struct.pack('<BH', d | 2, len(b))        # a hole instead
                continue
            for k in range(0, len(b), 65535):
                part = b[k:k + 65535]
                out += struct.pack('<BH', d, len(part)) + part
        name = {False: '', True: '-holes', 'cut': '-cut'}[holes]
        open('%s-%d%s' % (sys.argv[2], n, name), 'wb').write(out)
PY
	fail "cannot build seeds from $c"
done
. "$top_srcdir/tests/fuzz/libfuzzer.sh"
if lf_build x11 protocols/libprotocols.a; then
	lf_run "$workdir/seeds" "$top_srcdir/tests/fuzz/corpus/x11"
	exit 0
fi
"$top_builddir/tests/fuzz/fuzz-x11" -runs="${FUZZ_RUNS:-3000}" -seed=13 -max_len=65536 \
	"$workdir/seeds" || fail "fuzz-x11 found a problem"
