#!/bin/sh
# x11-holes-accounting.sh — the accounting of x11-holes.sh on a hole that
# runs from the end of one connection into the next.
#
# tests/captures/x11perf-two-conns.pcap is cut from a capture x11-holes.sh
# made (x11perf -rect10, then -putimage10 on a second connection): the
# first connection's setup, a hole its resynchronisation recovers from,
# its last segments and FIN, then the second connection's start.  Cutting
# a run of segments from inside the first connection's tail to past the
# second one's setup, as x11-holes.sh's runs of 300 KB sometimes do, loses
# bytes no later segment of either stream shows as a hole: the first
# stream's end and the second one's start are simply not in the capture.
# The undecoded count must still account exactly for every byte the holed
# capture holds, and the check must still catch a count that is short.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcapanalyse editcap /usr/bin/python3
cap=$top_srcdir/tests/captures/x11perf-two-conns.pcap
cmp=$top_srcdir/tests/x11-holes-compare.py

# Frames 43-72: the first connection's last 4,152 bytes and FIN, the
# second one's handshake, setup and first requests.
editcap "$cap" "$workdir/holes.pcap" 43-72 || fail "editcap failed"
xcapanalyse --dump "$cap" >"$workdir/full.dump" || fail "cannot decode the capture"
xcapanalyse --dump "$workdir/holes.pcap" >"$workdir/holes.dump" || fail "cannot decode the holed copy"
grep -q 'conn=1 dir=c2s text="stream ended [0-9]* bytes into a message' "$workdir/holes.dump" ||
	fail "the first stream does not end inside a message: the cut is not where it should be"
grep -q 'conn=2 dir=c2s text="no connection setup' "$workdir/holes.dump" ||
	fail "the second stream does not begin mid-connection: the cut is not where it should be"

/usr/bin/python3 "$cmp" "$workdir/full.dump" "$workdir/holes.dump" >"$workdir/cmp.out" ||
	fail "accounting failed: $(cat "$workdir/cmp.out")"
cat "$workdir/cmp.out"
grep -q ' 0 invented,' "$workdir/cmp.out" || fail "requests invented"

# The same check fails when what the decoder says falls short: drop the note
# that says the first stream ended inside a message.
grep -v 'conn=1 dir=c2s text="stream ended' "$workdir/holes.dump" >"$workdir/short.dump"
if /usr/bin/python3 "$cmp" "$workdir/full.dump" "$workdir/short.dump" >"$workdir/short.out"; then
	fail "a short undecoded count passed: $(cat "$workdir/short.out")"
fi
say "bytes lost at a connection's end and the next one's start are outside the capture, not miscounted"
