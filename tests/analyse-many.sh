#!/bin/sh
# analyse-many.sh — xcapanalyse on 200 traces at once.
#
# The real captures of tests/captures, as pcap and converted to .xcap by
# xcap, copied under 200 names in four directories standing for the cells
# of a sweep (runs/CELL/NNN-NAME).  Then:
#  - for every table view, -j 2 over all 200 gives, line for line, what the
#    200 one-by-one runs give (NDJSON: every row names its file), and -j 2
#    gives what -j 1 gives in text and CSV (CSV: one header, a file column);
#  - a missing input among them is reported, the others still printed, and
#    the exit status says so;
#  - the README's recipe: sqlite3 reads the NDJSON (.import), and its
#    count and total of the round trips per file and request are those of
#    xcapanalyse's own --requests table, and its median Block Reply per
#    client and cell is the median computed from the one-by-one CSV tables.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcapanalyse xcap sqlite3 /usr/bin/python3
py=/usr/bin/python3

cd "$workdir" || fail "no work directory"
mkdir distinct
for cap in "$top_srcdir"/tests/captures/*.pcap "$top_srcdir"/tests/captures/*.pcapng; do
	[ -f "$cap" ] || continue
	name=$(basename "$cap")
	cp "$cap" "distinct/$name"
	if ! xcap -q -r "$cap" -w "distinct/${name%.*}.xcap" 2>"$workdir/err"; then
		grep -q 'no X11, RFB or Wayland connection' "$workdir/err" ||
			fail "$name: xcap could not convert it: $(cat "$workdir/err")"
		# Nothing decoded without --decode (waypipe begun before the
		# capture): a trace with nothing to analyse, left out of the many.
		rm -f "distinct/$name" "distinct/${name%.*}.xcap"
	fi
done
set -- distinct/*.pcap* distinct/*.xcap	# not the indexes xcap -w writes beside its traces
[ $# -ge 4 ] || skip "too few captures in tests/captures"
# 200 traces; 40 under the sanitizers, where this test checks memory, not
# scale, and 200 runs one by one of each view cost minutes.
many=200
sanitized && many=40
n=0
while [ $n -lt $many ]; do
	for d in "$@"; do
		[ $n -lt $many ] || break
		cell=$(echo 10mbit-2ms 10mbit-20ms 1mbit-2ms 1mbit-20ms | cut -d' ' -f$((n % 4 + 1)))
		mkdir -p "runs/$cell"
		cp "$d" "runs/$cell/$(printf %03d $n)-$(basename "$d")"
		n=$((n + 1))
	done
done
ls runs/*/* >list
[ "$(wc -l <list)" -eq $many ] || fail "made $(wc -l <list) traces, not $many"

