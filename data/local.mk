# data/ — what installs beside the programs: the demo on the installed
# commands (it is also the packages' autopkgtest), and below, when netplot
# is built, its desktop integration.  The demo reuses the tests' helpers
# unchanged: tests/demo.sh finds tests/lib.sh beside it, and the build
# directory it is given (the demo's own directory) has no programs in it,
# so the installed ones on PATH run.
demodir = $(pkgdatadir)
dist_demo_SCRIPTS = data/demo
demotestsdir = $(pkgdatadir)/tests
dist_demotests_SCRIPTS = tests/demo.sh
dist_demotests_DATA = tests/lib.sh
