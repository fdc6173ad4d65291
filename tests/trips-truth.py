#!/usr/bin/python3
"""trips-truth.py — the round trips xcapanalyse lists against the client's
own record of when it blocked for a reply and on which request.

usage: trips-truth.py TRUTH CSV --rtt-ms MS [--label TEXT] [--min-block-ms MS]
                      [--conn N] [--no-setup]

TRUTH has lines "wait SEQ START END [LIBRARY [TARGET]]" (tests/xpipeline.py,
or the interposer tests/xcbwaits.c: LIBRARY is the library whose call
waited, xcb, xlib or xsync, and TARGET the request an Xlib call waits for)
and optionally "send FIRST LAST TIME" lines;
CSV is `xcapanalyse --round-trips --format csv`.

A truth wait shorter than --min-block-ms (default 0: all count) did not
block (its reply was already read).  A truth wait that begins less than
the model's split gap (max(3 ms, min(RTT/2, 30 ms)), its defaults) after the
client's previous wait ended, with nothing sent between, and lasts less
than that gap, is a trickle: the client blocked again for the next
segment of a burst of replies, which a passive capture folds into the
burst's wait.  Those are counted and shown, not required.

Every other truth wait must be listed: with --exact by its sequence
number (or, for a request_check, the void request as the GetInputFocus's
sync_after), otherwise within the burst of requests answered together at
the end of a listed wait (which a passive capture cannot tell apart); and
every wait listed must name one the client had (no invented waits).
Exit 1 when either fails.
"""
import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dumpfile  # noqa: E402


def read_truth(path, min_block):
    """(seq, start, end, library, target) of every blocking wait; target 0
    where the truth does not say."""
    waits = []
    for line in open(path):
        w = line.split()
        if w and w[0] == 'wait':
            seq, start, end = int(w[1]), float(w[2]), float(w[3])
            lib = w[4] if len(w) > 4 else 'raw'
            target = int(w[5]) if len(w) > 5 else 0
            if end - start >= min_block:
                waits.append((seq, start, end, lib, target))
    return waits


def stopped_in(path):
    """(seq, start) of the call the client was stopped in, or None: a
    "begin" line of the interposer after the last wait that returned, whose
    call never returned (the client was ended inside it)."""
    begun, ended, last_end = [], set(), 0.0
    for line in open(path):
        w = line.split()
        if w and w[0] == 'begin':
            begun.append((int(w[1]), w[2]))
        elif w and w[0] == 'wait':
            ended.add((int(w[1]), w[2]))
            last_end = max(last_end, float(w[3]))
    left = [(s, float(t)) for s, t in begun if (s, t) not in ended and float(t) >= last_end]
    return min(left, key=lambda x: x[1]) if left else None


def messages_of(path, conn):
    """(time, seq, is-error) of every reply and error of conn in a --dump,
    in order, and the times of its requests."""
    answers, requests = [], []
    for _, f in dumpfile.records(path, ('msg',)):
        if int(f['conn']) != conn:
            continue
        if f['dir'] == 's2c' and f['kind'] in ('reply', 'error', 'setup'):
            answers.append((float(f['t']), int(f['seq']), f['kind'] == 'error'))
        elif f['dir'] == 'c2s':
            requests.append(float(f['t']))
    return answers, requests


