# xcap/ — the capture layer's library (libxcap.a): ingest (libpcap live
# or file), link/IP/TCP decoding, connections, reassembly, the trace
# format.  Its programs each have a room of their own under xcap/cmd/
# (xcap, xcap-run, xcap-replay, xcap-link, xcap-sweep), and xcap/cmd/
# itself holds the kit every command of every layer shares (report.c,
# progress.c).  No library links a file of a room: tests/layers.sh.
# Include paths: this layer and protocols/.
INC_XCAP = $(INC_PROTOCOLS) -I$(top_srcdir)/xcap

noinst_LIBRARIES += xcap/libxcap.a
xcap_libxcap_a_CPPFLAGS = $(INC_XCAP)
xcap_libxcap_a_SOURCES = \
	xcap/record.h \
	xcap/decode.c xcap/decode.h \
	xcap/pipeline.c xcap/pipeline.h \
	xcap/pairing.c xcap/pairing.h \
	xcap/pcapfile.c xcap/pcapfile.h \
	xcap/source.c xcap/source.h \
	xcap/response_model.c xcap/response_model.h \
	xcap/units.c xcap/units.h \
	xcap/grow.c xcap/grow.h \
	xcap/clock.h \
	xcap/conns.c xcap/conns.h \
	xcap/wlmsg.c xcap/wlmsg.h
xcap_libxcap_a_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS) $(ZLIB_CFLAGS)
include xcap/trace.mk

# Everything that links the capture layer links these, in this order.
XCAP_LIBS = xcap/libxcap.a protocols/libprotocols.a $(PCAP_LIBS) $(ZLIB_LIBS)

include xcap/cmd/local.mk
include xcap/cmd/xcap/local.mk
include xcap/cmd/xcap-link/local.mk
include xcap/cmd/xcap-sweep/local.mk
include xcap/cmd/xcap-replay/local.mk
include xcap/cmd/xcap-run/local.mk
