#!/bin/sh
# layers.sh — every #include "..." in a layer's directory names a header
# of that layer or of a layer it may use (DESIGN.md, "Layers"; HACKING.md).
# The build already gives each directory only the include paths of the
# layers below it (the INC_* sets in */local.mk); this test states the
# allowed edges as data and names the file and line of any include that
# crosses one, also where a path ("../xcap/x.h") would get past the
# include paths.
#
#   tests/layers.sh [SOURCE-DIR]      (default: $top_srcdir or the tree
#                                      this script is in)
#
# Inside a layer, the library (files at the layer's top) and the rooms of
# its programs (LAYER/cmd/PROGRAM/) are kept apart too: a library file
# includes no header of a room, a room none of another room's; xcap/cmd/
# itself is the kit every command shares (report.h, progress.h), which
# commands of every layer may include and no library.  And the build says
# the same: no library's sources name a file of a room, and no program's
# sources or LDADD name another program's room (the *.mk fragments).
#
# Exit 0 when every include is allowed, 1 naming each one that is not.
top=$(cd "${1:-${top_srcdir:-$(dirname "$0")/..}}" && pwd)
build=${top_builddir:-$top/build}

# layer: the layers it may include from (itself first).  Lowest first.
edges='
protocols: protocols
xcap: xcap protocols
xcapanalyse: xcapanalyse xcap
netplot: netplot xcapanalyse xcap
tests: tests netplot xcapanalyse xcap protocols
'
layers=$(echo "$edges" | sed -n 's/^\([a-z]*\):.*/\1/p')

allowed() {	# allowed LAYER: the layers LAYER may include from
	echo "$edges" | sed -n "s/^$1: *//p"
}

# unit FILE: the part of the tree FILE belongs to: LAYER (its library),
# LAYER/cmd (the commands' kit) or LAYER/cmd/PROGRAM (a program's room).
unit() {
	case $1 in
	*/cmd/*/*) echo "$1" | cut -d/ -f1-3 ;;
	*/cmd/*) echo "$1" | cut -d/ -f1-2 ;;
	*) echo "$1" | cut -d/ -f1 ;;
	esac
}

# may_use UNIT OWNER-UNIT: whether a file of UNIT may include a header of
# OWNER-UNIT, given that their layers may (the edges above).
may_use() {
	case $1 in
	tests*) return 0 ;;
	esac
	[ "$1" = "$2" ] && return 0
	case $2 in
	*/cmd/*) return 1 ;;	# another program's room
	*/cmd) case $1 in */cmd*) return 0 ;; *) return 1 ;; esac ;;
	*) return 0 ;;		# a library: the layer edges decide
	esac
}

# The unit that holds header $2 as included from a file in directory $1:
# the includer's own directory first, as the compiler looks, then every
# layer's directory (source and build trees).  Nothing when the header is
# none of the layers' (config.h, system headers spelt with quotes).
owner() {
	dir=$1 inc=$2
	if [ -f "$top/$dir/$inc" ]; then
		p=$(cd "$(dirname "$top/$dir/$inc")" && pwd)
		unit "${p#"$top"/}/$(basename "$inc")"
		return
	fi
	# Every directory an include path may name: the layers' libraries,
	# the commands' kit and the rooms (source and build trees).
	for d in $dirs; do
		for root in "$top" "$build"; do
			if [ -f "$root/$d/$inc" ]; then
				unit "$d/$inc"
				return
			fi
		done
	done
	case $inc in
	*/*)	# a path from the top: "xcap/record.h"
		[ -f "$top/$inc" ] && unit "$inc"
		;;
	esac
}

dirs=$(cd "$top" && for l in $layers; do
	echo "$l"
	[ -d "$l/cmd" ] && find "$l/cmd" -type d
done)

bad=0 n=0
for layer in $layers; do
	ok=$(allowed "$layer")
	for f in $(cd "$top" && find "$layer" -name '*.[ch]' | sort); do
		dir=$(dirname "$f")
		# grep -n: "LINE:#include "name"" for each quoted include.
		grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$top/$f" |
		sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1 \2/' >"${TMPDIR:-/tmp}/layers.$$"
		u=$(unit "$f")
		while read -r line inc; do
			n=$((n + 1))
			o=$(owner "$dir" "$inc")
			[ -n "$o" ] || continue
			case " $ok " in
			*" ${o%%/*} "*) ;;
			*)
				echo "layers: $f:$line: includes \"$inc\" of ${o%%/*}/, but $layer/ may use only: $ok"
				bad=$((bad + 1))
				continue
				;;
			esac
			if ! may_use "$u" "$o"; then
				echo "layers: $f:$line: includes \"$inc\" of $o/, which $u/ may not use (a library uses no program's room, a room no other's)"
				bad=$((bad + 1))
			fi
		done <"${TMPDIR:-/tmp}/layers.$$"
	done
done

# The build: what each library and program is made of (automake's
# *_SOURCES, *_LDADD and *_LIBADD in the *.mk fragments, continuation
# lines joined).  A library (*_a_SOURCES) names no file of a room; a
# program names no file or library of another room.
for mk in $(cd "$top" && find protocols xcap xcapanalyse netplot -name '*.mk' | sort); do
	sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$top/$mk" |
	sed -n 's/^\([a-z0-9_]*\)_\(SOURCES\|LDADD\|LIBADD\) *+*= *\(.*\)/\1 \2 \3/p' >"${TMPDIR:-/tmp}/layers.$$"
	mkroom=$(unit "$mk")
	while read -r target what files; do
		for file in $files; do
			case $file in
			*/cmd/*/*) ;;
			*) continue ;;
			esac
			n=$((n + 1))
			fu=$(unit "$file")
			case $target in
			*_a)
				case $target in
				*_cmd_*) [ "$fu" = "$mkroom" ] && continue ;;
				esac
				echo "layers: $mk: the library $target takes $file of the room $fu/"
				bad=$((bad + 1))
				;;
			*)
				[ "$fu" = "$mkroom" ] && continue
				echo "layers: $mk: the program $target takes $file of the room $fu/, not its own ($mkroom/)"
				bad=$((bad + 1))
				;;
			esac
		done
	done <"${TMPDIR:-/tmp}/layers.$$"
done
rm -f "${TMPDIR:-/tmp}/layers.$$"
if [ "$n" = 0 ]; then
	echo "layers: found no #include in '$top': wrong directory?"
	exit 1
fi
if [ "$bad" != 0 ]; then
	echo "layers: $bad include(s) cross a layer boundary (of $n checked)"
	exit 1
fi
echo "layers: $n includes checked, all within the allowed edges"
exit 0
