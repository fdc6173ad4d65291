# lib.sh — shared helpers for the shell tests and the demo (sourced).
#
# Tests exit 0 (pass), 1 (fail) or 77 (skip, with the reason on stdout),
# as automake's test driver expects.  The helpers live by concern in
# tests/lib/: verdicts (skip, fail, say), prerequisites (need...), timing
# (the lock, real-time priority), the work directory and exit cleanup, X
# servers, captures, and sway as a user with waypipe over a link.
#
# Belongs to: the tests' shell library (every tests/*.sh and the demo).

: "${top_builddir:=$(pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
PATH="$top_builddir/xcap:$top_builddir/xcapanalyse:$top_builddir/netplot:$PATH"
export PATH

test_name=$(basename "$0" .sh)

for _lib in verdicts prereqs timing workdir xservers capture wayland; do
	. "$top_srcdir/tests/lib/$_lib.sh"
done
