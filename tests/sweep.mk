# tests: the latency x bandwidth sweep (xcap-sweep)
dist_check_SCRIPTS += tests/sweep.sh tests/sweep-ssh.sh
TESTS += tests/sweep.sh tests/sweep-ssh.sh
