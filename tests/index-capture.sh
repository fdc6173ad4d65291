#!/bin/sh
# index-capture.sh — xcap -w writes the trace's index (TRACE.idx) when it
# closes the trace, and netplot uses it as it is: no pass over the trace.
# The index xcap wrote must give netplot the same pictures (packets in
# view, columns, labels at every zoom) as the one netplot builds itself
# from the same trace; only the state intervals, which need the analysis
# layer, are netplot's alone.  Rotated pieces get none.
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
# -C: rotated pieces, no index.
xcap -q -r "$top_srcdir/tests/captures/xterm-input.pcap" -C 1 -w "$workdir/rot.xcap" ||
	fail "xcap -C failed"
ls "$workdir"/rot*.idx >/dev/null 2>&1 && fail "rotated pieces got an index"
say "xcap's index and netplot's draw the same at six zooms, for three captures"
