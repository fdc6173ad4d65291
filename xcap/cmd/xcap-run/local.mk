# xcap/cmd/xcap-run/ — one application on a forwarding display the suite
# creates, its traffic recorded by the relay (run.c), its waits' stacks
# by the preload library libxcapwait.so (xcapwait.c).
bin_PROGRAMS += xcap/xcap-run
xcap_xcap_run_SOURCES = xcap/cmd/xcap-run/run.c \
	xcap/cmd/xcap-run/wlsocket.c xcap/cmd/xcap-run/wlsocket.h \
	xcap/cmd/xcap-run/wlaccount.c xcap/cmd/xcap-run/wlaccount.h
xcap_xcap_run_CPPFLAGS = $(INC_XCAP) $(INC_CMD) -DXCAP_PKGLIBDIR='"$(pkglibdir)"' -DXCAP_BINDIR='"$(bindir)"'
xcap_xcap_run_LDADD = xcap/cmd/libcmd.a $(XCAP_LIBS)
dist_man_MANS += man/xcap-run.1

# The preload library goes into other programs: it is built without the
# user's CFLAGS, so that a sanitizer build does not put ASan into an
# application that was not built for it (it would refuse to start).
# It is built beside the commands, where the tests look for it.
xcaplibdir = $(pkglibdir)
xcaplib_DATA = xcap/libxcapwait.so
EXTRA_DIST += xcap/cmd/xcap-run/xcapwait.c
CLEANFILES += xcap/libxcapwait.so
xcap/libxcapwait.so: $(srcdir)/xcap/cmd/xcap-run/xcapwait.c
	$(AM_V_CC)$(MKDIR_P) xcap && \
	$(CC) $(AM_CFLAGS) -O2 -g -fPIC -shared -o $@ $(srcdir)/xcap/cmd/xcap-run/xcapwait.c -ldl -lpthread
