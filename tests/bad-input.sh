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
each "$workdir/empty" 1 "empty file|not a pcap or pcapng file"
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
# reads it (not "xcap:" from the library), and not an error: status 0 —
# except netplot's export, which has no connection to draw (its status 1).
ppp="$corpus/pcap/ppp.pcap"
check_begin "a PPP capture: said by the reader, status 0 (netplot's export 1)"
expect xcap 0 "link type not supported.*PPP" "$ppp" xcap -q -r "$ppp" -w "$workdir/out.xcap"
expect xcapanalyse 0 "link type not supported.*PPP" "$ppp" xcapanalyse "$ppp"
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
