#!/bin/sh
# run-wayland.sh — xcap-run --wayland: real Wayland clients on weston 10
# (headless) through the relay on the Wayland socket, each run twice, once
# straight on the compositor and once relayed, with WAYLAND_DEBUG=1:
#
#  - the two logs carry the same messages (names, object ids, arguments;
#    the compositor's serials and clocks and descriptor numbers masked,
#    tests/wayland-logs.py): the relay changes nothing the client sees;
#  - the relayed run's trace has every message of that run's own log
#    (tests/wayland-logs.py --trace): the relay recorded all of it;
#  - shared-memory clients draw: the commits of wl_shm buffers, the bytes
#    their damage made the compositor read and the requests that carried
#    descriptors, worked out from the client's own log
#    (tests/wayland-shm.py), are those the trace's notes say, and the
#    compositor answered them (buffer releases, frame callbacks);
#  - the application saw only the relay's socket (no DISPLAY), and the
#    relay's private folder is gone after it.
#
# Differences the comparison of the two runs allows, each for a reason:
# - none in the start-up, up to the client's first frame, but for the
#   number of round trips (wl_display.sync): Qt waits for what it needs
#   there (the outputs' modes, a configure) with a round trip when it has
#   not arrived yet, which depends on what the compositor sent by then;
# - after it, in drawing frames only (attach, damage, commit, frame
#   callbacks, buffers made and released): how many frames a client draws
#   before its timeout, and when its timers (a cursor's blink) redraw,
#   differ between any two runs.
# And between the relayed run's log and its trace (wayland-logs.py
# --trace): the requests in the same order; the events as a multiset, the
# log's all in the trace: a client dispatches the events of its several
# queues in its own order (Qt), libwayland drops those of objects without
# a listener (weston-terminal's wl_shm.format), and a client stopped by
# its timeout never read the last ones.
# foot finds no seat on weston's headless backend and says goodbye after
# its first round trips: it is kept for the messages it exchanges.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need weston xcap-run xcapanalyse /usr/bin/python3 pkg-config
lib="$top_builddir/xcap/libxcapwait.so"
[ -r "$lib" ] || skip "the call-site library is not built: $lib"
XCAP_WAIT_LIB=$lib XCAP_BINDIR=$top_builddir/xcapanalyse
export XCAP_WAIT_LIB XCAP_BINDIR
# weston 10 runs as root here; the clients run as whoever runs the test
mkdir -m 0700 "$workdir/comp"
XDG_RUNTIME_DIR=$workdir/comp weston --backend=headless-backend.so --socket=wl-xcap \
	--idle-time=0 >"$workdir/weston.log" 2>&1 &
pids="$pids $!"
wait_for test -S "$workdir/comp/wl-xcap" || fail "weston did not start: $(tail -3 "$workdir/weston.log")"
XDG_RUNTIME_DIR=$workdir/comp WAYLAND_DISPLAY=wl-xcap NO_AT_BRIDGE=1 GTK_A11Y=none \
	GDK_BACKEND=wayland QT_QPA_PLATFORM=wayland
export XDG_RUNTIME_DIR WAYLAND_DISPLAY NO_AT_BRIDGE GTK_A11Y GDK_BACKEND QT_QPA_PLATFORM
unset DISPLAY

# client NAME SECONDS CMD...: the client straight, then through the relay
client() {
	c=$1 secs=$2; shift 2
	WAYLAND_DEBUG=1 timeout "$secs" "$@" >"$workdir/$c.direct.out" 2>"$workdir/$c.direct.debug"
	# the client's stderr (its log) apart from xcap-run's
	XCAP_TEST_LOG="$workdir/$c.relay.debug" xcap-run --wayland -q -w "$workdir/$c.xcap" -- sh -c \
		'env | grep -q "^DISPLAY=" && echo "DISPLAY is set" >&2
		 WAYLAND_DEBUG=1 exec timeout "$0" "$@" 2>"$XCAP_TEST_LOG"' "$secs" "$@" \
		>"$workdir/$c.run.out" 2>"$workdir/$c.run.err"
	xcapanalyse --dump "$workdir/$c.xcap" >"$workdir/$c.dump" || fail "$c: cannot dump the trace"
	grep -q '^\[.*\] *-> wl_display@1.get_registry' "$workdir/$c.relay.debug" ||
		fail "$c: no WAYLAND_DEBUG log through the relay: $(head -3 "$workdir/$c.relay.debug") $(cat "$workdir/$c.run.err")"

	check_begin "$c: the same messages straight and through the relay"
	/usr/bin/python3 "$top_srcdir/tests/wayland-logs.py" "$workdir/$c.direct.debug" \
		"$workdir/$c.relay.debug" >"$workdir/$c.logs" || fail "$c: $(cat "$workdir/$c.logs")"
	say "$c: $(head -1 "$workdir/$c.logs")"
	check_end

	check_begin "$c: the trace has every message of the relayed run's own log"
	/usr/bin/python3 "$top_srcdir/tests/wayland-logs.py" --trace "$workdir/$c.relay.debug" \
		"$workdir/$c.dump" >"$workdir/$c.cmp" || fail "$c: $(cat "$workdir/$c.cmp")"
	say "$c: $(head -1 "$workdir/$c.cmp")"
	check_end

	check_begin "$c: shm commits, their bytes and the descriptors counted from its log"
	/usr/bin/python3 "$top_srcdir/tests/wayland-shm.py" "$workdir/$c.relay.debug" \
		"$workdir/$c.dump" >"$workdir/$c.shm" || fail "$c: $(cat "$workdir/$c.shm")"
	say "$c: $(cat "$workdir/$c.shm")"
	check_end

	check "$c: the application saw no X display" test ! -s "$workdir/$c.run.err"
}

