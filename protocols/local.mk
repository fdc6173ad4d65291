# protocols/ — pure decoders: bytes of one direction in, messages out.
noinst_LIBRARIES += protocols/libprotocols.a
protocols_libprotocols_a_SOURCES = protocols/protocol.h protocols/registry.c
include protocols/x11.mk
include protocols/rfb.mk
