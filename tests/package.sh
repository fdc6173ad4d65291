#!/bin/sh
# package.sh — the Debian packages (debian/) as a user gets them: built
# with dpkg-buildpackage from a clean copy of the tree, checked by lintian
# (no error, no warning), installed on this machine with apt-get, then
# every installed command's --version, the split (no GTK in xcap), xcap's
# capabilities (a member of the group "xcap" captures as nobody, anyone
# else may not run it) and the demo on the installed files.  Packages
# this test installed are purged at the end.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need dpkg-buildpackage dh lintian git apt-get root
# The packages are built from the source by dpkg-buildpackage with its own
# flags, the same in either pass; the sanitizer build has nothing to add.
sanitized && skip "builds the packages in the plain build only (dpkg-buildpackage ignores the sanitizer build)"
need git-checkout	# debian/ is not in the tarball
[ -f "$top_srcdir/debian/control" ] || skip "no debian/ in $top_srcdir"

# ---- build from a clean copy: the files git knows or would add ----
src=$workdir/src/xcap
mkdir -p "$src"
(cd "$top_srcdir" && git ls-files -co --exclude-standard | while IFS= read -r f; do
	[ -e "$f" ] && printf '%s\n' "$f"; done) >"$workdir/files"
tar -C "$top_srcdir" -cf - -T "$workdir/files" | tar -C "$src" -xf - ||
	fail "cannot copy the tree"
version=$(cd "$src" && dpkg-parsechangelog -S Version)
upstream=$(sed -n 's/^AC_INIT(\[xcap\], \[\([^]]*\)\].*/\1/p' "$src/configure.ac")
case $version in "$upstream"|"$upstream"-*) ;; *)
	fail "debian/changelog's version $version is not configure.ac's $upstream" ;; esac
say "building $version (dpkg-buildpackage -us -uc -b)"
# The build is the package's own: none of make check's environment.
(cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u top_srcdir -u top_builddir \
	DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b) \
	>"$workdir/build.log" 2>&1 || fail "dpkg-buildpackage failed: $(tail -20 "$workdir/build.log")"
arch=$(dpkg --print-architecture)
changes=$workdir/src/xcap_${version}_$arch.changes
[ -f "$changes" ] || fail "no $changes"
debs=
for p in xcap netplot; do
	d=$workdir/src/${p}_${version}_$arch.deb
	[ -f "$d" ] || fail "no $d: $(ls "$workdir/src")"
	debs="$debs $d"
	say "built $(basename "$d"): $(dpkg-deb -c "$d" | wc -l) entries, $(wc -c <"$d") bytes"
done

# ---- the split: the command-line tools pull in no GTK ----
xdeb=$workdir/src/xcap_${version}_$arch.deb
ndeb=$workdir/src/netplot_${version}_$arch.deb
dpkg-deb -c "$xdeb" >"$workdir/xcap.list"
dpkg-deb -f "$xdeb" Depends | grep -qi 'gtk\|cairo' && fail "xcap depends on GTK: $(dpkg-deb -f "$xdeb" Depends)"
grep -q 'netplot$' "$workdir/xcap.list" && fail "xcap holds netplot"
dpkg-deb -f "$ndeb" Depends | grep -q "xcap (= $version)" ||
	fail "netplot does not depend on xcap (= $version): $(dpkg-deb -f "$ndeb" Depends)"
grep -q ' ./usr/bin/xcap$' "$workdir/xcap.list" || fail "xcap's package has no /usr/bin/xcap"
grep -q '^-..s\|^-.....s' "$workdir/xcap.list" && fail "a setuid or setgid file in xcap's package"

# ---- lintian: no error, no warning (overrides, with their reasons, are
# in debian/*.lintian-overrides) ----
lintian --fail-on error,warning --display-info "$changes" >"$workdir/lintian" 2>&1 ||
	fail "lintian: $(cat "$workdir/lintian")"
say "lintian: $(grep -c . "$workdir/lintian") lines, no error or warning"
sed 's/^/  /' "$workdir/lintian"

# ---- install on this machine ----
was_installed=
for p in xcap netplot; do
	dpkg-query -W -f='${Status}' $p 2>/dev/null | grep -q 'install ok installed' &&
		was_installed="$was_installed $p"
done
[ -z "$was_installed" ] || say "already installed before the test:$was_installed (left installed)"
purge() { [ -n "$was_installed" ] ||
	apt-get purge -y -qq -o DPkg::Lock::Timeout=300 xcap netplot >/dev/null 2>&1; }
at_exit purge
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 \
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
[ -s /usr/share/applications/example.xcap.netplot.desktop ] || fail "no launcher installed"
grep -q 'application/x-xcap' /usr/share/mime/packages/xcap.xml || fail "no MIME types installed"
if command -v gio >/dev/null 2>&1; then
	t=$(gio info -a standard::content-type "$top_srcdir/tests/captures/xdpyinfo-xlogo.pcapng" 2>/dev/null |
		sed -n 's/^ *standard::content-type: //p')
	[ "$t" = application/x-pcapng ] || fail "an installed .pcapng is '$t'"
	gio mime application/x-xcap 2>/dev/null | grep -q example.xcap.netplot.desktop ||
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

# ---- removal undoes the postinst ----
if [ -z "$was_installed" ]; then
	purge
	[ ! -e /usr/bin/xcap ] || fail "/usr/bin/xcap is still there after purge"
	! dpkg-statoverride --list /usr/bin/xcap >/dev/null ||
		fail "purge left the override: $(dpkg-statoverride --list /usr/bin/xcap)"
	say "purged: no /usr/bin/xcap, no override left"
fi
exit 0
