#!/bin/sh
# sites-lines.sh — call sites named by source file and line.
#
# A client of the suite's (tests/sites-client.c), built here with debug
# info, makes round trips from two marked lines of its own, under
# xcap-run.  xcapanalyse --sites must name each of those lines
# ("sites-client.c:N", N read from the source, not written here) as the
# site of its round trips, with the count the client made; and list its
# two loops of awaited AllocColor and InternAtom as batchable, with what
# batching saves at 100 ms of round trip, and nothing else.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need cc pkg-config xcap-run xcapanalyse pkg-config:xcb
lib="$top_builddir/xcap/libxcapwait.so"
[ -r "$lib" ] || skip "the call-site library is not built: $lib"
grep -q '^#define HAVE_LIBDW 1' "$top_builddir/config.h" ||
	skip "built without libdw: call sites name no source lines"
XCAP_WAIT_LIB=$lib XCAP_BINDIR=$top_builddir/xcapanalyse
export XCAP_WAIT_LIB XCAP_BINDIR

src="$top_srcdir/tests/sites-client.c"
# Without the build's CFLAGS: a sanitizer's runtime in the client would
# refuse the preload library loaded before it.
cc -g -O0 -o "$workdir/sites-client" "$src" $(pkg-config --cflags --libs xcb) ||
	fail "cannot build $src"
start_xvfb
xcap-run -q -w "$workdir/c.xcap" -- "$workdir/sites-client" >"$workdir/run.out" 2>&1 ||
	fail "xcap-run failed: $(cat "$workdir/run.out")"
grep -q '^module sites-client ' "$workdir/c.xcap.sites" ||
	fail "the call sites name no module for the client: $(head -3 "$workdir/c.xcap.sites")"
xcapanalyse --sites --format csv "$workdir/c.xcap" >"$workdir/sites.csv" ||
	fail "xcapanalyse --sites failed"
for mark in SITE-INTERN SITE-FOCUS; do
	line=$(grep -n "/\* $mark \*/" "$src" | cut -d: -f1)
	[ -n "$line" ] || fail "no $mark in $src"
	row=$(grep "sites-client.c:$line)" "$workdir/sites.csv" | head -1)
	[ -n "$row" ] || fail "no site names sites-client.c:$line ($mark): $(cat "$workdir/sites.csv")"
	# The client makes 5 round trips from each line.
	count=$(echo "$row" | awk -F, '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) { print $i; exit } }')
	[ "$count" = 5 ] || fail "sites-client.c:$line: $count round trips, the client made 5: $row"
	say "$mark: $row"
done

# The loops: batchable, each once, with its count and saving.
xcapanalyse --sites --format ndjson "$workdir/c.xcap" >"$workdir/sites.ndjson" ||
	fail "xcapanalyse --sites --format ndjson failed"
check_begin "the client's two waiting loops are listed as batchable, and nothing else"
/usr/bin/python3 - "$workdir/sites.ndjson" "$src" <<'PY' || fail "batchable loops: see above"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
batches = [r for r in rows if r['table'] == 'batchable']
src = open(sys.argv[2]).read().split('\n')
line = {m: next(i + 1 for i, l in enumerate(src) if '/* %s */' % m in l)
        for m in ('SITE-ALLOC', 'SITE-INTERN-LOOP')}
want = {('AllocColor', line['SITE-ALLOC'], 12), ('InternAtom', line['SITE-INTERN-LOOP'], 8)}
got = set()
for b in batches:
    site = b['site']
    n = next((v for m, v in line.items() if 'sites-client.c:%d)' % v in site), None)
    got.add((b['request'], n, b['count']))
    if abs(b['saves_at_100ms_rtt'] - (b['count'] - 1) * 0.1) > 1e-9:
        print('saving of %s: %s, want %s' % (b['request'], b['saves_at_100ms_rtt'], (b['count'] - 1) * 0.1))
        sys.exit(1)
if got != want:
    print('batchable: %s, want %s' % (sorted(got, key=str), sorted(want, key=str)))
    sys.exit(1)
PY
check_end
