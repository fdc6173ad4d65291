# xcap/cmd/ — what every command of every layer shares and no library
# may use: die() and complain() end or name the program (report.c), and
# the progress line on a terminal (progress.c).  Each command links
# libcmd.a; a command of a higher layer gets INC_CMD beside its layer's
# include paths.
INC_CMD = -I$(top_srcdir)/xcap/cmd

noinst_LIBRARIES += xcap/cmd/libcmd.a
xcap_cmd_libcmd_a_CPPFLAGS = $(AM_CPPFLAGS) $(INC_CMD)
xcap_cmd_libcmd_a_SOURCES = \
	xcap/cmd/report.c xcap/cmd/report.h \
	xcap/cmd/parts.c xcap/cmd/parts.h \
	xcap/cmd/progress.c xcap/cmd/progress.h
