#!/bin/sh
# netplot-gui.sh — the viewer on a real capture under Xvfb, driven by
# xdotool like a user: drag a zoom rectangle, press - BackSpace d PgDn 0
# and an arrow, turn the wheel, middle-drag, hover over a message, click
# it, shift-drag a time span, open the file chooser, export through the
# save dialog.
# Each step must change the view as asked (netplot logs its view with
# NETPLOT_LOG=1) and the screen (screenshots with ImageMagick's import);
# hovering must bring up the tooltip for that message, clicking must
# select it, and the span's statistics must count the connection's bytes.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need netplot xcapanalyse xdotool import convert
py=/usr/bin/python3
[ -x $py ] || py=python3
need $py
cap="$top_srcdir/tests/captures/xdpyinfo-xlogo.pcap"
xvfb_first=42 xvfb_last=47
start_xvfb
start_netplot "$cap"
sleep 0.5

view() { grep '^netplot: view ' "$log" | tail -1; }
# wait_view OLD: until the logged view is not OLD
wait_view() { wait_for sh -c "[ \"\$(grep '^netplot: view ' '$log' | tail -1)\" != '$1' ]"; }
shot() { import -window root "$workdir/$1.png" && convert "$workdir/$1.png" ppm:"$workdir/$1.ppm"; }
# check PYTHON-EXPR over views a and b (dicts of the logged fields)
check() {
	$py - "$1" "$2" "$3" <<'EOF'
import sys
def parse(line):
    d = {}
    for f in line.split()[2:]:
        k, v = f.split('=')
        d[k] = [float(x) for x in v.split(',')] if k == 'plot' else (v if k in ('dir', 'graph') else float(v))
    return d
a, b = parse(sys.argv[1]), parse(sys.argv[2])
near = lambda x, y, span: abs(x - y) <= 0.02 * abs(span)
sys.exit(0 if eval('(' + sys.argv[3] + ')') else 1)
EOF
}
# differ A B X0 Y0 X1 Y1: screenshots A and B differ inside that box
differ() {
	$py - "$workdir/$1.ppm" "$workdir/$2.ppm" "$3" "$4" "$5" "$6" <<'EOF'
import sys
def load(p):
    d = open(p, 'rb').read().split(maxsplit=4)
    return int(d[1]), d[4]
(w, a), (_, b) = load(sys.argv[1]), load(sys.argv[2])
x0, y0, x1, y1 = (int(float(v)) for v in sys.argv[3:7])
n = sum(1 for y in range(y0, y1) for x in range(x0, x1) if a[3*(y*w+x):3*(y*w+x)+3] != b[3*(y*w+x):3*(y*w+x)+3])
sys.exit(0 if n > 50 else 1)
EOF
}

# settle A EXPR: until the logged view b meets EXPR against A (a drag's
# motions may be drawn one by one: the view changes before it ends)
settle() {
	i=0
	until check "$1" "$(view)" "$2"; do
		i=$((i + 1))
		[ $i -gt 25 ] && return 1
		sleep 0.2
	done
}

v0=$(view)
shot s0
set -- $(echo "$v0" | sed 's/.*plot=//; s/,/ /g')
ax=$1 ay=$2 aw=$3 ah=$4
[ "${aw%.*}" -gt 200 ] || fail "plot too small: $v0"

# Drag a rectangle from 30%,20% to 60%,70% of the plot: the view becomes it.
x0=$(( ${ax%.*} + ${aw%.*} * 30 / 100 )) y0=$(( ${ay%.*} + ${ah%.*} * 20 / 100 ))
x1=$(( ${ax%.*} + ${aw%.*} * 60 / 100 )) y1=$(( ${ay%.*} + ${ah%.*} * 70 / 100 ))
xdotool mousemove $x0 $y0 mousedown 1 mousemove $(( (x0 + x1) / 2 )) $(( (y0 + y1) / 2 )) \
	mousemove $x1 $y1 mouseup 1
wait_view "$v0" || fail "dragging a rectangle did not zoom"
v1=$(view)
check "$v0" "$v1" "near(b['t0'], a['t0'] + 0.3 * (a['t1'] - a['t0']), a['t1'] - a['t0']) and
	near(b['t1'], a['t0'] + 0.6 * (a['t1'] - a['t0']), a['t1'] - a['t0']) and
	near(b['y1'], a['y1'] - 0.2 * (a['y1'] - a['y0']), a['y1'] - a['y0']) and
	near(b['y0'], a['y1'] - 0.7 * (a['y1'] - a['y0']), a['y1'] - a['y0']) and b['stack'] == 1" ||
	fail "the zoom is not the rectangle dragged: $v0 -> $v1"
