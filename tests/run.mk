# xcap-run: the relay, the call sites, on a Unix-socket display.
dist_check_SCRIPTS += tests/run-sites.sh
TESTS += tests/run-sites.sh
