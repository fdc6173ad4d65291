#!/bin/sh
# predict-ssh.sh — xcapanalyse --predict --ssh-compression agrees with a
# real ssh -X -C tunnel.
#
# xdpyinfo is captured on loopback with its compressed sizes (xcap
# --compressed-sizes), three times, of which the median prediction is
# taken (a capture on a busy machine may hold a stall of the load's, once
# seen as 0.2 s in every cell), and xcapanalyse --predict --ssh-compression
# replays that trace over a 2 x 2 matrix (1 Mbit/s and 100 kbit/s, 10 and 50 ms one
# way: at 100 kbit/s the compression decides the delay; raw X would take
# twice as long).
# In the same run the same four cells are measured as xcap-sweep --via
# ssh-compressed measures them: an sshd of the test's own (throwaway keys,
# X11 forwarding) in the client's namespace, Xvfb and the user's ssh -X -C
# in the server's, xcap-link between them at real-time priority, the
# capture on the client's loopback between the application and sshd
# (port 6010, DISPLAY=localhost:10), three runs a cell, the median of the
# Total Network Delay.  The endpoints (Xvfb, sshd and what it starts,
# ssh) run at real-time priority on loopback and across the link alike,
# as in tests/predict-accuracy.sh: on a busy machine a process woken late
# adds that to a round trip.  Each cell's prediction must be within 15 %
# of the measurement, or 20 ms, whichever is larger.  Nothing is taken
# from an earlier run.
#
# What ssh and sshd add to a round trip (their own forwarding time, which
# the link does not model) is measured first, as xcapanalyse(1) tells a
# user to: each client on loopback directly and through ssh -X -C to the
# same machine, in five pairs; the median difference of the mean round
# trip's wait goes to the client's prediction as --ssh-forward-time.
#
# As there, a cell outside the tolerance whose link released packets
# 0.5 ms late or more on average was not the link asked for: the test
# skips, saying so; a cell off on a punctual link fails.
#
# PREDICT_CLIENTS (one command line a line), PREDICT_RATES,
# PREDICT_DELAYS and PREDICT_RUNS change the matrix: make long-predict
# runs the larger one (tests/predict.mk).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root
need ip xcap-link xcap xcapanalyse Xvfb xdpyinfo ssh ssh-keygen xauth /usr/sbin/sshd /usr/bin/python3
measures_physics
need tun
. "$top_srcdir/tests/netns.sh"
want_realtime
. "$top_srcdir/tests/predict-lib.sh"
py=/usr/bin/python3
rates=${PREDICT_RATES:-1M 100k}
delays=${PREDICT_DELAYS:-10 50}
runs=${PREDICT_RUNS:-3}
clients=${PREDICT_CLIENTS:-xdpyinfo}

# ---- the tunnel's keys and sshd, as xcap-sweep --via ssh makes them ----
sdir=$workdir/ssh
mkdir -p "$sdir"
ssh-keygen -q -t ed25519 -N '' -C "predict-ssh host" -f "$sdir/host_key" || fail "ssh-keygen failed"
ssh-keygen -q -t ed25519 -N '' -C "predict-ssh user" -f "$sdir/id" || fail "ssh-keygen failed"
cp "$sdir/id.pub" "$sdir/authorized_keys"
echo "$link_addr_c $(cut -d' ' -f1,2 "$sdir/host_key.pub")" >"$sdir/known_hosts"
: >"$sdir/xauthority"
cat >"$sdir/sshd_config" <<EOF
ListenAddress $link_addr_c
Port 22
HostKey $sdir/host_key
AuthorizedKeysFile $sdir/authorized_keys
PidFile none
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
X11Forwarding yes
X11UseLocalhost yes
X11DisplayOffset 10
XAuthLocation $(command -v xauth)
SetEnv XAUTHORITY=$sdir/xauthority
PrintMotd no
PrintLastLog no
UseDNS no
AcceptEnv LANG LC_*
EOF
if [ ! -d /run/sshd ]; then
	mkdir -m 755 /run/sshd || skip "cannot create sshd's privilege separation directory /run/sshd"
	at_exit "rmdir /run/sshd 2>/dev/null"
fi
user=$(id -un)

# start_sshd NS ADDRESS CONFIG LOG: the test's sshd in NS, listening on
# ADDRESS:22 once this returns.  Sets sshd_pid.
start_sshd() {
	# shellcheck disable=SC2086
	$rt ip netns exec "$1" /usr/sbin/sshd -D -e -f "$3" 2>>"$4" &
	sshd_pid=$!
	pids="$pids $sshd_pid"
	wait_for ip netns exec "$1" sh -c "ss -ltn | grep -q '$2:22 '" ||
		fail "sshd did not listen on $2: $(tail -n 3 "$4")"
}

# ssh_x NS DISPLAY HOST CMD: CMD run through ssh -X -C from NS, where the
# X server is 127.0.0.1:DISPLAY, to the test's sshd at HOST.  The locale
# goes along (SendEnv, AcceptEnv, as Debian's ssh and sshd configurations
# do), so the client does what it did on loopback: xterm in the C locale
# asks for 51 KB of fonts, in C.UTF-8 3.2 MB.
ssh_x() {
	# shellcheck disable=SC2086
	$rt ip netns exec "$1" env DISPLAY="127.0.0.1:$2" XAUTHORITY="$sdir/xauthority.local" \
		ssh -F /dev/null -X -C -i "$sdir/id" -o IdentitiesOnly=yes -o "SendEnv=LANG LC_*" \
		-o BatchMode=yes -o "UserKnownHostsFile=$sdir/known_hosts" \
		-o StrictHostKeyChecking=yes -o LogLevel=ERROR -l "$user" "$3" \
		"$4 >/dev/null 2>&1" </dev/null
}

