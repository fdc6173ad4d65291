#!/usr/bin/env python3
"""Compare two WAYLAND_DEBUG=1 logs of the same client, one run straight
on the compositor and one through xcap-run's relay: the messages (names,
object ids, arguments) must be the same.

usage: wayland-logs.py [--xml FILE...] DIRECT.log RELAYED.log
       wayland-logs.py --trace RELAYED.log TRACE.dump

With --trace: the relayed run's trace (xcapanalyse --dump) holds every
message of that run's own log: its requests in the same order (the log's
last ones may be missing, sent after the relay stopped), and every event
the log dispatched (a client dispatches events of several queues in its
own order, Qt's among them, and libwayland drops those of objects without
a listener, so the events are compared as a multiset: the log's must all
be in the trace).

What two runs cannot share is masked before comparing, by the argument's
name in the protocol XML (given with --xml, every installed XML by
default): the compositor's serials and clocks (serial, time, callback_data,
the presentation times tv_*, seq_*), and a descriptor's number, which
exists only in the receiving process.  Requests and events are compared
apart, each in order, aligned as a diff; messages only one run has after
the other's last are counted apart, and wl_display's events (delete_id)
are compared in their own order, as libwayland dispatches them.  The
start-up (up to the client's first frame: a commit with a buffer
attached) must be the same message for message, but for the number of
round trips (wl_display.sync with its callback) a toolkit makes while it
waits for the compositor's first answers; after it, differences in
drawing frames (attach, damage, commit, frame callbacks, buffers made and
released) are counted apart: how many frames a client draws before the
test stops it, and when its timers redraw, differ between any two runs.  Prints the figures and every
difference; exits 1 when any is left.
"""
import difflib
import glob
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

MASKED = {'serial', 'time', 'callback_data', 'tv_sec_hi', 'tv_sec_lo', 'tv_nsec',
          'seq_hi', 'seq_lo', 'utime_hi', 'utime_lo', 'time_hi', 'time_lo'}
LOG_RE = re.compile(r'^\[\s*[0-9.]+\]\s+(-> )?([A-Za-z_0-9]+)@(\d+)\.(\w+)\((.*)\)\s*$')


def installed_xml():
    files = []
    for pkg in ('wayland-scanner', 'wayland-protocols'):
        try:
            d = subprocess.run(['pkg-config', '--variable=pkgdatadir', pkg],
                               capture_output=True, text=True).stdout.strip()
        except OSError:
            d = ''
        if d:
            files += glob.glob(d + '/**/*.xml', recursive=True)
    # where two files define an interface, the first wins, in the order the
    # decoder's tables take them: wayland.xml, stable, staging, unstable
    order = ['/stable/', '/staging/', '/unstable/']
    return sorted(files, key=lambda f: (next((i + 1 for i, o in enumerate(order) if o in f), 0), f))


def arg_names(files):
    """interface.message -> the printed arguments' names (a new_id without
    an interface prints as three: its interface's name, version, id)."""
    names = {}
    for f in files:
        try:
            root = ET.parse(f).getroot()
        except ET.ParseError:
            continue
        for itf in root.iter('interface'):
            for kind in ('request', 'event'):
                for m in itf.iter(kind):
                    out = []
                    for a in m.iter('arg'):
                        if a.get('type') == 'new_id' and not a.get('interface'):
                            out += ['interface', 'version', a.get('name')]
                        else:
                            out.append(a.get('name'))
                    names.setdefault('%s.%s' % (itf.get('name'), m.get('name')), out)
    return names


def split_args(text):
    out, cur, quoted, i = [], '', False, 0
    while i < len(text):
        c = text[i]
        if quoted and c == '\\' and i + 1 < len(text):
            cur += text[i:i + 2]
            i += 2
            continue
        if c == '"':
            quoted = not quoted
        if not quoted and text.startswith(', ', i):
            out.append(cur)
            cur = ''
            i += 2
            continue
        cur += c
        i += 1
    if cur or out:
        out.append(cur)
    return out


