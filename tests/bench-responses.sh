#!/bin/sh
# bench-responses.sh — response analysis of a long interactive session
# (tests/responses-synth: BENCH_INPUTS inputs, default one million, about
# a third of them without a response) beside the plain delay table on
# the same trace, and on half of it, to show that memory does not grow
# with the number of inputs.  Printed: seconds, inputs/s, peak memory
# (max RSS).  Figures only; nothing passes or fails.
#
#   tests/bench-responses.sh [BUILD-DIR]
set -e
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top_srcdir/build}" && pwd)
inputs=${BENCH_INPUTS:-1000000}
w=$(mktemp -d /tmp/xcap-bench-responses.XXXXXX)
trap 'rm -rf "$w"' EXIT
an=$build/xcapanalyse/xcapanalyse
[ -x /usr/bin/time ] || { echo "bench-responses: needs /usr/bin/time" >&2; exit 1; }

"$build/tests/responses-synth" "$inputs" "$w/long.xcap"
"$build/tests/responses-synth" $((inputs / 2)) "$w/half.xcap"
echo "bench-responses: $inputs inputs, trace $(du -h "$w/long.xcap" | cut -f1)"
cat "$w/long.xcap" "$w/half.xcap" >/dev/null	# into the page cache

# run LABEL N FILE ARGS...: seconds and max RSS of xcapanalyse ARGS FILE
run() {
	_label=$1 _n=$2 _file=$3; shift 3
	/usr/bin/time -f '%e %M' -o "$w/time" "$an" "$@" "$_file" >"$w/out"
	read -r _s _kb <"$w/time"
	awk -v l="$_label" -v s="$_s" -v kb="$_kb" -v n="$_n" 'BEGIN {
		printf "  %-44s %7.2f s  %10.0f inputs/s  %7.1f MB max RSS\n", l, s,
			(s > 0 ? n / s : 0), kb / 1024 }'
}
run "delay table (plain xcapanalyse)" "$inputs" "$w/long.xcap"
run "--responses-summary" "$inputs" "$w/long.xcap" --responses-summary
run "--responses --format csv (every row)" "$inputs" "$w/long.xcap" --responses --format csv
run "--responses-summary, half the inputs" $((inputs / 2)) "$w/half.xcap" --responses-summary
"$an" --responses-summary "$w/long.xcap" | sed 's/^/  /'
