# tests: the X11 decoder — unit tests, tshark as an oracle, fuzzing.
check_PROGRAMS += tests/check_x11
tests_check_x11_SOURCES = tests/check_x11.c
tests_check_x11_CPPFLAGS = $(INC_TESTS)
tests_check_x11_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_x11_LDADD = protocols/libprotocols.a $(CHECK_LIBS)
TESTS += tests/check_x11

check_PROGRAMS += tests/fuzz/fuzz-x11
tests_fuzz_fuzz_x11_SOURCES = tests/fuzz/fuzz_x11.c tests/fuzz/driver.c tests/fuzz/chunks.h
tests_fuzz_fuzz_x11_CPPFLAGS = $(INC_TESTS)
tests_fuzz_fuzz_x11_LDADD = protocols/libprotocols.a

dist_check_SCRIPTS += tests/x11-oracle.sh tests/x11-truth.sh tests/x11-lossy.sh tests/x11-holes.sh tests/x11-lossy-images.sh \
	tests/x11-holes-accounting.sh tests/x11-late-count.sh \
	tests/fuzz-x11.sh
TESTS += tests/x11-oracle.sh tests/x11-truth.sh tests/x11-lossy.sh tests/x11-holes.sh tests/x11-lossy-images.sh tests/fuzz-x11.sh \
	tests/x11-holes-accounting.sh tests/x11-late-count.sh
EXTRA_DIST += tests/x11-compare.py tests/xclient.py tests/x11-truth.py tests/dumpfile.py \
	tests/x11-lossy-compare.py tests/x11-holes-compare.py tests/seq-shift.py tests/snap-compare.py tests/captures/x11perf-two-conns.pcap \
	tests/captures/x11perf-late.pcap tests/captures/x11perf-getimage-late.pcap tests/captures/xterm-late.pcap \
	tests/captures/x11-unused.pcap \
	tests/captures/wm-class-twice.pcap tests/wm-class-twice.py \
	tests/fuzz/libfuzzer.sh tests/fuzz/corpus

check_PROGRAMS += tests/check_cursor
tests_check_cursor_SOURCES = tests/check_cursor.c
tests_check_cursor_CPPFLAGS = $(INC_TESTS)
tests_check_cursor_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_cursor_LDADD = $(CHECK_LIBS)
TESTS += tests/check_cursor
