#!/bin/sh
# link-accuracy.sh — xcap-link emulates the link it is asked for.
#
# Between two network namespaces joined by xcap-link:
#  - the round-trip time of small UDP probes (or ping, when installed)
#    exceeds that across a link without delay by twice the one-way delay,
#    within 0.2 ms + 2 %;
#  - bulk TCP goodput at 10 kbit/s, 100 kbit/s, 1, 10 and 100 Mbit/s is the rate
#    less the TCP/IP header share (52 bytes per full segment), within 5 %;
#  - random loss follows the seed: the same seed loses the same packets;
#  - SIGTERM ends the link cleanly with a summary.
# It also prints, without judging it, how fast the forwarder goes when the
# configured rate is high or unlimited.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root ip xcap-link
measures_physics
need tun
py=
for p in /usr/bin/python3 python3; do
	if command -v "$p" >/dev/null 2>&1; then py=$p; break; fi
done
[ -n "$py" ] || skip "needs python3"
. "$top_srcdir/tests/netns.sh"

mtu=1500
mss=$((mtu - 52))		# IPv4 20 + TCP 20 + timestamps 12
tag=xl$$			# namespace names unique to this run

# ---- the command line ----

xcap-link --version | grep -qx 'xcap-link [0-9.]*' || fail "--version: $(xcap-link --version)"
xcap-link --help | grep -q -- '--ns-a' || fail "--help shows no options"
xcap-link --ns-a a --ns-b b --rate 10X 2>"$workdir/err"
[ $? = 2 ] || fail "a bad rate is not a usage error"
xcap-link --ns-a "$tag-none" --ns-b "$tag-none2" 2>"$workdir/err"
[ $? = 1 ] || fail "a missing namespace does not exit 1"
grep -q "^xcap-link: cannot open namespace: No such file or directory: '$tag-none'" "$workdir/err" ||
	fail "missing namespace message: $(cat "$workdir/err")"

# ---- probes, run inside the namespaces ----

cat >"$workdir/probe.py" <<'EOF'
import os, signal, socket, statistics, sys, time

def ready(path):
    with open(path, 'w') as f:
        f.write('ready\n')

mode, args = sys.argv[1], sys.argv[2:]
# Started in the background by sh, which ignores SIGINT there: take the
# default back, and let servers end on their own when left idle.
signal.signal(signal.SIGINT, signal.SIG_DFL)
IDLE = 30
if mode in ('echo', 'rtt'):
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(5))
    except (AttributeError, OSError):
        pass
if mode == 'echo':                      # ADDR PORT READY: UDP echo server
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((args[0], int(args[1])))
    s.settimeout(IDLE)
    ready(args[2])
    while True:
        data, peer = s.recvfrom(65536)
        s.sendto(data, peer)
elif mode == 'rtt':                     # ADDR PORT COUNT INTERVAL
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((args[0], int(args[1])))
    s.settimeout(2.0)
    rtts = []
    for i in range(int(args[2])):
        msg = i.to_bytes(4, 'big') + bytes(52)     # 84 bytes on the wire, as ping
        t0 = time.monotonic_ns()
        s.send(msg)
        while s.recv(2048)[:4] != msg[:4]:
            pass
        rtts.append((time.monotonic_ns() - t0) / 1e6)
        time.sleep(float(args[3]))
    print('%.3f %.3f %.3f %.3f' % (min(rtts), statistics.median(rtts),
                                   statistics.mean(rtts), max(rtts)))
elif mode == 'sink':                    # ADDR PORT READY: bytes, goodput bit/s, seconds
    l = socket.socket()
    l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    l.bind((args[0], int(args[1])))
    l.listen(1)
    l.settimeout(IDLE)
    ready(args[2])
    c, _ = l.accept()
    c.settimeout(IDLE)
    buf = bytearray(1 << 18)
    total = first = 0
    t_first = t_last = None
    while True:
        n = c.recv_into(buf)
        if n == 0:
            break
        t = time.monotonic_ns()
        if t_first is None:
            t_first, first = t, n
        t_last = t
        total += n
    # Bytes after the first read, over the time they took to arrive:
    # the handshake and the first segment's delay are left out.
    secs = (t_last - t_first) / 1e9 if t_first is not None else 0
    print('%d %.0f %.3f' % (total, (total - first) * 8 / secs if secs > 0 else 0, secs))
