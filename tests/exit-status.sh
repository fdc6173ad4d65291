#!/bin/sh
# exit-status.sh — each command exits with the statuses its man page lists
# under EXIT STATUS, and names itself in its messages ("xcapanalyse: ...",
# never "xcap: ..." from a library inside another command).  For each
# command: --help (0), an unknown option (2), an input that is not there
# (1); each status seen must be one the man page lists, and each status
# the page lists among 0, 1 and 2 must be seen.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcap xcapanalyse

# The statuses a man page lists: the ".B N" after each ".TP" of its
# EXIT STATUS section.
listed() {
	sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$top_srcdir/man/$1.1" |
		awk '/^\.TP/ { tp = 1; next } tp && /^\.B [0-9]+$/ { print $2 } { tp = 0 }' | sort -n | tr '\n' ' '
}

# run CMD ARGS...: the status, with stderr in $workdir/err
run() {
	"$@" >/dev/null 2>"$workdir/err"
	echo $?
}

missing=$workdir/no-such-file.pcap
checked=0
for cmd in xcap xcapanalyse netplot xcap-link xcap-replay; do
	command -v $cmd >/dev/null 2>&1 || { say "$cmd not built, not checked"; continue; }
	list=$(listed $cmd)
	check_begin "man/$cmd.1 lists exit statuses"
	[ -n "$list" ] || fail "man/$cmd.1 lists no exit status as '.TP/.B N'"
	check_end
	seen=
	check_begin "$cmd --help exits 0"
	s=$(run $cmd --help)
	[ "$s" = 0 ] || fail "$cmd --help exited $s"
	check_end
	seen="$seen 0"
	# netplot passes options it does not know to GTK unless it runs
	# headless (--export).
	headless=
	[ $cmd = netplot ] && headless="--export $workdir/x.png"
	check_begin "$cmd on an unknown option exits 2 and names itself"
	s=$(run $cmd $headless --no-such-option)
	[ "$s" = 2 ] || fail "$cmd --no-such-option exited $s, not 2"
	grep -q "^$cmd: " "$workdir/err" || fail "$cmd's usage error does not name it: $(head -1 "$workdir/err")"
	check_end
	seen="$seen 2"
	check_begin "$cmd on a missing input exits 1, in its own name and naming the input"
	case $cmd in
	xcap) s=$(run xcap -r "$missing" -w "$workdir/t.xcap") ;;
	xcapanalyse) s=$(run xcapanalyse "$missing") ;;
	netplot) s=$(run netplot --export "$workdir/x.png" "$missing") ;;
	xcap-link) s=$(run xcap-link --ns-a no-such-ns-$$ --ns-b no-such-ns-$$) ;;
	xcap-replay) s=$(run xcap-replay "$missing") ;;
	esac
	[ "$s" = 1 ] || fail "$cmd on a missing input exited $s, not 1: $(cat "$workdir/err")"
	grep -q "^$cmd: .*'" "$workdir/err" || fail "$cmd's error does not name it and its subject: $(head -1 "$workdir/err")"
	grep -v "^$cmd: " "$workdir/err" | grep -q . &&
		fail "$cmd printed a message not in its name: $(grep -v "^$cmd: " "$workdir/err" | head -1)"
	check_end
	seen="$seen 1"
	check_begin "$cmd exits with the statuses man/$cmd.1 lists, and each of 0, 1, 2 it lists"
	for v in $seen; do
		case " $list" in *" $v "*) ;; *) fail "$cmd exited $v, which man/$cmd.1 does not list ($list)" ;; esac
	done
	for v in $list; do
		case $v in 0|1|2) case "$seen " in *" $v "*) ;; *) fail "man/$cmd.1 lists $v, never seen" ;; esac ;; esac
	done
	check_end
	say "$cmd: exits $seen as man/$cmd.1 lists ($list)"
	checked=$((checked + 1))
done

# A library's failure reaches the user in the command's name: a damaged
# trace read by xcapanalyse.
cap="$top_srcdir/tests/captures/xdpyinfo-xlogo.pcap"
xcap -q -r "$cap" -w "$workdir/t.xcap" 2>/dev/null || fail "cannot make a trace"
size=$(wc -c <"$workdir/t.xcap")
head -c $((size - 7)) "$workdir/t.xcap" >"$workdir/cut.xcap"
check_begin "a library's failure reaches the user in the command's name"
s=$(run xcapanalyse "$workdir/cut.xcap")
[ "$s" = 1 ] || fail "xcapanalyse on a cut trace exited $s, not 1"
grep -q "^xcapanalyse: .*'$workdir/cut.xcap'\$" "$workdir/err" ||
	fail "the reader's warning is not in xcapanalyse's name: $(cat "$workdir/err")"
