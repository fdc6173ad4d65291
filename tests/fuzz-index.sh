#!/bin/sh
# fuzz-index.sh — a short, reproducible fuzzing run of netplot's trace
# index reader (TRACE.idx), seeded with the indexes of the suite's
# captures as xcap writes them and as netplot builds them.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcap netplot
mkdir -p "$workdir/seeds"
for c in "$top_srcdir"/tests/captures/*.pcap; do
	t="$workdir/$(basename "$c" .pcap).xcap"
	xcap -q -r "$c" -w "$t" || fail "xcap -r $c failed"
	# xcap's index (no states), then netplot's of a copy (with them)
	cp "$t.idx" "$workdir/seeds/$(basename "$t").xcap-idx" || fail "xcap wrote no $t.idx"
	cp "$t" "$t.copy.xcap"
	netplot --benchmark "$t.copy.xcap" --index --size 200x100 >/dev/null || fail "no index of $t"
	cp "$t.copy.xcap.idx" "$workdir/seeds/" || fail "netplot wrote no $t.copy.xcap.idx"
done
"$top_builddir/tests/fuzz/fuzz-index" -runs="${FUZZ_RUNS:-3000}" -seed=11 -max_len=65536 \
	"$workdir/seeds" || fail "fuzz-index found a problem"
