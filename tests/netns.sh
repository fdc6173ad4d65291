# netns.sh — emulated links between two network namespaces, for the tests
# (sourced after lib.sh; needs root, ip(8), /dev/net/tun and xcap-link).
# The namespaces and the forwarder are set up by xcap-sweep's own library
# (xcap/cmd/xcap-sweep/netns.sh), the build tree's copy beside the sweep:
# the tests set up links as the sweep does; here are their verdicts.
#
# make_link NAME RATE_A2B RATE_B2A DELAY_MS [QUEUE_BYTES [XCAP-LINK OPTION...]]
#	Creates namespaces ${NAME}c (the client, 10.77.0.1/24) and ${NAME}s
#	(the server, 10.77.0.2/24), each with lo up and IPv6 off (so only the
#	test's own packets cross), and runs xcap-link between them, the
#	client on side A.  Rates are bits per second (k, M, G; 0 unlimited),
#	DELAY_MS the one-way delay ("A2B,B2A" for two); an empty QUEUE_BYTES
#	keeps xcap-link's default.  Returns once both devices carry their
#	addresses, and sets:
#	  link_ns_c, link_ns_s       the namespaces
#	  link_dev_c, link_dev_s     the tun device in each
#	  link_addr_c, link_addr_s   their addresses
#	  link_pid                   the forwarder
#	  link_log                   its standard error (start line, summary)
#	Everything is undone at exit, however the test ends.  Options in
#	$link_opts (split on blanks) go to every xcap-link before the others.
#
# link_down NAME
#	Stops the forwarder with SIGTERM (its summary goes to the log) and
#	deletes the namespaces; returns the forwarder's exit status.

. "$top_builddir/xcap/netns.sh" || fail "cannot read the sweep's namespace set-up: '$top_builddir/xcap/netns.sh'"

link_dev_c=xlink-c
link_dev_s=xlink-s
link_addr_c=10.77.0.1
link_addr_s=10.77.0.2

# in_ns NS CMD...: run CMD inside a namespace.
in_ns() { _in_ns=$1; shift; ip netns exec "$_in_ns" "$@"; }

link_down() {
	_ld_status=0
	if [ -s "$workdir/$1.link.pid" ]; then
		_ld_pid=$(cat "$workdir/$1.link.pid")
		rm -f "$workdir/$1.link.pid"
		netns_link_stop "$_ld_pid"
		_ld_status=$?
	fi
	netns_del "${1}c" "${1}s"
	return $_ld_status
}


# start_xvfb_ns GEOMETRY LOG [PREFIX...]: an Xvfb on TCP in the link's
# server namespace (after make_link), on the first free display from one
# this test's pid picks (the lock files are shared with the host), started
# under PREFIX (chrt, say) when given; waits until the client's side can
# reach it.  Sets n (the display) and xpid.
start_xvfb_ns() { start_xvfb_in "$link_ns_s" "$link_ns_c" "$link_addr_s" "$@"; }

# start_xvfb_in SERVER-NS CLIENT-NS ADDRESS GEOMETRY LOG [PREFIX...]: the
# same in any namespace, ready once CLIENT-NS reaches it at ADDRESS (a
# namespace's own loopback: the same namespace twice and 127.0.0.1).
start_xvfb_in() {
	_xn_sns=$1 _xn_cns=$2 _xn_addr=$3 _xn_geometry=$4 _xn_log=$5; shift 5
	n=$(( ($$ % 40) + 20 ))
	_xn_tries=0
	while :; do
		if [ ! -e "/tmp/.X$n-lock" ]; then
			"$@" ip netns exec "$_xn_sns" Xvfb ":$n" -listen tcp -nolisten unix -ac $(xvfb_noreset) \
				-screen 0 "$_xn_geometry" >"$_xn_log" 2>&1 &
			xpid=$!
			wait_for ip netns exec "$_xn_cns" xdpyinfo -display "$_xn_addr:$n" && return 0
			kill "$xpid" 2>/dev/null; wait "$xpid" 2>/dev/null
		fi
		n=$((n + 1)); [ $n -gt 63 ] && n=20
		_xn_tries=$((_xn_tries + 1)); [ $_xn_tries -gt 40 ] && fail "no Xvfb in $_xn_sns"
	done
}

make_link() {
	[ $# -ge 4 ] || fail "make_link NAME RATE_A2B RATE_B2A DELAY_MS [QUEUE [OPTION...]]"
	_ml_name=$1 _ml_ab=$2 _ml_ba=$3 _ml_delay=$4
	_ml_queue=${5:-}
	shift 4
	if [ $# -gt 0 ]; then shift; fi
	link_ns_c=${_ml_name}c
	link_ns_s=${_ml_name}s
	link_log=$workdir/$_ml_name.link.err
	_ml_ready=$workdir/$_ml_name.link.ready
	rm -f "$_ml_ready"

	# Registered first, so a failure anywhere below still cleans up.
	at_exit "link_down '$_ml_name'"
	for _ml_ns in "$link_ns_c" "$link_ns_s"; do
		netns_add "$_ml_ns"
		case $? in
		1) skip "cannot create network namespace $_ml_ns: $netns_err" ;;
		2) fail "cannot bring lo up in $_ml_ns" ;;
		esac
	done

	: >"$link_log"
	# shellcheck disable=SC2086
	netns_link_start "$link_ns_c" "$link_ns_s" "$link_dev_c" "$link_dev_s" "$_ml_ready" "$link_log" \
		--rate "$_ml_ab,$_ml_ba" --delay "$_ml_delay" \
		${_ml_queue:+--queue "$_ml_queue"} $link_opts "$@"
	_ml_status=$?
	link_pid=$netns_link_pid
	[ -z "$link_pid" ] || echo "$link_pid" >"$workdir/$_ml_name.link.pid"
	case $_ml_status in
	1) fail "xcap-link did not start: $(cat "$link_log")" ;;
	2) fail "xcap-link not up after 10 s: $(cat "$link_log")" ;;
	esac
	ip -n "$link_ns_c" addr add "$link_addr_c/24" dev "$link_dev_c" ||
		fail "cannot give $link_dev_c an address in $link_ns_c"
	ip -n "$link_ns_s" addr add "$link_addr_s/24" dev "$link_dev_s" ||
		fail "cannot give $link_dev_s an address in $link_ns_s"
}
