# tests/lib/verdicts.sh — how a test says what it found: skip (exit 77,
# with the reason on stdout), fail (exit 1, on stderr), say, and named
# claims that each report ok or not ok and go on after a failure.
#
# Belongs to: the tests' shell library (sourced by tests/lib.sh).

skip() { echo "SKIP: $test_name: $*"; exit 77; }
say() { echo "$test_name: $*"; }

# fail MESSAGE: outside a claim, the test cannot go on (a set-up that
# failed leaves nothing to claim): it ends with status 1.  Inside one, the
# claim is marked failed and fail returns 1, so that the test goes on to
# its next claim; the mark is a line in a file, so that a fail in a
# subshell ($(...), a pipeline) inside the claim counts too.
fail() {
	echo "FAIL: $test_name: $*" >&2
	[ -n "${_check_name:-}" ] || exit 1
	echo x >>"$workdir/.check-fails"
	return 1
}

# Claims, as git's test_expect_success: each is named by what it claims,
# is reported "ok N - NAME" or "not ok N - NAME", and a failed one does
# not keep the next from running.  A test with a failed claim exits 1 at
# its end (cleanup, tests/lib/workdir.sh), even when it then skips.
#
#   check NAME CMD...    the claim holds when CMD succeeds (and calls no fail)
#   check_begin NAME     the claim holds when nothing until check_end
#   ...                  calls fail; its commands run in the test's own
#   check_end            shell, so what they set is seen after.  check_end
#                        returns 0 when the claim held, 1 when not: a later
#                        claim that needs this one's result tests that,
#   check_skip NAME WHY  and reports itself not checked, saying why (also
#                        the claim open, in place of its check_end, when
#                        it turns out it cannot be judged).
#
# The verdicts are lines of $workdir/.checks ("ok NAME", "not ok NAME",
# "skip NAME"), so that claims made in a subshell count as well.
check_begin() {
	if [ -n "${_check_name:-}" ]; then
		echo "FAIL: $test_name: check_begin '$1' inside the claim '$_check_name'" >&2
		exit 1
	fi
	_check_name=$1
	_check_marks=$(_check_count .check-fails)
}

check_end() {
	if [ -z "${_check_name:-}" ]; then
		echo "FAIL: $test_name: check_end without check_begin" >&2
		exit 1
	fi
	_check_n=$(($(_check_count .checks) + 1))
	if [ "$(_check_count .check-fails)" = "$_check_marks" ]; then
		_check_verdict=ok
	else
		_check_verdict="not ok"
	fi
	echo "$_check_verdict $_check_name" >>"$workdir/.checks"
	echo "$_check_verdict $_check_n - $_check_name"
	_check_name=
	[ "$_check_verdict" = ok ]
}

check() {
	check_begin "$1"
	shift
	"$@"
	_check_status=$?
	[ "$_check_status" = 0 ] || [ "$(_check_count .check-fails)" != "$_check_marks" ] ||
		fail "$_check_name: '$*' exited $_check_status"
	check_end
}

check_skip() {
	[ "${_check_name:-}" != "$1" ] || _check_name=
	_check_n=$(($(_check_count .checks) + 1))
	echo "skip $1" >>"$workdir/.checks"
	echo "skip $_check_n - $1: $2"
}

# _check_count FILE: the lines of $workdir/FILE (0 when there is none).
_check_count() {
	if [ -f "$workdir/$1" ]; then wc -l <"$workdir/$1" | tr -d ' '; else echo 0; fi
}

# check_verdict STATUS: at exit, with the status the test exits with:
# a claim left open (the test skipped or ended inside it) is reported,
# then the tally; sets check_failed to the number of failed claims.
check_verdict() {
	check_failed=0
	if [ -n "${_check_name:-}" ]; then
		if [ "$1" = 77 ]; then
			check_skip "$_check_name" "the test skipped inside it"
		else
			_check_n=$(($(_check_count .checks) + 1))
			echo "not ok $_check_name" >>"$workdir/.checks"
			echo "not ok $_check_n - $_check_name (the test ended inside it, status $1)"
		fi
		_check_name=
	fi
	[ -f "$workdir/.checks" ] || return 0
	check_failed=$(grep -c '^not ok ' "$workdir/.checks")
	_check_all=$(_check_count .checks)
	if [ "$check_failed" -gt 0 ]; then
		echo "FAIL: $test_name: $check_failed of $_check_all claims failed:" >&2
		sed -n 's/^not ok /  /p' "$workdir/.checks" >&2
	else
		_check_skipped=$(grep -c '^skip ' "$workdir/.checks")
		if [ "$_check_skipped" = 0 ]; then
			say "all $_check_all claims hold"
		else
			say "$((_check_all - _check_skipped)) of $_check_all claims hold, $_check_skipped not checked"
		fi
	fi
}
