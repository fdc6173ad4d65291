// duckdb-sql.cjs [--db FILE] [SQL...] — runs SQL (the arguments, else
// standard input; statements separated by semicolons) through DuckDB's
// Node.js package, @duckdb/node-api, and prints the last statement's rows
// tab-separated under a header line.  DuckDB reads xcapanalyse's NDJSON as
// it is (read_json('results/*.ndjson')) and writes Parquet (COPY ... TO
// 'x.parquet' (FORMAT parquet)), so this is the whole bridge:
//
//   npm install --prefix /opt/xcap-duckdb @duckdb/node-api
//   NODE_PATH=/opt/xcap-duckdb/node_modules node duckdb-sql.cjs "SELECT ..."
//
// Belongs to: data/ (installed beside the NDJSON schemas; README "Many
// traces, many machines").
'use strict';
const fs = require('fs');
let duckdb;
try {
	duckdb = require('@duckdb/node-api');
} catch (e) {
	process.stderr.write('duckdb-sql: cannot load @duckdb/node-api (set NODE_PATH): ' + e.message + '\n');
	process.exit(2);
}

function text(v) {
	if (v === null || v === undefined)
		return '';
	return String(v);
}

async function main() {
	const args = process.argv.slice(2);
	let path = ':memory:';
	if (args[0] === '--db') {
		path = args[1];
		args.splice(0, 2);
	}
	const sql = args.length ? args.join(';\n') : fs.readFileSync(0, 'utf8');
	const db = await duckdb.DuckDBInstance.create(path);
	const conn = await db.connect();
	const statements = await conn.extractStatements(sql);
	let reader = null;
	for (let i = 0; i < statements.count; i++) {
		const prepared = await statements.prepare(i);
		reader = await prepared.runAndReadAll();
	}
	if (!reader)
		return;
	const out = [reader.columnNames().join('\t')];
	for (const row of reader.getRows())
		out.push(row.map(text).join('\t'));
	process.stdout.write(out.join('\n') + '\n');
}

main().catch((e) => {
	process.stderr.write('duckdb-sql: ' + e.message + '\n');
	process.exit(1);
});
