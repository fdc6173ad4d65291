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
# Exit 0 when every include is allowed, 1 naming each one that is not.
top=${1:-${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}}
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

# The layer that holds header $2 as included from a file in directory $1:
# the includer's own directory first, as the compiler looks, then every
# layer's directory (source and build trees).  Nothing when the header is
# none of the layers' (config.h, system headers spelt with quotes).
owner() {
	dir=$1 inc=$2
	if [ -f "$top/$dir/$inc" ]; then
		p=$(cd "$(dirname "$top/$dir/$inc")" && pwd)
		echo "${p#"$top"/}" | cut -d/ -f1
		return
	fi
	for l in $layers; do
		for root in "$top" "$build"; do
			if [ -f "$root/$l/$inc" ]; then
				echo "$l"
				return
			fi
		done
	done
	case $inc in
	*/*)	# a path from the top: "xcap/record.h"
		l=${inc%%/*}
		[ -f "$top/$inc" ] && echo "$l"
		;;
	esac
}

bad=0 n=0
for layer in $layers; do
	ok=$(allowed "$layer")
	for f in $(cd "$top" && find "$layer" -name '*.[ch]' | sort); do
		dir=$(dirname "$f")
		# grep -n: "LINE:#include "name"" for each quoted include.
		grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$top/$f" |
		sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1 \2/' >"${TMPDIR:-/tmp}/layers.$$"
		while read -r line inc; do
			n=$((n + 1))
			o=$(owner "$dir" "$inc")
			[ -n "$o" ] || continue
			case " $ok " in
			*" $o "*) ;;
			*)
				echo "layers: $f:$line: includes \"$inc\" of $o/, but $layer/ may use only: $ok"
				bad=$((bad + 1))
				;;
			esac
		done <"${TMPDIR:-/tmp}/layers.$$"
	done
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