sleep 0.3
shot s1
differ s0 s1 "$ax" "$ay" $(( ${ax%.*} + ${aw%.*} )) $(( ${ay%.*} + ${ah%.*} )) ||
	fail "the screen did not change after zooming"

# '-' zooms out twice as wide; BackSpace goes back to the dragged view.
xdotool key minus
wait_view "$v1" || fail "'-' did nothing"
v2=$(view)
check "$v1" "$v2" "near(b['t1'] - b['t0'], 2 * (a['t1'] - a['t0']), a['t1'] - a['t0']) and b['stack'] == 2" ||
	fail "'-' did not zoom out 2x: $v1 -> $v2"
xdotool key BackSpace
wait_view "$v2" || fail "BackSpace did nothing"
check "$v1" "$(view)" "a['t0'] == b['t0'] and a['t1'] == b['t1'] and a['y0'] == b['y0'] and b['stack'] == 1" ||
	fail "BackSpace did not restore the zoomed view: $v1 -> $(view)"

# Left pans a quarter of the width towards earlier times.
v3=$(view)
xdotool key Left
wait_view "$v3" || fail "Left did nothing"
check "$v3" "$(view)" "near(b['t0'], a['t0'] - 0.25 * (a['t1'] - a['t0']), a['t1'] - a['t0'])" ||
	fail "Left did not pan: $v3 -> $(view)"

# The wheel zooms about the pointer: the time under it stays put.
v7=$(view)
mx=$(( ${ax%.*} + ${aw%.*} / 4 )) my=$(( ${ay%.*} + ${ah%.*} / 2 ))
xdotool mousemove $mx $my click 4
wait_view "$v7" || fail "the wheel did nothing"
check "$v7" "$(view)" "near(b['t1'] - b['t0'], 0.8 * (a['t1'] - a['t0']), a['t1'] - a['t0']) and
	near(a['t0'] + ($mx - a['plot'][0]) / a['plot'][2] * (a['t1'] - a['t0']),
	     b['t0'] + ($mx - b['plot'][0]) / b['plot'][2] * (b['t1'] - b['t0']), a['t1'] - a['t0'])" ||
	fail "the wheel did not zoom about the pointer: $v7 -> $(view)"

# Middle-drag pans: 100 px to the right shows earlier times.
v8=$(view)
xdotool mousemove $mx $my mousedown 2 mousemove $((mx + 50)) $my mousemove $((mx + 100)) $my mouseup 2
wait_view "$v8" || fail "middle-drag did nothing"
settle "$v8" "near(b['t0'], a['t0'] - 100 / a['plot'][2] * (a['t1'] - a['t0']), a['t1'] - a['t0']) and
	near(b['t1'] - b['t0'], a['t1'] - a['t0'], a['t1'] - a['t0'])" ||
	fail "middle-drag did not pan by 100 px: $v8 -> $(view)"

# Middle-drag on the time axis pans time only.
v9=$(view)
by=$(( ${ay%.*} + ${ah%.*} + 15 ))
xdotool mousemove $mx $by mousedown 2 mousemove $((mx - 30)) $((by + 20)) mousemove $((mx - 60)) $((by + 40)) mouseup 2
wait_view "$v9" || fail "middle-drag on the time axis did nothing"
settle "$v9" "b['y0'] == a['y0'] and b['y1'] == a['y1'] and
	near(b['t0'], a['t0'] + 60 / a['plot'][2] * (a['t1'] - a['t0']), a['t1'] - a['t0'])" ||
	fail "middle-drag on the time axis did not pan time only: $v9 -> $(view)"

# d switches direction, Page_Down the connection, 0 shows everything.
v4=$(view)
xdotool key d
wait_view "$v4" || fail "d did nothing"
check "$v4" "$(view)" "a['dir'] != b['dir'] and a['conn'] == b['conn']" || fail "d did not switch direction"
v5=$(view)
xdotool key Next
wait_view "$v5" || fail "Page_Down did nothing"
check "$v5" "$(view)" "a['conn'] != b['conn']" || fail "Page_Down did not change connection"
xdotool key Prior d 0
# (the last two redraws may come at once: wait for the view asked for)
i=0
until check "$v0" "$(view)" "a['t0'] == b['t0'] and a['t1'] == b['t1'] and a['conn'] == b['conn'] and a['dir'] == b['dir']"; do
	i=$((i + 1))
	[ $i -gt 50 ] && fail "back on the first connection, 0 does not show everything: $v0 vs $(view)"
	sleep 0.2
done
v6=$(view)
# The first picture (12 ms) begins after Xvfb's 53 ms wait for xlogo's
# setup, and says so: zoomed out 16 times, the connection is all in view.
for i in 1 2 3 4; do
	xdotool key minus
	wait_view "$v6" || fail "- did nothing"
	v6=$(view)
done

