# The trace format: writer, reader, the one-line text dump; xcap(5).
xcap_libxcap_a_SOURCES += \
	xcap/trace.c xcap/trace.h \
	xcap/dump.c xcap/dump.h
dist_man_MANS += man/xcap.5
