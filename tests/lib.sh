# lib.sh — shared helpers for the shell tests and the demo (sourced).
#
# Tests exit 0 (pass), 1 (fail) or 77 (skip, with the reason on stdout),
# as automake's test driver expects.

: "${top_builddir:=$(pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
PATH="$top_builddir/xcap:$top_builddir/xcapanalyse:$top_builddir/netplot:$PATH"
export PATH

test_name=$(basename "$0" .sh)

skip() { echo "SKIP: $test_name: $*"; exit 77; }
fail() { echo "FAIL: $test_name: $*" >&2; exit 1; }
say() { echo "$test_name: $*"; }

need() {
	for cmd in "$@"; do
		command -v "$cmd" >/dev/null 2>&1 || skip "needs $cmd"
	done
}

need_root() { [ "$(id -u)" = 0 ] || skip "needs root to capture"; }

# sanitized: the tools under test were built with ASan and UBSan (the
# second pass of ./bootstrap check), which run them 2-3 times slower.
sanitized() { [ -n "${XCAP_SANITIZERS:-}" ]; }

# measures_physics: this test holds a delay or a rate it measured to what
# an emulated link's configuration implies.  It runs in the plain build
# only: under the sanitizers the tools' own slowdown would be read as the
# link's delay, and the code it runs is covered there by the other tests.
# It then takes its turn through timing_alone.
measures_physics() {
	sanitized && skip "measures time against a link's physics: checked in the plain build, not under the sanitizers' slowdown"
	timing_alone
}

# want_realtime: the link (xcap-link --realtime, through $link_opts) and
# whatever the test starts under "$rt" run at real-time priority when the
# machine allows it, so that a neighbour's load (a compiler, a sanitized
# test beside this one) is not read as the link's delay.  $rt is a word
# list, not a function, so that "$rt CMD &" gives CMD's own pid.
want_realtime() {
	link_opts=--realtime
	rt=
	if command -v chrt >/dev/null 2>&1 && chrt -f 20 true 2>/dev/null; then
		rt="chrt -f 20"
	else
		say "no chrt or no real-time priority: the endpoints run at normal priority"
	fi
}

# timing_alone: this test holds a measurement to physics (an emulated
# link's or a relay's delay and rate) or loads the CPU on purpose (at
# real-time priority, or with a soak's traffic).  Such tests take turns,
# through a lock in the build tree, so that make check running tests side
# by side does not read one test's load as another's delay.  The lock is
# waited for 20 minutes at most, then the test goes on and says so.  A
# process of its own holds the lock until the test's shell is gone, so
# that nothing the test starts (an X server that outlives it) inherits it.
timing_alone() {
	command -v flock >/dev/null 2>&1 || return 0
	_ta_held=$workdir/timing-lock.held
	flock -w 1200 "$top_builddir/tests/.timing-lock" sh -c \
		'touch "$1"; while kill -0 "$2" 2>/dev/null && [ ! -e "$1.done" ]; do sleep 0.5; done' \
		sh "$_ta_held" $$ </dev/null >/dev/null 2>&1 &
	_ta_pid=$!
	_ta_asked=$(date +%s)
	while [ ! -e "$_ta_held" ]; do
		if ! kill -0 "$_ta_pid" 2>/dev/null; then
			say "the timing lock was not free after 20 minutes: measuring beside another test"
			return 0
		fi
		sleep 0.2
	done
	timing_waited=$(($(date +%s) - _ta_asked))
}

# timing_done: the test's timed part is over (what is left only reads
# and compares files); the next test that measures time may begin.
timing_done() {
	[ -n "${_ta_pid:-}" ] || return 0
	touch "$_ta_held.done"
	wait "$_ta_pid" 2>/dev/null
	_ta_pid=
}

# display_pid N: the pid of display N's X server, from its lock file (for
# a server a wrapper such as faketime started, which killing the wrapper
# would leave running).
display_pid() { tr -dc 0-9 <"/tmp/.X$1-lock" 2>/dev/null; }

# by_conn_dir [FILE]: dump lines in a stable order per record type,
# connection and direction.  Two packet sockets may see packets sent from
# two CPUs in either order; only the order within a direction must agree.
by_conn_dir() {
	awk '{ k = $1; for (i = 2; i <= NF; i++) if ($i ~ /^(id|conn|dir)=/) k = k " " $i
	       print k "\t" $0 }' "$@" | sort -s -t "$(printf '\t')" -k1,1 | cut -f2-
}

# sum_len DUMP AWK-PATTERN: the total of len= over the matching records.
sum_len() {
	awk "$2"' { for (i = 2; i <= NF; i++) if ($i ~ /^len=/) n += substr($i, 5) }
		END { printf "%.0f\n", n }' "$1"
}

