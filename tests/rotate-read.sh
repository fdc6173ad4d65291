#!/bin/sh
# rotate-read.sh — xcap -r with -G cuts pieces by the capture's own time,
# and every piece reads on its own, even for a connection's last
# acknowledgement after its close.
#
# xdpyinfo-xlogo-late-ack.pcap is xdpyinfo-xlogo.pcap with its packets
# from xdpyinfo's last ACK on shifted 3 s later (editcap -t 3): xdpyinfo's
# connection closes (FIN both ways), its last ACK comes 3 s later, then
# xlogo's connection.  With -G 2 the ACK begins the second piece, where
# no open connection is announced; a reader of that piece alone once
# dropped the ACK, as the piece held no record of its connection (seen
# as 2559 against 2560 packets in netplot-follow-rotate.sh).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcap xcapanalyse /usr/bin/python3
cap=$top_srcdir/tests/captures/xdpyinfo-xlogo-late-ack.pcap

# The first piece's name: the first packet's time, in the local zone.
first=$(/usr/bin/python3 - "$cap" <<'EOF'
import struct, sys
with open(sys.argv[1], 'rb') as f:
    head = f.read(24 + 16)
order = '<' if head[:4] == b'\xd4\xc3\xb2\xa1' else '>'
print(struct.unpack(order + 'I', head[24:28])[0])
EOF
) || fail "cannot read the capture's first time"
name=$(date -d "@$first" +%Y%m%d-%H%M%S)

cd "$workdir" || fail "no work directory"
xcap -q -r "$cap" -G 2 -w g.xcap || fail "xcap -r -G failed"
set -- g-*.xcap
[ "$#" = 2 ] || fail "expected 2 pieces, got $#: $*"
[ "$1" = "g-$name.xcap" ] ||
	fail "the first piece is named $1, not by the first packet's time (g-$name.xcap)"

# Per connection and direction, the pieces together hold every packet
# the whole capture has, each piece read alone.
rows() {	# FILE...: conn,client,server,packets c2s,packets s2c per connection
	for f in "$@"; do
		xcapanalyse --connections --format csv "$f" || fail "xcapanalyse failed on $f"
	done | awk -F, '$1 != "conn" { c[$2 "," $3] += $7; s[$2 "," $3] += $8 }
		END { for (k in c) print k "," c[k] "," s[k] }' | sort
}
whole=$(rows "$cap")
pieces=$(rows "$@")
[ -n "$whole" ] || fail "no connections in the whole capture"
[ "$whole" = "$pieces" ] ||
	fail "the pieces do not hold the capture's packets: whole
$whole
pieces
$pieces"
# The second piece begins with the closed connection's last ACK.
late=$(xcapanalyse --connections --format csv "$2" | awk -F, '$1 != "conn" && $7 + $8 == 1')
[ -n "$late" ] || fail "the second piece has no connection with its one late packet: $(xcapanalyse --connections "$2")"
say "2 pieces, $(echo "$whole" | wc -l) connections, every packet in a piece that names its connection"
