#!/usr/bin/env python3
"""Generate the Wayland tables (wayland_tables.c) from protocol XML.

usage: gen_wayland.py FILE.xml... > wayland_tables.c

The files are given in order of precedence (wayland.xml, then
wayland-protocols' stable, staging and unstable XML): an interface defined
twice keeps its first definition.  Writes the structs declared in
protocols/wayland_tables.h.  Uses only the standard library.
"""
import os
import sys
import xml.etree.ElementTree as ET

TYPES = {'int': 'i', 'uint': 'u', 'fixed': 'f', 'string': 's', 'object': 'o',
         'new_id': 'n', 'array': 'a', 'fd': 'h'}


class GenError(Exception):
    pass


def c_string(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def read(files):
    interfaces = {}
    total = 0
    for path in files:
        root = ET.parse(path).getroot()
        if root.tag != 'protocol':
            raise GenError('%s: not a Wayland protocol' % path)
        for iface in root.findall('interface'):
            total += 1
            name = iface.get('name')
            if name in interfaces:
                continue
            msgs = {'request': [], 'event': []}
            for el in iface:
                if el.tag not in msgs:
                    continue
                args = []
                for a in el.findall('arg'):
                    t = a.get('type')
                    if t not in TYPES:
                        raise GenError('%s: %s.%s: argument type %r' %
                                       (path, name, el.get('name'), t))
                    args.append((a.get('name'), TYPES[t],
                                 a.get('allow-null') == 'true', a.get('interface')))
                msgs[el.tag].append({
                    'name': el.get('name'),
                    'since': int(el.get('since', '1')),
                    'destructor': el.get('type') == 'destructor',
                    'args': args,
                })
            interfaces[name] = {
                'protocol': root.get('name'),
                'version': int(iface.get('version', '1')),
                'requests': msgs['request'],
                'events': msgs['event'],
            }
    return interfaces, total


def write(files, interfaces, total, out):
    names = sorted(interfaces)
    index = {n: i for i, n in enumerate(names)}
    w = out.write
    w('/* generated from %s by %s: do not edit */\n' %
      (' '.join(files), os.path.basename(sys.argv[0])))
    w('#include "config.h"\n\n#include "wayland_tables.h"\n\n')
    for i, n in enumerate(names):
        for kind in ('requests', 'events'):
            for j, m in enumerate(interfaces[n][kind]):
                if not m['args']:
                    continue
                w('static const struct wlt_arg a%d_%s_%d[] = {\n' % (i, kind[0], j))
                for an, t, nullable, ai in m['args']:
                    w('\t{ %s, \'%s\', %d, %d },\n' %
                      (c_string(an), t, nullable, index.get(ai, -1) if ai else -1))
                w('};\n')
        for kind in ('requests', 'events'):
            msgs = interfaces[n][kind]
            if not msgs:
                continue
            w('static const struct wlt_message m%d_%s[] = {\n' % (i, kind))
            for j, m in enumerate(msgs):
                flags = []
                if m['destructor']:
                    flags.append('WLT_DESTRUCTOR')
                if any(t == 'h' for _, t, _, _ in m['args']):
                    flags.append('WLT_HAS_FD')
                if len(m['args']) > 255:
                    raise GenError('%s.%s: too many arguments' % (n, m['name']))
                w('\t{ %s, %d, %s, %d, %s },\n' % (
                    c_string(m['name']), m['since'], '|'.join(flags) or '0',
                    len(m['args']), 'a%d_%s_%d' % (i, kind[0], j) if m['args'] else 'NULL'))
            w('};\n')
    w('\nconst struct wlt_interface wlt_interfaces[] = {\n')
    for i, n in enumerate(names):
        f = interfaces[n]
        w('\t{ %s, %s, %d, %d, %d, %s, %s },\n' % (
            c_string(n), c_string(f['protocol']), f['version'],
            len(f['requests']), len(f['events']),
            'm%d_requests' % i if f['requests'] else 'NULL',
            'm%d_events' % i if f['events'] else 'NULL'))
    w('};\nconst size_t wlt_ninterfaces = %d;\n\n' % len(names))
    w('const char *const wlt_sources[] = {\n')
    for p in files:
        w('\t%s,\n' % c_string(p))
    w('};\nconst size_t wlt_nsources = %d;\n' % len(files))
    w('const size_t wlt_interfaces_in_xml = %d;\n' % total)


def main():
    files = sys.argv[1:]
    if not files:
        sys.stderr.write('usage: gen_wayland.py FILE.xml... > wayland_tables.c\n')
        return 2
    try:
        interfaces, total = read(files)
    except (GenError, ET.ParseError, OSError) as e:
        sys.stderr.write('gen_wayland.py: %s\n' % e)
        return 1
    if not interfaces:
        sys.stderr.write('gen_wayland.py: no interfaces in %s\n' % ' '.join(files))
        return 1
    write(files, interfaces, total, sys.stdout)
    return 0


if __name__ == '__main__':
    sys.exit(main())