for view in --delays --requests --round-trips --connections --messages; do
	xcapanalyse -j 2 $view --format ndjson $(cat list) >many.ndjson 2>many.err ||
		fail "$view -j 2 failed: $(tail -2 many.err)"
	: >one.ndjson
	while read -r f; do
		xcapanalyse $view --format ndjson "$f" >>one.ndjson 2>/dev/null || fail "$view $f failed"
	done <list
	[ -s one.ndjson ] || fail "$view: no rows at all"
	cmp -s many.ndjson one.ndjson ||
		fail "$view: -j 2 differs from one by one: $(diff one.ndjson many.ndjson | head -5)"
	# Every copy of a capture that has rows of this view alone is named;
	# a capture may rightly have none (x11perf-getimage-late.pcap's waits
	# are all guessed pairings, which --requests does not count).
	with_rows=0
	while read -r f; do
		xcapanalyse $view --format ndjson "distinct/${f#*/*/[0-9][0-9][0-9]-}" 2>/dev/null | grep -q . &&
			with_rows=$((with_rows + 1))
	done <list
	[ $with_rows -ge $((many / 2)) ] || fail "$view: only $with_rows of the $many traces have rows alone"
	[ "$(cut -d'"' -f4 many.ndjson | uniq | wc -l)" -eq $with_rows ] ||
		fail "$view: rows name $(cut -d'"' -f4 many.ndjson | uniq | wc -l) files, not the $with_rows that have rows alone"
	for fmt in text csv; do
		xcapanalyse -j 1 $view --format $fmt $(cat list) >serial.$fmt 2>/dev/null
		xcapanalyse -j 2 $view --format $fmt $(cat list) >parallel.$fmt 2>/dev/null
		cmp -s serial.$fmt parallel.$fmt ||
			fail "$view $fmt: -j 2 differs from -j 1: $(diff serial.$fmt parallel.$fmt | head -5)"
	done
	[ "$(grep -c '^file,' parallel.csv)" -eq 1 ] || fail "$view csv: not one header"
	say "$view: $(wc -l <many.ndjson) NDJSON rows, -j 2 as one by one"
done

# A missing trace in the middle: named on stderr, status 1, the rest printed.
status=0
xcapanalyse -j 2 --delays --format ndjson $(head -3 list) runs/missing.xcap $(sed -n '4,6p' list) \
	>some.ndjson 2>some.err || status=$?
[ $status -eq 1 ] || fail "a missing input gave status $status, not 1"
grep -q "runs/missing.xcap" some.err || fail "the missing input is not named: $(cat some.err)"
[ "$(cut -d'"' -f4 some.ndjson | uniq | wc -l)" -eq 6 ] || fail "not the six other traces' rows"

# The recipe.  NDJSON lines hold no raw control character, so ASCII mode
# with unit separators imports each line whole into one column.
load() {
	printf 'CREATE TABLE %s(j TEXT);\n.mode ascii\n.separator "\\037" "\\n"\n.import %s %s\n' "$1" "$2" "$1"
}
xcapanalyse -j 2 --round-trips --format ndjson $(cat list) >trips.ndjson 2>/dev/null
xcapanalyse -j 2 --requests --format ndjson $(cat list) >requests.ndjson 2>/dev/null
xcapanalyse -j 2 --delays --format ndjson $(cat list) >delays.ndjson 2>/dev/null
{
	load trips trips.ndjson
	load requests requests.ndjson
	load delays delays.ndjson
	cat <<'EOF'
.mode list
.separator " "
.output sql-requests
SELECT j->>'file', j->>'extension', j->>'request', count(*),
       CAST(round(sum(j->>'wait') * 1e9) AS INTEGER)
  FROM trips GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
.output own-requests
SELECT j->>'file', j->>'extension', j->>'request', j->>'count',
       CAST(round((j->>'wait') * 1e9) AS INTEGER)
  FROM requests ORDER BY 1, 2, 3;
.output sql-median
.separator "|"
WITH br AS (
  SELECT substr(j->>'file', 6, instr(substr(j->>'file', 6), '/') - 1) AS cell,
         j->>'client' AS client, j->>'block_reply' AS v
    FROM delays WHERE j->>'direction' = 'request' AND j->>'conn' <> 'all'),
ranked AS (
  SELECT cell, client, v,
         row_number() OVER (PARTITION BY cell, client ORDER BY v) AS k,
         count(*) OVER (PARTITION BY cell, client) AS n FROM br)
SELECT cell, client, printf('%.9f', avg(v)) FROM ranked
 WHERE k IN ((n + 1) / 2, (n + 2) / 2) GROUP BY cell, client ORDER BY cell, client;
EOF
} >recipe.sql
sqlite3 :memory: <recipe.sql 2>sqlite.err || fail "sqlite3 failed: $(cat sqlite.err)"
[ -s own-requests ] || fail "no requests waited on in $many traces"
diff own-requests sql-requests >diff.out ||
	fail "sqlite's count and total of the round trips differ from --requests: $(head -5 diff.out)"

# The same median, from the tables xcapanalyse prints one trace at a time.
while read -r f; do
	xcapanalyse --delays --format csv "$f" 2>/dev/null | sed "s|^|$f,|"
done <list >one-by-one.csv
$py - one-by-one.csv >own-median <<'EOF'
import csv, sys
from collections import defaultdict
groups = defaultdict(list)
for row in csv.reader(open(sys.argv[1])):
    f, rest = row[0], row[1:]
    if rest[0] == 'conn' or rest[0] == 'all' or rest[2] != 'request':
        continue
    groups[(f.split('/')[1], rest[1])].append(float(rest[6]))
for (cell, client) in sorted(groups):
    v = sorted(groups[(cell, client)])
    n = len(v)
    print('%s|%s|%.9f' % (cell, client, (v[(n - 1) // 2] + v[n // 2]) / 2))
EOF
[ -s own-median ] || fail "no Block Reply rows"
diff own-median sql-median >diff.out ||
	fail "sqlite's median Block Reply differs from the tables': $(head -5 diff.out)"
say "sqlite3 agrees: $(wc -l <own-requests) request rows, $(wc -l <own-median) medians per client and cell"
