# tests/lib/verdicts.sh — how a test says what it found: skip (exit 77,
# with the reason on stdout), fail (exit 1, on stderr), say.
#
# Belongs to: the tests' shell library (sourced by tests/lib.sh).

skip() { echo "SKIP: $test_name: $*"; exit 77; }
fail() { echo "FAIL: $test_name: $*" >&2; exit 1; }
say() { echo "$test_name: $*"; }
