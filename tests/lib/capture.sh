# tests/lib/capture.sh — captures started and stopped around a test, and
# the helpers that compare their dumps (order per direction, the kernel's
# cut of large messages).
#
# Belongs to: the tests' shell library (sourced by tests/lib.sh).

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
