#!/bin/sh
# wayland-input.sh — response to input on Wayland over waypipe across a
# 30 ms link, held to the client's own WAYLAND_DEBUG=1 log.
#
# weston's headless backend has no input device, so the compositor is
# sway 1.7 headless (it refuses to run as root: it runs as a user this
# test creates, WLR_BACKENDS=headless WLR_RENDERER=pixman), beside
# `waypipe client` in the server's namespace of an xcap-link of one-way
# 30 ms; weston-terminal runs under `waypipe server` in the client's,
# with WAYLAND_DEBUG=1, and xcap captures beside it.  wtype types into it
# through sway's virtual keyboard, each press and release 300 ms apart
# (longer than the response's quiet period and the round trip).
#  - every key the client read is an input of --input-to-photon, and its
#    figure on the wire (the input to the surface's first commit with new
#    content) is within 2 ms + 5 % of the client's own (tests/wayland-input.py);
#  - the compositor's own figure is present for every input whose commit
#    asked for presentation feedback (weston-terminal asks for none, and
#    wtype gives its keys time 0: the view says so, and the model's
#    arithmetic is checked in check_responses).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root ip xcap-link xcap xcapanalyse waypipe socat sway wtype weston-terminal setpriv useradd /usr/bin/python3
measures_physics
need tun
. "$top_srcdir/tests/netns.sh"
want_realtime

sway_user 'output HEADLESS-1 mode 800x600'
port=$((7600 + $$ % 90))

make_link wi 100M 100M 30
as_sway_user WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman \
	sway -c "$workdir/sway.conf" >"$workdir/sway.log" 2>&1 &
pids="$pids $!"
wait_for test -S "$workdir/sway/wayland-1" || fail "sway did not start: $(tail -3 "$workdir/sway.log")"
waypipe_over_link "$port"

start_capture cap ip netns exec "$link_ns_c" xcap -i "$link_dev_c" -w "$workdir/type.xcap" tcp port $port
sleep 0.5	# see wayland-physics.sh: a capture on a new link's device
XDG_RUNTIME_DIR=$workdir/app WAYLAND_DEBUG=1 $rt ip netns exec "$link_ns_c" timeout 12 \
	waypipe --socket "$workdir/app.sock" server -- weston-terminal \
	>"$workdir/term.out" 2>"$workdir/term.debug" &
tpid=$!
wait_for grep -q 'xdg_toplevel@[0-9]*\.configure' "$workdir/term.debug" || fail "weston-terminal did not start"
sleep 1
keys=""
for k in a b c d e f; do keys="$keys -P $k -s 300 -p $k -s 300"; done
# shellcheck disable=SC2086
XDG_RUNTIME_DIR=$workdir/sway WAYLAND_DISPLAY=wayland-1 wtype $keys || fail "wtype failed"
sleep 1
kill "$tpid" 2>/dev/null; wait "$tpid" 2>/dev/null
sleep 0.3
stop_capture cap
timing_done

xcapanalyse --input-to-photon --format csv "$workdir/type.xcap" >"$workdir/photon.csv" ||
	fail "xcapanalyse --input-to-photon failed"
xcapanalyse --input-to-photon "$workdir/type.xcap" >"$workdir/photon.txt"

check_begin "each key weston-terminal read is an input, its commit on the wire within 2 ms + 5 % of the client's own time"
if /usr/bin/python3 "$top_srcdir/tests/wayland-input.py" "$workdir/term.debug" "$workdir/photon.csv" \
	>"$workdir/cmp.txt" 2>&1; then
	say "$(tail -1 "$workdir/cmp.txt")"
else
	fail "$(cat "$workdir/cmp.txt")"
fi
check_end
# sway sends wtype's first press before the client has the keyboard's
# focus (it gains it when wtype's virtual keyboard appears): 11 inputs.
check_begin "wtype's 12 key events: at least 11 inputs, at least 5 answered by a commit"
n=$(tail -n +2 "$workdir/photon.csv" | wc -l)
answered=$(awk -F, 'NR > 1 && $6 != ""' "$workdir/photon.csv" | wc -l)
say "$n inputs, $answered answered by a commit with new content; $(tail -1 "$workdir/photon.txt")"
[ "$n" -ge 11 ] && [ "$answered" -ge 5 ] || fail "$n inputs, $answered answered: $(cat "$workdir/photon.txt")"
check_end
check_begin "the compositor's own figure for every input whose commit asked for feedback"
awk -F, 'NR > 1 && $7 != "" && $8 == "" && $9 != "" { bad = 1 } END { exit bad }' "$workdir/photon.csv" ||
	fail "a presented input with an input time but no compositor figure: $(cat "$workdir/photon.txt")"
check_end
