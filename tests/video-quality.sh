#!/bin/sh
# video-quality.sh — xcapanalyse --updates' video quality (slow-motion
# benchmarking) against the client's and the viewer's own clocks and
# against the physics of a slow link.
#
# X11: tests/xanimate.py plays an animation of a known frame rate (one
# 128 x 128 PutImage a frame, 65560 bytes) by the clock, dropping the
# frames it is late for, to an Xvfb across xcap-link; xcap captures beside
# it; the animation marks its start and end.  Played in slow motion (2
# fps, which the link carries whole), then at 30 fps, which needs about
# 15.7 Mbit/s of a 4 Mbit/s link.  xcapanalyse's video quality over the
# marks must be
#  - within 5 % of the client's own count: frames written / (30 x its
#    playing time), over the same of the slow-motion run at 2 fps;
#  - within 10 % of the link's configuration: its rate less the TCP/IP
#    headers, over 30 frames a second of 65560 bytes;
#  - and the slow-motion run must have dropped nothing.
# RFB: the same animation on an Xvnc's desktop, watched by the suite's own
# viewer (tests/rfbtruth.py, Raw encoding) across the link; the viewer
# marks the capture with SIGUSR2 when it starts and stops watching.  The
# updates xcapanalyse finds between the marks must be the viewer's own
# count within one update and 5 %, their rate the rate the link allows (a
# request crosses, then an update of the window's pixels) within 15 %, and
# the video quality against a slow-motion run (2 fps) the viewer's count
# over the ideal frames, over the same of the slow-motion run, within 5 %.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need root ip xcap-link xcap xcapanalyse Xvfb /usr/bin/python3
measures_physics
need tun
. "$top_srcdir/tests/netns.sh"

py=/usr/bin/python3
anim=$top_srcdir/tests/xanimate.py
tag=vq$$
rate=4000000			# bits per second, both ways
delay_ms=5			# one way
queue=150000			# bytes: more than one update or frame
fps=30
slow_fps=2
size=128			# the window: 65536 bytes of pixels a frame
mss=1448			# MTU 1500 less IPv4, TCP and timestamp headers

# close_to MEASURED EXPECTED FRACTION [ABSOLUTE]
close_to() {
	$py -c 'import sys
m, e, f = map(float, sys.argv[1:4])
a = float(sys.argv[4]) if len(sys.argv) > 4 else 0
sys.exit(abs(m - e) > f * e + a)' "$@"
}

# column CSV NAME: the first row's value of a column.
column() {
	$py -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(rows[0][sys.argv[2]] if rows else "")' "$1" "$2"
}

make_link "$tag" "$rate" "$rate" "$delay_ms" "$queue"
start_xvfb_ns 640x480x24 "$workdir/xvfb-ns.log"
pids="$pids $xpid"

# ---- X11 ----

# play NAME FPS SECONDS: the animation across the link, captured beside it.
play() {
	start_capture "cap_$1" ip netns exec "$link_ns_c" xcap -i "$link_dev_c" -w "$workdir/$1.xcap"
	ip netns exec "$link_ns_c" $py "$anim" "$link_addr_s" "$n" "$2" "$3" "$size" \
		"$workdir/$1.truth" video || fail "$1: the animation failed"
	sleep 0.3
	stop_capture "cap_$1"
}
play slow "$slow_fps" 3
play normal "$fps" 5
read -r slow_frames slow_dropped slow_secs <"$workdir/slow.truth"
read -r frames dropped secs <"$workdir/normal.truth"
say "slow motion: $slow_frames frames at $slow_fps fps in $slow_secs s, $slow_dropped dropped"
say "normal: $frames frames of $((fps * 5)) at $fps fps in $secs s, $dropped dropped"
[ "$slow_dropped" = 0 ] || fail "the slow-motion run dropped $slow_dropped frames: not a reference"

xcapanalyse --updates --mark-span video-start:video-end --ideal-fps "$fps" \
	--slow-motion "$workdir/slow.xcap" --slow-motion-fps "$slow_fps" --format csv \
	"$workdir/normal.xcap" >"$workdir/x11.csv" || fail "xcapanalyse --updates failed"
