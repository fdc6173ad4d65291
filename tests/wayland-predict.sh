#!/bin/sh
# wayland-predict.sh — xcapanalyse --predict --waypipe on a local trace of
# xcap-run --wayland against real waypipe 0.8 runs of the same client over
# xcap-link, at 2 x 2 cells (10 and 2 Mbit/s by 5 and 25 ms one way).
#
# The client is the tests' own tests/wl-frame-client (it ends by itself
# after four round trips and two shm commits: its whole 400x300 buffer,
# then a 100x100 square of it), its pixels made, so that every run sends
# the same bytes.  Locally it runs through the relay on weston headless;
# across the link, `waypipe server -- wl-frame-client` in the client's
# namespace, socat to TCP, and in the server's namespace socat to
# `waypipe client` beside the same weston, the TCP connection captured on
# the client's side of the link.  Per cell, the prediction's span (first
# to last packet) and total network delay against the capture's: within 15 %, or
# the figures printed and the claim failed.
#
# What the model leaves out shows as a difference that grows with the
# round trips: waypipe's own time to pass each message on (both ends),
# its acknowledgements, and its connection set-up before the client's
# first message (the token).  That time is this machine's, not the
# link's, and it grows with the machine's load (-4 to -15 % quiet, -20 to
# -30 % beside a loaded make check), so it is measured as ssh's forwarding
# time is (tests/predict-ssh.sh): a cell on a link that costs next to
# nothing (1 Gbit/s, 0.1 ms), where whatever the capture shows beyond the
# prediction is waypipe's own.  Each cell's claim adds that time to the
# prediction; the bare prediction is printed beside it.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/netns.sh"
need root tun netns weston waypipe socat xcap-link xcap-run cc pkg-config
measures_physics
mkdir -m 0700 "$workdir/comp" "$workdir/app"
cc -O2 -o "$workdir/wl-frame-client" "$top_srcdir/tests/wl-frame-client.c" \
	$(pkg-config --cflags --libs wayland-client) 2>"$workdir/cc.err" ||
	skip "cannot build the client: $(head -2 "$workdir/cc.err")"
XDG_RUNTIME_DIR=$workdir/comp weston --backend=headless-backend.so --socket=wl-xcap \
	--idle-time=0 >"$workdir/weston.log" 2>&1 &
pids="$pids $!"
wait_for test -S "$workdir/comp/wl-xcap" || fail "weston did not start: $(tail -3 "$workdir/weston.log")"

# The local trace, through the relay.
XDG_RUNTIME_DIR=$workdir/comp WAYLAND_DISPLAY=wl-xcap \
	xcap-run --wayland -q --no-stacks -w "$workdir/local.xcap" -- "$workdir/wl-frame-client" \
	>"$workdir/local.out" 2>&1 || fail "the client failed through the relay: $(cat "$workdir/local.out")"
grep -q 'waypipe 480024 bytes' "$workdir/local.xcap" 2>/dev/null ||
	xcapanalyse --dump "$workdir/local.xcap" | grep -q 'waypipe 480024 bytes' ||
	fail "no waypipe size for the whole buffer in the local trace"

