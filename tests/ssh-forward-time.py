#!/usr/bin/python3
"""ssh-forward-time.py — what ssh and sshd add to a round trip on this
machine, from captures of the same client on loopback, directly and
through ssh -X -C (the way xcapanalyse(1), PREDICTION: ssh -C tells a user
to measure it).

usage: ssh-forward-time.py DIRECT.csv... -- THROUGH-SSH.csv...

Each CSV is `xcapanalyse --round-trips --format csv` of one capture; the
i-th of each way make a pair.  For each pair: the mean wait of a round
trip through ssh less the mean wait of one made directly (the sum of the
waits is the Block Reply of the capture).  Prints the median over the
pairs in ms (a capture on a busy machine may hold a stall of the load's),
then a line with every pair's figure.
"""
import csv
import statistics
import sys


def mean_wait(f):
    w = [float(r["wait"]) for r in csv.DictReader(open(f))]
    if not w:
        sys.exit("ssh-forward-time: no round trips in %s" % f)
    return sum(w) / len(w), len(w)


args = sys.argv[1:]
if "--" not in args:
    sys.exit(__doc__)
cut = args.index("--")
direct, ssh = args[:cut], args[cut + 1:]
if not direct or len(direct) != len(ssh):
    sys.exit("ssh-forward-time: as many captures through ssh as direct, at least one")
pairs = []
for d, s in zip(direct, ssh):
    (md, nd), (ms, ns) = mean_wait(d), mean_wait(s)
    pairs.append((max(0.0, ms - md) * 1e3, md * 1e3, nd, ms * 1e3, ns))
print("%.3f" % statistics.median(p[0] for p in pairs))
print("; ".join("%.3f ms (a round trip %.3f ms of %d directly, %.3f ms of %d through ssh)" % p
                for p in pairs))
