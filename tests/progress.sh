#!/bin/sh
# progress.sh — reading a large file, xcapanalyse and netplot show a meter
# on a terminal ("prog: reading 'FILE': X of Y MiB (N%)", Y the file's
# size) and erase it when done; in a pipe they print nothing of it, and
# their output is the same either way.  A view that prints as it reads
# keeps a terminal on stdout to itself.  XCAP_PROGRESS_DELAY=0 shows the
# meter from the start (by default a read must last a second), so nothing
# here depends on how fast the machine is.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcapanalyse script od
synth=$top_builddir/tests/netplot-synth
[ -x "$synth" ] || skip "needs tests/netplot-synth (built with netplot)"
trace=$workdir/big.xcap
"$synth" 200000 "$trace" || fail "cannot make a synthetic trace"
size=$(wc -c <"$trace")
total=$(awk -v n="$size" 'BEGIN { printf "%.1f", n / 1048576 }')
export XCAP_PROGRESS_DELAY=0

# on_tty NAME COMMAND: run COMMAND (a shell command line) with a terminal
# as stdin, stdout and stderr; what the terminal showed goes to
# $workdir/NAME.tty, split into lines at each \r and \n.
on_tty() {
	script -qfec "$2" /dev/null </dev/null >"$workdir/$1.raw" 2>&1 ||
		fail "'$2' on a terminal failed: $(tr '\r' '\n' <"$workdir/$1.raw" | tail -3)"
	tr '\r' '\n' <"$workdir/$1.raw" >"$workdir/$1.tty"
}
# meters NAME PROG: check the meter lines PROG drew, print how many.
meters() {
	grep -a "^$2: reading " "$workdir/$1.tty" >"$workdir/$1.meter" || true
	n=$(wc -l <"$workdir/$1.meter")
	[ "$n" -ge 1 ] || fail "$2 drew no meter on a terminal: $(head -c 300 "$workdir/$1.tty")"
	esc=$(printf '\033')
	grep -av "^$2: reading '$trace': [0-9]*\.[0-9] of $total MiB ([0-9]*%)$esc\[K\$" "$workdir/$1.meter" |
		head -1 | grep -a . && fail "$2's meter is not 'reading FILE: X of $total MiB (N%)'"
	# the last thing on the terminal's meter line is the erasure
	tail -c 4 "$workdir/$1.raw" | od -An -c | grep -q '033   \[   K' ||
		fail "$2 left its meter on the terminal: $(tail -c 40 "$workdir/$1.raw" | od -An -c)"
	echo "$n"
}

# xcapanalyse's delay table: the meter on the terminal, none in a pipe
on_tty delays "xcapanalyse '$trace' >'$workdir/delays.tty-out'"
n=$(meters delays xcapanalyse) || exit 1
xcapanalyse "$trace" >"$workdir/delays.out" 2>"$workdir/delays.err" || fail "xcapanalyse failed"
[ -s "$workdir/delays.err" ] && fail "xcapanalyse wrote to stderr in a pipe: $(head -c 200 "$workdir/delays.err")"
cmp -s "$workdir/delays.out" "$workdir/delays.tty-out" || fail "the delay table differs with a meter"
say "xcapanalyse: $n meter lines on a terminal, erased at the end; none in a pipe; the same table"

# a view that prints as it reads, onto the same terminal: no meter
on_tty dump "xcapanalyse --dump --conn 2 '$trace'"
grep -aq "reading '" "$workdir/dump.tty" && fail "xcapanalyse --dump drew a meter over its own output"
grep -aq '^conn ' "$workdir/dump.tty" || fail "xcapanalyse --dump printed nothing"
# the same view into a pipe, its stderr on the terminal: the meter is back
on_tty dumppipe "xcapanalyse --dump --conn 2 '$trace' | tail -1 >/dev/null"
n=$(meters dumppipe xcapanalyse) || exit 1
say "xcapanalyse --dump: no meter over its output on the terminal; $n meter lines when piped"

if command -v netplot >/dev/null 2>&1; then
	on_tty netplot "netplot '$trace' --export '$workdir/a.png'"
	n=$(meters netplot netplot) || exit 1
	netplot "$trace" --export "$workdir/b.png" 2>"$workdir/netplot.err" || fail "netplot failed"
	[ -s "$workdir/netplot.err" ] && fail "netplot wrote to stderr in a pipe: $(head -c 200 "$workdir/netplot.err")"
	cmp -s "$workdir/a.png" "$workdir/b.png" || fail "netplot's picture differs with a meter"
	say "netplot --export: $n meter lines on a terminal, erased; none in a pipe; the same picture"
	# The window: while it reads, its status line says how far.
	if command -v Xvfb >/dev/null && command -v xdpyinfo >/dev/null; then
		start_xvfb
		start_netplot "$trace"
		grep "^netplot: loading " "$log" >"$workdir/loading" ||
			fail "netplot's window said nothing while reading: $(head -5 "$log")"
		grep -v "^netplot: loading reading 'big.xcap': [0-9]*\.[0-9] of $total MiB ([0-9]*%)\$" \
			"$workdir/loading" | head -1 | grep . &&
			fail "netplot's status is not 'reading FILE: X of $total MiB (N%)'"
		say "netplot's window: $(wc -l <"$workdir/loading") status lines while reading, the last $(tail -1 "$workdir/loading" | sed 's/.*(//')"
	fi
fi
exit 0
