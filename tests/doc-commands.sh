#!/bin/sh
# doc-commands.sh — the documentation is a test (issue 28): every command
# line of README.md, of the EXAMPLES of every man page and of
# man/xcap-tutorial.7 (tests/doc-commands.py extracts them), run as the
# README says a user runs them: the build's commands on PATH as its
# `export PATH=...` line puts them, in a directory of the document's own.
# A line fails on a non-zero exit, no output (on the terminal or in a file
# it made) or an error message; a program that stays up (a window) must
# still be up after a while.  Lines not run here say why in this test's
# output; none is passed over silently.
#
# What the documents' examples read, the test provides (the documented
# stand-ins): demo.xcap is the demo's own capture, made first by
# tests/demo.sh as ./bootstrap demo makes it, and so are the traces the
# examples name without making them (app.xcap, trace.xcap, xterm.xcap,
# xdpyinfo.xcap, before.xcap, after.xcap, live.xcap, runs/*.xcap);
# capture.pcapng and session.pcapng are tests/captures/xdpyinfo-xlogo.pcapng,
# vnc.pcap tests/captures/rfb-xvnc.pcap; typing.pcap is tcpdump's capture
# of an xterm at the examples' geometry (60x10+20+30) typed into and
# clicked by xdotool, made here; viewer.session is recorded from
# rfb-xvnc.pcap.  The display the documents call :1 is an
# Xvfb of the test's (a block that starts its own Xvfb :1 gets a free
# number), the VNC server of 5901 an Xvnc of the test's, xcap-link's
# namespaces the test's own; values that depend on a run (xterm's
# connection, the AllocColor loop's times in the tutorial) are taken from
# the demo's run.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root netns /usr/bin/python3 Xvfb Xvnc xterm xprop xdpyinfo xlogo xdotool tcpdump ping timeout sshd gtk3-demo qterminal
command -v netplot >/dev/null 2>&1 || skip "netplot is not built (it needs GTK 3)"

# The demo, as ./bootstrap demo runs it: its output has no error, and its
# last line's command works as printed.
demo=$workdir/demo
check_begin "the demo runs, says nothing wrong, and ends with a command that works as printed"
"$top_srcdir/tests/demo.sh" "$top_builddir" "$demo" >"$workdir/demo.out" 2>&1 ||
	fail "the demo failed: $(tail -n 5 "$workdir/demo.out")"
grep -Ei '(^|: )(error|cannot|failed|warning)|Xlib' "$workdir/demo.out" &&
	fail "the demo's output has an error or noise"
hint=$(sed -n 's/^demo: open the trace in the viewer with: //p' "$workdir/demo.out")
[ -n "$hint" ] || fail "the demo does not end with the viewer's command"
start_xvfb	# the user's display, from here on
if [ -n "$hint" ]; then
	# Anywhere, with no PATH of the build's.
	(cd / && PATH=/usr/bin:/bin timeout 4 sh -c "$hint" >"$workdir/last.out" 2>&1)
	[ $? = 124 ] || fail "the demo's last command did not stay up: '$hint': $(cat "$workdir/last.out")"
fi
check_end || fail "nothing to run the documents' examples on"
[ -s "$demo/demo.xcap" ] || fail "the demo left no demo.xcap"

# Run-dependent values, from the demo's run.
XTERM_CONN=$(xcapanalyse --connections --format csv "$demo/demo.xcap" |
	awk -F, 'NR > 1 && $5 ~ /^xterm/ { print $1; exit }')
