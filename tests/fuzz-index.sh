#!/bin/sh
# fuzz-index.sh — a short, reproducible fuzzing run of netplot's trace
# index reader (TRACE.idx), seeded with the indexes of the suite's
# captures as netplot builds them.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcap netplot
mkdir -p "$workdir/seeds"
for c in "$top_srcdir"/tests/captures/*.pcap; do
	t="$workdir/$(basename "$c" .pcap).xcap"
	xcap -q -r "$c" -w "$t" || fail "xcap -r $c failed"
	netplot --benchmark "$t" --index --size 200x100 >/dev/null || fail "no index of $t"
	cp "$t.idx" "$workdir/seeds/" || fail "netplot wrote no $t.idx"
done
"$top_builddir/tests/fuzz/fuzz-index" -runs="${FUZZ_RUNS:-3000}" -seed=11 -max_len=65536 \
	"$workdir/seeds" || fail "fuzz-index found a problem"
