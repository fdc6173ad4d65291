#!/bin/sh
# golden.sh — xcapanalyse's views of small real captures against reviewed
# expected output (tests/golden/TESTLIST), and CSV/JSON/NDJSON that parse.
#   golden.sh            compare
#   golden.sh --update   rewrite the expected files from the current output
# An expected output that no TESTLIST line names is a test that silently
# stopped running, and a line without its expected output never passed:
# both fail here, as does a name listed twice.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need /usr/bin/python3
update=
[ "${1:-}" = --update ] && update=1
failed=0
count=0
while read -r name capture opts; do
	case "$name" in ''|'#'*) continue ;; esac
	count=$((count + 1))
	# The dump's header names the file read: make it the same everywhere.
	# shellcheck disable=SC2086
	(cd "$top_srcdir/tests/captures" && xcapanalyse $opts "$capture") >"$workdir/$name.out" ||
		{ echo "FAIL: $name: xcapanalyse exited with $?"; failed=$((failed + 1)); continue; }
	if [ -n "$update" ]; then
		cp "$workdir/$name.out" "$top_srcdir/tests/golden/$name.out"
		continue
	fi
	if [ ! -f "$top_srcdir/tests/golden/$name.out" ]; then
		echo "FAIL: $name: in tests/golden/TESTLIST, but tests/golden/$name.out is not there"
		failed=$((failed + 1))
		continue
	fi
	if ! diff -u "$top_srcdir/tests/golden/$name.out" "$workdir/$name.out" >"$workdir/$name.diff"; then
		echo "FAIL: $name differs:"; head -20 "$workdir/$name.diff"
		failed=$((failed + 1))
	fi
	case "$opts" in
	*ndjson*) /usr/bin/python3 -c '
import json, sys
for line in open(sys.argv[1], encoding="utf-8", errors="strict"):
    row = json.loads(line)
    assert isinstance(row, dict) and list(row)[:2] == ["file", "table"], line
' "$workdir/$name.out" || { echo "FAIL: $name: not one JSON object a line"; failed=$((failed + 1)); } ;;
	*json*) /usr/bin/python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8", errors="strict"))' "$workdir/$name.out" ||
			{ echo "FAIL: $name: not JSON"; failed=$((failed + 1)); } ;;
	*tsv*) awk -F'\t' 'NR == 1 { n = NF } NF != n { exit 1 } END { exit NR < 2 }' "$workdir/$name.out" ||
			{ echo "FAIL: $name: ragged or empty TSV"; failed=$((failed + 1)); } ;;
	*csv*) /usr/bin/python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert len(rows) > 1 and all(len(r) == len(rows[0]) for r in rows), "ragged CSV"' "$workdir/$name.out" ||
			{ echo "FAIL: $name: bad CSV"; failed=$((failed + 1)); } ;;
	esac
done <"$top_srcdir/tests/golden/TESTLIST"
[ -n "$update" ] && { say "updated $count expected outputs"; exit 0; }
listed=$(awk '!/^#/ && NF { print $1 }' "$top_srcdir/tests/golden/TESTLIST")
for name in $(echo "$listed" | sort | uniq -d); do
	echo "FAIL: $name: named twice in tests/golden/TESTLIST"
	failed=$((failed + 1))
done
for out in "$top_srcdir"/tests/golden/*.out; do
	name=$(basename "$out" .out)
	echo "$listed" | grep -qxF "$name" && continue
	echo "FAIL: tests/golden/$name.out: no line of tests/golden/TESTLIST names it"
	failed=$((failed + 1))
done
[ "$failed" = 0 ] || fail "$failed of $count golden tests failed"
say "$count golden tests pass"
