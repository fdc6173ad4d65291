#!/bin/sh
# sweep-ssh.sh — xcap-sweep --via ssh and --via ssh-compressed carry the X
# traffic inside OpenSSH across the link, with the capture beside the
# client application.
#
# One cell each (10 Mbit/s, 1 ms) of xdpyinfo, in one sweep: the client ran and found the
# display sshd forwarded (localhost:10), the trace holds its connection to
# sshd's forwarding port 6010 on the client's loopback and nothing on the
# display's own port (that traffic went inside ssh), and its total network
# delay is a number.  The throwaway private keys are gone afterwards, and so
# are the namespaces and the display's lock.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcap-sweep xcap xcapanalyse root ip Xvfb xdpyinfo ssh ssh-keygen xauth
sshd=$(command -v sshd 2>/dev/null || echo /usr/sbin/sshd)
need sshd
xcapanalyse --format csv "$top_srcdir/tests/captures/xdpyinfo-xlogo.pcap" 2>/dev/null |
	head -n 1 | tr ',' '\n' | grep -qx total_network_delay ||
	skip "this xcapanalyse has no total_network_delay column (no state model)"
ip netns add "xswt$$" 2>"$workdir/err" || skip "cannot create a network namespace: $(cat "$workdir/err")"
ip netns del "xswt$$"
privsep_before=$(test -d /run/sshd && echo yes)

# One sweep for both, as a user would ask for a comparison.
out=$workdir/sweep
xcap-sweep -q -o "$out" --via ssh,ssh-compressed --rates 10M --delays 1 --format csv xdpyinfo \
	>/dev/null 2>"$workdir/sweep.err" &
sweep=$!
pids="$pids $sweep"
wait $sweep
st=$?
pids=
[ $st = 0 ] || fail "exit $st: $(cat "$workdir/sweep.err") $(cat "$out"/*.log 2>/dev/null)"
sed "s/^/  /" "$out/results.txt"
display=$(sed -n 's/^# via .*Xvfb :\([0-9]*\),.*/\1/p' "$out/results.txt")
[ -n "$display" ] || fail "no display in the results"
[ "$(awk 'END { print NR }' "$out/results.csv")" = 3 ] || fail "expected 2 cells: $(cat "$out/results.csv")"
for via in ssh ssh-compressed; do
	set -- $(awk -F, -v via=$via 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["via"] == via { print $c["status"], $c["total_network_delay_s"], $c["trace"] }' "$out/results.csv")
	[ "$1" = ok ] || fail "--via $via: no cell, or status '$1'"
	awk -v v="$2" 'BEGIN { exit !(v ~ /^[0-9]+(\.[0-9]+)?$/) }' || fail "--via $via: total network delay '$2'"
	log=$out/${3%.xcap}.log
	grep -q '^name of display: *localhost:10' "$log" ||
		fail "--via $via: the client did not use the forwarded display: $(head -n 3 "$log")"
	xcapanalyse --connections --format csv "$out/$3" >"$workdir/conn.csv" 2>"$workdir/err" ||
		fail "--via $via: xcapanalyse cannot read $3: $(cat "$workdir/err")"
	grep -q ':6010,' "$workdir/conn.csv" || fail "--via $via: no connection to sshd's port 6010: $(cat "$workdir/conn.csv")"
	grep -q ":60$display," "$workdir/conn.csv" &&
		fail "--via $via: the display's own port was seen beside the client: X bypassed ssh"
	say "--via $via: total network delay $2 s over the forwarded display"
done
for f in id host_key xauthority; do
	[ ! -e "$out/ssh/$f" ] || fail "$out/ssh/$f left behind"
done
ip netns list | grep -E "^xsw$sweep[cs]( |\$)" && fail "namespaces left behind"
[ ! -e "/tmp/.X$display-lock" ] || fail "/tmp/.X$display-lock left behind"
[ -n "$privsep_before" ] || [ ! -d /run/sshd ] || fail "/run/sshd, made for sshd, left behind"
exit 0
