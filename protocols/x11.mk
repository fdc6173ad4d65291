# X11 decoder: tables generated from xcb-proto at build time, and the engine.
protocols_libprotocols_a_SOURCES += protocols/x11.c protocols/x11_tables.h \
	protocols/x11_frame.h
nodist_protocols_libprotocols_a_SOURCES = protocols/x11_tables.c protocols/x11_names.h
BUILT_SOURCES += protocols/x11_tables.c protocols/x11_names.h
CLEANFILES += protocols/x11_tables.c protocols/x11_names.h
EXTRA_DIST += protocols/gen_x11.py

# xcbgen is xcb-proto's Python package; configure found a Python that has
# it.  Both outputs are rebuilt when what they are made from changes: the
# generator, the header the tables fill, and xcb-proto's XML (each file
# configure found, and the directory, whose time changes when a new
# xcb-proto adds or replaces files).
X11_GEN_DEPS = $(srcdir)/protocols/gen_x11.py $(XCBPROTO_XML) $(XCBINCLUDEDIR)
X11_GEN = PYTHONPATH='$(XCBGEN_PYTHONPATH)' $(XCBGEN_PYTHON) $(srcdir)/protocols/gen_x11.py

protocols/x11_tables.c: $(X11_GEN_DEPS) $(srcdir)/protocols/x11_tables.h
	$(AM_V_GEN)$(MKDIR_P) protocols && \
	$(X11_GEN) '$(XCBINCLUDEDIR)' >$@.tmp && mv $@.tmp $@

protocols/x11_names.h: $(X11_GEN_DEPS)
	$(AM_V_GEN)$(MKDIR_P) protocols && \
	$(X11_GEN) --names '$(XCBINCLUDEDIR)' >$@.tmp && mv $@.tmp $@
