#!/usr/bin/env python3
"""rfb-lossy-compare.py CLIENT-LOG CLEAN-DUMP DAMAGED-DUMP [--holds]

The RFB decode of a damaged capture (begun mid-connection, or missing
segments) against the decode of the clean capture it was cut from, whose
messages must be exactly the ones the client logged (CLIENT-LOG, from
tests/rfbclient.py: "DIR NAME LENGTH ...", in order per direction).

  - Nothing invented: every message of the damaged decode is a message of
    the clean one, at the same place in the stream, of the same length;
    its name and kind are the same unless it is flagged uncertain.
  - Numbers not shown as fact: a client message carries the clean decode's
    number unless it is flagged uncertain or the decode said the numbering
    restarted ("numbered afresh from N", or from 1 where a capture begun
    mid-connection is said) and its number is N or more.
  - Everything accounted for: per direction, the bytes the damaged capture
    spans are the bytes of its messages, plus the bytes it says it could
    not frame ("N bytes not framed"), plus the holes (gap records).
  - Found again: in the client direction every clean message that starts
    after the first message the damaged decode reports after a hole is
    reported.  With --holds the server direction must also have kept its
    framing (every clean server message after the damage is reported).
Prints what it found; exits 1 on any failure.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dumpfile  # noqa: E402

M32 = 1 << 32


def load(path):
    msgs, pkts, gaps, unframed = {}, {}, {}, {}
    afresh = []
    for kind, f in dumpfile.records(path):
        if kind == 'msg':
            msgs.setdefault(f['dir'], []).append(f)
        elif kind == 'pkt' and int(f['len']):
            pkts.setdefault(f['dir'], []).append((int(f['seq']), int(f['len'])))
        elif kind == 'gap':
            gaps[f['dir']] = gaps.get(f['dir'], 0) + int(f['len'])
        elif kind == 'note':
            m = re.match(r'(\d+) bytes not framed$', f.get('text', ''))
            if m:
                unframed[f['dir']] = unframed.get(f['dir'], 0) + int(m.group(1))
            m = re.match(r'client messages numbered afresh from (\d+):', f.get('text', ''))
            if m:
                afresh.append(int(m.group(1)))
            if f['dir'] == 'c2s' and 'mid-connection' in f.get('text', ''):
                afresh.append(1)    # counted from the capture's start, as said
    return msgs, pkts, gaps, unframed, afresh


def extent(segs):
    """Bytes from the first payload byte to the last (retransmissions once)."""
    base, end = segs[0][0], 0
    for s, n in segs:
        end = max(end, (s - base) % M32 + n)
    return end


def main():
    log, clean, damaged = sys.argv[1:4]
    holds = '--holds' in sys.argv[4:]
    bad = []
    cm, _, _, cun, _ = load(clean)
    want = {}
    for line in open(log):
        w = line.split()
        want.setdefault(w[0], []).append((w[1], w[2]))
    for d in ('c2s', 's2c'):
        got = [(m['name'], m['length']) for m in cm.get(d, [])]
        if got != want.get(d):
            bad.append('clean %s: %d messages differ from the client log' % (d, len(got)))
    if cun:
        bad.append('the clean decode has unframed bytes: %s' % cun)
    dm, dp, dg, dun, afresh = load(damaged)
    for d in ('c2s', 's2c'):
        by_end = {m['end']: m for m in cm.get(d, [])}
        for m in dm.get(d, []):
            c = by_end.get(m['end'])
            if c is None or c['length'] != m['length']:
                bad.append('%s: invented: %s %s end=%s' % (d, m['name'], m['length'], m['end']))
                continue
            if 'uncertain' not in m['flags'] and (c['name'], c['kind']) != (m['name'], m['kind']):
                bad.append('%s end=%s: %s %s, clean %s %s, not flagged uncertain'
                           % (d, m['end'], m['kind'], m['name'], c['kind'], c['name']))
            if (d == 'c2s' and m['seq'] != c['seq'] and 'uncertain' not in m['flags']
                    and not any(int(m['seq']) >= n for n in afresh)):
                bad.append('c2s end=%s: %s numbered %s, clean %s, shown as fact'
                           % (m['end'], m['name'], m['seq'], c['seq']))
        framed = sum(int(m['length']) for m in dm.get(d, []))
        span = extent(dp[d]) if d in dp else 0
        # A hole at the very start of a direction lies before its first
        # captured byte and is not part of its span.
        holes = dg.get(d, 0)
        total = framed + dun.get(d, 0) + holes
        if total != span and framed + dun.get(d, 0) != span:
            bad.append('%s: %d bytes captured, but %d framed + %d not framed + %d lost'
                       % (d, span, framed, dun.get(d, 0), holes))
        # Found again: after the damaged decode's first message following
        # damage, nothing of the clean decode is missing.
        ends = {m['end'] for m in dm.get(d, [])}
        resumed = [m for m in dm.get(d, []) if re.search('after-gap|uncertain', m['flags'])]
        first = resumed[0] if resumed else (dm.get(d) or [None])[0]
        if d == 'c2s' or holds:
            if first is None:
                bad.append('%s: nothing decoded after the damage' % d)
                continue
            after = [m for m in cm.get(d, []) if (int(m['end']) - int(first['end'])) % M32 < M32 // 2]
            missing = [m for m in after if m['end'] not in ends]
            if missing:
                bad.append('%s: %d messages after the damage not found again, first %s end=%s'
                           % (d, len(missing), missing[0]['name'], missing[0]['end']))
        print('rfb-lossy-compare: %s: %d messages (%d flagged), %d bytes framed, %d not framed, '
              '%d lost in holes' % (d, len(dm.get(d, [])), len(resumed), framed, dun.get(d, 0), holes))
    for b in bad[:20]:
        print('rfb-lossy-compare: ' + b)
    sys.exit(1 if bad else 0)


main()
