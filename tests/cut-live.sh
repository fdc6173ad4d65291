#!/bin/sh
# cut-live.sh — the kernel leaves out image data, and nothing else changes.
#
# Two xcaps capture the same x11perf image and text run on loopback: one
# cutting packets inside large X11 messages in the kernel (the default),
# one keeping whole packets (-k; tcpdump, as a reference, drops packets of
# this load).  For every connection both saw from its SYN, the traces
# must hold the same packet records, messages and notes; the only
# difference allowed is that
# payload the decoder skips is missing, recorded as gaps of reason
# "skipped", and the packets it came from are marked truncated.  A client
# already running when the capture starts is handed to the kernel in its
# lost state: its guesses must be confirmed and its image data cut too.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root x11perf xdpyinfo
# The cutter's own bookkeeping (how often the kernel lost track, its
# guesses confirmed and refuted) is printed only when asked for.
XCAP_CUT_LOG=1
export XCAP_CUT_LOG
start_xvfb
port=$((6000 + display))
filter="tcp port $port"

for try in 1 2 3; do
	# A connection older than the capture.
	x11perf -repeat 1 -time 3 -putimage500 >/dev/null 2>&1 & early=$!
	sleep 1
	start_capture live xcap -i lo -w "$workdir/live.xcap" $filter
	start_capture ref xcap -k -i lo -w "$workdir/ref.xcap" $filter
	x11perf -repeat 1 -reps 40 -putimage10 -putimage100 -putimage500 -getimage100 \
		-getimage500 -rect10 -ftext >/dev/null 2>&1 || fail "x11perf failed"
	xdpyinfo >/dev/null || fail "xdpyinfo failed"
	wait $early
	stop_capture live
	stop_capture ref
	xcapanalyse --dump "$workdir/ref.xcap" >"$workdir/ref.txt" || fail "cannot decode the whole capture"
	# Connections both captures saw begin, by id (the ids agree: both
	# number connections in the order their first packets came).
	syn_ids=$(awk '/^conn .*flags=syn/ { for (i = 2; i <= NF; i++) if ($i ~ /^id=/) print substr($i, 4) }' \
		"$workdir/ref.txt" | sort -u | tr '\n' ' ')
	[ -n "$syn_ids" ] || fail "no connection began during the capture"
	# The reference must be whole on them.
	lost=$(awk -v ids=" $syn_ids" '/^gap / { for (i = 2; i <= NF; i++) if ($i ~ /^conn=/ &&
		index(ids " ", " " substr($i, 6) " ")) n++ } END { printf "%.0f\n", n }' "$workdir/ref.txt")
	[ "$lost" = 0 ] && break
	[ $try = 3 ] && skip "the reference capture lost packets 3 times: $(tail -2 "$workdir/ref.err")"
done
xcapanalyse --dump "$workdir/live.xcap" >"$workdir/live.txt" || fail "cannot decode the live trace"
why=$(no_kernel_cut "$workdir/live.err") && skip "this kernel cannot cut packets: $why"
check_begin "xcap cut packets in the kernel"
grep -q 'keeping whole packets' "$workdir/live.err" &&
	fail "xcap did not cut: $(grep 'keeping whole' "$workdir/live.err")"
check_end

# Records of those connections, without time stamps (each packet socket
# takes its own), in a stable order per connection and direction.  Two
# packet sockets may see packets sent from two CPUs in either order, so
# packet records are compared as a set.
records() {	# FILE TYPES
	awk -v ids=" $syn_ids" -v types="$2" '
		{ if (index(" " types " ", " " $1 " ") == 0) next
		  c = ""
		  for (i = 2; i <= NF; i++)
			if ($i ~ /^(conn|id)=/) c = substr($i, index($i, "=") + 1)
		  if (index(ids " ", " " c " ") == 0) next
		  line = $0; gsub(/ t=[0-9.]*/, "", line); gsub(/ events=[a-z,-]*/, "", line)
		  print line }' "$1" | by_conn_dir
}
for kind in pkt msg note; do
	check_begin "$kind records: the same in the whole and the cut capture"
	order=cat
	[ $kind = pkt ] && order=sort
	records "$workdir/ref.txt" "$kind" | $order >"$workdir/ref.$kind"
	records "$workdir/live.txt" "$kind" | $order >"$workdir/live.$kind"
	diff -u "$workdir/ref.$kind" "$workdir/live.$kind" >"$workdir/diff.$kind" ||
		fail "$kind records differ between the whole and the cut capture: $(head -20 "$workdir/diff.$kind")"
	check_end
done
messages=$(wc -l <"$workdir/live.msg")
check_begin "more than 1000 messages decoded"
[ "$messages" -gt 1000 ] || fail "only $messages messages decoded"
check_end

# What was left out is recorded, and only that.
records "$workdir/live.txt" gap >"$workdir/live.gap"
other=$(grep -vc 'reason=skipped' "$workdir/live.gap")
check_begin "the cut capture's only gaps are the skipped bytes"
[ "$other" = 0 ] || fail "the cut capture has $other gaps other than skipped ones: $(grep -v 'reason=skipped' "$workdir/live.gap" | head -3)"
check_end
# A run of skipped bytes is one gap; together they are no more than the
# payload of the packets marked truncated.
skipped=$(sum_len "$workdir/live.txt" '/^gap .*reason=skipped/')
truncated=$(sum_len "$workdir/live.txt" '/^pkt .*events=[a-z,]*trunc/ && !/retrans/')
cut=$(grep '^pkt .*events=[a-z,]*trunc' "$workdir/live.txt" | grep -vc retrans)
check_begin "the bytes skipped are no more than the truncated packets carried"
[ "$skipped" -gt 0 ] && [ "$skipped" -le "$truncated" ] ||
	fail "$skipped bytes skipped, but the truncated packets carry $truncated"
check_end
data=$(grep '^pkt ' "$workdir/live.txt" | grep -vc ' len=0 ')
check_begin "more than a tenth of the packets with data were cut"
[ "$cut" -gt $((data / 10)) ] ||
	fail "only $cut of $data packets with data were cut"
check_end

# The connection that began before the capture: its lost state was
# handed over, the kernel's guesses confirmed, and its data cut.
old_id=$(awk '/^conn / && !/flags=syn/ { for (i = 2; i <= NF; i++) if ($i ~ /^id=/) { print substr($i, 4); exit } }' \
	"$workdir/live.txt")
check_begin "the connection older than the capture is there, and cut"
[ -n "$old_id" ] || fail "the connection older than the capture is missing"
old_cut=$(grep -c "^gap conn=$old_id .*reason=skipped\|^gap t=[0-9.]* conn=$old_id .*reason=skipped" "$workdir/live.txt")
[ "$old_cut" -gt 0 ] || fail "nothing was cut on the connection older than the capture: $(tail -2 "$workdir/live.err")"
check_end
check_begin "the kernel's guesses on the older connection were confirmed"
grep -q ' [1-9][0-9]* of its guesses were confirmed' "$workdir/live.err" ||
	fail "no guess was confirmed: $(tail -1 "$workdir/live.err")"
check_end
say "$messages messages; $cut of $data packets with data cut ($skipped bytes) ($old_cut on a connection older than the capture); $(grep -o "the kernel lost.*" "$workdir/live.err")"
