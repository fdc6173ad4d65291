#!/usr/bin/env python3
"""Count, from a client's own WAYLAND_DEBUG=1 log, what xcap-run's relay
must have said in its trace about wl_shm buffers, and compare: each commit
of a surface with a shm buffer attached and damage, the bytes of the
damage (each row's union of the rectangles, clipped to the buffer, at
stride/width bytes a pixel), and the descriptors the log's requests
carried.  Worked out here apart from the relay's code (xcap-run's
wlaccount.c), from the log rather than the wire.

usage: wayland-shm.py DEBUG.log TRACE.dump

Prints "commits N bytes B fd-requests F drawn D" for the log and the
trace, D being the commits the compositor answered (a wl_buffer.release of
the buffer, or a frame callback's done, after it); exits 1 when the
counts differ or no commit was answered.
"""
import re
import sys

LOG_RE = re.compile(r'^\[\s*[0-9.]+\]\s+(-> )?([A-Za-z_0-9]+)@(\d+)\.(\w+)\((.*)\)\s*$')
NOTE_RE = re.compile(r'^note .*conn=\d+ dir=(\w+) text="(.*)"$')


def ints(args):
    out = []
    for a in args.split(', '):
        m = re.search(r'(-?\d+)$', a)
        out.append(int(m.group(1)) if m else None)
    return out


def damaged(rects, w, h, bpp):
    total = 0
    for y in range(h):
        spans = sorted((max(0, x0), min(w, x1)) for x0, y0, x1, y1 in rects if y0 <= y < y1)
        end = 0
        width = 0
        for a, b in spans:
            a = max(a, end)
            if b > a:
                width += b - a
            end = max(end, b)
        total += width * bpp
    return total


def from_log(path):
    buffers, surfaces = {}, {}
    commits = nbytes = fds = drawn = 0
    waiting = set()     # buffers committed, not yet answered
    frames = set()      # frame callbacks asked
    for line in open(path, errors='replace'):
        m = LOG_RE.match(line.rstrip('\n'))
        if not m:
            continue
        req, itf, oid, msg, args = m.groups()
        oid = int(oid)
        if req and re.search(r'(^|, )fd \d+', args):
            fds += 1
        if not req:
            if itf == 'wl_buffer' and msg == 'release' and oid in waiting:
                waiting.discard(oid)
                drawn += 1
            elif itf == 'wl_callback' and msg == 'done' and oid in frames:
                frames.discard(oid)
                drawn += len(waiting) > 0
                waiting.clear()
            continue
        v = ints(args)
        if itf == 'wl_shm_pool' and msg == 'create_buffer':
            buffers[v[0]] = dict(w=v[2], h=v[3], stride=v[4])
        elif itf == 'wl_surface':
            s = surfaces.setdefault(oid, dict(buf=None, dmg=[], scale=1))
            if msg == 'attach':
                s['buf'] = v[0]
            elif msg in ('damage', 'damage_buffer'):
                k = s['scale'] if msg == 'damage' else 1
                x, y, w, h = v
                if w > 0 and h > 0:
                    s['dmg'].append((x * k, y * k, (x + w) * k, (y + h) * k))
            elif msg == 'set_buffer_scale':
                s['scale'] = max(1, v[0])
            elif msg == 'frame':
                frames.add(v[0])
            elif msg == 'commit':
                b = buffers.get(s['buf'])
                if b and s['dmg']:
                    commits += 1
                    nbytes += damaged(s['dmg'], b['w'], b['h'], max(1, b['stride'] // max(1, b['w'])))
                    waiting.add(s['buf'])
                s['dmg'] = []
            elif msg == 'destroy':
                surfaces.pop(oid, None)
        elif itf == 'wl_buffer' and msg == 'destroy':
            buffers.pop(oid, None)
    return commits, nbytes, fds, drawn


def from_dump(path):
    commits = nbytes = fds = 0
    for line in open(path, errors='replace'):
        m = NOTE_RE.match(line.rstrip('\n'))
        if not m:
            continue
        text = m.group(2)
        r = re.match(r'shm read (\d+) of \d+ bytes', text)
        if r:
            commits += 1
            nbytes += int(r.group(1))
        elif text.startswith('fds ') and m.group(1) == 'c2s':
            fds += 1
    return commits, nbytes, fds


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    c, b, f, d = from_log(argv[0])
    tc, tb, tf = from_dump(argv[1])
    print('log: commits %d bytes %d fd-requests %d drawn %d; trace: commits %d bytes %d fd-requests %d'
          % (c, b, f, d, tc, tb, tf))
    return 0 if (c, b, f) == (tc, tb, tf) and (d or not c) else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
