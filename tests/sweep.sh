#!/bin/sh
# sweep.sh — xcap-sweep runs an X client over a bandwidth x latency matrix
# and the delays it reports follow the links.
#
#  - the command line: --version, --help, usage errors exit 2, and a user
#    who cannot create namespaces is told so;
#  - a 2 x 2 sweep of xdpyinfo (10 Mbit/s and 100 kbit/s, 1 ms and 40 ms
#    one way): every cell ran, says which link carried it, and its total
#    network delay grows with the latency at each rate and with falling
#    bandwidth at each latency; the 40 ms cells wait at least one more
#    round trip (78 ms) than the 1 ms ones;
#  - the cell traces open in xcapanalyse (and in netplot's export when
#    netplot is built);
#  - nothing is left behind: namespaces, Xvfb and its lock file, after a
#    normal end and after SIGINT in the middle of a cell.
# Displays are taken from 48-63 only (xcap-sweep's default range).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcap-sweep xcap xcapanalyse root ip Xvfb xdpyinfo

# ---- the command line (needs nothing else) ----

xcap-sweep --version | grep -qx 'xcap-sweep [0-9.]*' || fail "--version: $(xcap-sweep --version)"
xcap-sweep --help | grep -q -- '--delays' || fail "--help shows no options"
for bad in "--rates 10X" "--delays fast" "--via telnet" "--repeat 0" "--display 64" "--format xml" "--bogus"; do
	# shellcheck disable=SC2086
	xcap-sweep $bad xdpyinfo >/dev/null 2>"$workdir/err"
	[ $? = 2 ] || fail "'$bad' is not a usage error: $(cat "$workdir/err")"
	grep -q "^xcap-sweep: " "$workdir/err" || fail "'$bad': no message: $(cat "$workdir/err")"
done
xcap-sweep >/dev/null 2>&1
[ $? = 2 ] || fail "no command is not a usage error"
if command -v setpriv >/dev/null 2>&1; then
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$(command -v xcap-sweep)" -o "$workdir/nobody" xdpyinfo >/dev/null 2>"$workdir/err"
	st=$?
	[ $st = 1 ] || fail "as an unprivileged user: exit $st, not 1: $(cat "$workdir/err")"
	grep -q "^xcap-sweep: cannot create namespaces: " "$workdir/err" ||
		fail "as an unprivileged user: $(cat "$workdir/err")"
	[ ! -e "$workdir/nobody" ] || fail "as an unprivileged user: the output directory was made"
else
	say "no setpriv: the unprivileged message is not checked"
fi

# ---- what a sweep needs ----

# The link: netem when the kernel has it, else xcap-link over tun.
ip netns add "xswt$$" 2>"$workdir/err" || skip "cannot create a network namespace: $(cat "$workdir/err")"
if ip -n "xswt$$" link add name xswt-a type veth peer name xswt-b 2>/dev/null &&
   ip netns exec "xswt$$" tc qdisc add dev xswt-a root netem delay 1ms 2>/dev/null; then
	expect_link=netem
else
	expect_link=xcap-link
fi
ip netns del "xswt$$"
if [ "$expect_link" = xcap-link ]; then
	need xcap-link
	[ -c /dev/net/tun ] || skip "no sch_netem and no /dev/net/tun"
fi
# The delays come from xcapanalyse's state model.
xcapanalyse --format csv "$top_srcdir/tests/captures/xdpyinfo-xlogo.pcap" 2>/dev/null |
	head -n 1 | tr ',' '\n' | grep -qx total_network_delay ||
	skip "this xcapanalyse has no total_network_delay column (no state model)"

# leftovers PID DISPLAY: fail if the sweep PID left a namespace, its Xvfb,
# or the display's lock file.
leftovers() {
	ip netns list | grep -E "^xsw$1[cs]( |\$)" && fail "$2: namespaces left behind"
	# (a lock of that number that another test's Xvfb took since, as tests
	# run in parallel, is not the sweep's: with the sweep's Xvfb known (4th
	# argument), a lock of another pid; without it, a lock whose owner lives
	# outside the sweep's namespaces.  A lock whose owner is gone was left.)
	if [ -n "$3" ] && [ -e "/tmp/.X$3-lock" ]; then
		owner=$(tr -d ' \n' <"/tmp/.X$3-lock" 2>/dev/null)
		if [ -n "$4" ]; then
			[ "$owner" != "$4" ] || fail "$2: /tmp/.X$3-lock left behind"
		elif [ -z "$owner" ] || ! kill -0 "$owner" 2>/dev/null; then
			fail "$2: /tmp/.X$3-lock left behind (its owner '$owner' is gone)"
		else
			case $(ip netns identify "$owner" 2>/dev/null) in
			"xsw$1"[cs]) fail "$2: /tmp/.X$3-lock held by the sweep's Xvfb (pid $owner)" ;;
			esac
		fi
	fi
	[ -z "$4" ] || ! kill -0 "$4" 2>/dev/null || fail "$2: Xvfb (pid $4) still running"
	return 0
}

