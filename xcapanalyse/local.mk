# xcapanalyse/ — the state model over trace records (a library netplot
# links too), and the command.
# Include paths: this layer and xcap/ (its trace reader and records),
# not protocols/: the trace's vocabulary is xcap/record.h.
INC_ANALYSE = $(AM_CPPFLAGS) -I$(top_srcdir)/xcapanalyse -I$(top_srcdir)/xcap

noinst_LIBRARIES += xcapanalyse/libanalyse.a
xcapanalyse_libanalyse_a_CPPFLAGS = $(INC_ANALYSE)
xcapanalyse_libanalyse_a_SOURCES = xcapanalyse/state.c xcapanalyse/state.h \
	xcapanalyse/predict.c xcapanalyse/predict.h
xcapanalyse_libanalyse_a_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS)

bin_PROGRAMS += xcapanalyse/xcapanalyse
xcapanalyse_xcapanalyse_SOURCES = xcapanalyse/xcapanalyse.c xcap/report.c xcap/progress.c xcap/progress.h \
	xcapanalyse/output.c xcapanalyse/output.h \
	xcapanalyse/messages.c xcapanalyse/messages.h \
	xcapanalyse/views.c xcapanalyse/views.h \
	xcapanalyse/sites.c xcapanalyse/sites.h \
	xcapanalyse/events.c xcapanalyse/events.h \
	xcapanalyse/predict_view.c xcapanalyse/predict_view.h
xcapanalyse_xcapanalyse_CPPFLAGS = $(INC_ANALYSE)
xcapanalyse_xcapanalyse_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS)
xcapanalyse_xcapanalyse_LDADD = xcapanalyse/libanalyse.a $(XCAP_LIBS)
dist_man_MANS += man/xcapanalyse.1
