#!/bin/sh
# run-sites.sh — xcap-run on a display that has only a Unix socket
# (Xvfb -nolisten tcp), the way a desktop's Xorg or Xwayland is reached:
#
#  - xterm (Xt/Xlib), gtk3-demo (GDK) and qterminal (Qt's xcb plugin) are
#    each measured by the one command, as user nobody when the test runs
#    as root (the relay, the delay and the stacks need no privilege);
#  - their round trips carry stacks, and the call sites name the toolkits'
#    own functions: GDK's gdk_x11_* helpers, Qt's QXcb* classes;
#  - each property --sites says was fetched again with no change between
#    is one by the trace's own messages (checked from --dump);
#  - for gtk3-demo and qterminal every named site is a function gdb's
#    backtrace shows when breaking in libxcb's waits of the same program;
#  - --delay 50 adds 100 ms to each round trip's wait;
#  - a display given as unix:N whose socket is only in the abstract
#    namespace and whose server wants a cookie works the same;
#  - as root (skipped without): the round trips the relay records are,
#    one by one, those a packet capture on lo sees of the same run (the
#    client reaches the relay over TCP), and for the deterministic xcb
#    tools those of a run straight to a TCP display, captured with
#    xcap -i lo.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need Xvfb xdpyinfo xcap-run xcapanalyse xwininfo
measures_physics
lib="$top_builddir/xcap/libxcapwait.so"
[ -r "$lib" ] || skip "the call-site library is not built: $lib"
XCAP_WAIT_LIB=$lib XCAP_BINDIR=$top_builddir/xcapanalyse
export XCAP_WAIT_LIB XCAP_BINDIR

# own_xvfb FIRST PREFIX LOG ARG...: an Xvfb with ARGs on a free display,
# counting up from FIRST (after 63, from 20), that becomes ours: the lock
# holds our Xvfb's pid, then xdpyinfo answers on PREFIX:N and, over TCP,
# nothing else listens on its port.  Another test's X server or xcap-run
# relay may take a number between the look at its lock and the start;
# then the next number is tried.  $xvfb_pre N runs before each start.
# Sets xn and xnpid.
own_xvfb() {
	xn=$1 _prefix=$2 _log=$3; shift 3
	_tries=0
	while [ $_tries -le 44 ]; do
		if [ ! -e "/tmp/.X$xn-lock" ]; then
			[ -z "${xvfb_pre:-}" ] || $xvfb_pre "$xn"
			Xvfb ":$xn" "$@" >"$workdir/$_log" 2>&1 &
			xnpid=$!
			if takes_display "$xnpid" "$xn" && wait_for xdpyinfo -display "$_prefix:$xn" &&
			   { [ "$_prefix" != 127.0.0.1 ] || serves_alone "$xnpid" $((6000 + xn)); }; then
				pids="$pids $xnpid"
				return 0
			fi
			kill "$xnpid" 2>/dev/null; wait "$xnpid" 2>/dev/null
		fi
		xn=$((xn + 1)); [ $xn -gt 63 ] && xn=20
		_tries=$((_tries + 1))
	done
	fail "could not start Xvfb $* on any display: $(tail -3 "$workdir/$_log")"
}

# A Unix-socket-only Xvfb on a free display.  Not -noreset: it resets
# when its last client leaves, so that the gdb run below meets a fresh
# server as each client's run did (with -noreset, gtk3-demo under gdb
# once made no glXQueryExtension round trip, which its run had made).
own_xvfb $(( ($$ % 30) + 20 )) "" xvfb.log -nolisten tcp -screen 0 1024x768x24
n=$xn n_pid=$xnpid
DISPLAY=:$n
export DISPLAY
! xdpyinfo -display "127.0.0.1:$n" >/dev/null 2>&1 || fail "Xvfb :$n listens on TCP too"

# As nobody when root: proof the mechanism needs no privilege.
as_user=
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	as_user="setpriv --reuid=nobody --regid=$(id -g nobody) --clear-groups --reset-env"
	chmod 755 "$workdir"
	mkdir "$workdir/runs" "$workdir/home"
	chown nobody "$workdir/runs" "$workdir/home"
	say "running the clients as nobody"
