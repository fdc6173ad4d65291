#!/bin/sh
# flight-response.sh — the flight recorder's response-time trigger
# (xcap --trigger 'response>200ms') on a client whose slowness is chosen.
#
# tests/slow-answer.c answers the key b after 300 ms and the key a at
# once, and says how long it took by its own clock.  xdotool presses
# them through XTEST (real input, not SendEvent): a b a a b a, one every
# 2.2 s, each held 0.55 s.  Two captures run side by side: `xcap --ring` with the trigger,
# and tcpdump writing everything.  Then:
#  - the ring wrote one window per b and none for an a: every window's
#    trigger mark names b's keycode, and its response lies between the
#    client's chosen delay (it cannot answer before it has slept 300 ms)
#    and its own time for the answer plus a margin for the wake of a
#    loaded machine;
#  - each window holds the slow input (its KeyPress) and the answer (the
#    PolyFillRectangle), and begins its --before ahead of the input;
#  - xcapanalyse --responses on the full capture, with the capture-point
#    round trip taken off (the trigger has no state model), names the
#    same slow inputs with the same times (within 0.05 ms: two captures
#    stamp a packet apart), and every a under 200 ms;
#  - the same ring run on tcpdump's file (xcap -r) writes the same two
#    windows, their times equal to xcapanalyse's to the microsecond.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root xcap xcapanalyse tcpdump xdotool xset cc pkg-config /usr/bin/python3 pkg-config:xcb
cc -O2 -o "$workdir/slow-answer" "$top_srcdir/tests/slow-answer.c" \
	$(pkg-config --cflags --libs xcb) || fail "cannot build slow-answer"

start_xvfb
# A key held is a key held, not a stream of repeats (the server repeats
# keys of the XTEST device after 660 ms whatever xset says of the core
# keyboard, so the keys below are held 0.55 s).
xset r off || fail "xset r off failed"
port=$((6000 + display))
filter="tcp port $port"
ring="--ring 20 --before 1 --after 1 --trigger response>200ms"
start_capture ref tcpdump -i lo -s 0 -B 65536 -U --time-stamp-precision=nano \
	-w "$workdir/ref.pcap" $filter
start_capture flight xcap -i lo $ring -w "$workdir/win.xcap" $filter

"$workdir/slow-answer" "$DISPLAY" b=300 >"$workdir/client.out" 2>&1 &
pids="$pids $!"
wait_for grep -q '^ready' "$workdir/client.out" || fail "the client did not map: $(cat "$workdir/client.out"); $(display_state)"
for key in a b a a b a; do
	# Press, hold, release: the release comes after the answer, so it
	# does not cut the press's response.
	xdotool keydown $key sleep 0.55 keyup $key || fail "xdotool failed"
	sleep 1.6
done
sleep 1.2	# tcpdump hands over its last ring block after its 1 s timeout
stop_capture flight
stop_capture ref

cat "$workdir/client.out"
b_code=$(awk '/^press .* delay=300/ { print $2; exit }' "$workdir/client.out")
[ -n "$b_code" ] || fail "the client saw no slow key"
[ "$(grep -c '^press ' "$workdir/client.out")" = 6 ] || fail "the client did not see six presses"

# The truth: the full capture's responses, and the client's own times.
xcapanalyse --responses --format csv "$workdir/ref.pcap" >"$workdir/resp.csv" ||
	fail "xcapanalyse --responses failed"
# The same ring offline, on the reference's stamps.
xcap -q -r "$workdir/ref.pcap" $ring -w "$workdir/off.xcap" 2>"$workdir/off.err" ||
	fail "xcap -r --ring failed: $(cat "$workdir/off.err")"
