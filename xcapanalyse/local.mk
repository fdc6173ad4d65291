# xcapanalyse/ — the state model over trace records (a library netplot
# links too), and the command.
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
	xcapanalyse/added_delay.c xcapanalyse/added_delay.h
xcapanalyse_libanalyse_a_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS) $(LIBDW_CFLAGS)

bin_PROGRAMS += xcapanalyse/xcapanalyse
xcapanalyse_xcapanalyse_SOURCES = xcapanalyse/xcapanalyse.c xcap/report.c xcap/progress.c xcap/progress.h \
	xcapanalyse/messages.c xcapanalyse/messages.h \
	xcapanalyse/views.c xcapanalyse/views.h \
	xcapanalyse/events.c xcapanalyse/events.h \
	xcapanalyse/compare.c xcapanalyse/compare.h \
	xcapanalyse/responses_view.c \
	xcapanalyse/predict_view.c xcapanalyse/predict_view.h
xcapanalyse_xcapanalyse_CPPFLAGS = $(INC_ANALYSE)
xcapanalyse_xcapanalyse_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS) $(LIBDW_CFLAGS)
xcapanalyse_xcapanalyse_LDADD = xcapanalyse/libanalyse.a $(XCAP_LIBS) $(LIBDW_LIBS)
dist_man_MANS += man/xcapanalyse.1
