#!/bin/sh
# netplot-export.sh — headless exports of a real capture show what they
# should: the SVG carries the request names as text, the PNG has the green
# ack line and the yellow window line where they belong, the PDF is a PDF,
# the .xpl is xplot's language with one segment per data packet (and xplot
# itself reads it, when it can run under Xvfb).  Also the command's
# interface: --help, --version, errors and exit codes.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need netplot xcapanalyse
py=/usr/bin/python3
[ -x $py ] || py=python3
need $py
cap="$top_srcdir/tests/captures/xdpyinfo-xlogo.pcap"

netplot --help | grep -q -- '--export' || fail "--help does not describe --export"
netplot --version | grep -q '^netplot .*[0-9]' || fail "--version: $(netplot --version)"
netplot --export "$workdir/x.png" "$workdir/missing.pcap" 2>"$workdir/err" && fail "a missing file exported"
[ $? = 1 ] || fail "a missing file did not exit 1"
grep -q "^netplot: .*: '$workdir/missing.pcap'\$" "$workdir/err" || fail "error message: $(cat "$workdir/err")"
netplot --export "$workdir/x.png" --direction sideways "$cap" 2>"$workdir/err" && fail "bad direction accepted"
[ $? = 2 ] || fail "bad direction did not exit 2"
netplot --export "$workdir/x.gif" "$cap" 2>"$workdir/err" && fail "unknown format accepted"
grep -q "^netplot: unknown export format.*: '$workdir/x.gif'\$" "$workdir/err" || fail "error message: $(cat "$workdir/err")"

xcapanalyse --dump "$cap" >"$workdir/dump" || fail "cannot dump the capture"

# SVG: the names of the requests of the xlogo connection, as text.
netplot "$cap" --conn 2 --export "$workdir/c2.svg" || fail "SVG export failed"
$py - "$workdir/c2.svg" <<'EOF' || fail "SVG is not what it should be"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()          # well-formed XML
texts = [t.text for t in root.iter('{http://www.w3.org/2000/svg}text')]
for want in ('CreateWindow', 'InternAtom', 'QueryExtension'):
    if want not in texts:
        sys.exit('no label %s in %s' % (want, texts))
EOF
# Xvfb answered xlogo's setup after 53 ms, half the connection: the first
# picture begins after that wait and says so; the whole span shows it.
grep -q '>SetupRequest<' "$workdir/c2.svg" && fail "the first picture kept the wait for the setup"
grep -q '>← opened at 0:00:00.049, then waiting on the server 0.053 s (zoom out to see it)<' \
	"$workdir/c2.svg" || fail "the first picture does not say the wait it left out"
netplot "$cap" --conn 2 --range 0:0.2 --export "$workdir/c2all.svg" || fail "SVG export failed"
grep -q '>SetupRequest<' "$workdir/c2all.svg" || fail "the whole span lost SetupRequest"

# A narrow time range keeps what is inside it and loses the rest.
netplot "$cap" --conn 2 --range 0.100:0.1045 --export "$workdir/narrow.svg" || fail "--range export failed"
grep -q '>SetupRequest<' "$workdir/narrow.svg" && fail "--range kept a label from outside the range"
grep -q '>BIG-REQUESTS:Enable<' "$workdir/narrow.svg" || fail "--range lost a label inside the range"

# The window's edge (65537) over xlogo's 14 kB of replies does not set the
# scale: it is cut at the top, its value written there.
netplot "$cap" --conn 2 --direction reply --export "$workdir/c2r.svg" || fail "SVG export failed"
grep -q '>window ↑ 65537<' "$workdir/c2r.svg" || fail "the window's value is not written where it leaves"
# So does owin's advertised window (64 kB) over outstanding data of 9.5 kB.
netplot "$cap" --conn 2 --direction reply --graph owin --export "$workdir/c2r-owin.svg" ||
	fail "owin SVG export failed"
grep -q '>window ↑ 65536<' "$workdir/c2r-owin.svg" || fail "owin: the window's value is not written where it leaves"

# PNG: the replies of xlogo.
need convert
netplot "$cap" --conn 2 --direction reply --size 900x500 --export "$workdir/c2r.png" || fail "PNG export failed"
convert "$workdir/c2r.png" ppm:"$workdir/c2r.ppm" || fail "convert cannot read the PNG"
$py - "$workdir/c2r.ppm" 96 26 $((900 - 96 - 16)) $((500 - 26 - 40)) <<'EOF' || fail "PNG colours are not where they belong"
import sys
data = open(sys.argv[1], 'rb').read()
# P6 header: magic, width, height, maxval, then RGB bytes
parts = data.split(maxsplit=4)
w, h = int(parts[1]), int(parts[2])
pix = parts[4]
px, py, pw, ph = (int(a) for a in sys.argv[2:6])
def rgb(x, y):
    i = 3 * (y * w + x)
    return pix[i], pix[i + 1], pix[i + 2]
green = lambda r, g, b: g > 140 and r < 60 and b < 60
yellow = lambda r, g, b: r > 180 and g > 150 and b < 60
black = lambda r, g, b: r < 40 and g < 40 and b < 40
gcols, ycols, top_black = {}, {}, None
for y in range(h):
    for x in range(w):
        c = rgb(x, y)
        inside = px < x < px + pw - 1 and py < y < py + ph - 1
        on_frame = px <= x <= px + pw - 1 and py <= y <= py + ph - 1   # a line to the edge
        if (green(*c) or yellow(*c)) and y > py - 4:    # above: the legend
            if not on_frame:
                sys.exit('ack/window colour outside the plot at %d,%d' % (x, y))
            if inside:
                (gcols if green(*c) else ycols).setdefault(x, []).append(y)
        if inside and black(*c) and top_black is None:
            top_black = y