# (times since the trace began: the round trips of every connection)
ALLOC_RANGE=$(xcapanalyse --round-trips --format csv "$demo/demo.xcap" |
	awk -F, -v c="$XTERM_CONN" '$2 == c && $5 == "AllocColor" { if (!a) a = $1; b = $1 }
		END { if (a) printf "%.3f:%.3f", a - 0.0005, b + 0.0005 }')
[ -n "$XTERM_CONN" ] && [ -n "$ALLOC_RANGE" ] || fail "no xterm or no AllocColor loop in the demo's run"
say "from the demo's run: xterm is connection $XTERM_CONN, its AllocColor loop $ALLOC_RANGE s"
export XTERM_CONN ALLOC_RANGE

# The display and VNC server the documents' :1 and 5901 stand for.
DOC_D=$display DOC_PORT=$((6000 + display))
# The README's own Xvfb :1 runs minutes from now: its number is held
# until then by a lock file naming this test's shell, written as an X
# server writes its own (start_xvfb, xcap-run and X servers all pass over
# a display whose lock names a live process), and given up by the block's
# runner just before that Xvfb starts.  Only looking for a free number had
# let a test running beside this one take it meanwhile (Xvfb exit 1).
DOC_D2=$((display == 63 ? display - 1 : display + 1))
tries=0
while [ "$DOC_D2" = "$DOC_D" ] || ! (set -C; printf '%10d\n' $$ >"/tmp/.X$DOC_D2-lock") 2>/dev/null; do
	DOC_D2=$(((DOC_D2 + 1 - 20) % 44 + 20))
	tries=$((tries + 1))
	[ $tries -lt 44 ] || fail "no display free for the README's own Xvfb"
done
at_exit "[ \"\$(tr -d ' \\n' </tmp/.X$DOC_D2-lock 2>/dev/null)\" != $$ ] || rm -f /tmp/.X$DOC_D2-lock"
DOC_PORT2=$((6000 + DOC_D2))
start_xvnc doc xvnc
DOC_VNC_PORT=$xvnc_port
export DOC_D DOC_PORT DOC_D2 DOC_PORT2 DOC_VNC_PORT
for ns in client server home isp; do
	eval "NS_$ns=xcdoc-$ns-$$"
	export "NS_$ns"
done
ip netns add "$NS_home" && ip netns add "$NS_isp" || fail "cannot make the namespaces"
at_exit "for n in $NS_client $NS_server $NS_home $NS_isp; do ip netns del \$n 2>/dev/null; done"

# The build's commands on PATH as the README's line puts them, and no
# other copy of them (the suite's own PATH has the build's top too).
PATH=$(echo "$PATH" | tr ':' '\n' | grep -v "^$top_builddir" | paste -sd:)
PATH=$top_builddir/xcap:$top_builddir/xcapanalyse:$top_builddir/netplot:$PATH
export PATH top_builddir workdir

# typing.pcap: an xterm where the examples put it, typed into and clicked.
tcpdump -i lo -w "$workdir/typing.pcap" tcp port $DOC_PORT >/dev/null 2>"$workdir/tcpdump.err" &
tpid=$!
sleep 1
xterm -geometry 60x10+20+30 -display "127.0.0.1:$DOC_D" -e sh & xpid=$!
wid=$(DISPLAY=127.0.0.1:$DOC_D timeout 20 xdotool search --sync --onlyvisible --class xterm | head -n 1)
[ -n "$wid" ] || fail "no xterm window for typing.pcap"
export DISPLAY=127.0.0.1:$DOC_D
xdotool mousemove --window "$wid" 40 40 click 1
sleep 0.5
xdotool type --delay 150 'echo hi'
xdotool key Return
sleep 1
kill $xpid; wait $xpid 2>/dev/null
sleep 0.5
kill $tpid; wait $tpid 2>/dev/null
[ -s "$workdir/typing.pcap" ] || fail "tcpdump captured no typing.pcap: $(cat "$workdir/tcpdump.err")"

python3 "$top_srcdir/tests/doc-commands.py" "$top_srcdir" "$workdir/blocks" ||
	fail "cannot extract the documents' commands"

# The stand-ins, in a directory for each document.
standins() {
	mkdir -p "$1/runs"
	for f in demo app trace xterm xdpyinfo before after live; do cp "$demo/demo.xcap" "$1/$f.xcap"; done
	cp "$demo/demo.xcap" "$1/runs/a.xcap"
	cp "$demo/demo.xcap" "$1/runs/b.xcap"
	cp "$top_srcdir/tests/captures/xdpyinfo-xlogo.pcapng" "$1/capture.pcapng"
	cp "$top_srcdir/tests/captures/xdpyinfo-xlogo.pcapng" "$1/session.pcapng"
	cp "$top_srcdir/tests/captures/rfb-xvnc.pcap" "$1/vnc.pcap"
	cp "$workdir/typing.pcap" "$1/typing.pcap"
	# The tutorial's Wayland walk: weston-terminal typed into over waypipe
	# (tests/wayland-input.sh made it), for the views the walk runs.
	cp "$top_srcdir/tests/captures/waypipe-terminal-keys.xcap" "$1/wl.xcap"
	xcap-replay record "$top_srcdir/tests/captures/rfb-xvnc.pcap" -o "$1/viewer.session" \
		>/dev/null 2>&1 || fail "cannot record the stand-in viewer.session"
}

# The runner of a block: doc-commands.py's lines call doc_line.
cat >"$workdir/prelude.sh" <<'EOF'
failed=0
descendants() { for c in $(pgrep -P "$1"); do echo "$c"; descendants "$c"; done; }
# Error messages: a line of the suite's programs or of the shell naming a
# failure (an application's own chatter, such as qterminal's about D-Bus,
# is the application's).
errors() {
	grep -Ei '^(xcap[a-z-]*|netplot|sh|bash|[^ ]*: line [0-9]+): .*(error|cannot|can.t|failed|no such|not found|unknown|bad |usage)' "$1"
}
doc_line() {
	where=$1 kind=$2 cmd=$3
	echo "\$ $cmd" >>"$log"
	o=$workdir/line.out e=$workdir/line.err
	: >"$o"; : >"$e"
	touch "$workdir/stamp"; sleep 0.01
	case $kind in
	skip:*)
		echo "$where: not run here (${kind#skip:}): $cmd"
		return 0 ;;
	bg)
		# (the README's own X server: the number held for it is let go)
		case $cmd in 'Xvfb :${DOC_D2} '*) rm -f "/tmp/.X$DOC_D2-lock" ;; esac
		eval "$cmd" >>"$workdir/bg.out" 2>&1
		sleep 1	# as a user types the next line
		return 0 ;;
	quiet)
		eval "$cmd" >"$o" 2>"$e"; st=$?
		case $cmd in kill*|*"; kill"*) sleep 1 ;; esac	# the job writes its file
		[ $st = 0 ] || { echo "$where: exit status $st: $cmd: $(head -c 300 "$e")"; failed=1; }
		return 0 ;;
	window)
		timeout 4 sh -c "$cmd" >"$o" 2>"$e"; st=$?
		[ $st = 124 ] || { echo "$where: did not stay up (status $st): $cmd: $(head -c 300 "$e")"; failed=1; }
		errors "$e" && { echo "$where: an error message: $cmd"; failed=1; }
		return 0 ;;
	app)
		# The user closes the application once its window is up; xcap-run
		# then prints its tables.
		eval "$cmd" >"$o" 2>"$e" & p=$!
		name=${cmd##* -- }; name=${name%% *}
		app= i=0
		while [ $i -lt 900 ] && kill -0 $p 2>/dev/null; do
			for c in $(descendants $p); do
				[ "$(cat /proc/$c/comm 2>/dev/null)" = "$name" ] && app=$c
			done
			[ -n "$app" ] && xdotool search --onlyvisible --pid "$app" >/dev/null 2>&1 && break
			sleep 0.1; i=$((i + 1))
		done
		sleep 1
		[ -n "$app" ] && kill "$app"
		wait $p; st=$?
		# the application's own status, closed by SIGTERM: 128 + 15, or
		# 15 from one that catches it and exits with it (xterm)
		[ $st = 0 ] || [ $st = 143 ] || [ $st = 15 ] || { echo "$where: exit status $st: $cmd: $(head -c 300 "$e")"; failed=1; }
		grep -q '^== delays' "$o" && grep -q '^trace: ' "$o" ||
			{ echo "$where: no tables: $cmd: $(head -c 300 "$o")"; failed=1; }
		errors "$e" && { echo "$where: an error message: $cmd"; failed=1; }
		return 0 ;;
	esac
	eval "$cmd" >"$o" 2>"$e"; st=$?
	[ $st = 0 ] || { echo "$where: exit status $st: $cmd: $(head -c 300 "$e")"; failed=1; }
	made=$(find . -newer "$workdir/stamp" -type f -size +0 | head -n 1)
	[ -s "$o" ] || [ -s "$e" ] || [ -n "$made" ] || { echo "$where: no output: $cmd"; failed=1; }
	errors "$e" && { echo "$where: an error message: $cmd"; failed=1; }
	return 0
}
EOF