elif mode == 'source':                  # ADDR PORT BYTES SECONDS (BYTES 0: for SECONDS)
    s = socket.create_connection((args[0], int(args[1])))
    nbytes, end = int(args[2]), time.monotonic() + float(args[3])
    chunk = bytes(65536)
    sent = 0
    while (sent < nbytes) if nbytes else (time.monotonic() < end):
        n = min(len(chunk), nbytes - sent) if nbytes else len(chunk)
        s.sendall(chunk[:n])
        sent += n
    s.close()
    print(sent)
elif mode == 'blast':                   # ADDR PORT COUNT: UDP, 50 per millisecond
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(int(args[2])):
        s.sendto(bytes(100), (args[0], int(args[1])))
        if i % 50 == 49:
            time.sleep(0.001)
EOF

# bg OUT NS CMD...: start CMD in a namespace, output to OUT; sets bg_pid.
bg() {
	_bg_out=$1 _bg_ns=$2; shift 2
	# ip netns exec, not the in_ns function: a backgrounded function is a
	# subshell, and killing it would leave CMD running.
	ip netns exec "$_bg_ns" "$@" >"$_bg_out" 2>&1 &
	bg_pid=$!
	pids="$pids $bg_pid"
}
# reap PID: wait for it and forget it; returns its status.
reap() {
	wait "$1"
	_reap=$?
	pids=$(echo " $pids " | sed "s/ $1 / /")
	return $_reap
}

# abs_ok MEASURED EXPECTED TOLERANCE: |MEASURED - EXPECTED| <= TOLERANCE
abs_ok() { awk -v m="$1" -v e="$2" -v t="$3" 'BEGIN { d = m - e; if (d < 0) d = -d; exit !(d <= t) }'; }

# summary_ab: "packets dropped lost" for A->B from the link's summary.
summary_ab() {
	sed -n 's/.*A->B \([0-9]*\) packets, [0-9]* bytes, \([0-9]*\) dropped (queue), \([0-9]*\) lost (random).*/\1 \2 \3/p' "$link_log"
}

# ---- round-trip time ----

# For round trips the forwarder runs at real-time priority, and so do the
# probes: the suite runs tests side by side, and a busy CPU would otherwise
# show up as delay.  (Not for bulk transfers: a real-time loop kept busy
# is throttled by the kernel, 50 ms in every second.)
link_opts=--realtime

# probe_rtt CLIENT_NS SERVER_NS ADDR: "min median mean max" in ms into
# $workdir/rtt.out, 20 probes 50 ms apart, by ping when installed, else a
# UDP echo of the same size.  (Not run in $(...): the echo server it
# starts has to be known to the traps.)
if command -v ping >/dev/null 2>&1; then how=ping; else how="UDP echo (no ping)"; fi
probe_rtt() {
	if [ "$how" = ping ]; then
		in_ns "$1" ping -n -c 20 -i 0.05 "$3" >"$workdir/ping.out" 2>&1 ||
			fail "ping $3 from $1 failed: $(cat "$workdir/ping.out")"
		sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' "$workdir/ping.out" | sort -n |
			awk '{ v[NR] = $1; s += $1 } END { if (!NR) exit 1;
				m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
				printf "%.3f %.3f %.3f %.3f\n", v[1], m, s / NR, v[NR] }' >"$workdir/rtt.out"
	else
		bg "$workdir/echo.out" "$2" "$py" "$workdir/probe.py" echo "$3" 7777 "$workdir/echo.ready"
		_pr_echo=$bg_pid
		wait_for test -s "$workdir/echo.ready" || fail "echo server did not start: $(cat "$workdir/echo.out")"
		rm -f "$workdir/echo.ready"
		in_ns "$1" "$py" "$workdir/probe.py" rtt "$3" 7777 20 0.05 >"$workdir/rtt.out"
		_pr_status=$?
		kill "$_pr_echo"
		reap "$_pr_echo"
		return $_pr_status
	fi
}

