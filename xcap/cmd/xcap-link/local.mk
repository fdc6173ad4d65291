# xcap/cmd/xcap-link/ — the emulated link between two network
# namespaces over tun devices.  It needs nothing of the trace library.
bin_PROGRAMS += xcap/xcap-link
xcap_xcap_link_SOURCES = xcap/cmd/xcap-link/link.c
xcap_xcap_link_CPPFLAGS = $(AM_CPPFLAGS) $(INC_CMD)
xcap_xcap_link_LDADD = xcap/cmd/libcmd.a
dist_man_MANS += man/xcap-link.1
