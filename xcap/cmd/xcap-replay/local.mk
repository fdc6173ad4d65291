# xcap/cmd/xcap-replay/ — records the inputs of a capture into a session
# file (session.c, xcap-session(5)) and plays it back.  session.c is a
# library of the room's own so its unit test and fuzzer can link it.
INC_XCAP_REPLAY = $(INC_XCAP) $(INC_CMD) -I$(top_srcdir)/xcap/cmd/xcap-replay

noinst_LIBRARIES += xcap/cmd/xcap-replay/libsession.a
xcap_cmd_xcap_replay_libsession_a_CPPFLAGS = $(INC_XCAP_REPLAY)
xcap_cmd_xcap_replay_libsession_a_CFLAGS = $(AM_CFLAGS) $(PCAP_CFLAGS)
xcap_cmd_xcap_replay_libsession_a_SOURCES = \
	xcap/cmd/xcap-replay/session.c xcap/cmd/xcap-replay/session.h

bin_PROGRAMS += xcap/xcap-replay
xcap_xcap_replay_SOURCES = xcap/cmd/xcap-replay/replay.c
xcap_xcap_replay_CPPFLAGS = $(INC_XCAP_REPLAY)
xcap_xcap_replay_CFLAGS = $(AM_CFLAGS) $(XCB_REPLAY_CFLAGS)
xcap_xcap_replay_LDADD = xcap/cmd/xcap-replay/libsession.a xcap/cmd/libcmd.a $(XCAP_LIBS) $(XCB_REPLAY_LIBS)
dist_man_MANS += man/xcap-replay.1 man/xcap-session.5
