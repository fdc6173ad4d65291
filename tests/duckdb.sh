#!/bin/sh
# duckdb.sh — the README's DuckDB recipe on real traces: xcapanalyse -j 2
# --format ndjson over 60 traces made from tests/captures (runs/CELL/NAME),
# DuckDB (its Node.js package, @duckdb/node-api) turns the NDJSON into
# Parquet, and its query of the Parquet gives the figures xcapanalyse's own
# tables give: the median Block Reply per link cell and client (from each
# trace's delay table) and the 95th percentile of the response time per
# input kind (from the --responses tables), and per connection the 95th
# percentile --responses-summary prints.  Parquet keeps the columns'
# types: seconds stay numbers, counts integers.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/engines-lib.sh"
need xcapanalyse xcap /usr/bin/python3
need_duckdb
cd "$workdir" || fail "no work directory"
make_runs runs 60

# ---- the recipe: NDJSON, then Parquet, then the query ----
mkdir results
for view in delays responses responses-summary; do
	xcapanalyse -j 2 --$view --format ndjson runs/*/* >results/$view.ndjson 2>/dev/null
	[ -s results/$view.ndjson ] || fail "--$view: no NDJSON"
done
duckdb_sql "COPY (SELECT * FROM read_json_auto('results/delays.ndjson')) TO 'delays.parquet' (FORMAT parquet)" \
	"COPY (SELECT * FROM read_json_auto('results/responses.ndjson')) TO 'responses.parquet' (FORMAT parquet)" \
	"COPY (SELECT * FROM read_json_auto('results/responses-summary.ndjson')) TO 'summary.parquet' (FORMAT parquet)" \
	>copy.out 2>&1 || fail "DuckDB could not write Parquet: $(cat copy.out)"
for f in delays responses summary; do
	[ "$(head -c 4 $f.parquet)" = PAR1 ] || fail "$f.parquet is not Parquet"
done
duckdb_sql "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM 'delays.parquet')
	WHERE column_name IN ('block_reply', 'idle')" >types.out 2>&1 || fail "DESCRIBE failed: $(cat types.out)"
grep -q "block_reply	DOUBLE" types.out || fail "Block Reply is not a number in Parquet: $(cat types.out)"
duckdb_sql "CREATE VIEW delays AS SELECT * FROM 'delays.parquet'" \
	"CREATE VIEW responses AS SELECT * FROM 'responses.parquet'" "$FIGURES_SQL" >duck.tsv 2>duck.err ||
	fail "DuckDB's query failed: $(cat duck.err)"
tail -n +2 duck.tsv >duck.figures

# ---- the same figures from xcapanalyse's own tables ----
xcapanalyse -j 2 --delays --format csv runs/*/* >delays.csv 2>/dev/null
xcapanalyse -j 2 --responses --format csv runs/*/* >responses.csv 2>/dev/null
own_figures delays.csv responses.csv >own.figures || fail "cannot work out the tables' figures"
[ "$(grep -c '^median_block_reply' own.figures)" -ge 4 ] || fail "too few Block Reply figures: $(cat own.figures)"
grep -q '^p95_response' own.figures || fail "no response figures: $(cat own.figures)"
diff own.figures duck.figures >diff.out ||
	fail "DuckDB's figures differ from xcapanalyse's tables: $(head -10 diff.out)"
sed "s/^/$test_name: /" duck.figures | head -40

# ---- per connection: DuckDB's 95th percentile against --responses-summary's ----
duckdb_sql "SELECT r.file, r.conn, count(*) AS n, quantile_disc(r.response, 0.95) AS duck, any_value(s.p95) AS own
	FROM 'responses.parquet' r JOIN 'summary.parquet' s ON s.file = r.file AND s.conn = CAST(r.conn AS VARCHAR)
	WHERE r.response IS NOT NULL AND r.flags NOT LIKE '%uncertain%' GROUP BY ALL ORDER BY ALL" >conn.tsv 2>conn.err ||
	fail "the per-connection query failed: $(cat conn.err)"
# xcapanalyse's percentile is the largest value of the bucket the rank
# falls in: exact when the bucket holds one value, else at most 1 % above.
awk -F'\t' 'NR > 1 { n++; if ($4 == $5) same++; else if ($5 < $4 || $5 > $4 * 1.01 + 1e-9) { print; bad++ } }
	END { printf "%d %d %d\n", n, same, bad }' conn.tsv >conn.cmp
set -- $(tail -1 conn.cmp)
[ "$1" -gt 0 ] || fail "no connection with responses"
[ "$3" = 0 ] || fail "per connection, DuckDB's p95 and --responses-summary's differ: $(head -5 conn.cmp)"
say "$(wc -l <own.figures) figures identical; per connection p95: $2 of $1 identical, the rest within the summary's 1 %"
exit 0
