# xcap-run: the relay, the call sites, on a Unix-socket display.
dist_check_SCRIPTS += tests/run-sites.sh
TESTS += tests/run-sites.sh

# What recording stacks costs an application's start-up: figures only.
EXTRA_DIST += tests/bench-run.sh
bench: bench-run
bench-run: all
	$(SHELL) $(top_srcdir)/tests/bench-run.sh $(abs_top_builddir)
.PHONY: bench-run
