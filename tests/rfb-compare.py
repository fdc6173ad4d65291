#!/usr/bin/env python3
"""rfb-compare.py — xcap's RFB messages against tshark's VNC dissector.

usage: rfb-compare.py RFB.DEF DUMP TSHARK.TSV [KNOWN-LOSS...]

DUMP is `xcapanalyse --dump` of a capture, TSHARK.TSV is
`tshark -T fields -E occurrence=a -E aggregator=,` with the fields
    frame.number tcp.srcport tcp.dstport tcp.seq_raw tcp.len
    vnc.client_message_type vnc.server_message_type
    vnc.fb_update_num_rects vnc.fb_update_encoding_type _ws.expert.message
of the same capture.  Messages are matched by their place in the TCP
stream (xcap's end= is the raw sequence number just past a message).

Client to server: tshark 4.0 decodes only the first client message of a
segment, so each segment's first message is compared with the message
xcap found starting at that segment's first byte; the other messages of
the segment are counted as not decoded by tshark, not compared.

Server to client: the messages tshark finishes in a segment (a segment it
does not hand on to reassembly) must be the messages xcap ends in that
segment: the same types, and for an update the same number of rectangles
and of each encoding.  tshark is compared only until it first disagrees
in a connection: after that it has lost the framing, and everything it
says is a mis-framing of its own.  The message xcap knows at that point
(its name, and an update's encodings) is the trigger, printed; the trigger
must be one of KNOWN-LOSS (NAME or FramebufferUpdate:ENCODING), the places
the calling test writes down as where tshark is wrong.  A disagreement
elsewhere fails, as does any disagreement on a client message.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dumpfile  # noqa: E402


def encoding_names(defpath):
    """Encoding numbers to names, from the descriptor."""
    names = {}
    for line in open(defpath):
        w = line.split()
        if len(w) >= 3 and w[0] in ('encoding', 'pseudo') and '..' not in w[1]:
            n = int(w[1], 0)
            names[n - (1 << 32) if n >= 1 << 31 else n] = w[2]
    return names


def update_encodings(detail):
    """{encoding: rectangles} from xcap's detail "N rects; Raw 2 ...px ...B; ..."."""
    out = {}
    for part in detail.split('; ')[1:]:
        w = part.split()
        if len(w) >= 2 and w[1].isdigit():
            out[w[0]] = int(w[1])
    return out


def main():
    defpath, dump, tsv = sys.argv[1:4]
    known = set(sys.argv[4:])
    encname = encoding_names(defpath)
    conns = {}          # conn id -> (client port, server port)
    msgs = {}           # (client port, dir) -> list of msg fields, in order
    for kind, f in dumpfile.records(dump, ('conn', 'msg')):
        if kind == 'conn':
            if f.get('proto') != 'rfb':
                continue
            conns[f['id']] = (int(f['client'].rsplit(':', 1)[1]), int(f['server'].rsplit(':', 1)[1]))
        elif f['conn'] in conns:
            msgs.setdefault((conns[f['conn']][0], f['dir']), []).append(f)
    servers = {s for c, s in conns.values()}
    ok = {'c2s': 0, 's2c': 0}
    c2s_not_first = 0
    bad = []
    lost = {}           # client port -> (trigger, frame)
    s2c_index = {}      # client port -> index of the next xcap s2c message
    for line in open(tsv):
        cols = line.rstrip('\n').split('\t')
        if len(cols) < 10 or not cols[4] or int(cols[4]) == 0:
            continue
        frame, sport, dport, seq, length = cols[0], int(cols[1]), int(cols[2]), int(cols[3]), int(cols[4])
        ctypes, stypes, nrects, encs, expert = cols[5:10]
        if sport in servers:
            port, d = dport, 's2c'
        elif dport in servers:
            port, d = sport, 'c2s'
        else:
            continue
        ours = msgs.get((port, d), [])
        end = (seq + length) % (1 << 32)
        if d == 'c2s':
            starting = [m for m in ours if (int(m['end']) - int(m['length'])) % (1 << 32) == seq]
            inside = [m for m in ours if 0 < (int(m['end']) - seq) % (1 << 32) <= length]
            if not ctypes:
                continue    # handshake: tshark names no message type
            first = ctypes.split(',')[0]
            if not starting:
                bad.append('frame %s: tshark has client message %s where xcap starts none' % (frame, first))
            elif starting[0]['kind'] == 'setup' or int(starting[0]['major']) != int(first):
                bad.append('frame %s: tshark has client message %s, xcap %s' % (frame, first, starting[0]['name']))
            else:
                ok['c2s'] += 1
                c2s_not_first += max(0, len(inside) - 1)
            continue
        if port in lost:
            continue
        # The xcap messages that end in this segment.
        i = s2c_index.get(port, 0)
        ending = []
        while i < len(ours) and 0 < (int(ours[i]['end']) - seq) % (1 << 32) <= length:
            ending.append(ours[i])
            i += 1
        s2c_index[port] = i
        ending = [m for m in ending if m['kind'] != 'setup']
        if 'See further on' in expert:
            if ending:      # tshark waits for more where xcap ended a message
                lost[port] = (trigger(ending[0]), frame)
            continue
        if not stypes:
            continue
        theirs = stypes.split(',')
        mine = [m['major'] for m in ending]
        agree = theirs == mine
        if agree:
            counts = [int(x) for x in nrects.split(',') if x]
            want = [int(re.match(r'(\d+) rect', m['detail']).group(1)) for m in ending
                    if m['name'] == 'FramebufferUpdate']
            tenc = {}
            for e in (encs.split(',') if encs else []):
                n = encname.get(int(e), e)
                tenc[n] = tenc.get(n, 0) + 1
            xenc = {}
            for m in ending:
                if m['name'] == 'FramebufferUpdate':
                    for k, v in update_encodings(m['detail']).items():
                        xenc[k] = xenc.get(k, 0) + v
            agree = counts == want and tenc == xenc
        if agree:
            ok['s2c'] += len(ending)
        else:
            # Nothing of xcap's ends here: the trigger is the message
            # xcap is still inside, which tshark thought ended.
            m = ending[0] if ending else (ours[i] if i < len(ours) else None)
            lost[port] = (trigger(m) if m else 'bytes after the last message', frame)
    for port, (t, frame) in sorted(lost.items()):
        where = 'known' if t in known else 'NOT KNOWN'
        print('rfb-compare: port %d: tshark loses the server framing at frame %s, on %s (%s)'
              % (port, frame, t, where))
        if t not in known:
            bad.append('port %d: tshark lost at %s, not a known place' % (port, t))
    print('rfb-compare: agree on %d client and %d server messages; %d client messages not first '
          'in their segment (tshark does not decode those); %d of %d connections lost by tshark'
          % (ok['c2s'], ok['s2c'], c2s_not_first, len(lost), len(conns)))
    for b in bad[:20]:
        print('rfb-compare: ' + b)
    if bad:
        sys.exit(1)
    if not ok['c2s'] or not ok['s2c']:
        print('rfb-compare: nothing compared')
        sys.exit(1)


def trigger(m):
    """What a message is, for the list of places tshark is wrong."""
    if m['name'] == 'FramebufferUpdate':
        encs = sorted(update_encodings(m['detail']))
        return 'FramebufferUpdate:' + '+'.join(encs)
    return m['name']


if __name__ == '__main__':
    main()
