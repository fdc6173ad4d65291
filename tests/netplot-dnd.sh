#!/bin/sh
# netplot-dnd.sh — a capture dropped on the window opens in it.
#
# netplot shows one capture under Xvfb; a small GTK window of the test's
# own offers another capture as a file (text/uri-list, as a file manager
# does), and xdotool drags it onto netplot's plot with the mouse, so the
# whole XDND exchange between two real clients takes place.  netplot must
# open the dropped file (NETPLOT_LOG=1 logs it) and show it.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need netplot xdotool
py=/usr/bin/python3
need $py
need python3-gtk
shown="$top_srcdir/tests/captures/xdpyinfo-xlogo.pcap"
dropped="$top_srcdir/tests/captures/xdpyinfo-xlogo-midstream.pcap"
xvfb_first=36 xvfb_last=47
start_xvfb
start_netplot "$shown"
set -- $(grep '^netplot: view ' "$log" | tail -1 | sed 's/.*plot=//; s/,/ /g')
px=${1%.*} py_=${2%.*} pw=${3%.*} ph=${4%.*}

# The drag source, in the bottom right corner, on top of netplot.
cat >"$workdir/source.py" <<'PY'
import sys
import gi
gi.require_version('Gtk', '3.0')
from gi.repository import Gdk, Gio, Gtk
uri = Gio.File.new_for_path(sys.argv[1]).get_uri()
w = Gtk.Window(title='drag source')
w.set_default_size(140, 60)
w.move(int(sys.argv[2]), int(sys.argv[3]))
box = Gtk.EventBox()
box.add(Gtk.Label(label='capture'))
box.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [], Gdk.DragAction.COPY)
box.drag_source_add_uri_targets()
box.connect('drag-data-get', lambda wid, ctx, data, info, time: data.set_uris([uri]))
w.add(box)
w.connect('map-event', lambda *a: print('ready', flush=True))
w.connect('destroy', Gtk.main_quit)
w.show_all()
Gtk.main()
PY
sx=$((px + pw - 160)) sy=$((py_ + ph - 80))
NO_AT_BRIDGE=1 $py "$workdir/source.py" "$dropped" "$sx" "$sy" >"$workdir/source.out" 2>&1 &
pids="$pids $!"
wait_for grep -q ready "$workdir/source.out" || fail "the drag source did not start: $(cat "$workdir/source.out")"
sleep 0.5

# Press on the source, move in steps (GTK starts a drag past a threshold,
# and XDND wants motion to negotiate), release over the plot's middle.
x=$((sx + 70)) y=$((sy + 30))
tx=$((px + pw / 3)) ty=$((py_ + ph / 3))
xdotool mousemove $x $y mousedown 1
for i in 1 2 3 4 5 6 7 8 9 10; do
	xdotool mousemove $((x + (tx - x) * i / 10)) $((y + (ty - y) * i / 10))
	sleep 0.1
done
sleep 0.3
xdotool mouseup 1
wait_for grep -q "^netplot: open .*xdpyinfo-xlogo-midstream.pcap" "$log" ||
	fail "the dropped capture was not opened: $(tail -5 "$log")"
say "a capture dragged from another client opened in netplot"
