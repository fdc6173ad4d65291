#!/bin/sh
# dist-files.sh — every capture and golden output the repository holds is
# named in a Makefile fragment, so that `make dist` (and the Debian
# package, built from that tarball) carries what tests/golden.sh and the
# capture tests read.  A file missing there passes in a checkout and fails
# only in the tarball, far from the change that forgot it.
#
# Runs where the source tree is a git checkout; a tarball has no list of
# what it should have held, so there it skips.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need git
cd "$top_srcdir" || fail "cannot enter the source tree: '$top_srcdir'"
need git-checkout
missing=0
for f in $(git ls-files tests/golden tests/captures); do
	if ! grep -q -F -- "$f" Makefile.am tests/local.mk tests/*.mk; then
		echo "FAIL: $test_name: '$f' is in the repository but in no EXTRA_DIST (tests/*.mk)" >&2
		missing=$((missing + 1))
	fi
done
n=$(git ls-files tests/golden tests/captures | wc -l)
[ "$n" -gt 0 ] || fail "git lists no captures or goldens under '$top_srcdir/tests'"
[ "$missing" = 0 ] || fail "$missing of $n files would be left out of the tarball"
say "all $n captures and goldens are named for the tarball"
