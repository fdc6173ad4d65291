# xcapanalyse/ — the state model over trace records, and the command.
bin_PROGRAMS += xcapanalyse/xcapanalyse
xcapanalyse_xcapanalyse_SOURCES = xcapanalyse/xcapanalyse.c \
	xcapanalyse/output.c xcapanalyse/output.h \
	xcapanalyse/messages.c xcapanalyse/messages.h
xcapanalyse_xcapanalyse_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS)
xcapanalyse_xcapanalyse_LDADD = $(XCAP_LIBS)
dist_man_MANS += man/xcapanalyse.1
