# protocols/ — pure decoders: bytes of one direction in, messages out.
# Include paths: this layer only (and the build tree: config.h, the
# generated tables).
INC_PROTOCOLS = $(AM_CPPFLAGS) -I$(top_srcdir)/protocols -I$(top_builddir)/protocols

noinst_LIBRARIES += protocols/libprotocols.a
protocols_libprotocols_a_CPPFLAGS = $(INC_PROTOCOLS)
protocols_libprotocols_a_SOURCES = protocols/protocol.h protocols/cursor.h protocols/digits.h protocols/registry.c
include protocols/x11.mk
include protocols/rfb.mk
include protocols/wayland.mk
