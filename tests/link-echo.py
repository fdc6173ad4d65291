#!/usr/bin/python3
"""link-echo.py — what a round trip across a link takes, by a TCP echo.

usage: link-echo.py serve ADDRESS PORT
       link-echo.py probe ADDRESS PORT COUNT PAUSE_MS
       link-echo.py wake COUNT PAUSE_MS

serve answers every byte it is sent with the same byte, one connection
at a time, until killed.  probe connects, sends one byte and waits for
it back, COUNT times, pausing PAUSE_MS between round trips, and prints
the median round trip in microseconds (the first five left out: the
connection's own start).  Both sides send at once (TCP_NODELAY), so a
round trip is one segment each way: 53 bytes of IPv4 with TCP's
timestamps.

wake serves and probes on loopback itself (a child process answers, on a
port the system picks), COUNT round trips back to back and COUNT with
PAUSE_MS between them, and prints half the difference of their medians
in microseconds: what waking after such a pause costs one process, the
figure xcapanalyse --wake-time wants (xcapanalyse(1), PREDICTION: Waking).

The prediction tests (tests/predict-lib.sh) probe each fast emulated
link with it, and the same echo on loopback with a pause as long as the
link's round trip, so that the echo's two processes sleep as long as
they do across the link: what the link's round trip takes beyond its
delay, its serialisation and that loopback round trip is the emulator's
own (xcapanalyse(1), PREDICTION: Accuracy).
"""
import os
import socket
import statistics
import sys
import time


def echo(s):
    """Answer one connection accepted on s until its peer closes it."""
    c, _ = s.accept()
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while True:
        b = c.recv(4096)
        if not b:
            break
        c.sendall(b)
    c.close()


def serve(address, port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((address, port))
    s.listen(1)
    while True:
        echo(s)


def round_trips(c, count, pause):
    took = []
    for _ in range(count + 5):
        t = time.perf_counter()
        c.sendall(b"x")
        if c.recv(1) != b"x":
            sys.exit("link-echo: the echo did not answer")
        took.append(time.perf_counter() - t)
        if pause:
            time.sleep(pause)
    return statistics.median(took[5:])


def wake(count, pause):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    port = s.getsockname()[1]
    child = os.fork()
    if child == 0:
        echo(s)
        os._exit(0)
    s.close()
    c = socket.create_connection(("127.0.0.1", port), timeout=10)
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    hot = round_trips(c, count, 0)
    slept = round_trips(c, count, pause)
    c.close()
    os.waitpid(child, 0)
    print("%.0f" % (max(0.0, slept - hot) / 2 * 1e6))


def probe(address, port, count, pause):
    try:
        c = socket.create_connection((address, port), timeout=10)
    except OSError as e:
        sys.exit("link-echo: cannot connect to %s:%d: %s" % (address, port, e))
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    print("%.0f" % (round_trips(c, count, pause) * 1e6))


if len(sys.argv) == 4 and sys.argv[1] == "serve":
    serve(sys.argv[2], int(sys.argv[3]))
elif len(sys.argv) == 6 and sys.argv[1] == "probe":
    probe(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]) / 1e3)
elif len(sys.argv) == 4 and sys.argv[1] == "wake":
    wake(int(sys.argv[2]), float(sys.argv[3]) / 1e3)
else:
    sys.exit(__doc__)
