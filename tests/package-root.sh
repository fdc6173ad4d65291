#!/bin/sh
# package-root.sh — the second half of tests/package.sh, run by it inside
# its throwaway root (chroot into an overlay of this machine's root): the
# packages installed by their autopkgtest and by apt-get, then every
# installed command, the desktop files, capture without root, the schemas,
# the demo and the purge, on the installed files alone.  Not a test of its
# own: package.sh passes it the packages (pkgroot_debs), the source they
# were built from (pkgroot_src) and their versions.
#
# Belongs to: tests/ (tests/package.sh).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
debs=$pkgroot_debs src=$pkgroot_src version=$pkgroot_version upstream=$pkgroot_upstream
[ -n "$debs" ] || fail "run by tests/package.sh, not alone"

# ---- the packages' own autopkgtest (debian/tests/control), which installs
# them; then our checks of the installed files ----
# A dpkg run of the machine's that the overlay caught half done is
# finished here, in the copy.
[ -z "$(ls /var/lib/dpkg/updates)" ] || dpkg --configure -a >/dev/null 2>&1
if command -v autopkgtest >/dev/null 2>&1; then
	# shellcheck disable=SC2086
	autopkgtest --quiet --output-dir "$workdir/autopkgtest" $debs "$src" -- null \
		>"$workdir/autopkgtest.log" 2>&1 ||
		fail "autopkgtest failed: $(tail -20 "$workdir/autopkgtest.log")"
	say "autopkgtest: $(grep -c ' PASS' "$workdir/autopkgtest/summary") tests passed: $(tr '\n' ';' <"$workdir/autopkgtest/summary")"
else
	say "no autopkgtest: debian/tests is not run"
fi
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	--no-install-recommends $debs >"$workdir/install.log" 2>&1 ||
	fail "cannot install: $(tail -20 "$workdir/install.log")"
for p in xcap netplot; do
	v=$(dpkg-query -W -f='${Version}' $p)
	[ "$v" = "$version" ] || fail "$p installed at $v, not $version"
done

# ---- every installed command names its version ----
for c in xcap xcapanalyse xcap-link xcap-sweep netplot; do
	dpkg -S "/usr/bin/$c" >/dev/null 2>&1 || fail "/usr/bin/$c belongs to no package"
	out=$("/usr/bin/$c" --version) || fail "/usr/bin/$c --version failed"
	case $out in "$c $upstream") ;; *) fail "/usr/bin/$c --version says '$out', not '$c $upstream'" ;; esac
	say "/usr/bin/$c --version: $out"
done
for page in xcap xcapanalyse netplot xcap-link xcap-sweep xcap.5 xcap-tutorial.7; do
	f=/usr/share/man/man${page##*.}/${page%.[0-9]}.${page##*.}.gz
	case $page in *.[0-9]) ;; *) f=/usr/share/man/man1/$page.1.gz ;; esac
	[ -s "$f" ] || fail "no manual page $f"
done