else
	mkdir "$workdir/runs" "$workdir/home"
	say "running the clients as $(id -un)"
fi
runs=$workdir/runs

# The relay's forwarding display is TCP on loopback, so as root the very
# run xcap-run records can also be captured with xcap -i lo: the same
# client, the same round trips, seen by packet capture.  (Comparing two
# runs instead is not exact for a GUI client: gtk3-demo, with no window
# manager, re-reads _NET_SUPPORTING_WM_CHECK once a frame while its
# start-up animates: 11 to 23 times in runs here, by the machine's load,
# while its other round trips stayed the same.)
seen_on_lo=
[ "$(id -u)" = 0 ] && seen_on_lo=yes

# measured NAME [XCAP-RUN-OPTIONS...] -- CMD...: xcap-run CMD into
# NAME.xcap; with observed=yes and seen_on_lo, its connections are
# captured on lo too, into NAME_lo.xcap.
measured() {
	_name=$1; shift
	_opts=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do _opts="$_opts $1"; shift; done
	shift
	if [ "$observed$seen_on_lo" = yesyes ]; then
		# The child names its display, then waits until the capture
		# listens before it runs the client; when the client has
		# ended it waits again, until the capture has stopped.  The
		# relay lives as long as its child, and its display number with
		# it: once the relay is gone, the next xcap-run (which counts
		# down from 63 as this one did) takes the same number, and a
		# capture still running would see that relay's client too
		# (sites-lines.sh's, 11 round trips, beside this test).
		set -- sh -c 'echo "$DISPLAY" >"$0.display"
			while [ ! -e "$0.go" ]; do sleep 0.05; done
			"$@"; rc=$?
			touch "$0.ended"
			while [ ! -e "$0.stopped" ] && [ -d "${0%/*}" ]; do sleep 0.05; done
			exit $rc' "$runs/$_name" "$@"
	fi
	# shellcheck disable=SC2086
	${measured_rt:-} $as_user env PATH="$PATH" DISPLAY="$DISPLAY" HOME="$workdir/home" NO_AT_BRIDGE=1 \
		XCAP_WAIT_LIB="$XCAP_WAIT_LIB" XCAP_BINDIR="$XCAP_BINDIR" ${XAUTHORITY:+XAUTHORITY="$XAUTHORITY"} \
		xcap-run -w "$runs/$_name.xcap" $_opts -- "$@" >"$workdir/$_name.out" 2>&1 &
	_rp=$!
	pids="$pids $_rp"	# a failure below leaves the relay waiting
	if [ "$observed$seen_on_lo" = yesyes ]; then
		wait_for test -s "$runs/$_name.display" || fail "$_name: the client never started"
		_d=$(cat "$runs/$_name.display")
		# The relay listens on 127.0.0.1 only: its traffic and no other.
		# (Once a connection of another client, answered, showed up in a
		# capture of the bare port while xterm ran: an X server on ::1
		# with the same number is not the relay.)
		start_capture "lo_$_name" xcap -i lo -w "$workdir/${_name}_lo.xcap" \
			"host 127.0.0.1 and tcp port $((6000 + ${_d##*:}))"
		touch "$runs/$_name.go"
		while [ ! -e "$runs/$_name.ended" ] && kill -0 "$_rp" 2>/dev/null; do sleep 0.1; done
		# The client's connections closed (the relay may still write
		# to one as it closes), then the capture stops, while the
		# display is still the relay's.
		wait_for port_idle $((6000 + ${_d##*:})) ||
			say "$_name: connections to :${_d##*:} still open after the client ended"
		# What once failed this test, made to happen every time: another
		# xcap-run (another test's) starting now takes another number,
		# so its client could not reach this capture.  (No X client of
		# its own: it would meet the server resetting as this client left.)
		xcap-run -q --no-stacks -w "$workdir/neighbour.xcap" -- sh -c 'echo "$DISPLAY" >"$0"' \
			"$workdir/neighbour.display" >"$workdir/neighbour.out" 2>&1 ||
			fail "the neighbouring xcap-run failed: $(tail -3 "$workdir/neighbour.out")"
		[ "$(cat "$workdir/neighbour.display")" != "$_d" ] ||
			fail "$_name: an xcap-run started as the client ended took $_d, still the relay's"
		say "$_name: an xcap-run started as the client ended took $(cat "$workdir/neighbour.display"), not $_d"
		stop_capture "lo_$_name"
		owns_display "$_rp" "${_d##*:}" ||
			fail "$_name: the capture on lo ended after the relay had left :${_d##*:}" \
				"(lock: $(tr -d ' \n' 2>/dev/null <"/tmp/.X${_d##*:}-lock"))"
		touch "$runs/$_name.stopped"
	fi
	wait "$_rp" || fail "$_name: xcap-run failed: $(tail -5 "$workdir/$_name.out")"
	[ -s "$runs/$_name.xcap" ] || fail "$_name: no trace"
	[ -s "$runs/$_name.xcap.sites" ] || fail "$_name: no call sites recorded"
	grep -q "^trace: $runs/$_name.xcap" "$workdir/$_name.out" || fail "$_name: the report's path is not printed"
	grep -q "Total network delay" "$workdir/$_name.out" || fail "$_name: no delay table printed"
	xcapanalyse --sites --format csv "$runs/$_name.xcap" >"$workdir/$_name.sites.csv" 2>/dev/null ||
		fail "$_name: xcapanalyse --sites failed"
	xcapanalyse --round-trips --format csv "$runs/$_name.xcap" >"$workdir/$_name.trips.csv" ||
		fail "$_name: xcapanalyse --round-trips failed"
	# Unsplit, for the share with a stack: a silence the model splits
	# where replies trickle in (more of them on a loaded machine) is one
	# wait of the client's, with one stack.
	xcapanalyse --round-trips --split-fraction 0 --format csv "$runs/$_name.xcap" \
		>"$workdir/$_name.trips0.csv" || fail "$_name: xcapanalyse --round-trips failed"
}

# trips FILE.csv: how many round trips; stacked: how many have a site.
trips() { tail -n +2 "$1" | wc -l; }
stacked() { tail -n +2 "$1" | awk -F, '$12 != ""' | wc -l; }

# has_sites NAME MIN PATTERN: at least MIN round trips (unsplit), 90 % of
# them with a stack, and a site matching PATTERN.
has_sites() {
	t=$(trips "$workdir/$1.trips0.csv") s=$(stacked "$workdir/$1.trips0.csv")
	[ "$t" -ge "$2" ] || fail "$1: only $t round trips"
	[ $((s * 10)) -ge $((t * 9)) ] || fail "$1: only $s of $t round trips have a stack"
	grep -q "$3" "$workdir/$1.sites.csv" ||
		fail "$1: no call site matches $3: $(head -5 "$workdir/$1.sites.csv")"
	say "$1: $t round trips, $s with a stack, sites $(grep -o "$3" "$workdir/$1.sites.csv" | sort -u | head -3 | tr '\n' ' ')"
}

clients=
observed=yes
if command -v xterm >/dev/null; then
	measured xterm -- xterm -e true
	# Xt and Xlib are folded: the site is xterm's own code or Xt's.
	has_sites xterm 5 'xterm\|libXt'
	clients="$clients xterm"
else
	say "xterm not installed: not tried"
fi
if command -v gtk3-demo >/dev/null && command -v dbus-run-session >/dev/null; then
	measured gtk -- sh -c 'timeout -s INT 8 dbus-run-session gtk3-demo 2>/dev/null; true'
	has_sites gtk 30 'libgdk-3.so.0:gdk_x11_[a-z_]*'
	# The same round trips, with their stacks, as Chrome trace events.
	xcapanalyse --trace-events "$runs/gtk.xcap" >"$workdir/gtk.json" || fail "gtk: --trace-events failed"
	/usr/bin/python3 - "$workdir/gtk.json" "$(trips "$workdir/gtk.trips.csv")" \
		"$(stacked "$workdir/gtk.trips.csv")" <<-'EOF' || fail "gtk: bad trace events"
	import json, sys
	ev = json.load(open(sys.argv[1]))["traceEvents"]
	trips = [e for e in ev if e.get("cat") == "round trip"]
	stacked = [e for e in trips if e["args"].get("stack")]
	assert len(trips) == int(sys.argv[2]), (len(trips), sys.argv[2])
	# the same waits with the same stacks as the round-trips view
	assert len(stacked) == int(sys.argv[3]), (len(stacked), sys.argv[3])
	assert all(e["dur"] >= 0 and e["ts"] > 0 for e in ev if e["ph"] == "X")
	EOF
	clients="$clients gtk"
else
	say "gtk3-demo or dbus-run-session not installed: not tried"
fi
if command -v qterminal >/dev/null && command -v dbus-run-session >/dev/null; then
	measured qt -- sh -c 'timeout -s INT 8 dbus-run-session qterminal 2>/dev/null; true'
	has_sites qt 20 'libQt5XcbQpa.so.5:QXcb[A-Za-z]*::[A-Za-z]*'
	clients="$clients qt"
else
	say "qterminal or dbus-run-session not installed: not tried"
fi
[ -n "$clients" ] || skip "no GUI client installed (xterm, gtk3-demo, qterminal)"
observed=

# ---- a property fetched again is one, by the trace's own messages ----
# Each GetProperty --sites calls fetched again is checked against the
# dump: its first fetch is the same window, property, type and offset, and
# nothing between changed it (a ChangeProperty, DeleteProperty,
# RotateProperties or delete=1 read by the client, a PropertyNotify to it).
for c in $clients; do
	xcapanalyse --sites --format json "$runs/$c.xcap" >"$workdir/$c.sites.json" 2>/dev/null ||
		fail "$c: xcapanalyse --sites --format json failed"
	xcapanalyse --dump "$runs/$c.xcap" >"$workdir/$c.dump" || fail "$c: xcapanalyse --dump failed"
	repeats=$(/usr/bin/python3 - "$workdir/$c.sites.json" "$workdir/$c.dump" <<-'EOF'
	import json, re, shlex, sys
	rows = [r for r in json.load(open(sys.argv[1]))["avoidable"]
	        if "property fetched again" in r["why"]]
	msgs = {}   # conn -> [(kind, seq, name, fields)]
	for line in open(sys.argv[2]):
	    if not line.startswith("msg "):
	        continue
	    f = dict(w.split("=", 1) for w in shlex.split(line)[1:] if "=" in w)
	    if f["kind"] not in ("request", "event"):
	        continue
	    d = dict(w.split("=", 1) for w in f.get("detail", "-").split() if "=" in w)
	    msgs.setdefault(f["conn"], []).append((f["kind"], int(f["seq"]), f["name"], d))
	def key(d):
	    return (d.get("window"), d.get("property"), d.get("type"), d.get("long_offset", "0"))
	for r in rows:
	    first = int(re.search(r"first #(\d+)", r["why"]).group(1))
	    ms = msgs[str(r["conn"])]
	    req = {m[1]: m for m in ms if m[0] == "request"}
	    a, b = req[first], req[r["seq"]]
	    assert a[2] == b[2] == "GetProperty" and key(a[3]) == key(b[3]) and a[3].get("window"), (a, b)
	    win, prop = b[3]["window"], b[3]["property"]
	    started = False
	    for kind, seq, name, d in ms:
	        if (kind, seq) == ("request", first):
	            started = True
	            continue
	        if (kind, seq) == ("request", r["seq"]):
	            break
	        if not started or d.get("window") != win:
	            continue
	        changed = (name in ("ChangeProperty", "DeleteProperty") and d.get("property") == prop or
	                   name == "RotateProperties" or
	                   name == "PropertyNotify" and d.get("atom") == prop or
	                   name == "GetProperty" and d.get("delete") and d.get("property") == prop)
	        assert not changed, ("changed between", first, r["seq"], kind, seq, name, d)
	props = sorted({re.search(r"property=(\S+)", r["why"]).group(1) for r in rows})
	print(len(rows), "(%s)" % " ".join(props)) if props else print(len(rows))
	EOF
	) || fail "$c: a property fetched again that the trace says changed between"
	say "$c: property fetched again with no change between: $repeats"
done

# ---- the named sites are frames gdb shows ----
# gdb's backtraces in every libxcb wait of the same program, run without
# the preload (its own waits are the ones broken in): every function named
# as one of its sites (C or C++, "Class::method") must be a frame there.
cat >"$workdir/gdb.cmd" <<-'EOF'
set pagination off
set breakpoint pending on
set print thread-events off
break xcb_wait_for_reply
break xcb_wait_for_reply64
break xcb_request_check
commands 1-3
silent
bt 12
continue
end
run
EOF
# gdb_sites NAME WINDOW-PATTERN PROGRAM: PROGRAM under gdb until a window
# matching WINDOW-PATTERN (xwininfo -tree) is up, then NAME's sites.
gdb_sites() {
	# The server resets as its last client leaves (it is fresh for the
	# program, as in its run), but not under the program's start-up: it
	# would drop the program connecting as one of the polls below left.
	hold_display "$n"
	# gdb follows the exec, so the shell's pid is the program's.
	NO_AT_BRIDGE=1 HOME="$workdir/home" timeout 90 dbus-run-session -- \
		gdb -batch -x "$workdir/gdb.cmd" --args \
		sh -c 'echo $$ >"$0"; exec "$1"' "$workdir/gdb-$1.pid" "$3" >"$workdir/gdb-$1.out" 2>&1 &
	gpid=$!
	i=0
	while [ $i -lt 60 ] && ! xwininfo -root -tree 2>/dev/null | grep -q "$2"; do
		sleep 1; i=$((i + 1))
	done
	sleep 2
	[ -s "$workdir/gdb-$1.pid" ] && kill -INT "$(cat "$workdir/gdb-$1.pid")" 2>/dev/null
	wait "$gpid"
	release_display
	grep -q '^#0 ' "$workdir/gdb-$1.out" ||
		fail "$1: gdb broke in no libxcb wait: $(tail -5 "$workdir/gdb-$1.out")"
	sed -n 's/^"\{0,1\}[^,:]*:\([A-Za-z_][A-Za-z0-9_:]*\)+0x.*/\1/p' "$workdir/$1.sites.csv" |
		sort -u >"$workdir/$1.named"
	[ -s "$workdir/$1.named" ] || fail "$1: no named site"
	missing=
	while read -r fn; do
		grep -q " in $fn (\| $fn (\| in $fn(" "$workdir/gdb-$1.out" || missing="$missing $fn"
	done <"$workdir/$1.named"
	[ -z "$missing" ] || fail "$1: sites gdb never showed in a wait:$missing"
	say "$1: gdb shows each of the $(wc -l <"$workdir/$1.named") functions named as its sites" \
		"($(grep -c '^#0 ' "$workdir/gdb-$1.out") waits broken in)"
}
if ! command -v gdb >/dev/null; then
	say "gdb not installed: sites not checked against gdb"
else
	case $clients in *gtk*) gdb_sites gtk '"GTK+ Code Demos"' gtk3-demo ;; esac
	case $clients in *qt*) gdb_sites qt '("qterminal" "qterminal")' qterminal ;; esac
fi

# ---- --delay 50 (--latency's older name): each round trip's wait grows
# by 100 ms; the report gives the command as --latency ----
# The relay, the client and the server at real-time priority when allowed:
# a neighbour's load (make -j2) had added 9 to 45 ms to a delayed round trip.
want_realtime
measured_rt=$rt
[ -z "$rt" ] || chrt -a -f -p 20 "$n_pid" >/dev/null
measured plain -- xwininfo -root -tree
measured slow --delay 50 --report "$runs/slow.md" -- xwininfo -root -tree
[ -z "$rt" ] || chrt -a -o -p 0 "$n_pid" >/dev/null
measured_rt=
grep -q '^## Round trips by call site' "$runs/slow.md" && grep -q 'xcap-run --latency 50 -- xwininfo' "$runs/slow.md" ||
	fail "the report page lacks its command or its call sites"
# The growth of the summed wait, against 100 ms per round trip of the
# delayed run; 5 %.  The client's waits, unsplit: a loaded machine may
# split one wait in two where its replies come in pieces, in either run
# (the parts add up to the same wait, but as two round trips they halved
# the growth per round trip: 4 in the delayed run, 77 ms each, once).  The
# connection setup is left out: Xvfb itself takes 0 to 110 ms to answer a
# setup request, run to run (seen with a raw client on its socket too).
awk -F, 'FNR == 1 || $5 == "SetupRequest" { next }
	FILENAME ~ /plain/ { a += $7 } FILENAME ~ /slow/ { b += $7; n++ }
	END { if (n < 3) { printf "xwininfo: %d round trips at 50 ms\n", n; exit 1 }
	      g = (b - a) / n; printf "xwininfo: %d round trips after setup, wait grows %.1f ms each\n", n, g * 1000
	      exit !(g > 0.095 && g < 0.105) }' \
	"$workdir/plain.trips0.csv" "$workdir/slow.trips0.csv" >"$workdir/growth" ||
	fail "$(cat "$workdir/growth") (want 100 ms within 5 %)"
say "$(cat "$workdir/growth")"

# ---- a desktop's display: unix:N, abstract socket only, a cookie ----
# As some Xwayland builds and Xorg with -nolisten unix listen: no file in
# /tmp/.X11-unix to connect to.  And as every desktop's server, it wants
# the user's MIT-MAGIC-COOKIE (XAUTHORITY), which the client must find
# under the forwarding display's number.  The same xwininfo, the same
# round trips as on :N.
auth=
xvfb_pre=
if command -v xauth >/dev/null; then
	auth=$workdir/home/Xauthority
	# cookie N: the server's cookie, under the number it is started on.
	cookie() {
		xauth -q -f "$auth" add ":$1" . "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')" 2>/dev/null ||
			fail "xauth cannot write a cookie"
		[ -z "$as_user" ] || chown nobody "$auth"
	}
	xvfb_pre=cookie
else
	say "xauth not installed: the desktop's display is tried without a cookie"
fi
export XAUTHORITY="${auth:-/dev/null}"
own_xvfb $((n + 2)) unix xvfb-abstract.log -nolisten tcp -nolisten unix -listen local -noreset \
	${auth:+-auth "$auth"} -screen 0 1024x768x24
k=$xn xvfb_pre=
[ ! -e "/tmp/.X11-unix/X$k" ] || fail "Xvfb :$k -nolisten unix made a socket file"
[ -z "$auth" ] || ! XAUTHORITY=/dev/null xdpyinfo -display "unix:$k" >/dev/null 2>&1 ||
	fail "Xvfb :$k lets a client in without the cookie"
DISPLAY=unix:$k
measured abstract -- xwininfo -root -tree
DISPLAY=:$n
unset XAUTHORITY
awk -F, 'NR > 1 { print $2, $3, $5, $6 }' "$workdir/plain.trips0.csv" >"$workdir/plain.key"
awk -F, 'NR > 1 { print $2, $3, $5, $6 }' "$workdir/abstract.trips0.csv" >"$workdir/abstract.key"
cmp -s "$workdir/plain.key" "$workdir/abstract.key" ||
	fail "xwininfo on unix:$k (abstract): not the round trips of :$n: $(diff "$workdir/plain.key" "$workdir/abstract.key" | head -5)"
say "unix:$k, abstract socket only${auth:+, cookie wanted}: xwininfo's $(wc -l <"$workdir/abstract.key")" \
	"round trips, $(stacked "$workdir/abstract.trips0.csv") with a stack, as on :$n"


# ---- the same clients over TCP, captured with xcap -i lo ----
if [ -z "$seen_on_lo" ]; then
	say "not root: the TCP capture to compare with is not taken"
	exit 0
fi
# key FILE.csv: one line a round trip: connection, sequence number,
# request, answer.
key() { awk -F, 'NR > 1 { print $2, $3, $4 ":" $5, $6 }' "$1"; }
# The GUI clients' runs above, captured on lo while xcap-run recorded
# them: the same round trips, one by one, and the waits summed.  Unsplit
# (--split-fraction 0): the replies of one silence come in pieces by the
# gaps between them, and the relay's reads and writes are not the
# kernel's segments.
for c in $clients; do
	xcapanalyse --round-trips --split-fraction 0 --format csv "$workdir/${c}_lo.xcap" \
		>"$workdir/${c}_lo.csv" || fail "$c: xcapanalyse on the lo capture failed"
	key "$workdir/${c}_lo.csv" >"$workdir/${c}_lo.key"
	key "$workdir/$c.trips0.csv" >"$workdir/$c.key"
	a=$(wc -l <"$workdir/${c}_lo.key") b=$(wc -l <"$workdir/$c.key")
	# A wait may be given to the request right before or after in the
	# other view (tests/trips-moved.py says when): at most two.
	moved=$(/usr/bin/python3 "$top_srcdir/tests/trips-moved.py" "$workdir/${c}_lo.key" "$workdir/$c.key") ||
		fail "$c: $a round trips captured on lo, $b recorded by the relay: $(diff "$workdir/${c}_lo.key" "$workdir/$c.key" | head -8)"
	[ "${moved:-0}" = 0 ] || say "$c: $moved waits given to the next or the previous request on lo:" \
		"$(diff "$workdir/${c}_lo.key" "$workdir/$c.key" | grep '^[<>]' | tr '\n' ' ')"
	say "$c: the same $a round trips captured on lo and recorded by the relay;" \
		"waits summed $(awk -F, 'NR > 1 { s += $7 } END { printf "%.3f", s }' "$workdir/${c}_lo.csv") s" \
		"and $(awk -F, 'NR > 1 { s += $7 } END { printf "%.3f", s }' "$workdir/$c.trips0.csv") s"
done

# Run directly over TCP instead of through the relay: the xcb tools are
# deterministic, the same requests and the same waits.  (A GUI client is
# not: gtk3-demo's per-frame reads above; and MIT-SHM, which the X server
# grants only to a client on its Unix socket, such as the relay, adds an
# attach and its syncs to GDK's start-up.)  One server for both, TCP and
# its Unix socket, the relay's: a server that does not reset keeps the
# atoms its earlier clients interned, which xlsatoms lists.
own_xvfb $((n + 1)) 127.0.0.1 xvfb-tcp.log -listen tcp -noreset -screen 0 1024x768x24
m=$xn
# compare NAME CMD...: CMD captured on lo over TCP and through the relay,
# the round trips compared one by one.
compare() {
	_cn=$1; shift
	start_capture "cap_$_cn" xcap -i lo -w "$workdir/${_cn}_tcp.xcap" "tcp port $((6000 + m))"
	env DISPLAY="127.0.0.1:$m" HOME="$workdir/home" "$@" >/dev/null 2>&1
	sleep 0.5
	stop_capture "cap_$_cn"
	xcapanalyse --round-trips --split-fraction 0 --format csv "$workdir/${_cn}_tcp.xcap" \
		>"$workdir/${_cn}_tcp.csv" || fail "$_cn: xcapanalyse on the lo capture failed"
	_cd=$DISPLAY
	DISPLAY=:$m
	measured "${_cn}_relay" -- "$@"
	DISPLAY=$_cd
	key "$workdir/${_cn}_tcp.csv" >"$workdir/${_cn}_tcp.key"
	key "$workdir/${_cn}_relay.trips0.csv" >"$workdir/${_cn}_relay.key"
	a=$(wc -l <"$workdir/${_cn}_tcp.key") b=$(wc -l <"$workdir/${_cn}_relay.key")
	[ "$a" -gt 0 ] || fail "$_cn: no round trip over TCP"
	cmp -s "$workdir/${_cn}_tcp.key" "$workdir/${_cn}_relay.key" ||
		fail "$_cn: $a round trips over TCP, $b through the relay: $(diff "$workdir/${_cn}_tcp.key" "$workdir/${_cn}_relay.key" | head -8)"
	say "$_cn: the same $a round trips over TCP captured on lo and through the relay"
}
compare xwininfo xwininfo -root -tree
command -v xlsatoms >/dev/null && compare xlsatoms xlsatoms
say "round trips through the relay match the TCP capture"
