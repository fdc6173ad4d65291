#!/bin/sh
# long-table.sh — a text table of any length in bounded memory, aligned
# and whole.  The table writer sizes the columns of a table for people
# from its first thousand rows (and each column's given width) and writes
# the rest as they come (xcapanalyse/output.c, OUT_HOLD_ROWS): before it
# held every row to the end, 7 GB for --messages on a 1.2 GB trace.
# On a trace of a million packets that tests/trace-stretch makes from a
# real capture:
#  - --messages and --round-trips as text run within 64 MB of address
#    space (every row held would need some hundreds);
#  - their rows are those of the TSV, one for one;
#  - past the first thousand rows, each right-aligned column still ends
#    where its title does.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcapanalyse
# ASan reserves terabytes of address space for its shadow: under the
# sanitizers the table writer runs without the bound (the rows and their
# alignment are still checked), which the plain build holds it to.
mem_bound="ulimit -v 65536"
bound="within 64 MB"
sanitized && { mem_bound=true; bound="(unbounded under the sanitizers)"; }
stretch=$top_builddir/tests/trace-stretch
[ -x "$stretch" ] || skip "tests/trace-stretch is not built"
TRACE_STRETCH_LANES=4 "$stretch" 1000000 "$workdir/long.xcap" "$top_srcdir/tests/captures/xterm-input.pcap" \
	>"$workdir/stretch.out" 2>&1 || fail "trace-stretch failed: $(cat "$workdir/stretch.out")"

for view in --messages --round-trips; do
	name=${view#--}
	check_begin "$view as text, a table of $name, $bound"
	( $mem_bound && xcapanalyse $view "$workdir/long.xcap" ) >"$workdir/$name.txt" 2>"$workdir/$name.err" ||
		fail "xcapanalyse $view failed $bound: $(tail -2 "$workdir/$name.err")"
	check_end
	check_begin "$view as text: the rows of the TSV, one for one"
	xcapanalyse $view --format tsv "$workdir/long.xcap" >"$workdir/$name.tsv" 2>/dev/null ||
		fail "xcapanalyse $view --format tsv failed"
	# the text's rows: from the title to the first blank line
	rows=$(awk 'NR > 1 && /^$/ { exit } NR > 1' "$workdir/$name.txt" | wc -l)
	tsv=$(($(wc -l <"$workdir/$name.tsv") - 1))
	say "$view: $rows rows"
	[ "$rows" -gt 2000 ] || fail "$view: only $rows rows: not a long table"
	[ "$rows" = "$tsv" ] || fail "$view: $rows rows of text, $tsv of TSV"
	check_end
done

# The time (first column, right-aligned) and Wait ms of --round-trips
# end where their titles end, on every row.
check_begin "--round-trips as text: Time and Wait ms aligned with their titles on every row"
awk 'NR == 1 { t = index($0, "Time") + 3; w = index($0, "Wait ms") + 6; next }
     /^$/ { exit }
     substr($0, t, 1) !~ /[0-9]/ || substr($0, t + 1, 1) != " " ||
     substr($0, w, 1) !~ /[0-9]/ || substr($0, w + 1, 1) != " " { print NR ": " $0; bad++ }
     END { exit bad > 0 }' "$workdir/round-trips.txt" >"$workdir/misaligned" ||
	fail "rows out of line: $(head -3 "$workdir/misaligned")"
check_end
exit 0
