# bash completion for xcap, xcapanalyse, netplot, xcap-link, xcap-sweep,
# xcap-run and xcap-replay (installed once per command name; each copy
# defines all seven).
#
# The option lists below are the commands' --help, word for word:
# tests/help-man.sh checks each against --help and the man page.

_xcap_opts_xcap='-i -r -w -c -G -C -W -B -Z -k -p -q --compressed-sizes --ring --before
	--after --trigger --no-index --decode -h --help -V --version'
# xcapanalyse's views, one of which a command line takes: xcapanalyse's
# table of views, in its order (tests/help-man.sh checks it against
# --help's list and the man page's Views).
_xcap_views_xcapanalyse='--delays --requests --round-trips --sites --trace-events --tcp-stats
	--responses --responses-summary --updates --frames --input-to-photon --connections --messages --marks --dump
	--predict --predict-round-trips --predict-responses --added-delay --added-delay-responses
	--added-delay-cdf --compare'
_xcap_opts_xcapanalyse="$_xcap_views_xcapanalyse"' --per-conn --sort --top --format --conn --range --decode
	--capture-side --rtt --elicit-slack --elicit-fraction --elicit-min-flight --no-backlog
	--wait-on --split-fraction --split-min --split-max --sites-file
	--mark-span --ideal-fps --slow-motion --slow-motion-fps
	--quiet-ms --first-ms --synthetic-inputs --no-fold-motion --release-ms --fail-if-worse -j --jobs
	--rates --latencies --mss
	--initial-window --no-idle-restart --trace-rate --time-dilation --ssh-compression --waypipe
	--ssh-forward-time --wake-time
	-h --help -V --version'
_xcap_opts_netplot='-e --export -c --conn -d --direction -r --range -g --graph -s --size
	--cdf --rates --trace-rate --no-inputs -b --benchmark -i --index -f --follow -h --help -V --version --display'
_xcap_opts_xcap_link='--ns-a --ns-b --dev-a --dev-b --rate --latency --delay --queue --loss
	--seed --mtu --ready --realtime --check -q --quiet -h --help -V --version'
_xcap_opts_xcap_sweep='-o --output --rates --latencies --delays --repeat --via --link --queue
	--display --timeout --replay --format -q --quiet -h --help -V --version'
_xcap_opts_xcap_run='--wayland --latency --delay --rate -w --no-stacks --report -q --quiet -h --help
	-V --version'
_xcap_opts_xcap_replay='-o --output --connection --no-motion --filter --pace --quiet
	--timeout --no-expect --display --rfb --offset --capture --interface --log -q
	--quiet-report -h --help -V --version'

# What every command reads.
_xcap_traces() { _filedir '@(xcap|pcap|pcapng|cap)'; }

# _xcap_conn_ids CMD: the connection ids of the first trace on the command
# line, read from it (xcapanalyse --connections --format csv); a list
# "1,2," is completed after its last comma.
_xcap_conn_ids() {
	local i w file= ids
	for ((i = 1; i < ${#COMP_WORDS[@]}; i++)); do
		((i == COMP_CWORD)) && continue
		w=${COMP_WORDS[i]}
		w=${w/#\~/$HOME}
		case $w in *.xcap | *.pcap | *.pcapng | *.cap) [[ -f $w ]] && { file=$w; break; } ;; esac
	done
	[[ $file ]] || return
	ids=$(xcapanalyse --connections --format csv -- "$file" 2>/dev/null |
		awk -F, 'NR > 1 && $1 ~ /^[0-9]+$/ { print $1 }')
	local prefix=
	[[ $cur == *,* ]] && prefix=${cur%,*},
	COMPREPLY=($(compgen -P "$prefix" -W "$ids" -- "${cur##*,}"))
}

_xcap_interfaces() {
	local d names=any
	for d in /sys/class/net/*; do [[ -e $d ]] && names+=" ${d##*/}"; done
	COMPREPLY=($(compgen -W "$names" -- "$cur"))
}

# _xcap_list WORDS: complete the last item of a comma-separated list.
_xcap_list() {
	local prefix=
	[[ $cur == *,* ]] && prefix=${cur%,*},
	COMPREPLY=($(compgen -P "$prefix" -W "$1" -- "${cur##*,}"))
}

_xcap_options() { COMPREPLY=($(compgen -W "$1" -- "$cur")); }

_xcap_xcap() {
	local cur prev words cword
	_init_completion || return
	case $prev in
	-i) _xcap_interfaces; return ;;
	-r) _filedir '@(pcap|pcapng|cap)'; return ;;
	-w) _filedir xcap; return ;;
	-Z) COMPREPLY=($(compgen -u -- "$cur")); return ;;
	-c | -G | -C | -W | -B | --ring | --before | --after) return ;;
	--trigger) COMPREPLY=($(compgen -W 'request= event= wait\> response\>' -- "$cur")); compopt -o nospace; return ;;
	--decode) COMPREPLY=($(compgen -W 'x11: rfb: wayland: waypipe:' -- "$cur")); compopt -o nospace; return ;;
	esac
	if [[ $cur == -* ]]; then
		_xcap_options "$_xcap_opts_xcap"
	else
		# the BPF filter
		COMPREPLY=($(compgen -W 'tcp port portrange host net src dst and or not' -- "$cur"))
	fi
}

