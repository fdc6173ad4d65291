#!/bin/sh
# bad-input.sh — every command on every kind of bad input (issue 19):
# the message names the program that speaks, the reason and the subject,
# each once, and the same input gets the same exit status from xcap -r,
# xcapanalyse and netplot's export.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need /usr/bin/python3
good="$top_srcdir/tests/captures/xdpyinfo-xlogo.pcap"
corpus="$top_srcdir/tests/fuzz/corpus"

# expect PROG STATUS REASON-REGEX SUBJECT CMD...: run CMD, check its status
# and that stderr has "PROG: ...REASON...: 'SUBJECT'" with the subject once
# and nothing said twice over.
expect() {
	prog=$1 want=$2 reason=$3 subject=$4; shift 4
	"$@" >/dev/null 2>"$workdir/err"
	got=$?
	[ "$got" = "$want" ] || fail "$*: exit status $got, want $want: $(cat "$workdir/err")"
	grep -Eq "^$prog: .*($reason).*: '$subject'\$" "$workdir/err" ||
		fail "$*: no '$prog: ...$reason...: '$subject'' in: $(cat "$workdir/err")"
	grep -Ev "^$prog: " "$workdir/err" | grep -q . && fail "$*: a line not from $prog: $(cat "$workdir/err")"
	[ "$(grep -c "'$subject'.*'$subject'" "$workdir/err")" = 0 ] || fail "$*: subject named twice: $(cat "$workdir/err")"
	grep -Eq "(cannot [a-z ]+): \\1" "$workdir/err" && fail "$*: said twice: $(cat "$workdir/err")"
}

