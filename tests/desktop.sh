#!/bin/sh
# desktop.sh — netplot on the desktop: the launcher, the AppStream
# metainfo, the icon and the MIME types are valid, make install puts them
# where desktops look, a .xcap (by name or by its magic alone), a .pcap and
# a .pcapng are offered to netplot, and the metainfo's screenshot is made
# here: netplot's export of the demo's capture, at the size the metainfo
# declares (build/data/netplot-screenshot.png).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need netplot xmllint
d=$top_srcdir/data
id=io.github.xcap.netplot
meta=$d/$id.metainfo.xml

# ---- the files are valid ----
for f in "$d/$id.svg" "$d/$id.xml" "$meta"; do
	xmllint --noout "$f" || fail "$f is not well-formed XML"
done
if command -v desktop-file-validate >/dev/null 2>&1; then
	# It exits 0 on warnings and hints: clean is saying nothing.
	out=$(desktop-file-validate "$d/$id.desktop" 2>&1) && [ -z "$out" ] ||
		fail "desktop-file-validate: $id.desktop: $out"
	say "desktop-file-validate: $id.desktop is valid"
else
	say "no desktop-file-validate: the launcher is not validated"
fi
if command -v appstreamcli >/dev/null 2>&1; then
	# Pedantic: not even a hint.  --no-net: the screenshot's address is
	# where the project publishes it, which this machine need not reach.
	appstreamcli validate --pedantic --no-net "$meta" >"$workdir/as" 2>&1 ||
		fail "appstreamcli rejects the metainfo: $(cat "$workdir/as")"
	grep -q '^[EWIP]:' "$workdir/as" && fail "appstreamcli has remarks: $(cat "$workdir/as")"
	say "appstreamcli: $(tail -1 "$workdir/as")"
else
	say "no appstreamcli: the metainfo is not validated"
fi

# ---- the screenshot: the metainfo's declared size, drawn from the demo's
# capture ----
w=$(sed -n 's/.*<image type="source" width="\([0-9]*\)".*/\1/p' "$meta")
h=$(sed -n 's/.*<image type="source" width="[0-9]*" height="\([0-9]*\)".*/\1/p' "$meta")
[ -n "$w" ] && [ -n "$h" ] || fail "the metainfo declares no screenshot size"
mkdir -p "$top_builddir/data"
shot=$top_builddir/data/netplot-screenshot.png
netplot "$top_srcdir/tests/captures/xdpyinfo-xlogo.pcapng" --size "${w}x$h" --export "$shot" ||
	fail "netplot could not draw the screenshot"
# The PNG's IHDR: width and height, big-endian, at bytes 16 and 20.
size=$(od -An -tu1 -j16 -N8 "$shot" | awk '{ printf "%dx%d", (($1*256+$2)*256+$3)*256+$4, (($5*256+$6)*256+$7)*256+$8 }')
[ "$size" = "${w}x$h" ] || fail "the screenshot is $size, the metainfo says ${w}x$h"
say "screenshot: $shot, $size, $(wc -c <"$shot") bytes"

# ---- make install puts every file where desktops look ----
dest=$workdir/root
make -s -C "$top_builddir" install DESTDIR="$dest" prefix=/usr >"$workdir/install.log" 2>&1 ||
	fail "make install failed: $(tail "$workdir/install.log")"
share=$dest/usr/share
for f in applications/$id.desktop icons/hicolor/scalable/apps/$id.svg \
	metainfo/$id.metainfo.xml mime/packages/$id.xml; do
	[ -s "$share/$f" ] || fail "make install did not install $f"
done
say "make install: launcher, icon, metainfo and MIME types under /usr/share"

# ---- the MIME database built from them: the types of real files, and
# netplot offered for each ----
need update-mime-database gio
mkdir -p "$workdir/xdg/mime/packages" "$workdir/xdg/applications"
cp /usr/share/mime/packages/freedesktop.org.xml "$share/mime/packages/$id.xml" "$workdir/xdg/mime/packages/"
cp "$share/applications/$id.desktop" "$workdir/xdg/applications/"
update-mime-database "$workdir/xdg/mime" 2>"$workdir/mime.err" || fail "update-mime-database rejects $id.xml"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$workdir/xdg/applications"
xcap -q -r "$top_srcdir/tests/captures/xdpyinfo-xlogo.pcap" -w "$workdir/t.xcap" || fail "cannot make a trace"
cp "$workdir/t.xcap" "$workdir/no-extension"
cp "$top_srcdir/tests/captures/xdpyinfo-xlogo.pcapng" "$workdir/capture-no-ext"
type_of() {
	XDG_DATA_HOME=$workdir/xdg XDG_DATA_DIRS=$workdir/xdg gio info -a standard::content-type "$1" |
		sed -n 's/^ *standard::content-type: //p'
}
for f in t.xcap:application/x-xcap no-extension:application/x-xcap \
	capture-no-ext:application/x-pcapng; do
	t=$(type_of "$workdir/${f%%:*}")
	[ "$t" = "${f#*:}" ] || fail "${f%%:*} is '$t', not ${f#*:}"
	say "${f%%:*}: $t"
done
cp "$top_srcdir/tests/captures/xdpyinfo-xlogo.pcap" "$workdir/c.pcap"
t=$(type_of "$workdir/c.pcap")
case $t in application/vnd.tcpdump.pcap|application/x-pcap) ;; *) fail "c.pcap is '$t'" ;; esac
for t in application/x-xcap application/vnd.tcpdump.pcap application/x-pcapng; do
	XDG_DATA_HOME=$workdir/xdg XDG_DATA_DIRS=$workdir/xdg gio mime "$t" >"$workdir/apps" 2>&1
	grep -q "$id.desktop" "$workdir/apps" || fail "netplot is not offered for $t: $(cat "$workdir/apps")"
done
say "netplot is offered for application/x-xcap, application/vnd.tcpdump.pcap and application/x-pcapng"
exit 0
