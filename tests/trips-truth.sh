#!/bin/sh
# trips-truth.sh — the round trips xcapanalyse lists against clients' own
# record of when they blocked for a reply and on which request.
#
#  - tests/xpipeline.py, a raw client of the suite's that pipelines like
#    xcb code (InternAtom batches of 1 to 200, a QueryExtension triple, a
#    request_check after a void request, xwininfo's walk, GetImage replies
#    that outgrow the server's first window), over links of 1, 5, 20 and
#    50 ms one way, and over 10 Mb/s at 20 ms;
#  - real xcb clients (xwininfo -root -tree, xlsatoms, and gtk3-demo and
#    qterminal where installed) at 10 Mb/s and 20 ms, their truth from
#    tests/xcbwaits.c, an LD_PRELOAD interposer on libxcb's reply waits and
#    Xlib's (_XReply, XSync: which library's call waited, and the request
#    an Xlib call waits for), compiled here; skipped with the reason when
#    that fails.
# Per run, every wait the client blocked on must be listed with its
# sequence number, and nothing else (tests/trips-truth.py; what a passive
# capture folds is said there).  The capture is beside the client.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root ip xcap-link xcap xcapanalyse Xvfb xdpyinfo /usr/bin/python3
measures_physics
need tun
. "$top_srcdir/tests/netns.sh"

py=/usr/bin/python3
tag=xt$$
scenarios="atoms:1 atoms:2 atoms:3 atoms:7 atoms:50 atoms:147 atoms:200 queryext check chain:5 images:12"

# server_up: Xvfb in the server namespace of the current link, as :$n.
server_up() {
	n=$(( ($$ % 40) + 20 ))
	tries=0
	while :; do
		if [ ! -e "/tmp/.X$n-lock" ]; then
			ip netns exec "$link_ns_s" Xvfb ":$n" -listen tcp -nolisten unix -ac -noreset \
				-screen 0 800x600x24 >"$workdir/xvfb-$n.log" 2>&1 &
			xpid=$!
			if wait_for ip netns exec "$link_ns_c" xdpyinfo -display "$link_addr_s:$n"; then
				pids="$pids $xpid"
				return 0
			fi
			kill "$xpid" 2>/dev/null; wait "$xpid" 2>/dev/null
		fi
		n=$((n + 1)); [ $n -gt 63 ] && n=20
		tries=$((tries + 1)); [ $tries -gt 40 ] && fail "no Xvfb in $link_ns_s"
	done
}

server_down() { kill "$xpid" 2>/dev/null; wait "$xpid" 2>/dev/null; }

# judged NAME RTT_MS TRUTH-OPTIONS -- CMD...: capture CMD beside the
# client into NAME.xcap, list its round trips and compare with the truth
# in NAME.truth.
judged() {
	_name=$1 _rtt=$2; shift 2
	_opts=
	while [ "$1" != -- ]; do _opts="$_opts $1"; shift; done
	shift
	start_capture "cap_$_name" ip netns exec "$link_ns_c" xcap -i "$link_dev_c" -w "$workdir/$_name.xcap"
	"$@" >"$workdir/$_name.out" 2>&1 || fail "$_name: the client failed: $(tail -3 "$workdir/$_name.out")"
	sleep 0.5
	stop_capture "cap_$_name"
	xcapanalyse --round-trips --format csv "$workdir/$_name.xcap" >"$workdir/$_name.csv" ||
		fail "$_name: xcapanalyse failed"
	xcapanalyse --dump "$workdir/$_name.xcap" >"$workdir/$_name.dump" || fail "$_name: cannot dump"
	# Blocks under 0.5 ms are below what the capture can time against the
	# client: a packet reaches the socket a few hundred microseconds after
	# the tun device on a loaded machine.
	check_begin "$_name: the round trips listed are the waits the client had"
	# shellcheck disable=SC2086
	if ! $py "$top_srcdir/tests/trips-truth.py" "$workdir/$_name.truth" "$workdir/$_name.csv" \
		--dump "$workdir/$_name.dump" --min-block-ms 0.5 --rtt-ms "$_rtt" --label "$_name" \
		$_opts; then
		fail "$_name lists round trips the client did not have, or misses some (above)"
		keep_workdir=1
	fi
	check_end
}

