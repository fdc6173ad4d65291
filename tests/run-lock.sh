#!/bin/sh
# run-lock.sh — xcap-run's forwarding display holds its number's lock
# file as an X server does.
#
#  - the lock is complete whenever it exists (ten columns of pid and a
#    newline): an X server that reads a short or empty lock takes it for
#    a crashed server's, removes it and comes up on the relay's number;
#  - a lock whose process is gone is taken over; a short lock (someone
#    else still writing it) is left alone and the number passed over;
#  - at the end xcap-run removes its lock, but not one that no longer
#    names it.
# The numbers used are the two highest free ones, which xcap-run (counting
# down from 63) tries first.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcap-run Xvfb xdpyinfo
start_xvfb
dead=$(sh -c 'echo $$')	# a pid that has just ended
free_below() { _f=$1; while [ "$_f" -ge 10 ] && [ -e "/tmp/.X$_f-lock" ]; do _f=$((_f - 1)); done; echo "$_f"; }
short=$(free_below 63)
stale=$(free_below $((short - 1)))
[ "$stale" -ge 10 ] || skip "no two free display numbers"
: >"/tmp/.X$short-lock"
printf '%10d\n' "$dead" >"/tmp/.X$stale-lock"
at_exit "rm -f /tmp/.X$short-lock; [ \"\$(tr -dc 0-9 2>/dev/null </tmp/.X$stale-lock)\" = $dead ] && rm -f /tmp/.X$stale-lock"

xcap-run -q --no-stacks -w "$workdir/r.xcap" -- sh -c 'echo "$DISPLAY" >"$0/display"
	while [ ! -e "$0/go" ]; do sleep 0.05; done' "$workdir" >"$workdir/run.out" 2>&1 &
rp=$!
pids="$pids $rp"
wait_for test -s "$workdir/display" || fail "xcap-run did not start its client: $(cat "$workdir/run.out")"
n=$(sed 's/.*://' "$workdir/display")
lock=/tmp/.X$n-lock
[ -e "/tmp/.X$short-lock" ] && [ ! -s "/tmp/.X$short-lock" ] ||
	fail "the short lock of :$short was removed or written"
[ "$n" != "$short" ] || fail "xcap-run took :$short, whose lock was being written"
[ "$(tr -dc 0-9 <"/tmp/.X$stale-lock" 2>/dev/null)" != "$dead" ] ||
	fail "the lock of :$stale, whose process is gone, is still there"
# Another xcap-run, run-sites' say, can take :$stale first; then ours is lower.
[ "$n" -le "$stale" ] || fail "xcap-run took :$n, above the free :$stale"
[ "$(wc -c <"$lock")" = 11 ] && [ "$(tr -dc 0-9 <"$lock")" = "$rp" ] ||
	fail "$lock is not xcap-run's pid in ten columns: '$(cat "$lock")'"
ls /tmp/.xcap-run-* 2>/dev/null | grep -q "\.$rp\$" && fail "xcap-run left its lock's temporary file"
touch "$workdir/go"
wait "$rp" || fail "xcap-run failed: $(cat "$workdir/run.out")"
[ ! -e "$lock" ] || fail "xcap-run left $lock behind"
say "took :$n, passed over the short lock of :$short, took over the stale lock of :$stale"

# A lock that no longer names xcap-run (replaced while it ran) stays.
rm -f "$workdir/display" "$workdir/go"
xcap-run -q --no-stacks -w "$workdir/r2.xcap" -- sh -c 'echo "$DISPLAY" >"$0/display"
	while [ ! -e "$0/go" ]; do sleep 0.05; done' "$workdir" >"$workdir/run2.out" 2>&1 &
rp=$!
pids="$pids $rp"
wait_for test -s "$workdir/display" || fail "the second xcap-run did not start its client"
n=$(sed 's/.*://' "$workdir/display")
lock=/tmp/.X$n-lock
printf '%10d\n' $$ >"$workdir/other"
mv -f "$workdir/other" "$lock"
at_exit "[ \"\$(tr -dc 0-9 2>/dev/null <$lock)\" = $$ ] && rm -f $lock"
touch "$workdir/go"
wait "$rp" || fail "the second xcap-run failed: $(cat "$workdir/run2.out")"
[ "$(tr -dc 0-9 <"$lock" 2>/dev/null)" = $$ ] || fail "xcap-run removed $lock, which named another process"
say "left :$n's lock, which named another process at its end"
