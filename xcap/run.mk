# xcap-run: one application on a forwarding display the suite creates,
# its traffic recorded by the relay, its waits' stacks by libxcapwait.so.
bin_PROGRAMS += xcap/xcap-run
xcap_xcap_run_SOURCES = xcap/run.c xcap/report.c xcap/report.h
xcap_xcap_run_CPPFLAGS = $(INC_XCAP) -DXCAP_PKGLIBDIR='"$(pkglibdir)"' -DXCAP_BINDIR='"$(bindir)"'
xcap_xcap_run_LDADD = $(XCAP_LIBS)
dist_man_MANS += man/xcap-run.1

# The preload library goes into other programs: it is built without the
# user's CFLAGS, so that a sanitizer build does not put ASan into an
# application that was not built for it (it would refuse to start).
xcaplibdir = $(pkglibdir)
xcaplib_DATA = xcap/libxcapwait.so
EXTRA_DIST += xcap/xcapwait.c
CLEANFILES += xcap/libxcapwait.so
xcap/libxcapwait.so: $(srcdir)/xcap/xcapwait.c
	$(AM_V_CC)$(MKDIR_P) xcap && \
	$(CC) $(AM_CFLAGS) -O2 -g -fPIC -shared -o $@ $(srcdir)/xcap/xcapwait.c -ldl -lpthread
