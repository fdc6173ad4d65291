# tests: the shared helpers of xcap/: the one grammar of units (units.h),
# as a table (check_units) and through every command (units.sh)
check_PROGRAMS += tests/check_units
tests_check_units_SOURCES = tests/check_units.c
tests_check_units_CPPFLAGS = $(INC_TESTS)
tests_check_units_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_units_LDADD = xcap/libxcap.a $(CHECK_LIBS)
TESTS += tests/check_units
dist_check_SCRIPTS += tests/units.sh
TESTS += tests/units.sh
# the one connection table and the one growable array
check_PROGRAMS += tests/check_conns
tests_check_conns_SOURCES = tests/check_conns.c
tests_check_conns_CPPFLAGS = $(INC_TESTS)
tests_check_conns_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_conns_LDADD = xcap/libxcap.a $(CHECK_LIBS)
TESTS += tests/check_conns