client shm 3 weston-simple-shm
client terminal 4 weston-terminal
command -v foot >/dev/null && client foot 4 foot
# the timeout inside dbus-run-session, which leaves its child running when
# it is stopped itself
command -v gtk3-demo >/dev/null && client gtk3demo 15 dbus-run-session -- timeout 8 gtk3-demo
command -v gtk4-demo >/dev/null && client gtk4demo 15 dbus-run-session -- timeout 8 gtk4-demo
if command -v qterminal >/dev/null && ls /usr/lib/*/qt5/plugins/platforms/libqwayland-generic.so >/dev/null 2>&1; then
	client qterminal 15 dbus-run-session -- timeout 6 qterminal
else
	say "qterminal skipped: Qt's Wayland plugin (qtwayland5) is not installed"
fi

# The comparison's allowance for a toolkit's round trips in its start-up,
# on weston-terminal's own log: one more round trip in it is allowed, one
# more round trip with another request beside it is not.
check_begin "the comparison allows a round trip more in the start-up, and nothing else"
trip='[0.000]  -> wl_display@1.sync(new id wl_callback@999)
[0.000] wl_display@1.delete_id(999)
[0.000] wl_callback@999.done(1)'
{ head -2 "$workdir/terminal.direct.debug"; echo "$trip"; tail -n +3 "$workdir/terminal.direct.debug"; } \
	>"$workdir/trip.debug"
/usr/bin/python3 "$top_srcdir/tests/wayland-logs.py" "$workdir/trip.debug" "$workdir/terminal.direct.debug" \
	>"$workdir/trip.logs" || fail "a round trip more is not allowed: $(cat "$workdir/trip.logs")"
{ head -2 "$workdir/terminal.direct.debug"; echo "$trip"
  echo '[0.000]  -> wl_display@1.get_registry(new id wl_registry@998)'; tail -n +3 "$workdir/terminal.direct.debug"; } \
	>"$workdir/trip2.debug"
/usr/bin/python3 "$top_srcdir/tests/wayland-logs.py" "$workdir/trip2.debug" "$workdir/terminal.direct.debug" \
	>"$workdir/trip2.logs" && fail "a request more beside a round trip is allowed: $(cat "$workdir/trip2.logs")"
check_end

check_begin "a descriptor-carrying request is named in the trace with what it carried"
grep -q 'text="fds 1: wl_shm@[0-9]*\.create_pool(new id wl_shm_pool@[0-9]*, fd, 250000): memfd 250000 bytes"' \
	"$workdir/shm.dump" || fail "no create_pool note: $(grep '^note' "$workdir/shm.dump" | head -3)"
check_end
check_begin "weston-simple-shm's frames: its 210x210 damage of a 250x250 buffer, 176400 bytes each"
grep -q 'text="shm read 176400 of 250000 bytes: wl_surface@[0-9]*\.commit wl_buffer@[0-9]* 250x250 stride 1000 format 1' \
	"$workdir/shm.dump" || fail "no 176400-byte commit: $(grep 'shm read' "$workdir/shm.dump" | head -3)"
check_end
# Call sites: a client of the test's own, built with -g, whose round trips
# are each on a line marked "SITE what" (tests/wl-sites-client.c).
src=$top_srcdir/tests/wl-sites-client.c
if cc -g -O0 -o "$workdir/wl-sites-client" "$src" $(pkg-config --cflags --libs wayland-client) \
	2>"$workdir/cc.err"; then
	xcap-run --wayland -q -w "$workdir/sites.xcap" -- "$workdir/wl-sites-client" >/dev/null 2>&1 ||
		fail "the test's client failed through the relay"
	# Markdown: the text tables cut long sites
	xcapanalyse --sites --rtt 50 --format markdown "$workdir/sites.xcap" >"$workdir/sites.txt" 2>&1 ||
		fail "--sites failed: $(cat "$workdir/sites.txt")"
	line() { grep -n "SITE $1 \*/" "$src" | sed 's/:.*//'; }
	check_begin "every round trip of the test's client is joined to its stack, named by file and line"
	for what in registry again bound registry2 surface; do
		grep -q "^| wl-sites-client+0x[0-9a-f]* (wl-sites-client.c:$(line "$what")) " "$workdir/sites.txt" ||
			fail "no site at wl-sites-client.c:$(line "$what") ($what): $(cat "$workdir/sites.txt")"
	done
	grep -q 'without a stack' "$workdir/sites.txt" && fail "a round trip without a stack: $(tail -2 "$workdir/sites.txt")"
	check_end
	check_begin "its avoidable round trips: the repeat, the registry again, a sync per surface (twice)"
	avoid=$(sed -n '/Avoidable/,/round trips at/p' "$workdir/sites.txt")
	echo "$avoid" | grep -q "wl-sites-client.c:$(line again)).*nothing asked since round trip" ||
		fail "no repeat at line $(line again): $avoid"
	echo "$avoid" | grep -q "wl-sites-client.c:$(line registry2)).*registry fetched again" ||
		fail "no registry again at line $(line registry2): $avoid"
	[ "$(echo "$avoid" | grep -c "wl-sites-client.c:$(line surface)).*a sync per surface")" = 2 ] ||
		fail "not two syncs per surface at line $(line surface): $avoid"
	[ "$(echo "$avoid" | grep -c 'wl-sites-client.c')" = 4 ] || fail "not 4 avoidable: $avoid"
	check_end
	check "their cost at 50 ms: 4 avoidable round trips, 0.2 s" \
		grep -q 'At 50 ms of round-trip time these round trips would add 0.4 s, the avoidable ones 0.200 s' \
		"$workdir/sites.txt"
	say "$(tail -1 "$workdir/sites.txt")"
	# The same client waiting in a loop of its own (prepare_read, poll,
	# read_events, dispatch_pending): the sync's stack is taken where it
	# was made; a poll with nothing asked before it writes nothing.
	check_begin "a sync waited for in the client's own loop: its stack, where it was made"
	xcap-run --wayland -q -w "$workdir/loop.xcap" -- "$workdir/wl-sites-client" --loop >/dev/null 2>&1 ||
		fail "the test's client failed through the relay (--loop)"
	xcapanalyse --sites --format markdown "$workdir/loop.xcap" >"$workdir/loop.txt" 2>&1 ||
		fail "--sites failed: $(cat "$workdir/loop.txt")"
	grep -q "(wl-sites-client.c:$(line loop)) *|  *1 |" "$workdir/loop.txt" ||
		fail "no site via wl-sites-client.c:$(line loop): $(cat "$workdir/loop.txt")"
	grep -q 'without a stack' "$workdir/loop.txt" && fail "a round trip without a stack: $(tail -2 "$workdir/loop.txt")"
	[ "$(grep -c '^\(wait\|ask\) ' "$workdir/loop.xcap.sites")" = 1 ] ||
		fail "not one stack (the poll with nothing asked has none): $(grep -v '^module' "$workdir/loop.xcap.sites")"
	check_end
