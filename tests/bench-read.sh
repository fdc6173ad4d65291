#!/bin/sh
# bench-read.sh — reading captures from the page cache: xcap -r beside
# its floor (cat > /dev/null) and its peers, the old xcap beside the new.
#
# The input: a live capture of x11perf's image tests and then its small
# requests (about 875,000 packets, 1.1 GB), made in a private network
# namespace whose loopback has a 1500-byte MTU and no segmentation
# offload (gso_max_size 1500), so that the capture holds packets as a
# wire carries them; or BENCH_CAPTURE=FILE.pcap.  The same capture cut
# to 96-byte snaps (editcap -s 96) is the second input.
# Rows, each the median of BENCH_RUNS (5) runs, in one run of the script:
#   cat > /dev/null                      the floor: reading the file
#   xcap -r -w /dev/null --no-index      (and BENCH_OLD=XCAP, another build's)
#   tcpdump -r -w /dev/null              the peer that only copies packets
#   tshark -Y x11 -T fields              the peer that decodes X11 (once:
#                                        it takes minutes)
# Printed: wall seconds and CPU seconds (user + system: on a shared
# machine the steadier figure), packets/s, the time over cat's, the load
# average, and the issue's goals (full-size read within 1.1 x cat, the
# snap-length read at 20 M packets a second, X11 decoding 200 x
# tshark's rate) said met or not; then, when valgrind is
# installed (and BENCH_NO_CALLGRIND is unset), the instructions xcap
# executes on each input, old and new, in total and a packet, by
# callgrind: the same from run to run, however busy the machine.
# Figures only; nothing passes or fails.
#
#   tests/bench-read.sh [BUILD-DIR]   (as root unless BENCH_CAPTURE is given;
#                                      BENCH_KEEP=1 keeps the captures)
set -e
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top_srcdir/build}" && pwd)
xcap=$build/xcap/xcap
runs=${BENCH_RUNS:-5}
for c in editcap capinfos tcpdump perf; do
	command -v $c >/dev/null || { echo "bench-read: needs $c" >&2; exit 1; }
