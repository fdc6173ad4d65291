#!/bin/sh
# wayland-physics.sh — the state model agrees with physics on Wayland
# carried by waypipe across an emulated link.
#
# Two namespaces joined by xcap-link (one-way delay L): weston (headless)
# and `waypipe client` beside it in the server's, socat from a TCP port to
# waypipe's socket; in the client's, socat from a socket to that port and
# `waypipe server -- APP`; xcap captures beside the application.  Both
# socats set TCP_NODELAY: without it, waypipe's 8-byte ACK_NBLOCKS, sent
# just before an answer, holds the answer back until the peer's delayed
# acknowledgement (40 ms on Linux), in a third of the round trips on
# loopback — a fact of that transport, not of the link.
#  - tests/wl-trips.c makes N wl_display_roundtrip calls: Block Reply
#    within 5 % of N * 2L, and --round-trips lists N wl_display.sync;
#  - weston-simple-shm starts up over 2 x 2 cells of rate and delay: the
#    round trips it waited on, each one of the client's own blocking
#    wl_display_roundtrip calls (tests/wl-waits.c, an LD_PRELOAD
#    interposer on libwayland-client), the same in number, order and
#    length (tests/wayland-waits.py), and every delay table adds up.
# The expectations come from the configuration, never from an earlier run.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root ip xcap-link xcap xcapanalyse weston waypipe socat cc pkg-config:wayland-client /usr/bin/python3
measures_physics
need tun
. "$top_srcdir/tests/netns.sh"
want_realtime

py=/usr/bin/python3
trips=40			# N
delay_ms=20			# L, one way, for the round trips

cc -O2 -o "$workdir/wl-trips" "$top_srcdir/tests/wl-trips.c" \
	$(pkg-config --cflags --libs wayland-client) 2>"$workdir/cc.err" ||
	fail "cannot build wl-trips: $(cat "$workdir/cc.err")"
cc -shared -fPIC -o "$workdir/wl-waits.so" "$top_srcdir/tests/wl-waits.c" -ldl 2>"$workdir/cc.err" ||
	fail "cannot build wl-waits.so: $(cat "$workdir/cc.err")"

port=$((7900 + $$ % 90))

# wl_link TAG RATE DELAY_MS: the link, weston and waypipe's compositor side
# in its server namespace, the application side's socket in its client
# namespace at $workdir/TAG/app.sock.  Sets wl_pids (what wl_unlink stops).
wl_link() {
	_wl=$workdir/$1
	rm -rf "$_wl"
	mkdir -p "$_wl" && mkdir -m 0700 "$_wl/comp" "$_wl/app"
	make_link "$1" "$2" "$2" "$3"
	XDG_RUNTIME_DIR=$_wl/comp $rt ip netns exec "$link_ns_s" weston --backend=headless-backend.so \
		--socket=wl-xcap --idle-time=0 >"$_wl/weston.log" 2>&1 &
	wl_pids=$!
	wait_for test -S "$_wl/comp/wl-xcap" || fail "weston did not start: $(tail -3 "$_wl/weston.log")"
	XDG_RUNTIME_DIR=$_wl/comp WAYLAND_DISPLAY=wl-xcap $rt ip netns exec "$link_ns_s" \
		waypipe --socket "$_wl/client.sock" client >"$_wl/waypipe-client.log" 2>&1 &
	wl_pids="$wl_pids $!"
	wait_for test -S "$_wl/client.sock" || fail "waypipe client did not start"
	$rt ip netns exec "$link_ns_s" socat TCP-LISTEN:$port,bind=$link_addr_s,reuseaddr,fork,nodelay \
		UNIX-CONNECT:"$_wl/client.sock" &
	wl_pids="$wl_pids $!"
	$rt ip netns exec "$link_ns_c" socat UNIX-LISTEN:"$_wl/app.sock",fork TCP:$link_addr_s:$port,nodelay &
	wl_pids="$wl_pids $!"
	pids="$pids $wl_pids"
	wait_for test -S "$_wl/app.sock" || fail "socat did not listen"
}

wl_unlink() {
	kill $wl_pids 2>/dev/null
	wait $wl_pids 2>/dev/null
	link_down "$1" || fail "xcap-link did not end cleanly"
}

# over TAG NAME SECONDS CMD...: CMD through waypipe server, captured beside
# it into $workdir/TAG/NAME.xcap; then its delay table as CSV.
over() {
	_wl=$workdir/$1 _n=$2 _s=$3; shift 3
	start_capture "cap_$_n" ip netns exec "$link_ns_c" xcap -i "$link_dev_c" -w "$_wl/$_n.xcap" tcp port $port
	# A capture on the link's device, made a moment ago, once began 25 ms
	# after it said it was listening, without the connection's first packets.
	sleep 0.5
	XDG_RUNTIME_DIR=$_wl/app $rt ip netns exec "$link_ns_c" timeout "$_s" \
		waypipe --socket "$_wl/app.sock" server -- "$@" >"$_wl/$_n.out" 2>"$_wl/$_n.err"
	_st=$?
	sleep 0.3	# the last ACKs
	stop_capture "cap_$_n"
	xcapanalyse --format csv "$_wl/$_n.xcap" >"$_wl/$_n.csv" || fail "$_n: xcapanalyse failed"
	$py "$top_srcdir/tests/delays-check.py" "$_wl/$_n.csv" || fail "$_n: the delay table does not add up"
	xcapanalyse --round-trips --format csv "$_wl/$_n.xcap" >"$_wl/$_n.trips" ||
		fail "$_n: xcapanalyse --round-trips failed"
	return $_st
}

