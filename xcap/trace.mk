# The trace format: writer, reader, the one-line text dump, the side
# index (TRACE.idx, written by xcap -w and read by netplot); xcap(5).
xcap_libxcap_a_SOURCES += \
	xcap/trace.c xcap/trace.h \
	xcap/dump.c xcap/dump.h \
	xcap/traceidx.c xcap/traceidx.h
dist_man_MANS += man/xcap.5
