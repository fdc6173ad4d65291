# xcap/cmd/xcap/ — the xcap command: live capture and pcap conversion
# (xcap.c), the kernel's cutting of X11 payloads (cut.c, given to the
# pipeline as a struct pipeline_cutter), the ring of packets (ring.c)
# and the flight recorder (flight.c).  The private parts are a library
# of the room's own so the unit tests can link them; only xcap links it.
INC_XCAP_XCAP = $(INC_XCAP) $(INC_CMD) -I$(top_srcdir)/xcap/cmd/xcap

noinst_LIBRARIES += xcap/cmd/xcap/libcapture.a
xcap_cmd_xcap_libcapture_a_CPPFLAGS = $(INC_XCAP_XCAP)
xcap_cmd_xcap_libcapture_a_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS)
xcap_cmd_xcap_libcapture_a_SOURCES = \
	xcap/cmd/xcap/cut.c xcap/cmd/xcap/cut.h \
	xcap/cmd/xcap/ring.c xcap/cmd/xcap/ring.h \
	xcap/cmd/xcap/flight.c xcap/cmd/xcap/flight.h

bin_PROGRAMS += xcap/xcap
xcap_xcap_SOURCES = xcap/cmd/xcap/xcap.c
xcap_xcap_CPPFLAGS = $(INC_XCAP_XCAP)
xcap_xcap_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS)
xcap_xcap_LDADD = xcap/cmd/xcap/libcapture.a xcap/cmd/libcmd.a $(XCAP_LIBS)
dist_man_MANS += man/xcap.1
