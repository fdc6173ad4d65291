#!/bin/sh
# soak.sh — xcap live for minutes under mixed X traffic, rotating files.
#
# Three captures of the same traffic at once, on loopback:
#   - xcap -G (the soak): its files together must hold every packet and
#     message the reference holds, per connection and direction in the
#     same order, with the TCP sequence numbers following on across the
#     rotations; its resident memory, sampled every 2 s, must not grow
#     over the run (a leak, not a speed);
#   - tcpdump -w, read afterwards with xcap -r (the reference);
#   - a second xcap -G, SIGKILLed at a random moment: every file it left
#     must read to its last complete block (the last one may say it was
#     cut short, with status 1 as xcapanalyse(1) documents), and what it
#     holds must be the beginning of what the reference holds.
# The traffic, bounded loops until the deadline: x11perf subsets in
# synchronous mode (many small round trips), kept to a few thousand
# packets a second so that tcpdump, writing whole packets, keeps up, xterm printing, xdpyinfo and
# gtk3-demo starting and quitting (connections opened and closed all the
# time, which is where a leak of per-connection state would show).
#
# SOAK_SECONDS (default 75) lengthens it; files rotate 8 times a run.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root tcpdump x11perf xterm xdpyinfo gtk3-demo
timing_alone
# Under the sanitizers the shortest soak that still has two halves.
if sanitized; then seconds=${SOAK_SECONDS:-40}; else seconds=${SOAK_SECONDS:-75}; fi
[ "$seconds" -ge 40 ] || fail "SOAK_SECONDS=$seconds: at least 40 s, to have a first and a second half"
rotate=$((seconds / 8))
start_xvfb
port=$((6000 + display))
filter="tcp port $port"
mkdir "$workdir/soak" "$workdir/killed"

start_capture soak xcap -i lo -G "$rotate" -w "$workdir/soak/soak.xcap" $filter
start_capture killed xcap -i lo -G 3 -w "$workdir/killed/killed.xcap" $filter
start_capture ref tcpdump -i lo -s 0 -B 131072 --time-stamp-precision=nano -w "$workdir/ref.pcap" $filter

# Resident memory of the soak xcap: seconds since the start, VmRSS and
# RssAnon in KiB.  VmRSS includes the capture ring, a fixed mapping the
# kernel fills in its first pass; RssAnon is the heap, where a leak grows.
t0=$(date +%s)
(while kill -0 "$soak_pid" 2>/dev/null; do
	awk -v t=$(($(date +%s) - t0)) '/^VmRSS:/ { v = $2 } /^RssAnon:/ { a = $2 }
		END { if (v != "") print t, v, a }' "/proc/$soak_pid/status" 2>/dev/null
	sleep 2
done) >"$workdir/rss" &
pids="$pids $!"

deadline=$((t0 + seconds))
running() { [ "$(date +%s)" -lt "$deadline" ]; }
(while running; do
	x11perf -sync -repeat 1 -time 0.3 -rect10 -seg10 -getimage10 -prop -atom >/dev/null 2>&1
	sleep 1
done) &
load1=$!
(while running; do
	xterm -geometry 80x24 -e sh -c 'seq 1 4000; ls -l /usr/bin | head -300' >/dev/null 2>&1
done) &
load2=$!
(while running; do
	xdpyinfo -ext all >/dev/null 2>&1
	sleep 0.3
done) &
load3=$!
(while running; do
	gtk3-demo >/dev/null 2>&1 & g=$!
	sleep 4
	kill $g 2>/dev/null; wait $g 2>/dev/null
done) &
load4=$!
pids="$pids $load1 $load2 $load3 $load4"

# The SIGKILL, somewhere in the middle third of the run.
kill_at=$((seconds / 3 + $(od -An -N2 -tu2 /dev/urandom) % (seconds / 3)))
sleep "$kill_at"
kill -KILL "$killed_pid"
wait "$killed_pid" 2>/dev/null
say "killed the second xcap after ${kill_at} s"
wait $load1 $load2 $load3 $load4
sleep 1.2	# tcpdump hands over its last ring block after its 1 s timeout
stop_capture soak
stop_capture ref
timing_done	# the rest reads files: the next timed test need not wait for it

