#!/bin/sh
# x11-lossy.sh — captures that start mid-connection or miss a segment.
#
# From a clean capture of real clients, editcap makes two damaged copies:
# one without its first packets (every connection already running) and one
# missing a single segment in the middle.  Decoded, each must say what it
# could not decode, invent nothing (every message it reports is one the
# clean capture has, at the same TCP position, of the same kind and length,
# with the same name unless it says it is unsure), and recover: it decodes
# all but a few messages of what follows the damage.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need editcap /usr/bin/python3
cap="$top_srcdir/tests/captures/xdpyinfo-xlogo.pcap"
xcapanalyse --dump "$cap" >"$workdir/full.dump" || fail "cannot decode $cap"

check() {	# check NAME MIN-NOTES [MAX-MISSING]: compare $workdir/NAME.dump with the clean one
	/usr/bin/python3 "$top_srcdir/tests/x11-lossy-compare.py" "$workdir/full.dump" "$workdir/$1.dump" "$2" ${3:+"$3"}
}

# Without the first 12 packets: both connections are already under way.
editcap -r "$cap" "$workdir/cut.pcap" 12-100000 || fail "editcap failed"
xcapanalyse --dump "$workdir/cut.pcap" >"$workdir/cut.dump"
grep -q '^note .*mid-connection' "$workdir/cut.dump" || fail "mid-connection start not reported"
check cut 1 || fail "the decode of a capture begun mid-connection is wrong"

# Without one segment of client requests (frame 47) and one of server
# messages (frame 44).
editcap "$cap" "$workdir/del.pcap" 44 47 || fail "editcap failed"
xcapanalyse --dump "$workdir/del.pcap" >"$workdir/del.dump"
grep -q '^gap .*reason=lost' "$workdir/del.dump" || fail "the lost segments are not recorded as gaps"
# (Up to 6 missing: the client's requests after its hole are framed from a
# guess until a reply confirms it, and are counted as undecoded till then;
# so are the server's messages after its hole, until a reply in them
# answers a request the client was seen to send: here 2 replies.)
check del 2 6 || fail "the decode of a capture with lost segments is wrong"

# Cut by a snaplen (editcap -s, which leaves the pcapng interface's snaplen
# as it was): the missing payload was lost, not skipped on purpose, so xcap
# -r records gaps of reason snaplen and the decoder says what it lost.
editcap -s 96 "$cap" "$workdir/short.pcapng" || fail "editcap -s failed"
xcap -q -r "$workdir/short.pcapng" -w "$workdir/short.xcap" || fail "xcap -r failed"
xcapanalyse --dump "$workdir/short.xcap" >"$workdir/short.dump" || fail "cannot decode the short capture"
grep -q '^gap .*reason=snaplen' "$workdir/short.dump" || fail "no snaplen gaps in a capture cut to 96 bytes"
grep -q '^gap .*reason=skipped' "$workdir/short.dump" && fail "a capture cut by a snaplen has skipped gaps"
grep -q '^note ' "$workdir/short.dump" || fail "the decoder did not say what the snaplen cost"
# What it decodes through the cuts, it decodes as the complete capture has it.
/usr/bin/python3 "$top_srcdir/tests/snap-compare.py" "$workdir/full.dump" "$workdir/short.dump" ||
	fail "the decode of a capture cut to 96 bytes is not the complete one's"
# The same of xterm's session (golden xterm-snap96-*), which frames on
# through most of its cuts.
xcapanalyse --dump "$top_srcdir/tests/captures/xterm-input.pcap" >"$workdir/xterm.dump"
xcapanalyse --dump "$top_srcdir/tests/captures/xterm-input-snap96.pcap" >"$workdir/xterm-snap.dump"
/usr/bin/python3 "$top_srcdir/tests/snap-compare.py" "$workdir/xterm.dump" "$workdir/xterm-snap.dump" ||
	fail "the decode of xterm-input-snap96.pcap is not xterm-input.pcap's"
say "mid-connection and lossy captures decode what can be decoded; a snaplen cut is a loss"
