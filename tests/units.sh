#!/bin/sh
# units.sh — every command takes and refuses the same spellings of a rate,
# a latency, a duration and a size: the one grammar of xcap/units.c (its
# table is tests/check_units.c; man xcap, UNITS, says it to users).
#
# Each command is run with one value and arguments that make it stop right
# after reading its options (no trace, no display, a bad --display); a
# value is refused when the command's message quotes it ("...: '10m'"),
# taken when it goes on to complain about something else.  Needs no root:
# nothing is set up.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcap xcap-link xcapanalyse xcap-run xcap-sweep xcap-replay

# verdict COMMAND...: "taken" or "refused" for the value in $v
verdict() {
	env -u DISPLAY "$@" </dev/null >/dev/null 2>"$workdir/err"
	if grep -qF -- "$v'" "$workdir/err"; then echo refused; else echo taken; fi
}

problems=
# check KIND WANT VALUE: every command that reads KIND says WANT of VALUE
check() {
	v=$3
	case $1 in
	rate) set -- "$2" \
		"xcap-link --check --rate" "xcapanalyse --rates" "xcap-run --rate" \
		"xcap-sweep --display 99 --rates" ${netplot:+"netplot --rates"} ;;
	latency) set -- "$2" \
		"xcap-link --check --latency" "xcapanalyse --latencies" "xcap-run --latency" \
		"xcap-sweep --display 99 --latencies" "xcapanalyse --rtt" "xcap-replay --timeout" ;;
	seconds) set -- "$2" "xcap -r /nonexistent -w /dev/null --ring" \
		"xcap -r /nonexistent -w /dev/null --before" ;;
	size) set -- "$2" "xcap-link --check --queue" "xcap-sweep --display 99 --queue" ;;
	esac
	want=$1
	shift
	for cmd; do
		# xcap-run and xcap-sweep want a client; the others none.
		case $cmd in
		xcap-run*) got=$(verdict $cmd "$v" -- true) ;;
		xcap-sweep*) got=$(verdict $cmd "$v" true) ;;
		netplot*) got=$(verdict $cmd "$v" --export "$workdir/x.png") ;;
		*) got=$(verdict $cmd "$v") ;;
		esac
		[ "$got" = "$want" ] || problems="$problems
  $cmd '$v': $got, want $want ($(head -1 "$workdir/err"))"
	done
}

netplot=
command -v netplot >/dev/null 2>&1 && netplot=yes

for v in 10M 250k 100K 1.5M 1.5Mbit 250kbit/s 2Mbps 64 .5k 1G; do check rate taken "$v"; done
for v in 10m 10mbit 10g 10X 1e6 -1M nan inf M 10MB 0.4 ' 10M'; do check rate refused "$v"; done
for v in 40 0.1 40ms 1.5s 100us 250ns 1m; do check latency taken "$v"; done
for v in 40MS 1sec 1ks -5 2e6 fast 'ms' '40 ms'; do check latency refused "$v"; done
for v in 30 1.5 500ms 2m 2min 1h; do check seconds taken "$v"; done
for v in 30S 1e3 -1 '2 m' 1x; do check seconds refused "$v"; done
for v in 64k 512K 1M 64MiB 2MB 150000; do check size taken "$v"; done
for v in 64m 64iB 64Mb 1e5 -64k; do check size refused "$v"; done

[ -z "$problems" ] || fail "commands that read a unit otherwise:$problems"
say "rates, latencies, durations and sizes read alike by every command"
exit 0
