# tests: link
dist_check_SCRIPTS += tests/link-accuracy.sh
TESTS += tests/link-accuracy.sh
EXTRA_DIST += tests/netns.sh
