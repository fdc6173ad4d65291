# tests/lib/wayland.sh — sway run as a user of the tests' own (it refuses
# to run as root) in an xcap-link's server namespace, and waypipe carrying
# its clients over the link's TCP.
#
# Belongs to: the tests' shell library (sourced by tests/lib.sh).

# sway_user OUTPUT: the user sway runs as ($user, made when missing; skip
# when it cannot be), $workdir/sway its XDG_RUNTIME_DIR, $workdir/app the
# application's, and $workdir/sway.conf holding the line OUTPUT.
sway_user() {
	user=xcapwl
	id "$user" >/dev/null 2>&1 || useradd -M -d /nonexistent -s /usr/sbin/nologin "$user" ||
		skip "cannot create the user sway runs as"
	mkdir -m 0700 "$workdir/sway" "$workdir/app"
	chown "$user" "$workdir/sway"
	chmod 755 "$workdir"
	printf '%s\n' "$1" >"$workdir/sway.conf"
	chmod 644 "$workdir/sway.conf"
}

# as_sway_user [NAME=VALUE...] COMMAND...: COMMAND in the link's server
# namespace as $user, its environment PATH, XDG_RUNTIME_DIR=$workdir/sway
# and the NAME=VALUEs only.
as_sway_user() {
	ip netns exec "$link_ns_s" setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups \
		env -i PATH=/usr/bin:/bin XDG_RUNTIME_DIR="$workdir/sway" "$@"
}

# waypipe_over_link [--nagle] [--compositor DIR NAME] [--tag TAG] PORT:
# `waypipe client` beside a compositor (default sway's: $workdir/sway/
# wayland-1; --compositor: XDG_RUNTIME_DIR DIR, WAYLAND_DISPLAY NAME) in
# the link's server namespace, reached over the link's TCP PORT from
# $wp_app_sock in the client's namespace (socat at both ends):
# `waypipe --socket "$wp_app_sock" server -- APP` runs APP.  The sockets
# are $workdir/client.sock and app.sock, or client-TAG.sock and
# app-TAG.sock with --tag (a link of each cell).
#
# By default socat sends each write at once (nodelay) and forks for each
# connection, and waypipe client and both socats run under "$rt"
# (want_realtime): the link's delay is the only delay.  --nagle leaves TCP
# as waypipe's own users have it: Nagle's algorithm on (a short answer
# waits for the peer's acknowledgement, which --predict --waypipe models),
# one connection, and nothing at real-time priority, as the prediction's
# long tests measure it.
waypipe_over_link() {
	_wp_nodelay=,nodelay _wp_fork=,fork _wp_rt=${rt:-}
	_wp_dir=$workdir/sway _wp_display=wayland-1 _wp_tag=
	while [ $# -gt 1 ]; do
		case $1 in
		--nagle) _wp_nodelay='' _wp_fork='' _wp_rt=''; shift ;;
		--compositor) _wp_dir=$2 _wp_display=$3; shift 3 ;;
		--tag) _wp_tag=-$2; shift 2 ;;
		*) fail "waypipe_over_link: unknown option '$1'" ;;
		esac
	done
	_wp_client=$workdir/client$_wp_tag.sock
	wp_app_sock=$workdir/app$_wp_tag.sock
	# (ip netns exec, not in_ns, for what runs in the background: its
	# pid is then the program's own, which the test stops)
	XDG_RUNTIME_DIR=$_wp_dir WAYLAND_DISPLAY=$_wp_display $_wp_rt ip netns exec "$link_ns_s" \
		waypipe --socket "$_wp_client" client >"$workdir/waypipe-client$_wp_tag.log" 2>&1 &
	pids="$pids $!"
	wait_for test -S "$_wp_client" || fail "waypipe client did not start"
	$_wp_rt ip netns exec "$link_ns_s" socat \
		TCP-LISTEN:"$1",bind="$link_addr_s",reuseaddr$_wp_fork$_wp_nodelay UNIX-CONNECT:"$_wp_client" &
	pids="$pids $!"
	$_wp_rt ip netns exec "$link_ns_c" socat UNIX-LISTEN:"$wp_app_sock"$_wp_fork TCP:"$link_addr_s:$1"$_wp_nodelay &
	pids="$pids $!"
	wait_for test -S "$wp_app_sock" || fail "socat did not listen"
}
