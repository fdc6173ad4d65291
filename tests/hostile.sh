#!/bin/sh
# hostile.sh — random bytes, truncated captures and truncated traces give
# a clear message naming the program and the file, exit status 1, never a
# crash; and whatever precedes the damage is still read.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
sample="$top_srcdir/tests/captures/xdpyinfo-xlogo.pcap"
w=$workdir

# expect_damaged PROG FILE ARGS...: exit 1 and a message "PROG: ... 'FILE'"
expect_damaged() {
	prog=$1; file=$2; shift 2
	"$prog" "$@" >"$w/out" 2>"$w/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$prog $*: exit status $rc, expected 1 ($(cat "$w/err"))"
	grep -q "^$prog: .*'$file'" "$w/err" || fail "$prog $*: unclear message: $(cat "$w/err")"
}

# Random bytes, several seeds and sizes.
check_begin "random bytes: status 1 and a message naming the file, from xcapanalyse and xcap -r"
for seed in 1 2 3 4 5; do
	awk -v s=$seed 'BEGIN { srand(s); n = 100 + s * 997;
		for (i = 0; i < n; i++) printf "%c", int(rand() * 256) }' >"$w/random$seed"
	expect_damaged xcapanalyse "$w/random$seed" --dump "$w/random$seed"
	expect_damaged xcap "$w/random$seed" -q -r "$w/random$seed" -w "$w/r.xcap"
done
check_end
check_begin "an empty file and a missing one: status 1 and a message naming the file"
: >"$w/empty"
expect_damaged xcapanalyse "$w/empty" --dump "$w/empty"
expect_damaged xcapanalyse "$w/missing" --dump "$w/missing"
check_end

# Random bytes behind a valid pcap header: every record is nonsense.
head -c 24 "$sample" >"$w/hdr-random"
cat "$w/random5" >>"$w/hdr-random"
check_begin "a pcap header before random bytes: no crash"
xcapanalyse --dump "$w/hdr-random" >/dev/null 2>"$w/err"
rc=$?
[ $rc -le 1 ] || fail "pcap header + random bytes: exit status $rc"
check_end

# Truncated pcaps: what precedes the cut reads exactly as in the whole file.
xcapanalyse --dump "$sample" | grep '^pkt ' >"$w/full.pkt" || fail "cannot read the sample"
size=$(wc -c <"$sample")
check_begin "a pcap cut anywhere: status 1, and what precedes the cut reads as in the whole file"
for cut in 23 40 100 1000 5000 20000 $((size - 7)); do
	head -c $cut "$sample" >"$w/cut.pcap"
	expect_damaged xcapanalyse "$w/cut.pcap" --dump "$w/cut.pcap"
	grep '^pkt ' "$w/out" >"$w/cut.pkt"
	n=$(wc -l <"$w/cut.pkt")
	head -n "$n" "$w/full.pkt" | cmp -s - "$w/cut.pkt" ||
		fail "pcap cut at $cut: the $n packets before the cut differ"
	[ $cut -lt 5000 ] || [ "$n" -gt 0 ] || fail "pcap cut at $cut: nothing read"
done
check_end

# Truncated traces, likewise.
xcap -q -r "$sample" -w "$w/full.xcap" || fail "xcap -r on the sample failed"
xcapanalyse --dump "$w/full.xcap" | grep '^pkt ' >"$w/fullx.pkt"
check "the sample's trace and pcap hold the same packets" cmp -s "$w/full.pkt" "$w/fullx.pkt"
size=$(wc -c <"$w/full.xcap")
check_begin "a trace cut anywhere: status 1, and what precedes the cut reads as in the whole trace"
for cut in 3 10 $((size / 3)) $((size / 2)) $((size - 1)); do
	head -c $cut "$w/full.xcap" >"$w/cut.xcap"
	expect_damaged xcapanalyse "$w/cut.xcap" --dump "$w/cut.xcap"
	grep '^pkt ' "$w/out" >"$w/cut.pkt"
	n=$(wc -l <"$w/cut.pkt")
	head -n "$n" "$w/fullx.pkt" | cmp -s - "$w/cut.pkt" ||
		fail "trace cut at $cut: the $n packets before the cut differ"
done
check_end

# A flipped byte in the middle of a trace: reported, the rest still read.
cp "$w/full.xcap" "$w/flip.xcap"
printf '\377' | dd of="$w/flip.xcap" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
check_begin "a flipped byte in a trace: status 1 and a message naming the file"
expect_damaged xcapanalyse "$w/flip.xcap" --dump "$w/flip.xcap"
check_end
