#!/bin/sh
# ndjson-schema.sh — every NDJSON table has its published schema
# (data/schema/TABLE.schema.json, installed in $(pkgdatadir)/schema), and
# the real output of every view is valid against it: each row's columns
# are the schema's, of its types, none missing.
#
# The views are those of xcapanalyse's table, as its --help lists them
# (the list tests/help-man.sh holds to the man page and the completion),
# so a new view is checked here without a word added.  Each runs with
# --format ndjson on every capture of tests/captures (Wayland's views have
# their rows on waypipe-*) and on a trace xcap-run recorded with its call
# sites; --compare on four of them.  A view that writes a format of its
# own (VIEW_OWN_FORMAT) refuses --format and is named.  Claims: every
# view gives rows; no table is without a schema; every row is valid; every
# schema is met by at least one row, so no table goes unchecked.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xcapanalyse xcap-run Xvfb xdpyinfo xprop /usr/bin/python3
schemas=$top_srcdir/data/schema
cd "$workdir" || fail "no work directory"
cap=$top_srcdir/tests/captures
set -- "$cap"/*.pcap "$cap"/*.pcapng "$cap"/*.xcap

# A trace with call sites: xcap-run on a display of the test's own, with
# clients that fetch the same properties twice (the avoidable table) and
# ask for extensions one by one (the batchable table).
lib=$top_builddir/xcap/libxcapwait.so
[ -r "$lib" ] || fail "the call-site library is not built: $lib"
XCAP_WAIT_LIB=$lib XCAP_BINDIR=$top_builddir/xcapanalyse
export XCAP_WAIT_LIB XCAP_BINDIR
start_xvfb
xcap-run -q -w sites.xcap -- sh -c 'xdpyinfo >/dev/null && xprop -root >/dev/null && xprop -root >/dev/null' \
	>run.out 2>&1 || fail "xcap-run failed: $(cat run.out)"
[ -s sites.xcap.sites ] || fail "xcap-run recorded no call sites"

xcapanalyse --help | sed -n '/^Views/,/^$/p' | grep -o '^  --[a-z-]*' | sed 's/^ *//' >views
[ "$(wc -l <views)" -ge 10 ] || fail "xcapanalyse --help lists only $(wc -l <views) views"

# run NAME ARGS...: xcapanalyse ARGS --format ndjson into NAME.ndjson;
# a view of a format of its own goes into own.
n=0
run() {
	out=$1; shift
	xcapanalyse "$@" --format ndjson >"$out.ndjson" 2>"$out.err"
	st=$?
	n=$((n + 1))
	if [ $st = 2 ] && grep -q 'writes a format of its own' "$out.err"; then
		rm "$out.ndjson"
		echo "$1" >>own
		return 0
	fi
	# 1: some trace has nothing of the view (a note says so), 3: the gate
	[ $st -le 1 ] || [ $st -eq 3 ] || fail "xcapanalyse $* failed ($st): $(tail -3 "$out.err")"
}

check_begin "every view of --help writes NDJSON tables, or refuses --format as a view of its own format"
while read -r view; do
	name=${view#--}
	case $view in
	--sites) run "$name" "$view" sites.xcap ;;
	--compare) run "$name" "$view" "$cap/xterm-input.pcap" "$cap/xterm-late.pcap" "$cap/rfb-xvnc.pcap" \
		"$cap/xdpyinfo-xlogo.pcap" --fail-if-worse 5% ;;
	*) run "$name" "$view" "$@" sites.xcap ;;
	esac
done <views
# Options that give a view other tables or columns.
run requests-per-conn --requests --per-conn "$@"
run updates-quality --updates --ideal-fps 30 "$@"
say "$n runs of xcapanalyse; a format of its own: $(tr '\n' ' ' <own 2>/dev/null)"
check_end

check_begin "every view that writes NDJSON gives rows on the captures"
for f in ./*.ndjson; do
	[ -s "$f" ] || fail "$(basename "$f" .ndjson): no rows on any capture: unchecked"
done
check_end

check_begin "every row valid against its table's schema, no table without one, every schema met"
if /usr/bin/python3 "$top_srcdir/tests/ndjson-schema.py" "$schemas" ./*.ndjson >check.out 2>&1; then
	sed "s/^/$test_name: /" check.out
else
	fail "rows off their schema or tables without one: $(head -20 check.out)"
fi
grep -q ': no rows$' check.out && fail "a schema no row met: $(grep ': no rows$' check.out | tr '\n' ' ')"
check_end
say "$(cat ./*.ndjson | wc -l) rows of $(ls ./*.ndjson | wc -l) runs, $(ls "$schemas"/*.schema.json | wc -l) schemas"
exit 0
