#!/bin/sh
# completion.sh — the bash completion (completion/xcap.bash) offers what
# the commands take: interfaces from /sys/class/net, xcapanalyse's views
# and formats, connection ids read from the trace on the command line
# (the ids xcapanalyse --connections lists), netplot's directions, export
# files by extension, xcap-sweep's --via list items and its X client.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need bash xcapanalyse
bc=/usr/share/bash-completion/bash_completion
need bash-completion
comp_file=$top_srcdir/completion/xcap.bash

# complete CMD WORD... CURRENT: the completions bash offers for the last
# word, one a line, sorted.
complete_words() {
	(cd "$workdir" && bash -c '
		. "$1"; . "$2"; shift 2
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		f=$(complete -p "$1" | sed "s/.* -F \([^ ]*\) .*/\1/")
		"$f" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		[ ${#COMPREPLY[@]} -gt 0 ] && printf "%s\n" "${COMPREPLY[@]}"' sh "$bc" "$comp_file" "$@") |
		sort -u | tr '\n' ' ' | sed 's/ $//'
}
# expect WANT CMD WORD...: the completions are exactly WANT.
expect() {
	want=$1; shift
	got=$(complete_words "$@")
	[ "$got" = "$want" ] || fail "completing '$*': got '$got', want '$want'"
	say "'$*' -> $got"
}

ifaces=$( (echo any; ls /sys/class/net) | sort -u | tr '\n' ' ' | sed 's/ $//')
expect "$ifaces" xcap -i ''
expect "csv json markdown ndjson text tsv" xcapanalyse --format ''
expect "--range --rates --release-ms --requests --responses --responses-summary --round-trips --rtt" xcapanalyse --r
expect "auto client server" xcapanalyse --capture-side ''
# one view a command line: after one, no other is offered
expect "--range --rates --release-ms --rtt" xcapanalyse --requests --r
expect "--range --rates --release-ms --rtt" xcapanalyse t.xcap --compare --r
expect "reply request" netplot --direction ''

cp "$top_srcdir/tests/captures/xdpyinfo-xlogo.pcap" "$workdir/c.pcap"
xcap -q -r "$workdir/c.pcap" -w "$workdir/t.xcap" || fail "cannot make a trace"
for f in c.pcap t.xcap; do
	ids=$(xcapanalyse --connections --format csv "$workdir/$f" | awk -F, 'NR > 1 { print $1 }' | sort -u | tr '\n' ' ' | sed 's/ $//')
	[ -n "$ids" ] || fail "no connections in $f"
	expect "$ids" xcapanalyse "$f" --conn ''
	expect "$ids" netplot "$f" -c ''
	expect "$(echo "$ids" | sed 's/[0-9]*/1,&/g')" xcapanalyse "$f" --conn 1,
done
expect "t.xcap" xcapanalyse --delays t
mkdir "$workdir/pics"
: >"$workdir/p.png"; : >"$workdir/p.txt"
expect "p.png pics" netplot t.xcap --export p
expect "raw,ssh raw,ssh-compressed" xcap-sweep --via raw,s
expect "auto netem xcap-link" xcap-sweep --link ''
expect "xdpyinfo" xcap-sweep --rates 1M,100k xdpyinf
exit 0
