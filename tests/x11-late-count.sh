#!/bin/sh
# x11-late-count.sh — a capture begun late numbers requests right or says
# it cannot, and no table counts a guessed pairing as fact.
#
# xterm's start-up on Xvfb (tests/captures/xterm-input.pcap) is cut at
# several packets with editcap -r, so that each copy begins mid-connection.
# Its first replies answer InternAtoms whose replies all have one length:
# the first reply fits a count one too high as well as the right one, and
# only a later reply of another length (QueryFont's) tells them apart.
# Each cut copy must number no request or server message otherwise than the
# whole capture does (x11-holes-compare.py), and every round trip it shows
# must be one of the whole capture's, with the same number, request, wait
# and queued time.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need editcap /usr/bin/python3
cap="$top_srcdir/tests/captures/xterm-input.pcap"
xcapanalyse --dump "$cap" >"$workdir/full.dump" || fail "cannot decode $cap"
trips() {	# trips CAPTURE: seq, extension, request, answer, wait, queued
	xcapanalyse --round-trips --format csv "$1" 2>/dev/null | tail -n +2 | cut -d, -f3-8 | sort
}
trips "$cap" >"$workdir/full.trips"
for first in 5 9 15 21 31 61; do
	editcap -r "$cap" "$workdir/late.pcap" "$first-1000000" || fail "editcap failed"
	xcapanalyse --dump "$workdir/late.pcap" >"$workdir/late.dump" || fail "cannot decode the cut copy"
	grep -q 'text="no connection setup' "$workdir/late.dump" ||
		fail "the copy begun at packet $first has its setup"
	/usr/bin/python3 "$top_srcdir/tests/x11-holes-compare.py" "$workdir/full.dump" "$workdir/late.dump" \
		>"$workdir/late.cmp" || fail "begun at packet $first: $(cat "$workdir/late.cmp")"
	grep -q ' 0 invented, 0 misnumbered' "$workdir/late.cmp" ||
		fail "begun at packet $first: $(cat "$workdir/late.cmp")"
	trips "$workdir/late.pcap" >"$workdir/late.trips"
	wrong=$(comm -23 "$workdir/late.trips" "$workdir/full.trips" | head -3)
	[ -z "$wrong" ] || fail "begun at packet $first: round trips the whole capture does not have: $wrong"
	n=$(wc -l <"$workdir/late.trips")
	[ "$n" -gt 100 ] || fail "begun at packet $first: only $n round trips"
	say "begun at packet $first: $n round trips, all as in the whole capture; $(head -1 "$workdir/late.cmp")"
done
say "late starts number requests right, and their round trips are the whole capture's"
