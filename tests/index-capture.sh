#!/bin/sh
# index-capture.sh — xcap -w writes the trace's index (TRACE.idx) when it
# closes the trace, and netplot uses it as it is: no pass over the trace.
# The index xcap wrote must give netplot the same pictures (packets in
# view, columns, labels at every zoom) as the one netplot builds itself
# from the same trace; only the state intervals, which need the analysis
# layer, are netplot's alone.  Rotated pieces get one each; --no-index
# writes none, and nothing is written beside a pipe or a device.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcap netplot
for c in xterm-input xdpyinfo-xlogo-lossy rfb-xvnc; do
	t="$workdir/$c.xcap"
	xcap -q -r "$top_srcdir/tests/captures/$c.pcap" -w "$t" || fail "xcap -r $c failed"
	[ -s "$t.idx" ] || fail "xcap wrote no index beside '$t'"
	netplot --benchmark "$t" --index --size 400x200 >"$workdir/$c.cap" ||
		fail "netplot refused the index xcap wrote: '$t.idx'"
	grep -q '^index: built' "$workdir/$c.cap" &&
		fail "netplot built an index though xcap wrote one: $(head -1 "$workdir/$c.cap")"
	# The same trace under another name (another time of change):
	# netplot builds this one.
	cp "$t" "$workdir/$c-b.xcap"
	netplot --benchmark "$workdir/$c-b.xcap" --index --size 400x200 >"$workdir/$c.built" ||
		fail "netplot could not index '$c-b.xcap'"
	grep -q '^index: built' "$workdir/$c.built" || fail "netplot did not build the index of '$c-b.xcap'"
	# Timings and state intervals left out, the figures must agree.
	strip() { grep '^redraw' "$1" | sed 's/[0-9.]* ms//g; s/, [0-9]* state intervals//'; }
	strip "$workdir/$c.cap" >"$workdir/$c.cap.fig"
	strip "$workdir/$c.built" >"$workdir/$c.built.fig"
	[ -s "$workdir/$c.cap.fig" ] || fail "no redraw figures for $c"
	diff "$workdir/$c.built.fig" "$workdir/$c.cap.fig" >&2 ||
		fail "the index xcap wrote draws $c otherwise than netplot's"
	# netplot's has the state model's intervals; xcap's says it has none.
	grep -q 'redraw 1x.*, [1-9][0-9]* state intervals' "$workdir/$c.built" || [ "$c" = rfb-xvnc ] ||
		fail "netplot's index of $c has no state intervals"
done
# -C: rotated pieces, an index each, that netplot takes as it is and
# that counts the piece's own packets (xcapanalyse's count of the piece).
# A capture of over a million bytes: xterm-input 25 times, each copy ten
# seconds after the one before (editcap -t, mergecap -a).
if command -v editcap >/dev/null && command -v mergecap >/dev/null; then
	k=0
	while [ $k -lt 25 ]; do
		editcap -t $((k * 10)) "$top_srcdir/tests/captures/xterm-input.pcap" "$workdir/s$k.pcap" ||
			fail "editcap failed"
		k=$((k + 1))
	done
	mergecap -a -w "$workdir/long.pcap" "$workdir"/s*.pcap || fail "mergecap failed"
	xcap -q -r "$workdir/long.pcap" -C 1 -w "$workdir/rot.xcap" || fail "xcap -C failed"
else
	say "no editcap/mergecap: -C is checked on a capture too short to rotate"
	xcap -q -r "$top_srcdir/tests/captures/xterm-input.pcap" -C 1 -w "$workdir/rot.xcap" ||
		fail "xcap -C failed"
fi
# --ring: the window around the mark the client set (XCAP_MARK property).
xcap -q -r "$top_srcdir/tests/captures/xmark-xprop.pcap" --ring 30 -w "$workdir/win.xcap" ||
	fail "xcap --ring failed"
pieces=0
for p in "$workdir"/rot-*.xcap "$workdir"/win-*.xcap; do
	[ -s "$p.idx" ] || fail "the rotated piece '$p' got no index"
	netplot --benchmark "$p" --index --size 400x200 >"$p.bench" ||
		fail "netplot refused the index of the piece '$p'"
	grep -q '^index: built' "$p.bench" && fail "netplot rebuilt the index xcap wrote for '$p'"
	want=$(xcapanalyse --connections --format csv "$p" | awk -F, 'NR > 1 { n += $7 + $8 } END { print n + 0 }')
	got=$(sed -n 's/^memory: .*, \([0-9]*\) packets)$/\1/p' "$p.bench")
	[ "$got" = "$want" ] || fail "the index of '$p' counts $got packets, the piece holds $want"
	pieces=$((pieces + 1))
done
[ "$pieces" -ge 2 ] || fail "xcap -C 1 and --ring wrote $pieces file(s), not several"
ls "$workdir"/win-*.xcap >/dev/null 2>&1 || fail "xcap --ring wrote no window"
# --no-index: the trace alone (and no index of an earlier run left beside it).
t="$workdir/xterm-input.xcap"
[ -s "$t.idx" ] || fail "no index from the first run"
xcap -q --no-index -r "$top_srcdir/tests/captures/xterm-input.pcap" -w "$t" || fail "xcap --no-index failed"
[ -s "$t" ] || fail "xcap --no-index wrote no trace"
[ -e "$t.idx" ] && fail "xcap --no-index left an index beside '$t'"
# An index only beside a regular file: none beside a pipe (nor, the same
# rule, /dev/null.idx for -w /dev/null, which once was written).
mkfifo "$workdir/pipe"
cat "$workdir/pipe" >"$workdir/piped.xcap" &
xcap -q -r "$top_srcdir/tests/captures/xterm-input.pcap" -w "$workdir/pipe" || fail "xcap -w a pipe failed"
wait
[ -s "$workdir/piped.xcap" ] || fail "xcap wrote no trace into a pipe"
[ -e "$workdir/pipe.idx" ] && fail "xcap wrote an index beside a pipe: '$workdir/pipe.idx'"
say "xcap's index and netplot's draw the same at six zooms, for three captures; $pieces pieces of -C and --ring indexed"
