# Long runs: xcap live for minutes with -G rotation (SOAK_SECONDS to
# lengthen it), files continuous across rotations, memory flat, a SIGKILL
# leaving every file readable.
dist_check_SCRIPTS += tests/soak.sh
TESTS += tests/soak.sh
