# RFB (VNC) decoder: tables generated from protocols/rfb.def at build time,
# and the engine.
protocols_libprotocols_a_SOURCES += protocols/rfb.c protocols/rfb_tables.h
nodist_protocols_libprotocols_a_SOURCES += protocols/rfb_tables.c
BUILT_SOURCES += protocols/rfb_tables.c
CLEANFILES += protocols/rfb_tables.c
EXTRA_DIST += protocols/gen_rfb.py protocols/rfb.def

protocols/rfb_tables.c: $(srcdir)/protocols/rfb.def $(srcdir)/protocols/gen_rfb.py
	$(AM_V_GEN)$(MKDIR_P) protocols && \
	$(XCBGEN_PYTHON) $(srcdir)/protocols/gen_rfb.py $(srcdir)/protocols/rfb.def >$@.tmp && \
	mv $@.tmp $@
