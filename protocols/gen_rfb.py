#!/usr/bin/env python3
"""Generate the RFB descriptor tables (rfb_tables.c) from protocols/rfb.def.

usage: gen_rfb.py rfb.def > rfb_tables.c

rfb.def documents its own syntax.  This script checks it (unknown words,
duplicate numbers, overlapping ranges are errors, not silently dropped)
and writes the structs declared in protocols/rfb_tables.h.
"""
import re
import sys

WALKS = {
    'walk': None,   # message: decided by the message type below
    'raw': 'RFB_WALK_RAW', 'rre': 'RFB_WALK_RRE', 'corre': 'RFB_WALK_CORRE',
    'hextile': 'RFB_WALK_HEXTILE', 'zlibhex': 'RFB_WALK_ZLIBHEX',
    'tight': 'RFB_WALK_TIGHT', 'tightpng': 'RFB_WALK_TIGHTPNG', 'trle': 'RFB_WALK_TRLE',
    'cursor': 'RFB_WALK_CURSOR', 'xcursor': 'RFB_WALK_XCURSOR',
    'alphacursor': 'RFB_WALK_ALPHACURSOR', 'lastrect': 'RFB_WALK_LASTRECT',
    'vmwarecursor': 'RFB_WALK_VMWARECURSOR',
}
# Messages framed by code, by (direction, type): the walk that frames them.
MESSAGE_WALKS = {('server', 0): 'RFB_WALK_UPDATE', ('client', 253): 'RFB_WALK_GII',
                 ('server', 253): 'RFB_WALK_GII'}
COUNTS = {'u8': 'RFB_COUNT_U8', 'u16': 'RFB_COUNT_U16', 'u32': 'RFB_COUNT_U32',
          's32': 'RFB_COUNT_S32_MAGNITUDE'}
SECURITY = {'clear': 'RFB_SEC_CLEAR', 'vncauth': 'RFB_SEC_VNCAUTH', 'opaque': 'RFB_SEC_OPAQUE'}
LAYOUT_RE = re.compile(r'^(\d+)(?:\+(u8|u16|u32|s32)@(\d+)\*(\d+))?$')


class DefError(Exception):
    pass


