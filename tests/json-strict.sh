#!/bin/sh
# json-strict.sh — every view's JSON and NDJSON, of every capture in
# tests/captures, parses with a strict parser reading strict UTF-8.  A
# peer's text is bytes (a VNC desktop name with 0xA0, a WM_CLASS that is
# not UTF-8, a name cut inside a character: tests/captures/rfb-banners.pcap
# and x11-unused.pcap hold them); the output layer writes what is not
# UTF-8 as \xNN in every format.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need /usr/bin/python3
n=0
for cap in "$top_srcdir"/tests/captures/*.pcap "$top_srcdir"/tests/captures/*.xcap; do
	for view in --delays --messages --round-trips --responses --connections --requests; do
		for fmt in json ndjson; do
			if ! xcapanalyse $view --format $fmt "$cap" >"$workdir/out" 2>"$workdir/err"; then
				# A capture with nothing decoded without options
				# (waypipe begun before it) says so, status 1; what
				# it writes must still parse.
				grep -q "no X11, RFB or Wayland connection" "$workdir/err" ||
					fail "xcapanalyse $view --format $fmt $cap failed: $(cat "$workdir/err")"
			fi
			/usr/bin/python3 -c '
import json, sys
text = open(sys.argv[1], "rb").read().decode("utf-8", "strict")
if sys.argv[2] == "json":
    json.loads(text)
else:
    for line in text.splitlines():
        json.loads(line)
' "$workdir/out" $fmt || fail "$view --format $fmt of $(basename "$cap") is not strict JSON"
			n=$((n + 1))
		done
	done
done
say "$n outputs parse as strict JSON"
