#!/bin/sh
# sweep-ssh.sh — xcap-sweep --via ssh and --via ssh-compressed carry the X
# traffic inside OpenSSH across the link, with the capture beside the
# client application.
#
# One cell each (10 Mbit/s, 1 ms) of xdpyinfo: the client ran and found the
# display sshd forwarded (localhost:10), the trace holds its connection to
# sshd's forwarding port 6010 on the client's loopback and nothing on the
# display's own port (that traffic went inside ssh), and its total network
# delay is a number.  The throwaway private keys are gone afterwards, and so
# are the namespaces and the display's lock.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcap-sweep xcap xcapanalyse
need_root
need ip Xvfb xdpyinfo ssh ssh-keygen xauth
sshd=$(command -v sshd 2>/dev/null || echo /usr/sbin/sshd)
[ -x "$sshd" ] || skip "needs sshd"
xcapanalyse --format csv "$top_srcdir/tests/captures/xdpyinfo-xlogo.pcap" 2>/dev/null |
	head -n 1 | tr ',' '\n' | grep -qx total_network_delay ||
	skip "this xcapanalyse has no total_network_delay column (no state model)"
ip netns add "xswt$$" 2>"$workdir/err" || skip "cannot create a network namespace: $(cat "$workdir/err")"
ip netns del "xswt$$"
privsep_before=$(test -d /run/sshd && echo yes)

for via in ssh ssh-compressed; do
	out=$workdir/$via
	xcap-sweep -q -o "$out" --via $via --rates 10M --delays 1 --format csv xdpyinfo \
		>/dev/null 2>"$workdir/$via.err" &
	sweep=$!
	pids="$pids $sweep"
	wait $sweep
	st=$?
	pids=
	[ $st = 0 ] || fail "--via $via: exit $st: $(cat "$workdir/$via.err") $(cat "$out"/*.log 2>/dev/null)"
	sed "s/^/  /" "$out/results.txt"
	set -- $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ print $c["via"], $c["status"], $c["total_network_delay_s"], $c["trace"] }' "$out/results.csv")
	[ "$1" = "$via" ] && [ "$2" = ok ] || fail "--via $via: the cell says via '$1', status '$2'"
	awk -v v="$3" 'BEGIN { exit !(v ~ /^[0-9]+(\.[0-9]+)?$/) }' || fail "--via $via: total network delay '$3'"
	grep -q '^name of display: *localhost:10' "$out/r10M-d1-1.log" ||
		fail "--via $via: the client did not use the forwarded display: $(head -n 3 "$out/r10M-d1-1.log")"
	xcapanalyse --connections --format csv "$out/$4" >"$workdir/conn.csv" 2>"$workdir/err" ||
		fail "--via $via: xcapanalyse cannot read $4: $(cat "$workdir/err")"
	grep -q ':6010,' "$workdir/conn.csv" || fail "--via $via: no connection to sshd's port 6010: $(cat "$workdir/conn.csv")"
	display=$(sed -n 's/^# via .*Xvfb :\([0-9]*\),.*/\1/p' "$out/results.txt")
	[ -n "$display" ] || fail "--via $via: no display in the results"
	grep -q ":60$display," "$workdir/conn.csv" &&
		fail "--via $via: the display's own port was seen beside the client: X bypassed ssh"
	for f in id host_key xauthority; do
		[ ! -e "$out/ssh/$f" ] || fail "--via $via: $out/ssh/$f left behind"
	done
	ip netns list | grep -E "^xsw$sweep[cs]( |\$)" && fail "--via $via: namespaces left behind"
	[ ! -e "/tmp/.X$display-lock" ] || fail "--via $via: /tmp/.X$display-lock left behind"
	say "--via $via: total network delay $3 s over the forwarded display"
done
[ -n "$privsep_before" ] || [ ! -d /run/sshd ] || fail "/run/sshd, made for sshd, left behind"
exit 0
