# tests/lib/prereqs.sh — what a test needs of the machine before it runs,
# in one table; a missing one skips the test with the reason.
#
# Belongs to: the tests' shell library (sourced by tests/lib.sh).

# prereq_missing NAME: nothing when this machine has NAME; otherwise why
# not, as the skip reason.  NAME is one of the table's, or pkg-config:MOD
# (a library's development files), or else a command on PATH (or a path).
prereq_missing() {
	case $1 in
	root) [ "$(id -u)" = 0 ] || echo "needs root (to capture, or for network namespaces)" ;;
	tun) [ -c /dev/net/tun ] || echo "no /dev/net/tun (the tun driver)" ;;
	netns)	# make_link in tests/netns.sh, and the tests' own namespaces
		prereq_missing root
		prereq_missing ip
		[ "$(id -u)" = 0 ] && command -v ip >/dev/null 2>&1 || return 0
		_pr_ns=xcap-probe-$$
		if ip netns add "$_pr_ns" 2>"$workdir/.netns.err"; then
			ip netns del "$_pr_ns"
		else
			echo "cannot create a network namespace: $(cat "$workdir/.netns.err")"
		fi ;;
	realtime) command -v chrt >/dev/null 2>&1 && chrt -f 20 true 2>/dev/null ||
		echo "no chrt or no real-time priority" ;;
	libfuzzer)	# tests/fuzz/libfuzzer.sh; XCAP_NO_LIBFUZZER=1 asks for the plain mutator
		command -v clang >/dev/null 2>&1 || echo "no clang (for libFuzzer)"
		[ -z "${XCAP_NO_LIBFUZZER:-}" ] || echo "XCAP_NO_LIBFUZZER is set" ;;
	bash-completion) [ -f /usr/share/bash-completion/bash_completion ] ||
		echo "needs bash-completion (/usr/share/bash-completion/bash_completion)" ;;
	sshd) [ -x "$(command -v sshd 2>/dev/null || echo /usr/sbin/sshd)" ] || echo "needs sshd" ;;
	git-checkout) git -C "$top_srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
		echo "the source tree is not a git checkout" ;;
	python3-gtk) /usr/bin/python3 -c 'import gi; gi.require_version("Gtk", "3.0"); from gi.repository import Gtk' \
		2>/dev/null || echo "needs Python's GTK 3 bindings (python3-gi, gir1.2-gtk-3.0)" ;;
	pkg-config:*) pkg-config --exists "${1#pkg-config:}" 2>/dev/null ||
		echo "no ${1#pkg-config:} development files (pkg-config ${1#pkg-config:})" ;;
	# Commands whose package is not named after them.
	Xvfb) command -v Xvfb >/dev/null 2>&1 || echo "needs Xvfb (package xvfb)" ;;
	Xvnc) command -v Xvnc >/dev/null 2>&1 || echo "needs Xvnc (TigerVNC's server, tigervnc-standalone-server)" ;;
	xtigervncviewer) command -v xtigervncviewer >/dev/null 2>&1 ||
		echo "needs xtigervncviewer (tigervnc-viewer)" ;;
	tshark) command -v tshark >/dev/null 2>&1 || echo "needs tshark (Wireshark's command line)" ;;
	*) command -v "$1" >/dev/null 2>&1 || echo "needs $1" ;;
	esac
}

# need NAME...: skip unless this machine has each (prereq_missing).
need() {
	for _need in "$@"; do
		_need_why=$(prereq_missing "$_need")
		[ -z "$_need_why" ] || skip "$_need_why"
	done
}

# have NAME: true when the machine has it, for a test that does without.
have() { [ -z "$(prereq_missing "$1")" ]; }

# need_root: the old spelling of need root.
need_root() { need root; }

# sanitized: the tools under test were built with ASan and UBSan (the
# second pass of ./bootstrap check), which run them 2-3 times slower.
sanitized() { [ -n "${XCAP_SANITIZERS:-}" ]; }
