#!/usr/bin/python3
"""x11-lossy-compare.py CLEAN-DUMP DAMAGED-DUMP MIN-NOTES [MAX-MISSING[%]]

Compares the decode of a damaged capture with the decode of the clean one
it was cut from.  The damaged decode must invent nothing: every message it
reports is one the clean decode has at the same TCP position (client port,
direction, end offset), of the same kind and length, with the same name
unless it says it is unsure.  It must say what it could not decode (at
least MIN-NOTES notes) and recover: of the clean messages after the first
one it reports, at most MAX-MISSING (default 3), or that percentage of
them, are missing.  Prints what
it found; exits 1 on any failure."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dumpfile


def load(path):
    ports, msgs, notes = {}, {}, []
    for kind, f in dumpfile.records(path):
        if kind == 'conn':
            ports[f['id']] = f['client']
        elif kind == 'msg':
            msgs[(ports[f['conn']], f['dir'], f['end'])] = f
        elif kind == 'note':
            notes.append(f.get('text', ''))
    return msgs, notes


def main():
    full, _ = load(sys.argv[1])
    part, notes = load(sys.argv[2])
    min_notes = int(sys.argv[3])
    limit = sys.argv[4] if len(sys.argv) > 4 else '3'
    bad = 0
    invented = 0
    for key, m in part.items():
        f = full.get(key)
        if f is None:
            invented += 1
            if invented <= 10:
                print('invented: %s' % (m,))
            bad += 1
            continue
        for k in ('kind', 'length'):
            if m[k] != f[k]:
                print('%s differs at %s: %s vs %s' % (k, key, m[k], f[k]))
                bad += 1
        if m['name'] != f['name'] and 'uncertain' not in m['flags']:
            print('name differs at %s without uncertain: %s vs %s' % (key, m['name'], f['name']))
            bad += 1
    # What follows the damage: messages of the clean decode after the first
    # message the damaged one reports, per connection and direction.
    first = {}
    for (port, d, end), m in part.items():
        t = float(m['t'])
        first[(port, d)] = min(first.get((port, d), t), t)
    after = [k for k, m in full.items()
             if (k[0], k[1]) in first and float(m['t']) >= first[(k[0], k[1])]]
    missing = [k for k in after if k not in part]
    if limit.endswith('%'):
        max_missing = int(limit[:-1]) * len(after) // 100
    else:
        max_missing = int(limit)
    print('%d messages decoded (%d invented), %d of the %d after the damage missing, %d notes'
          % (len(part), invented, len(missing), len(after), len(notes)))
    if len(missing) > max_missing:
        print('missing: %s' % missing[:10])
        bad += 1
    if len(notes) < min_notes:
        print('expected notes about the damage, got %s' % notes)
        bad += 1
    sys.exit(1 if bad else 0)


main()