done
w=$(mktemp -d /tmp/xcap-bench-read.XXXXXX)
ns=xcapread$$
cleanup() {
	ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null || true
	sleep 0.2
	ip netns del $ns 2>/dev/null || true
	if [ -n "${BENCH_KEEP:-}" ]; then echo "bench-read: kept $w" >&2; else rm -rf "$w"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

if [ -n "${BENCH_CAPTURE:-}" ]; then
	ln -s "$(cd "$(dirname "$BENCH_CAPTURE")" && pwd)/$(basename "$BENCH_CAPTURE")" "$w/full.pcap"
else
	[ "$(id -u)" = 0 ] || { echo "bench-read: needs root (namespaces, capture)" >&2; exit 1; }
	for c in x11perf Xvfb mergecap; do
		command -v $c >/dev/null || { echo "bench-read: needs $c" >&2; exit 1; }
	done
	ip netns add $ns
	ip -n $ns link set lo mtu 1500 up
	ip -n $ns link set lo gso_max_size 1500
	inns() { ip netns exec $ns "$@"; }
	inns Xvfb :5 -listen tcp -nolisten unix -noreset -screen 0 1280x1024x24 >/dev/null 2>&1 &
	for i in $(seq 50); do inns xdpyinfo -display 127.0.0.1:5 >/dev/null 2>&1 && break; sleep 0.1; done
	# capture NAME X11PERF-ARGS: one x11perf run, captured whole
	capture() {
		name=$1; shift
		# Not through inns: a function in the background is a subshell,
		# which ignores SIGINT, and $! would be it, not tcpdump.
		ip netns exec $ns tcpdump -i lo -s 0 -B 262144 -w "$w/$name.pcap" tcp port 6005 \
			2>"$w/$name.err" &
		tp=$!
		for i in $(seq 100); do grep -q listening "$w/$name.err" && break; sleep 0.1; done
		inns x11perf -display 127.0.0.1:5 -repeat 1 -time 1 "$@" >/dev/null 2>&1 ||
			{ echo "bench-read: x11perf failed" >&2; exit 1; }
		sleep 0.5
		kill -INT $tp; wait $tp || true
		drops=$(grep -Eo '[0-9]+ packets dropped by kernel' "$w/$name.err" | grep -Eo '^[0-9]+')
		[ "${drops:-0}" = 0 ] || echo "bench-read: tcpdump dropped $drops packets of $name" >&2
	}
	capture images -reps 400 -putimage100 -putimage500 -getimage100 -getimage500 -shmput100 \
		-ftext -f8text -f9text -polytext16 -f14itext16
	capture requests -reps 20000 -noop -seg10 -dot -rect1 -prop -pointer -atom -ftext
	# The images' first 452,202 packets, then the requests, moved in time
	# past them.
	editcap -r "$w/images.pcap" "$w/img.pcap" 1-452202
	span=$(capinfos -a -e -S -T -r "$w/img.pcap" | awk -F'\t' 'NR == 1 { print int($3 - $2) + 200 }')
	editcap -t "$span" "$w/requests.pcap" "$w/req.pcap"
	mergecap -F pcap -a -w "$w/full.pcap" "$w/img.pcap" "$w/req.pcap"
	rm -f "$w/images.pcap" "$w/requests.pcap" "$w/img.pcap" "$w/req.pcap"
fi
editcap -s 96 "$w/full.pcap" "$w/snap.pcap"

# measure CMD...: "wall cpu" of one run in seconds, its output thrown
# away: the wall time of the command alone, then (a second run) the CPU
# its threads used, by perf's task-clock
measure() {
	start=$(date +%s%N)
	"$@" >/dev/null 2>&1 || true
	end=$(date +%s%N)
	perf stat -x, -e task-clock -o "$w/time" "$@" >/dev/null 2>&1 || true
	awk -F, -v t=$((end - start)) '$3 ~ /task-clock/ { printf "%.4f %.4f\n", t / 1e9, $1 / 1e3 }' "$w/time"
}
# median N CMD...: the median wall and the median CPU of N runs
median() {
	n=$1; shift
	for i in $(seq "$n"); do measure "$@"; done >"$w/runs"
	wall=$(sort -g -k1,1 "$w/runs" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	cpu=$(sort -g -k2,2 "$w/runs" | awk '{ v[NR] = $2 } END { print v[int((NR + 1) / 2)] }')
	echo "$wall $cpu"
}
printf '%-34s %-5s %9s %8s %8s %12s %8s\n' reader input packets wall_s cpu_s packets/s "x cat"
for input in full snap; do
	f=$w/$input.pcap
	cat "$f" >/dev/null
	pk=$(capinfos -M -c -T -r "$f" | cut -f2)
	floor=$(median "$runs" cat "$f")
	row() {	# row LABEL "WALL CPU"
		echo "$1 $input $pk $2 ${floor%% *}" | awk '{
			printf "%-34s %-5s %9d %8.4f %8.4f %12.0f %8.2f\n",
			       $1, $2, $3, $4, $5, $3 / $4, $4 / $6 }' | sed 's/_/ /g'
	}
	echo "($input: load $(cut -d' ' -f1-3 /proc/loadavg))"
	row "cat_>_/dev/null_(floor)" "$floor"
	new=$(median "$runs" "$xcap" -q -r "$f" -w /dev/null --no-index)
	row "xcap_-r_-w_/dev/null_--no-index" "$new"
	if [ -n "${BENCH_OLD:-}" ]; then
		row "(old)_xcap_-r" "$(median "$runs" "$BENCH_OLD" -q -r "$f" -w /dev/null --no-index)"
	fi
	row "tcpdump_-r_-w_/dev/null" "$(median "$runs" tcpdump -r "$f" -w /dev/null)"
	if command -v tshark >/dev/null && [ -z "${BENCH_NO_TSHARK:-}" ]; then
		tshark=$(median 1 tshark -r "$f" -Y x11 -T fields \
			-e frame.number -e x11.opcode -e x11.reply-sequencenumber -e x11.eventcode \
			-e x11.event-sequencenumber -e x11.errorcode)
		row "tshark_-Y_x11_-T_fields_(once)" "$tshark"
		echo "${new%% *} ${tshark%% *}" | awk '{ printf "goal (X11 decoding >= 200 x tshark): %.0f x: %s\n",
			$2 / $1, ($2 / $1 >= 200) ? "met" : "not met" }'
	fi
	# The issue's goals: a file of full-size packets read within 1.1 x
	# cat's time; one cut to 96-byte snaps at 20 M packets a second.
	[ "$input" != full ] || echo "${new%% *} ${floor%% *}" | awk '{
		printf "goal (full-size read <= 1.1 x cat, wall): %.2f x: %s\n", $1 / $2, ($1 <= 1.1 * $2) ? "met" : "not met" }'
	[ "$input" != snap ] || echo "${new%% *} $pk" | awk '{
		printf "goal (snap-length read >= 20 M packets/s, wall): %.1f M: %s\n", $2 / $1 / 1e6, ($2 / $1 >= 20e6) ? "met" : "not met" }'
done
# instructions LABEL XCAP: callgrind's count of one run on each input
instructions() {
	for input in full snap; do
		f=$w/$input.pcap
		pk=$(capinfos -M -c -T -r "$f" | cut -f2)
		valgrind --tool=callgrind --callgrind-out-file=/dev/null "$2" -q -r "$f" \
			-w /dev/null --no-index 2>"$w/cg" >/dev/null || true
		ir=$(sed -n 's/.*refs: *//p' "$w/cg" | tr -d ,)
		echo "$1 $input $pk ${ir:-0}" | awk '{
			printf "%-34s %-5s %9d %14.0f %10.0f\n", $1, $2, $3, $4, $4 / $3 }' | sed 's/_/ /g'
	done
}
if command -v valgrind >/dev/null && [ -z "${BENCH_NO_CALLGRIND:-}" ]; then
	echo
	printf '%-34s %-5s %9s %14s %10s\n' "instructions (callgrind)" input packets total "a packet"
	instructions "xcap_-r_-w_/dev/null_--no-index" "$xcap"
	[ -z "${BENCH_OLD:-}" ] || instructions "(old)_xcap_-r" "$BENCH_OLD"
fi
