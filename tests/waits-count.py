#!/usr/bin/python3
"""waits-count.py — count, from `xcapanalyse --dump`, the requests a client
waited on, by name, without the state model: a client that falls silent
(sends no new bytes) with requests that want a reply (or its connection
setup) outstanding, and gets an answer before it sends again, waited on
the earliest of them it had no answer to.  (The state model also splits a
silence at gaps in the replies; compare with its --split-fraction 0.)
A wait in which a request or an answer has a number the decoder flags
uncertain is not counted: which request the answer is for is a guess.

usage: waits-count.py DUMP   (prints NAME COUNT lines, sorted)
"""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dumpfile  # noqa: E402


def main():
    # conn -> [(seq, name, ext, void request it checks)], oldest first
    outstanding = collections.defaultdict(list)
    waited = {}        # conn -> [(ext, name), unsure, last seq] of the wait in its silence
    previous = {}      # conn -> (seq, wants a reply, time) of its last request
    high = {}          # conn -> highest client sequence number byte seen
    counts = collections.Counter()
    proto = {}         # conn -> its decoder ("x11", "rfb")
    for kind, f in dumpfile.records(sys.argv[1], ('conn', 'pkt', 'msg')):
        if kind == 'conn':
            proto[f['id']] = f.get('proto', '')
            continue
        conn = f['conn']
        if kind == 'pkt' and f['dir'] == 'c2s' and int(f['len']) > 0:
            end = (int(f['seq']) + int(f['len'])) & 0xffffffff
            last = high.get(conn)
            if last is None or 0 < ((end - last) & 0xffffffff) < 1 << 31:
                high[conn] = end
                if conn in waited:            # the client sent again
                    w = waited.pop(conn)
                    if not w[1]:
                        counts[w[0]] += 1
        elif kind == 'msg' and f['dir'] == 'c2s' and f['kind'] in ('request', 'setup'):
            wants = f['kind'] == 'setup' or 'wants-reply' in f['flags'].split(',')
            if wants:
                # A GetInputFocus in the packet of the void request before
                # it checks that request (xcb_request_check): an error for
                # the void request answers it.
                p = previous.get(conn)
                checks = (p and not p[1] and p[0] + 1 == int(f['seq']) and p[2] == f['t'] and
                          f['name'] == 'GetInputFocus' and f['ext'] == '-')
                outstanding[conn].append((int(f['seq']), f['name'], f['ext'],
                                          p[0] if checks else None,
                                          'uncertain' in f['flags'].split(',')))
            previous[conn] = (int(f['seq']), wants, f['t'])
        elif kind == 'msg' and f['dir'] == 's2c' and f['kind'] in ('reply', 'error', 'setup'):
            seq, out = int(f['seq']), outstanding[conn]
            unsure = 'uncertain' in f['flags'].split(',')
            if conn in waited and waited[conn][2] == seq:   # another answer to it
                waited[conn][1] |= unsure
                continue
            if f['kind'] == 'error' and out and out[0][3] == seq:
                seq = out[0][0]
            while out and out[0][0] < seq:
                out.pop(0)
            if out and out[0][0] == seq:
                if conn not in waited:
                    # No extension is X11's "core"; RFB has no such word.
                    ext = out[0][2]
                    if ext == '-':
                        ext = 'core' if proto.get(conn, 'x11') == 'x11' else ''
                    waited[conn] = [(ext, out[0][1]), False, seq]
                waited[conn][1] |= unsure or out[0][4]
                waited[conn][2] = seq
                out.pop(0)
    for w in waited.values():
        if not w[1]:
            counts[w[0]] += 1
    for (ext, name), n in sorted(counts.items()):
        print('%s %s %d' % (ext, name, n))


if __name__ == '__main__':
    main()
