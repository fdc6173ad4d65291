#!/bin/sh
# fuzz-pcap.sh — a short, reproducible fuzzing run of capture ingest
# (pcap/pcapng parsing, link decoding, reassembly, decoders), seeded with
# the real captures of the suite.  Under the sanitizer build any memory or
# undefined-behaviour error fails the test.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/fuzz/libfuzzer.sh"
if lf_build pcap xcap/libxcap.a protocols/libprotocols.a; then
	lf_run "$top_srcdir/tests/captures" "$top_srcdir/tests/fuzz/corpus/pcap"
	exit 0
fi
"$top_builddir/tests/fuzz/fuzz-pcap" -runs="${FUZZ_RUNS:-3000}" -seed=7 -max_len=65536 \
	"$top_srcdir/tests/captures" || fail "fuzz-pcap found a problem"
