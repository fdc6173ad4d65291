# tests: results in other engines' hands — the NDJSON tables against their
# published schemas (data/schema/), DuckDB reading them and writing Parquet,
# and a one-node Slurm cluster analysing many traces into Parquet.
dist_check_SCRIPTS += tests/ndjson-schema.sh
TESTS += tests/ndjson-schema.sh
EXTRA_DIST += tests/ndjson-schema.py
dist_check_SCRIPTS += tests/duckdb.sh
TESTS += tests/duckdb.sh
EXTRA_DIST += tests/engines-lib.sh
dist_check_SCRIPTS += tests/slurm.sh
TESTS += tests/slurm.sh
