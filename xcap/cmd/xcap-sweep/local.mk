# xcap/cmd/xcap-sweep/ — the latency x bandwidth sweep, a shell script;
# the version is filled in at build time, and it is built into the build
# tree beside the other commands so the tests find it on PATH.
bin_SCRIPTS += xcap/xcap-sweep
EXTRA_DIST += xcap/cmd/xcap-sweep/xcap-sweep.in
CLEANFILES += xcap/xcap-sweep
dist_man_MANS += man/xcap-sweep.1
xcap/xcap-sweep: $(srcdir)/xcap/cmd/xcap-sweep/xcap-sweep.in Makefile
	$(AM_V_GEN)$(MKDIR_P) xcap && \
	$(SED) -e 's|@VERSION''@|$(PACKAGE_VERSION)|g' $(srcdir)/xcap/cmd/xcap-sweep/xcap-sweep.in >$@.tmp && \
	chmod +x $@.tmp && mv -f $@.tmp $@
