# X11 decoder: tables generated from xcb-proto at build time, and the engine.
protocols_libprotocols_a_SOURCES += protocols/x11.c protocols/x11_tables.h
nodist_protocols_libprotocols_a_SOURCES = protocols/x11_tables.c
BUILT_SOURCES += protocols/x11_tables.c
CLEANFILES += protocols/x11_tables.c
EXTRA_DIST += protocols/gen_x11.py

# xcbgen is xcb-proto's Python package; configure found a Python that has it.
protocols/x11_tables.c: $(srcdir)/protocols/gen_x11.py
	$(AM_V_GEN)$(MKDIR_P) protocols && \
	PYTHONPATH='$(XCBGEN_PYTHONPATH)' $(XCBGEN_PYTHON) $(srcdir)/protocols/gen_x11.py \
		'$(XCBINCLUDEDIR)' >$@.tmp && mv $@.tmp $@
