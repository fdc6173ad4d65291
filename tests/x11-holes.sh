#!/bin/sh
# x11-holes.sh — heavy loss inside regular streams of long requests.
#
# x11perf -rect10 sends 8 KB PolyFillRectangles whose rectangles read as
# 8-byte requests; -putimage10 sends small PutImages; -getimage10's replies
# are a regular stream on the server's side.  Captured complete
# over TCP loopback, then copies with holes cut by editcap: single
# segments and runs of segments hundreds of KB long, at several offsets.
# Decoded, a holed copy must report no request the client did not send
# (same TCP position, opcode and length as in the complete capture), and
# its count of undecoded client bytes must account for what it neither
# reported nor lost (tests/x11-holes-compare.py).  A run may cross from the
# first connection into the second: the bytes it cut at the first one's end
# and the second one's start are then not in the capture at all (no later
# segment shows a hole), and the accounting spans what the capture holds
# (tests/x11-holes-accounting.sh keeps such a case).  Again with every
# sequence number moved so that each stream wraps past 2**32.  Last, copies begun
# at four places inside the -rect10 stream and one inside -getimage10's, as
# captures started late are.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root tcpdump tshark editcap x11perf /usr/bin/python3
start_xvfb
port=$((6000 + display))
for try in 1 2 3; do
	start_capture td tcpdump -i lo -s 0 -B 262144 -U -w "$workdir/full.pcap" "tcp port $port"
	for t in -rect10 -putimage10 -getimage10; do
		x11perf -repeat 1 -reps 1500 $t >"$workdir/x11perf$t.log" 2>&1 || fail "x11perf $t failed"
	done
	stop_capture td
	xcapanalyse --dump "$workdir/full.pcap" >"$workdir/full.dump" || fail "cannot decode the complete capture"
	grep -q '^gap ' "$workdir/full.dump" || break	# the reference must be complete
	[ $try = 3 ] && skip "tcpdump lost packets of the reference capture 3 times"
done

# The client's segments with data: frame number and length, in the
# -rect10 and -putimage10 connections (-getimage10's is the last).
tshark -r "$workdir/full.pcap" -Y "tcp.dstport == $port && tcp.len > 0" \
	-T fields -e frame.number -e tcp.len -e tcp.srcport >"$workdir/all-segs" || fail "tshark failed"
last=$(tail -1 "$workdir/all-segs" | cut -f3)
awk -v last="$last" -F '\t' '$3 != last { print $1 "\t" $2 }' "$workdir/all-segs" >"$workdir/segs"
nseg=$(wc -l <"$workdir/segs")
[ "$nseg" -ge 100 ] || fail "only $nseg client segments captured"

# editcap deletes frames: one segment at 10 %, 25 % and 40 %; at 60 % and
# 80 %, runs of segments of at least 300 KB.
holes=""
for pct in 10 25 40; do
	holes="$holes $(sed -n "$((nseg * pct / 100))p" "$workdir/segs" | cut -f1)"
done
for pct in 60 80; do
	run=$(tail -n +"$((nseg * pct / 100))" "$workdir/segs" |
		awk 'NR == 1 { first = $1 } { sum += $2; if (sum >= 300000) { print first "-" $1; exit } }')
	holes="$holes $run"
done
# The server's side: -getimage10's stream of 432-byte replies; one segment
# at 30 %, 50 % and 70 % of the server's segments, and at 85 % a run of
# them of at least 100 KB.
tshark -r "$workdir/full.pcap" -Y "tcp.srcport == $port && tcp.len > 0" \
	-T fields -e frame.number -e tcp.len >"$workdir/server-segs" || fail "tshark failed"
nss=$(wc -l <"$workdir/server-segs")
[ "$nss" -ge 50 ] || fail "only $nss server segments captured"
for pct in 30 50 70; do
	holes="$holes $(sed -n "$((nss * pct / 100))p" "$workdir/server-segs" | cut -f1)"
done
holes="$holes $(tail -n +"$((nss * 85 / 100))" "$workdir/server-segs" |
	awk 'NR == 1 { first = $1 } { sum += $2; if (sum >= 100000) { print first "-" $1; exit } }')"
editcap "$workdir/full.pcap" "$workdir/holes.pcap" $holes || fail "editcap failed"
xcapanalyse --dump "$workdir/holes.pcap" >"$workdir/holes.dump" || fail "cannot decode the holed capture"
grep -q '^gap .*dir=c2s.*reason=lost' "$workdir/holes.dump" || fail "no client holes recorded"
grep -q '^gap .*dir=s2c.*reason=lost' "$workdir/holes.dump" || fail "no server holes recorded"
[ -n "$X11_HOLES_KEEP" ] && cp "$workdir/full.pcap" "$workdir/holes.pcap" "$X11_HOLES_KEEP/"
/usr/bin/python3 "$top_srcdir/tests/x11-holes-compare.py" "$workdir/full.dump" "$workdir/holes.dump" \
	>"$workdir/holes.cmp" || { cat "$workdir/holes.cmp"
	fail "requests invented or undecoded bytes miscounted after holes"; }