def read(path, names):
    """The log's messages, as two parts: the start-up, up to and with the
    first commit of a surface with a buffer attached (its first frame),
    and the rest; each a list of (is_request, text)."""
    parts = [[], []]
    attached = set()
    part = 0
    for line in open(path, errors='replace'):
        m = LOG_RE.match(line.rstrip('\n'))
        if not m:
            continue
        to_server, itf, oid, msg, args = m.groups()
        vals = split_args(args)
        which = names.get('%s.%s' % (itf, msg), [])
        for k, v in enumerate(vals):
            if v.startswith('fd '):
                vals[k] = 'fd'
            elif k < len(which) and which[k] in MASKED:
                vals[k] = '*'
        parts[part].append((bool(to_server), '%s@%s.%s(%s)' % (itf, oid, msg, ', '.join(vals))))
        if to_server and itf == 'wl_surface' and msg == 'attach' and vals and vals[0] != 'nil':
            attached.add(oid)
        if to_server and itf == 'wl_surface' and msg == 'commit' and oid in attached:
            part = 1
    return parts


# What drawing a frame sends and gets, with the double-buffered state a
# toolkit sets again for each frame it commits (GTK 3: the window's
# geometry, size limits and opaque region): how many frames a client draws
# before the test stops it, and when its timers (a cursor's blink) redraw,
# differ between any two runs.
REDRAW = re.compile(r'^(wl_surface@\d+\.(attach|damage|damage_buffer|commit|frame|enter|leave|'
                    r'set_buffer_scale|set_opaque_region|set_input_region)|'
                    r'wl_shm@\d+\.create_pool|wl_shm_pool@\d+\.(create_buffer|destroy|resize)|'
                    r'wl_buffer@\d+\.(release|destroy)|wl_callback@\d+\.done|'
                    r'wl_compositor@\d+\.create_region|wl_region@\d+\.\w+|'
                    r'xdg_surface@\d+\.set_window_geometry|xdg_toplevel@\d+\.set_(min|max)_size|'
                    r'wl_display@1\.delete_id|wp_viewport@\d+\.set_\w+|'
                    r'wl_subsurface@\d+\.set_position)\(')


def compare(what, a, b, out):
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    ops = sm.get_opcodes()
    tail = 0
    if ops and ops[-1][0] != 'equal' and (ops[-1][2] == len(a) and ops[-1][4] == len(b)):
        tag, i1, i2, j1, j2 = ops[-1]
        if tag in ('insert', 'delete'):
            ops.pop()
            tail = (i2 - i1) + (j2 - j1)
            out.append('  %s: %d at the end only in the %s run' %
                       (what, tail, 'direct' if tag == 'delete' else 'relayed'))
    n = 0
    for tag, i1, i2, j1, j2 in ops:
        if tag == 'equal':
            continue
        k = max(i2 - i1, j2 - j1)
        for d in range(k):
            x = a[i1 + d] if i1 + d < i2 else '(none)'
            y = b[j1 + d] if j1 + d < j2 else '(none)'
            out.append('  %s #%d: direct %s, relayed %s' % (what, i1 + d, x, y))
        n += k
    return n, tail


def reordered(x, y):
    """The same messages, object ids aside, in any order."""
    def bag(p):
        return sorted(re.sub(r'@\d+', '@', t) for r, t in p)
    return bag(x) == bag(y)


SYNC_RE = re.compile(r'^wl_display@1\.sync\(new id wl_callback@(\d+)\)$')


def without_round_trips(part):
    """The part without its round trips (wl_display.sync, the callback's
    done and the display's delete_id of it, which libwayland may log
    before the done), and how many there were."""
    out, done, deleted, trips = [], set(), set(), 0
    for r, t in part:
        m = SYNC_RE.match(t) if r else None
        if m:
            done.add(m.group(1))
            deleted.add(m.group(1))
            trips += 1
            continue
        m = re.match(r'^(?:wl_callback@(\d+)\.done\(|wl_display@1\.delete_id\((\d+)\))', t)
        if not r and m and m.group(1) in done:
            done.discard(m.group(1))
            continue
        if not r and m and m.group(2) in deleted:
            deleted.discard(m.group(2))
            continue
        out.append((r, t))
    return out, trips


def split(part):
    """requests, events other than wl_display's, wl_display's events
    (libwayland dispatches those ahead of the others it read with them:
    compared in their own order)."""
    req = [t for r, t in part if r]
    ev = [t for r, t in part if not r and not t.startswith('wl_display@1.')]
    disp = [t for r, t in part if not r and t.startswith('wl_display@1.')]
    return req, ev, disp