# ---- a 2 x 2 sweep ----

out=$workdir/sweep
xcap-sweep -q -o "$out" --rates 10M,100k --delays 1,40 --format csv xdpyinfo \
	>"$workdir/results.csv" 2>"$workdir/sweep.err" &
sweep=$!
pids="$pids $sweep"
wait $sweep
st=$?
pids=
[ $st = 0 ] || fail "the sweep exited $st: $(cat "$workdir/sweep.err")"
[ -s "$out/results.csv" ] && [ -s "$out/results.txt" ] || fail "no results files in $out"
cmp -s "$workdir/results.csv" "$out/results.csv" || fail "results.csv differs from what was printed"
display=$(sed -n 's/^# via .*Xvfb :\([0-9]*\),.*/\1/p' "$out/results.txt")
[ -n "$display" ] && [ "$display" -ge 48 ] && [ "$display" -le 63 ] ||
	fail "the sweep used display '$display', not one of 48-63"
leftovers "$sweep" "after the sweep" "$display" ""
sed 's/^/  /' "$out/results.txt"

# cell RATE DELAY COLUMN: a column of a cell, by header name.
cell() {
	awk -F, -v r="$1" -v d="$2" -v want="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["rate"] == r && $col["delay_ms"] == d { print $col[want]; exit }' "$out/results.csv"
}
[ "$(awk 'END { print NR }' "$out/results.csv")" = 5 ] || fail "expected 4 cells: $(cat "$out/results.csv")"
for r in 10M 100k; do
	for d in 1 40; do
		[ "$(cell $r $d status)" = ok ] || fail "cell $r/$d: status '$(cell $r $d status)'"
		[ "$(cell $r $d link)" = "$expect_link" ] || fail "cell $r/$d: link '$(cell $r $d link)', expected $expect_link"
		v=$(cell $r $d total_network_delay_s)
		awk -v v="$v" 'BEGIN { exit !(v ~ /^[0-9]+(\.[0-9]+)?$/ && v > 0) }' ||
			fail "cell $r/$d: total network delay '$v'"
		eval "tnd_$r$d=\$v"
		t=$out/$(cell $r $d trace)
		[ -s "$t" ] || fail "cell $r/$d: no trace '$t'"
		# The trace opens in xcapanalyse and holds the X connection.
		xcapanalyse --connections --format csv "$t" >"$workdir/conn.csv" 2>"$workdir/err" ||
			fail "xcapanalyse cannot read $t: $(cat "$workdir/err")"
		grep -q ":60$display," "$workdir/conn.csv" ||
			fail "cell $r/$d: no connection to port 60$display in $t: $(cat "$workdir/conn.csv")"
	done
done

# grows LESS MORE WHY [MARGIN]: LESS + MARGIN < MORE
grows() {
	awk -v a="$1" -v b="$2" -v m="${4:-0}" 'BEGIN { exit !(a + m < b) }' ||
		fail "total network delay does not grow $3: $1 s then $2 s${4:+ (by at least $4 s)}"
}
grows "$tnd_10M1" "$tnd_10M40" "with latency at 10M" 0.078
grows "$tnd_100k1" "$tnd_100k40" "with latency at 100k" 0.078
grows "$tnd_10M1" "$tnd_100k1" "with falling bandwidth at 1 ms"
grows "$tnd_10M40" "$tnd_100k40" "with falling bandwidth at 40 ms"

# Relative to the fastest, shortest cell, as 10M / 0.1 ms is not swept.
grep -q '^# relative: total network delay over that of the 10M / 1 ms cell' "$out/results.txt" ||
	fail "results.txt names no 10M / 1 ms baseline: $(head -n 3 "$out/results.txt")"
for r in 10M 100k; do
	for d in 1 40; do
		eval "v=\$tnd_$r$d"
		awk -v rel="$(cell $r $d relative)" -v v="$v" -v b="$tnd_10M1" \
			'BEGIN { e = v / b; d = rel - e; if (d < 0) d = -d; exit !(d <= 0.005 + 0.001 * e) }' ||
			fail "cell $r/$d: relative $(cell $r $d relative), but $v s over $tnd_10M1 s"
	done
done

