#!/bin/sh
# replay.sh — a recorded session replays to the same end (xcap-replay).
#
# X11: xterm runs in a client namespace against Xvfb in a server
# namespace, joined by xcap-link; xdotool, beside the display, types a
# command and picks "Enable Reverse Video" from xterm's VT Options menu
# (ctrl + middle button, move, release), while xcap captures beside the
# client.  xcap-replay records the session from that capture, then replays
# it into a fresh xterm at 0.1 ms and at 100 ms one-way delay with quiet
# pacing, each replay captured the same way.  Each replay must
#  - deliver the same inputs to the client (recorded again from the
#    replay's capture: same kinds and codes in the same order), and
#  - leave the window with the same pixels as the recording (import
#    -window, compared pixel for pixel);
# and the replay at the recorded pace over 100 ms is shown beside them:
# the menu opens 200 ms after the press, after the recorded release,
# so its pixels are expected to differ; what it does is said, not assumed.
# RFB: a viewer's session (the RFB capture of the golden tests) replays
# against Xvnc with the same inputs arriving, by the replay's capture.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need_root
need ip xcap-link xcap xcap-replay Xvfb xterm xdotool import compare
[ -c /dev/net/tun ] || skip "no /dev/net/tun (the tun driver)"
. "$top_srcdir/tests/netns.sh"

tag=rp$$
geometry=60x10+20+30		# where xterm puts itself (no window manager)

# The session file's reader refuses what is not one, by line.
printf 'xcap-session 1\nprotocol x11\n0.1 key-press 38 1 2 0x0 - - -\n0.05 key-press 38 1 2 0x0 - - - -\n' \
	>"$workdir/bad.session"
xcap-replay "$workdir/bad.session" 2>"$workdir/bad.err"
[ $? = 1 ] || fail "a bad session file is not status 1"
grep -q "line 3:" "$workdir/bad.err" || fail "the bad line is not named: $(cat "$workdir/bad.err")"

# inputs SESSION: its inputs' kinds and codes, one a line.
inputs() { awk '$1 ~ /^[0-9]/ { print $2, $3 }' "$1"; }

# run NAME DELAY_MS CMD...: a fresh link, Xvfb and xterm; CMD runs beside
# the display with DISPLAY set (as sh -c); the client side is captured
# into NAME.xcap and the xterm window shot into NAME.png.
run() {
	_name=$1 _delay=$2; shift 2
	make_link "$tag$_name" 0 0 "$_delay"
	start_xvfb_ns 800x600x24 "$workdir/xvfb-$_name.log"
	start_capture "cap_$_name" ip netns exec "$link_ns_c" \
		xcap -i "$link_dev_c" -w "$workdir/$_name.xcap" "tcp port $((6000 + n))"
	ip netns exec "$link_ns_c" env DISPLAY="$link_addr_s:$n" HOME="$workdir" PS1='$ ' \
		xterm -geometry "$geometry" -xrm 'XTerm*cursorBlink: false' -e sh \
		>"$workdir/xterm-$_name.log" 2>&1 &
	_tpid=$!
	_wid=$(ip netns exec "$link_ns_s" env DISPLAY="127.0.0.1:$n" timeout 90 \
		xdotool search --sync --onlyvisible --class xterm | head -n 1)
	[ -n "$_wid" ] || fail "$_name: no xterm window appeared"
	sleep 3	# the prompt, over the link (xterm starts with some 80 round trips)
	ip netns exec "$link_ns_s" env DISPLAY="127.0.0.1:$n" sh -c "$*" ||
		{ _st=$?; [ $_st = 3 ] || fail "$_name: '$*' failed ($_st)"; }
	sleep 1
	ip netns exec "$link_ns_s" env DISPLAY="127.0.0.1:$n" import -window "$_wid" "$workdir/$_name.png" ||
		fail "$_name: no screenshot"
	kill "$_tpid" 2>/dev/null; wait "$_tpid" 2>/dev/null
	sleep 0.5
	stop_capture "cap_$_name"
	kill "$xpid" 2>/dev/null; wait "$xpid" 2>/dev/null
	link_down "$tag$_name" || fail "$_name: xcap-link did not end cleanly"
}

# differ A B: how many pixels of two screenshots differ.
differ() { compare -metric AE "$workdir/$1.png" "$workdir/$2.png" null: 2>&1 | cut -d' ' -f1; }

# ---- recording: a person (xdotool) at the display ----
run rec 0.1 "xdotool mousemove 100 80 sleep 0.3 type --delay 150 'echo replay'
	xdotool key Return sleep 0.8
	xdotool keydown ctrl mousedown 2 sleep 0.8 mousemove 100 134 sleep 0.5 mouseup 2 keyup ctrl"
