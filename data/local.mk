# data/ — what installs beside the programs: the demo on the installed
# commands (it is also the packages' autopkgtest), and below, when netplot
# is built, its desktop integration.  The demo reuses the tests' helpers
# unchanged: tests/demo.sh finds tests/lib.sh (and the tests/lib/ it
# sources) beside it, and the build directory it is given (the demo's own
# directory) has no programs in it, so the installed ones on PATH run.
demodir = $(pkgdatadir)
dist_demo_SCRIPTS = data/demo
demotestsdir = $(pkgdatadir)/tests
dist_demotests_SCRIPTS = tests/demo.sh
dist_demotests_DATA = tests/lib.sh
demotestslibdir = $(pkgdatadir)/tests/lib
dist_demotestslib_DATA = tests/lib/capture.sh tests/lib/prereqs.sh tests/lib/timing.sh \
	tests/lib/verdicts.sh tests/lib/wayland.sh tests/lib/workdir.sh tests/lib/xservers.sh

# One JSON Schema a table of xcapanalyse --format ndjson, with each
# column's unit (tests/ndjson-schema.sh checks real output against them).
schemadir = $(pkgdatadir)/schema
dist_pkgdata_DATA += data/duckdb-sql.cjs
dist_pkgdata_SCRIPTS = data/xcapanalyse-array.sbatch
dist_schema_DATA = \
	data/schema/added_delay.schema.json \
	data/schema/added_delay_cdf.schema.json \
	data/schema/added_delay_responses.schema.json \
	data/schema/avoidable.schema.json \
	data/schema/batchable.schema.json \
	data/schema/connections.schema.json \
	data/schema/delays.schema.json \
	data/schema/frames.schema.json \
	data/schema/gate.schema.json \
	data/schema/input_to_photon.schema.json \
	data/schema/marks.schema.json \
	data/schema/messages.schema.json \
	data/schema/predicted_responses.schema.json \
	data/schema/predicted_round_trips.schema.json \
	data/schema/prediction.schema.json \
	data/schema/requests.schema.json \
	data/schema/responses.schema.json \
	data/schema/responses_summary.schema.json \
	data/schema/round_trips.schema.json \
	data/schema/rows.schema.json \
	data/schema/runs.schema.json \
	data/schema/sites.schema.json \
	data/schema/tcp_stats.schema.json \
	data/schema/updates.schema.json

# netplot on the desktop: a launcher that opens .xcap, .pcap and .pcapng
# files, its icon, AppStream metainfo, and the MIME types (application/
# x-xcap by its magic; pcapng too, which shared-mime-info lacks).  The
# caches are the distribution's business (dpkg triggers); a plain make
# install into the live system refreshes them when the tools are there.
if NETPLOT
desktopdir = $(datadir)/applications
dist_desktop_DATA = data/io.github.xcap.netplot.desktop
icondir = $(datadir)/icons/hicolor/scalable/apps
dist_icon_DATA = data/io.github.xcap.netplot.svg
metainfodir = $(datadir)/metainfo
dist_metainfo_DATA = data/io.github.xcap.netplot.metainfo.xml
mimepkgdir = $(datadir)/mime/packages
dist_mimepkg_DATA = data/io.github.xcap.netplot.xml

endif

install-data-hook: install-desktop-caches
install-desktop-caches:
	@if test -z "$(DESTDIR)"; then \
		update-mime-database "$(datadir)/mime" 2>/dev/null || :; \
		update-desktop-database "$(datadir)/applications" 2>/dev/null || :; \
		gtk-update-icon-cache -q -t "$(datadir)/icons/hicolor" 2>/dev/null || :; \
	fi
dist_man_MANS += man/xcap-tutorial.7
