# The emulated link and the latency x bandwidth sweep.
bin_PROGRAMS += xcap/xcap-link
xcap_xcap_link_SOURCES = xcap/link.c
xcap_xcap_link_LDADD = xcap/libxcap.a
dist_man_MANS += man/xcap-link.1
