#!/bin/sh
# replay.sh — a recorded session replays to the same end (xcap-replay).
#
# X11: a client runs in a client namespace against Xvfb in a server
# namespace, joined by xcap-link, while xcap captures beside the client;
# xdotool, beside the display, is the person at the screen:
#  - xterm: types a command and picks "Enable Reverse Video" from the VT
#    Options menu (ctrl + middle button, move, release);
#  - gtk3-demo's entry completion: types "tot", clicks "totally" in the
#    completion popup, and types " x" after it, so the entry ends as
#    "totally x" only if every key and the click arrived, in order.
# xcap-replay records each session from its capture, then replays it into
# a fresh client at 0.1 ms and at 100 ms one-way delay with quiet pacing,
# each replay captured the same way.  Each replay must
#  - deliver the same inputs to the client (recorded again from the
#    replay's capture: same kinds and codes in the same order), and
#  - leave the window with the same pixels as the recording (import
#    -window, compared pixel for pixel);
# and the two quiet replays' --compare shows the link's shift.  A replay
# at the recorded pace over 100 ms is shown beside them: GTK maps its
# popup some twenty round trips after the key that asks for it, xterm
# its menu after the recorded release, so the click is expected to be
# lost; what it does is said, not assumed.
# RFB: a viewer's session (the RFB capture of the golden tests) replays
# against Xvnc with the same inputs arriving, by the replay's capture.
# The same xterm session runs over xcap-sweep --replay's links.
#
# The runs go side by side (each its own namespaces, link and Xvfb), the
# replays' clients starting over their links while the sessions are
# recorded, so the test takes about as long as xterm's start over 100 ms
# (some 260 round trips, 52 s) and its replay: about 95 s on a busy
# machine.  Under the sanitizers gtk3-demo is left out.
# REPLAY_LONG=1 (`make long-replay`) adds the replays at the recorded
# pace, which assert nothing, and a 2 x 2 sweep at 0.1 and 100 ms.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root ip xcap-link xcap xcap-replay Xvfb xterm xdotool import compare tun
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

long=${REPLAY_LONG:-}
gtk=
if sanitized; then
	# Under the sanitizers the suite's own tools run 2-3 times slower, and
	# six runs side by side (each with a capture decoding live and a link
	# forwarding) held gtk3-demo's start at 0.1 ms to 50 s: the test ran
	# 183 s.  xterm's runs go through the same code (its menu release
	# waits for its window over 100 ms).
	say "under the sanitizers: xterm only (gtk3-demo's runs are the plain build's)"
elif command -v gtk3-demo >/dev/null 2>&1; then
	gtk=gtk
	# No blinking cursor and no animations: the screen goes quiet.
	mkdir -p "$workdir/config/gtk-3.0"
	printf '[Settings]\ngtk-cursor-blink = false\ngtk-enable-animations = false\n' \
		>"$workdir/config/gtk-3.0/settings.ini"
else
	say "no gtk3-demo: xterm only"
fi