grep -q "^xcap: " "$workdir/err" && fail "a library spoke as xcap inside xcapanalyse"
check_end
check_begin "at least two commands were checked"
[ $checked -ge 2 ] || fail "checked only $checked commands"
check_end

# Each command on each kind of bad input: the status, and a message that
# names the program, what failed and the subject ("prog: what: 'subject'"):
# the first line, and every line of a failure to read (a usage error is
# followed by the usage).
#   expect STATUS SUBJECT CMD ARGS...
expect() {
	want=$1 subject=$2; shift 2
	s=$(run "$@")
	[ "$s" = "$want" ] || fail "'$*' exited $s, not $want: $(cat "$workdir/err")"
	[ "$want" = 2 ] || ! grep -v "^$1: " "$workdir/err" | grep -q . ||
		fail "'$*' printed a line not in its name: $(grep -v "^$1: " "$workdir/err" | head -1)"
	head -n 1 "$workdir/err" | grep -q "^$1: [^ ].*'$subject'" ||
		fail "'$*': its first line does not name what failed and '$subject': $(cat "$workdir/err")"
	[ "$(head -n 1 "$workdir/err" | grep -F -o "'$subject'" | wc -l)" = 1 ] ||
		fail "'$*' names '$subject' more than once: $(head -n 1 "$workdir/err")"
	kinds=$((kinds + 1))
}
kinds=0
echo 'not a capture' >"$workdir/text.pcap"
size=$(wc -c <"$cap")
head -c $((size / 3)) "$cap" >"$workdir/cut.pcap"
head -c 10 "$workdir/t.xcap" >"$workdir/header.xcap"
for f in "$missing" "$workdir/text.pcap" "$workdir/cut.pcap" "$workdir/header.xcap" "$workdir/cut.xcap"; do
	check_begin "${f#"$workdir"/}: status 1 and one message naming what failed and the file, from each reader"
	# a trace cut mid-block: what came before is still printed or drawn
	[ "$f" = "$workdir/cut.xcap" ] || expect 1 "$f" xcap -q -r "$f" -w "$workdir/o.xcap"
	expect 1 "$f" xcapanalyse "$f"
	command -v netplot >/dev/null 2>&1 && expect 1 "$f" netplot "$f" --export "$workdir/o.png"
	check_end
done
# bad options, and bad filters: a BPF filter, a connection list, a range
check_begin "bad options and filters: status 2 and a message naming the option or its value"
expect 2 y xcap -y -r "$cap" -w "$workdir/o.xcap"
expect 2 --frobnicate xcapanalyse --frobnicate "$cap"
expect 2 'tcp port' xcap -r "$cap" -w "$workdir/o.xcap" tcp port
expect 2 x xcapanalyse --conn x "$cap"
expect 2 5:1 xcapanalyse --range 5:1 "$cap"
expect 2 text,csv xcapanalyse --format text,csv "$cap"
# one view at a time, and an option of another view named
expect 2 --round-trips xcapanalyse --requests --round-trips "$cap"
expect 2 --wake-time xcapanalyse --round-trips --wake-time 1 "$cap"
if command -v netplot >/dev/null 2>&1; then
	expect 2 --frobnicate netplot --frobnicate "$cap" --export "$workdir/o.png"
	expect 2 5:1 netplot "$cap" --range 5:1 --export "$workdir/o.png"
	expect 2 sideways netplot "$cap" --direction sideways --export "$workdir/o.png"
	expect 1 9 netplot "$cap" --conn 9 --export "$workdir/o.png"
fi
if command -v xcap-sweep >/dev/null 2>&1; then
	expect 2 --frobnicate xcap-sweep --frobnicate true
	expect 2 fast xcap-sweep --rates fast true
fi
expect 2 --frobnicate xcap-link --frobnicate
check_end
say "$kinds bad inputs, each checked for its program, what failed and the subject"
exit 0
