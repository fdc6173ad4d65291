#!/bin/sh
# range-cut.sh — --range is a capture cut to that time span, in the views
# that replay or count the traffic: what a view says of a range of a
# capture equals what it says of the capture cut to the range by editcap
# -A/-B, an independent tool.
#
# The cuts are made where the decoder loses nothing: before a connection's
# first packet (xdpyinfo-xlogo.pcap: xdpyinfo's connection ends at 4 ms,
# xlogo's begins at 49 ms) or after the session's start (an end cut), so
# that the cut capture's messages are the whole one's.  A cut that drops a
# connection numbers the others from 1: the connection column is left out.
# Each range cuts out part of the session (the figures are not the whole
# capture's: checked too).  Where a cut would begin mid-connection (the
# keys of xterm-input.pcap from 2.5 s), the replay of the range is held to
# the whole trace's replay instead: at 1M and 10M the start-up's traffic
# has crossed the link long before 2.5 s, so each key's predicted response
# is the same in both.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need editcap capinfos /usr/bin/python3
caps="$top_srcdir/tests/captures"

# cut_to CAPTURE T0:T1 OUT: the packets from T0 to before T1 seconds after
# the first (either may be left out), by editcap's absolute times.
cut_to() {
	first=$(capinfos -a -S -T -r "$1" | cut -f2) || fail "capinfos $1 failed"
	args=$(/usr/bin/python3 -c '
import sys
from decimal import Decimal
first = Decimal(sys.argv[1])
a, b = sys.argv[2].split(":")
print(" ".join((["-A", str(first + Decimal(a))] if a else []) +
               (["-B", str(first + Decimal(b))] if b else [])))' "$first" "$2")
	# shellcheck disable=SC2086
	editcap $args "$1" "$3" || fail "editcap $args $1 failed"
}

# same WHAT A B: the two files are equal, else the difference.
same() {
	cmp -s "$2" "$3" && return 0
	fail "$1: $(diff "$2" "$3" | head -6)"
}

# drop_conn: CSV without its conn column.
drop_conn() {
	/usr/bin/python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
k = rows[0].index("conn") if rows and "conn" in rows[0] else None
w = csv.writer(sys.stdout, lineterminator="\n")
for r in rows:
    w.writerow(r[:k] + r[k + 1:] if k is not None and len(r) > k else r)'
}

x=$caps/xdpyinfo-xlogo.pcap
links="--rates 1M,100k --latencies 10,50"
for range in 0.04: :0.105 0.04:0.105; do
	cut_to "$x" "$range" "$workdir/cut.pcap"
	check_begin "--predict and --predict-round-trips of --range $range are those of the capture cut to it"
	# shellcheck disable=SC2086
	{
		xcapanalyse --predict $links --format csv --range "$range" "$x" >"$workdir/range.csv" &&
		xcapanalyse --predict $links --format csv "$workdir/cut.pcap" >"$workdir/cut.csv" &&
		xcapanalyse --predict $links --format csv "$x" >"$workdir/whole.csv"
	} 2>/dev/null || fail "xcapanalyse --predict failed"
	same "--predict" "$workdir/cut.csv" "$workdir/range.csv"
	cmp -s "$workdir/whole.csv" "$workdir/range.csv" && fail "--predict: the range changed nothing"
	# shellcheck disable=SC2086
	{
		xcapanalyse --predict-round-trips $links --format csv --range "$range" "$x" | drop_conn >"$workdir/range.csv" &&
		xcapanalyse --predict-round-trips $links --format csv "$workdir/cut.pcap" | drop_conn >"$workdir/cut.csv"
	} 2>/dev/null || fail "xcapanalyse --predict-round-trips failed"
	same "--predict-round-trips" "$workdir/cut.csv" "$workdir/range.csv"
	check_end
	check_begin "--tcp-stats of --range $range is that of the capture cut to it"
	xcapanalyse --tcp-stats --format csv --range "$range" "$x" | drop_conn >"$workdir/range.csv" &&
		xcapanalyse --tcp-stats --format csv "$workdir/cut.pcap" | drop_conn >"$workdir/cut.csv" ||
		fail "xcapanalyse --tcp-stats failed"
	same "--tcp-stats" "$workdir/cut.csv" "$workdir/range.csv"
	check_end
done

check_begin "--compare's responses of --range :3.5 are those of the runs cut to it"
a=$caps/xterm-input.pcap b=$caps/xterm-lossy.pcap
cut_to "$a" :3.5 "$workdir/a.pcap"
cut_to "$b" :3.5 "$workdir/b.pcap"
responses() { grep -E '"view": "(responses|matching)"' || true; }
xcapanalyse --compare --format ndjson --range :3.5 "$a" "$b" 2>/dev/null | responses >"$workdir/range.nd"
xcapanalyse --compare --format ndjson "$workdir/a.pcap" "$workdir/b.pcap" 2>/dev/null | responses >"$workdir/cut.nd"
xcapanalyse --compare --format ndjson "$a" "$b" 2>/dev/null | responses >"$workdir/whole.nd"
[ -s "$workdir/cut.nd" ] || fail "--compare printed no responses"
same "--compare" "$workdir/cut.nd" "$workdir/range.nd"
cmp -s "$workdir/whole.nd" "$workdir/range.nd" && fail "--compare: the range changed nothing"
check_end

check_begin "--predict-responses of a range replays only it, and ties its inputs' answers as the whole replay does"
t=$caps/xterm-input.pcap
for from in 1 2.5; do
	# Each input's link, time, number, kind, what, and predicted response.
	xcapanalyse --predict-responses --rates 1M,10M --latencies 10,50 --format csv --range "$from:" "$t" \
		2>/dev/null | cut -d, -f1-8,10 >"$workdir/range.csv" || fail "--predict-responses failed"
	xcapanalyse --predict-responses --rates 1M,10M --latencies 10,50 --format csv "$t" 2>/dev/null |
		cut -d, -f1-8,10 | awk -F, -v from="$from" 'NR == 1 || $4 >= from' >"$workdir/whole.csv"
	[ "$(wc -l <"$workdir/range.csv")" -gt 10 ] || fail "--range $from: too few inputs"
	same "--predict-responses --range $from:" "$workdir/whole.csv" "$workdir/range.csv"
done
check_end

check_begin "--conn does not move --range: it counts from the whole trace's first packet"
# The messages of connection 2 inside the range, as the whole listing
# shows them (its time column counts from the first packet it lists).
xcapanalyse --messages --format csv --range 0.1:0.105 "$x" |
	awk -F, 'NR == 1 || $2 == 2' | cut -d, -f2- >"$workdir/whole.csv"
xcapanalyse --messages --format csv --conn 2 --range 0.1:0.105 "$x" | cut -d, -f2- >"$workdir/conn.csv"
[ "$(wc -l <"$workdir/whole.csv")" -gt 5 ] || fail "too few messages in the range"
same "--messages --conn 2" "$workdir/whole.csv" "$workdir/conn.csv"
check_end
say "done"