_xcap_xcapanalyse() {
	local cur prev words cword split
	_init_completion -s || return
	case $prev in
	--format) COMPREPLY=($(compgen -W 'text csv json ndjson markdown tsv' -- "$cur")); return ;;
	--conn) _xcap_conn_ids; return ;;
	--decode) COMPREPLY=($(compgen -W 'x11: rfb: wayland: waypipe:' -- "$cur")); compopt -o nospace; return ;;
	--capture-side) COMPREPLY=($(compgen -W 'auto client server' -- "$cur")); return ;;
	--wait-on) COMPREPLY=($(compgen -W 'earliest latest last' -- "$cur")); return ;;
	--sites-file) _filedir sites; return ;;
	--slow-motion) _xcap_traces; return ;;
	--rates) COMPREPLY=($(compgen -W '100M,10M,1M,100k,10k' -- "$cur")); return ;;
	--latencies) COMPREPLY=($(compgen -W '0.1,1,10,100' -- "$cur")); return ;;
	--range | --rtt | --elicit-slack | --elicit-fraction | --elicit-min-flight | \
	--split-fraction | --split-min | --split-max | --quiet-ms | --first-ms | --release-ms | -j | --jobs | --mss | --initial-window | \
	--trace-rate | --time-dilation | --mark-span | --ideal-fps | --slow-motion-fps | \
	--ssh-forward-time | --wake-time) return ;;
	--fail-if-worse)
		COMPREPLY=($(compgen -W 'network-delay= block-reply= block-send= block-recv= span=
			round-trips= response-p50= response-p90= response-p95= response-p99=
			over-100ms=' -- "$cur"))
		compopt -o nospace 2>/dev/null
		return ;;
	esac
	$split && return
	if [[ $cur == -* ]]; then
		# One view a command line: once one is there, offer no other.
		local w v opts=" $(echo $_xcap_opts_xcapanalyse) "
		for w in "${words[@]:1:cword-1}"; do
			[[ " $(echo $_xcap_views_xcapanalyse) " == *" $w "* ]] || continue
			for v in $_xcap_views_xcapanalyse; do opts=${opts/ $v / }; done
			break
		done
		_xcap_options "$opts"
	else
		_xcap_traces
	fi
}

_xcap_netplot() {
	local cur prev words cword split
	_init_completion -s || return
	case $prev in
	-e | --export) _filedir '@(png|svg|pdf|xpl)'; return ;;
	-c | --conn) _xcap_conn_ids; return ;;
	-d | --direction) COMPREPLY=($(compgen -W 'request reply' -- "$cur")); return ;;
	-g | --graph) COMPREPLY=($(compgen -W 'tsg rtt tput owin ssize lanes' -- "$cur")); return ;;
	--cdf) COMPREPLY=($(compgen -W 'response-time bytes pixels inter-input added-delay
		added-delay-response' -- "$cur")); return ;;
	--rates) COMPREPLY=($(compgen -W '100M,10M,1M,100k,10k' -- "$cur")); return ;;
	-b | --benchmark) _xcap_traces; return ;;
	-r | --range | -s | --size | --display | --trace-rate) return ;;
	esac
	$split && return
	if [[ $cur == -* ]]; then
		_xcap_options "$_xcap_opts_netplot"
	else
		_xcap_traces
	fi
}

