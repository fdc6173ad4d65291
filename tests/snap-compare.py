#!/usr/bin/python3
"""snap-compare.py FULL.dump CUT.dump: is every message decoded from a
capture cut to a snap length (editcap -s) one that the complete capture's
decoding has, at the same place in its stream, of the same kind, name and
length (a message the cut decoding could not name, '-', has any name),
and with the same sequence number unless flagged uncertain (or, after
the decoder said its numbers are right modulo 65536 only, the same modulo
65536)?

Messages are matched by connection (its client's address), direction and
the TCP position of their end.  Prints how many messages each decoding
has and how many of the cut one's are found, and exits 1 on a message the
complete decoding does not have (invented), one it names or sizes
otherwise, or a number that differs without the uncertain flag.  With
--list, prints the names of the messages the cut decoding reports, by
count."""
import re
import sys
from collections import Counter

FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')


def messages(path):
    """{(client, dir, end): (kind, name, length, seq, uncertain, modulo)}"""
    client, out, modulo = {}, {}, set()
    for line in open(path, encoding='utf-8', errors='replace'):
        kind = line[:4]
        if kind not in ('conn', 'msg ', 'note'):
            continue
        f = {k: v.strip('"') for k, v in FIELD.findall(line)}
        if kind == 'conn':
            client[f['id']] = f['client']
        elif kind == 'note':
            if 'right modulo 65536 only' in f['text']:
                modulo.add(f['conn'])
        else:
            key = (client[f['conn']], f['dir'], int(f['end']))
            out[key] = (f['kind'], f['name'], int(f['length']), int(f['seq']),
                        'uncertain' in f['flags'].split(','), f['conn'] in modulo)
    return out


args = [a for a in sys.argv[1:] if a != '--list']
full, cut = messages(args[0]), messages(args[1])
invented, different, misnumbered, uncertain_off, unnamed, wrapped = [], [], [], 0, 0, 0
for key, (kind, name, length, seq, unsure, modulo) in sorted(cut.items()):
    ref = full.get(key)
    if ref is not None and name == '-' and ref[1] != '-':
        unnamed += 1
        name = ref[1]
    if ref is None:
        invented.append((key, kind, name))
    elif ref[:3] != (kind, name, length):
        different.append((key, (kind, name, length), ref[:3]))
    elif seq != ref[3]:
        if unsure:
            uncertain_off += 1
        elif modulo and (seq - ref[3]) % 65536 == 0:
            wrapped += 1
        else:
            misnumbered.append((key, name, seq, ref[3]))
print('complete: %d messages; cut: %d messages, %d found in the complete decoding '
      '(%d flagged uncertain, %d of them numbered otherwise; %d numbered right modulo 65536 '
      'only, as a note says; %d not named), %d invented, %d named or sized otherwise, '
      '%d misnumbered'
      % (len(full), len(cut), len(cut) - len(invented),
         sum(1 for v in cut.values() if v[4]), uncertain_off, wrapped, unnamed, len(invented),
         len(different), len(misnumbered)))
if '--list' in sys.argv:
    for (d, kind, name), n in sorted(Counter((k[1], v[0], v[1]) for k, v in cut.items()).items()):
        print('  %s %s %s: %d' % (d, kind, name, n))
for what, rows in (('invented', invented), ('named or sized otherwise', different),
                   ('misnumbered (position, name, number, the complete one)', misnumbered)):
    if rows:
        print('%s: %s' % (what, rows[:10]))
sys.exit(1 if invented or different or misnumbered else 0)
