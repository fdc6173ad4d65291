#!/bin/sh
# fuzz-trace.sh — a short, reproducible fuzzing run of the trace reader,
# seeded with traces xcap writes from the suite's captures.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcap
mkdir -p "$workdir/seeds"
for c in "$top_srcdir"/tests/captures/*.pcap; do
	# (Status 1 with nothing decoded still writes a trace: a seed too.)
	xcap -q -r "$c" -w "$workdir/seeds/$(basename "$c" .pcap).xcap" 2>"$workdir/err" ||
		grep -q 'no X11, RFB or Wayland connection' "$workdir/err" || fail "xcap -r $c failed: $(cat "$workdir/err")"
done
. "$top_srcdir/tests/fuzz/libfuzzer.sh"
if lf_build trace xcapanalyse/libanalyse.a xcap/libxcap.a protocols/libprotocols.a; then
	lf_run "$workdir/seeds" "$top_srcdir/tests/fuzz/corpus/trace"
	exit 0
fi
"$top_builddir/tests/fuzz/fuzz-trace" -runs="${FUZZ_RUNS:-3000}" -seed=11 -max_len=65536 \
	"$workdir/seeds" || fail "fuzz-trace found a problem"
