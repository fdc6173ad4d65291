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
need root ip xcap-link xcap xcapanalyse Xvfb xdpyinfo glxgears cc
measures_physics
need tun
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

# Per wait with a queued part: the client's time in the call that waited
# for its sequence number (the longest: Xlib may call again at once), and
# in the writes that blocked on its queued output just before it.  Xlib
# blocks in libxcb on the head of its pending requests, a request before
# the one its call waits for, so a call is found by that (the truth's
# TARGET), not by the head it blocked on.  The queued part begins where
# the capture sees the client's backlog begin, its first held-back
# segment, and each wait is held to 15 % + 5 ms and the sum over the
# judged waits to 5 %.  Where the list's Queued + Wait is longer than
# the client's record shows it blocked, and the record shows it blocked
# on nothing in between, the client was still working while its output
# was queued (glxgears' first frame: it converts and sends its image while
# its earlier output drains), which a passive capture cannot tell from
# waiting; up to 2 such waits are shown and not judged.  The last wait or
# two may have no record (the call that blocked never returned): glxgears
# is stopped with SIGINT, in a wait.
awk -F, -v name="$test_name" '
	FNR == NR { split($0, a, " ")
		if (a[1] == "wait") {
			k = a[6] != "" ? a[6] : a[2]; d = (a[4] - a[3]) * 1000
			if (d > t[k]) { t[k] = d; cs[k] = a[3]; ce[k] = a[4] }
			if (d >= 1) { nc++; call_s[nc] = a[3]; call_e[nc] = a[4] }
		} else if (a[1] == "write") { nw++; ws[nw] = a[2]; we[nw] = a[3] }
		next }
	FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	{ q = $col["queued"] * 1000; w = $col["wait"] * 1000; s = $col["seq"] }
	q > 0 { nq++
		if (!(s in t) || t[s] < 1) { missing++; next }	# never returned
		# Writes that blocked in the span the list gives the wait.
		c = t[s]; from = ce[s] - (q + w) / 1000
		for (i = 1; i <= nw; i++)
			if (ws[i] >= from && we[i] <= cs[s] + 0.0005) c += (we[i] - ws[i]) * 1000
		d = q + w - c
		blocked_between = 0
		for (i = 1; i <= nc; i++)
			if (call_e[i] > from && call_s[i] < cs[s] - 0.0005) blocked_between = 1
		if (d > 5 + 0.15 * c && !blocked_between) {
			printf "seq %s (%s): queued %.1f + wait %.1f = %.1f ms, the client blocked %.1f ms: %.1f ms of its output queued while it worked, not judged\n", s, $col["request"], q, w, q + w, c, d
			worked++; next }
		sq += q; sw += w; sc += c; if (d < 0) d = -d
		if (d > 5 + 0.15 * c) { printf "seq %s (%s): queued %.1f + wait %.1f = %.1f ms, the client %.1f ms\n", s, $col["request"], q, w, q + w, c; bad++ }
		else ok++ }
	END {
		printf "%s: %d waits with a queued part: %d judged, queued %.1f ms + wait %.1f ms = %.1f ms in all, the client %.1f ms; %d agree within 15 %% + 5 ms, %d not, %d queued while the client worked, %d without a record\n",
			name, nq, ok + bad, sq, sw, sq + sw, sc, ok, bad, worked, missing
		if (ok + bad < 5) { print "fewer than 5 waits with a queued part judged"; exit 1 }
		if (missing > 2) { print missing " waits with a queued part have no call of the client"; exit 1 }
		if (worked > 2) { print worked " waits count output queued while the client worked"; exit 1 }
		if (bad) exit 1
		d = sq + sw - sc; if (d < 0) d = -d
		if (d > 0.05 * sc) { print "the sum is not within 5 % of the client time"; exit 1 }
		# The wait proper alone is short by the queued part.
		if (sw > sc - 0.5 * sq) { print "the wait alone is not short of the client time by the queued part"; exit 1 }
	}' "$workdir/gears.truth" "$workdir/gears.csv" >"$workdir/judge" 2>&1
st=$?
grep -v '^seq' "$workdir/judge" | head -1
grep 'not judged' "$workdir/judge"
[ $st = 0 ] || fail "$(grep -v 'not judged' "$workdir/judge" | tail -n +2 | head -5)"
