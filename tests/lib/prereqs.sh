# tests/lib/prereqs.sh — what a test needs of the machine before it runs;
# a missing one skips the test with the reason.
#
# Belongs to: the tests' shell library (sourced by tests/lib.sh).

need() {
	for cmd in "$@"; do
		command -v "$cmd" >/dev/null 2>&1 || skip "needs $cmd"
	done
}

need_root() { [ "$(id -u)" = 0 ] || skip "needs root to capture"; }

# sanitized: the tools under test were built with ASan and UBSan (the
# second pass of ./bootstrap check), which run them 2-3 times slower.
sanitized() { [ -n "${XCAP_SANITIZERS:-}" ]; }
