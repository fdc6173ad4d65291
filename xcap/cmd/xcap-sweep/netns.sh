# netns.sh — two network namespaces joined by xcap-link: the set-up that
# xcap-sweep and the tests (tests/netns.sh) share.  Sourced by sh; it
# defines functions and runs nothing.  Each returns a status and leaves
# the words to its caller, which dies (the sweep) or skips or fails (a
# test) in its own way.  Needs root, ip(8), /dev/net/tun and xcap-link.
#
# Installed in the package's data folder (pkgdatadir); xcap-sweep takes
# the copy next to itself first (the build tree's), then that one.
#
# Belongs to: the xcap-sweep command's room (xcap/cmd/xcap-sweep/).

# netns_add NS: the namespace made, with lo up and IPv6 off, so that only
# its user's own packets cross (no router solicitations).  1 when it
# cannot be made (ip's words in $netns_err), 2 when lo will not come up.
netns_add() {
	netns_err=$(ip netns add "$1" 2>&1) || {
		netns_err=$(printf '%s' "$netns_err" | tr '\n' ' ' | sed 's/ *$//')
		return 1
	}
	ip -n "$1" link set lo up || return 2
	ip netns exec "$1" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6' 2>/dev/null
	return 0
}

# netns_link_start NS_A NS_B DEV_A DEV_B READY LOG [XCAP-LINK OPTION...]:
# xcap-link between the two namespaces (side A in NS_A, on a tun device
# DEV_A), in the background ($netns_link_pid), its standard error added
# to LOG.  Returns once READY says both devices are up; 1 when xcap-link
# ended first (waited for: netns_link_pid is empty), 2 when it is not up
# after 10 s (still running).
netns_link_start() {
	_nl_a=$1 _nl_b=$2 _nl_da=$3 _nl_db=$4 _nl_ready=$5 _nl_log=$6
	shift 6
	rm -f "$_nl_ready"
	xcap-link --ns-a "$_nl_a" --ns-b "$_nl_b" --dev-a "$_nl_da" --dev-b "$_nl_db" \
		--ready "$_nl_ready" "$@" 2>>"$_nl_log" &
	netns_link_pid=$!
	_nl_i=0
	until [ -s "$_nl_ready" ]; do
		kill -0 "$netns_link_pid" 2>/dev/null || {
			wait "$netns_link_pid" 2>/dev/null
			netns_link_pid=
			return 1
		}
		_nl_i=$((_nl_i + 1))
		[ $_nl_i -gt 100 ] && return 2
		sleep 0.1
	done
	return 0
}

# netns_link_stop PID: the forwarder stopped with SIGTERM (its summary
# goes to its log) and waited for; its exit status.
netns_link_stop() {
	kill -TERM "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# netns_del NS...: the namespaces deleted.  What still runs inside one
# keeps running (deleting a namespace does not end its processes): end
# it first (ip netns pids NS).
netns_del() {
	for _nd_ns; do
		ip netns del "$_nd_ns" 2>/dev/null
	done
	return 0
}
