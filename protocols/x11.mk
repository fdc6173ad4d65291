# X11 decoder: tables generated from xcb-proto, and the engine.
protocols_libprotocols_a_SOURCES += protocols/x11.c
