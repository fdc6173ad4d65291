#!/bin/sh
# rfb-oracle.sh — the RFB decoder against tshark's VNC dissector, on real
# traffic (tests/rfb-session.sh: the suite's client once per encoding
# against Xvnc and x11vnc, and xtigervncviewer against Xvnc).
#
# tests/rfb-compare.py matches both decoders' messages by their place in
# the stream; where tshark is right they must agree.  Where tshark 4.0 is
# wrong, measured here (Debian's tshark 4.0.x), and so written down:
#   - client to server it decodes only the first message of a segment;
#     the others are counted, not compared;
#   - server to client, once it mis-frames a message it never recovers in
#     that connection; KNOWN below lists the messages at which it does so;
#     a loss anywhere else fails the test (either xcap is wrong, or tshark
#     has a new way of being wrong to write down here).
# Ground truth is the client's own log (rfb-live.sh checks xcap against it).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/rfb-session.sh"
need root tshark
rfb_session "$workdir/rfb.pcap"
xcapanalyse --dump "$workdir/rfb.pcap" >"$workdir/rfb.dump" || fail "xcapanalyse --dump failed"
[ "$(grep -c '^conn .*proto=rfb' "$workdir/rfb.dump")" -ge 15 ] || fail "too few rfb connections"
! grep '^note ' "$workdir/rfb.dump" || fail "decoder notes on a clean capture"
tshark -r "$workdir/rfb.pcap" -d "tcp.port==$xvnc_port,vnc" -d "tcp.port==$x11vnc_port,vnc" \
	-T fields -E occurrence=a -E aggregator=, \
	-e frame.number -e tcp.srcport -e tcp.dstport -e tcp.seq_raw -e tcp.len \
	-e vnc.client_message_type -e vnc.server_message_type -e vnc.fb_update_num_rects \
	-e vnc.fb_update_encoding_type -e _ws.expert.message >"$workdir/rfb.tsv" 2>"$workdir/tshark.err" ||
	fail "tshark failed: $(cat "$workdir/tshark.err")"
# Ground truth first: each rfbclient connection (in the order they were
# made: ids 1, 2, ...) carries exactly the messages its client logged.
id=0
for log in $(for e in $rfb_encodings_xvnc; do echo "log-xvnc-$e"; done) \
	   $(for e in $rfb_encodings_x11vnc; do echo "log-x11vnc-$e"; done); do
	id=$((id + 1))
	awk -v c="conn=$id" '$1 == "msg" && $3 == c { d = n = l = ""; for (i = 2; i <= NF; i++) {
		if ($i ~ /^dir=/) d = substr($i, 5); if ($i ~ /^name=/) n = substr($i, 6)
		if ($i ~ /^length=/) l = substr($i, 8) } print d, n, l }' "$workdir/rfb.dump" |
		sort -s -k1,1 >"$workdir/xcap.msgs"
	awk '{ print $1, $2, $3 }' "$workdir/$log" | sort -s -k1,1 >"$workdir/client.msgs"
	cmp -s "$workdir/client.msgs" "$workdir/xcap.msgs" ||
		fail "connection $id ($log): xcap's messages differ from the client's log"
done
say "$id connections: xcap's messages are the ones the client logged"
# Where tshark 4.0 loses the server framing, measured: it does not frame
# the Zlib and CoRRE encodings (it takes the data for rectangles), nor
# TigerVNC's server Fence (the viewer's connection), nor a ServerCutText
# (seen when Xvnc echoes a client's clipboard, in a multi-encoding
# session: tshark waits for more bytes for good).  It is right on Raw,
# RRE, Hextile, Tight (basic compression) and ZRLE here.  (The servers
# answer CopyRect alone, and x11vnc TRLE, with Raw.)
KNOWN="FramebufferUpdate:Zlib FramebufferUpdate:CoRRE Fence ServerCutText"
# shellcheck disable=SC2086
/usr/bin/python3 "$top_srcdir/tests/rfb-compare.py" "$top_srcdir/protocols/rfb.def" \
	"$workdir/rfb.dump" "$workdir/rfb.tsv" $KNOWN >"$workdir/compare.out" 2>&1
rc=$?
sed "s/^/$test_name: /" "$workdir/compare.out"
[ $rc = 0 ] || fail "xcap and tshark disagree where tshark is right"