# check_cut LIVE-DUMP REFERENCE-DUMP ERRFILE: the live xcap kept only the
# headers of packets inside large messages: their missing bytes are gaps
# of reason skipped, no more than those packets carried, while the
# reference (whole packets) has nothing truncated.  uncut then takes the
# truncation mark off the live records, for comparing them.
check_cut() {
	cut=$(sum_len "$1" '/^pkt .*events=[a-z,]*trunc/')
	skipped=$(sum_len "$1" '/^gap .*reason=skipped/')
	[ "$skipped" -gt 0 ] || no_kernel_cut "$3" || fail "$1: the kernel cut nothing: $(tail -1 "$3")"
	[ "$skipped" -le "$cut" ] || fail "$1: $skipped bytes skipped, more than the $cut of the cut packets"
	! grep -q '^pkt .*trunc' "$2" || fail "$2: the reference has truncated packets"
}
uncut() { sed -e 's/events=trunc/events=-/' -e 's/,trunc//' "$@"; }

# no_kernel_cut ERRFILE: true (and says why) when xcap kept whole packets
# because this kernel gives it no BPF maps (no eBPF, or not permitted),
# which is the machine's doing; any other refusal is xcap's, and a test
# that expects cutting fails on it.
no_kernel_cut() {
	grep -q 'keeping whole packets: cannot cut them in the kernel: cannot create a BPF map' "$1" &&
		sed -n 's/.*\(cannot create a BPF map: [^:]*\).*/\1/p' "$1" | head -n 1
}

# When the test began, for the line that says how long it took (the
# suite's running time is a budget: CI gives it 30 minutes).
test_started=$(date +%s)

# A scratch directory removed on exit, with everything started in it.
workdir=$(mktemp -d "${TMPDIR:-/tmp}/xcap-$test_name.XXXXXX")
pids=
cleanup_hooks=
at_exit() { cleanup_hooks="$cleanup_hooks
$*"; }
cleanup() {
	eval "$cleanup_hooks"
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	if [ -n "$keep_workdir" ]; then echo "$test_name: kept $workdir"; else rm -rf "$workdir"; fi
	[ "${timing_waited:-0}" = 0 ] || echo "$test_name: waited $timing_waited s for the timing lock"
	echo "$test_name: took $(($(date +%s) - test_started)) s"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# wait_for CMD...: retry for up to 10 s.
wait_for() {
	i=0
	while ! "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -gt 100 ] && return 1
		sleep 0.1
	done
}

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

# owns_display PID N: the X server PID holds display N's lock.  Another X
# server, or an xcap-run forwarding display, that took N between the look
# at the lock and the start would answer the readiness probe on N's port
# in the place of one that exited at once.
owns_display() { [ "$(tr -d ' \n' <"/tmp/.X$2-lock" 2>/dev/null)" = "$1" ]; }

# listen_inodes PORT: the socket inodes listening on TCP PORT in this
# network namespace (IPv4 or IPv6), one a line.
listen_inodes() {
	awk -v p="$(printf ':%04X' "$1")" 'substr($2, length($2) - 4) == p && $4 == "0A" { print $10 }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null
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
			if wait_for xdpyinfo -display "127.0.0.1:$n" && owns_display "$xpid" "$n" &&
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

# start_netplot FILE: netplot's window on $DISPLAY, with its own HOME (the
# file chooser records recent files there) and working directory (where a
# save dialog starts), logging what it shows to $log; waits until it has
# drawn the plot.
start_netplot() {
	(cd "$workdir" && HOME=$workdir NO_AT_BRIDGE=1 NETPLOT_LOG=1 exec netplot "$1" 2>"$workdir/log") &
	pids="$pids $!"
	log="$workdir/log"
	wait_for grep -q '^netplot: view ' "$log" || fail "netplot showed nothing: $(cat "$log")"
}

# start_capture NAME CMD...: run a capture command in the background,
# stderr to $workdir/NAME.err, and wait until it says it is listening.
start_capture() {
	name=$1; shift
	"$@" 2>"$workdir/$name.err" &
	eval "${name}_pid=$!"
	pids="$pids $!"
	wait_for grep -q "listening on" "$workdir/$name.err" ||
		fail "$name did not start: $(cat "$workdir/$name.err")"
}

# stop_capture NAME: SIGINT and wait for it to finish writing.
stop_capture() {
	eval "p=\$${1}_pid"
	kill -INT "$p"
	wait "$p" || fail "$1 exited with $?: $(cat "$workdir/$1.err")"
}