# run NAME CLIENT DELAY_MS CMD...: a fresh link, Xvfb and CLIENT (xterm
# or gtk); CMD runs beside the display with DISPLAY set (as sh -c); the
# client side is captured into NAME.xcap and the client's window shot into
# NAME.png.
run() {
	_name=$1 _client=$2 _delay=$3; shift 3
	make_link "$tag$_name" 0 0 "$_delay"
	start_xvfb_ns 800x600x24 "$workdir/xvfb-$_name.log"
	start_capture "cap_$_name" ip netns exec "$link_ns_c" \
		xcap -i "$link_dev_c" -w "$workdir/$_name.xcap" "tcp port $((6000 + n))"
	if [ "$_client" = xterm ]; then
		ip netns exec "$link_ns_c" env DISPLAY="$link_addr_s:$n" HOME="$workdir" PS1='$ ' \
			xterm -geometry "$geometry" -xrm 'XTerm*cursorBlink: false' -e sh \
			>"$workdir/client-$_name.log" 2>&1 &
		_tpid=$!
		_wid=$(ip netns exec "$link_ns_s" env DISPLAY="127.0.0.1:$n" timeout 90 \
			xdotool search --sync --onlyvisible --class xterm | head -n 1)
		[ -n "$_wid" ] || fail "$_name: no xterm window appeared"
		sleep 1.5	# the prompt, over the link
	else
		ip netns exec "$link_ns_c" env DISPLAY="$link_addr_s:$n" HOME="$workdir" \
			XDG_CONFIG_HOME="$workdir/config" NO_AT_BRIDGE=1 \
			gtk3-demo --run=entry_completion >"$workdir/client-$_name.log" 2>&1 &
		_tpid=$!
		_wid=$(ip netns exec "$link_ns_s" env DISPLAY="127.0.0.1:$n" timeout 120 \
			xdotool search --sync --onlyvisible --name '^Entry Completion$' | head -n 1)
		[ -n "$_wid" ] || fail "$_name: no gtk3-demo window appeared"
		# The focus on the window, as a window manager would give it.
		# Without one the server's focus follows the pointer, and the
		# pointer grab GTK takes for its completion popup takes that focus
		# away (GDK's focus from the pointer ends at the grab's
		# LeaveNotify): the entry loses its focus, and the popup is
		# unmapped as soon as it is mapped.
		ip netns exec "$link_ns_s" env DISPLAY="127.0.0.1:$n" xdotool windowfocus "$_wid" ||
			fail "$_name: cannot give gtk3-demo the focus"
		sleep 2	# its first drawing, over the link
	fi
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

# start_run NAME CLIENT DELAY_MS CMD: run in a subshell of its own, in
# the background (its own namespaces, link and Xvfb; started a second
# after the one before, each takes the first free X display).
start_run() {
	(
		# Its own links and processes undone as it ends, the test's
		# workdir left to the test.
		cleanup_hooks= pids=
		trap 'eval "$cleanup_hooks"; for p in $pids; do kill "$p" 2>/dev/null; done' EXIT
		trap 'exit 1' INT TERM
		run "$@"
	) >"$workdir/run-$1.out" 2>&1 &
	pids="$pids $!"
	eval "run_pid_$1=$!"
	sleep 1
}

# wait_runs NAME...: wait for these runs; their output is shown in order,
# and any failure fails the test.
wait_runs() {
	_wr_bad=
	for _wr; do
		eval "wait \$run_pid_$_wr" || _wr_bad="$_wr_bad $_wr"
		cat "$workdir/run-$_wr.out"
	done
	[ -z "$_wr_bad" ] || fail "runs that failed:$_wr_bad (above)"
}

# after MARK: a shell command that waits until the test touches
# $workdir/MARK (or has ended), the replays' first step: their links,
# displays and clients start while the person records.
after() {
	echo "until [ -e '$workdir/$1' ] || [ -e '$workdir/abort' ] || [ ! -d '$workdir' ]; do sleep 0.2; done;"
	echo "[ -e '$workdir/$1' ] || exit 1;"
}

# differ A B: how many pixels of two screenshots differ.
differ() { compare -metric AE "$workdir/$1.png" "$workdir/$2.png" null: 2>&1 | cut -d' ' -f1; }

# ---- recordings: a person (xdotool) at the display ----
xterm_rec="xdotool mousemove 100 80 sleep 0.3 type --delay 150 'echo rp'
	xdotool key Return sleep 0.8
	xdotool keydown ctrl mousedown 2 sleep 0.8 mousemove 100 134 sleep 0.5 mouseup 2 keyup ctrl"
# The popup sits under the entry, "totally" its second row.
gtk_rec="xdotool mousemove 200 44 sleep 0.3 type --delay 150 tot
	xdotool sleep 1.5 mousemove 40 96 sleep 0.3 click 1 sleep 0.8
	xdotool type --delay 150 ' x'"
# ---- replays, quiet-paced, and at the recorded pace over 100 ms ----
at_exit "touch '$workdir/abort'"	# a failure before the replays ends their wait
# Started now: their clients start over the link while the person
# records (xterm's start takes some 260 round trips: 52 s at 100 ms).
# The quiet replays' timeout is long enough for a GTK response over 100 ms
# (the popup's twenty round trips and more).
# replay C CLIENT DELAY_MS PACE: start one replay of client C's recording.
# xterm's replays also wait for gtk3-demo's to end: --compare holds
# xterm's responses to the link's physics, and a GTK client drawing beside
# a 0.1 ms replay made xterm's echo there take up to 150 ms, not 1.
replay() {
	_after=$(after "$1rec.ready")
	[ "$1" = x ] && _after="$_after $(after gtk.done)"
	if [ "$4" = quiet ]; then
		_rn=$1q$(echo "$3" | tr -d .)
		start_run "$_rn" "$2" "$3" "$_after
			xcap-replay --pace quiet --timeout 20000 --log '$workdir/$_rn.log' '$workdir/$1rec.session'"
	else
		_rn=$1r$(echo "$3" | tr -d .)
		# The screenshot after the client has done what it was sent
		# (GTK's popup takes some 5 s over 100 ms).
		start_run "$_rn" "$2" "$3" "$_after
			xcap-replay --pace recorded '$workdir/$1rec.session'; sleep 8"
	fi
	replays="$replays $_rn"
}
# The clients over 100 ms first: their starts are the longest.
replays=
replay x xterm 100 quiet
[ -n "$gtk" ] && replay g gtk 100 quiet
start_run xrec xterm 0.1 "$xterm_rec"
[ -n "$gtk" ] && start_run grec gtk 0.1 "$gtk_rec"
replay x xterm 0.1 quiet
[ -n "$gtk" ] && replay g gtk 0.1 quiet
# The recorded pace asserts nothing: it is shown with REPLAY_LONG.
if [ -n "$long" ]; then
	replay x xterm 100 recorded
	[ -n "$gtk" ] && replay g gtk 100 recorded
fi
wait_runs xrec ${gtk:+grec}

for c in x $gtk; do
	c=${c%tk}	# x or g
	xcap-replay record "$workdir/${c}rec.xcap" -o "$workdir/${c}rec.session" 2>"$workdir/${c}rec.err" ||
		fail "record failed: $(cat "$workdir/${c}rec.err")"
	cat "$workdir/${c}rec.err"
	inputs "$workdir/${c}rec.session" >"$workdir/${c}rec.inputs"
done
count_x=$(wc -l <"$workdir/xrec.inputs")
# 7 characters and Return pressed and released, ctrl down and up, the
# middle button down and up: 20 at least, and the motion onto the item.
[ "$count_x" -ge 20 ] || fail "xterm: the recording has $count_x inputs, not at least 20"
grep -q '^button-press 2$' "$workdir/xrec.inputs" || fail "xterm: no press of button 2 recorded"
grep -q '^button-release 2$' "$workdir/xrec.inputs" || fail "xterm: no release of button 2 recorded"
grep -q '^motion ' "$workdir/xrec.inputs" || fail "xterm: no motion onto the menu recorded"
say "xterm: recorded $count_x inputs from the capture"
# where_released SESSION BUTTON: "other" when BUTTON was released in
# another window than it was pressed in (the menu the press opened),
# "same" when in the same one.
where_released() {
	awk -v b="$2" '$2 == "button-press" && $3 == b { w = $7 }
	     $2 == "button-release" && $3 == b { r = ($7 == w ? "same" : "other") }
	     END { print r == "" ? "none" : r }' "$1"
}
[ "$(where_released "$workdir/xrec.session" 2)" = other ] ||
	fail "xterm: the recording's release of button 2 was not in the menu: $(where_released "$workdir/xrec.session" 2)"
# pressed_at SESSION: the origin of the window button 1's press went to
# (its root position less its position in the window): 5,61 is the
# completion popup under the entry, 0,0 the demo's window or the one
# beneath it.
pressed_at() {
	awk '$2 == "button-press" && $3 == 1 { p = ($4 - $8) "," ($5 - $9) }
	     END { print p == "" ? "no press" : p }' "$1"
}
if [ -n "$gtk" ]; then
	count_g=$(wc -l <"$workdir/grec.inputs")
	# t o t, space x: five keys pressed and released, and the click.
	[ "$count_g" -ge 12 ] || fail "gtk3-demo: the recording has $count_g inputs, not at least 12"
	[ "$(pressed_at "$workdir/grec.session")" = 5,61 ] ||
		fail "gtk3-demo: the recording's click was not in the completion popup (at 5,61): $(pressed_at "$workdir/grec.session")"
	say "gtk3-demo: recorded $count_g inputs from the capture, the click in the popup"
fi

touch "$workdir/xrec.ready" ${gtk:+"$workdir/grec.ready"}
# ---- the same session over a sweep's links, beside the replays ----
# One cell at 0.1 ms and one at 30 ms by default (xterm starts with some
# 260 round trips); 0.1 and 100 ms at two rates with REPLAY_LONG.
sweep_pid=
if command -v xcap-sweep >/dev/null 2>&1 && command -v xwininfo >/dev/null 2>&1; then
	xcap-sweep --replay "$workdir/no-such.session" xterm >/dev/null 2>"$workdir/err"
	[ $? = 2 ] || fail "xcap-sweep --replay of a missing session is not a usage error"
	grep -q "^xcap-sweep: --replay needs a session file" "$workdir/err" ||
		fail "xcap-sweep --replay of a missing session: $(cat "$workdir/err")"
	sweep_rates=10M sweep_delays=0.1,30
	[ -n "$long" ] && sweep_rates=10M,1M sweep_delays=0.1,100
	xcap-sweep -q -o "$workdir/sweep" --link xcap-link --replay "$workdir/xrec.session" \
		--rates "$sweep_rates" --delays "$sweep_delays" --format csv -- \
		"PS1='\$ ' xterm -geometry $geometry -xrm 'XTerm*cursorBlink: false' -e sh" \
		>"$workdir/sweep.csv" 2>"$workdir/sweep.err" &
	sweep_pid=$!
	pids="$pids $sweep_pid"
else
	say "no xcap-sweep or xwininfo: the sweep is not tried"
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

# Each client's replays looked at as they end, gtk3-demo's first (xterm's
# start over 100 ms is the longest, and its replays wait for GTK's).
[ -n "$gtk" ] || touch "$workdir/gtk.done"

for c in $gtk x; do
	wait_runs $(echo "$replays" | tr ' ' '\n' | grep "^${c%tk}")
	touch "$workdir/gtk.done"
	c=${c%tk} name=xterm
	[ "$c" = g ] && name=gtk3-demo
	eval "count=\$count_$c"
	for d in 0.1 100; do
		q=${c}q$(echo "$d" | tr -d .)
		xcap-replay record "$workdir/$q.xcap" -o "$workdir/$q.session" 2>/dev/null ||
			fail "$name, $d ms: nothing recorded from the replay's capture"
		inputs "$workdir/$q.session" >"$workdir/$q.got"
		# Keys and buttons the session left down (a release a grab sent to
		# another client when recording) are let go of at the end, and the log
		# says so: those releases come after the session's inputs.
		sed -n 's/^# let go of key \([0-9]*\),.*/key-release \1/p; s/^# let go of button \([0-9]*\),.*/button-release \1/p' \
			"$workdir/$q.log" >"$workdir/$q.letgo"
		head -n "$count" "$workdir/$q.got" >"$workdir/$q.inputs"
		tail -n +"$((count + 1))" "$workdir/$q.got" | cmp -s - "$workdir/$q.letgo" ||
			fail "$name, $d ms, quiet pace: inputs after the session's that are not its let-go releases: $(tail -n +"$((count + 1))" "$workdir/$q.got" | head -3)"
		got=$(wc -l <"$workdir/$q.inputs")
		diff "$workdir/${c}rec.inputs" "$workdir/$q.inputs" >"$workdir/$q.diff" ||
			fail "$name, $d ms, quiet pace: the client got other inputs ($got, not $count): $(head -5 "$workdir/$q.diff")"
		px=$(differ "${c}rec" "$q")
		[ "$px" = 0 ] || fail "$name, $d ms, quiet pace: $px pixels of the window differ from the recording's"
		[ "$c" = x ] || [ "$(pressed_at "$workdir/$q.session")" = 5,61 ] ||
			fail "$name, $d ms, quiet pace: the click went to the window at $(pressed_at "$workdir/$q.session"), not the popup at 5,61"
		unsettled=$(grep -c ' never-[a-z]*$' "$workdir/$q.log")
		waited=$(sed -n 's/^# input [0-9]*: waited \([0-9.]*\) s.*/\1 s/p' "$workdir/$q.log" | tr '\n' ' ')
		say "$name, $d ms one way, quiet pace: $got inputs arrived, the same as recorded; window identical; $unsettled responses unsettled${waited:+; clicks waited for their window: $waited}"
	done

	# The two quiet replays side by side: the same inputs, each response
	# moved by the link.  A response as the display sees it holds at least
	# one exchange over the link (the event to the client, its drawing
	# back), and one more for each round trip inside it, each
	# 2 x (100 - 0.1) ms longer.  xterm's responses are the same exchanges
	# at either delay: the median shift must be a whole number of them,
	# within 2 ms + 5 %.  GTK's are not: its timers (the completion's
	# 100 ms after a change) fall between round trips, so over 100 ms one
	# response holds what over 0.1 ms spreads across two inputs (the popup
	# came with the first "t" there, with the last one here): the median
	# shift must be at least one exchange, less 2 ms + 5 %.
	xcapanalyse --compare --format csv "$workdir/${c}q01.xcap" "$workdir/${c}q100.xcap" >"$workdir/${c}cmp.csv" ||
		fail "$name: --compare of the two replays failed"
	# (Exit 2: the shift alone is off.  Under the sanitizers, with the
	# tools 2-3 times slower and more tests beside this one, the shift is
	# printed and not judged: a timing check, made in the plain build.)
	python3 - "$workdir/${c}cmp.csv" "$name" "$count" "$c" <<'EOF'

import csv, sys
rows = {(r['view'], r['row'], r['metric']): r for r in csv.DictReader(open(sys.argv[1]))}
matched = int(rows[('matching', 'inputs', 'matched')]['b'])
shift = float(rows[('matching', 'inputs', 'shift_p50')]['b'])
exchange = 2 * (100 - 0.1) / 1e3
k = max(1, round(shift / exchange))
if sys.argv[4] == 'x':
    ok = abs(shift - k * exchange) <= 0.002 + 0.05 * k * exchange
    what = '%d exchange%s of %.1f ms' % (k, '' if k == 1 else 's', exchange * 1e3)
else:
    ok = shift >= exchange - (0.002 + 0.05 * exchange)
    what = '%.2f exchanges of %.1f ms, at least one' % (shift / exchange, exchange * 1e3)
print('replay: %s: --compare: %d inputs matched (of %s), median response shift %.1f ms, %s'
      % (sys.argv[2], matched, sys.argv[3], shift * 1e3, what))
sys.exit(1 if matched < min(20, int(sys.argv[3])) else 0 if ok else 2)
EOF
	case $? in
	0) ;;
	2) sanitized || fail "$name: --compare: the response shift is not the link's (above)"
	   say "$name: the shift is not judged under the sanitizers" ;;
	*) fail "$name: --compare: too few inputs matched (above)" ;;
	esac

	[ -s "$workdir/${c}r100.xcap" ] || continue
	xcap-replay record "$workdir/${c}r100.xcap" -o "$workdir/${c}r100.session" 2>/dev/null
	inputs "$workdir/${c}r100.session" >"$workdir/${c}r100.inputs" 2>/dev/null
	got=$(wc -l <"$workdir/${c}r100.inputs")
	px=$(differ "${c}rec" "${c}r100")
	if [ "$c" = x ]; then
		where="button 2 released in another window than pressed: $(where_released "$workdir/xr100.session" 2) (recorded: other, the menu)"
	else
		where="button 1 pressed in the window at $(pressed_at "$workdir/gr100.session") (recorded: the popup at 5,61)"
	fi
	if [ "$px" != 0 ] || ! cmp -s "$workdir/${c}rec.inputs" "$workdir/${c}r100.inputs"; then
		say "$name, 100 ms one way, recorded pace: $got inputs arrived (of $count), $where, $px pixels of the window differ: the recorded pace lost the click"
	else
		say "$name, 100 ms one way, recorded pace: the same inputs and window; here it lost nothing"
	fi
