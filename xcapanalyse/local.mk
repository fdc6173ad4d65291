# xcapanalyse/ — the analysis layer's library (libanalyse.a, which
# netplot links too): the state model, responses, call sites, the table
# writer, prediction and the added-delay replay.  The command and its
# views have their room in xcapanalyse/cmd/xcapanalyse/.
# Include paths: this layer and xcap/ (its trace reader and records),
# not protocols/: the trace's vocabulary is xcap/record.h.
INC_ANALYSE = $(AM_CPPFLAGS) -I$(top_srcdir)/xcapanalyse -I$(top_srcdir)/xcap

noinst_LIBRARIES += xcapanalyse/libanalyse.a
xcapanalyse_libanalyse_a_CPPFLAGS = $(INC_ANALYSE)
# sites.c and output.c are here too: netplot shows a round trip's stack.
xcapanalyse_libanalyse_a_SOURCES = xcapanalyse/state.c xcapanalyse/state.h \
	xcapanalyse/responses.c xcapanalyse/responses.h \
	xcapanalyse/sites.c xcapanalyse/sites.h \
	xcapanalyse/output.c xcapanalyse/output.h \
	xcapanalyse/predict.c xcapanalyse/predict.h \
	xcapanalyse/added_delay.c xcapanalyse/added_delay.h \
	xcapanalyse/rtt.c xcapanalyse/rtt.h \
	xcapanalyse/tcpstats.c xcapanalyse/tcpstats.h
xcapanalyse_libanalyse_a_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS) $(LIBDW_CFLAGS)

include xcapanalyse/cmd/xcapanalyse/local.mk
