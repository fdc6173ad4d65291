# xcapanalyse/cmd/xcapanalyse/ — the command: its options and the reading
# (xcapanalyse.c), the table of views (view.h, viewtable.c), and the views
# that only it prints.
INC_ANALYSE_CMD = $(INC_ANALYSE) $(INC_CMD) -I$(top_srcdir)/xcapanalyse/cmd/xcapanalyse

bin_PROGRAMS += xcapanalyse/xcapanalyse
xcapanalyse_xcapanalyse_SOURCES = xcapanalyse/cmd/xcapanalyse/xcapanalyse.c \
	xcapanalyse/cmd/xcapanalyse/view.h xcapanalyse/cmd/xcapanalyse/viewtable.c \
	xcapanalyse/cmd/xcapanalyse/conns_view.c xcapanalyse/cmd/xcapanalyse/tcpstats_view.c \
	xcapanalyse/cmd/xcapanalyse/frames_view.c xcapanalyse/cmd/xcapanalyse/photon_view.c \
	xcapanalyse/cmd/xcapanalyse/messages.c xcapanalyse/cmd/xcapanalyse/messages.h \
	xcapanalyse/cmd/xcapanalyse/views.c xcapanalyse/cmd/xcapanalyse/views.h \
	xcapanalyse/cmd/xcapanalyse/events.c xcapanalyse/cmd/xcapanalyse/events.h \
	xcapanalyse/cmd/xcapanalyse/compare.c xcapanalyse/cmd/xcapanalyse/compare.h \
	xcapanalyse/cmd/xcapanalyse/responses_view.c \
	xcapanalyse/cmd/xcapanalyse/predict_view.c xcapanalyse/cmd/xcapanalyse/predict_view.h
xcapanalyse_xcapanalyse_CPPFLAGS = $(INC_ANALYSE_CMD)
xcapanalyse_xcapanalyse_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS) $(LIBDW_CFLAGS)
xcapanalyse_xcapanalyse_LDADD = xcapanalyse/libanalyse.a xcap/cmd/libcmd.a $(XCAP_LIBS) $(LIBDW_LIBS) -lm
dist_man_MANS += man/xcapanalyse.1