# ---- N round trips of a client of the test's own ----

wl_link wt 100M "$delay_ms"
check_begin "$trips wl_display_roundtrip calls over ${delay_ms} ms: Block Reply within 5 % of N * 2L"
if over wt trips 60 "$workdir/wl-trips" "$trips"; then
	expected=$(awk -v n=$trips -v l=$delay_ms 'BEGIN { printf "%.6f", n * 2 * l / 1000 }')
	measured=$($py "$top_srcdir/tests/delays-check.py" "$workdir/wt/trips.csv" all request block_reply)
	say "Block Reply $measured s, expected $expected s (the client timed $(cat "$workdir/wt/trips.out") s)"
	$py -c 'import sys; m, e = map(float, sys.argv[1:]); sys.exit(abs(m - e) > 0.05 * e)' \
		"$measured" "$expected" || fail "Block Reply $measured s is not within 5 % of $expected s"
else
	fail "wl-trips failed: $(cat "$workdir/wt/trips.err")"
fi
check_end
check_begin "--round-trips lists the $trips round trips, each a wl_display.sync"
count=$(tail -n +2 "$workdir/wt/trips.trips" | grep -c ',wl_display,sync,reply,')
all=$(tail -n +2 "$workdir/wt/trips.trips" | wc -l)
[ "$count" = "$trips" ] && [ "$all" = "$trips" ] ||
	fail "--round-trips lists $all round trips, $count of them wl_display.sync, not $trips"
check_end
wl_unlink wt

# ---- a real client's start-up at 2 x 2 cells ----

if command -v weston-simple-shm >/dev/null; then
	for rate in 100M 2M; do
		for d in 5 30; do
			tag=ws${rate}d$d
			wl_link "$tag" "$rate" "$d"
			rm -f "$workdir/$tag/shm.waits"
			check_begin "weston-simple-shm at $rate bit/s and $d ms: its round trips are its blocking wl_display_roundtrip calls"
			over "$tag" shm 3 env WLWAITS_LOG="$workdir/$tag/shm.waits" \
				LD_PRELOAD="$workdir/wl-waits.so" weston-simple-shm
			[ -s "$workdir/$tag/shm.waits" ] || fail "the interposer wrote nothing: $(cat "$workdir/$tag/shm.err")"
			xcapanalyse --dump "$workdir/$tag/shm.xcap" >"$workdir/$tag/shm.dump"
			if $py "$top_srcdir/tests/wayland-waits.py" "$workdir/$tag/shm.waits" \
				"$workdir/$tag/shm.dump" "$workdir/$tag/shm.trips" "$workdir/$tag/shm.csv" \
				"$(awk -v d=$d 'BEGIN { print d / 1000 }')" >"$workdir/$tag/shm.cmp" 2>&1; then
				say "$rate, $d ms: $(tail -1 "$workdir/$tag/shm.cmp")"
			else
				fail "$(cat "$workdir/$tag/shm.cmp")"
			fi
			check_end
			claim="weston-simple-shm at $rate bit/s and $d ms: --frames' FPS within 5 % of the client's own frame rate"
			client_fps=$(tail -1 "$workdir/$tag/shm.cmp" | sed -n 's/.*, \([0-9.]*\) a second$/\1/p')
			client_frames=$(tail -1 "$workdir/$tag/shm.cmp" | sed -n 's/.*; \([0-9]*\) waits in dispatch.*/\1/p')
			xcapanalyse --frames --format csv "$workdir/$tag/shm.xcap" >"$workdir/$tag/shm.frames" ||
				fail "xcapanalyse --frames failed"
			wire=$(awk -F, 'NR == 2 { print $4 " fps, " $3 " frames, period " $5 " s (" $6 "), " $8 " late, " $9 " missed, " $10 " idle, wait " $11 " s" }' "$workdir/$tag/shm.frames")
			say "$rate, $d ms: --frames $wire; the client $client_fps fps"
			wire_fps=${wire%% *}
			if [ "${client_frames:-0}" -ge 5 ]; then
				check_begin "$claim"
				$py -c 'import sys; m, e = map(float, sys.argv[1:]); sys.exit(abs(m - e) > 0.05 * e)' \
					"$wire_fps" "$client_fps" || fail "--frames' FPS $wire_fps, the client's $client_fps"
				check_end
			else
				check_skip "$claim" "the client drew ${client_frames:-no} frames: too few for a rate"
			fi
			wl_unlink "$tag"
		done
	done
else
	check_skip "a real client's start-up" "weston-simple-shm is not installed"
fi
