#!/bin/sh
# flight.sh — the flight recorder on a real session.
#
# An xterm under Xvfb prints a listing every half second and gets key
# presses from xdotool for FLIGHT_SECONDS (60 by default; `make
# long-flight` runs 600).  In the middle a client interns XCAP_MARK_middle
# (tests/xmark.py: raw protocol, nothing linked); at three quarters xcap gets
# SIGUSR2.  Two captures run side by side: `xcap --ring` keeping 20 s in
# memory, and `tcpdump -w` writing everything.  Then:
#  - the ring wrote exactly two windows, one per trigger, each saying
#    what triggered it, with the mark in it;
#  - a window holds only its span (from 8 s before the mark to 5 s after),
#    far less than the session;
#  - nothing before the window's start is missing: every connection a
#    record of the window names has its conn record, its extensions and
#    its names in the window; every packet and message of the full
#    capture (tcpdump's, read by xcap -r) inside the window is in it;
#  - the same ring run on tcpdump's file writes a window equal, record for
#    record, to the full trace's records of that span;
#  - --trigger by request (the xterm's MapWindow, by its WM_CLASS), by event
#    (KeyPress) and by wait (>5 ms) marks what the trace's messages say.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root tcpdump xterm xdotool python3
seconds=${FLIGHT_SECONDS:-60}
[ "$seconds" -ge 40 ] || fail "FLIGHT_SECONDS must be at least 40: $seconds"
start_xvfb
port=$((6000 + display))
filter="tcp port $port"
ring="--ring 20 --before 8 --after 5"

start_capture ref tcpdump -i lo -s 0 -B 65536 -U --time-stamp-precision=nano \
	-w "$workdir/ref.pcap" $filter
start_capture flight xcap -i lo $ring -w "$workdir/fl.xcap" $filter

# The session: output every half second, a key press every second.
xterm -geometry 80x24 -e sh -c 'while :; do ls -l /usr/bin | head -30; sleep 0.5; done' &
xterm_pid=$!
pids="$pids $xterm_pid"
wait_for xdotool search --class xterm || fail "the xterm did not map: $(display_state)"
wid=$(xdotool search --class xterm | head -1)
mark_at=$((seconds / 2))
usr2_at=$((seconds * 3 / 4))
i=0
while [ $i -lt "$seconds" ]; do
	xdotool key --window "$wid" a 2>/dev/null
	[ $i = $mark_at ] && { python3 "$top_srcdir/tests/xmark.py" "$display" atom middle ||
		fail "xmark.py could not mark"; }
	[ $i = $usr2_at ] && kill -USR2 "$flight_pid"
	sleep 1
	i=$((i + 1))
done
kill "$xterm_pid"
wait "$xterm_pid" 2>/dev/null
sleep 1.2	# tcpdump hands over its last ring block after its 1 s timeout
stop_capture flight
stop_capture ref