cat "$workdir/holes.cmp"
# The same captures renumbered so that every connection's sequence numbers
# wrap past 2**32 inside its stream (the client's 500 KB in, the server's
# 100 KB in), as a connection does whose first number was drawn close
# below it: the decode must say the same of them.
/usr/bin/python3 "$top_srcdir/tests/seq-shift.py" "$workdir/full.pcap" "$workdir/full-wrap.pcap" \
	"$port" 500000 100000 || fail "cannot renumber the capture"
editcap "$workdir/full-wrap.pcap" "$workdir/holes-wrap.pcap" $holes || fail "editcap failed"
for f in full holes; do
	xcapanalyse --dump "$workdir/$f-wrap.pcap" >"$workdir/$f-wrap.dump" ||
		fail "cannot decode the renumbered $f capture"
done
/usr/bin/python3 "$top_srcdir/tests/x11-holes-compare.py" "$workdir/full-wrap.dump" "$workdir/holes-wrap.dump" \
	>"$workdir/holes-wrap.cmp"
cmp -s "$workdir/holes.cmp" "$workdir/holes-wrap.cmp" || { diff "$workdir/holes.cmp" "$workdir/holes-wrap.cmp"
	fail "the decode of a capture whose sequence numbers wrap differs from the original's"; }
# The server's numbers have 16 bits: after a client hole that could hold
# 65,536 requests (over 256 KB; the runs above are 300 KB), a count taken
# from a reply is right modulo 65,536 only, and the decoder must say so.
awk '/^gap .*dir=c2s .*reason=lost/ {
	match($0, /conn=[0-9]+/); c = substr($0, RSTART, RLENGTH)
	match($0, /len=[0-9]+/); if (substr($0, RSTART + 4, RLENGTH - 4) + 0 > 262144) big[c] = 1 }
/^note .*request numbers taken from a reply/ {
	match($0, /conn=[0-9]+/); c = substr($0, RSTART, RLENGTH)
	if (big[c]) { n++; if ($0 !~ /right modulo 65536 only/) { print; bad = 1 } } }
END { print n + 0; exit bad }' "$workdir/holes.dump" >"$workdir/wrapped" ||
	fail "a count taken after a hole of over 256 KB is not said to be right modulo 65536 only: $(head -1 "$workdir/wrapped")"
[ "$(tail -1 "$workdir/wrapped")" -gt 0 ] ||
	fail "no count was taken from a reply after the holes of over 256 KB (x11perf syncs after every repetition)"
say "counts taken from a reply after a hole of over 256 KB, said to be modulo 65536: $(tail -1 "$workdir/wrapped")"

# Captures begun inside the -rect10 stream: their first bytes are the
# middle of a request, and the framing found there is a guess until
# confirmed.  Where the start falls decides what the first bytes read as,
# so four starts.
# And one begun halfway through -getimage10, inside its replies' pixels.
half=$(awk -v last="$last" -F '\t' '$3 == last' "$workdir/all-segs" | wc -l)
half=$(awk -v last="$last" -v n=$((half / 2)) -F '\t' '$3 == last && ++k == n { print $1 }' "$workdir/all-segs")
for pct in 3 6 9 12 getimage; do
	if [ $pct = getimage ]; then
		late=$half
	else
		late=$(sed -n "$((nseg * pct / 100))p" "$workdir/segs" | cut -f1)
	fi
	editcap "$workdir/full.pcap" "$workdir/late.pcap" 1-$((late - 1)) || fail "editcap failed"
	xcapanalyse --dump "$workdir/late.pcap" >"$workdir/late.dump" || fail "cannot decode the late capture"
	grep -q 'dir=c2s text="no connection setup' "$workdir/late.dump" ||
		fail "the capture begun at $pct % has its setup"
	[ -n "$X11_HOLES_KEEP" ] && cp "$workdir/late.pcap" "$X11_HOLES_KEEP/late$pct.pcap"
	/usr/bin/python3 "$top_srcdir/tests/x11-holes-compare.py" "$workdir/full.dump" "$workdir/late.dump" \
		>"$workdir/late.cmp" || { cat "$workdir/late.cmp"
		fail "requests invented or undecoded bytes miscounted in a capture begun at $pct %"; }
	cat "$workdir/late.cmp"
	# Inside -getimage10's replies the server's framing is first guessed
	# in pixels: the messages read from the guess must contradict it and
	# the search go on, until the replies' boundaries are found again.
	if [ $pct = getimage ]; then
		got=$(sed -n 's/^server: [0-9]* messages sent, \([0-9]*\) reported.*/\1/p' "$workdir/late.cmp")
		[ "${got:-0}" -gt 0 ] || fail "no server message recovered in the capture begun inside -getimage10"
		grep -q 'dir=s2c text="could not decode [0-9]* bytes; message boundaries found again' \
			"$workdir/late.dump" || fail "the server's boundaries were not found again"
	fi
done
say "no request invented after heavy loss or a late start; undecoded bytes counted"
