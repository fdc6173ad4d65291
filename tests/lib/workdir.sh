# tests/lib/workdir.sh — the test's scratch directory, the processes it
# starts, and what is undone when it exits however it ends.
#
# Belongs to: the tests' shell library (sourced by tests/lib.sh).

# When the test began, for the line that says how long it took (the
# suite's running time is a budget: CI gives it 30 minutes).
test_started=$(date +%s)

# A scratch directory removed on exit, with everything started in it;
# at exit the claims' verdicts are told first (tests/lib/verdicts.sh).
workdir=$(mktemp -d "${TMPDIR:-/tmp}/xcap-$test_name.XXXXXX")
pids=
cleanup_hooks=
at_exit() { cleanup_hooks="$cleanup_hooks
$*"; }
cleanup() {
	_cleanup_status=$?
	check_verdict "$_cleanup_status"	# tests/lib/verdicts.sh: the claims' tally
	eval "$cleanup_hooks"
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	if [ -n "$keep_workdir" ]; then echo "$test_name: kept $workdir"; else rm -rf "$workdir"; fi
	[ "${timing_waited:-0}" = 0 ] || echo "$test_name: waited $timing_waited s for the timing lock"
	echo "$test_name: took $(($(date +%s) - test_started)) s"
	# A failed claim fails the test, even one that went on to skip.
	[ "$check_failed" = 0 ] || exit 1
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# wait_for CMD...: retry, 100 tries 0.1 s apart: 10 s for a CMD that
# answers at once.  A CMD that can itself take seconds to fail (a client
# retrying a server that is not there) needs its own bound: timeout(1).
wait_for() {
	i=0
	while ! "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -gt 100 ] && return 1
		sleep 0.1
	done
}
