#!/bin/sh
# ndjson-schema.sh — every NDJSON table has its published schema
# (data/schema/TABLE.schema.json, installed in $(pkgdatadir)/schema), and
# the real output of every view, on every capture of tests/captures and on
# a trace xcap-run recorded with its call sites, is valid against it: each
# row's columns are the schema's, of its types, none missing.  Every
# schema is met by at least one row, so no table goes unchecked.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcapanalyse xcap-run Xvfb xdpyinfo xprop /usr/bin/python3
schemas=$top_srcdir/data/schema
cd "$workdir" || fail "no work directory"
set -- "$top_srcdir"/tests/captures/*.pcap "$top_srcdir"/tests/captures/*.pcapng \
	"$top_srcdir"/tests/captures/*.xcap
cap=$top_srcdir/tests/captures

# A trace with call sites: xcap-run on a display of the test's own, with
# clients that fetch the same properties twice (the avoidable table).
lib=$top_builddir/xcap/libxcapwait.so
[ -r "$lib" ] || fail "the call-site library is not built: $lib"
XCAP_WAIT_LIB=$lib XCAP_BINDIR=$top_builddir/xcapanalyse
export XCAP_WAIT_LIB XCAP_BINDIR
start_xvfb
xcap-run -q -w sites.xcap -- sh -c 'xdpyinfo >/dev/null && xprop -root >/dev/null && xprop -root >/dev/null' \
	>run.out 2>&1 || fail "xcap-run failed: $(cat run.out)"
[ -s sites.xcap.sites ] || fail "xcap-run recorded no call sites"

n=0
run() {	# run NAME ARGS...: xcapanalyse ARGS --format ndjson into NAME.ndjson
	out=$1; shift
	xcapanalyse "$@" --format ndjson >"$out.ndjson" 2>"$out.err"
	st=$?
	# 1: some trace has nothing of the view (a note says so), 3: the gate
	[ $st -le 1 ] || [ $st -eq 3 ] || fail "xcapanalyse $* failed ($st): $(tail -3 "$out.err")"
	n=$((n + 1))
}
for view in --delays --requests "--requests --per-conn" --round-trips --responses \
	--responses-summary --updates "--updates --ideal-fps 30" --connections --messages --marks \
	--predict --predict-round-trips --added-delay --added-delay-responses --added-delay-cdf; do
	# shellcheck disable=SC2086
	run "v$n" $view "$@"
done
run sites --sites sites.xcap
run sites-trips --round-trips sites.xcap
run compare --compare "$cap/xterm-input.pcap" "$cap/xterm-late.pcap" "$cap/rfb-xvnc.pcap" \
	"$cap/xdpyinfo-xlogo.pcap" --fail-if-worse 5%
/usr/bin/python3 "$top_srcdir/tests/ndjson-schema.py" "$schemas" ./*.ndjson >check.out 2>&1 ||
	fail "rows off their schema: $(head -20 check.out)"
sed "s/^/$test_name: /" check.out
grep -q ': no rows$' check.out && fail "a schema no row met: $(grep ': no rows$' check.out)"
say "$n runs of xcapanalyse, $(cat ./*.ndjson | wc -l) rows, each valid against its table's schema"
exit 0
