# tests: what users install — the Debian packages (tests/package.sh builds,
# lintians, installs and runs them; it takes a few minutes: the tree is
# built once more).
dist_check_SCRIPTS += tests/package.sh tests/desktop.sh tests/completion.sh tests/help-man.sh tests/progress.sh \
	tests/completion-zsh.sh
TESTS += tests/package.sh tests/desktop.sh tests/completion.sh tests/help-man.sh tests/progress.sh \
	tests/completion-zsh.sh
EXTRA_DIST += tests/package-root.sh