port=$((7300 + $$ % 400)) ncell=0
# cell RATE DELAY_MS: a real waypipe run across the link, and its prediction
cell() {
	rate=$1 delay=$2 name=wp$ncell$$
	ncell=$((ncell + 1))
	# a queue that holds the whole buffer: the model has no drops
	make_link "$name" "$rate" "$rate" "$delay" 2000000
	port=$((port + 1))
	# the compositor's side, in the server's namespace (a Unix socket's
	# path is reached from any network namespace)
	# (ip netns exec, not in_ns, for what runs in the background: its pid
	# is then the program's own, which the test stops)
	ip netns exec "$link_ns_s" env XDG_RUNTIME_DIR="$workdir/comp" WAYLAND_DISPLAY=wl-xcap \
		waypipe --socket "$workdir/wpc-$rate-$delay.sock" client >"$workdir/wpc.log" 2>&1 &
	pids="$pids $!"
	wait_for test -S "$workdir/wpc-$rate-$delay.sock" || fail "waypipe client did not start"
	ip netns exec "$link_ns_s" socat TCP-LISTEN:$port,bind="$link_addr_s",reuseaddr \
		UNIX-CONNECT:"$workdir/wpc-$rate-$delay.sock" &
	pids="$pids $!"
	ip netns exec "$link_ns_c" socat UNIX-LISTEN:"$workdir/wps-$rate-$delay.sock" TCP:"$link_addr_s":$port &
	pids="$pids $!"
	wait_for test -S "$workdir/wps-$rate-$delay.sock" || fail "socat did not listen"
	start_capture "cap_n$ncell" ip netns exec "$link_ns_c" xcap -i "$link_dev_c" -B 65536 \
		-w "$workdir/wp-$rate-$delay.xcap" tcp port $port
	in_ns "$link_ns_c" env XDG_RUNTIME_DIR="$workdir/app" timeout 30 \
		waypipe --oneshot --socket "$workdir/wps-$rate-$delay.sock" server -- "$workdir/wl-frame-client" \
		>"$workdir/wps.log" 2>&1 || fail "waypipe server: $(tail -3 "$workdir/wps.log")"
	sleep 1
	stop_capture "cap_n$ncell"
	link_down "$name"
	# the one connection's span: its request direction's idle and blocked times
	measured=$(xcapanalyse --delays --format csv "$workdir/wp-$rate-$delay.xcap" | awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["direction"] == "request" && $col["conn"] != "all" {
			print $col["idle"] + $col["block_send"] + $col["block_recv"] + $col["block_reply"],
			      $col["total_network_delay"]; exit }')
	predicted=$(xcapanalyse --predict --waypipe --rates "$rate" --latencies "$delay" --format csv \
		"$workdir/local.xcap" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ print $col["span_s"], $col["total_network_delay_s"] }')
	say "$rate $delay ms: measured span, network delay $measured; predicted $predicted"
	echo "$rate $delay $measured $predicted" >>"$workdir/cells"
}
cell 1G 0.1
cell 10M 5
cell 10M 25
cell 2M 5
cell 2M 25
# waypipe's own time: the near-free cell's measured less its predicted
read -r _r _d own_mspan own_mdelay own_pspan own_pdelay <"$workdir/cells"
own_span=$(echo "$own_mspan $own_pspan" | awk '{ d = $1 - $2; printf "%.6f", (d > 0 ? d : 0) }')
own_delay=$(echo "$own_mdelay $own_pdelay" | awk '{ d = $1 - $2; printf "%.6f", (d > 0 ? d : 0) }')
[ -n "$own_span" ] && [ -n "$own_delay" ] || fail "no figure for waypipe's own time: $(head -1 "$workdir/cells")"
say "waypipe's own time on this machine (1G, 0.1 ms cell): span $own_span s, network delay $own_delay s"
check_begin "the prediction (plus waypipe's own time) within 15 % of waypipe's span and network delay at every cell"
tail -n +2 "$workdir/cells" | while read -r rate delay mspan mdelay pspan pdelay; do
	for what in span delay; do
		eval "m=\$m$what p=\$p$what own=\$own_$what"
		bare=$(echo "$p $m" | awk '{ printf "%+.1f", ($2 > 0 ? ($1 / $2 - 1) * 100 : 0) }')
		off=$(echo "$p $own $m" | awk '{ printf "%+.1f", ($3 > 0 ? (($1 + $2) / $3 - 1) * 100 : 0) }')
		say "  $rate $delay ms $what: measured $m s, predicted $p s ($bare %), with waypipe's own time $off %"
		echo "$off" | awk '{ exit !($1 > 15 || $1 < -15) }' && fail "$rate $delay ms: $what off by $off % (bare prediction $bare %)"
	done
done
check_end
