#!/bin/sh
# rfb-views.sh — xcapanalyse's views and netplot's labels on a real RFB
# capture (tests/captures/rfb-xvnc.pcap: tests/rfbclient.py against Xvnc,
# its messages in rfb-xvnc.msgs), checked against what the client logged:
#   --messages lists every message, --connections counts them per
#   direction and names the connection by its desktop name, --round-trips
#   has one FramebufferUpdateRequest wait per update the client waited for
#   (the pull loop: each update answers the client's last request) and the
#   delay table's Block Reply is their sum; a headless netplot export
#   labels the RFB messages as it labels X11's.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcapanalyse /usr/bin/python3
cap="$top_srcdir/tests/captures/rfb-xvnc.pcap"
log="$top_srcdir/tests/captures/rfb-xvnc.msgs"
c2s=$(grep -c '^c2s ' "$log")
s2c=$(grep -c '^s2c ' "$log")
updates=$(grep -c '^s2c FramebufferUpdate ' "$log")

xcapanalyse --messages --format csv "$cap" >"$workdir/messages.csv" || fail "--messages failed"
# in order within each direction (the two interleave by capture time)
awk -F, 'NR > 1 { print $3, $7 }' "$workdir/messages.csv" | sort -s -k1,1 >"$workdir/messages"
awk '{ print $1, $2 }' "$log" | sort -s -k1,1 | cmp -s - "$workdir/messages" ||
	fail "--messages does not list the client's messages in order"

xcapanalyse --connections --format csv "$cap" >"$workdir/conn.csv" || fail "--connections failed"
line=$(awk -F, 'NR == 2 { print $4, $5, $11, $12 }' "$workdir/conn.csv")
[ "$line" = "rfb small $c2s $s2c" ] ||
	fail "--connections says '$line', the client logged $c2s and $s2c messages on desktop 'small'"

xcapanalyse --round-trips --format csv "$cap" >"$workdir/trips.csv" || fail "--round-trips failed"
trips=$(grep -c ',FramebufferUpdateRequest,reply,' "$workdir/trips.csv")
[ "$trips" = "$updates" ] || fail "$trips update round trips, the client waited for $updates updates"
xcapanalyse --format csv "$cap" >"$workdir/delays.csv" || fail "the delay table failed"
/usr/bin/python3 - "$workdir/trips.csv" "$workdir/delays.csv" <<'PY' || fail "Block Reply is not the sum of the waits"
import csv, sys
waits = sum(float(r['wait']) for r in csv.DictReader(open(sys.argv[1])))
rows = list(csv.DictReader(open(sys.argv[2])))
block = [r for r in rows if r.get('conn') == '1' and r.get('direction') == 'request']
if not block:
    sys.exit('no request row for connection 1 in %s' % rows[:2])
got = float(block[0]['block_reply'])
if abs(got - waits) > 1e-6:
    sys.exit('block reply %.6f, waits sum to %.6f' % (got, waits))
PY
say "$c2s+$s2c messages, $trips update round trips, as the client logged"

command -v netplot >/dev/null 2>&1 || skip "netplot not built (the xcapanalyse views passed)"
for d in request reply; do
	netplot "$cap" --direction "$d" --export "$workdir/$d.svg" || fail "netplot --export failed"
done
/usr/bin/python3 - "$workdir/request.svg" "$workdir/reply.svg" <<'PY' || fail "netplot's labels are not RFB's"
import sys, xml.etree.ElementTree as ET
def labels(path):
    # A run of one message is one label with its count ("KeyEvent ×2").
    return {(t.text or '').split(' \u00d7')[0]
            for t in ET.parse(path).getroot().iter('{http://www.w3.org/2000/svg}text')}
want = {sys.argv[1]: {'FramebufferUpdateRequest', 'PointerEvent', 'KeyEvent', 'SetEncodings'},
        sys.argv[2]: {'FramebufferUpdate'}}
for path, names in want.items():
    missing = names - labels(path)
    if missing:
        sys.exit('%s: no label %s' % (path, sorted(missing)))
PY
say "netplot labels RFB messages"