def c_string(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def layout(text):
    m = LAYOUT_RE.match(text)
    if not m:
        raise DefError('bad layout %r' % text)
    fixed, field, off, elem = m.groups()
    if field is None:
        return '{ %d, RFB_COUNT_NONE, 0, 0 }' % int(fixed)
    return '{ %d, %s, %d, %d }' % (int(fixed), COUNTS[field], int(off), int(elem))


def number(text):
    v = int(text, 0)
    if v >= 1 << 31:
        v -= 1 << 32   # encodings are signed 32-bit: 0xc0a1e5ce is negative
    if not -(1 << 31) <= v < (1 << 31):
        raise DefError('encoding number out of range: %s' % text)
    return v


def parse(path):
    messages = {'client': [], 'server': []}
    encodings = []
    securities = []
    for lineno, raw in enumerate(open(path), 1):
        words = raw.split('#', 1)[0].split()
        if not words:
            continue
        try:
            what = words[0]
            if what in ('client', 'server'):
                if len(words) not in (5, 6) or (len(words) == 6 and words[5] != 'reply'):
                    raise DefError('want: %s KEY NAME EXT LENGTH [reply]' % what)
                key = [int(k) for k in words[1].split('.')]
                if len(key) > 3 or not 0 <= key[0] <= 255:
                    raise DefError('bad key %r' % words[1])
                mtype = key[0]
                sub = key[1] if len(key) > 1 else -1
                op = key[2] if len(key) > 2 else -1
                if words[4] == 'walk':
                    walk = MESSAGE_WALKS.get((what, mtype))
                    if walk is None:
                        raise DefError('no walk in code frames %s message %d' % (what, mtype))
                    lay = '{ 0, RFB_COUNT_NONE, 0, 0 }'
                else:
                    walk = 'RFB_WALK_LAYOUT'
                    lay = layout(words[4])
                if any(m[:3] == (mtype, sub, op) for m in messages[what]):
                    raise DefError('duplicate %s message %s' % (what, words[1]))
                ext = None if words[3] == '-' else words[3]
                flags = 'RFB_MSG_WANTS_REPLY' if len(words) == 6 else '0'
                messages[what].append((mtype, sub, op, words[2], ext, walk, flags, lay))
            elif what in ('encoding', 'pseudo'):
                if len(words) != 4:
                    raise DefError('want: %s NUMBER[..LAST] NAME FRAMING' % what)
                lo, _, hi = words[1].partition('..')
                first = number(lo)
                last = number(hi) if hi else first
                if last < first:
                    raise DefError('range %s runs backwards' % words[1])
                if words[3] in WALKS and words[3] != 'walk':
                    walk, lay = WALKS[words[3]], '{ 0, RFB_COUNT_NONE, 0, 0 }'
                else:
                    walk, lay = 'RFB_WALK_LAYOUT', layout(words[3])
                encodings.append((first, last, words[2], what == 'pseudo', walk, lay))
            elif what == 'security':
                if len(words) != 4 or words[3] not in SECURITY:
                    raise DefError('want: security NUMBER NAME clear|vncauth|opaque')
                securities.append((int(words[1], 0), words[2], SECURITY[words[3]]))
            else:
                raise DefError('unknown line kind %r' % what)
        except (DefError, ValueError) as e:
            raise DefError('%s:%d: %s' % (path, lineno, e))
    encodings.sort()
    for a, b in zip(encodings, encodings[1:]):
        if b[0] <= a[1]:
            raise DefError('%s: encodings %s and %s overlap' % (path, a[2], b[2]))
    return messages, encodings, securities


def main():
    if len(sys.argv) != 2:
        sys.stderr.write('usage: gen_rfb.py rfb.def\n')
        return 2
    try:
        messages, encodings, securities = parse(sys.argv[1])
    except (DefError, OSError) as e:
        sys.stderr.write('gen_rfb.py: %s\n' % e)
        return 1
    out = ['/* Generated by protocols/gen_rfb.py from %s: do not edit. */' % sys.argv[1],
           '#include "rfb_tables.h"', '#include <stddef.h>', '']
    by_type = []
    for d, what in enumerate(('client', 'server')):
        # Most specific first within a type, so the first match wins.
        msgs = sorted(messages[what], key=lambda m: (m[0], -(m[1] >= 0) - (m[2] >= 0), m[1], m[2]))
        out.append('static const struct rfb_message rfb_%s_messages[%d] = {' % (what, len(msgs)))
        index = [-1] * 256
        for i, (mtype, sub, op, name, ext, walk, flags, lay) in enumerate(msgs):
            if index[mtype] < 0:
                index[mtype] = i
            out.append('\t{ %d, %d, %d, %s, %s, %s, %s, %s },' % (
                mtype, sub, op, c_string(name), c_string(ext) if ext else 'NULL', walk, flags, lay))
        out.append('};')
        by_type.append(index)
    out.append('const struct rfb_message *const rfb_messages[2] = '
               '{ rfb_client_messages, rfb_server_messages };')
    out.append('const size_t rfb_nmessages[2] = { %d, %d };' % (
        len(messages['client']), len(messages['server'])))
    out.append('const int16_t rfb_message_by_type[2][256] = {')
    for index in by_type:
        out.append('\t{ ' + ', '.join(str(i) for i in index) + ' },')
    out.append('};')
    out.append('const struct rfb_encoding rfb_encodings[%d] = {' % len(encodings))
    for first, last, name, pseudo, walk, lay in encodings:
        # INT32_MIN cannot be written as a plain literal; none is used, but be exact.
        out.append('\t{ %d, %d, %s, %d, %s, %s },' % (first, last, c_string(name), int(pseudo),
                                                       walk, lay))
    out.append('};')
    out.append('const size_t rfb_nencodings = %d;' % len(encodings))
    out.append('const struct rfb_security rfb_securities[%d] = {' % len(securities))
    for num, name, kind in sorted(securities):
        out.append('\t{ %d, %s, %s },' % (num, c_string(name), kind))
    out.append('};')
    out.append('const size_t rfb_nsecurities = %d;' % len(securities))
    sys.stdout.write('\n'.join(out) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