check_windows() {	# PREFIX TOLERANCE-MS
	set -- "$workdir/$1"-*.xcap "$2"
	[ -e "$1" ] || fail "no window was written: $(cat "$workdir/flight.err")"
	[ $# = 3 ] || fail "expected 2 windows (one per b), got $(($# - 1)): $*"
	for w in "$1" "$2"; do
		xcapanalyse --marks --format csv "$w" >"$w.marks" || fail "xcapanalyse --marks failed: $w"
		xcapanalyse --dump "$w" >"$w.dump" || fail "xcapanalyse --dump failed: $w"
	done
	/usr/bin/python3 - "$workdir" "$b_code" "$@" <<'EOF' || fail "the windows do not match the slow inputs"
import csv, re, sys
work, b_code, tol, wins = sys.argv[1], int(sys.argv[2]), float(sys.argv[5]), sys.argv[3:5]
client = [l.split() for l in open(work + "/client.out") if l.startswith("press ")]
slow_own = [float(f[3].split("=")[1]) for f in client if f[2] == "delay=300"]
chosen = 300
presses = [r for r in csv.DictReader(open(work + "/resp.csv")) if r["kind"] == "key-press"]
def code(r):
    m = re.match(r"key=(\d+)", r["what"])
    return int(m.group(1)) if m else -1
def captured_ms(r):
    # what the display saw less what was added for the capture point
    return (float(r["response"] or 0) - float(r["added"] or 0)) * 1e3
print("presses (key, ms as captured):", [(code(r), round(captured_ms(r), 3)) for r in presses])
if len(presses) != 6:
    sys.exit("xcapanalyse saw %d key presses, not 6" % len(presses))
slow = [r for r in presses if code(r) == b_code]
fast = [r for r in presses if code(r) != b_code]
if len(slow) != 2:
    sys.exit("xcapanalyse saw %d presses of b" % len(slow))
for r in fast:
    if captured_ms(r) >= 200:
        sys.exit("a fast key took %.3f ms" % captured_ms(r))
def t_of(line):
    return int(re.search(r"\bt=(\d+)\.(\d{9})\b", line).expand(r"\1\2"))
for i, w in enumerate(sorted(wins)):
    resp_marks = [m for m in csv.DictReader(open(w + ".marks")) if m["source"] == "response"]
    if len(resp_marks) != 1:
        sys.exit("%s: %d response marks" % (w, len(resp_marks)))
    text = resp_marks[0]["text"]
    m = re.match(r"([0-9.]+) ms to key-press key=(\d+)\b.* at (\d+)\.(\d{9})$", text)
    if not m or int(m.group(2)) != b_code:
        sys.exit("%s: the mark is not of b's press: %s" % (w, text))
    ms, input_ns = float(m.group(1)), int(m.group(3) + m.group(4))
    own, truth = slow_own[i], captured_ms(slow[i])
    print("%s: trigger %.3f ms, xcapanalyse %.3f ms, the client's own %.3f ms"
          % (w.split("/")[-1], ms, truth, own))
    # The client answers after its sleep: never sooner than that.
    if ms < chosen or ms > own + 30:
        sys.exit("response %.3f ms outside %d ms .. the client's own %.3f ms + 30 ms"
                 % (ms, chosen, own))
    if abs(ms - truth) > tol + 0.001:
        sys.exit("the trigger's %.3f ms is not xcapanalyse's %.3f ms" % (ms, truth))
    dump = open(w + ".dump").read().splitlines()
    start = [t_of(l) for l in dump if l.startswith("mark ") and "source=window-start" in l]
    keys = [t_of(l) for l in dump if " name=KeyPress " in l and "key=%d " % b_code in l]
    fills = [t_of(l) for l in dump if " name=PolyFillRectangle " in l]
    if len(start) != 1 or input_ns not in keys:
        sys.exit("%s: no window start, or not the key press of the mark" % w)
    if not [t for t in fills if t > input_ns]:
        sys.exit("%s: the window lacks the answer" % w)
    # --before 1: the window begins a second ahead of the input
    if abs((input_ns - start[0]) - 10**9) > 10**6:
        sys.exit("%s: the window begins %.3f s ahead of the input" % (w, (input_ns - start[0]) / 1e9))
EOF
}
check_windows win 0.05
check_windows off 0
say "two windows, one per slow key, none for the four fast ones, live and offline"
