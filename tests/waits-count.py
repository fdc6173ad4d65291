#!/usr/bin/python3
"""waits-count.py — count, from `xcapanalyse --dump`, the requests a client
waited on, by name, without the state model: a request that wants a reply
(or a connection setup) is waited on when it is the last request before its reply (or error)
arrives and no new client data travels in between.

usage: waits-count.py DUMP   (prints NAME COUNT lines, sorted)
"""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dumpfile  # noqa: E402


def main():
    pending = {}       # conn -> (seq, name, ext) of the last request, if it wants a reply
    high = {}          # conn -> highest client sequence number byte seen
    counts = collections.Counter()
    for kind, f in dumpfile.records(sys.argv[1], ('pkt', 'msg')):
        if kind == 'pkt' and f['dir'] == 'c2s' and int(f['len']) > 0:
            conn = f['conn']
            end = (int(f['seq']) + int(f['len'])) & 0xffffffff
            last = high.get(conn)
            if last is None or 0 < ((end - last) & 0xffffffff) < 1 << 31:
                high[conn] = end
                pending.pop(conn, None)      # the client sent something new
        elif kind == 'msg' and f['dir'] == 'c2s' and f['kind'] in ('request', 'setup'):
            if f['kind'] == 'setup' or 'wants-reply' in f['flags'].split(','):
                pending[f['conn']] = (f['seq'], f['name'], f['ext'])
            else:
                pending.pop(f['conn'], None)
        elif kind == 'msg' and f['dir'] == 's2c' and f['kind'] in ('reply', 'error', 'setup'):
            p = pending.get(f['conn'])
            if p and p[0] == f['seq']:
                counts[(p[2], p[1])] += 1
                pending.pop(f['conn'])
    for (ext, name), n in sorted(counts.items()):
        print('%s %s %d' % ('core' if ext == '-' else ext, name, n))


if __name__ == '__main__':
    main()