# What the host itself takes for a probe and its answer (scheduling,
# wake-ups, the stack), over loopback inside a namespace, and what a link
# without delay takes: the difference is the forwarder's own share (its
# wake-ups on each packet), figures only.
make_link "${tag}b" 0 0 0
rm -f "$workdir/rtt.out"
probe_rtt "$link_ns_c" "$link_ns_c" 127.0.0.1
set -- $(cat "$workdir/rtt.out")
[ $# = 4 ] || fail "no RTT figures over loopback"
say "host alone, loopback in a namespace: RTT median $2 ms (min $1, mean $3, max $4) by $how"
rm -f "$workdir/rtt.out"
probe_rtt "$link_ns_c" "$link_ns_s" "$link_addr_s"
set -- $(cat "$workdir/rtt.out")
[ $# = 4 ] || fail "no RTT figures across the link"
say "link with no delay: RTT median $2 ms (min $1, mean $3, max $4)"
link_down "${tag}b" || fail "xcap-link did not stop cleanly: $(cat "$link_log")"
say "  $(tail -n 1 "$link_log")"

# rtt NAME DELAY EXPECTED_RTT_MS: the median RTT across a link with DELAY
# exceeds the median across a link without delay, measured just before,
# by EXPECTED_RTT_MS within 0.2 ms + 2 %.  The zero-delay link carries the
# host's own round trip (tenths of a millisecond in a busy virtual machine,
# more than the tolerance), so it is taken off.
# The suite runs tests in parallel on two cores, so a measurement disturbed
# by another test's load is taken again (up to three times); the link must
# be within tolerance in one of them.
# Each try runs in a subshell, which does not inherit lib.sh's traps: it
# gets its own, for what it starts.
rtt() {
	at_exit "link_down '$tag$1'; link_down '${tag}z$1'"
	for _try in 1 2 3; do
		(
			pids=
			trap 'link_down "$tag$1"; link_down "${tag}z$1"
				for p in $pids; do kill "$p" 2>/dev/null; done' EXIT
			trap 'exit 1' INT TERM
			rtt_once "$@"
		) && return 0
		say "delay $2 ms: measuring again ($_try of 3 out of tolerance)"
	done
	fail "delay $2 ms: RTT out of tolerance in three measurements"
}
rtt_once() {
	make_link "${tag}z$1" 0 0 0
	rm -f "$workdir/rtt.out"
	probe_rtt "$link_ns_c" "$link_ns_s" "$link_addr_s"
	set -- "$1" "$2" "$3" $(cat "$workdir/rtt.out")
	[ $# = 7 ] || fail "no RTT figures across the link without delay"
	link_down "${tag}z$1" || fail "xcap-link did not stop cleanly: $(cat "$link_log")"
	base=$5
	make_link "$tag$1" 0 0 "$2"
	rm -f "$workdir/rtt.out"
	probe_rtt "$link_ns_c" "$link_ns_s" "$link_addr_s"
	set -- "$1" "$2" "$3" $(cat "$workdir/rtt.out")
	[ $# = 7 ] || fail "no RTT figures for delay $2 ms"
	link_down "$tag$1" || fail "xcap-link did not stop cleanly: $(cat "$link_log")"
	added=$(awk -v m="$5" -v b="$base" 'BEGIN { printf "%.3f", m - b }')
	tol=$(awk -v e="$3" 'BEGIN { printf "%.3f", 0.2 + 0.02 * e }')
	say "delay $2 ms: RTT median $5 ms (min $4, mean $6, max $7), $base ms without delay: the link adds $added ms; expected $3 +- $tol ms"
	say "  $(tail -n 1 "$link_log")"
	abs_ok "$added" "$3" "$tol" || fail "delay $2 ms: the link adds $added ms to the median RTT, expected $3 +- $tol ms"
}
rtt r10 10 20
rtt r1 1 2
rtt ra 2,0.5 2.5

# ---- bulk TCP throughput ----

link_opts=

# tput NAME RATE BPS BYTES SECONDS: send from client to server; sets goodput
# (bit/s), secs and sent.  The link has a 1 ms delay each way.
#
# The sender runs without tail loss probes (tcp_early_retrans=0): on a slow
# link with a deep queue the RTT grows faster than TCP's estimate of it,
# so the probes (and an RTO after them) resend segments that were only
# queued, spending link time on duplicates: TCP's doing, not the link's.
tput() {
	make_link "$tag$1" "$2" "$2" 1
	in_ns "$link_ns_c" sh -c 'echo 0 >/proc/sys/net/ipv4/tcp_early_retrans' ||
		fail "cannot turn tail loss probes off in $link_ns_c"
	bg "$workdir/sink.out" "$link_ns_s" "$py" "$workdir/probe.py" sink "$link_addr_s" 5001 "$workdir/sink.ready"
	sink_pid=$bg_pid
	wait_for test -s "$workdir/sink.ready" || fail "TCP sink did not start: $(cat "$workdir/sink.out")"
	rm -f "$workdir/sink.ready"
	sent=$(in_ns "$link_ns_c" "$py" "$workdir/probe.py" source "$link_addr_s" 5001 "$4" "$5") ||
		fail "TCP transfer at $2 failed: $sent"
	reap "$sink_pid" || fail "TCP sink failed: $(cat "$workdir/sink.out")"
	read -r got goodput secs <"$workdir/sink.out" || fail "no figures from the sink"
	[ "$got" = "$sent" ] || fail "sent $sent bytes at $2, received $got"
	link_down "$tag$1" || fail "xcap-link did not stop cleanly: $(cat "$link_log")"
	ab=$(summary_ab)
	[ -n "$ab" ] || fail "no summary from xcap-link: $(cat "$link_log")"
	set -- $ab
	link_packets=$1 link_dropped=$2
}

for conf in "t10k 10k 10000 5792" "t100k 100k 100000 25000" "t1m 1M 1000000 300000" \
	"t10m 10M 10000000 3000000" "t100m 100M 100000000 30000000"; do
	set -- $conf
	tput "$1" "$2" "$3" "$4" 0
	expect=$(awk -v r="$3" -v m="$mss" -v u="$mtu" 'BEGIN { printf "%.0f", r * m / u }')
	tol=$(awk -v e="$expect" 'BEGIN { printf "%.0f", e * 0.05 }')
	say "rate $2: goodput $goodput bit/s over $secs s ($got bytes); expected $expect +- $tol"
	say "  $(tail -n 1 "$link_log")"
	abs_ok "$goodput" "$expect" "$tol" || fail "rate $2: goodput $goodput bit/s, expected $expect +- $tol"
done

# ---- random loss: seeded, so reproducible ----

for run in 1 2; do
	make_link "${tag}l$run" 0 0 0 "" --loss 10 --seed 7
	in_ns "$link_ns_c" "$py" "$workdir/probe.py" blast "$link_addr_s" 9 2000 || fail "UDP send failed"
	sleep 0.2
	link_down "${tag}l$run" || fail "xcap-link did not stop cleanly: $(cat "$link_log")"
	set -- $(summary_ab)
	[ $# = 3 ] || fail "no summary from xcap-link: $(cat "$link_log")"
	eval "lost$run=$3 total$run=$(($1 + $3))"
done
say "loss 10 %, seed 7: lost $lost1 of $total1, then $lost2 of $total2"
[ "$total1" = 2000 ] && [ "$total2" = 2000 ] || fail "expected 2000 packets across, saw $total1 and $total2"
[ "$lost1" = "$lost2" ] || fail "the same seed lost $lost1 then $lost2 packets"
[ "$lost1" -ge 150 ] && [ "$lost1" -le 250 ] || fail "10 % loss dropped $lost1 of 2000"

# ---- how fast the forwarder goes (figures only) ----

for conf in "f300m 300M 300000000" "f1g 1G 1000000000" "finf 0 0"; do
	set -- $conf
	tput "$1" "$2" "$3" 0 1.5
	if [ "$3" = 0 ]; then
		say "unlimited: goodput $goodput bit/s over $secs s"
	else
		expect=$(awk -v r="$3" -v m="$mss" -v u="$mtu" 'BEGIN { printf "%.0f", r * m / u }')
		say "rate $2: goodput $goodput bit/s, $(awk -v g="$goodput" -v e="$expect" 'BEGIN { printf "%.1f", 100 * g / e }') % of the expected $expect"
	fi
	say "  $(tail -n 1 "$link_log")"
done
exit 0
