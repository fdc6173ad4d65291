# Wayland decoder (and waypipe's framing around it): tables generated from
# the installed protocol XML at build time, and the engine.
protocols_libprotocols_a_SOURCES += protocols/wayland.c protocols/waypipe.c \
	protocols/wayland_engine.h protocols/wayland_tables.h
nodist_protocols_libprotocols_a_SOURCES += protocols/wayland_tables.c
BUILT_SOURCES += protocols/wayland_tables.c
CLEANFILES += protocols/wayland_tables.c
EXTRA_DIST += protocols/gen_wayland.py

# Rebuilt when the generator, the header the tables fill, any XML file
# configure found, or a stage's directory (a protocol added) changes.
protocols/wayland_tables.c: $(srcdir)/protocols/gen_wayland.py $(srcdir)/protocols/wayland_tables.h \
		$(WAYLAND_XML) $(WAYLAND_XML_DIRS)
	$(AM_V_GEN)$(MKDIR_P) protocols && \
	$(XCBGEN_PYTHON) $(srcdir)/protocols/gen_wayland.py $(WAYLAND_XML) >$@.tmp && \
	mv $@.tmp $@