xcap-replay record "$workdir/rec.xcap" -o "$workdir/rec.session" 2>"$workdir/rec.err" ||
	fail "record failed: $(cat "$workdir/rec.err")"
cat "$workdir/rec.err"
inputs "$workdir/rec.session" >"$workdir/rec.inputs"
count=$(wc -l <"$workdir/rec.inputs")
# 11 characters and Return pressed and released, ctrl down and up, the
# middle button down and up: 28 at least, and the motion onto the item.
[ "$count" -ge 28 ] || fail "the recording has $count inputs, not at least 28"
grep -q '^button-press 2$' "$workdir/rec.inputs" || fail "no press of button 2 recorded"
grep -q '^button-release 2$' "$workdir/rec.inputs" || fail "no release of button 2 recorded"
grep -q '^motion ' "$workdir/rec.inputs" || fail "no motion onto the menu recorded"
say "recorded $count inputs from the capture"

# ---- replays ----
for d in 0.1 100; do
	q=q$(echo "$d" | tr -d .)	# a shell variable's name is part of it
	run "$q" "$d" "xcap-replay --pace quiet --log '$workdir/$q.log' '$workdir/rec.session'"
	xcap-replay record "$workdir/$q.xcap" -o "$workdir/$q.session" 2>/dev/null ||
		fail "$d ms: nothing recorded from the replay's capture"
	inputs "$workdir/$q.session" >"$workdir/$q.got"
	# Keys and buttons the session left down (a release a grab sent to
	# another client when recording) are let go of at the end, and the log
	# says so: those releases come after the session's inputs.
	sed -n 's/^# let go of key \([0-9]*\),.*/key-release \1/p; s/^# let go of button \([0-9]*\),.*/button-release \1/p' \
		"$workdir/$q.log" >"$workdir/$q.letgo"
	head -n "$count" "$workdir/$q.got" >"$workdir/$q.inputs"
	tail -n +"$((count + 1))" "$workdir/$q.got" | cmp -s - "$workdir/$q.letgo" ||
		fail "$d ms, quiet pace: inputs after the session's that are not its let-go releases: $(tail -n +"$((count + 1))" "$workdir/$q.got" | head -3)"
	got=$(wc -l <"$workdir/$q.inputs")
	diff "$workdir/rec.inputs" "$workdir/$q.inputs" >"$workdir/$q.diff" ||
		fail "$d ms, quiet pace: the client got other inputs ($got, not $count): $(head -5 "$workdir/$q.diff")"
	px=$(differ rec "$q")
	[ "$px" = 0 ] || fail "$d ms, quiet pace: $px pixels of the window differ from the recording's"
	unsettled=$(grep -c 'never-' "$workdir/$q.log")
	say "$d ms one way, quiet pace: $got inputs arrived, the same as recorded; window identical; $unsettled responses unsettled"
done

# The two quiet replays side by side: the same inputs, each response
# moved by the link.  A response as the display sees it holds at least one
# exchange over the link (the event to the client, its drawing back), and
# one more for each round trip inside it, each 2 x (100 - 0.1) ms longer:
# the median shift must be a whole number of those exchanges, within
# 2 ms + 5 %.
xcapanalyse --compare --format csv "$workdir/q01.xcap" "$workdir/q100.xcap" >"$workdir/cmp.csv" ||
	fail "--compare of the two replays failed"
python3 - "$workdir/cmp.csv" <<'EOF' || fail "--compare: the response shift is not the link's (above)"
import csv, sys
rows = {(r['view'], r['row'], r['metric']): r for r in csv.DictReader(open(sys.argv[1]))}
matched = int(rows[('matching', 'inputs', 'matched')]['b'])
shift = float(rows[('matching', 'inputs', 'shift_p50')]['b'])
exchange = 2 * (100 - 0.1) / 1e3
k = max(1, round(shift / exchange))
ok = abs(shift - k * exchange) <= 0.002 + 0.05 * k * exchange and matched >= 20
print('replay: --compare: %d inputs matched, median response shift %.1f ms, %d exchange%s of %.1f ms'
      % (matched, shift * 1e3, k, '' if k == 1 else 's', exchange * 1e3))
sys.exit(0 if ok else 1)
EOF

run r100 100 "xcap-replay --pace recorded '$workdir/rec.session'"
xcap-replay record "$workdir/r100.xcap" -o "$workdir/r100.session" 2>/dev/null
inputs "$workdir/r100.session" >"$workdir/r100.inputs" 2>/dev/null
got=$(wc -l <"$workdir/r100.inputs")
px=$(differ rec r100)
# where_released SESSION: "menu" when button 2 was released in another
# window than it was pressed in (the menu the press opened), else "same".
where_released() {
	awk '$2 == "button-press" && $3 == 2 { w = $7 }
	     $2 == "button-release" && $3 == 2 { r = ($7 == w ? "same" : "menu") }
	     END { print r == "" ? "none" : r }' "$1"
}
[ "$(where_released "$workdir/rec.session")" = menu ] ||
	fail "the recording's release of button 2 was not in the menu: $(where_released "$workdir/rec.session")"
