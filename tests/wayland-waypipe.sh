#!/bin/sh
# wayland-waypipe.sh — real Wayland clients carried by waypipe over TCP,
# captured by xcap and checked against each client's own WAYLAND_DEBUG=1
# log (the oracle): every message's name, object id and arguments.
#
# The set-up waypipe documents for a TCP transport: weston 10 (headless)
# beside `waypipe client`, socat from a TCP port to its socket; on the
# application's side socat from a second socket to that port, and
# `waypipe server -- APP` on it; each side its own XDG_RUNTIME_DIR.
#
# Differences the comparison allows, each for a known reason:
# - events for an object the client gave no listener (weston-terminal's
#   wl_shm.format, gtk4-demo's wl_buffer.release) or whose proxy it
#   destroyed (gtk4-demo's wl_callback.done: wl_callback_destroy is no
#   request): libwayland 1.21 drops them without logging ("unlogged");
# - an event logged at another place than the wire's (gtk4-demo's
#   wl_surface.enter; qterminal's wl_display.delete_id, seen under load):
#   a client reading into several event queues logs each when its queue
#   is dispatched ("moved"), the display's own events as any other;
# - the last requests of a client that exits (weston-info's destroys):
#   waypipe server sends CLOSE without forwarding what it read last;
# - the last events of a client the test stops (its timeout): on the wire,
#   never read.
# Anything else fails the test.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root
need /usr/bin/python3
for p in weston waypipe socat weston-info weston-simple-shm weston-terminal; do
	command -v $p >/dev/null || skip "$p is not installed"
done

mkdir -m 0700 "$workdir/comp" "$workdir/app"
port=$((7400 + $$ % 500))
XDG_RUNTIME_DIR=$workdir/comp weston --backend=headless-backend.so --socket=wl-xcap \
	--idle-time=0 >"$workdir/weston.log" 2>&1 &
pids="$pids $!"
wait_for test -S "$workdir/comp/wl-xcap" || fail "weston did not start: $(tail -3 "$workdir/weston.log")"
XDG_RUNTIME_DIR=$workdir/comp WAYLAND_DISPLAY=wl-xcap \
	waypipe --socket "$workdir/client.sock" client >"$workdir/waypipe-client.log" 2>&1 &
pids="$pids $!"
wait_for test -S "$workdir/client.sock" || fail "waypipe client did not start"

# run NAME SECONDS CMD... (start_capture takes $name: this says $c): one client over a fresh TCP connection
run() {
	c=$1 secs=$2; shift 2
	port=$((port + 1))
	socat TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr UNIX-CONNECT:"$workdir/client.sock" &
	s1=$!
	socat UNIX-LISTEN:"$workdir/$c.sock" TCP:127.0.0.1:$port &
	s2=$!
	pids="$pids $s1 $s2"
	wait_for test -S "$workdir/$c.sock" || fail "socat did not listen"
	start_capture "cap_$c" xcap -i lo -B 65536 -w "$workdir/$c.xcap" tcp port $port
	XDG_RUNTIME_DIR=$workdir/app WAYLAND_DEBUG=1 timeout "$secs" \
		waypipe --socket "$workdir/$c.sock" server -- "$@" \
		>"$workdir/$c.out" 2>"$workdir/$c.debug"
	sleep 1
	stop_capture "cap_$c"
	kill $s1 $s2 2>/dev/null
	xcapanalyse --dump "$workdir/$c.xcap" >"$workdir/$c.dump" || fail "cannot dump $c"
	grep -q 'proto=waypipe' "$workdir/$c.dump" || fail "$c: the connection was not seen as waypipe"
	grep -q '^\[.*\] *-> wl_display@1.get_registry' "$workdir/$c.debug" ||
		fail "$c: no WAYLAND_DEBUG log: $(head -3 "$workdir/$c.debug")"
	/usr/bin/python3 "$top_srcdir/tests/wayland-oracle.py" "$workdir/$c.debug" \
		"$workdir/$c.dump" >"$workdir/$c.cmp"
	say "$c: $(head -1 "$workdir/$c.cmp")"
	# the differences the header explains, and no other
	sed 1d "$workdir/$c.cmp" | grep -v -e '^  unlogged: ' -e '^  \(wl_display \)\{0,1\}event: [0-9]* moved (' \
		-e '^  \(wl_display \)\{0,1\}event: [0-9]* at the end only in the capture' \
		-e '^  request: [0-9]* at the end only in the log ([a-z_0-9]*@[0-9]*\.destroy()' \
		>"$workdir/$c.unexplained"
	[ -s "$workdir/$c.unexplained" ] && fail "$c: $(cat "$workdir/$c.unexplained")"
	return 0
}

run info 5 weston-info
run shm 4 weston-simple-shm
run terminal 5 weston-terminal
command -v foot >/dev/null && run foot 6 foot
if command -v gtk3-demo >/dev/null; then
	GDK_BACKEND=wayland NO_AT_BRIDGE=1 run gtk3demo 8 env GDK_BACKEND=wayland NO_AT_BRIDGE=1 gtk3-demo
fi
if command -v gtk4-demo >/dev/null; then
	run gtk4demo 8 env GDK_BACKEND=wayland NO_AT_BRIDGE=1 gtk4-demo
fi
if command -v qterminal >/dev/null && [ -d /usr/lib/x86_64-linux-gnu/qt5/plugins/platforms ] &&
	ls /usr/lib/*/qt5/plugins/platforms/libqwayland-generic.so >/dev/null 2>&1; then
	run qterminal 8 env QT_QPA_PLATFORM=wayland qterminal
fi
# a round trip is paired: wl_display.sync answered by its callback's done
grep -q 'kind=reply .*name=done ext=wl_callback' "$workdir/info.dump" || fail "no round trip paired"
grep -q 'name=BUFFER_FILL\|name=BUFFER_DIFF' "$workdir/shm.dump" || fail "no buffer transfer seen"
say "every client's messages are the ones its WAYLAND_DEBUG log shows, but for the differences explained"
