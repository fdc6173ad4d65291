#!/usr/bin/python3
"""wayland-waits.py — a real client's own waits (tests/wl-waits.c's log)
held to the round trips xcapanalyse found on the wire.

usage: wayland-waits.py WAITS-LOG DUMP ROUND-TRIPS-CSV DELAYS-CSV ONE-WAY-S

The client's calls of wl_display_roundtrip and wl_display_dispatch that
lasted at least one one-way delay crossed the link: they are its waits.
Each round trip of --round-trips must lie in one of them: its request left
inside the call (dispatch flushes what the client queued before it
waits) and its answer came before the call returned.  The wait the wire
shows must be the call's length from the request's departure within 5 %
+ 1 ms (the hops through waypipe and socat on the client's side, which the
capture does not see).  What the call spent before its request left is
said, not held to a bound: the client's side of waypipe and socat, and
in the first call the TCP handshake (waypipe connects when the client
does; the handshake is not a reply the client waited for).  Every blocking
wl_display_roundtrip must hold a round trip; a blocking dispatch may hold
none (it waited for an event no request asked for: a frame, an input).
Block Reply must be within 5 % + 1 ms a round trip of the calls' waits
from their requests' departures.  Prints one line per round trip and a
summary, which ends with the client's own rate of waits for no request
(a client that animates: its frame rate); exits 1 on the first
disagreement.
"""
import csv
import sys


def main():
    log, dump, trips_csv, delays_csv, one_way = sys.argv[1:6]
    one_way = float(one_way)
    calls = []
    for line in open(log):
        kind, a, b = line.split()
        a, b = float(a), float(b)
        if b - a >= one_way:
            calls.append([kind, a, b, 0])
    base = syn = data = None
    for line in open(dump):
        f = line.split()
        if f[0] in ('pkt', 'conn') and base is None:
            base = float(f[1][2:])
        if f[0] == 'conn' and syn is None:
            syn = float(f[1][2:])
        if f[0] == 'pkt' and data is None and 'len=0' not in f:
            data = float(f[1][2:])
    if base is None or data is None:
        sys.exit('wayland-waits: no data in the dump')
    handshake = data - syn
    rows = list(csv.DictReader(open(trips_csv)))
    bad = []
    total = 0.0
    for i, r in enumerate(rows):
        t = base + float(r['time'])
        wait = float(r['wait'])
        call = None
        for c in calls:
            if c[1] - 0.001 <= t <= c[2] and t + wait <= c[2] + 0.001:
                call = c
                break
        if call is None:
            bad.append('round trip %d (%s at %.6f, %.6f s) lies in no blocking call of the client'
                       % (i + 1, r['request'], t, wait))
            print('round trip %d: %s on the wire %.6f s, in no call of the client' %
                  (i + 1, r['request'], wait))
            continue
        call[3] += 1
        own = call[2] - t
        total += own
        ok = abs(wait - own) <= 0.05 * own + 0.001
        print('round trip %d: %s on the wire %.6f s, in wl_display_%s %.6f s from the request '
              '(the call began %.6f s before it%s)%s'
              % (i + 1, r['request'], wait, call[0], own, t - call[1],
                 ', the TCP handshake %.6f s of it' % handshake if call[1] <= syn <= t else '',
                 '' if ok else '  <- disagrees'))
        if not ok:
            bad.append('round trip %d: waited %.6f s on the wire, %.6f s in the client'
                       % (i + 1, wait, own))
    lost = [c for c in calls if c[0] == 'roundtrip' and c[3] == 0]
    for c in lost:
        bad.append('a wl_display_roundtrip of %.6f s at %.6f holds no round trip'
                   % (c[2] - c[1], c[1]))
    other = [c for c in calls if c[0] == 'dispatch' and c[3] == 0]
    # the client's own frame rate: its waits for no request, returns per second
    ends = sorted(c[2] for c in other)
    fps = (len(ends) - 1) / (ends[-1] - ends[0]) if len(ends) > 2 else 0.0
    reply = None
    for r in csv.DictReader(open(delays_csv)):
        if r['conn'] == 'all' and r['direction'] == 'request':
            reply = float(r['block_reply'])
    if reply is None:
        bad.append('no Block Reply in the delay table')
    elif abs(reply - total) > 0.05 * total + 0.001 * len(rows):
        bad.append('Block Reply %.6f s, the client waited %.6f s in its round trips'
                   % (reply, total))
    print('%d round trips: Block Reply %s s, the client waited %.6f s; %d waits in dispatch '
          'for no request (frames, input), %.2f a second'
          % (len(rows), 'none' if reply is None else '%.6f' % reply, total, len(other), fps))
    if bad:
        sys.exit('wayland-waits: ' + '; '.join(bad))


main()