if len(gcols) < pw // 2:
    sys.exit('green in %d columns, yellow in %d, of %d' % (len(gcols), len(ycols), pw))
# the window edge (ack + window), where it is in the plot, is above the
# ack line
for x in set(gcols) & set(ycols):
    if min(ycols[x]) >= min(gcols[x]):
        sys.exit('yellow not above green in column %d' % x)
# at the right, after the last reply, everything is acknowledged: the
# green line is level with the top of the data segments
right = max(gcols)
if top_black is None or abs(min(gcols[right]) - top_black) > 3:
    sys.exit('green at the right edge at row %d, top of data at row %s' % (min(gcols[right]), top_black))
EOF

# PDF
netplot "$cap" --export "$workdir/all.pdf" || fail "PDF export failed"
head -c 5 "$workdir/all.pdf" | grep -q '^%PDF-' || fail "PDF export has no PDF header"
tail -c 8 "$workdir/all.pdf" | grep -q '%%EOF' || fail "PDF export has no %%EOF trailer"
grep -aq '/Type */Page' "$workdir/all.pdf" || fail "PDF export has no page"

# XPL: xplot's language, segment for segment.
# the whole connection: the first picture leaves out the wait for the setup
netplot "$cap" --conn 2 --direction reply --range 0:0.2 --export "$workdir/c2r.xpl" || fail "XPL export failed"
segs=$(awk '$1 == "pkt" && / conn=2 / && / dir=s2c / {
	f = ""; l = 0
	for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "len") l = kv[2]; if (kv[1] == "flags") f = kv[2] }
	if (l > 0 || f ~ /[SF]/) n++ } END { print n + 0 }' "$workdir/dump")
msgs=$(grep -c '^msg .* conn=2 dir=s2c ' "$workdir/dump")
$py - "$workdir/c2r.xpl" "$segs" "$msgs" <<'EOF' || fail "XPL file is not xplot's format"
import sys
lines = open(sys.argv[1]).read().split('\n')
segs, msgs = int(sys.argv[2]), int(sys.argv[3])
if lines[0] != 'timeval double':
    sys.exit('first line %r' % lines[0])
colours = {'white', 'green', 'red', 'blue', 'yellow', 'purple', 'orange', 'magenta', 'pink'}
points = {'x', 'dot', 'plus', 'box', 'diamond', 'utick', 'dtick', 'ltick', 'rtick', 'htick',
          'vtick', 'uarrow', 'darrow', 'larrow', 'rarrow'}
texts = {'atext', 'btext', 'ltext', 'rtext', 'ctext'}
count = {}
i = 1
while i < len(lines):
    f = lines[i].split()
    i += 1
    if not f:
        continue
    cmd = f[0]
    count[cmd] = count.get(cmd, 0) + 1
    if cmd in ('title', 'xlabel', 'ylabel'):
        i += 1
    elif cmd in colours and len(f) == 1:
        pass
    elif cmd == 'go':
        break
    elif cmd in points or cmd in texts:
        if len(f) not in (3, 4) or (len(f) == 4 and f[3] not in colours):
            sys.exit('bad %s line %d: %r' % (cmd, i, lines[i - 1]))
        float(f[1]); float(f[2])
        if cmd in texts:
            i += 1
    elif cmd in ('line', 'dline'):
        if len(f) not in (5, 6):
            sys.exit('bad line %d: %r' % (i, lines[i - 1]))
        [float(a) for a in f[1:5]]
    else:
        sys.exit('unknown command %r on line %d' % (cmd, i))
else:
    sys.exit('no "go" at the end')
if count.get('htick', 0) != 2 * segs:
    sys.exit('%d bars for %d segments' % (count.get('htick', 0), segs))
if count.get('rtext', 0) != msgs or count.get('larrow', 0) != msgs:
    sys.exit('%d labels, %d arrows for %d messages' % (count.get('rtext', 0), count.get('larrow', 0), msgs))
if count.get('green', 0) < 5 or count.get('yellow', 0) < 5:
    sys.exit('no ack or window lines')
EOF

# xplot reads it without complaint and shows a window, if it can run here.
if command -v xplot.org >/dev/null 2>&1 && command -v Xvfb >/dev/null 2>&1 &&
	command -v xwininfo >/dev/null 2>&1; then
	xvfb_first=36 xvfb_last=41
	start_xvfb
	xplot.org "$workdir/c2r.xpl" >"$workdir/xplot.out" 2>&1 &
	xp=$!
	pids="$pids $xp"
	wait_for sh -c "xwininfo -root -tree | grep -q 'c2r.xpl\\|xplot'" ||
		fail "xplot showed no window: $(cat "$workdir/xplot.out")"
	kill -0 $xp 2>/dev/null || fail "xplot exited: $(cat "$workdir/xplot.out")"
	[ -s "$workdir/xplot.out" ] && fail "xplot complained: $(head -5 "$workdir/xplot.out")"
	say "xplot reads the export"
fi
say "SVG, PNG, PDF and XPL exports hold what they should"