else
	check_skip "the test's client's call sites" "cannot build it: $(head -2 "$workdir/cc.err")"
fi
# gtk4-demo's start-up: its round trips by call site (GTK's and Mesa's
# functions, without line numbers: their debug info is not installed)
if command -v gtk4-demo >/dev/null; then
	# (The first xdg_surface.configure, answering the first commit, is a
	# round trip too; GTK 4 waits for it in its own main loop, which reads
	# the socket through wl_display_read_events, not in a blocking call
	# of libwayland's: its stack is the commit's, where GTK made it.)
	check_begin "gtk4-demo's start-up: every round trip joined to a stack in GTK or Mesa"
	xcap-run --wayland -q -w "$workdir/gtk4sites.xcap" -- dbus-run-session -- timeout 6 gtk4-demo \
		>/dev/null 2>&1
	xcapanalyse --sites --rtt 50 "$workdir/gtk4sites.xcap" >"$workdir/gtk4sites.txt" 2>&1 ||
		fail "--sites failed: $(cat "$workdir/gtk4sites.txt")"
	grep -q '^libgtk-4\.so' "$workdir/gtk4sites.txt" || fail "no site in GTK: $(cat "$workdir/gtk4sites.txt")"
	xcapanalyse --round-trips --format csv "$workdir/gtk4sites.xcap" >"$workdir/gtk4trips.csv" ||
		fail "--round-trips failed"
	nostack=$(awk -F, 'NR > 1 && $12 == ""' "$workdir/gtk4trips.csv")
	[ -z "$nostack" ] || fail "a round trip without a stack: $nostack"
	grep -q ',wl_surface,commit,reply,.*,libgtk-4\.so' "$workdir/gtk4trips.csv" ||
		fail "the first configure's round trip not in GTK: $(grep commit "$workdir/gtk4trips.csv")"
	sed -n '/^Avoidable/,$p' "$workdir/gtk4sites.txt" | cut -c1-160 | while read -r l; do say "gtk4-demo: $l"; done
	check_end