# ---- on loopback: the captures to predict from, and what ssh and sshd
# add to a round trip on this machine ----
# Each client on loopback directly, with the compressed sizes (the first
# three are the captures the prediction replays, as predict_loopback takes
# them), and through ssh -X -C to the same machine (a namespace of the
# test's own: its loopback, an sshd on it and an Xvfb), in
# PREDICT_FORWARD_PAIRS pairs (5).  The median difference of the mean
# round trip's wait, as xcapanalyse(1) tells a user to measure it, goes to
# the client's prediction as --ssh-forward-time; nothing is taken from the
# measured cells.  Three pairs measured 0.25, 0.36 and 0.71 ms for
# gtk3-demo on a loaded machine: more pairs steady the median.
fw_pairs=${PREDICT_FORWARD_PAIRS:-5}
[ "$fw_pairs" -ge 3 ] 2>/dev/null || fail "PREDICT_FORWARD_PAIRS must be 3 or more (the prediction replays three captures)"
ssh_forward_measure() {
	lns=fw$$
	ip netns add "$lns" || fail "cannot create a namespace"
	at_exit "ip netns del $lns 2>/dev/null"
	ip -n "$lns" link set lo up
	sed 's/^ListenAddress .*/ListenAddress 127.0.0.1/' "$sdir/sshd_config" >"$sdir/sshd_config.lo"
	start_sshd "$lns" 127.0.0.1 "$sdir/sshd_config.lo" "$workdir/sshd-lo.log"
	lsshd=$sshd_pid
	echo "127.0.0.1 $(cut -d' ' -f1,2 "$sdir/host_key.pub")" >>"$sdir/known_hosts"
	# shellcheck disable=SC2086
	start_xvfb_in "$lns" "$lns" 127.0.0.1 1024x768x24 "$workdir/xvfb-lo.log" $rt
	ld=$n lxpid=$xpid
	pids="$pids $lxpid"
	ci=0
	while read -r cmd <&3; do
		ci=$((ci + 1))
		# A pair's two ways one after the other, so that both see the
		# machine's load of the moment; the median of the pairs.
		for k in $(seq "$fw_pairs"); do
			for way in direct ssh; do
				f=$workdir/fw${ci}_${way}_$k
				port=$((6000 + ld)) sizes=--compressed-sizes
				[ $way = ssh ] && port=6010 sizes=
				# shellcheck disable=SC2086
				start_capture capfw ip netns exec "$lns" xcap -i lo $sizes -w "$f.xcap" \
					"tcp port $port"
				sleep 0.1
				if [ $way = direct ]; then
					# shellcheck disable=SC2086
					$rt ip netns exec "$lns" env DISPLAY="127.0.0.1:$ld" $cmd >/dev/null 2>&1 ||
						fail "$cmd failed on loopback"
				else
					ssh_x "$lns" "$ld" 127.0.0.1 "$cmd" >"$f.client" 2>&1 ||
						fail "$cmd failed through ssh on loopback: $(tail -n 3 "$f.client")"
				fi
				sleep 0.1
				stop_capture capfw
				xcapanalyse --round-trips --format csv "$f.xcap" >"$f.csv" ||
					fail "xcapanalyse --round-trips failed on $f.xcap"
				[ $way = ssh ] || [ "$k" -gt 3 ] || mv "$f.xcap" "$workdir/lo${ci}_$k.xcap"
			done
		done
		$py "$top_srcdir/tests/ssh-forward-time.py" "$workdir/fw${ci}_direct_"*.csv -- \
			"$workdir/fw${ci}_ssh_"*.csv >"$workdir/fw$ci" || fail "no forwarding time for $cmd"
		say "ssh and sshd add $(head -n 1 "$workdir/fw$ci") ms to a round trip of $cmd on loopback: $(tail -n 1 "$workdir/fw$ci")"
		eval "predict_opts_$ci=\"--ssh-forward-time $(head -n 1 "$workdir/fw$ci")\""
	done 3<<CLIENTS
$clients
CLIENTS
	kill "$lsshd" "$lxpid" 2>/dev/null; wait "$lsshd" "$lxpid" 2>/dev/null
}
ssh_forward_measure
predict_captures --ssh-compression

# ---- measured through ssh -X -C over the emulated link ----
cell_up() {
	# As xcap-sweep: on a real client host the X traffic to the ssh
	# proxy goes in segments of an Ethernet's size.
	ip -n "$link_ns_c" link set lo mtu 1500
	start_sshd "$link_ns_c" "$link_addr_c" "$sdir/sshd_config" "$workdir/sshd.log"
}
cell_capture() {
	start_capture "cap_$1" ip netns exec "$link_ns_c" xcap -i lo -w "$workdir/$1.xcap" "tcp port 6010"
}
cell_client() {
	ssh_x "$link_ns_s" "$n" "$link_addr_c" "$1" >"$workdir/$run.client" 2>&1
}
cell_down() {
	kill "$sshd_pid" 2>/dev/null; wait "$sshd_pid" 2>/dev/null
}
predict_measure xps
predict_verdict "through ssh -X -C "