DUMP_RE = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')


def from_dump(path):
    req, ev = [], []
    for line in open(path, errors='replace'):
        if not line.startswith('msg '):
            continue
        f = {}
        for k, v in DUMP_RE.findall(line):
            if v.startswith('"'):
                v = v[1:-1].replace('\\"', '"').replace('\\\\', '\\')
            f[k] = v
        if f.get('kind') == 'setup':
            continue
        (req if f['dir'] == 'c2s' else ev).append(f.get('detail', ''))
    return req, ev


def trace_has(log, dump):
    fd = re.compile(r'\bfd \d+')
    req, ev = [], []
    for line in open(log, errors='replace'):
        m = LOG_RE.match(line.rstrip('\n'))
        if m:
            text = fd.sub('fd', '%s@%s.%s(%s)' % m.group(2, 3, 4, 5))
            (req if m.group(1) else ev).append(text)
    treq, tev = from_dump(dump)
    problems = []
    if req != treq[:len(req)]:
        k = next(i for i in range(len(req)) if i >= len(treq) or req[i] != treq[i])
        problems.append('request #%d: log %s, trace %s' % (k, req[k], treq[k] if k < len(treq) else '(none)'))
    left = {}
    for e in tev:
        left[e] = left.get(e, 0) + 1
    for e in ev:
        if left.get(e, 0):
            left[e] -= 1
        else:
            problems.append('event not in the trace: %s' % e)
    print('log %d requests, %d events; trace %d requests, %d events: %d requests in order, '
          '%d events only in the trace; %d problems'
          % (len(req), len(ev), len(treq), len(tev), min(len(req), len(treq)),
             sum(left.values()), len(problems)))
    for p in problems[:20]:
        print('  ' + p)
    return 1 if problems else 0


def main(argv):
    if len(argv) == 3 and argv[0] == '--trace':
        return trace_has(argv[1], argv[2])
    files = []
    while len(argv) > 2 and argv[0] == '--xml':
        files.append(argv[1])
        argv = argv[2:]
    if len(argv) != 2:
        sys.exit(__doc__)
    names = arg_names(files or installed_xml())
    a = read(argv[0], names)
    b = read(argv[1], names)
    out = []
    differ = 0
    for k, what in enumerate(('start-up', 'after the first frame')):
        extra = []
        part = 0
        for kind, x, y in zip(('request', 'event', 'wl_display event'), split(a[k]), split(b[k])):
            n, t = compare('%s %s' % (what, kind), x, y, extra)
            part += n
        if k == 0 and part and reordered(a[0], b[0]):
            # a toolkit's threads (Qt's) may race to send their first
            # requests: the same messages, in another order and so with
            # other ids, is not the relay's doing
            extra = ['  start-up: the same messages in another order (the client\'s threads raced)']
            part = 0
        if k == 0 and part:
            # Qt waits for what it needs in its start-up (the outputs'
            # modes, a configure) with a round trip when it has not yet
            # arrived: how many it makes depends on what the compositor
            # sent by then, not on the relay.  The rest must be the same.
            (a0, na), (b0, nb) = without_round_trips(a[0]), without_round_trips(b[0])
            if na != nb and (reordered(a0, b0) or
                             sum(compare('', x, y, [])[0] for x, y in zip(split(a0), split(b0))) == 0):
                extra = ['  start-up: the same messages but for the round trips (wl_display.sync): '
                         '%d in the direct run, %d in the relayed' % (na, nb)]
                part = 0
        differ += part
        if k == 1:
            redraw = [l for l in extra if not l.endswith('run') and
                      all(REDRAW.match(v) or v == '(none)' for v in
                          re.findall(r'(?:direct|relayed) (\S+\(.*?\)|\(none\))(?:,|$)', l))]
            differ -= len(redraw)
            extra = [l for l in extra if l not in redraw]
            if redraw:
                extra.append('  after the first frame: %d differ in redrawing' % len(redraw))
        out += extra
    total = lambda p: sum(len(x) for x in p)
    print('direct %d messages (%d in start-up), relayed %d (%d): %d differ'
          % (total(a), len(a[0]), total(b), len(b[0]), differ))
    for line in out:
        print(line)
    return 1 if differ else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