if [ "$px" != 0 ] || ! cmp -s "$workdir/rec.inputs" "$workdir/r100.inputs"; then
	say "100 ms one way, recorded pace: $got inputs arrived (of $count), button 2 released in window: $(where_released "$workdir/r100.session") (recorded: menu), $px pixels of the window differ: the recorded pace lost the menu pick"
else
	say "100 ms one way, recorded pace: the same inputs and window; here it lost nothing"
fi

# ---- RFB: the suite's viewer against Xvnc ----
if command -v Xvnc >/dev/null 2>&1; then
	xcap-replay record "$top_srcdir/tests/captures/rfb-xvnc.pcap" -o "$workdir/rfb.session" 2>/dev/null ||
		fail "cannot record the RFB capture"
	inputs "$workdir/rfb.session" >"$workdir/rfb.inputs"
	start_xvnc replay xvnc
	# xcap-replay's own capture, beside it on loopback.
	# The desktop is not the recorded one: its responses may never begin.
	xcap-replay --rfb "127.0.0.1:$xvnc_port" --quiet 100 --timeout 1000 --capture "$workdir/rfb.xcap" \
		"$workdir/rfb.session" 2>"$workdir/rfb.err"
	st=$?
	[ $st = 0 ] || [ $st = 3 ] || fail "RFB replay failed ($st): $(cat "$workdir/rfb.err")"
	grep -q "^xcap: listening on lo" "$workdir/rfb.err" || fail "--capture: xcap said nothing: $(cat "$workdir/rfb.err")"
	xcap-replay record "$workdir/rfb.xcap" -o "$workdir/rfb2.session" 2>/dev/null ||
		fail "nothing recorded from the RFB replay's capture"
	inputs "$workdir/rfb2.session" >"$workdir/rfb2.inputs"
	cmp -s "$workdir/rfb.inputs" "$workdir/rfb2.inputs" ||
		fail "RFB: Xvnc got other inputs: $(diff "$workdir/rfb.inputs" "$workdir/rfb2.inputs" | head -5)"
	say "RFB against Xvnc: $(wc -l <"$workdir/rfb2.inputs") inputs arrived, as recorded"
else
	say "no Xvnc: the RFB replay is not tried"
fi

# ---- the same session over a sweep's links ----
if command -v xcap-sweep >/dev/null 2>&1 && command -v xwininfo >/dev/null 2>&1; then
	xcap-sweep --replay "$workdir/no-such.session" xterm >/dev/null 2>"$workdir/err"
	[ $? = 2 ] || fail "xcap-sweep --replay of a missing session is not a usage error"
	grep -q "^xcap-sweep: --replay needs a session file" "$workdir/err" ||
		fail "xcap-sweep --replay of a missing session: $(cat "$workdir/err")"
	xcap-sweep -q -o "$workdir/sweep" --link xcap-link --replay "$workdir/rec.session" \
		--rates 10M --delays 0.1,100 --format csv -- \
		"PS1='\$ ' xterm -geometry $geometry -xrm 'XTerm*cursorBlink: false' -e sh" \
		>"$workdir/sweep.csv" 2>"$workdir/sweep.err" ||
		fail "xcap-sweep --replay failed: $(tail -3 "$workdir/sweep.err")"
	# Every cell got every input (and the let-go releases, as the quiet
	# replays above did); at 100 ms one way a response the display
	# sees needs the event to reach the client and its drawing to come
	# back: the median is at least 2 x 100 ms.
	awk -F, -v want="$((count + $(wc -l <"$workdir/q01.letgo")))" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ printf "%s ms: %s inputs, p50 %s ms, p90 %s ms, status %s\n", $c["delay_ms"], $c["inputs"],
			$c["response_p50_ms"], $c["response_p90_ms"], $c["status"]
		  if ($c["inputs"] != want) bad = bad " " $c["delay_ms"] " ms: " $c["inputs"] " inputs, not " want ";"
		  if ($c["delay_ms"] == 100 && $c["response_p50_ms"] + 0 < 200) bad = bad " p50 under 200 ms at 100 ms;" }
		END { if (bad != "") { print "BAD:" bad; exit 1 } }' "$workdir/sweep.csv" >"$workdir/sweep.check"
	st=$?
	sed 's/^/replay: sweep: /' "$workdir/sweep.check"
	[ $st = 0 ] || fail "xcap-sweep --replay: $(grep BAD "$workdir/sweep.check")"
else
	say "no xcap-sweep or xwininfo: the sweep is not tried"
fi
