#!/bin/sh
# wayland-photon.sh — the compositor's own input to photon on real
# traffic: a client of the test's own (tests/wl-photon.c) that redraws on
# every key and asks presentation feedback for each of those frames,
# typed into through waypipe across a 30 ms link, held to the figure the
# client itself takes from the same events.
#
# The compositor is sway 1.7, as a user this test creates (it refuses
# root), and wtype types through its virtual keyboard.  Headless, sway
# (wlroots 0.15) never presents: its headless output reports each frame
# as not presented and every feedback ends discarded.  So sway runs
# nested (WLR_BACKENDS=wayland) in weston's headless backend, and its
# presentation comes from weston's (clock_id 4, CLOCK_MONOTONIC_RAW).
# wtype gives its keys time 0, and sway passes a virtual keyboard's time
# through: the first two keys go as wtype types them (no compositor
# figure), the next four with tests/wl-keytime.c preloaded, which stamps
# each key, as an input device would, in the presentation clock.
# wlroots offers no zwp_input_timestamps_manager_v1: the times are the
# event's ms.
#  - every key the client read is an input of --input-to-photon, the
#    same in number and order, each answered by a presented frame;
#  - every one of them with a time has the compositor's figure, equal to
#    the client's own within 2 ms (waypipe carries presented times in
#    CLOCK_REALTIME and the view brings them back by an offset estimated
#    from the wire, xcap/response_model.c: its error is up to 1 ms from
#    the event's whole-ms time, plus the difference of the shortest
#    paths of two kinds of event to the capture; 0.1 to 1.1 ms seen).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root ip xcap-link xcap xcapanalyse waypipe socat weston sway wtype setpriv useradd cc wayland-scanner \
	pkg-config:wayland-client pkg-config:wayland-protocols /usr/bin/python3
measures_physics
need tun
. "$top_srcdir/tests/netns.sh"
want_realtime

pd=$(pkg-config --variable=pkgdatadir wayland-protocols)
for x in stable/xdg-shell/xdg-shell stable/presentation-time/presentation-time \
	unstable/input-timestamps/input-timestamps-unstable-v1; do
	b=$(basename "$x")
	wayland-scanner client-header "$pd/$x.xml" "$workdir/$b-client-protocol.h" &&
		wayland-scanner private-code "$pd/$x.xml" "$workdir/$b.c" ||
		skip "wayland-scanner cannot read $pd/$x.xml"
done
# shellcheck disable=SC2046
cc -O2 -I"$workdir" -o "$workdir/wl-photon" "$top_srcdir/tests/wl-photon.c" "$workdir/xdg-shell.c" \
	"$workdir/presentation-time.c" "$workdir/input-timestamps-unstable-v1.c" \
	$(pkg-config --cflags --libs wayland-client) 2>"$workdir/cc.err" ||
	fail "cannot build wl-photon: $(cat "$workdir/cc.err")"
# shellcheck disable=SC2046
cc -shared -fPIC -o "$workdir/wl-keytime.so" "$top_srcdir/tests/wl-keytime.c" \
	$(pkg-config --cflags --libs wayland-client) -ldl 2>"$workdir/cc.err" ||
	fail "cannot build wl-keytime.so: $(cat "$workdir/cc.err")"

sway_user 'output WL-1 mode 640x480'
chmod 644 "$workdir/wl-keytime.so"
port=$((7500 + $$ % 90))

make_link wp 100M 100M 30
as_sway_user weston --backend=headless-backend.so --socket=wl-base --idle-time=0 >"$workdir/weston.log" 2>&1 &
pids="$pids $!"
wait_for test -S "$workdir/sway/wl-base" || fail "weston did not start: $(tail -3 "$workdir/weston.log")"
as_sway_user WAYLAND_DISPLAY=wl-base WLR_BACKENDS=wayland WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman \
	sway -c "$workdir/sway.conf" >"$workdir/sway.log" 2>&1 &
pids="$pids $!"
wait_for test -S "$workdir/sway/wayland-1" || fail "sway did not start: $(tail -3 "$workdir/sway.log")"
waypipe_over_link "$port"

start_capture cap ip netns exec "$link_ns_c" xcap -i "$link_dev_c" -w "$workdir/photon.xcap" tcp port $port
sleep 0.5	# see wayland-physics.sh: a capture on a new link's device
XDG_RUNTIME_DIR=$workdir/app WAYLAND_DEBUG=1 $rt ip netns exec "$link_ns_c" timeout 12 \
	waypipe --socket "$workdir/app.sock" server -- "$workdir/wl-photon" \
	>"$workdir/client.log" 2>"$workdir/client.debug" &
tpid=$!
wait_for grep -q 'xdg_toplevel@[0-9]*\.configure' "$workdir/client.debug" || fail "wl-photon did not start"
sleep 1
# type_keys PRELOAD CLOCK KEY...: wtype, with PRELOAD (and its clock),
# each key pressed and released 300 ms apart (longer than the response's
# quiet period and the round trip)
type_keys() {
	_pre=$1 _clk=$2 _k=""
	shift 2
	for _c in "$@"; do _k="$_k -P $_c -s 300 -p $_c -s 300"; done
	# shellcheck disable=SC2086
	XDG_RUNTIME_DIR=$workdir/sway WAYLAND_DISPLAY=wayland-1 LD_PRELOAD=$_pre WLKEYTIME_CLOCK=$_clk \
		$rt wtype $_k || fail "wtype failed"
}
type_keys "" "" a b
# 4: CLOCK_MONOTONIC_RAW, weston's presentation clock (checked below)
type_keys "$workdir/wl-keytime.so" 4 c d e f
sleep 1
kill "$tpid" 2>/dev/null; wait "$tpid" 2>/dev/null
sleep 0.3
stop_capture cap
timing_done

xcapanalyse --input-to-photon --format csv "$workdir/photon.xcap" >"$workdir/photon.csv" ||
	fail "xcapanalyse --input-to-photon failed"
xcapanalyse --input-to-photon "$workdir/photon.xcap" >"$workdir/photon.txt"
say "$(head -1 "$workdir/client.log")"

check_begin "each key wl-photon read is an input, and the compositor's figure is the client's own within 2 ms"
if /usr/bin/python3 "$top_srcdir/tests/wayland-photon.py" "$workdir/client.log" "$workdir/photon.csv" \
	>"$workdir/cmp.txt" 2>&1; then
	say "$(tail -1 "$workdir/cmp.txt")"
else
	fail "$(cat "$workdir/cmp.txt")"
fi
check_end
