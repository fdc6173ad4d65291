# tests/lib/timing.sh — tests that measure time against physics: they run
# in the plain build only, at real-time priority when allowed, and one at
# a time through a lock in the build tree.
#
# Belongs to: the tests' shell library (sourced by tests/lib.sh).

# measures_physics: this test holds a delay or a rate it measured to what
# an emulated link's configuration implies.  It runs in the plain build
# only: under the sanitizers the tools' own slowdown would be read as the
# link's delay, and the code it runs is covered there by the other tests.
# It then takes its turn through timing_alone.
measures_physics() {
	sanitized && skip "measures time against a link's physics: checked in the plain build, not under the sanitizers' slowdown"
	timing_alone
}

# want_realtime: the link (xcap-link --realtime, through $link_opts) and
# whatever the test starts under "$rt" run at real-time priority when the
# machine allows it, so that a neighbour's load (a compiler, a sanitized
# test beside this one) is not read as the link's delay.  $rt is a word
# list, not a function, so that "$rt CMD &" gives CMD's own pid.
want_realtime() {
	link_opts=--realtime
	rt=
	if have realtime; then
		rt="chrt -f 20"
	else
		say "no chrt or no real-time priority: the endpoints run at normal priority"
	fi
}

# timing_alone: this test holds a measurement to physics (an emulated
# link's or a relay's delay and rate) or loads the CPU on purpose (at
# real-time priority, or with a soak's traffic).  Such tests take turns,
# through a lock in the build tree, so that make check running tests side
# by side does not read one test's load as another's delay.  The lock is
# waited for 20 minutes at most, then the test goes on and says so.  A
# process of its own holds the lock until the test's shell is gone, so
# that nothing the test starts (an X server that outlives it) inherits it.
timing_alone() {
	command -v flock >/dev/null 2>&1 || return 0
	_ta_held=$workdir/timing-lock.held
	flock -w 1200 "$top_builddir/tests/.timing-lock" sh -c \
		'touch "$1"; while kill -0 "$2" 2>/dev/null && [ ! -e "$1.done" ]; do sleep 0.5; done' \
		sh "$_ta_held" $$ </dev/null >/dev/null 2>&1 &
	_ta_pid=$!
	_ta_asked=$(date +%s)
	while [ ! -e "$_ta_held" ]; do
		if ! kill -0 "$_ta_pid" 2>/dev/null; then
			say "the timing lock was not free after 20 minutes: measuring beside another test"
			return 0
		fi
		sleep 0.2
	done
	timing_waited=$(($(date +%s) - _ta_asked))
}

# timing_done: the test's timed part is over (what is left only reads
# and compares files); the next test that measures time may begin.
timing_done() {
	[ -n "${_ta_pid:-}" ] || return 0
	touch "$_ta_held.done"
	wait "$_ta_pid" 2>/dev/null
	_ta_pid=
}
