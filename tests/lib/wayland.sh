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

# waypipe_over_link PORT: `waypipe client` beside sway ($workdir/sway/
# wayland-1) in the link's server namespace, reached over the link's TCP
# PORT from $workdir/app.sock in the client's namespace (socat at both
# ends): `waypipe --socket $workdir/app.sock server -- APP` runs APP.
waypipe_over_link() {
	XDG_RUNTIME_DIR=$workdir/sway WAYLAND_DISPLAY=wayland-1 $rt ip netns exec "$link_ns_s" \
		waypipe --socket "$workdir/client.sock" client >"$workdir/waypipe-client.log" 2>&1 &
	pids="$pids $!"
	wait_for test -S "$workdir/client.sock" || fail "waypipe client did not start"
	$rt ip netns exec "$link_ns_s" socat TCP-LISTEN:"$1",bind="$link_addr_s",reuseaddr,fork,nodelay \
		UNIX-CONNECT:"$workdir/client.sock" &
	pids="$pids $!"
	$rt ip netns exec "$link_ns_c" socat UNIX-LISTEN:"$workdir/app.sock",fork TCP:"$link_addr_s:$1",nodelay &
	pids="$pids $!"
	wait_for test -S "$workdir/app.sock" || fail "socat did not listen"
}
