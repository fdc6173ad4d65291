# Comparing runs (xcapanalyse --compare and its gate) and the pictures of
# responses (netplot --cdf, the inputs on the graph).
dist_check_SCRIPTS += tests/compare.sh
TESTS += tests/compare.sh
