#!/bin/sh
# fuzz-session.sh — a short, reproducible fuzzing run of the session file
# reader (xcap-replay's input), seeded with sessions as xcap-replay record
# writes them; what reads must write back and read the same.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
mkdir -p "$workdir/seeds"
printf 'xcap-session 1\n# time_s kind code root_x root_y state window event_x event_y response\nprotocol x11\nsource a.pcap\nclient xterm XTerm\nconnection 1\n0.000000 key-press 26 100 80 0x0 0x200018 79 49 3\n0.023543 key-release 26 100 80 0x0 0x200018 79 49 0\n1.5 button-press 2 100 80 0x4 0x20000c 80 50 -\n1.9 motion 0 100 134 0x204 0x400001 - - 7\n' \
	>"$workdir/seeds/x11"
printf 'xcap-session 1\nprotocol rfb\nscreen 128 96\n0.000000 pointer 0 40 40 0x1 - 40 40 0\n0.043322 key-press 97 - - 0x0 - - - 2\n0.1 key-release 0xff0d - - 0 - - - -\n' \
	>"$workdir/seeds/rfb"
"$top_builddir/tests/fuzz/fuzz-session" -runs="${FUZZ_RUNS:-3000}" -seed=16 -max_len=4096 \
	"$workdir/seeds" || fail "fuzz-session found a problem"