_xcap_xcap_link() {
	local cur prev words cword split
	_init_completion -s || return
	case $prev in
	--ns-a | --ns-b)
		local ns=
		[[ -d /run/netns ]] && ns=$(command ls /run/netns 2>/dev/null)
		COMPREPLY=($(compgen -W "$ns" -- "$cur"))
		[[ $cur == */* ]] && _filedir
		return ;;
	--ready) _filedir; return ;;
	--dev-a | --dev-b | --rate | --latency | --delay | --queue | --loss | --seed | --mtu) return ;;
	esac
	$split && return
	_xcap_options "$_xcap_opts_xcap_link"
}

_xcap_xcap_sweep() {
	local cur prev words cword split
	_init_completion -s || return
	# After the options, the X client and its arguments.
	local i
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--) _command_offset $((i + 1)); return ;;
		-o | --output | --rates | --latencies | --delays | --repeat | --via | --link | --queue | \
		--display | --timeout | --replay | --format) ((i++)) ;;
		-*) ;;
		*) _command_offset $i; return ;;
		esac
	done
	case $prev in
	-o | --output) _filedir -d; return ;;
	--via) _xcap_list 'raw ssh ssh-compressed'; return ;;
	--replay) _filedir session; return ;;
	--link) COMPREPLY=($(compgen -W 'auto netem xcap-link' -- "$cur")); return ;;
	--format) COMPREPLY=($(compgen -W 'text csv' -- "$cur")); return ;;
	--rates | --latencies | --delays | --repeat | --queue | --display | --timeout) return ;;
	esac
	$split && return
	if [[ $cur == -* ]]; then
		_xcap_options "$_xcap_opts_xcap_sweep"
	else
		COMPREPLY=($(compgen -c -- "$cur"))
	fi
}

_xcap_xcap_run() {
	local cur prev words cword split
	_init_completion -s || return
	# After the options (and --), the application and its arguments.
	local i
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--) _command_offset $((i + 1)); return ;;
		--latency | --delay | --rate | -w | --report) ((i++)) ;;
		-*) ;;
		*) _command_offset $i; return ;;
		esac
	done
	case $prev in
	-w) _filedir xcap; return ;;
	--report) _filedir md; return ;;
	--latency | --delay | --rate) return ;;
	esac
	$split && return
	if [[ $cur == -* ]]; then
		_xcap_options "$_xcap_opts_xcap_run"
	else
		COMPREPLY=($(compgen -c -- "$cur"))
	fi
}

_xcap_xcap_replay() {
	local cur prev words cword split
	_init_completion -s || return
	case $prev in
	-o | --output) _filedir session; return ;;
	--log) _filedir; return ;;
	--capture) _filedir xcap; return ;;
	--interface) COMPREPLY=($(compgen -W "$(command ls /sys/class/net 2>/dev/null)" -- "$cur")); return ;;
	--pace) COMPREPLY=($(compgen -W 'quiet recorded' -- "$cur")); return ;;
	--connection) _xcap_conn_ids; return ;;
	--filter | --quiet | --timeout | --display | --rfb | --offset) return ;;
	esac
	$split && return
	if [[ $cur == -* ]]; then
		_xcap_options "$_xcap_opts_xcap_replay"
	elif ((cword == 1)); then
		COMPREPLY=($(compgen -W 'record' -- "$cur"))
		_filedir session
	elif [[ ${words[1]} == record ]]; then
		_xcap_traces
	else
		_filedir session
	fi
}

complete -F _xcap_xcap xcap
complete -F _xcap_xcapanalyse xcapanalyse
complete -F _xcap_netplot netplot
complete -F _xcap_xcap_link xcap-link
complete -F _xcap_xcap_sweep xcap-sweep
complete -F _xcap_xcap_run xcap-run
complete -F _xcap_xcap_replay xcap-replay