# Memory: the heap's and the whole resident set's highest sample in the
# second half against the first half's.  Each sample is taken after the
# same kinds of traffic have run many times over, so a steady state holds
# the same connections and buffers; what is allowed on top is one more
# reassembly buffer of a large message and the allocator keeping freed
# pages (glibc returns them to the system in steps of its 128 KiB trim
# threshold): 1 MiB.  A leak of a few bytes per packet (tens of thousands
# a second here) or per connection's state passes that within a minute.
# Under AddressSanitizer freed memory is held in its quarantine (up to
# 256 MiB) and the resident set grows by design: there LeakSanitizer,
# when xcap exits, is the check of leaks, and the samples are only shown.
samples=$(wc -l <"$workdir/rss")
[ "$samples" -ge 10 ] || fail "only $samples memory samples: $(cat "$workdir/rss")"
asan=
ldd "$(command -v xcap)" 2>/dev/null | grep -q libasan && asan=1
[ -z "$asan" ] || say "xcap runs under AddressSanitizer: its memory is not judged by the samples"
[ -n "$asan" ] || awk -v half=$((seconds / 2)) -v slack=1024 -v name="$test_name" '
	$1 < half { if ($2 > v1) v1 = $2; if ($3 > a1) a1 = $3; next }
	{ if ($2 > v2) v2 = $2; if ($3 > a2) a2 = $3 }
	END {
		printf "%s: VmRSS max %d KiB in the first half, %d KiB in the second; RssAnon %d, %d KiB\n",
			name, v1, v2, a1, a2
		exit !(v2 <= v1 + slack && a2 <= a1 + slack)
	}' "$workdir/rss" || fail "xcap's memory grew over the run: $(cat "$workdir/rss" | tr '\n' ' ')"