cat "$workdir/x11.csv" >&2
vq=$(column "$workdir/x11.csv" video_quality)
[ -n "$vq" ] || fail "no video quality for X11"
# The paper's quality is relative to the slow-motion run, so the client's
# own figure is too: a loaded machine that plays the slow-motion clip in
# 3.19 s where 3 s were asked makes every run's quality 6 % higher, on
# the client's clock as in the capture.
truth=$($py -c "print('%.6f' % (($frames / ($fps * $secs)) / ($slow_frames / ($slow_fps * $slow_secs))))")
physics=$($py -c "
frame = $size * $size * 4 + 24
print('%.6f' % min(1, $rate / 8 * $mss / ($mss + 52) / ($fps * frame)))")
say "X11 video quality: xcapanalyse $vq, the client's clock $truth, the link's physics $physics"
close_to "$vq" "$truth" 0.05 || fail "video quality $vq is not within 5 % of the client's $truth"
close_to "$vq" "$physics" 0.10 || fail "video quality $vq is not within 10 % of the link's $physics"
# The rule without a slow-motion run: no updates in X11, nothing invented.
xcapanalyse --updates --mark-span video-start:video-end --ideal-fps "$fps" --format csv \
	"$workdir/normal.xcap" >"$workdir/x11-alone.csv" || fail "xcapanalyse --updates failed"
[ -z "$(column "$workdir/x11-alone.csv" video_quality)" ] ||
	fail "a video quality without a slow-motion run"
[ -z "$(column "$workdir/x11-alone.csv" update_quality)" ] || fail "an X11 update rate"

# ---- RFB ----

if command -v Xvnc >/dev/null; then
	vn=$((n + 1))
	while [ -e "/tmp/.X$vn-lock" ]; do vn=$((vn + 1)); done
	vport=$((5900 + vn))
	ip netns exec "$link_ns_s" Xvnc ":$vn" -noreset -SecurityTypes None -rfbport "$vport" \
		-geometry 320x240 -listen tcp -ac >"$workdir/xvnc.log" 2>&1 &
	pids="$pids $!"
	wait_for ip netns exec "$link_ns_s" $py -c \
		"import socket; socket.create_connection(('127.0.0.1', $((6000 + vn))))" ||
		fail "Xvnc did not start: $(cat "$workdir/xvnc.log")"
	# watch NAME FPS: the animation at FPS on Xvnc's desktop, the viewer
	# across the link watching it for 4 s between two marks, while it plays.
	watch() {
		# Long enough to outlast the watch on a loaded machine; stopped
		# after it.
		ip netns exec "$link_ns_s" $py "$anim" 127.0.0.1 "$vn" "$2" 30 "$size" \
			"$workdir/$1-anim.truth" &
		_apid=$!
		pids="$pids $_apid"
		sleep 1
		start_capture "cap_$1" ip netns exec "$link_ns_c" xcap -i "$link_dev_c" -w "$workdir/$1.xcap"
		_cpid=$(eval "echo \$cap_${1}_pid")
		ip netns exec "$link_ns_c" $py "$top_srcdir/tests/rfbtruth.py" "$link_addr_s" "$vport" \
			"$workdir/$1.truth" 300 raw "watch:4:$_cpid" 2>"$workdir/$1-viewer.err" ||
			fail "$1: the viewer failed: $(tail -3 "$workdir/$1-viewer.err")"
		sleep 0.3
		stop_capture "cap_$1"
		kill -0 "$_apid" 2>/dev/null || fail "$1: the animation on Xvnc ended before the watch did"
		kill "$_apid"
		wait "$_apid" 2>/dev/null
	}
	watch rfbslow "$slow_fps"
	watch rfb "$fps"
	xcapanalyse --updates --mark-span SIGUSR2:SIGUSR2 --ideal-fps "$fps" \
		--slow-motion "$workdir/rfbslow.xcap" --slow-motion-fps "$slow_fps" --format csv \
		"$workdir/rfb.xcap" >"$workdir/rfb.csv" || fail "xcapanalyse --updates failed (RFB)"
	cat "$workdir/rfb.csv" >&2
	got=$(column "$workdir/rfb.csv" updates)
	q=$(column "$workdir/rfb.csv" update_quality)
	span=$(column "$workdir/rfb.csv" span)
	read -r _ _ _ vstart _ vcount vend <<EOF
$(grep watch "$workdir/rfb.truth")
EOF
	# The rate the link allows: a request crosses (delay), then the
	# update (16 bytes of headers and the window's pixels, Raw) at the rate
	# with its TCP/IP headers, and crosses too.
	allowed=$($py -c "
update = 16 + $size * $size * 4
wire = update * ($mss + 52) / $mss
print('%.6f' % min($fps, 1 / (2 * $delay_ms / 1000 + wire * 8 / $rate)))")
	rate_got=$($py -c "print('%.6f' % ($q * $fps))")
	say "RFB: $got updates in $span s between the marks (the viewer counted $vcount), $rate_got a second, quality $q; the link allows $allowed a second of $fps"
	close_to "$got" "$vcount" 0.05 1 || fail "$got updates against the viewer's $vcount"
	# Each update carried one whole frame: the data form agrees with the
	# viewer's count of updates over the ideal frames of the span.
	vq=$(column "$workdir/rfb.csv" video_quality)
	read -r _ _ _ svstart _ svcount svend <<EOF
$(grep watch "$workdir/rfbslow.truth")
EOF
	truth=$($py -c "print('%.6f' % (($vcount / ($fps * ($vend - $vstart) / 1e9)) /
	    ($svcount / ($slow_fps * ($svend - $svstart) / 1e9))))")
	say "RFB video quality against the slow-motion run: $vq, the viewer's count $truth"
	close_to "$vq" "$truth" 0.05 || fail "RFB video quality $vq is not within 5 % of the viewer's $truth"
	close_to "$rate_got" "$allowed" 0.15 ||
		fail "$rate_got updates a second is not within 15 % of the $allowed the link allows"
else
	say "no Xvnc: X11 only"
fi
link_down "$tag" || fail "xcap-link did not end cleanly"
say "video quality agrees with the clocks and the link"
