# tests: the Wayland decoder and waypipe's framing — the tables against the
# XML, unit tests, real clients over waypipe, fuzzing.
check_PROGRAMS += tests/check_wayland
tests_check_wayland_SOURCES = tests/check_wayland.c
tests_check_wayland_CPPFLAGS = $(INC_TESTS)
tests_check_wayland_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_wayland_LDADD = protocols/libprotocols.a $(CHECK_LIBS)
TESTS += tests/check_wayland

check_PROGRAMS += tests/fuzz/fuzz-wayland
tests_fuzz_fuzz_wayland_SOURCES = tests/fuzz/fuzz_wayland.c tests/fuzz/driver.c tests/fuzz/chunks.h
tests_fuzz_fuzz_wayland_CPPFLAGS = $(INC_TESTS)
tests_fuzz_fuzz_wayland_LDADD = protocols/libprotocols.a

dist_check_SCRIPTS += tests/wayland-waypipe.sh tests/wayland-physics.sh tests/wayland-input.sh tests/wayland-photon.sh tests/wayland-decode.sh tests/fuzz-wayland.sh
TESTS += tests/wayland-waypipe.sh tests/wayland-physics.sh tests/wayland-input.sh tests/wayland-photon.sh tests/wayland-decode.sh tests/fuzz-wayland.sh
EXTRA_DIST += tests/bench-wayland.sh
EXTRA_DIST += tests/wayland-oracle.py tests/wayland-waits.py tests/wayland-input.py tests/wayland-photon.py tests/wl-photon.c tests/wl-keytime.c tests/wl-trips.c tests/wl-waits.c
EXTRA_DIST += tests/captures/waypipe-trips.pcap tests/captures/decode/waypipe-trips-midstream.pcap \
	tests/captures/waypipe-terminal-keys.xcap
EXTRA_DIST += tests/captures/waypipe-shm.pcap tests/captures/decode/waypipe-shm-midstream.pcap \
	tests/captures/wl-frame-relay.xcap tests/captures/wl-terminal-keys-relay.xcap
