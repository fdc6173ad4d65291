#!/bin/sh
# dist-files.sh — every capture, golden output and piece of the tests'
# shell library the repository holds, and every NDJSON schema (installed:
# dist_schema_DATA lists them one by one), is named in a Makefile fragment, by
# itself or by a folder above it (EXTRA_DIST takes folders whole: all of
# tests/golden goes), so that `make dist` (and the Debian package, built
# from that tarball) carries what tests/golden.sh and the capture tests
# read.  A file missing there passes in a checkout and fails only in the
# tarball, far from the change that forgot it.
#
# Runs where the source tree is a git checkout; a tarball has no list of
# what it should have held, so there it skips.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need git
cd "$top_srcdir" || fail "cannot enter the source tree: '$top_srcdir'"
need git-checkout
# The fragments without their comments.
sed 's/#.*//' Makefile.am data/local.mk tests/local.mk tests/*.mk >"$workdir/mk"
# named PATH: PATH is a word of a fragment (not a prefix of a longer one)
named() {
	grep -q -E -- "(^|[[:space:]=])$(echo "$1" | sed 's/[.[\*^$]/\\&/g')/?([[:space:]\\]|\$)" "$workdir/mk"
}
missing=0
files=$(git ls-files tests/golden tests/captures tests/lib data/schema)
for f in $files; do
	d=$f
	until named "$d"; do
		d=$(dirname "$d")
		[ "$d" = tests ] || [ "$d" = data ] || continue
		echo "FAIL: $test_name: '$f' is in the repository but in no EXTRA_DIST or _DATA (tests/*.mk, data/local.mk)" >&2
		missing=$((missing + 1))
		break
	done
done
n=$(echo "$files" | wc -l)
[ -n "$files" ] || fail "git lists no captures or goldens under '$top_srcdir/tests'"
[ "$missing" = 0 ] || fail "$missing of $n files would be left out of the tarball"
say "all $n captures, goldens, library files and schemas are named for the tarball"