set -- "$workdir"/fl-*.xcap
check_begin "the ring wrote two windows, one per trigger"
[ $# = 2 ] || fail "expected 2 windows, got $#: $(ls "$workdir"; cat "$workdir/flight.err")"
grep -q "2 windows written" "$workdir/flight.err" || fail "xcap does not say 2 windows"
check_end && two=yes
if [ -n "${two:-}" ]; then
	xcapanalyse --dump "$1" >"$workdir/w1.txt" || fail "cannot dump window 1"
	xcapanalyse --dump "$2" >"$workdir/w2.txt" || fail "cannot dump window 2"
fi
xcap -q -r "$workdir/ref.pcap" -w "$workdir/full.xcap" || fail "xcap -r failed"
xcapanalyse --dump "$workdir/full.xcap" >"$workdir/full.txt" || fail "cannot dump full trace"
# The same ring offline: deterministic, so compared record for record.
xcap -q -r "$workdir/ref.pcap" $ring -w "$workdir/off.xcap" || fail "xcap -r --ring failed"
set -- "$workdir"/off-*.xcap
check_begin "offline, the ring wrote one window (no signal in a file)"
[ $# = 1 ] || fail "offline: expected 1 window (no signal in a file), got $#"
check_end && one=yes
if [ -n "${one:-}" ]; then
	xcapanalyse --dump "$1" >"$workdir/off.txt" || fail "cannot dump the offline window"
fi

if [ -n "${two:-}" ]; then
	check_begin "window 1 says the mark triggered it, and holds the mark"
	grep -q '^mark .* source=window-start text="atom middle (connection [0-9]*)"' "$workdir/w1.txt" ||
		fail "window 1 does not say the mark triggered it: $(grep '^mark' "$workdir/w1.txt")"
	grep -q '^mark .* source=atom text=middle$' "$workdir/w1.txt" || fail "the mark is not in window 1"
	check_end
	check_begin "window 2 says SIGUSR2 triggered it, and holds the signal's mark"
	grep -q '^mark .* source=window-start text="signal SIGUSR2"' "$workdir/w2.txt" ||
		fail "window 2 does not say SIGUSR2 triggered it: $(grep '^mark' "$workdir/w2.txt")"
	grep -q '^mark .* source=signal text=SIGUSR2$' "$workdir/w2.txt" || fail "no signal mark in window 2"
	check_end
else
	check_skip "window 1 says the mark triggered it, and holds the mark" "not two windows"
	check_skip "window 2 says SIGUSR2 triggered it, and holds the signal's mark" "not two windows"
fi
check_begin "the full capture read by xcap -r holds the mark"
grep -q '^mark .* source=atom text=middle$' "$workdir/full.txt" ||
	fail "the full capture read by xcap -r has no mark"
check_end

# Window 1 and the offline window against the full capture.
windows="the windows hold their span and all it refers to, as the full capture has them"
if [ -z "${two:-}" ] || [ -z "${one:-}" ]; then
	check_skip "$windows" "the ring did not write the windows expected"
else
check_begin "$windows"
python3 - "$workdir" <<'EOF' || fail "windows and full capture disagree (above)"
import sys
wd = sys.argv[1]

def records(path):
    out = []
    for line in open(path):
        f = line.split()
        kv = dict(x.split('=', 1) for x in f[1:] if '=' in x)
        out.append((f[0], kv, line.rstrip('\n')))
    return out

def t(kv):
    return int(kv['t'].replace('.', ''))

def mark(recs, source):
    return [t(kv) for ty, kv, _ in recs if ty == 'mark' and kv['source'] == source]

full = records(wd + '/full.txt')
ok = True
for name, live in (('w1', True), ('off', False)):
    w = records('%s/%s.txt' % (wd, name))
    start, end = mark(w, 'window-start')[0], mark(w, 'window-end')[0]
    at = mark(w, 'atom')[0]
    if start != at - 8 * 10**9 or end != at + 5 * 10**9:
        print('%s: window [%d, %d] is not 8 s before and 5 s after the mark at %d'
              % (name, start, end, at)); ok = False
    body = [(ty, kv, l) for ty, kv, l in w if ty in ('pkt', 'msg', 'gap')]
    out = [l for ty, kv, l in body if not start <= t(kv) <= end]
    if out:
        print('%s: %d records outside the window, first: %s' % (name, len(out), out[0])); ok = False
    # Everything a record of the window refers to is in the window.
    conns = {kv['id'] for ty, kv, _ in w if ty == 'conn'}
    used = {kv['conn'] for ty, kv, _ in body}
    if used - conns:
        print('%s: connections without a conn record: %s' % (name, used - conns)); ok = False
    for ty in ('ext', 'name'):
        need = {(kv['conn'], kv.get('name', kv.get('text'))) for tt, kv, _ in full
                if tt == ty and kv['conn'] in used and t(kv) <= end}
        have = {(kv['conn'], kv.get('name', kv.get('text'))) for tt, kv, _ in w if tt == ty}
        if need - have:
            print('%s: %s records missing: %s' % (name, ty, sorted(need - have)[:5])); ok = False
    # Every packet and message of the full capture in the window is there.
    # The live capture's packet socket stamps times a few microseconds
    # apart from tcpdump's: compare without times, away from the edges.
    margin = 50 * 10**6 if live else 0
    def key(ty, kv):
        if ty == 'pkt':
            return (ty, kv['conn'], kv['dir'], kv['seq'], kv['ack'], kv['len'])
        return (ty, kv['conn'], kv['dir'], kv['kind'], kv['seq'], kv['name'])
    want = {key(ty, kv) for ty, kv, _ in full if ty in ('pkt', 'msg')
            and start + margin <= t(kv) <= end - margin}
    got = {key(ty, kv) for ty, kv, _ in body if ty in ('pkt', 'msg')}
    if want - got:
        print('%s: %d of %d records of the full capture in the window are missing, e.g. %s'
              % (name, len(want - got), len(want), sorted(want - got)[:3])); ok = False
    if len(want) < 50:
        print('%s: only %d records in the window: the session did not run' % (name, len(want)))
        ok = False
    total = sum(1 for ty, kv, _ in full if ty == 'pkt')
    inside = sum(1 for ty, kv, _ in body if ty == 'pkt')
    if inside * 2 > total:
        print('%s: the window holds %d of the session\'s %d packets' % (name, inside, total))
        ok = False
    if not live:
        # Offline, where times are the file's: the very same lines.
        exact = [l for ty, kv, l in full if ty in ('pkt', 'msg', 'gap') and start <= t(kv) <= end]
        if exact != [l for ty, kv, l in body]:
            print('off: the window is not the full trace\'s records of its span'); ok = False
    print('%s: window of %.1f s, %d of the session\'s %d packets, %d records compared'
          % (name, (end - start) / 1e9, inside, total, len(want)))
sys.exit(0 if ok else 1)
EOF
check_end
fi
# Triggers by name and by wait, without a ring: each writes a mark.  The
# xterm's MapWindow (matched by its WM_CLASS) once; every KeyPress the
# trace holds; every reply that came more than a threshold after its
# request, counted independently from the messages view's waits.  The
# threshold is the session's sixth-longest wait, so that at least five
# replies are over it however fast this machine answered (on an idle
# machine no reply on loopback takes 5 ms).
xcapanalyse --messages --format csv "$workdir/ref.pcap" >"$workdir/ref-msgs.csv" || fail "no messages"
limit=$(python3 - "$workdir/ref-msgs.csv" <<'EOF'
import csv, sys
# the view's wait is in seconds; the trigger's in ms
waits = sorted(float(m['wait']) * 1e3 for m in csv.DictReader(open(sys.argv[1]))
               if m['kind'] in ('reply', 'error') and m['wait'])
print('%.3f' % (waits[-6] if len(waits) >= 6 else 0))
EOF
)
[ "$limit" != 0.000 ] || fail "the session has fewer than 6 replies"
xcap -q -r "$workdir/ref.pcap" --trigger 'request=MapWindow:xterm' --trigger event=KeyPress \
	--trigger "wait>${limit}ms" -w "$workdir/trig.xcap" || fail "xcap --trigger failed"
xcapanalyse --marks --format csv "$workdir/trig.xcap" >"$workdir/trig.csv" || fail "cannot list marks"
xcapanalyse --messages --format csv "$workdir/trig.xcap" >"$workdir/msgs.csv" || fail "no messages"
check_begin "--trigger by request, event and wait marks what the trace's messages say"
python3 - "$workdir" "$limit" <<'EOF' || fail "trigger marks disagree with the trace (above)"
import csv, sys
wd = sys.argv[1]
limit = float(sys.argv[2])
marks = list(csv.DictReader(open(wd + '/trig.csv')))
msgs = list(csv.DictReader(open(wd + '/msgs.csv')))
ok = True
maps = [m for m in marks if m['text'] == 'request=MapWindow:xterm']
if len(maps) != 1 or 'xterm' not in maps[0]['client'].lower():
    print('MapWindow of the xterm: %d marks %s' % (len(maps), maps[:2])); ok = False
keys = sum(1 for m in marks if m['text'] == 'event=KeyPress')
want = sum(1 for m in msgs if m['kind'] == 'event' and m['name'] == 'KeyPress')
if keys != want or want < 20:
    print('KeyPress marks %d, KeyPress events %d' % (keys, want)); ok = False
trips = sum(1 for m in marks if m['source'] == 'round-trip')
waits = [float(m['wait']) * 1e3 for m in msgs if m['kind'] in ('reply', 'error') and m['wait']]
# the limit is rounded to microseconds: a wait at it may go either way
over = sum(1 for w in waits if w > limit + 0.001)
edge = sum(1 for w in waits if limit - 0.001 <= w <= limit + 0.001)
if not over <= trips <= over + edge or trips < 5:
    print('round-trip marks %d, replies over %.3f ms %d (+%d at the edge)' % (trips, limit, over, edge))
    ok = False
print('triggers: 1 MapWindow, %d KeyPress, %d round trips over %.3f ms' % (keys, trips, limit))
sys.exit(0 if ok else 1)
EOF
check_end
say "a ${seconds} s session: its windows and triggers against the full capture"
