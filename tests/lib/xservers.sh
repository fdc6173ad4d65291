# tests/lib/xservers.sh — the X servers the tests start (Xvfb, Xvnc) on
# free displays, checks that a display is the test's own, and netplot's
# window on one.
#
# Belongs to: the tests' shell library (sourced by tests/lib.sh).

# display_pid N: the pid of display N's X server, from its lock file (for
# a server a wrapper such as faketime started, which killing the wrapper
# would leave running).
display_pid() { tr -dc 0-9 2>/dev/null <"/tmp/.X$1-lock"; }

# start_xvnc DESKTOP LOG-NAME: an Xvnc (TigerVNC) on a free even display N
# of 20-58, its RFB port 5900 + N + ${xvnc_port_offset:-0} (N + 1 is left for
# an x11vnc beside it); sets xvnc_display and xvnc_port.  A display another
# test's X server takes between the look and the start is passed over, as
# start_xvfb does.
start_xvnc() {
	need Xvnc /usr/bin/python3
	# Even displays only: port N + 1 belongs to the test holding N, so two
	# tests never take each other's x11vnc port.
	_first=20 _last=58
	_n=$(( ($$ % ((_last - _first) / 2 + 1)) * 2 + _first ))
	_tries=0
	while [ $_tries -le $(((_last - _first) / 2)) ]; do
		_port=$(( 5900 + _n + ${xvnc_port_offset:-0} ))
		if [ ! -e "/tmp/.X$_n-lock" ] && [ ! -e "/tmp/.X11-unix/X$_n" ] &&
		   ! /usr/bin/python3 -c "import socket
for p in ($_port, $_port + 1):
    try:
        socket.create_connection(('127.0.0.1', p), 0.2)
        break
    except OSError:
        pass
else:
    raise SystemExit(1)" 2>/dev/null; then
			Xvnc ":$_n" -noreset -SecurityTypes None -localhost -rfbport "$_port" -geometry 800x600 \
				-desktop "$1" -nolisten tcp >"$workdir/$2.log" 2>&1 &
			_xpid=$!
			_i=0
			takes_display $_xpid $_n || _i=100
			while [ $_i -lt 100 ] && kill -0 $_xpid 2>/dev/null; do
				if /usr/bin/python3 -c "import socket; socket.create_connection(('127.0.0.1', $_port), 0.2)" \
					2>/dev/null; then
					pids="$pids $_xpid"
					xvnc_display=$_n
					xvnc_port=$_port
					return 0
				fi
				sleep 0.1
				_i=$((_i + 1))
			done
			kill $_xpid 2>/dev/null
			wait $_xpid 2>/dev/null
		fi
		_n=$(( _n + 2 ))
		[ $_n -gt $_last ] && _n=$_first
		_tries=$((_tries + 1))
	done
	fail "could not start Xvnc on any display: $(tail -3 "$workdir/$2.log")"
}

# xvfb_noreset: -noreset, unless the test set xvfb_reset=yes (start_xvfb).
xvfb_noreset() { [ "${xvfb_reset:-}" = yes ] || echo -noreset; }

# hold_display N: a client of the test's own, connected to display N's
# Unix socket and idle, until release_display: a server that resets when
# its last client leaves then does not reset while the test's polls come
# and go, and drop a client connecting as one leaves (tests/x-reset.sh).
# A connection dropped by a reset under way is made again.
hold_display() {
	rm -f "$workdir/held-$1"
	/usr/bin/python3 - "$1" "$workdir/held-$1" <<-'EOF' &
	import socket, struct, sys, time
	for _ in range(100):
	    s = socket.socket(socket.AF_UNIX)
	    try:
	        s.connect("/tmp/.X11-unix/X" + sys.argv[1])
	        s.sendall(struct.pack("<BxHHHHxx", 0x6c, 11, 0, 0, 0))
	        if s.recv(8)[:1] == b"\x01":
	            break
	    except OSError:
	        pass
	    s.close()
	    time.sleep(0.1)
	else:
	    sys.exit("no setup on display :" + sys.argv[1])
	open(sys.argv[2], "w").close()
	while s.recv(65536):
	    pass
	EOF
	held_pid=$!
	pids="$pids $held_pid"
	wait_for test -e "$workdir/held-$1" || fail "could not hold display :$1"
}
release_display() { kill "$held_pid" 2>/dev/null; wait "$held_pid" 2>/dev/null; }

# owns_display PID N: the X server PID holds display N's lock.  Another X
# server, or an xcap-run forwarding display, that took N between the look
# at the lock and the start would answer the readiness probe on N's port
# in the place of one that exited at once.
owns_display() { [ "$(tr -d ' \n' 2>/dev/null <"/tmp/.X$2-lock")" = "$1" ]; }

# takes_display PID N: wait until the X server PID holds display N's lock
# (up to 10 s); false at once when it exits first, as one does that found
# N taken.  Its port is probed only then: a probe that went first could
# reach the server or xcap-run relay that had N, as another test's client,
# and land in that test's capture or trace.
takes_display() {
	_i=0
	until owns_display "$1" "$2"; do
		kill -0 "$1" 2>/dev/null || return 1
		_i=$((_i + 1))
		[ $_i -gt 100 ] && return 1
		sleep 0.1
	done
}

