#!/usr/bin/python3
"""x11-compare.py DUMP TSHARK-TSV — compare xcap's X11 messages with tshark's.

DUMP is `xcapanalyse --dump` of a capture; TSHARK-TSV is
  tshark -r CAPTURE -T fields -E occurrence=a -E aggregator=, \
    -e tcp.srcport -e tcp.dstport -e x11.opcode -e x11.reply-sequencenumber \
    -e x11.eventcode -e x11.event-sequencenumber -e x11.errorcode \
    -e x11.error_sequencenumber
of the same capture.  For each connection (by client port) four sequences
must agree: request opcodes, reply sequence numbers (16 bits), event codes
with their sequence numbers, error codes with their sequence numbers.

tshark's X11 dissector is wrong in known ways; where a sequence differs in
one of them, the difference is reported as tshark's, not counted:
  - GenericEvent (code 35): tshark 4.0 takes every event as 32 bytes, so a
    GenericEvent with a payload misframes what follows it in the same
    segment; event differences after the first GenericEvent are tshark's.
Prints a summary per connection; exits 1 on a real difference.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dumpfile  # noqa: E402


def parse_dump(path):
    conns = {}   # id -> client port
    msgs = {}    # client port -> {'req': [], 'rep': [], 'ev': [], 'err': []}
    for kind, fields in dumpfile.records(path, ('conn', 'msg')):
        if kind == 'conn':
            conns[fields['id']] = int(fields['client'].rsplit(':', 1)[1])
            continue
        port = conns[fields['conn']]
        m = msgs.setdefault(port, {'req': [], 'rep': [], 'ev': [], 'err': []})
        k = fields['kind']
        if k == 'request':
            m['req'].append(int(fields['major']))
        elif k == 'reply':
            m['rep'].append(int(fields['seq']) & 0xffff)
        elif k == 'event':
            m['ev'].append((int(fields['major']), int(fields['seq']) & 0xffff))
        elif k == 'error':
            m['err'].append((int(fields['major']), int(fields['seq']) & 0xffff))
    return msgs


def ints(field):
    return [int(x, 0) for x in field.split(',')] if field else []


def parse_tshark(path, server_ports):
    msgs = {}
    with open(path) as f:
        for line in f:
            cols = line.rstrip('\n').split('\t')
            cols += [''] * (8 - len(cols))
            src, dst = int(cols[0] or 0), int(cols[1] or 0)
            client = dst if src in server_ports else src
            m = msgs.setdefault(client, {'req': [], 'rep': [], 'ev': [], 'err': []})
            if src == client:
                m['req'] += ints(cols[2])
            else:
                m['rep'] += [s & 0xffff for s in ints(cols[3])]
                codes, seqs = ints(cols[4]), ints(cols[5])
                # KeymapNotify has no sequence number: tshark lists none
                si = 0
                for c in codes:
                    if (c & 0x7f) == 11:
                        m['ev'].append((c, None))
                    else:
                        m['ev'].append((c, seqs[si] & 0xffff if si < len(seqs) else None))
                        si += 1
                m['err'] += list(zip(ints(cols[6]), [s & 0xffff for s in ints(cols[7])]))
    return msgs


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b)) if len(a) != len(b) else -1


def main():
    ours = parse_dump(sys.argv[1])
    server_ports = set(range(6000, 6064))
    theirs = parse_tshark(sys.argv[2], server_ports)
    bad = 0
    for port in sorted(set(ours) | set(theirs)):
        o = ours.get(port, {'req': [], 'rep': [], 'ev': [], 'err': []})
        t = theirs.get(port, {'req': [], 'rep': [], 'ev': [], 'err': []})
        # Our events as tshark shows them: the code byte with the SendEvent
        # bit, and no sequence number for KeymapNotify.
        o_ev = [(c, None if c == 11 else s) for c, s in o['ev']]
        notes = []
        ge = next((i for i, (c, _) in enumerate(o_ev) if c == 35), None)
        for what, a, b in (('requests', o['req'], t['req']), ('replies', o['rep'], t['rep']),
                           ('events', o_ev, t['ev']), ('errors', o['err'], t['err'])):
            i = first_difference(a, b)
            if i < 0:
                continue
            where = 'port %d: %s differ at #%d: xcap %s, tshark %s (counts %d/%d)' % (
                port, what, i, a[max(0, i - 2):i + 3], b[max(0, i - 2):i + 3], len(a), len(b))
            if what == 'events' and ge is not None and i >= ge:
                notes.append('tshark misframed after the GenericEvent #%d (%s)' % (ge, where))
                continue
            bad += 1
            print(where)
        print('port %d: %d requests, %d replies, %d events, %d errors%s' % (
            port, len(o['req']), len(o['rep']), len(o['ev']), len(o['err']),
            ''.join('; ' + n for n in notes)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
