# The state model: physics on emulated links, and tables that add up.
dist_check_SCRIPTS += tests/state-physics.sh
TESTS += tests/state-physics.sh
EXTRA_DIST += tests/xphysics.py tests/delays-check.py
dist_check_SCRIPTS += tests/state-tables.sh
TESTS += tests/state-tables.sh
EXTRA_DIST += tests/waits-count.py
