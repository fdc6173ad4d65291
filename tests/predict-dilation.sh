#!/bin/sh
# predict-dilation.sh — how far time dilation carries the check of
# xcapanalyse --predict past what xcap-link can emulate.  Figures only;
# nothing passes or fails (run by make bench-predict, as root).
#
# Dilation by K: the link runs at rate W/K with delay L*K, and Xvfb and the
# client run under libfaketime at 1/K speed, so that to them the link is W
# and L and the machine K times faster.  The capture (the kernel's clock,
# not dilated) is read with --time-dilation K.  The kernel's TCP timers are
# not dilated (200 ms least retransmission timeout, 40 ms delayed ACKs, the
# idle restart), nor is the CPU time the endpoints spend, which in dilated
# time is K times shorter: the prediction to compare with is the loopback
# trace read with --time-dilation K too (the same machine, K times faster).
#
# Cells, K = 10:
#   10M / 1 ms    measured directly, and dilated (1M / 10 ms on the link)
#   1G / 0.01 ms  beyond the emulator, dilated only (100M / 0.1 ms)
# Each beside its prediction.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root ip xcap-link xcap xcapanalyse Xvfb xdpyinfo faketime /usr/bin/python3
measures_physics
need tun
. "$top_srcdir/tests/netns.sh"
link_opts=--realtime
K=${DILATION:-10}
rt=
if command -v chrt >/dev/null 2>&1 && chrt -f 20 true 2>/dev/null; then rt="chrt -f 20"; fi
# A wrapper, so that the clock specification stays one word.
printf '#!/bin/sh\nexec faketime -f "+0 x%s" "$@"\n' "$(/usr/bin/python3 -c "print(1 / $K)")" >"$workdir/slow"
chmod +x "$workdir/slow"
slow=$workdir/slow

start_xvfb
[ -z "$rt" ] || chrt -f -p 20 "$xpid" >/dev/null 2>&1 || true
start_capture cap xcap -i lo -w "$workdir/lo.xcap" "tcp port $((6000 + display))"
sleep 0.3
$rt xdpyinfo -display "127.0.0.1:$display" >/dev/null || fail "xdpyinfo failed on loopback"
sleep 0.3
stop_capture cap

# over NAME RATE DELAY_MS DILATED(yes/no): xdpyinfo over a link, into NAME.xcap
over() {
	_name=$1 _rate=$2 _delay=$3 _dil=$4
	_pre=
	[ "$_dil" = yes ] && _pre="$slow"
	make_link "$_name" "$_rate" "$_rate" "$_delay"
	_n=$(( ($$ % 40) + 20 ))
	while [ -e "/tmp/.X$_n-lock" ]; do _n=$((_n + 1)); [ $_n -gt 63 ] && _n=20; done
	# shellcheck disable=SC2086
	$rt ip netns exec "$link_ns_s" $_pre Xvfb ":$_n" -listen tcp -nolisten unix -ac -noreset \
		-screen 0 640x480x24 >"$workdir/xvfb-$_name.log" 2>&1 &
	_xp=$!
	pids="$pids $_xp"
	wait_for ip netns exec "$link_ns_c" xdpyinfo -display "$link_addr_s:$_n" || fail "no Xvfb in $link_ns_s"
	# faketime waits for its child: killing it would leave Xvfb running
	_xs=$(display_pid "$_n")
	pids="$pids $_xs"
	start_capture "cap_$_name" ip netns exec "$link_ns_c" xcap -i "$link_dev_c" -w "$workdir/$_name.xcap"
	sleep 0.3
	# shellcheck disable=SC2086
	$rt ip netns exec "$link_ns_c" $_pre xdpyinfo -display "$link_addr_s:$_n" >/dev/null ||
		fail "xdpyinfo failed over $_rate / $_delay ms"
	sleep 0.5
	stop_capture "cap_$_name"
	kill "$_xs" "$_xp" 2>/dev/null; wait "$_xp" 2>/dev/null
	link_down "$_name" || fail "xcap-link did not end cleanly"
}

# tnd FILE [OPTIONS]: the trace's Total Network Delay (JSON of --predict).
tnd() {
	_f=$1; shift
	xcapanalyse --predict --rates 1G --latencies 0 --format json "$@" "$_f" 2>/dev/null |
		/usr/bin/python3 -c 'import json, sys; print("%.6f" % json.load(sys.stdin)["trace_total_network_delay"])'
}
# predicted FILE RATE DELAY [OPTIONS]
predicted() {
	_f=$1 _r=$2 _d=$3; shift 3
	xcapanalyse --predict --rates "$_r" --latencies "$_d" --format csv "$@" "$_f" 2>/dev/null |
		awk -F, 'NR == 2 { printf "%.6f\n", $6 }'
}

over xpd$$a 10M 1 no
over xpd$$b "$(/usr/bin/python3 -c "print(int(10e6 / $K))")" "$(/usr/bin/python3 -c "print(1 * $K)")" yes
over xpd$$c "$(/usr/bin/python3 -c "print(int(1e9 / $K))")" "$(/usr/bin/python3 -c "print(0.01 * $K)")" yes

echo "time dilation K = $K, xdpyinfo; Total Network Delay in seconds"
printf '  %-12s %-34s %10s %10s\n' cell how measured predicted
printf '  %-12s %-34s %10s %10s\n' "10M/1ms" "directly" "$(tnd "$workdir/xpd$$a.xcap")" \
	"$(predicted "$workdir/lo.xcap" 10M 1)"
printf '  %-12s %-34s %10s %10s\n' "10M/1ms" "dilated (1M/10ms, faketime)" \
	"$(tnd "$workdir/xpd$$b.xcap" --time-dilation "$K")" \
	"$(predicted "$workdir/lo.xcap" 10M 1 --time-dilation "$K")"
printf '  %-12s %-34s %10s %10s\n' "1G/0.01ms" "dilated (100M/0.1ms, faketime)" \
	"$(tnd "$workdir/xpd$$c.xcap" --time-dilation "$K")" \
	"$(predicted "$workdir/lo.xcap" 1G 0.01 --time-dilation "$K")"
printf '  %-12s %-34s %10s %10s\n' "loopback" "the trace itself" "$(tnd "$workdir/lo.xcap")" "-"
