#!/usr/bin/python3
"""wayland-input.py — xcapanalyse --input-to-photon held to the client's
own WAYLAND_DEBUG=1 log.

usage: wayland-input.py DEBUG-LOG INPUT-TO-PHOTON-CSV

From the log (libwayland's own time of each message it read or sent, in
ms): each wl_keyboard.key, wl_pointer.button, wl_pointer.motion,
wl_touch.down or .up the client read, and the first wl_surface.commit it
sent after it, before the next input, of a surface given new content
(an attach or damage since that surface's last commit): the client's
own time from the input to the commit.  The capture's figure for the same
input (the rows in order) must be within 2 ms + 5 % of it.  Prints one
line per input and a summary; exits 1 on the first disagreement.
"""
import csv
import re
import sys

LINE = re.compile(r'^\[\s*([0-9.]+)\]\s+(->\s+)?([a-z_0-9]+)@(\d+)\.([a-z_0-9]+)\(')
INPUTS = {('wl_keyboard', 'key'), ('wl_pointer', 'button'), ('wl_pointer', 'motion'),
          ('wl_touch', 'down'), ('wl_touch', 'up')}


def client_figures(path):
    out = []
    dirty = set()
    cur = None
    for line in open(path, errors='replace'):
        m = LINE.match(line)
        if not m:
            continue
        t, sent, iface, oid, name = float(m.group(1)), bool(m.group(2)), m.group(3), m.group(4), m.group(5)
        if not sent and (iface, name) in INPUTS:
            cur = [t, None]
            out.append(cur)
        elif sent and iface == 'wl_surface':
            if name in ('attach', 'damage', 'damage_buffer'):
                dirty.add(oid)
            elif name == 'commit':
                if oid in dirty and cur is not None and cur[1] is None:
                    cur[1] = t
                dirty.discard(oid)
    return [(c[1] - c[0]) / 1000.0 if c[1] is not None else None for c in out]


def main():
    log, table = sys.argv[1:3]
    own = client_figures(log)
    rows = list(csv.DictReader(open(table)))
    bad = []
    if len(rows) != len(own):
        bad.append('%d inputs in the capture, %d in the log' % (len(rows), len(own)))
    both = 0
    for i, (r, o) in enumerate(zip(rows, own)):
        wire = float(r['commit']) if r['commit'] else None
        if (wire is None) != (o is None):
            bad.append('input %d: a commit with new content in %s only'
                       % (i + 1, 'the capture' if o is None else 'the log'))
            continue
        if wire is None:
            print('input %d (%s %s): no commit with new content' % (i + 1, r['kind'], r['what']))
            continue
        both += 1
        ok = abs(wire - o) <= 0.002 + 0.05 * o
        print('input %d (%s %s): to the commit %.3f ms on the wire, %.3f ms in the client%s'
              % (i + 1, r['kind'], r['what'], wire * 1e3, o * 1e3, '' if ok else '  <- disagrees'))
        if not ok:
            bad.append('input %d: %.3f ms on the wire, %.3f ms in the client' % (i + 1, wire * 1e3, o * 1e3))
    print('%d inputs, %d answered by a commit with new content in both' % (len(rows), both))
    if bad:
        sys.exit('wayland-input: ' + '; '.join(bad))


main()
