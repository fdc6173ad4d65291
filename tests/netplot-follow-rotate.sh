#!/bin/sh
# netplot-follow-rotate.sh — netplot --follow on captures xcap really
# rotates, by time (-G 2) and by size (-C 1).
#
# tests/x-chatter.c talks to one Xvfb at a steady 20000 requests a second
# for 14 s (about 600 KB of trace a second), while two xcap captures
# rotate: every 2 s into g-YYYYmmdd-HHMMSS.xcap, and every million bytes
# into c-0.xcap, c-1.xcap...  Before the client begins, a netplot
# --follow on each set's first piece runs on an Xvfb of its own (its
# drawing is not in the capture).  While xcap writes:
#  - the session takes in the pieces as xcap opens them (NETPLOT_LOG's
#    follow lines: files= grows by at least two);
#  - the time range shown grows across the rotations (view lines: t1
#    grows by more than two of -G's periods), and the screen changes
#    (screenshots);
# and once the captures have stopped, each netplot holds all the pieces
# and every packet they hold (xcapanalyse --connections counts them).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need netplot xcap xcapanalyse import cc pkg-config /usr/bin/python3 root pkg-config:xcb
cc -O2 -o "$workdir/x-chatter" "$top_srcdir/tests/x-chatter.c" \
	$(pkg-config --cflags --libs xcb) || fail "cannot build x-chatter"

start_xvfb
clients=$DISPLAY
port=$((6000 + display))
start_capture bytime xcap -i lo -G 2 -w "$workdir/g.xcap" "tcp port $port"
start_capture bysize xcap -i lo -C 1 -w "$workdir/c.xcap" "tcp port $port"
first_piece() {	# PATTERN: the first piece of a set, once xcap has opened it
	for f in $1; do
		[ -e "$f" ] && { echo "$f"; return 0; }
		return 1
	done
	return 1
}
wait_for first_piece "$workdir/g-*.xcap" || fail "xcap -G opened nothing: $(cat "$workdir/bytime.err")"
wait_for first_piece "$workdir/c-0.xcap" || fail "xcap -C opened nothing: $(cat "$workdir/bysize.err")"
g_first=$(first_piece "$workdir/g-*.xcap")

# One netplot per set, each on an Xvfb of its own, following from the
# first piece before the client talks (a capture not begun yet).
follow() {	# NAME FIRST-PIECE
	start_xvfb
	eval "${1}_display=\$DISPLAY"
	(cd "$workdir" && HOME=$workdir NO_AT_BRIDGE=1 NETPLOT_LOG=1 exec netplot --follow "$2" \
		2>"$workdir/$1.log") &
	pids="$pids $!"
}
follow g "$g_first"
follow c "$workdir/c-0.xcap"
for s in g c; do
	i=0
	until grep -q '^netplot: follow /' "$workdir/$s.log" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 600 ] && fail "netplot did not start on $s in 60 s: $(cat "$workdir/$s.log")"
		sleep 0.1
	done
done

"$workdir/x-chatter" "$clients" 20000 14 >"$workdir/chatter.out" 2>&1 &
chatter=$!
pids="$pids $!"
for s in g c; do
	wait_for grep -q '^netplot: follow .*packets=[1-9]' "$workdir/$s.log" ||
		fail "netplot showed nothing of $s: $(cat "$workdir/$s.log")"
done
sleep 0.5
view() { grep '^netplot: view ' "$workdir/$1.log" | tail -1; }
files() { grep '^netplot: follow files=' "$workdir/$1.log" | tail -1 | sed 's/.*files=\([0-9]*\).*/\1/'; }
field() { echo "$1" | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }
g_v0=$(view g) c_v0=$(view c) g_f0=$(files g) c_f0=$(files c)
DISPLAY=$g_display import -window root "$workdir/g0.png" || fail "no screenshot"
DISPLAY=$c_display import -window root "$workdir/c0.png" || fail "no screenshot"

# xcap goes on rotating: the sessions take in the new pieces.
wait "$chatter" || fail "x-chatter failed: $(cat "$workdir/chatter.out")"
cat "$workdir/chatter.out"
sleep 2	# netplot reads again at most every half second, and after its last reading
g_v1=$(view g) c_v1=$(view c) g_f1=$(files g) c_f1=$(files c)
DISPLAY=$g_display import -window root "$workdir/g1.png" || fail "no screenshot"
DISPLAY=$c_display import -window root "$workdir/c1.png" || fail "no screenshot"
for s in g c; do
	eval "f0=\$${s}_f0 f1=\$${s}_f1 v0=\$${s}_v0 v1=\$${s}_v1"
	[ "$f1" -ge $((f0 + 2)) ] || fail "$s: netplot took in $f0 then $f1 pieces while xcap rotated"
	/usr/bin/python3 - "$(field "$v0" t1)" "$(field "$v1" t1)" <<'EOF' ||
import sys
a, b = float(sys.argv[1]), float(sys.argv[2])
sys.exit(0 if b > a + 4e9 else 1)	# more than two of -G's periods
EOF
		fail "$s: the time range did not grow across the rotations: $v0 -> $v1"
	cmp -s "$workdir/${s}0.png" "$workdir/${s}1.png" && fail "$s: the screen did not change"
	say "$s: $f0 then $f1 pieces, the view's end from $(field "$v0" t1) to $(field "$v1" t1) ns"
done

# The captures end: each netplot holds every piece and every packet.
stop_capture bytime
stop_capture bysize
packets() {	# FILES...: the packets they hold
	for f in "$@"; do
		xcapanalyse --connections --format csv "$f" || fail "xcapanalyse failed on $f"
	done | awk -F, '$1 != "conn" { n += $7 + $8 } END { print n + 0 }'
}
for s in g c; do
	set -- "$workdir/$s"-*.xcap
	total=$(packets "$@")
	[ "$#" -ge 3 ] || fail "$s: xcap wrote only $# pieces"
	wait_for grep -q "^netplot: follow files=$# packets=$total " "$workdir/$s.log" ||
		fail "$s: netplot does not hold the $# pieces' $total packets: $(grep '^netplot: follow' "$workdir/$s.log" | tail -2)"
	say "$s: all $# pieces, $total packets"
done

# A capture that runs past midnight: -G's next piece is stamped with the
# next day, and is still of the session (netplot's piece names end after
# the prefix, not at the stamp's own dash).
set -- "$workdir"/g-*.xcap
xcap -q -r "$top_srcdir/tests/captures/xdpyinfo-xlogo.pcap" -w "$workdir/piece.xcap" ||
	fail "xcap -r failed"
total=$(packets "$@" "$workdir/piece.xcap")
mv "$workdir/piece.xcap" "$workdir/g-$(date -d tomorrow +%Y%m%d)-000000.xcap"
wait_for grep -q "^netplot: follow files=$(($# + 1)) packets=$total " "$workdir/g.log" ||
	fail "the next day's piece was not taken in: $(grep '^netplot: follow' "$workdir/g.log" | tail -2)"
say "g: the next day's piece too, $total packets"
