#!/usr/bin/python3
"""delays-check.py — read `xcapanalyse --format csv` (the delay table) and
check that it adds up; optionally print one value.

usage: delays-check.py CSV [CONN DIRECTION COLUMN]

Checks, for every connection and for all: per direction Idle + Block Send
+ Block Recv (+ Block Reply) is the same span for both directions; the
total row's Block columns are the sums of the directions' and its Idle is
the span less them; Net Delay is the sum of the Block columns; and All is
at least the largest connection's value and at most the sum (it is the
union of their times).  Values are in seconds with nine decimals, so sums
may differ by a few ns of rounding.  Exits 1 on the first violation.
"""
import csv
import sys

NS = 5e-9


def num(row, col):
    return float(row[col]) if row[col] != '' else 0.0


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    if not rows:
        sys.exit('delays-check: no rows')
    by = {}
    for r in rows:
        by.setdefault(r['conn'], {})[r['direction']] = r
    bad = []
    for conn, d in by.items():
        if set(d) != {'request', 'reply', 'total'}:
            bad.append('%s: directions %s' % (conn, sorted(d)))
            continue
        req, rep, tot = d['request'], d['reply'], d['total']
        if rep['block_reply'] != '':
            bad.append('%s: reply direction has a Block Reply' % conn)
        span_req = sum(num(req, c) for c in ('idle', 'block_send', 'block_recv', 'block_reply'))
        span_rep = sum(num(rep, c) for c in ('idle', 'block_send', 'block_recv'))
        if abs(span_req - span_rep) > 4 * NS:
            bad.append('%s: request span %.9f != reply span %.9f' % (conn, span_req, span_rep))
        for c in ('block_send', 'block_recv'):
            if abs(num(tot, c) - num(req, c) - num(rep, c)) > 2 * NS:
                bad.append('%s: total %s is not the sum' % (conn, c))
        if abs(num(tot, 'block_reply') - num(req, 'block_reply')) > NS:
            bad.append('%s: total block_reply differs from the request row' % conn)
        busy = sum(num(tot, c) for c in ('block_send', 'block_recv', 'block_reply'))
        if abs(max(span_req - busy, 0.0) - num(tot, 'idle')) > 6 * NS:
            bad.append('%s: total idle %.9f is not span %.9f less %.9f' %
                       (conn, num(tot, 'idle'), span_req, busy))
        for r in (req, rep, tot):
            s = sum(num(r, c) for c in ('block_send', 'block_recv', 'block_reply'))
            if abs(s - num(r, 'total_network_delay')) > 3 * NS:
                bad.append('%s %s: total_network_delay is not the sum' % (conn, r['direction']))
            for c in ('idle', 'block_send', 'block_recv', 'block_reply'):
                if num(r, c) < 0:
                    bad.append('%s %s: negative %s' % (conn, r['direction'], c))
    conns = [c for c in by if c != 'all']
    if 'all' not in by:
        bad.append('no all rows')
    else:
        # A moment in two states on two connections takes the higher in
        # All, so only Block Reply (the highest) and the blocked time as a
        # whole are bounded by the connections' values.
        for direction in ('request', 'reply'):
            for c in ('block_reply', 'total_network_delay'):
                vals = [num(by[k][direction], c) for k in conns]
                a = num(by['all'][direction], c)
                if vals and (a < max(vals) - NS or a > sum(vals) + len(vals) * NS):
                    bad.append('all %s %s %.9f outside [%.9f, %.9f]' %
                               (direction, c, a, max(vals), sum(vals)))
    if bad:
        for b in bad:
            print('delays-check: %s' % b)
        sys.exit(1)
    if len(sys.argv) == 5:
        print(by[sys.argv[2]][sys.argv[3]][sys.argv[4]])


if __name__ == '__main__':
    main()
