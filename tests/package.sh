#!/bin/sh
# package.sh — the Debian packages (debian/) as a user gets them: built
# with dpkg-buildpackage from a clean copy of the tree, checked by lintian
# (no error, no warning), the licence text in each, then installed in a
# throwaway root (tests/package-root.sh: this machine's root seen through
# an overlay in a mount namespace of the test's own, so the machine's own
# packages are untouched): the package's autopkgtest, every installed
# command's --version, the split (no GTK in xcap), xcap's capabilities (a
# member of the group "xcap" captures as nobody, anyone else may not run
# it), the NDJSON schemas and the demo on the installed files.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need dpkg-buildpackage dh lintian git apt-get unshare chroot mount root
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

# ---- the licence: every binary package carries it ----
for d in $debs; do
	p=$(dpkg-deb -f "$d" Package)
	dpkg-deb --fsys-tarfile "$d" | tar -xOf - "./usr/share/doc/$p/copyright" >"$workdir/$p.copyright" 2>/dev/null ||
		fail "$p has no /usr/share/doc/$p/copyright"
	cmp -s "$workdir/$p.copyright" "$src/debian/copyright" || fail "$p's copyright is not debian/copyright"
	grep -q '^License: Expat' "$workdir/$p.copyright" && grep -q 'Permission is hereby granted' "$workdir/$p.copyright" ||
		fail "$p's copyright holds no Expat text"
done
say "the MIT (Expat) licence text is in both packages"

# ---- a throwaway root: this machine's root under an overlay whose upper
# layer is the test's, in a mount namespace of its own; everything below
# runs there (tests/package-root.sh) and vanishes with it ----
root=$workdir/root
mkdir -p "$workdir/upper" "$workdir/ovlwork" "$root"
chmod 755 "$workdir"
unshare --mount --propagation private sh -c '
	w=$1; shift
	mount -t overlay overlay -o "lowerdir=/,upperdir=$w/upper,workdir=$w/ovlwork" "$w/root" || exit 90
	for d in proc sys dev; do mount --rbind "/$d" "$w/root/$d" || exit 90; done
	mount --bind "$w" "$w/root$w" || exit 90
	exec chroot "$w/root" "$@"' sh "$workdir" \
	env PATH=/usr/sbin:/usr/bin:/sbin:/bin top_srcdir="$top_srcdir" pkgroot_src="$src" \
	pkgroot_debs="$debs" pkgroot_version="$version" pkgroot_upstream="$upstream" \
	sh "$top_srcdir/tests/package-root.sh" >"$workdir/root.log" 2>&1
st=$?
sed 's/^/  /' "$workdir/root.log"
[ $st = 90 ] && skip "cannot mount an overlay of / in a mount namespace here"
[ $st = 0 ] || fail "in the throwaway root: $(grep '^FAIL' "$workdir/root.log")"
say "installed and run in a throwaway root; the machine's packages untouched"
exit 0
