#!/bin/sh
# x-reset.sh — the tests' X servers do not drop a client that connects as
# the last one leaves.
#
# An X server resets when its last client leaves, and closes, without a
# reply, a connection it accepted while it handled that leaving: the
# client says only that it cannot open the display.  On a loaded machine
# a test's first client often comes as start_xvfb's readiness probe
# leaves (flight and flight-response failed so in CI).  The servers the
# tests start run with -noreset.  Here the race is made certain: the
# server is stopped while its one client leaves and a new one connects,
# then let go, so that it sees both at once.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
need python3 xdpyinfo
start_xvfb
python3 - "$display" "$xpid" <<'PY' || fail "a client connecting as the last one left was dropped (above)"
import os, signal, socket, struct, subprocess, sys, time
n, pid = int(sys.argv[1]), int(sys.argv[2])

def client():
    # A connection past its setup: little-endian, protocol 11.0, no auth.
    s = socket.create_connection(("127.0.0.1", 6000 + n), 5)
    s.sendall(struct.pack("<BxHHHHxx", 0x6c, 11, 0, 0, 0))
    if s.recv(8)[:1] != b"\x01":
        raise SystemExit("the server refused the setup")
    return s

dropped = 0
s = client()
for k in range(10):
    os.kill(pid, signal.SIGSTOP)
    try:
        s.close()
        new = subprocess.Popen(["xdpyinfo", "-display", "127.0.0.1:%d" % n],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(0.2)	# connected and waiting in the backlog
    finally:
        os.kill(pid, signal.SIGCONT)
    if new.wait(10):
        dropped += 1
        print("round %d: %s" % (k + 1, new.stderr.read().decode().strip()))
    s = client()
print("%d of 10 clients that came as the last one left were dropped" % dropped)
sys.exit(1 if dropped else 0)
PY
say "10 clients that came as the last one left were all served"