done

# ---- the same session over a sweep's links: its result ----
if [ -n "$sweep_pid" ]; then
	wait "$sweep_pid" || fail "xcap-sweep --replay failed: $(tail -3 "$workdir/sweep.err")"
	# Every cell's client got every input, as the quiet replays' did
	# (recorded again from the cell's trace; the let-go releases after
	# them).  The table's count is the response model's, which folds a
	# motion into the press whose drag it is when the button shows held.
	cells=0
	for t in "$workdir"/sweep/*.xcap; do
		xcap-replay record "$t" -o "$workdir/cell.session" 2>/dev/null ||
			fail "sweep: nothing recorded from a cell's trace: $t"
		inputs "$workdir/cell.session" >"$workdir/cell.inputs"
		head -n "$count_x" "$workdir/cell.inputs" | cmp -s - "$workdir/xrec.inputs" &&
			tail -n +"$((count_x + 1))" "$workdir/cell.inputs" | cmp -s - "$workdir/xq01.letgo" ||
			fail "sweep: the client got other inputs than recorded in $(basename "$t")"
		cells=$((cells + 1))
	done
	[ "$cells" = "$(($(wc -l <"$workdir/sweep.csv") - 1))" ] ||
		fail "sweep: $cells traces for $(($(wc -l <"$workdir/sweep.csv") - 1)) cells"
	# At D ms one way a response the display sees needs the event to reach
	# the client and its drawing to come back: the median is at least 2 x D.
	awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ printf "%s, %s ms: %s inputs, p50 %s ms, p90 %s ms, status %s\n", $c["rate"], $c["delay_ms"], $c["inputs"],
			$c["response_p50_ms"], $c["response_p90_ms"], $c["status"]
		  if ($c["delay_ms"] >= 1 && $c["response_p50_ms"] + 0 < 2 * $c["delay_ms"])
			bad = bad " p50 under 2 x " $c["delay_ms"] " ms;" }
		END { if (bad != "") { print "BAD:" bad; exit 1 } }' "$workdir/sweep.csv" >"$workdir/sweep.check"
	st=$?
	sed 's/^/replay: sweep: /' "$workdir/sweep.check"
	[ $st = 0 ] || fail "xcap-sweep --replay: $(grep BAD "$workdir/sweep.check")"
fi
