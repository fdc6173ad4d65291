#!/usr/bin/python3
"""x11-truth.py LOG DUMP — compare what xclient.py says it sent and received
with what the decoder reported (xcapanalyse --dump of a capture of it).
The capture holds one connection: the client's.  Everything must agree:
request numbers (widened), opcodes, reply numbers and names, event codes,
names and SendEvent flags, error codes, setup messages."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dumpfile  # noqa: E402


def from_log(path):
    out = []
    for line in open(path):
        w = line.split()
        d, kind, seq = w[0], w[1], w[2]
        seq = None if seq == '-' else int(seq)
        if kind == 'setup':
            out.append((d, kind, w[3]))
        elif kind == 'request':
            major, minor = w[3].split('.')
            out.append((d, kind, seq, int(major), int(minor)))
        elif kind == 'reply':
            out.append((d, kind, seq, w[3]))
        elif kind == 'event':
            out.append((d, kind, seq, int(w[3]), w[4], 'send-event' in w[5:]))
        elif kind == 'error':
            out.append((d, kind, seq, int(w[3])))
    return out


def from_dump(path):
    out = []
    for _, f in dumpfile.records(path, ('msg',)):
        d, kind, seq = f['dir'], f['kind'], int(f['seq'])
        if kind == 'setup':
            out.append((d, kind, f['name']))
        elif kind == 'request':
            out.append((d, kind, seq, int(f['major']), int(f['minor'])))
        elif kind == 'reply':
            out.append((d, kind, seq, f['name']))
        elif kind == 'event':
            code = int(f['major'])
            out.append((d, kind, None if code == 11 else seq, code, f['name'],
                        'send-event' in f['flags']))
        elif kind == 'error':
            out.append((d, kind, seq, int(f['major'])))
    return out


def main():
    truth, decoded = from_log(sys.argv[1]), from_dump(sys.argv[2])
    bad = 0
    for d in ('c2s', 's2c'):
        t = [m for m in truth if m[0] == d]
        o = [m for m in decoded if m[0] == d]
        for i, (a, b) in enumerate(zip(t, o)):
            if a != b:
                print('%s message #%d: the client says %s, the decoder %s' % (d, i, a, b))
                bad += 1
                break
        if len(t) != len(o):
            print('%s: the client has %d messages, the decoder %d' % (d, len(t), len(o)))
            bad += 1
    kinds = {}
    for m in truth:
        kinds[m[1]] = kinds.get(m[1], 0) + 1
    print('%d messages agree (%s)' % (len(truth), ', '.join('%d %s' % (n, k) for k, n in sorted(kinds.items()))))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
