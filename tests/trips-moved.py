#!/usr/bin/python3
"""trips-moved.py A.key B.key: the same round trips, one a line
("CONN SEQ EXT:REQUEST ANSWER"), but for waits that one view gives to
the request right before or after the one the other view names.

For tests/run-sites.sh, which sees one client's run from two places: the
relay, where the client's requests arrive, and a capture on lo of the
relay's own connection to the X server.  When the client writes two
requests one after the other and waits, the relay may forward them in two
writes, and the reply to the first may come back between them: on that
wire the first request was a round trip, at the client the second one.
Prints how many waits moved so; exits 1 when the files differ otherwise
or more than two moved."""
import sys

a = open(sys.argv[1]).read().splitlines()
b = open(sys.argv[2]).read().splitlines()
if len(a) != len(b):
    sys.exit(1)
moved = 0
for x, y in zip(a, b):
    if x == y:
        continue
    xs, ys = x.split(), y.split()
    if (len(xs) < 4 or len(ys) < 4 or xs[0] != ys[0] or xs[-1] != ys[-1]
            or abs(int(xs[1]) - int(ys[1])) != 1):
        sys.exit(1)
    moved += 1
print(moved)
sys.exit(0 if moved <= 2 else 1)