def resolve(waits, answers, gap, as_logged=False):
    """The request whose answer ended each wait.  libxcb's wait for request
    s returns once s is known complete: at its own answer, or (a void
    request, or one whose reply it already read: Xlib waits on the head of
    its pending requests) at an answer to a later one.  So the request a
    client really waited on is the first answered at or after s while it
    blocked, unless it went on blocking for longer than the split gap after
    that answer came: then the last to come before it woke.

    An Xlib call (one with a target) that blocks on the head of its
    pending requests, a request before its target, and is woken by the
    error of a void request sent before the target (XSync after requests
    that fail: MIT-SHM's probe), waited for the target: libxcb woke it at
    the error only because Xlib asked about a request whose reply it had
    read already (or a void one), and Xlib goes on waiting for the target
    at once.  So such errors do not name the wait."""
    out = []
    for seq, start, end, lib, target in waits:
        # An answer already there when the client began did not end a wait
        # that blocked.  The capture's clock may run up to a millisecond
        # behind the client's wakeup (timestamps taken after the tun
        # device handed the packet on).
        got = [(t, q) for t, q, err in answers if q >= seq and start < t <= end + 0.001
               and not (err and seq < q < target)]
        if not got:
            out.append((seq, start, end, seq, end, lib))
            continue
        t, q = got[0]
        # A client that names the request it waited on itself (xpipeline.py)
        # is taken at its word: on a loaded machine it may wake long after
        # the answer came, which says nothing about what it waited on.
        if end - t > gap and not as_logged:
            t = max(t for t, _ in got)
            q = min(q for u, q in got if u == t)
        out.append((q, start, end, seq, t, lib))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('truth')
    ap.add_argument('csv')
    ap.add_argument('--rtt-ms', type=float, required=True)
    ap.add_argument('--label', default='')
    ap.add_argument('--split-min-ms', type=float, default=3,
                    help="the model's --split-min (default 3)")
    ap.add_argument('--split-fraction', type=float, default=0.5,
                    help="the model's --split-fraction (default 0.5)")
    ap.add_argument('--split-max-ms', type=float, default=30,
                    help="the model's --split-max (default 30)")
    ap.add_argument('--min-block-ms', type=float, default=0)
    ap.add_argument('--conn', type=int)
    ap.add_argument('--dump', required=True,
                    help='xcapanalyse --dump of the trace: when the answers came')
    ap.add_argument('--allow', type=float, default=0,
                    help='percent of the required waits that may disagree (missing or extra, '
                    'a misnamed one counting once) '
                    '(GUI clients: see trips-truth.sh)')
    ap.add_argument('--exact', action='store_true',
                    help='every wait named by its own request, not only within its burst')
    ap.add_argument('--as-logged', action='store_true',
                    help='the truth names each request waited on itself (xpipeline.py): '
                    'no relabelling by when the client woke')
    ap.add_argument('--no-setup', action='store_true',
                    help='the truth has no wait on the connection setup (xcb interposer)')
    a = ap.parse_args()
    gap = max(a.split_min_ms / 1000, min(a.rtt_ms / 1000 * a.split_fraction, a.split_max_ms / 1000))
    waits = read_truth(a.truth, a.min_block_ms / 1000)

    rows = list(csv.DictReader(open(a.csv)))
    if a.conn is None and rows:
        conns = {}
        for r in rows:
            conns[r['conn']] = conns.get(r['conn'], 0) + 1
        a.conn = int(max(conns, key=conns.get))
    rows = [r for r in rows if int(r['conn']) == a.conn]
    if a.no_setup:
        rows = [r for r in rows if r['request'] != 'SetupRequest']

    answers, requests = messages_of(a.dump, a.conn)
    resolved = resolve(waits, answers, gap, a.as_logged)
    relabelled = sum(1 for r, _, _, s, _, _ in resolved if r != s)
    waits = [(r, start, end) for r, start, end, _, _, _ in resolved]
    library = {r: lib for r, _, _, _, _, lib in resolved}
    # A trickle: the answer that ended the wait came less than the gap
    # after the one that ended the wait before, and the client sent
    # nothing in between (the wire's times: the client's own include its
    # scheduling).
    # A short one: the answer came less than the gap after the client's
    # last request before it, and the client blocked again, sending
    # nothing, for a later answer: the model gives such a wait to the
    # later one (it cannot tell a client that blocked briefly from one
    # that was still busy with what it had).
    # A late wakeup: the client woke more than half the split gap after the
    # answer it waited for came (it was not running: a loaded machine).
    # What it blocked on next, in the same silence, its own clock cannot
    # say (had it been running, it would have waited on the next answer
    # from the moment the first came), so that wait is not required, and a
    # listed wait named between the two is not counted as invented.
    folded, required, unclear = [], [], []
    prev = None
    late = None
    for i, (seq, start, end, _, came, _) in enumerate(resolved):
        sent = [t for t in requests if t <= came]
        nxt = resolved[i + 1][4] if i + 1 < len(resolved) else None
        short = (sent and came - sent[-1] < gap and nxt is not None and
                 not any(came < t <= nxt for t in requests))
        if late is not None and not any(late[1] < t <= came for t in requests):
            unclear.append((late[0], seq))
            folded.append(seq)
        elif prev is not None and came - prev < gap and not any(prev < t <= came for t in requests):
            folded.append(seq)
        elif short:
            folded.append(seq)
        else:
            required.append(seq)
        late = (seq, end) if a.as_logged and end - came > gap / 2 else None
        prev = came

    truth_seqs = {s for s, _, _ in waits}
    # What each listed wait names: its request, the void request it syncs
    # after, and every request of its burst (answered together: a passive
    # capture cannot tell which of them the client waited on).
    listed = []
    for r in rows:
        exact = {int(r['seq'])}
        if r['sync_after']:
            exact.add(int(r['sync_after']))
        burst = set(range(int(r['burst_first']), int(r['burst_last']) + 1)) | exact
        listed.append((exact, burst, r))
    named = sum(1 for s in required if any(s in e for e, _, _ in listed))
    by_sync = sum(1 for s in required
                  if any(s in e and s != int(r['seq']) for e, _, r in listed))
    in_burst = sum(1 for s in required if any(s in b for _, b, _ in listed))
    want = 0 if a.exact else 1
    missing = [s for s in required if not any(s in (e, b)[want] for e, b, _ in listed)]
    # A listed wait on a request at or after the one the client was
    # stopped in (ended while it waited: that call left no record) cannot
    # be judged.
    stopped = stopped_in(a.truth)
    after_stop = [r for _, _, r in listed if stopped and int(r['seq']) >= stopped[0]]
    extra = [r for e, b, r in listed if not ((e, b)[want] & truth_seqs) and
             not any(lo < int(r['seq']) <= hi for lo, hi in unclear) and r not in after_stop]
    print('%s: truth %d waits (%d trickle or short, %d ended by a later request\'s answer), listed %d; '
          'of the %d required, %d named exactly (%d as sync after a void request), %d within '
          'the burst listed; missing %d, extra %d; %d after a late wakeup not judged' %
          (a.label, len(waits), len(folded), relabelled, len(rows), len(required), named, by_sync,
           in_burst, len(missing), len(extra), len(unclear)))
    if stopped:
        print('  the client was stopped in its wait on request %d: %d listed from there on not judged' %
              (stopped[0], len(after_stop)))
    # By the library whose call waited (the interposer's record): what a
    # passive capture lists the same for both, it cannot tell apart.
    libs = sorted({library[s] for s in required})
    print('  by library: ' + ', '.join(
        '%s %d required, %d named exactly' %
        (lib, sum(1 for s in required if library[s] == lib),
         sum(1 for s in required if library[s] == lib and any(s in e for e, _, _ in listed)))
        for lib in libs))
    # The time of each wait named exactly: the client's own (the longest
    # call on it) against the list's Queued + Wait.  Printed, not judged:
    # the client's clock includes its wakeup, and the list's begins at its
    # last data on the wire.
    pairs = []
    for s in required:
        rows_s = [r for e, _, r in listed if s in e]
        if rows_s:
            own = max(w[2] - w[1] for w in waits if w[0] == s)
            r = rows_s[0]
            pairs.append((own, float(r['wait']) + float(r['queued'] or 0)))
    if pairs:
        diffs = sorted(abs(o - m) for o, m in pairs)
        print('  times of the %d named exactly: the client %.1f ms, listed %.1f ms; '
              'differences median %.2f ms, 90th percentile %.2f ms, largest %.2f ms' %
              (len(pairs), 1e3 * sum(o for o, _ in pairs), 1e3 * sum(m for _, m in pairs),
               1e3 * diffs[len(diffs) // 2], 1e3 * diffs[int(0.9 * (len(diffs) - 1))],
               1e3 * diffs[-1]))
    for s in missing:
        t = [w for w in waits if w[0] == s][0]
        print('  missing: the client blocked %.3f ms on request %d' % ((t[2] - t[1]) * 1e3, s))
    for r in extra:
        print('  extra: listed %s %s #%s (burst %s-%s, wait %s s), the client did not block on it' %
              (r['extension'], r['request'], r['seq'], r['burst_first'], r['burst_last'], r['wait']))
    # A wait named wrongly is missing and extra at once: one disagreement.
    return 1 if max(len(missing), len(extra)) > a.allow / 100 * len(required) else 0


if __name__ == '__main__':
    sys.exit(main())
