# engines-lib.sh — what tests/duckdb.sh and tests/slurm.sh share, sourced
# after tests/lib.sh: DuckDB through its Node.js package, the traces they
# analyse, and the figures both compute from them.
#
# Belongs to: tests/ (the engines' tests).

# Where ./bootstrap deps installs @duckdb/node-api with npm.
XCAP_DUCKDB=${XCAP_DUCKDB:-/opt/xcap-duckdb}

need_duckdb() {
	command -v node >/dev/null 2>&1 || skip "no node: DuckDB's package (@duckdb/node-api) runs under Node.js"
	[ -d "$XCAP_DUCKDB/node_modules/@duckdb/node-api" ] ||
		skip "no @duckdb/node-api under $XCAP_DUCKDB (./bootstrap deps installs it from the npm registry)"
}

# duckdb_sql SQL...: the installed recipe's script (data/duckdb-sql.cjs).
duckdb_sql() {
	NODE_PATH=$XCAP_DUCKDB/node_modules node "$top_srcdir/data/duckdb-sql.cjs" "$@"
}

# make_runs DIR N: N traces under DIR/CELL/NNN-NAME, four cells standing
# for a sweep's, made from the real captures of tests/captures (as they
# are and converted to .xcap), taken in turn.
make_runs() {
	_dir=$1 _many=$2
	mkdir -p "$workdir/distinct"
	for _cap in "$top_srcdir"/tests/captures/*.pcap "$top_srcdir"/tests/captures/*.pcapng; do
		_name=$(basename "$_cap")
		cp "$_cap" "$workdir/distinct/$_name"
		xcap -q -r "$_cap" -w "$workdir/distinct/${_name%.*}.xcap" 2>/dev/null ||
			fail "$_name: xcap could not convert it"
	done
	_n=0
	while [ $_n -lt "$_many" ]; do
		for _d in "$workdir"/distinct/*.pcap* "$workdir"/distinct/*.xcap; do
			[ $_n -lt "$_many" ] || break
			_cell=$(echo 10mbit-2ms 10mbit-20ms 1mbit-2ms 1mbit-20ms | cut -d' ' -f$((_n % 4 + 1)))
			mkdir -p "$_dir/$_cell"
			cp "$_d" "$_dir/$_cell/$(printf %03d $_n)-$(basename "$_d")"
			_n=$((_n + 1))
		done
	done
}

# The figures, in DuckDB over tables delays and responses: the median
# Block Reply per link cell (the traces' directory) and client, and the
# 95th percentile (nearest rank, as xcapanalyse's) of the response time
# per input kind, over the inputs responded to for certain.  One line
# each: figure, cell, key, count, value.  The README's recipe.
FIGURES_SQL="
SELECT 'median_block_reply' AS figure, split_part(file, '/', -2) AS cell, client AS key,
       count(*) AS n, printf('%.9f', median(block_reply)) AS value
  FROM delays WHERE direction = 'request' AND conn <> 'all' GROUP BY ALL
UNION ALL
SELECT 'p95_response', '', kind, count(*), printf('%.9f', quantile_disc(response, 0.95))
  FROM responses WHERE response IS NOT NULL AND flags NOT LIKE '%uncertain%' GROUP BY ALL
ORDER BY ALL"

# own_figures DELAYS.csv RESPONSES.csv: the same figures from xcapanalyse's
# own CSV tables (several traces: a file column), worked out in Python.
own_figures() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import csv, math, sys
from collections import defaultdict
med, p95 = defaultdict(list), defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    if r['direction'] == 'request' and r['conn'] != 'all':
        med[(r['file'].split('/')[-2], r['client'])].append(float(r['block_reply']))
for r in csv.DictReader(open(sys.argv[2])):
    if r['response'] != '' and 'uncertain' not in r['flags'].split(','):
        p95[r['kind']].append(float(r['response']))
rows = []
for (cell, client), v in med.items():
    v.sort()
    n = len(v)
    rows.append(('median_block_reply', cell, client, n, (v[(n - 1) // 2] + v[n // 2]) / 2))
for kind, v in p95.items():
    v.sort()
    rows.append(('p95_response', '', kind, len(v), v[math.ceil(0.95 * len(v)) - 1]))
for r in sorted(rows):
    print('%s\t%s\t%s\t%d\t%.9f' % r)
PY
}