# ---- the suite's own pipelining client, links of 1 to 50 ms ----
# It waits on the earliest request of each flush, so every wait must be
# named exactly; but it is a Python program on a machine that may be
# loaded, and when its own time between sending and waiting, or between
# replies, nears the round trip, a passive capture cannot tell it from
# waiting: up to 10 % of its waits may disagree (20 % over a 2 ms round
# trip, close to its own pace; the counts are printed).
for delay in 1 5 20 50; do
	make_link "$tag" 0 0 "$delay"
	server_up
	allow=10; [ "$delay" = 1 ] && allow=20	# a 2 ms round trip: its own pace
	judged "raw_${delay}ms" $((2 * delay)) --exact --as-logged --allow $allow -- ip netns exec "$link_ns_c" \
		$py "$top_srcdir/tests/xpipeline.py" "$link_addr_s" "$n" "$workdir/raw_${delay}ms.truth" $scenarios
	server_down
	check "xcap-link over ${delay} ms ends cleanly" link_down "$tag"
done

# ---- 10 Mb/s, 20 ms: the raw client and real ones ----
make_link "$tag" 10M 10M 20
server_up
judged raw_10M_20ms 40 --exact --as-logged --allow 10 -- ip netns exec "$link_ns_c" \
	$py "$top_srcdir/tests/xpipeline.py" "$link_addr_s" "$n" "$workdir/raw_10M_20ms.truth" $scenarios

if cc -shared -fPIC -o "$workdir/xcbwaits.so" "$top_srcdir/tests/xcbwaits.c" -ldl \
	2>"$workdir/cc.err"; then
	# real CLIENT-NAME ALLOW CMD...: CMD with the interposer, in the client
	# namespace.  The xcb tools must agree exactly, within the bursts of
	# replies that come together.  GUI clients wait through Xlib too (the
	# log prints the waits by library); on a loaded machine a GUI client
	# may wake long after its reply, or be stopped inside a wait: ALLOW
	# percent of their waits may disagree.
	real() {
		_r=$1 _allow=$2; shift 2
		judged "$_r" 40 --no-setup --allow "$_allow" -- ip netns exec "$link_ns_c" \
			env LD_PRELOAD="$workdir/xcbwaits.so" XCBWAITS_LOG="$workdir/$_r.truth" \
			DISPLAY="$link_addr_s:$n" NO_AT_BRIDGE=1 "$@"
		check_begin "$_r: the interposer recorded the waits"
		[ -s "$workdir/$_r.truth" ] || fail "$_r: the interposer recorded nothing"
		check_end
	}
	# Windows for xwininfo's walk to find.
	ip netns exec "$link_ns_c" xlogo -display "$link_addr_s:$n" >/dev/null 2>&1 &
	pids="$pids $!"
	ip netns exec "$link_ns_c" xclock -display "$link_addr_s:$n" >/dev/null 2>&1 &
	pids="$pids $!"
	sleep 2
	real xwininfo 0 xwininfo -root -tree
	real xlsatoms 0 xlsatoms
	# GUI clients run until closed: a few seconds of start-up.
	if command -v gtk3-demo >/dev/null && command -v dbus-run-session >/dev/null; then
		real gtk3_demo 3 sh -c 'timeout -s INT 8 dbus-run-session gtk3-demo; true'
	else
		say "gtk3-demo (gtk-3-examples) or dbus-run-session not installed: not tried"
	fi
	if command -v qterminal >/dev/null && command -v dbus-run-session >/dev/null; then
		real qterminal 3 sh -c 'timeout -s INT 8 dbus-run-session qterminal; true'
	else
		say "qterminal not installed: not tried"
	fi
else
	say "cannot build the libxcb interposer, real clients not judged: $(head -3 "$workdir/cc.err")"
fi
server_down
check "xcap-link at 10 Mb/s, 20 ms ends cleanly" link_down "$tag"

# Every trace made here adds up, and its --requests agree with a count
# made without the state model.
check_begin "every trace made here adds up (tests/state-tables.sh)"
STATE_TABLES_EXTRA="$(ls "$workdir"/*.xcap)" sh "$top_srcdir/tests/state-tables.sh" >"$workdir/tables.log" 2>&1 ||
	fail "$(cat "$workdir/tables.log")"
check_end