# dump_union DIR: the dumps of the files in DIR, in order of their names
# (times), as one: the records of packets and messages, each connection
# named by its client and server ports (a file numbers its connections
# its own way) and the how-manyth connection of those ports it is (a port
# comes round again in a long run: each client's SYN starts the next),
# without time stamps and the kernel's cut marks.  Two
# packet sockets may see the packets sent from two CPUs in either order
# (a live capture then marks one out of order, events=ooo, where the
# other does not), so a direction's packets are compared as a set: sorted,
# without their events; its messages, the reassembled stream, in order.
dump_union() {
	for f in "$1"/*.xcap; do
		cat "$f.txt"
	done | uncut | awk '
		/^trace / { delete key }
		/^conn / { for (i = 2; i <= NF; i++) { split($i, kv, "=")
				if (kv[1] == "id") id = kv[2]
				if (kv[1] == "client") c = kv[2]
				if (kv[1] == "server") s = kv[2] }
			key[id] = c "-" s; next }
		/^pkt .* flags=S / { match($0, / conn=[0-9]+/); gen[key[substr($0, RSTART + 6, RLENGTH - 6)]]++ }
		/^(pkt|msg) / { for (i = 2; i <= NF; i++) {
				if ($i ~ /^t=/ || ($1 == "pkt" && $i ~ /^events=/)) $i = ""
				else if ($i ~ /^conn=/) { k = key[substr($i, 6)]; $i = "conn=" k "#" gen[k] } }
			print }' | tr -s ' ' | by_conn_dir >"$workdir/union.tmp"
	grep '^msg ' "$workdir/union.tmp"
	grep '^pkt ' "$workdir/union.tmp" | sort
}

# The soak's files: each reads cleanly on its own, none dropped a packet.
files=$(ls "$workdir/soak" | grep -c '\.xcap$')
[ "$files" -ge 6 ] || fail "expected about 8 rotated files, saw $files"
for f in "$workdir"/soak/*.xcap; do
	xcapanalyse --dump "$f" >"$f.txt" 2>"$f.err" || fail "$f: $(cat "$f.err")"
	[ ! -s "$f.err" ] || fail "$f: $(cat "$f.err")"
	! grep -q '^stats .*kernel_drop=[1-9]' "$f.txt" || fail "$f: the kernel dropped packets: $(grep '^stats' "$f.txt")"
done

# The reference, unless tcpdump itself lost packets (then there is none).
grep -q '^0 packets dropped by kernel' "$workdir/ref.err" ||
	skip "tcpdump dropped packets, no reference to compare with: $(grep dropped "$workdir/ref.err")"
xcap -q -r "$workdir/ref.pcap" -w "$workdir/ref.xcap" || fail "xcap -r failed"
mkdir "$workdir/refdir" && mv "$workdir/ref.xcap" "$workdir/refdir/"
xcapanalyse --dump "$workdir/refdir/ref.xcap" >"$workdir/refdir/ref.xcap.txt" || fail "cannot dump the reference"
dump_union "$workdir/refdir" >"$workdir/ref.union"
dump_union "$workdir/soak" >"$workdir/soak.union"
grep '^pkt ' "$workdir/soak.union" >"$workdir/soak.pkts"
pkts=$(grep -c '^pkt ' "$workdir/ref.union")
conns=$(grep '^pkt ' "$workdir/ref.union" | sed 's/.* conn=\([^ ]*\).*/\1/' | sort -u | wc -l)
msgs=$(grep -c '^msg ' "$workdir/ref.union")
say "$files files, $conns connections, $pkts packets, $msgs messages in the reference"
[ "$conns" -ge 10 ] || fail "expected many connections, saw $conns"
diff "$workdir/ref.union" "$workdir/soak.union" >"$workdir/diff" ||
	fail "the rotated files differ from the reference ($(grep -c '^<' "$workdir/diff") records only there, $(grep -c '^>' "$workdir/diff") only in the files): $(head -6 "$workdir/diff")"

# Sequence continuity across the files: in each direction the packets
# cover the sequence numbers from the first to the last without a hole
# (SYN and FIN take one number each; a retransmission, which loopback
# has too when the kernel reorders, overlaps and is no hole).
holes=$(awk '
	{ for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	  k = f["conn"] "/" f["dir"]; s = f["seq"] + 0
	  if (!(k in first)) first[k] = s
	  rel = (s - first[k] + 4294967296) % 4294967296
	  if (rel >= 2147483648) rel -= 4294967296
	  print k, rel, f["len"] + (f["flags"] ~ /[SF]/ ? 1 : 0) }' "$workdir/soak.pkts" |
	sort -k1,1 -k2,2n | awk '
	$1 != k { k = $1; end = $2 }
	$2 > end { n++; print "hole in " k " at " end " (" $2 - end " numbers)" >"/dev/stderr" }
	$2 + $3 > end { end = $2 + $3 }
	END { print n + 0 }' 2>"$workdir/holes")
[ "$holes" = 0 ] || fail "$holes holes in the sequence numbers: $(head -3 "$workdir/holes")"

# The killed capture: every file reads; only the last may be cut short.
set -- "$workdir"/killed/*.xcap
[ $# -ge 2 ] || fail "the killed capture left $# files"
n=0
for f in "$@"; do
	n=$((n + 1))
	xcapanalyse --dump "$f" >"$f.txt" 2>"$f.err"
	status=$?
	if [ $n -lt $# ]; then
		[ $status = 0 ] && [ ! -s "$f.err" ] || fail "$f (before the last) status $status: $(cat "$f.err")"
	elif [ $status = 0 ]; then
		[ ! -s "$f.err" ] || fail "$f: status 0 with messages: $(cat "$f.err")"
		say "the last file of the killed capture ended on a whole block"
	else
		[ $status = 1 ] || fail "$f: status $status, not 1: $(cat "$f.err")"
		grep -q "cut short" "$f.err" || fail "$f: status 1 without saying it was cut short: $(cat "$f.err")"
		say "the last file of the killed capture: $(head -1 "$f.err")"
	fi
done
# What the killed capture holds is where the reference begins, connection
# by connection: each direction's messages the first of the reference's,
# in order, and each packet one of the reference's (nothing made up).
dump_union "$workdir/killed" >"$workdir/killed.union"
kept=$(grep -c '^pkt ' "$workdir/killed.union")
[ "$kept" -gt 0 ] || fail "the killed capture holds no packet"
awk 'NR == FNR { if ($1 == "msg") { k = $2 " " $3; ref[k, ++nref[k]] = $0 } else pkt[$0]++; next }
	$1 == "msg" { k = $2 " " $3
		if (ref[k, ++seen[k]] != $0) { print "message " seen[k] " of " k " differs: " $0; exit 1 } }
	$1 == "pkt" && !(pkt[$0]-- > 0) { print "a packet not in the reference: " $0; exit 1 }' \
	"$workdir/ref.union" "$workdir/killed.union" >"$workdir/prefix" ||
	fail "the killed capture is not the beginning of the reference: $(cat "$workdir/prefix")"
say "the killed capture's $# files hold $kept of the $pkts packets"
