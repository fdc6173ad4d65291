#!/bin/sh
# rfb-lossy.sh — RFB captures that start mid-connection or miss segments.
#
# tests/captures/rfb-xvnc.pcap is tests/rfbclient.py against Xvnc (Raw,
# Hextile, Tight, ZRLE; lo at MTU 1500, so updates span segments), and
# rfb-xvnc.msgs what that client logged sending and receiving.  editcap
# makes damaged copies; tests/rfb-lossy-compare.py checks each decode:
# nothing invented (every message is one the clean decode has, itself the
# client's log, at the same place and length, its name and kind the same
# unless flagged uncertain), every byte accounted for (framed, reported
# as not framed with its count, or lost in a hole), and the client
# direction found again after the damage.  After a hole the server
# direction is found again too (--holds: every server message after the
# first one flagged is there), at the next FramebufferUpdate whose
# rectangles fit the framebuffer; the delay table counts the bytes not
# decoded.  Mid-connection, without the ServerInit, the server's rest is
# only counted.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need editcap /usr/bin/python3
cap="$top_srcdir/tests/captures/rfb-xvnc.pcap"
log="$top_srcdir/tests/captures/rfb-xvnc.msgs"
xcapanalyse --dump "$cap" >"$workdir/full.dump" || fail "cannot decode $cap"

check() {	# check NAME [--holds]
	xcapanalyse --dump "$workdir/$1.pcap" >"$workdir/$1.dump" || fail "cannot decode $1"
	/usr/bin/python3 "$top_srcdir/tests/rfb-lossy-compare.py" "$log" "$workdir/full.dump" \
		"$workdir/$1.dump" "$2" >"$workdir/$1.out" 2>&1
	rc=$?
	sed "s/^/$test_name: $1: /" "$workdir/$1.out"
	[ $rc = 0 ] || fail "$1: the decode of the damaged capture is wrong"
}

# Mid-connection: from packet 20 (inside the first, Raw, update), 30 (its
# second) and 40 (between updates).
for n in 20 30 40; do
	editcap -r "$cap" "$workdir/cut$n.pcap" "$n-100000" || fail "editcap failed"
	check "cut$n"
	grep -q '^note .*dir=c2s.*mid-connection' "$workdir/cut$n.dump" || fail "cut$n: mid-connection not said"
	grep -q '^note .*dir=s2c text="[1-9][0-9]* bytes not framed"' "$workdir/cut$n.dump" ||
		fail "cut$n: the server's unframed bytes not counted"
done

# One segment lost.  19: inside Raw pixels, the framing holds; 21 and 31:
# Raw pixels and a client segment holding its input and both requests (the
# update answering them must be flagged: the hole shows only with the
# client's next segment); 46: a whole Hextile update; 35: across two Raw
# rectangles' boundary; 58 and 60: input and a Tight update; 49 (below).
editcap "$cap" "$workdir/del19.pcap" 19 || fail "editcap failed"
check del19 --holds
grep -q '^gap .*reason=lost' "$workdir/del19.dump" || fail "del19: the lost segment is not a gap"
! grep -q '^note ' "$workdir/del19.dump" || fail "del19: a hole inside Raw pixels lost the framing"
editcap "$cap" "$workdir/del21-31.pcap" 21 31 || fail "editcap failed"
check del21-31 --holds
editcap "$cap" "$workdir/del46.pcap" 46 || fail "editcap failed"
check del46 --holds
editcap "$cap" "$workdir/del35.pcap" 35 || fail "editcap failed"
check del35 --holds
editcap "$cap" "$workdir/del58-60.pcap" 58 60 || fail "editcap failed"
check del58-60 --holds
# 49: a client segment alone (SetEncodings and a request): the numbers
# after it are not a count, and the numbering restarts where it says so.
editcap "$cap" "$workdir/del49.pcap" 49 || fail "editcap failed"
check del49 --holds
grep -q '^note .*dir=c2s text="client messages numbered afresh from 1001' "$workdir/del49.dump" ||
	fail "del49: the client numbering did not restart"
# The delay table says what went undecoded, besides the hole.
xcapanalyse "$workdir/del35.pcap" >"$workdir/del35.delays" || fail "del35: no delay table"
grep -q 'conn 1: [0-9]* bytes of its streams are not in the capture (1 hole); [1-9][0-9]* more were not decoded' \
	"$workdir/del35.delays" || fail "del35: the delay table does not count the bytes not decoded: $(grep conn "$workdir/del35.delays")"
say "mid-connection and lossy RFB captures: framed where possible, the rest counted, nothing invented"
