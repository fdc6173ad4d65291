#!/bin/sh
# netplot-graphs-gui.sh — each graph of the family in the window under
# Xvfb, opened from the command line (--graph, --size) and switched by its
# key (1-6): the window's picture, pixel for pixel, is the export's of the
# same view (the window and --export share the renderer), and the window's
# own export (Ctrl+E, the save dialog) is the --export file byte for byte.
# NETPLOT_SHOTS=DIR keeps a screenshot of each graph there.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need netplot xdotool import convert cmp
cap=${NETPLOT_GRAPHS_CAPTURE:-$top_srcdir/tests/captures/xterm-input.pcap}
tag=$(basename "$cap" | sed 's/\..*//')
xvfb_first=54 xvfb_last=59
start_xvfb -screen 0 1366x768x24
size=900x500
start_netplot "$cap" --graph tsg --size $size
keyof() { case $1 in tsg) echo 1;; rtt) echo 2;; tput) echo 3;; owin) echo 4;; ssize) echo 5;; lanes) echo 6;; esac; }
for g in tsg rtt tput owin ssize lanes; do
	check_begin "$g: the window draws what --export draws"
	old=$(grep '^netplot: view ' "$log" | tail -1)
	[ $g = tsg ] || { xdotool key "$(keyof $g)"; wait_for sh -c "grep '^netplot: view ' '$log' | tail -1 | grep -q ' graph=$g '"; } ||
		fail "key $(keyof $g) did not show $g: $old"
	v=$(grep '^netplot: view ' "$log" | tail -1)
	sleep 0.5
	import -window root "$workdir/shot.png" || fail "no screenshot"
	[ -z "$NETPLOT_SHOTS" ] || cp "$workdir/shot.png" "$NETPLOT_SHOTS/gui-$tag-$g.png"
	set -- $(echo "$v" | sed 's/.*plot=//; s/,/ /g')
	ox=$(( ${1%.*} - 96 )) oy=$(( ${2%.*} - 26 ))
	t0=$(echo "$v" | sed 's/.* t0=\([-0-9]*\) .*/\1/') t1=$(echo "$v" | sed 's/.* t1=\([-0-9]*\) .*/\1/')
	netplot "$cap" --graph $g --size $size --export "$workdir/cli-$g.png" || fail "--export failed"
	convert "$workdir/shot.png" -crop "${size}+$ox+$oy" +repage rgb:"$workdir/a.rgb"
	convert "$workdir/cli-$g.png" rgb:"$workdir/b.rgb"
	cmp -s "$workdir/a.rgb" "$workdir/b.rgb" ||
		fail "the window's $g differs from --export's ($(cmp "$workdir/a.rgb" "$workdir/b.rgb" | head -1))"
	check_end
done