ran=0 skipped=0
while read -r k doc where first; do
	# DOC_ONLY="NN ...": only these blocks (doc-commands.py's numbers),
	# when working on a document; said, as every block not run.
	if [ -n "${DOC_ONLY:-}" ] && ! echo " $DOC_ONLY " | grep -q " $k "; then
		check_skip "$where: $first" "not in DOC_ONLY"
		continue
	fi
	dir=$workdir/doc-$doc
	[ -d "$dir" ] || standins "$dir"
	log=$workdir/blocks/$k.log
	check_begin "$where: $first"
	# In bash with job control, as the user's interactive shell: jobs are
	# %N, and a background job takes ^C (kill -INT) as in a terminal.
	(cd "$dir" && log=$log bash -c 'set -m; . "$workdir/prelude.sh"; . "$1"
		for j in $(jobs -p); do kill $j 2>/dev/null; done; wait; exit $failed' doc "$workdir/blocks/$k.sh") \
		>"$workdir/blocks/$k.verdict" 2>&1 </dev/null ||
		fail "$(grep -v ': not run here' "$workdir/blocks/$k.verdict")"
	grep ': not run here' "$workdir/blocks/$k.verdict" | sed "s/^/$test_name: /"
	check_end
	ran=$((ran + $(grep -c "^doc_line" "$workdir/blocks/$k.sh") - $(grep -c ': not run here' "$workdir/blocks/$k.verdict")))
	skipped=$((skipped + $(grep -c ': not run here' "$workdir/blocks/$k.verdict")))
done <"$workdir/blocks/list"
say "$ran documented command lines run, $skipped not run here (each said above with why)"
