# tests: the flight recorder (xcap --ring) and marks.
check_PROGRAMS += tests/check_flight
tests_check_flight_SOURCES = tests/check_flight.c
tests_check_flight_CPPFLAGS = $(INC_TESTS)
tests_check_flight_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_flight_LDADD = xcap/cmd/xcap/libcapture.a $(XCAP_LIBS) $(CHECK_LIBS)
TESTS += tests/check_flight

# A live capture with a ring through a scripted xterm session, a client's
# mark in the middle and SIGUSR2; FLIGHT_SECONDS sets its length (about 60
# by default), `make long-flight` runs it for the ten minutes the issue
# asks for.
dist_check_SCRIPTS += tests/flight.sh
EXTRA_DIST += tests/xmark.py tests/captures/xmark-xprop.pcap
TESTS += tests/flight.sh

long-flight: all $(check_PROGRAMS)
	FLIGHT_SECONDS=600 $(MAKE) $(AM_MAKEFLAGS) check TESTS=tests/flight.sh
.PHONY: long-flight

# The response-time trigger against a client whose slowness is chosen.
dist_check_SCRIPTS += tests/flight-response.sh
TESTS += tests/flight-response.sh
EXTRA_DIST += tests/slow-answer.c

# The response trigger on a capture with losses: uncertain marks say so.
dist_check_SCRIPTS += tests/flight-uncertain.sh
TESTS += tests/flight-uncertain.sh
