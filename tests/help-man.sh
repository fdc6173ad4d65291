#!/bin/sh
# help-man.sh — every option a command's --help lists is in its man page
# (a tag of OPTIONS) and in its bash completion (offered for "-"), and the
# reverse: an option added to one and not the others fails here, named.
# xcapanalyse's views, too: its table (--help), the man page's Views and
# the completion's list of views.
#
# From --help (up to "Examples:"): every long option anywhere, and the
# short options of the option column (lines that begin with "-", up to two
# spaces; "-h, --help  ...;  -V, --version  ..." is two entries), so that
# "ssh -X" in a description is not taken for an option.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need bash
bc=/usr/share/bash-completion/bash_completion
need bash-completion
comp_file=${comp_file:-$top_srcdir/completion/xcap.bash}
man_dir=${man_dir:-$top_srcdir/man}

help_options() {
	"$1" --help | sed '/^Examples:/,$d' >"$workdir/help" || fail "$1 --help failed"
	{
		grep -o -- '--[a-z][a-z0-9-]*' "$workdir/help"
		grep '^ *-' "$workdir/help" | tr ';' '\n' | sed 's/^ *//; s/  .*//' |
			tr ', ' '\n\n' | grep -- '^-[A-Za-z]$'
	} | sort -u
}

# The OPTIONS section: the options of its tags (the line after each .TP),
# and long options the text cites as its own (a .B line that begins with
# one: ".B \-\-per\-conn"; not ".B xcapanalyse \-\-connections").
man_options() {
	awk '/^\.SH OPTIONS/ { o = 1; next } /^\.SH / { o = 0 } o' "$man_dir/$1.1" |
		sed 's/\\-/-/g; s/\\f[BIRP]//g' >"$workdir/options"
	{
		awk 'tp { print } { tp = /^\.TP/ }' "$workdir/options" |
			grep -o -- '-\{1,2\}[A-Za-z][A-Za-z0-9-]*' | grep -- '^-\(-[a-z][a-z0-9-]*\|[A-Za-z]\)$'
		sed -n 's/^\.[BIR]\{1,2\} \{1,\}\(--[a-z][a-z0-9-]*\).*/\1/p' "$workdir/options"
	} | sort -u
}

completion_options() {
	bash -c '
		. "$1"; . "$2"; shift 2
		COMP_WORDS=("$1" -); COMP_CWORD=1; COMP_LINE="$1 -"; COMP_POINT=${#COMP_LINE}
		f=$(complete -p "$1" | sed "s/.* -F \([^ ]*\) .*/\1/")
		"$f" "$1" - "$1"
		printf "%s\n" "${COMPREPLY[@]}"' sh "$bc" "$comp_file" "$1" | grep -- '^-' | sort -u
}

# differ A-NAME A-FILE B-NAME B-FILE: the options in A missing from B
differ() {
	missing=$(comm -23 "$2" "$4" | tr '\n' ' ')
	[ -z "$missing" ] || problems="$problems
  $cmd: in $1, not in $3: $missing"
}

problems=
checked=0
for cmd in xcap xcapanalyse netplot xcap-link xcap-sweep xcap-run xcap-replay; do
	command -v $cmd >/dev/null 2>&1 || { say "$cmd not built, not checked"; continue; }
	help_options $cmd >"$workdir/$cmd.help"
	man_options $cmd >"$workdir/$cmd.man"
	completion_options $cmd >"$workdir/$cmd.comp"
	n=$(wc -l <"$workdir/$cmd.help")
	[ "$n" -ge 3 ] || fail "$cmd --help lists only $n options: $(cat "$workdir/$cmd.help")"
	differ "--help" "$workdir/$cmd.help" "man/$cmd.1" "$workdir/$cmd.man"
	differ "man/$cmd.1" "$workdir/$cmd.man" "--help" "$workdir/$cmd.help"
	differ "--help" "$workdir/$cmd.help" "the completion" "$workdir/$cmd.comp"
	differ "the completion" "$workdir/$cmd.comp" "--help" "$workdir/$cmd.help"
	say "$cmd: $n options in --help compared with man/$cmd.1 and the completion"
	checked=$((checked + 1))
done

# xcapanalyse's views come from its table: --help lists them (its "Views"
# section), and the man page's Views and the completion's list of views
# (_xcap_views_xcapanalyse) must hold the same ones.
if command -v xcapanalyse >/dev/null 2>&1; then
	xcapanalyse --help | sed -n '/^Views/,/^$/p' | grep -o '^  --[a-z-]*' | sed 's/^ *//' |
		sort >"$workdir/views.help"
	awk '/^\.SS Views/ { v = 1; next } /^\.S[SH] / { v = 0 } v && tp { print } { tp = /^\.TP/ }' \
		"$man_dir/xcapanalyse.1" | sed 's/\\-/-/g' | sed -n 's/^\.B \(--[a-z-]*\)$/\1/p' |
		sort >"$workdir/views.man"
	bash -c '. "$1"; printf "%s\n" $_xcap_views_xcapanalyse' sh "$comp_file" | sort >"$workdir/views.comp"
	n=$(wc -l <"$workdir/views.help")
	[ "$n" -ge 10 ] || fail "xcapanalyse --help lists only $n views"
	cmd=xcapanalyse
	differ "--help's views" "$workdir/views.help" "man/xcapanalyse.1's Views" "$workdir/views.man"
	differ "man/xcapanalyse.1's Views" "$workdir/views.man" "--help's views" "$workdir/views.help"
	differ "--help's views" "$workdir/views.help" "the completion's views" "$workdir/views.comp"
	differ "the completion's views" "$workdir/views.comp" "--help's views" "$workdir/views.help"
	say "xcapanalyse: $n views in --help compared with man/xcapanalyse.1's Views and the completion's"
fi
[ -z "$problems" ] || fail "options that are not everywhere:$problems"
[ $checked -ge 4 ] || fail "checked only $checked commands"
exit 0
