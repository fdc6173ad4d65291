# tests/fuzz/libfuzzer.sh — sourced by the fuzz-*.sh tests after lib.sh.
#
# When clang and its libFuzzer are installed, a fuzz entry point is built
# with coverage feedback (-fsanitize=fuzzer,address,undefined) from the
# sources of the libraries it links, so that libFuzzer sees the coverage
# of the parsers themselves, and run for a bounded time; otherwise the
# tests fall back to tests/fuzz/driver.c's mutator, built by make.
#
#   lf_build NAME ARCHIVE...   build tests/fuzz/fuzz_NAME.c with the sources
#                              of the members of the archives (as built by
#                              make: libxcap_a-pipeline.o is xcap/pipeline.c);
#                              sets lf_bin, returns 1 without clang/libFuzzer
#   lf_run SEED-DIR...         run $lf_bin for $FUZZ_SECONDS (20) seconds over
#                              a copy of the seeds; prints libFuzzer's last
#                              cov: line; a crash fails the test, keeping
#                              the input that caused it in $workdir

lf_build() {
	name=$1; shift
	have libfuzzer || return 1
	# The libFuzzer build carries ASan and UBSan itself, so the plain pass
	# has run it; the sanitizer pass runs the plain mutator, built by make
	# with the sanitizers, rather than build and run the same thing twice.
	if sanitized; then
		echo "$test_name: the sanitizer build: the plain mutator (libFuzzer runs in the plain build)"
		return 1
	fi
	lf_bin="$top_builddir/tests/fuzz/lf-$name"
	srcs="$top_srcdir/tests/fuzz/fuzz_$name.c"
	for a in "$@"; do
		dir=$(dirname "$a")
		for o in $(ar t "$top_builddir/$a"); do
			base=${o#*-}
			base=${base%.o}
			if [ -f "$top_srcdir/$dir/$base.c" ]; then
				srcs="$srcs $top_srcdir/$dir/$base.c"
			else
				srcs="$srcs $top_builddir/$dir/$base.c"
			fi
		done
	done
	# Rebuilt only when a source or header is newer than the binary.
	if [ -x "$lf_bin" ] && [ -z "$(find "$top_srcdir/protocols" "$top_srcdir/xcap" \
	     "$top_srcdir/xcapanalyse" "$top_srcdir/tests/fuzz" $srcs -newer "$lf_bin" \
	     \( -name '*.c' -o -name '*.h' \) 2>/dev/null | head -1)" ]; then
		return 0
	fi
	# shellcheck disable=SC2086
	clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-I"$top_builddir" -I"$top_builddir/protocols" -I"$top_srcdir/protocols" \
		-I"$top_srcdir/xcap" -I"$top_srcdir/xcapanalyse" $(pkg-config --cflags libpcap 2>/dev/null) \
		-o "$lf_bin" $srcs -lpcap -lz $(pkg-config --libs libdw 2>/dev/null) -lm 2>"$workdir/lf-build.log" || {
		echo "$test_name: libFuzzer build failed, using the plain mutator:"
		sed 's/^/  /' "$workdir/lf-build.log" | head -20
		rm -f "$lf_bin"
		return 1
	}
}

lf_run() {
	mkdir -p "$workdir/lf-corpus" "$workdir/lf-crash"
	"$lf_bin" -max_total_time="${FUZZ_SECONDS:-20}" -max_len=65536 -timeout=10 -rss_limit_mb=1024 \
		-print_final_stats=1 -artifact_prefix="$workdir/lf-crash/" \
		"$workdir/lf-corpus" "$@" >"$workdir/lf.log" 2>&1
	status=$?
	echo "$test_name: libFuzzer, ${FUZZ_SECONDS:-20} s: $(grep -E '^#[0-9]+.*cov:' "$workdir/lf.log" | tail -1)"
	grep -E '^stat::(number_of_executed_units|new_units_added)' "$workdir/lf.log" | sed "s/^/$test_name: /"
	if [ $status -ne 0 ] || [ -n "$(ls "$workdir/lf-crash")" ]; then
		grep -E 'ERROR|SUMMARY|runtime error' "$workdir/lf.log" | head -5
		keep_workdir=1
		fail "libFuzzer found a problem: $(ls "$workdir/lf-crash") (kept in $workdir/lf-crash)"
	fi
	return 0
}
