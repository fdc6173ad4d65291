#!/bin/sh
# fuzz-sites.sh — a short, reproducible fuzzing run of the call-site file
# reader and join (xcapanalyse --sites), seeded with lines as
# libxcapwait.so writes them.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
mkdir -p "$workdir/seeds"
printf 'wait 40000 3 1795474994.416625977 1795474994.457357168\txwininfo+0x3cb9\tlibc.so.6:__libc_start_main+0x85\n' \
	>"$workdir/seeds/xcb"
printf 'wait 40000 108 10.0 10.021\tlibX11.so.6:_XReply+0xdc\tlibX11.so.6:XInternAtom+0x93\tlibgdk-3.so.0:gdk_x11_atom_to_xatom_for_display+0xb1\tlibgtk-3.so.0+0x43d97a\nwait 40000 109 10.03 10.03\tlibxcb.so.1+0x10\n' \
	>"$workdir/seeds/xlib"
printf 'wait 64 1 1.0 2.0\tlibQt5XcbQpa.so.5:QXcbConnection::sync+0x1a\tlibstdc++.so.6+0x10\nwait x\n' \
	>"$workdir/seeds/qt"
printf 'module app /usr/bin/app\nmodule libc.so.6 /lib/libc.so.6\nwait 40000 5 1.0 2.0\tapp+0x1226@0x1226\tapp:main+0x30@0x1336\tlibc.so.6+0x2724a@0x2724a\nmodule x\n' \
	>"$workdir/seeds/lines"
printf 'wait 40000 4 1.0 2.0\tapp:title+0x1\nwait 40000 11 3.0 4.0\tapp:title+0x1\ndelete=1 window=0x1 property=WM_NAME type=STRING long_offset=16 atom=WM_NAME' \
	>"$workdir/seeds/property"
"$top_builddir/tests/fuzz/fuzz-sites" -runs="${FUZZ_RUNS:-3000}" -seed=11 -max_len=4096 \
	"$workdir/seeds" || fail "fuzz-sites found a problem"