# ---- the completion, as bash loads it for a command it has not seen ----
out=$(bash -c '. /usr/share/bash-completion/bash_completion
	for c in xcap xcapanalyse netplot xcap-link xcap-sweep; do
		__load_completion $c && complete -p $c
	done' 2>&1)
n=$(printf '%s\n' "$out" | grep -c ' -F _xcap_')
[ "$n" = 5 ] || fail "bash loads the completion of $n commands of 5: $out"

# ---- the desktop: the launcher, the types and netplot for them ----
id=io.github.xcap.netplot
[ -s /usr/share/applications/$id.desktop ] || fail "no launcher installed"
[ -s /usr/share/metainfo/$id.metainfo.xml ] || fail "no AppStream metainfo installed"
[ -s /usr/share/icons/hicolor/scalable/apps/$id.svg ] || fail "no icon installed"
grep -q 'application/x-xcap' /usr/share/mime/packages/$id.xml || fail "no MIME types installed"
if command -v appstreamcli >/dev/null 2>&1; then
	appstreamcli validate --pedantic --no-net /usr/share/metainfo/$id.metainfo.xml >"$workdir/as" 2>&1 ||
		fail "appstreamcli: $(cat "$workdir/as")"
	grep -q '^[EWIP]:' "$workdir/as" && fail "appstreamcli has remarks: $(cat "$workdir/as")"
	say "appstreamcli validate --pedantic: the installed metainfo is clean"
fi
if command -v gio >/dev/null 2>&1; then
	t=$(gio info -a standard::content-type "$top_srcdir/tests/captures/xdpyinfo-xlogo.pcapng" 2>/dev/null |
		sed -n 's/^ *standard::content-type: //p')
	[ "$t" = application/x-pcapng ] || fail "an installed .pcapng is '$t'"
	gio mime application/x-xcap 2>/dev/null | grep -q $id.desktop ||
		fail "the system does not offer netplot for .xcap: $(gio mime application/x-xcap 2>&1)"
	say "installed: bash completion for 5 commands; .pcapng is $t; netplot opens application/x-xcap"
fi

# ---- capture without root: the group, the mode, the capabilities ----
st=$(stat -c '%U:%G %a' /usr/bin/xcap)
[ "$st" = "root:xcap 754" ] || fail "/usr/bin/xcap is $st, not root:xcap 754"
caps=$(getcap /usr/bin/xcap)
case $caps in *cap_net_admin,cap_net_raw=eip*) ;; *) fail "/usr/bin/xcap has capabilities '$caps'" ;; esac
say "/usr/bin/xcap: $st, $caps"
gid=$(getent group xcap | cut -d: -f3)
[ -n "$gid" ] || fail "no group xcap"
start_xvfb
port=$((6000 + display))
shared=$workdir/shared
mkdir -p "$shared" && chmod 1777 "$shared" && chmod go+x "$workdir"
# as_nobody GROUPS-OPTION CMD ARGS...: CMD run by uid 65534 through a
# shell: setpriv still holds root's capabilities when it executes its
# command (they pass the file's mode), the shell has none left.  Each
# step execs the next, so CMD has the pid start_capture signals.
as_nobody() {
	g=$1; shift
	exec setpriv --reuid=65534 --regid=65534 "$g" sh -c 'exec "$@"' sh "$@"
}
(as_nobody --clear-groups /usr/bin/xcap --version) >/dev/null 2>&1 &&
	fail "a user outside the group xcap may run /usr/bin/xcap"
start_capture nobody as_nobody --groups="$gid" /usr/bin/xcap -i lo -w "$shared/nobody.xcap" tcp port $port
xdpyinfo >/dev/null || fail "xdpyinfo failed"
sleep 0.3
stop_capture nobody
sed 's/^/  nobody: /' "$workdir/nobody.err"
/usr/bin/xcapanalyse --connections --format csv "$shared/nobody.xcap" >"$workdir/conns" ||
	fail "cannot read the capture nobody made"
# xdpyinfo names itself to no one: its connection is the one X11 one,
# with the setup and its replies
awk -F, 'NR > 1 && $4 == "x11" && $11 > 0 && $12 > 0' "$workdir/conns" | grep -q . ||
	fail "nobody's capture has no X11 connection with messages: $(cat "$workdir/conns")"
say "uid 65534 in group xcap captured xdpyinfo: $(awk -F, 'NR == 2 { print $7 + $8 " packets, " $11 + $12 " messages" }' "$workdir/conns")"

# ---- the demo on the installed files, none of the build tree's ----
PATH=/usr/sbin:/usr/bin:/sbin:/bin /usr/share/xcap/demo "$workdir/demo" >"$workdir/demo.log" 2>&1 ||
	fail "the installed demo failed: $(tail -20 "$workdir/demo.log")"
for f in demo.xcap demo.png delays.txt round-trips.txt; do
	[ -s "$workdir/demo/$f" ] || fail "the installed demo made no $f"
done
grep -q 'xlogo XLogo' "$workdir/demo/connections.txt" || fail "the demo's trace has no xlogo: $(cat "$workdir/demo/connections.txt")"
say "the installed demo: $(wc -l <"$workdir/demo/round-trips.txt") round trips, $(wc -c <"$workdir/demo/demo.png") bytes of picture"

# ---- the NDJSON schemas, one a table, valid JSON ----
n=0
for f in /usr/share/xcap/schema/*.schema.json; do
	/usr/bin/python3 -m json.tool "$f" >/dev/null || fail "$f is not JSON"
	n=$((n + 1))
done
[ $n -ge 19 ] || fail "$n NDJSON schemas installed, not 19 or more"
say "$n NDJSON schemas in /usr/share/xcap/schema"

# ---- removal undoes the postinst ----
apt-get purge -y -qq xcap netplot >/dev/null 2>&1 || fail "cannot purge"
[ ! -e /usr/bin/xcap ] || fail "/usr/bin/xcap is still there after purge"
! dpkg-statoverride --list /usr/bin/xcap >/dev/null ||
	fail "purge left the override: $(dpkg-statoverride --list /usr/bin/xcap)"
say "purged: no /usr/bin/xcap, no override left"
exit 0
