#!/bin/sh
# x11-oracle.sh — the X11 decoder against tshark's X11 dissector.
#
# Real clients (xdpyinfo -ext all, xlogo, xterm at work, xeyes, gtk3-demo,
# x11perf) against Xvfb, captured by tcpdump; xcapanalyse and tshark decode
# the capture and, per connection, the request opcodes, reply sequence
# numbers, event codes and error codes must agree (x11-compare.py lists
# where tshark is known to be wrong).  Then the decoder must also say who
# the clients are.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root tcpdump tshark xdpyinfo xlogo xterm xeyes x11perf /usr/bin/python3
start_xvfb
port=$((6000 + display))

start_capture cap tcpdump -i lo -s 0 -B 65536 -U -w "$workdir/x.pcap" tcp port $port

xdpyinfo -ext all >/dev/null 2>&1 || fail "xdpyinfo failed"
xlogo -geometry 200x200 & c=$!; sleep 1; kill $c; wait $c 2>/dev/null
xterm -geometry 80x24 -e sh -c 'ls -lR /usr/share/X11 | head -300; sleep 0.3' ||
	fail "xterm failed"
xeyes & c=$!; sleep 1; kill $c; wait $c 2>/dev/null
if command -v gtk3-demo >/dev/null; then
	gtk3-demo --run=drawingarea >/dev/null 2>&1 & c=$!; sleep 2; kill $c; wait $c 2>/dev/null
fi
x11perf -repeat 1 -reps 300 -rect10 -ftext -putimage10 >/dev/null 2>&1 || fail "x11perf failed"
sleep 1.2	# tcpdump hands over its last ring block after its 1 s timeout
stop_capture cap

check_begin "the reference capture lost no packets"
grep -q "^0 packets dropped by kernel" "$workdir/cap.err" ||
	fail "the reference capture lost packets: $(tail -1 "$workdir/cap.err")"
check_end
xcapanalyse --dump "$workdir/x.pcap" >"$workdir/x.dump" || fail "xcapanalyse --dump failed"
tshark -r "$workdir/x.pcap" -T fields -E occurrence=a -E aggregator=, \
	-e tcp.srcport -e tcp.dstport -e x11.opcode -e x11.reply-sequencenumber \
	-e x11.eventcode -e x11.event-sequencenumber -e x11.errorcode \
	-e x11.error_sequencenumber >"$workdir/x.tsv" 2>/dev/null || fail "tshark failed"
check_begin "opcodes, sequence numbers, event and error codes agree with tshark's"
/usr/bin/python3 "$top_srcdir/tests/x11-compare.py" "$workdir/x.dump" "$workdir/x.tsv" ||
	fail "xcap and tshark disagree"
check_end

msgs=$(grep -c '^msg ' "$workdir/x.dump")
check_begin "more than 1000 messages decoded"
[ "$msgs" -gt 1000 ] || fail "only $msgs messages decoded"
check_end
check_begin "no decoder notes on a clean capture"
grep -q '^note ' "$workdir/x.dump" && fail "decoder notes on a clean capture: $(grep '^note ' "$workdir/x.dump" | head -3)"
check_end
# Doubt (uncertain, after-gap) has no place in a clean capture.
doubt='^msg .* flags=[a-z,-]*\(uncertain\|after-gap\)'
check_begin "no message flagged uncertain or after-gap on a clean capture"
grep -q "$doubt" "$workdir/x.dump" &&
	fail "messages flagged on a clean capture: $(grep "$doubt" "$workdir/x.dump" | head -3)"
check_end
# wants-reply (from xcb-proto) agrees with what the server did: on a clean
# capture every reply answers a request so flagged, and every request so
# flagged got a reply or an error.
check_begin "wants-reply agrees with the replies the server sent"
/usr/bin/python3 - "$workdir/x.dump" <<'PY' || fail "wants-reply disagrees with the replies"
import os, sys
sys.path.insert(0, os.path.join(os.environ.get('top_srcdir', '.'), 'tests'))
import dumpfile
want, answered = {}, {}
for kind, f in dumpfile.records(sys.argv[1], ('msg',)):
    key = (f['conn'], f['seq'])
    if f['kind'] == 'request':
        want[key] = ('wants-reply' in f['flags'].split(','), f['name'])
    elif f['kind'] in ('reply', 'error'):
        answered[key] = f['kind']
bad = [(k, want.get(k)) for k, a in answered.items() if a == 'reply' and not want.get(k, (0,))[0]]
bad += [(k, w) for k, w in want.items() if w[0] and k not in answered]
# The last requests of a connection may be cut off by its end: allow a few.
if len(bad) > 3:
    print('wants-reply disagrees: %s' % bad[:10])
    sys.exit(1)
PY
check_end
check_begin "the clients are named by their WM_CLASS"
grep -q '^name .*source=WM_CLASS text="xeyes XEyes"' "$workdir/x.dump" || fail "xeyes not named"
grep -q '^name .*source=WM_CLASS text="xterm XTerm"' "$workdir/x.dump" || fail "xterm not named"
check_end
check_begin "InternAtom's reply carries its atom's name"
grep -q '^msg .*name=InternAtom .*detail="atom=[1-9][0-9]* name=WM_PROTOCOLS"' "$workdir/x.dump" ||
	fail "no InternAtom reply with its atom name"
check_end
check_begin "QueryExtension carries the extension's name"
grep -q '^msg .*kind=request .*name=QueryExtension .*detail="name=RENDER"' "$workdir/x.dump" ||
	fail "no QueryExtension with its name"
check_end
check_begin "the extensions in use have ext records"
grep -q '^ext .*name=BIG-REQUESTS ' "$workdir/x.dump" || fail "no ext record"
check_end
say "$msgs messages compared with tshark's"