# Hover over the connection's SetupRequest: the tooltip names it.
conn=$(echo "$v6" | sed 's/.* conn=\([0-9]*\) .*/\1/')
xcapanalyse --dump "$cap" >"$workdir/dump"
# relative time (since the first record) and sequence (since the SYN)
set -- $(awk -v c="$conn" '
	{ for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
	$1 == "conn" && t0 == "" { t0 = f["t"] }
	$1 == "pkt" && f["conn"] == c && f["dir"] == "c2s" && base == "" { base = f["seq"] }
	$1 == "msg" && f["conn"] == c && f["name"] == "SetupRequest" {
		printf "%.0f %d\n", (f["t"] - t0) * 1e9, f["end"] - base; exit }
	{ delete f }' "$workdir/dump")
[ -n "$2" ] || fail "no SetupRequest on connection $conn in the dump"
pos=$(check "$v6" "$v6" "print(round(a['plot'][0] + ($1 - a['t0']) / (a['t1'] - a['t0']) * a['plot'][2]),
	round(a['plot'][1] + a['plot'][3] - ($2 - a['y0']) / (a['y1'] - a['y0']) * a['plot'][3])) or True")
set -- $pos
xdotool mousemove $(( $1 + 150 )) $(( $2 - 150 ))
sleep 0.5
shot s2
xdotool mousemove $(( $1 + 1 )) $2
sleep 0.1
xdotool mousemove $1 $2
wait_for grep -q '^netplot: tooltip setup SetupRequest' "$log" ||
	fail "no tooltip for the SetupRequest at $1,$2: $(grep tooltip "$log" | tail -3)"
sleep 1
shot s3
differ s2 s3 $(( $1 > 150 ? $1 - 150 : 0 )) $2 $(( $1 + 150 )) $(( $2 + 150 > 767 ? 767 : $2 + 150 )) ||
	fail "no tooltip on the screen near $1,$2"

# A click keeps it in the details pane.
xdotool click 1
wait_for grep -q '^netplot: selected setup SetupRequest' "$log" ||
	fail "clicking the SetupRequest did not select it: $(grep selected "$log" | tail -1)"

# Shift-drag over the whole plot: the region's bytes each way are the
# connection's payload bytes.
set -- $(awk -v c="$conn" '
	$1 == "pkt" { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		if (f["conn"] == c) b[f["dir"]] += f["len"] }
	END { print b["c2s"] + 0, b["s2c"] + 0 }' "$workdir/dump")
set -- $(check "$v6" "$v6" "print(round(a['plot'][0]) + 1, round(a['plot'][0] + a['plot'][2]) - 1,
	round(a['plot'][1] + a['plot'][3] / 2)) or True") "$1" "$2"
xdotool mousemove $1 $3 keydown shift mousedown 1 mousemove $(( ($1 + $2) / 2 )) $3 mousemove $2 $3 \
	mouseup 1 keyup shift
wait_for grep -q '^netplot: region ' "$log" || fail "shift-drag selected no region"
region=$(grep '^netplot: region ' "$log" | tail -1)
echo "$region" | grep -q "client → server: $4 bytes" ||
	fail "region bytes client to server are not $4: $region"
echo "$region" | grep -q "server → client: $5 bytes" ||
	fail "region bytes server to client are not $5: $region"
echo "$region" | grep -q "Block Reply" || fail "region has no state breakdown: $region"

# Ctrl+O brings up the file chooser, Escape closes it; Ctrl+E exports
# the view where the save dialog is told.
xdotool key ctrl+o
wait_for xdotool search --onlyvisible --name '^Open a capture$' || fail "Ctrl+O showed no file chooser"
xdotool key Escape
wait_for sh -c "! xdotool search --onlyvisible --name '^Open a capture\$'" || fail "Escape did not close the chooser"
xdotool key ctrl+e
wait_for xdotool search --onlyvisible --name '^Export the view' || fail "Ctrl+E showed no save dialog"
sleep 2	# until its name field takes keys (slow under ASan)
# A short name, in the dialog's folder (netplot's directory, $workdir):
# xdotool now and then drops a character of a long path.
xdotool key ctrl+a
xdotool type --delay 40 "gui-export.png"
xdotool key Return
exported() { ls "$workdir"/*export*.png 2>/dev/null | head -1; }
has_export() { [ -n "$(exported)" ]; }
wait_for has_export || fail "the save dialog wrote no PNG in $workdir: $(ls "$workdir")"
sleep 0.3
head -c 8 "$(exported)" | od -An -c | grep -q 'P   N   G' || fail "the GUI export is not a PNG"
keep_workdir=${NETPLOT_KEEP:-}
say "zoom rectangle, keys, wheel, panning, tooltip, click, region statistics, chooser and export work ($(grep -c '^netplot: view ' "$log") views)"
