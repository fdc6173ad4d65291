# xcap/cmd/xcap-link/ — the emulated link between two network
# namespaces over tun devices.  Of the trace library it needs only the
# grammar of units (units.o; the archive gives it nothing else).
bin_PROGRAMS += xcap/xcap-link
xcap_xcap_link_SOURCES = xcap/cmd/xcap-link/link.c
xcap_xcap_link_CPPFLAGS = $(AM_CPPFLAGS) $(INC_CMD) $(INC_XCAP)
xcap_xcap_link_LDADD = xcap/cmd/libcmd.a xcap/libxcap.a
dist_man_MANS += man/xcap-link.1