# And in netplot's headless export, once netplot is built.
if command -v netplot >/dev/null 2>&1 && netplot --help 2>&1 | grep -q -- --export; then
	netplot "$out/$(cell 100k 40 trace)" --export "$workdir/cell.svg" 2>"$workdir/err" ||
		fail "netplot cannot export $(cell 100k 40 trace): $(cat "$workdir/err")"
	grep -q '<svg' "$workdir/cell.svg" || fail "netplot's export is no SVG"
	say "the 100k/40 ms trace exports from netplot"
else
	say "netplot (with --export) not built: traces not checked in it"
fi

# ---- SIGINT in the middle of a cell ----

# The sweep is started with SIGINT at its default (a background job of a
# script would otherwise ignore it), and interrupted while its client runs.
out2=$workdir/interrupted
env --default-signal=INT xcap-sweep -q -o "$out2" --rates 10M --delays 1 'sleep 60' \
	>/dev/null 2>"$workdir/int.err" &
sweep=$!
pids="$pids $sweep"
wait_for test -e "$out2/r10M-d1-1.log" || fail "the interrupted sweep never started its client: $(cat "$workdir/int.err")"
xvfb=$(ip netns pids "xsw${sweep}s" 2>/dev/null | head -n 1)
lockd=
for f in /tmp/.X4[89]-lock /tmp/.X5[0-9]-lock /tmp/.X6[0-3]-lock; do
	[ -f "$f" ] && [ "$(tr -d ' \n' <"$f")" = "$xvfb" ] && lockd=$(echo "$f" | sed 's/.*X\([0-9]*\)-lock/\1/')
done
[ -n "$xvfb" ] && [ -n "$lockd" ] || fail "cannot find the interrupted sweep's Xvfb"
kill -INT $sweep
i=0
while kill -0 $sweep 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 $sweep 2>/dev/null && fail "the sweep still runs 10 s after SIGINT"
wait $sweep
st=$?
pids=
[ $st = 130 ] || fail "after SIGINT the sweep exited $st, not 130: $(cat "$workdir/int.err")"
grep -q "^xcap-sweep: interrupted" "$workdir/int.err" || fail "no word of the interruption: $(cat "$workdir/int.err")"
leftovers "$sweep" "after SIGINT" "$lockd" "$xvfb"
say "SIGINT: exit 130 in $((i / 10)).$((i % 10)) s, namespaces, Xvfb :$lockd and its lock gone"

# ---- the progress meter ----

# On a terminal, one line per run ("run 2 of 2 (raw 10M 2ms), ..."), erased
# at the end; in a pipe, the messages only, no meter.
if command -v script >/dev/null; then
	script -qfec "xcap-sweep -o '$workdir/tty' --rates 10M --delays 1,2 xdpyinfo >/dev/null" /dev/null \
		</dev/null >"$workdir/tty.raw" 2>&1 || fail "the sweep on a terminal failed: $(tail -3 "$workdir/tty.raw")"
	tr '\r' '\n' <"$workdir/tty.raw" >"$workdir/tty.txt"
	for n in 1 2; do
		grep -aq "^xcap-sweep: run $n of 2 (raw 10M ${n}ms), [0-9]*:[0-9][0-9] so far" "$workdir/tty.txt" ||
			fail "no meter for run $n of 2 on the terminal: $(head -c 400 "$workdir/tty.txt")"
	done
	grep -aq "^xcap-sweep: run 2 of 2 .*, about [0-9]*:[0-9][0-9] left" "$workdir/tty.txt" ||
		fail "the meter of the second run says nothing of the time left"
	! grep -a "xcap-sweep: run [0-9]* of" "$workdir/tty.txt" | grep -avq "$(printf '\033')\[K\$" ||
		fail "a meter line is not erased to its end"
	say "the meter on a terminal: $(grep -ac 'xcap-sweep: run [0-9]* of' "$workdir/tty.txt") lines"
fi
{ xcap-sweep -o "$workdir/pipe" --rates 10M --delays 1 xdpyinfo 2>&1 >/dev/null; echo "status $?"; } |
	cat >"$workdir/pipe.err"
grep -q "^status 0" "$workdir/pipe.err" || fail "the sweep with stderr in a pipe failed: $(cat "$workdir/pipe.err")"
grep -q "^xcap-sweep: .* run 1: " "$workdir/pipe.err" || fail "no message of the run in a pipe: $(cat "$workdir/pipe.err")"
! grep -q "run 1 of 1\|$(printf '\033')" "$workdir/pipe.err" || fail "a meter in a pipe: $(cat "$workdir/pipe.err")"
exit 0