fi
# qterminal's start-up: Qt's own syncs (a round trip its registry
# listener makes inside another's) and its first configure have stacks.
if command -v qterminal >/dev/null && ls /usr/lib/*/qt5/plugins/platforms/libqwayland-generic.so >/dev/null 2>&1; then
	check_begin "qterminal's start-up: every round trip joined to a stack in Qt or Mesa"
	QT_QPA_PLATFORM=wayland xcap-run --wayland -q -w "$workdir/qtsites.xcap" -- \
		dbus-run-session -- timeout 6 qterminal >/dev/null 2>&1
	xcapanalyse --round-trips --format csv "$workdir/qtsites.xcap" >"$workdir/qttrips.csv" ||
		fail "--round-trips failed"
	nostack=$(awk -F, 'NR > 1 && $12 == ""' "$workdir/qttrips.csv")
	[ -z "$nostack" ] || fail "a round trip without a stack: $nostack"
	grep -q ',wl_display,sync,reply,.*,libQt5WaylandClient' "$workdir/qttrips.csv" ||
		fail "no sync of Qt's own: $(cat "$workdir/qttrips.csv")"
	check_end
fi
# waypipe's buffer transfers, as the relay's notes predict them (the
# BUFFER_DIFF each commit would take: wlaccount.c), against a real waypipe
# 0.8 carrying weston-simple-shm over TCP, captured.  The two sessions'
# frames differ (through waypipe the compositor releases buffers later,
# and simple-shm then draws into its other buffer, further from what the
# other side holds), so the messages are compared by kind: the first
# (the new buffer whole) and a whole frame's (its 210x210 damage) must be
# the same bytes; the partial frames are said.
if have root && command -v waypipe >/dev/null && command -v socat >/dev/null; then
	mkdir -m 0700 "$workdir/wpapp"
	port=$((7400 + $$ % 500))
	waypipe --socket "$workdir/wpc.sock" client >"$workdir/wpc.log" 2>&1 &
	pids="$pids $!"
	wait_for test -S "$workdir/wpc.sock" || fail "waypipe client did not start"
	socat TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr UNIX-CONNECT:"$workdir/wpc.sock" &
	pids="$pids $!"
	socat UNIX-LISTEN:"$workdir/wps.sock" TCP:127.0.0.1:$port &
	pids="$pids $!"
	wait_for test -S "$workdir/wps.sock" || fail "socat did not listen"
	start_capture cap_wp xcap -i lo -B 65536 -w "$workdir/wp.xcap" tcp port $port
	XDG_RUNTIME_DIR=$workdir/wpapp timeout 3 waypipe --socket "$workdir/wps.sock" server -- \
		weston-simple-shm >/dev/null 2>&1
	sleep 1
	stop_capture cap_wp
	xcapanalyse --dump "$workdir/wp.xcap" | sed -n 's/.*name=BUFFER_DIFF .*length=\([0-9]*\) .*/\1/p' \
		>"$workdir/wp.diffs"
	sed -n 's/.*, waypipe \([0-9]*\) bytes".*/\1/p' "$workdir/shm.dump" >"$workdir/relay.diffs"
	check_begin "waypipe's first and whole-frame buffer diffs are the bytes the relay's notes predict"
	[ -s "$workdir/wp.diffs" ] || fail "no BUFFER_DIFF in the waypipe capture"
	[ "$(head -1 "$workdir/wp.diffs")" = "$(head -1 "$workdir/relay.diffs")" ] ||
		fail "first: waypipe $(head -1 "$workdir/wp.diffs"), relay $(head -1 "$workdir/relay.diffs")"
	whole=$(sort -n "$workdir/wp.diffs" | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
	grep -qx "$whole" "$workdir/relay.diffs" || fail "waypipe's commonest $whole not among the relay's"
	say "waypipe: $(sort -n "$workdir/wp.diffs" | uniq -c | sort -rn | awk '{ printf "%s x %s; ", $1, $2 }')"
	say "relay:   $(sort -n "$workdir/relay.diffs" | uniq -c | sort -rn | awk '{ printf "%s x %s; ", $1, $2 }')"
	check_end
fi
check "the relay's private folder is removed" sh -c "! ls -d '$workdir'/comp/xcap-run-* 2>/dev/null"
say "every client's messages are the same through the relay, and recorded, but for the differences explained"
