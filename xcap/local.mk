# xcap/ — ingest, link/IP/TCP decoding, connections, reassembly, the trace
# format, and the xcap command.
# Include paths: this layer and protocols/.
INC_XCAP = $(INC_PROTOCOLS) -I$(top_srcdir)/xcap

noinst_LIBRARIES += xcap/libxcap.a
xcap_libxcap_a_CPPFLAGS = $(INC_XCAP)
xcap_libxcap_a_SOURCES = \
	xcap/record.h \
	xcap/cut.c xcap/cut.h \
	xcap/decode.c xcap/decode.h \
	xcap/pipeline.c xcap/pipeline.h \
	xcap/pairing.c xcap/pairing.h \
	xcap/pcapfile.c xcap/pcapfile.h \
	xcap/source.c xcap/source.h \
	xcap/ring.c xcap/ring.h \
	xcap/flight.c xcap/flight.h \
	xcap/response_model.c xcap/response_model.h \
	xcap/session.c xcap/session.h
xcap_libxcap_a_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS)
include xcap/trace.mk

# Everything that links the capture layer links these, in this order.
XCAP_LIBS = xcap/libxcap.a protocols/libprotocols.a $(PCAP_LIBS)

bin_PROGRAMS += xcap/xcap
# report.c is for commands only (die() ends the program): it is in no
# library, so no library code can call it.
xcap_xcap_SOURCES = xcap/xcap.c xcap/report.c xcap/report.h
xcap_xcap_CPPFLAGS = $(INC_XCAP)
xcap_xcap_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS)
xcap_xcap_LDADD = $(XCAP_LIBS)
dist_man_MANS += man/xcap.1

include xcap/link.mk
include xcap/run.mk
