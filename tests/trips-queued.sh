#!/bin/sh
# trips-queued.sh — a round trip's two parts on real traffic: glxgears
# (Mesa drawing in software, each frame an image sent with PutImage) over
# an emulated 10 Mb/s, 20 ms link, where the client's own earlier output
# is still queued when it waits for a reply.
#
# Ground truth from the client: tests/xcbwaits.c, an LD_PRELOAD
# interposer, times each libxcb reply wait (Xlib's included) in the
# client.  --round-trips splits each wait into Queued (the client's own
# output still queued before the request left) and Wait (the reply wait
# proper).  Checked:
#  - waits with a queued part are found (glxgears waits behind its frames:
#    at least 5 in its first seconds);
#  - for each of them, Queued + Wait is the time the client spent inside
#    the libxcb call that waited on that request (tolerances below);
#  - Wait alone falls short of the client's time by about the queued part
#    (so the split is not a relabelling of the same time).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need_root
need ip xcap-link xcap xcapanalyse Xvfb xdpyinfo glxgears cc
measures_physics
[ -c /dev/net/tun ] || skip "no /dev/net/tun (the tun driver)"
. "$top_srcdir/tests/netns.sh"
cc -shared -fPIC -o "$workdir/xcbwaits.so" "$top_srcdir/tests/xcbwaits.c" -ldl 2>"$workdir/cc.err" ||
	skip "cannot build the libxcb interposer: $(head -3 "$workdir/cc.err")"

make_link "xq$$" 10M 10M 20
start_xvfb_ns 800x600x24 "$workdir/xvfb.log"
pids="$pids $xpid"

start_capture cap ip netns exec "$link_ns_c" xcap -i "$link_dev_c" -w "$workdir/gears.xcap"
ip netns exec "$link_ns_c" env LD_PRELOAD="$workdir/xcbwaits.so" XCBWAITS_LOG="$workdir/gears.truth" \
	DISPLAY="$link_addr_s:$n" LIBGL_ALWAYS_SOFTWARE=1 timeout -s INT "${GEARS_SECONDS:-8}" \
	glxgears -geometry 300x300 >"$workdir/gears.out" 2>&1
sleep 0.5
stop_capture cap
[ -s "$workdir/gears.truth" ] || fail "the interposer recorded nothing: $(tail -3 "$workdir/gears.out")"
xcapanalyse --round-trips --format csv "$workdir/gears.xcap" >"$workdir/gears.csv" ||
	fail "xcapanalyse --round-trips failed"

# Per wait with a queued part: the client's time in the call on its
# sequence number (the longest such call: Xlib may call again at once).
# The queued part begins where the capture sees the client's backlog
# begin, its first held-back segment, and the client's call when Xlib has
# handed its image to the kernel: a write that blocks on a full socket
# moves time from one to the other, frame by frame (up to about 45 ms of
# 400 were seen), so each wait is held to 15 % + 5 ms and the sum over
# the waits to 5 %.  The last wait or two may have no record (the call
# that blocked never returned): glxgears is
# stopped with SIGINT, in a wait.
awk -F, -v name="$test_name" '
	FNR == NR { split($0, a, " ")
		if (a[1] == "wait") { d = (a[4] - a[3]) * 1000; if (d > t[a[2]]) t[a[2]] = d }
		next }
	FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	{ q = $col["queued"] * 1000; w = $col["wait"] * 1000; s = $col["seq"] }
	q > 0 { nq++
		if (!(s in t) || t[s] < 1) { missing++; next }	# never returned
		sq += q; sw += w; c = t[s]; sc += c; d = q + w - c; if (d < 0) d = -d
		if (d > 5 + 0.15 * c) { printf "seq %s (%s): queued %.1f + wait %.1f = %.1f ms, the client %.1f ms\n", s, $col["request"], q, w, q + w, c; bad++ }
		else ok++ }
	END {
		printf "%s: %d waits with a queued part: queued %.1f ms + wait %.1f ms = %.1f ms in all, the client %.1f ms; %d agree within 15 %% + 5 ms, %d not, %d without a record\n",
			name, nq, sq, sw, sq + sw, sc, ok, bad, missing
		if (nq < 5) { print "fewer than 5 waits with a queued part"; exit 1 }
		if (missing > 2) { print missing " waits with a queued part have no call of the client"; exit 1 }
		if (bad) exit 1
		d = sq + sw - sc; if (d < 0) d = -d
		if (d > 0.05 * sc) { print "the sum is not within 5 % of the client time"; exit 1 }
		# The wait proper alone is short by the queued part.
		if (sw > sc - 0.5 * sq) { print "the wait alone is not short of the client time by the queued part"; exit 1 }
	}' "$workdir/gears.truth" "$workdir/gears.csv" >"$workdir/judge" 2>&1
st=$?
head -1 "$workdir/judge"
[ $st = 0 ] || fail "$(tail -n +2 "$workdir/judge" | head -5)"
