#!/bin/sh
# state-tables.sh — on every capture in tests/captures, the delay table adds
# up (tests/delays-check.py), and the requests of --requests are those an
# independent count from the dump finds (tests/waits-count.py; without
# splitting silences at gaps in the replies, which it does not do).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcapanalyse /usr/bin/python3
py=/usr/bin/python3
count=0
for cap in "$top_srcdir"/tests/captures/*.pcap "$top_srcdir"/tests/captures/*.pcapng ${STATE_TABLES_EXTRA:-}; do
	[ -f "$cap" ] || continue
	name=$(basename "$cap")
	if ! xcapanalyse --format csv "$cap" >"$workdir/delays.csv" 2>"$workdir/err"; then
		# A capture in which nothing is decoded without options (waypipe
		# begun before it: tests/wayland-decode.sh) has no table to add up.
		grep -q 'no X11, RFB or Wayland connection' "$workdir/err" ||
			fail "$name: xcapanalyse failed: $(cat "$workdir/err")"
		say "$name: nothing decoded without options: no table"
		continue
	fi
	$py "$top_srcdir/tests/delays-check.py" "$workdir/delays.csv" || fail "$name: the table does not add up"
	xcapanalyse --dump "$cap" >"$workdir/dump" || fail "$name: --dump failed"
	$py "$top_srcdir/tests/waits-count.py" "$workdir/dump" >"$workdir/expected"
	xcapanalyse --requests --split-fraction 0 --format csv "$cap" | tail -n +2 |
		awk -F, '$2 != "total" { print $1, $2, $3 }' | sort >"$workdir/got"
	sort "$workdir/expected" >"$workdir/expected.sorted"
	diff "$workdir/expected.sorted" "$workdir/got" >"$workdir/diff" ||
		fail "$name: --requests differs from the count from the dump: $(cat "$workdir/diff")"
	# (A capture whose every answer has an unconfirmed number has none.)
	[ -s "$workdir/got" ] || grep -q '^msg .*flags=[^ ]*uncertain' "$workdir/dump" ||
		fail "$name: no requests waited on"
	count=$((count + 1))
done
[ $count -gt 0 ] || skip "no captures"
say "$count captures add up and agree"
