#!/bin/sh
# fuzz-wayland.sh — a short, reproducible fuzzing run of the Wayland decoder
# and waypipe's framing, seeded with a hand-built start of a client (the
# registry, a round trip, a bind, a request with an fd), bare and inside
# waypipe's token, PROTOCOL blocks, a buffer fill and acknowledgements,
# whole and with a hole punched in them; and waypipe's begun mid-message
# (no token, the first block cut), for the hunt for its framing.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need /usr/bin/python3
mkdir -p "$workdir/seeds"
/usr/bin/python3 - "$workdir/seeds/wayland" <<'PY' || fail "cannot build seeds"
import struct, sys
def msg(obj, op, body=b''):
    return struct.pack('<II', obj, (8 + len(body)) << 16 | op) + body
def s(text):
    b = text.encode() + b'\0'
    return struct.pack('<I', len(b)) + b + bytes(-len(b) % 4)
u = lambda *v: struct.pack('<%dI' % len(v), *v)
client = [msg(1, 1, u(2)) + msg(1, 0, u(3)),
          msg(2, 0, u(7) + s('wl_shm') + u(1, 4)) + msg(4, 1 << 11, u(5, 4096)),
          msg(2, 0, u(1) + s('wl_compositor') + u(4, 6)) + msg(6, 0, u(8)) + msg(8, 3, u(9))]
server = [msg(2, 0, u(1) + s('wl_compositor') + u(4)) + msg(2, 0, u(7) + s('wl_shm') + u(1)),
          msg(3, 0, u(42)) + msg(1, 1, u(3)), msg(9, 0, u(1234)) + msg(0xff000000, 0)]
def wp(t, body):
    n = 4 + len(body)
    return struct.pack('<I', n << 5 | t) + body + bytes(-n % 4)
def chunk(d, b):
    return struct.pack('<BH', d, len(b)) + b
for name, c, sv in (('bare', client, server),
                    ('waypipe', [u(1 << 16 | 0x980, 1, 2, 3)] + [wp(0, x) for x in client] +
                     [wp(5, u(9, 0, 4096) + b'abcde'), wp(6, u(9, 8, 0) + b'xyz'), wp(1, u(9))],
                     [wp(0, x) for x in server] + [wp(16, u(2)), wp(17, u(1)), wp(18, u(0))])):
    conv = []
    for i in range(max(len(c), len(sv))):
        if i < len(c): conv.append((0, c[i]))
        if i < len(sv): conv.append((1, sv[i]))
    for holes in (False, True):
        out = b''
        for i, (d, b) in enumerate(conv):
            out += struct.pack('<BH', d | 2, 7) if holes and i == len(conv) - 3 else chunk(d, b)
        open('%s-%s%s' % (sys.argv[1], name, '-holes' if holes else ''), 'wb').write(out)
    if name == 'waypipe':
        cut = [(d, b) for d, b in conv[1:]]
        cut[0] = (cut[0][0], cut[0][1][3:])
        open('%s-waypipe-midstream' % sys.argv[1], 'wb').write(b''.join(chunk(d, b) for d, b in cut))
PY
mkdir -p "$workdir/corpus"
. "$top_srcdir/tests/fuzz/libfuzzer.sh"
if lf_build wayland protocols/libprotocols.a; then
	lf_run "$workdir/seeds" "$workdir/corpus"
	exit 0
fi
"$top_builddir/tests/fuzz/fuzz-wayland" -runs="${FUZZ_RUNS:-20000}" -seed=33 -max_len=8192 \
	"$workdir/seeds" "$workdir/corpus" || fail "fuzz-wayland found a problem"
