#!/bin/sh
# run-parts.sh — xcap-run finds its own parts next to itself (issue 28):
# from the build tree with no variable set it preloads the build's
# libxcapwait.so and runs the build's xcapanalyse; copied where its parts
# are not, it says which part it misses, before making a file or starting
# the application; an application that is not there is a usage error that
# leaves nothing behind.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need xdpyinfo
unset XCAP_WAIT_LIB XCAP_BINDIR
start_xvfb
run=$top_builddir/xcap/xcap-run

check_begin "from the build tree, with nothing set: the tables and the call sites"
(cd "$workdir" && "$run" -w t.xcap -- xdpyinfo >run.out 2>run.err)
st=$?
[ $st = 0 ] || fail "xcap-run exited $st: $(cat "$workdir/run.err")"
grep -q '^== delays' "$workdir/run.out" && grep -q '^Conn ' "$workdir/run.out" ||
	fail "no delay table: $(head -5 "$workdir/run.out")"
[ -s "$workdir/t.xcap.sites" ] || fail "no call sites: the preload library was not found"
check_end

check_begin "copied away from its parts: status 3 naming the part, nothing made"
mkdir "$workdir/alone"
cp "$run" "$workdir/alone/"
(cd "$workdir/alone" && ./xcap-run -- xdpyinfo >run.out 2>run.err)
st=$?
[ $st = 3 ] || fail "exited $st, not 3: $(cat "$workdir/alone/run.err")"
grep -q "^xcap-run: cannot find the call-site library (looked in .*): 'libxcapwait.so'\$" \
	"$workdir/alone/run.err" || fail "no message naming the library: $(cat "$workdir/alone/run.err")"
ls "$workdir/alone" | grep -q '\.xcap' && fail "files left behind: $(ls "$workdir/alone")"
cp "$top_builddir/xcap/libxcapwait.so" "$workdir/alone/"
(cd "$workdir/alone" && ./xcap-run -- xdpyinfo >run.out 2>run.err)
st=$?
[ $st = 3 ] || fail "without xcapanalyse: exited $st, not 3: $(cat "$workdir/alone/run.err")"
grep -q "^xcap-run: cannot find the program that makes the tables (looked in .*): 'xcapanalyse'\$" \
	"$workdir/alone/run.err" || fail "no message naming xcapanalyse: $(cat "$workdir/alone/run.err")"
ls "$workdir/alone" | grep -q '\.xcap' && fail "files left behind: $(ls "$workdir/alone")"
check_end

check_begin "an application that is not there: status 2, nothing made"
(cd "$workdir/alone" && "$run" -- nosuchprogram-$$ >run.out 2>run.err)
st=$?
[ $st = 2 ] || fail "exited $st, not 2: $(cat "$workdir/alone/run.err")"
grep -q "^xcap-run: no such application .*: 'nosuchprogram-$$'\$" "$workdir/alone/run.err" ||
	fail "no message naming the application: $(cat "$workdir/alone/run.err")"
[ -s "$workdir/alone/run.out" ] && fail "it printed: $(cat "$workdir/alone/run.out")"
ls "$workdir/alone" | grep -q '\.xcap' && fail "files left behind: $(ls "$workdir/alone")"
check_end
