#!/bin/sh
# netplot-cdf.sh — netplot --cdf on real captures (an xterm typed into,
# a VNC session): every metric exports as PNG, SVG and PDF that file(1)
# recognises, with a curve in the colour of each run that has values;
# a run that cannot be read is named and left out (exit 1) while the
# others are still drawn; usage errors exit 2.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need netplot file convert
caps=$top_srcdir/tests/captures
x11=$caps/xterm-input.pcap rfb=$caps/rfb-xvnc.pcap

# colours PNG: the colours of its pixels, one "#RRGGBB" a line.
colours() { convert "$1" -format %c histogram:info:- | grep -o '#[0-9A-F]\{6\}' | sort -u; }
blue='#0072B2' vermillion='#D55E00'	# the first two curves

for m in response-time bytes pixels inter-input; do
	for ext in png svg pdf; do
		out=$workdir/$m.$ext
		netplot --cdf "$m" --export "$out" --size 800x500 "$x11" "$rfb" ||
			fail "--cdf $m --export $ext failed"
		case $ext in
		png) want='PNG image data, 800 x 500' ;;
		svg) want='SVG' ;;
		pdf) want='PDF document' ;;
		esac
		file "$out" | grep -q "$want" || fail "$out is not what file(1) calls $want: $(file "$out")"
	done
	colours "$workdir/$m.png" >"$workdir/$m.colours"
	# The VNC session has values of every metric; the xterm of all but
	# pixels (X11 counts none): its curve must be missing there.
	grep -qx "$vermillion" "$workdir/$m.colours" || fail "$m: no curve of the VNC run"
	if [ "$m" = pixels ]; then
		# The legend's line is drawn thinner in the colour; no curve
		# means few pixels of it.
		n=$(convert "$workdir/$m.png" -format %c histogram:info:- | grep "$blue" |
			awk '{ s += $1 } END { print s + 0 }')
		[ "$n" -lt 40 ] || fail "pixels: the X11 run has a curve ($n pixels of its colour)"
	else
		grep -qx "$blue" "$workdir/$m.colours" || fail "$m: no curve of the xterm run"
	fi
done

# A run that cannot be read: named, left out, the other drawn, exit 1.
netplot --cdf response-time --export "$workdir/one.png" "$workdir/missing.pcap" "$x11" \
	2>"$workdir/err"
[ $? = 1 ] || fail "an unreadable run did not give exit status 1"
grep -q "^netplot: .*missing.pcap'" "$workdir/err" || fail "the unreadable run is not named: $(cat "$workdir/err")"
colours "$workdir/one.png" | grep -qx "$blue" || fail "the readable run was not drawn"

# A damaged run (cut short): said in netplot's voice, drawn as far as it
# reads, exit 1.
head -c 20000 "$x11" >"$workdir/cut.pcap"
netplot --cdf bytes --export "$workdir/cut.png" "$workdir/cut.pcap" "$rfb" 2>"$workdir/err"
[ $? = 1 ] || fail "a damaged run did not give exit status 1"
grep -q "^netplot: .*cut.pcap'" "$workdir/err" || fail "the damage is not said: $(cat "$workdir/err")"
file "$workdir/cut.png" | grep -q 'PNG image data' || fail "nothing drawn beside a damaged run"

netplot --cdf latency --export "$workdir/x.png" "$x11" 2>/dev/null
[ $? = 2 ] || fail "an unknown metric is not a usage error"
netplot --cdf bytes "$x11" 2>/dev/null
[ $? = 2 ] || fail "--cdf without --export is not a usage error"
netplot --cdf bytes --export "$workdir/x.gif" "$x11" 2>"$workdir/err"
[ $? = 1 ] && grep -q "x.gif'" "$workdir/err" || fail "an unknown picture format is not refused"
say "CDFs of real captures export as PNG, SVG and PDF with a curve per run"