# each INPUT STATUS REASON: the three readers on one input, one claim
each() {
	in=$1 st=$2 reason=$3
	name=${in#"$workdir"/}
	check_begin "${name#"$top_srcdir"/}: status $st and '$reason' from xcap -r, xcapanalyse and netplot"
	expect xcap "$st" "$reason" "$in" xcap -q -r "$in" -w "$workdir/out.xcap"
	expect xcapanalyse "$st" "$reason" "$in" xcapanalyse "$in"
	expect netplot "$st" "$reason" "$in" netplot "$in" --export "$workdir/out.png"
	check_end
}

each "$workdir/missing.pcap" 1 "No such file or directory"
mkdir "$workdir/dir"
each "$workdir/dir" 1 "Is a directory"
: >"$workdir/empty"
each "$workdir/empty" 1 "empty file"
head -c 4096 /dev/urandom >"$workdir/random"
each "$workdir/random" 1 "not a pcap|neither an xcap trace nor a pcap"
each "$corpus/pcap/truncated.pcap" 1 "truncated"
# xcap -r reads captures only; the others say where a trace was cut.
check_begin "a truncated trace: xcapanalyse and netplot say it was cut short"
expect xcapanalyse 1 "cut short" "$corpus/trace/truncated.xcap" xcapanalyse "$corpus/trace/truncated.xcap"
expect netplot 1 "cut short" "$corpus/trace/truncated.xcap" \
	netplot "$corpus/trace/truncated.xcap" --export "$workdir/out.png"
check_end

# An intact capture of a link type not decoded: said by the program that
# reads it (not "xcap:" from the library), and, as nothing in it is X11
# or RFB, status 1 from each: no table of zeros passes for a result.
ppp="$corpus/pcap/ppp.pcap"
check_begin "a PPP capture: said by the reader, status 1, no X11 or RFB connection"
expect xcap 1 "link type not supported.*PPP" "$ppp" xcap -q -r "$ppp" -w "$workdir/out.xcap"
expect xcap 1 "no X11, RFB or Wayland connection" "$ppp" xcap -q -r "$ppp" -w "$workdir/out.xcap"
expect xcapanalyse 1 "link type not supported.*PPP" "$ppp" xcapanalyse "$ppp"
expect xcapanalyse 1 "no X11, RFB or Wayland connection" "$ppp" xcapanalyse "$ppp"
expect netplot 1 "no connections" "$ppp" netplot "$ppp" --export "$workdir/out.png"
check_end

# Outputs that cannot be written: a missing directory, a full disk.
check_begin "an output in a missing directory: status 1, the reason and the file"
expect xcap 1 "No such file or directory" "$workdir/no/out.xcap" \
	xcap -q -r "$good" -w "$workdir/no/out.xcap"
expect netplot 1 "No such file or directory" "$workdir/no/out.png" \
	netplot "$good" --export "$workdir/no/out.png"
check_end
if [ -w /dev/full ]; then
	check_begin "an output on a full disk: status 1, the reason and the file"
	expect xcap 1 "cannot write the trace: No space left on device" /dev/full \
		xcap -q -r "$good" -w /dev/full
	for ext in png pdf; do
		ln -s /dev/full "$workdir/full.$ext"
		expect netplot 1 "No space left on device" "$workdir/full.$ext" \
			netplot "$good" --export "$workdir/full.$ext"
	done
	check_end
else
	check_skip "an output on a full disk: status 1, the reason and the file" "no writable /dev/full"
fi

# Nothing silent (issue 28): what the options ask for and the capture has
# not is one line naming the program, what is missing and the subject,
# and status 1 — never a table of zeros or a blank picture with status 0.
check_begin "an unknown --conn: status 1 from xcapanalyse and netplot"
expect xcapanalyse 1 "no connection 9 in the capture" "$good" xcapanalyse --conn 9 "$good"
for view in --requests --round-trips --responses --messages; do
	expect xcapanalyse 1 "no connection 9 in the capture" "$good" xcapanalyse $view --conn 9 "$good"
done
expect netplot 1 "no such connection" 9 netplot "$good" --conn 9 --export "$workdir/out.png"
check_end
check_begin "a --range past the capture's end: status 1 from xcapanalyse and netplot"
rm -f "$workdir/out.png"
expect xcapanalyse 1 "nothing in the range 100:200" "$good" xcapanalyse --range 100:200 "$good"
expect xcapanalyse 1 "nothing in the range 100:" "$good" xcapanalyse --round-trips --range 100: "$good"
expect netplot 1 "nothing in the range 100:200" "$good" netplot "$good" --range 100:200 --export "$workdir/out.png"
[ -e "$workdir/out.png" ] && fail "netplot wrote a picture of nothing"
check_end
check_begin "a capture without X11 or RFB: status 1 from xcap -r and xcapanalyse"
expect xcap 1 "no X11, RFB or Wayland connection" "$good" xcap -q -r "$good" -w "$workdir/none.xcap" tcp port 1
expect xcapanalyse 1 "no X11, RFB or Wayland connection" "$workdir/none.xcap" xcapanalyse "$workdir/none.xcap"
check_end
check_begin "xcap-replay on a capture without X11 or RFB, and on an unknown --connection: status 1"
expect xcap-replay 1 "no inputs in the capture" "$workdir/none.xcap" \
	xcap-replay record "$workdir/none.xcap" -o "$workdir/none.session"
expect xcap-replay 1 "no such connection" 9 \
	xcap-replay record --connection 9 "$good" -o "$workdir/none.session"
check_end
check_begin "--sites without a sites file: status 1, naming xcap-run"
expect xcapanalyse 1 "xcap-run writes them" "$good.sites" xcapanalyse --sites "$good"
check_end
# A capture begun mid-way through an RFB session (its first 40 packets
# cut off): the views say so, not only --dump.
python3 - "$top_srcdir/tests/captures/rfb-xvnc.pcap" "$workdir/rfb-mid.pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
big = d[:4] == b'\xa1\xb2\xc3\xd4'
out, pos, n = [d[:24]], 24, 0
while pos + 16 <= len(d):
    cap = struct.unpack('>I' if big else '<I', d[pos + 8:pos + 12])[0]
    if n >= 40:
        out.append(d[pos:pos + 16 + cap])
    pos += 16 + cap
    n += 1
open(sys.argv[2], 'wb').write(b''.join(out))
PY
check_begin "a capture begun mid-way through an RFB session: the views say so"
for view in --delays --requests --round-trips --responses --responses-summary; do
	xcapanalyse $view "$workdir/rfb-mid.pcap" >"$workdir/mid.out" 2>&1 ||
		fail "xcapanalyse $view on a mid-session capture failed: $(cat "$workdir/mid.out")"
	grep -q "began mid-way through the session" "$workdir/mid.out" ||
		fail "xcapanalyse $view does not say the capture began mid-session"
done
check_end
# Live: nothing captured, with the likely reasons.
if have root; then
	check_begin "a live capture of nothing: status 1 and the likely reasons"
	xcap -i lo -w "$workdir/live.xcap" tcp port 6099 >/dev/null 2>"$workdir/live.err" & cpid=$!
	sleep 1
	kill -INT $cpid
	wait $cpid
	st=$?
	[ "$st" = 1 ] || fail "xcap on an idle port exited $st, not 1: $(cat "$workdir/live.err")"
	grep -q "^xcap: no packet captured (.*Unix socket.*6000+N.*): 'lo tcp port 6099'\$" "$workdir/live.err" ||
		fail "no reasons for capturing nothing: $(cat "$workdir/live.err")"
	check_end
else
	check_skip "a live capture of nothing: status 1 and the likely reasons" "not root"
fi
