# xcap/cmd/xcap-sweep/ — the latency x bandwidth sweep, a shell script;
# the version and where its library installs are filled in at build time,
# and it is built into the build tree beside the other commands so the
# tests find it on PATH.  Its namespace set-up, netns.sh, which the tests
# share (tests/netns.sh), installs in pkgdatadir and is copied beside the
# built script, where the sweep looks first (and the tests find it).
bin_SCRIPTS += xcap/xcap-sweep
EXTRA_DIST += xcap/cmd/xcap-sweep/xcap-sweep.in
CLEANFILES += xcap/xcap-sweep xcap/netns.sh
dist_man_MANS += man/xcap-sweep.1
dist_pkgdata_DATA += xcap/cmd/xcap-sweep/netns.sh
noinst_DATA += xcap/netns.sh
xcap/xcap-sweep: $(srcdir)/xcap/cmd/xcap-sweep/xcap-sweep.in Makefile
	$(AM_V_GEN)$(MKDIR_P) xcap && \
	$(SED) -e 's|@VERSION''@|$(PACKAGE_VERSION)|g' -e 's|@pkgdatadir''@|$(pkgdatadir)|g' \
		$(srcdir)/xcap/cmd/xcap-sweep/xcap-sweep.in >$@.tmp && \
	chmod +x $@.tmp && mv -f $@.tmp $@
xcap/netns.sh: $(srcdir)/xcap/cmd/xcap-sweep/netns.sh
	$(AM_V_GEN)$(MKDIR_P) xcap && cp $(srcdir)/xcap/cmd/xcap-sweep/netns.sh $@
