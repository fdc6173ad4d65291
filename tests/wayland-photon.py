#!/usr/bin/python3
"""wayland-photon.py — xcapanalyse --input-to-photon's compositor figure
held to the one tests/wl-photon.c takes from the same events.

usage: wayland-photon.py CLIENT-LOG INPUT-TO-PHOTON-CSV

The client prints one line per key it read, once its frame's feedback
is answered: the key's time (ms), the presented time and clock, and its
own input to photon (presented less the key's time) or "-" when the key
had no time.  Each row of the capture's table (in order) must be that
key: answered by a presented frame, and with a compositor figure exactly
when the client has one, the two within 1 ms (the key's time is in whole
ms: the capture's figure over waypipe brings the presented time back
from CLOCK_REALTIME by an offset it estimates).  The clock the client
was told must be CLOCK_MONOTONIC_RAW (4), the clock the test's typist
stamps its keys in.  Prints a line per key and a summary; exits 1 on a
disagreement.
"""
import csv
import re
import sys

KEY = re.compile(r'^key (\d+) time_ms=(\d+) stamp_ns=(\S+) presented_ns=(\S+) clock=(\d+) photon_ns=(\S+)$')


def main():
    log, table = sys.argv[1:3]
    keys = [KEY.match(line.strip()) for line in open(log)]
    keys = [k for k in keys if k]
    rows = list(csv.DictReader(open(table)))
    bad = []
    if len(rows) != len(keys):
        bad.append('%d inputs in the capture, %d keys in the client' % (len(rows), len(keys)))
    both = worst = 0
    for i, (r, k) in enumerate(zip(rows, keys)):
        own = None if k.group(6) == '-' else int(k.group(6)) / 1e6
        wire = float(r['photon']) * 1e3 if r['photon'] else None
        if k.group(4) == 'discarded' or not r['presented']:
            bad.append('input %d: not presented (%s in the client)' % (i + 1, k.group(4)))
            continue
        if k.group(5) != '4':
            bad.append('input %d: clock %s, not 4' % (i + 1, k.group(5)))
        if (own is None) != (wire is None):
            bad.append('input %d: a compositor figure in %s only'
                       % (i + 1, 'the client' if wire is None else 'the capture'))
            continue
        if own is None:
            print('input %d (%s %s): key time 0, no compositor figure in either' % (i + 1, r['kind'], r['what']))
            continue
        both += 1
        worst = max(worst, abs(wire - own))
        # The wire's figure is the client's less the offset estimate's
        # error: up to 1 ms from the key times' whole milliseconds, plus
        # the difference of the two shortest paths from the compositor
        # to the capture (xcap/response_model.c), 1 ms at most here.
        ok = abs(wire - own) <= 2.0
        print('input %d (%s %s): input to photon %.3f ms in the capture (%s), %.3f ms in the client%s'
              % (i + 1, r['kind'], r['what'], wire, r['clock'], own, '' if ok else '  <- disagrees'))
        if not ok:
            bad.append('input %d: %.3f ms in the capture, %.3f ms in the client' % (i + 1, wire, own))
    print('%d inputs, all presented; %d with the compositor figure in both, at most %.3f ms apart'
          % (len(rows), both, worst))
    if not both:
        bad.append('no input with a compositor figure')
    if bad:
        sys.exit('wayland-photon: ' + '; '.join(bad))


main()
