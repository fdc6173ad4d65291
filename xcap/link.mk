# The emulated link and the latency x bandwidth sweep.
bin_PROGRAMS += xcap/xcap-link
xcap_xcap_link_SOURCES = xcap/link.c xcap/report.c xcap/report.h
xcap_xcap_link_CPPFLAGS = $(INC_XCAP)
xcap_xcap_link_LDADD = xcap/libxcap.a
dist_man_MANS += man/xcap-link.1

# xcap-sweep is a shell script; the version is filled in at build time,
# and it is built into the build tree so the tests find it on PATH.
bin_SCRIPTS += xcap/xcap-sweep
EXTRA_DIST += xcap/xcap-sweep.in
CLEANFILES += xcap/xcap-sweep
dist_man_MANS += man/xcap-sweep.1
xcap/xcap-sweep: $(srcdir)/xcap/xcap-sweep.in Makefile
	$(AM_V_GEN)$(MKDIR_P) xcap && \
	$(SED) -e 's|@VERSION''@|$(PACKAGE_VERSION)|g' $(srcdir)/xcap/xcap-sweep.in >$@.tmp && \
	chmod +x $@.tmp && mv -f $@.tmp $@

# Record an interactive session from a capture, and replay it.
bin_PROGRAMS += xcap/xcap-replay
xcap_xcap_replay_SOURCES = xcap/replay.c xcap/report.c xcap/report.h
xcap_xcap_replay_CPPFLAGS = $(INC_XCAP)
xcap_xcap_replay_CFLAGS = $(AM_CFLAGS) $(XCB_REPLAY_CFLAGS)
xcap_xcap_replay_LDADD = $(XCAP_LIBS) $(XCB_REPLAY_LIBS)
dist_man_MANS += man/xcap-replay.1 man/xcap-session.5
