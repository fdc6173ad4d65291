#!/bin/sh
# completion-zsh.sh — the zsh completion (completion/_xcap): loaded as
# compinit loads it, it registers all six commands, and the bash
# completion it runs through bashcompinit offers in zsh what it offers in
# bash: xcapanalyse's formats (also after "--format="), the interfaces,
# connection ids read from the trace, trace files by extension, netplot's
# directions.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need zsh xcap xcapanalyse
src=$(cd "$top_srcdir" && pwd)
cp "$top_srcdir/tests/captures/xdpyinfo-xlogo.pcap" "$workdir/c.pcap"
: >"$workdir/notes.txt"
ids=$(xcapanalyse --connections --format csv "$workdir/c.pcap" | awk -F, 'NR > 1 { print $1 }' | sort -u | tr '\n' ' ')
[ -n "$ids" ] || fail "no connections in the capture"
ifaces=$( (echo any; ls /sys/class/net) | sort -u | tr '\n' ' ')

# Each "offer WORD..." prints what the function for WORD's command offers
# for the last word, COMP_WORDS and COMP_CWORD set as bashcompinit's
# _bash_complete sets them (zsh narrows the list by what was typed).
(cd "$workdir" && XCAP_BASH_COMPLETION="$src/completion/xcap.bash" \
	zsh -f -c '
	fpath=("$1" $fpath)
	autoload -U compinit && compinit -u -D
	print -r -- "compinit found: $_comps[xcap-sweep]"
	autoload -U _xcap && _xcap
	for c in xcap xcapanalyse netplot xcap-link xcap-sweep xcap-run xcap-replay; do
		print -r -- "registered $c: $_comps[$c]"
	done
	offer() {
		local -a COMP_WORDS; local COMP_CWORD
		words=("$@"); CURRENT=$#
		COMP_WORDS=("$@"); (( COMP_CWORD = $# - 1 ))
		print -rn -- "$*: "
		compgen -F "_xcap_${1//-/_}" -- "${@[-1]}" | sort -u | tr "\n" " "
		print
	}
	offer xcapanalyse --format ""
	offer xcapanalyse --format=
	offer xcap -i ""
	offer xcapanalyse c.pcap --conn ""
	offer xcapanalyse --delays ""
	offer netplot --direction ""
	' zsh "$src/completion") >"$workdir/out" 2>&1 || fail "zsh failed: $(cat "$workdir/out")"
cat "$workdir/out"
grep -qx "compinit found: _xcap" "$workdir/out" || fail "compinit did not find _xcap for xcap-sweep"
for c in xcap xcapanalyse netplot xcap-link xcap-sweep xcap-run xcap-replay; do
	f=_xcap_$(echo "$c" | tr - _)
	grep -qx "registered $c: _bash_complete -F $f" "$workdir/out" ||
		fail "zsh has no completion for $c: $(grep "registered $c:" "$workdir/out")"
done
# want WORDS... : WANT — the line for WORDS offers exactly WANT.
want() {
	grep -qxF "$1: $2" "$workdir/out" || fail "zsh offers for '$1': $(grep -F "$1: " "$workdir/out"), not '$2'"
}
want 'xcapanalyse --format ' 'csv json markdown ndjson text tsv '
want 'xcapanalyse --format=' 'csv json markdown ndjson text tsv '
want 'xcap -i ' "$ifaces"
want 'xcapanalyse c.pcap --conn ' "$ids"
want 'xcapanalyse --delays ' 'c.pcap '
want 'netplot --direction ' 'reply request '
