#!/usr/bin/env python3
"""Compare the Wayland messages xcap decoded from a waypipe capture with
the application's own WAYLAND_DEBUG=1 log (the oracle).

usage: wayland-oracle.py DEBUG.log TRACE.dump [CONN]

Each side becomes two lists: requests (the log's "-> " lines) and events,
each message as libwayland prints it: interface@id.message(arguments).
Requests are compared in order.  Events too, but wl_display's (delete_id,
error) apart from the others: libwayland dispatches them ahead of every
other event it read with them, in their own order.  A file descriptor's
number exists only in the receiving process: "fd N" is compared as "fd".
Messages only one side has at an end (a client stopped before it read
the last events, or gone before waypipe forwarded its last requests) are
counted apart.  Prints the figures and every difference; exits 1 when any
is left.
"""
import collections
import difflib
import re
import sys

LOG_RE = re.compile(r'^\[\s*[0-9.]+\]\s+(-> )?(\S+@\d+\.\w+\(.*\))\s*$')
FD_RE = re.compile(r'\bfd \d+')


def norm(text):
    return FD_RE.sub('fd', text)


def from_log(path):
    req, ev = [], []
    for line in open(path, errors='replace'):
        m = LOG_RE.match(line.rstrip('\n'))
        if not m:
            continue
        (req if m.group(1) else ev).append(norm(m.group(2)))
    return req, ev


def unquote(v):
    if v.startswith('"'):
        return v[1:-1].replace('\\"', '"').replace('\\\\', '\\')
    return v


DUMP_RE = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')


def from_dump(path, conn):
    req, ev = [], []
    for line in open(path, errors='replace'):
        if not line.startswith('msg '):
            continue
        f = {k: unquote(v) for k, v in DUMP_RE.findall(line)}
        if conn and f.get('conn') != conn:
            continue
        if f.get('ext') == 'waypipe' or f.get('kind') == 'setup':
            continue
        # a commit's buffer bytes (waypipe) are the decoder's, not the log's
        detail = re.sub(r'\) \+ rid -?[0-9]+: .*$', ')', f.get('detail', ''))
        (req if f['dir'] == 'c2s' else ev).append(detail)
    return req, ev


def split_display(ev):
    return [e for e in ev if not e.startswith('wl_display@1.')], \
        [e for e in ev if e.startswith('wl_display@1.')]


def diff(name, a, b, out):
    """a: the log's, b: the capture's; aligned as a diff, so that one
    message missing on a side counts once, not for every one after it.
    Returns the differences, and apart from them the messages only one
    side has after the other's last: the capture's last events when the
    client was stopped (the test's timeout) before it read them, the log's
    last requests when the client exited before waypipe forwarded them."""
    n = 0
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    ops = sm.get_opcodes()
    # A message both sides have, at different places, moved: a client
    # that reads into several event queues (GTK 4) dispatches, and so
    # logs, in its queues' order, not the wire's.  Set such pairs aside.
    la = [(a[i], i) for op, i1, i2, _, _ in ops if op != 'equal' for i in range(i1, i2)]
    lb = [(b[j], j) for op, _, _, j1, j2 in ops if op != 'equal' for j in range(j1, j2)]
    moved = collections.Counter(x for x, _ in la) & collections.Counter(x for x, _ in lb)
    if moved:
        da, db = set(), set()
        left = dict(moved)
        for x, i in la:
            if left.get(x):
                left[x] -= 1
                da.add(i)
        left = dict(moved)
        for x, j in lb:
            if left.get(x):
                left[x] -= 1
                db.add(j)
        out.append('%s: %d moved (%s)' % (name, sum(moved.values()), ', '.join(sorted(moved))))
        return diff(name, [x for i, x in enumerate(a) if i not in da],
                    [x for j, x in enumerate(b) if j not in db], out)
    tail = 0
    if ops and ops[-1][0] in ('insert', 'delete') and (ops[-1][1] == len(a) or ops[-1][3] == len(b)):
        tag, i1, i2, j1, j2 = ops.pop()
        tail = (i2 - i1) + (j2 - j1)
        out.append('%s: %d at the end only in the %s (%s ... %s)' % (
            name, tail, 'capture' if tag == 'insert' else 'log',
            (b[j1] if tag == 'insert' else a[i1]), (b[j2 - 1] if tag == 'insert' else a[i2 - 1])))
    for op, i1, i2, j1, j2 in ops:
        if op == 'equal':
            continue
        for k in range(max(i2 - i1, j2 - j1)):
            x = a[i1 + k] if i1 + k < i2 else '(none)'
            y = b[j1 + k] if j1 + k < j2 else '(none)'
            n += 1
            if n <= 12:
                out.append('%s #%d: log %s, capture %s' % (name, i1 + k + 1, x, y))
    return n, tail


def main():
    log_req, log_ev = from_log(sys.argv[1])
    cap_req, cap_ev = from_dump(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    out = []
    # libwayland drops, without logging, an event for a proxy the client
    # gave no listener or has destroyed (wl_callback_destroy is not a
    # request, so the wire never says): an event whose object and name the
    # log never shows is set aside as such, and counted.
    logged = {e.split('(', 1)[0] for e in log_ev}
    unlogged = [e for e in cap_ev if e.split('(', 1)[0] not in logged]
    cap_ev = [e for e in cap_ev if e.split('(', 1)[0] in logged]
    if unlogged:
        out.append('unlogged: %d events for a proxy without listener or destroyed (%s)'
                   % (len(unlogged), ', '.join(sorted({e.split('(', 1)[0] for e in unlogged}))))
    log_ev, log_disp = split_display(log_ev)
    cap_ev, cap_disp = split_display(cap_ev)
    nd, nt = 0, 0
    for name, a, b in (('request', log_req, cap_req), ('event', log_ev, cap_ev),
                       ('wl_display event', log_disp, cap_disp)):
        d, t = diff(name, a, b, out)
        nd += d
        nt += t
    total = len(log_req) + len(log_ev) + len(log_disp)
    print('compared %d messages (%d requests, %d events) of the log with %d of the capture: '
          '%d differ, %d more at an end' % (total, len(log_req), len(log_ev) + len(log_disp),
                         len(cap_req) + len(cap_ev) + len(cap_disp), nd, nt))
    for line in out:
        print('  ' + line)
    return 1 if nd else 0


if __name__ == '__main__':
    sys.exit(main())
