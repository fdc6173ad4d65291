#!/usr/bin/python3
"""x11-holes-compare.py FULL.dump HOLED.dump: after holes in a regular
stream of client requests, is any request reported that the client did not
send, and does the decoder's count of undecoded client bytes account for
the bytes it neither reported nor lost?

A request in the holed decode is the client's when the complete decode has
a request ending at the same TCP position with the same opcode and length;
unless flagged uncertain, it must carry the number the complete decode
gives it (the server's).

Every client byte the holed capture holds lies in a hole (gap record), in
a reported message, or is counted undecoded by a note, except the first
bytes of a message a hole cut while framing was known (the note says how
long that message was, which bounds them) and the start of a message the
stream ended in (its note says how many: they are the stream's last
bytes).  The bytes it holds of a stream are those from its first to its
last captured byte: a run of segments cut from one connection's end into
the next one's start leaves no hole that anything after it could show,
and those bytes are simply not in the capture.

TCP positions are the dump's 32-bit sequence numbers, which wrap when a
connection's first number lies less than a stream's length below 2**32:
each direction of each connection is counted on from the first number the
complete decode shows for it, the same origin for both decodes.

On the server's side, every reply, event or error reported is one the
complete decode has at the same place, of the same kind and length, with
the same number unless flagged uncertain.

Prints the figures; exit 1 on an invented or misnumbered message or a
count that does not add up."""
import re
import sys

FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')


def records(path):
    for line in open(path):
        kind, _, rest = line.partition(' ')
        yield kind, {k: v.strip('"') for k, v in FIELD.findall(rest)}


def load(path, origins):
    client = {}

    def at(conn, direction, seq):
        """The unwrapped TCP position of seq, counted on from the first
        number seen for this direction of this connection."""
        key = (client[conn], direction)
        origin = origins.setdefault(key, int(seq))
        return origin + (int(seq) - origin) % 2**32

    msgs, gaps, undecoded, cut_max, seen, tails, numbers = {}, [], 0, 0, {}, {}, {}
    server, server_gaps = {}, 0
    for kind, f in records(path):
        if kind == 'pkt':
            at(f['conn'], f['dir'], f['seq'])  # a direction's first packet sets its origin
        if kind == 'conn':
            client[f['id']] = f['client']
        elif kind == 'pkt' and f['dir'] == 'c2s' and int(f['len']) > 0:
            a, s = client[f['conn']], at(f['conn'], 'c2s', f['seq'])
            lo, hi = seen.get(a, (s, s))
            seen[a] = (min(lo, s), max(hi, s + int(f['len'])))
        elif kind == 'msg' and f['dir'] == 's2c':
            server[(client[f['conn']], at(f['conn'], 's2c', f['end']))] = (f['kind'], int(f['length']), int(f['seq']),
                                                          'uncertain' in f['flags'].split(','))
        elif kind == 'gap' and f['dir'] == 's2c':
            server_gaps += 1
        elif kind == 'msg' and f['dir'] == 'c2s':
            end = at(f['conn'], 'c2s', f['end'])
            msgs[(client[f['conn']], end)] = (f['kind'], f['major'], int(f['length']))
            numbers[(client[f['conn']], end)] = (int(f['seq']),
                                                           'uncertain' in f['flags'].split(','))
        elif kind == 'gap' and f['dir'] == 'c2s':
            gaps.append((client[f['conn']], at(f['conn'], 'c2s', f['seq']), int(f['len'])))
        elif kind == 'note' and f['dir'] == 'c2s':
            m = re.search(r'could not decode (\d+) bytes|stream ended with (\d+) bytes not decoded',
                          f['text'])
            if m:
                undecoded += int(m.group(1) or m.group(2))
            m = re.search(r'stream ended (\d+) bytes into a message', f['text'])
            if m:
                tails[client[f['conn']]] = int(m.group(1))
            m = re.search(r'cut a (\d+)-byte message', f['text'])
            if m:
                cut_max += int(m.group(1))
    # A stream that ended inside a message: the decoder says how many of
    # the stream's last bytes that message had, which places them.
    cut_tails = [(a, seen[a][1] - n, n) for a, n in tails.items()]
    return msgs, gaps, undecoded, cut_max, seen, cut_tails, numbers, server, server_gaps


origins = {}
reference = load(sys.argv[1], origins)
full, full_numbers, full_server = reference[0], reference[6], reference[7]
holed, gaps, undecoded, cut_max, seen, tails, numbers, server, server_gaps = load(sys.argv[2], origins)
invented = [(k, v) for k, v in holed.items() if v[0] == 'request' and full.get(k) != v]
real = sum(1 for v in full.values() if v[0] == 'request')
shown = sum(1 for v in holed.values() if v[0] == 'request')
# A request's number, unless flagged uncertain, is the one the server gave it.
misnumbered = [(k, n[0], full_numbers[k][0]) for k, n in numbers.items()
               if k in full_numbers and not n[1] and n[0] != full_numbers[k][0]]

# Per client stream: the bytes the complete decode frames, as far as the
# holed capture holds the stream, less holes and reported messages, is what
# the holed decode could not account for.
unaccounted = 0
for addr in {k[0] for k in holed} | {g[0] for g in gaps}:
    ends = [(e - v[2], e) for (a, e), v in full.items() if a == addr]
    lo, hi = min(s for s, _ in ends), max(e for _, e in ends)
    lo, hi = max(lo, seen[addr][0]), min(hi, seen[addr][1])
    covered = bytearray(max(hi - lo, 0))
    spans = [(e - v[2], e) for (a, e), v in holed.items() if a == addr]
    spans += [(s, s + n) for a, s, n in gaps + tails if a == addr]
    for s, e in spans:
        for i in range(max(s, lo) - lo, min(e, hi) - lo):
            covered[i] = 1
    unaccounted += covered.count(0)

print('requests: %d sent, %d reported after the holes, %d invented, %d misnumbered; '
      '%d bytes in holes; undecoded: %d counted by the decoder, %d neither reported nor lost '
      '(cut messages: %d)' % (real, shown, len(invented), len(misnumbered),
                              sum(g[2] for g in gaps), undecoded, unaccounted, cut_max))
# The server's side: a reply, event or error the holed decode reports is
# one the complete decode has at the same place, of the same kind and
# length, and with the same number unless flagged uncertain.
server_invented = [(k, v) for k, v in server.items()
                   if k not in full_server or full_server[k][:2] != v[:2]]
server_misnumbered = [(k, v[2], full_server[k][2]) for k, v in server.items()
                      if k in full_server and not v[3] and v[2] != full_server[k][2]]
print('server: %d messages sent, %d reported, %d invented, %d misnumbered; %d holes'
      % (len(full_server), len(server), len(server_invented), len(server_misnumbered), server_gaps))
ok = True
if server_invented or server_misnumbered:
    print('server messages invented: %s; misnumbered: %s'
          % (server_invented[:5], server_misnumbered[:5]))
    ok = False
if invented:
    print('invented: %s' % invented[:10])
    ok = False
if misnumbered:
    print('misnumbered (position, number, the server\'s): %s' % misnumbered[:10])
    ok = False
if not (undecoded <= unaccounted <= undecoded + cut_max):
    print('the undecoded count does not account for the bytes not reported')
    ok = False
sys.exit(0 if ok else 1)