# listen_inodes PORT: the socket inodes listening on TCP PORT in this
# network namespace (IPv4 or IPv6), one a line.
listen_inodes() {
	awk -v p="$(printf ':%04X' "$1")" 'substr($2, length($2) - 4) == p && $4 == "0A" { print $10 }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# port_idle PORT: no TCP connection to or from PORT is open here (only
# listeners, and connections closed and in TIME_WAIT).
port_idle() {
	awk -v p="$(printf ':%04X' "$1")" '(substr($2, length($2) - 4) == p || substr($3, length($3) - 4) == p) &&
		$4 != "0A" && $4 != "06" { busy = 1 } END { exit busy }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# port_listeners PORT: the pids of the processes listening on TCP PORT,
# one a line, "?" for a socket no process here holds (for messages: it
# looks through every process).
port_listeners() {
	for _ino in $(listen_inodes "$1"); do
		_who=$(find /proc/[0-9]*/fd -lname "socket:\[$_ino\]" 2>/dev/null | head -n 1 | cut -d/ -f3)
		echo "${_who:-?}"
	done
}

# serves_alone PID PORT: PID listens on TCP PORT, and nothing else does:
# an xcap-run relay (127.0.0.1 only) or a server on one address family
# beside ours would answer a probe of 127.0.0.1:PORT in its place.
serves_alone() {
	_inos=$(listen_inodes "$2")
	[ -n "$_inos" ] || return 1
	_own=$(ls -l "/proc/$1/fd" 2>/dev/null)
	for _ino in $_inos; do
		case $_own in *"socket:[$_ino]"*) ;; *) return 1 ;; esac
	done
}

# display_state: one line for a failure message: whether this test's
# Xvfb still runs, who listens on its port, and its log's last lines.
display_state() {
	_alive=gone
	kill -0 "${xpid:-0}" 2>/dev/null && _alive=running
	echo "Xvfb :$display (pid ${xpid:-?}) $_alive; listening on $((6000 + display)):" \
		"$(port_listeners $((6000 + display)) | tr '\n' ' ')lock: $(tr -d ' \n' 2>/dev/null <"/tmp/.X$display-lock");" \
		"log: $(tail -n 3 "$workdir/xvfb-$display.log" 2>/dev/null | tr '\n' ' ')"
}

# start_xvfb: an Xvfb listening on TCP on a free display; sets display
# (the number) and DISPLAY (127.0.0.1:N).  Extra arguments go to Xvfb.
# A test confined to some displays sets xvfb_first and xvfb_last.  Like
# the other X servers the tests start, it runs with -noreset: one that
# resets when its last client leaves drops a client connecting meanwhile,
# and under load the first client after the readiness probe did
# (tests/x-reset.sh).  A test that measures a client's start-up run after
# run sets xvfb_reset=yes: a server that keeps what its clients left
# serves the second start-up another (GTK keeps its GLX visuals in the
# root window's GDK_VISUALS, and asks for the 296 KB of GLX's
# GetFBConfigs only when that is not there).
start_xvfb() {
	need Xvfb xdpyinfo
	first=${xvfb_first:-20} last=${xvfb_last:-63}	# X ports are 6000-6063
	n=$(( ($$ % (last - first + 1)) + first ))
	tries=0
	while [ $tries -lt $((last - first + 1)) ]; do
		if [ ! -e "/tmp/.X$n-lock" ]; then
			Xvfb ":$n" -listen tcp $(xvfb_noreset) -screen 0 1024x768x24 -nolisten unix "$@" \
				>"$workdir/xvfb-$n.log" 2>&1 &
			xpid=$!
			if takes_display "$xpid" "$n" && wait_for xdpyinfo -display "127.0.0.1:$n" &&
			   serves_alone "$xpid" $((6000 + n)); then
				pids="$pids $xpid"
				display=$n
				DISPLAY=127.0.0.1:$n
				export DISPLAY
				return 0
			fi
			kill $xpid 2>/dev/null
			wait $xpid 2>/dev/null
		fi
		n=$(( n + 1 ))
		[ $n -gt "$last" ] && n=$first
		tries=$((tries + 1))
	done
	fail "could not start Xvfb on any display"
}

# start_netplot FILE [OPTION...]: netplot's window on $DISPLAY, with its own HOME (the
# file chooser records recent files there) and working directory (where a
# save dialog starts), logging what it shows to $log; waits until it has
# drawn the plot.
start_netplot() {
	(cd "$workdir" && HOME=$workdir NO_AT_BRIDGE=1 NETPLOT_LOG=1 exec netplot "$@" 2>"$workdir/log") &
	pids="$pids $!"
	log="$workdir/log"
	wait_for grep -q '^netplot: view ' "$log" || fail "netplot showed nothing: $(cat "$log")"
}
