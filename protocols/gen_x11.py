#!/usr/bin/env python3
"""Generate the X11 descriptor tables (x11_tables.c) from xcb-proto.

usage: gen_x11.py XCB-PROTO-XML-DIR > x11_tables.c
       gen_x11.py --names XCB-PROTO-XML-DIR > x11_names.h

xcb-proto's own Python package, xcbgen, parses and resolves every protocol
description (the core protocol and each extension); this script walks what
it resolved and writes, per extension, the requests indexed by opcode, the
events and GenericEvents indexed by number, and the errors.  For requests
and replies it also records the fields a detail line wants: atoms at fixed
offsets and the first counted string, and for the few messages named in
CHOSEN the fields chosen there (the window of the property requests and
of PropertyNotify).  The structs are declared in protocols/x11_tables.h.

With --names it writes instead the names the decoder's code uses, so that
it never spells an opcode or event code as a number: the core requests
(X11_REQ_InternAtom), the core events (X11_EVENT_KeymapNotify) and every
extension's name as QueryExtension gives it (X11_XNAME_bigreq
"BIG-REQUESTS"), each spelled as xcb-proto spells it.
"""
import glob
import os
import sys

# xcbgen looks its output hooks up in __main__.output while its classes are
# being defined, so the table must exist before the import.
output = {}
for hook in ('open', 'close', 'simple', 'enum', 'struct', 'union', 'request',
             'event', 'error', 'eventstruct'):
    output[hook] = lambda *args: None

from xcbgen.state import Module  # noqa: E402  (needs output above)
from xcbgen.xtypes import ListType, SwitchType  # noqa: E402

# Field kinds, as in enum x11_field_kind
FK_ATOM, FK_STRING, FK_XID, FK_NONZERO = 1, 2, 3, 4

# Fields shown beyond the atoms and the first string, by (xcb-proto file,
# request or event) and field name.  Kept to the messages that need them:
# a detail is a column of tables and of golden files, so it stays short.
# The property requests name their window, so that a GetProperty read twice
# can be told from one of another window's property (xcapanalyse's
# avoidable round trips), and so do the requests and the event that tell
# of a change between; GetProperty's delete and long_offset, shown only
# when not 0, tell a read that deletes the property, or reads on where the
# last one stopped, from a repeat.  An event has no detail fields but
# these.
CHOSEN = {
    ('xproto', 'GetProperty'): {'delete': FK_NONZERO, 'window': FK_XID,
                                'long_offset': FK_NONZERO},
    ('xproto', 'ChangeProperty'): {'window': FK_XID},
    ('xproto', 'DeleteProperty'): {'window': FK_XID},
    ('xproto', 'RotateProperties'): {'window': FK_XID},
    ('xproto', 'PropertyNotify'): {'window': FK_XID, 'atom': FK_ATOM},
}
# Request shapes, as in enum x11_shape
SHAPE_FIXED, SHAPE_LIST, SHAPE_MASK, SHAPE_OTHER = 0, 1, 2, 3


def c_string(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def ident(s):
    return ''.join(c if c.isalnum() else '_' for c in s)


def interesting_fields(fields, chosen=None, only_chosen=False):
    """The atom fields at fixed offsets and the first counted string, and
    the fields chosen ({name: kind}, at fixed offsets); with only_chosen,
    those alone.

    Offsets are known up to the first field whose size varies; a string
    counts only if it starts there and its length is a plain reference to
    a field at a known offset."""
    chosen = chosen or {}
    out = []
    offsets = {}   # field name -> (offset, size)
    offset = 0
    for f in fields:
        if not f.wire:
            continue
        t = f.type
        if isinstance(t, ListType) and not t.fixed_size():
            member = t.member
            expr = t.expr
            if (not only_chosen and getattr(member, 'name', None) == ('char',)
                    and expr.op is None and expr.lenfield_name in offsets):
                lo, ls = offsets[expr.lenfield_name]
                out.append((f.field_name, FK_STRING, offset, ls, lo))
            break
        size = t.get_total_size()
        if size is None:
            break
        if f.field_name:
            offsets[f.field_name] = (offset, size)
        kind = chosen.get(f.field_name)
        if kind is None and not only_chosen and f.field_type and f.field_type[-1] == 'ATOM':
            kind = FK_ATOM
        if kind in (FK_ATOM, FK_XID) and size != 4:
            raise SystemExit('gen_x11.py: %s is %d bytes, not an atom or XID' % (f.field_name, size))
        if kind == FK_NONZERO and size not in (1, 2, 4):
            raise SystemExit('gen_x11.py: %s is %d bytes, not a number' % (f.field_name, size))
        if kind:
            out.append((f.field_name, kind, offset, size, 0))
        offset += size
    return out, offset


def layout(fields):
    """How the length of a request or reply follows from its fields, for
    telling a real message from bytes that only look like one.

    Returns (fixed, shape, elem, count_offset, count_size), fixed being the
    bytes up to the first part of varying size, and shape one of:
      SHAPE_FIXED  nothing after the fixed part: the length is fixed
      SHAPE_LIST   one trailing list of elem-byte items, counted by the
                   field at count_offset (count_size bytes) when it has one
      SHAPE_MASK   one trailing list of 4-byte values, one per bit set in
                   the mask field at count_offset (CreateWindow's value_list)
      SHAPE_OTHER  anything else: only the fixed part is known"""
    wire = [f for f in fields if f.wire]
    offsets = {}
    offset = 0
    for i, f in enumerate(wire):
        t = f.type
        size = t.get_total_size() if t.fixed_size() else None
        if size is not None:
            if f.field_name:
                offsets[f.field_name] = (offset, size)
            offset += size
            continue
        if i != len(wire) - 1:
            return offset, SHAPE_OTHER, 0, 0, 0
        if isinstance(t, ListType) and t.member.fixed_size():
            elem = t.member.get_total_size()
            expr = t.expr
            if expr.op is None and expr.lenfield_name in offsets:
                co, cs = offsets[expr.lenfield_name]
                return offset, SHAPE_LIST, elem, co, cs
            return offset, SHAPE_LIST, elem, 0, 0
        if isinstance(t, SwitchType) and t.expr.op is None and t.expr.lenfield_name in offsets:
            values = [g for b in t.bitcases for g in b.type.fields if g.wire]
            if len(values) == len(t.bitcases) and all(
                    g.type.fixed_size() and g.type.get_total_size() == 4 for g in values):
                co, cs = offsets[t.expr.lenfield_name]
                return offset, SHAPE_MASK, 4, co, cs
        return offset, SHAPE_OTHER, 0, 0, 0
    return offset, SHAPE_FIXED, 0, 0, 0


class Extension:
    def __init__(self, module):
        ns = module.namespace
        self.xname = ns.ext_xname if ns.is_ext else None
        self.name = ns.ext_name if ns.is_ext else 'core'
        self.header = ns.header
        self.requests = {}   # opcode -> (name, has_reply, fields, reply_fields, layout, reply_layout)
        self.events = {}     # number -> (name, has_seq, fields)
        self.generic = {}    # event type -> name
        self.errors = {}     # number -> name
        self.atoms = {}      # predefined atom number -> name (core only)


def collect(path):
    module = Module(path, None)
    module.register()
    module.resolve()
    ext = Extension(module)
    prefix = module.namespace.prefix
    for name, item in module.all:
        if name[:-1] != prefix:
            continue
        kind = type(item).__name__
        if kind == 'Enum' and name[-1] == 'Atom' and not module.namespace.is_ext:
            for aname, value in item.values:
                if value and int(value, 0) > 0:
                    ext.atoms[int(value, 0)] = aname
        elif kind == 'Request':
            fields, _ = interesting_fields(item.fields, CHOSEN.get((ext.header, name[-1])))
            reply_fields = []
            reply_layout = (0, SHAPE_OTHER, 0, 0, 0)
            if item.reply:
                reply_fields, _ = interesting_fields(item.reply.fields)
                reply_layout = layout(item.reply.fields)
            ext.requests[int(item.opcode)] = (name[-1], item.reply is not None, fields,
                                              reply_fields, layout(item.fields), reply_layout)
        elif kind == 'Event':
            number = int(item.opcodes[name])
            if item.is_ge_event:
                ext.generic[number] = name[-1]
            else:
                chosen = CHOSEN.get((ext.header, name[-1]))
                fields = interesting_fields(item.fields, chosen, True)[0] if chosen else []
                ext.events[number] = (name[-1], item.has_seq, fields)
    for name, item in module.errors.values():
        if name[:-1] != prefix:
            continue
        number = int(item.opcodes[name])
        if 0 <= number < 256:
            ext.errors[number] = name[-1]
    return ext


def emit_fields(out, sym, fields):
    if not fields:
        return 'NULL'
    out.append('static const struct x11_field %s[] = {' % sym)
    for fname, kind, offset, size, len_offset in fields:
        out.append('\t{ %s, %d, %d, %d, %d },' % (c_string(fname), kind, offset, size,
                                                  len_offset))
    out.append('};')
    return sym


def emit(ext, out):
    base = 'x11_' + ident(ext.header)
    reqs = []
    for op in sorted(ext.requests):
        name, has_reply, fields, reply_fields, req_layout, reply_layout = ext.requests[op]
        fsym = emit_fields(out, '%s_%s_fields' % (base, ident(name)), fields)
        rsym = emit_fields(out, '%s_%s_reply_fields' % (base, ident(name)), reply_fields)
        reqs.append('\t[%d] = { %s, %d, %d, %s, %d, %s, { %d, %d, %d, %d, %d }, '
                    '{ %d, %d, %d, %d, %d } },' % (
                        op, c_string(name), int(has_reply), len(fields), fsym,
                        len(reply_fields), rsym, *req_layout, *reply_layout))
    nreq = max(ext.requests) + 1 if ext.requests else 0
    if reqs:
        out.append('static const struct x11_request %s_requests[%d] = {' % (base, nreq))
        out.extend(reqs)
        out.append('};')
    nev = max(ext.events) + 1 if ext.events else 0
    if nev:
        rows = []
        for n in sorted(ext.events):
            name, has_seq, fields = ext.events[n]
            fsym = emit_fields(out, '%s_%s_event_fields' % (base, ident(name)), fields)
            rows.append('\t[%d] = { %s, %d, %d, %s },' % (n, c_string(name), int(has_seq),
                                                        len(fields), fsym))
        out.append('static const struct x11_event %s_events[%d] = {' % (base, nev))
        out.extend(rows)
        out.append('};')
    ngen = max(ext.generic) + 1 if ext.generic else 0
    if ngen:
        out.append('static const struct x11_event %s_generic[%d] = {' % (base, ngen))
        for n in sorted(ext.generic):
            out.append('\t[%d] = { %s, 1 },' % (n, c_string(ext.generic[n])))
        out.append('};')
    nerr = max(ext.errors) + 1 if ext.errors else 0
    if nerr:
        out.append('static const char *const %s_errors[%d] = {' % (base, nerr))
        for n in sorted(ext.errors):
            out.append('\t[%d] = %s,' % (n, c_string(ext.errors[n])))
        out.append('};')
    out.append('const struct x11_extension %s = {' % base)
    out.append('\t.xname = %s, .name = %s,' % (c_string(ext.xname) if ext.xname else 'NULL',
                                              c_string(ext.name)))
    out.append('\t.nrequests = %d, .requests = %s,' % (nreq, base + '_requests' if nreq else 'NULL'))
    out.append('\t.nevents = %d, .events = %s,' % (nev, base + '_events' if nev else 'NULL'))
    out.append('\t.ngeneric = %d, .generic = %s,' % (ngen, base + '_generic' if ngen else 'NULL'))
    out.append('\t.nerrors = %d, .errors = %s,' % (nerr, base + '_errors' if nerr else 'NULL'))
    out.append('};')
    out.append('')
    return base


def emit_names(exts, xmldir):
    """The header of names: opcodes and codes as enums, extension names
    as string macros."""
    out = ['/* Generated by protocols/gen_x11.py --names from xcb-proto (%s): do not edit. */'
           % xmldir,
           '#ifndef XCAP_X11_NAMES_H', '#define XCAP_X11_NAMES_H', '']
    core = next(e for e in exts if e.header == 'xproto')
    out.append('/* Core request major opcodes. */')
    out.append('enum x11_core_request {')
    for op in sorted(core.requests):
        out.append('\tX11_REQ_%s = %d,' % (ident(core.requests[op][0]), op))
    out.append('};')
    out.append('')
    out.append('/* Core event codes (GeGeneric is GenericEvent). */')
    out.append('enum x11_core_event {')
    codes = {n: core.events[n][0] for n in core.events}
    codes.update(core.generic)   # GeGeneric: the code every GenericEvent has
    for n in sorted(codes):
        out.append('\tX11_EVENT_%s = %d,' % (ident(codes[n]), n))
    out.append('};')
    out.append('')
    out.append('/* Extension names as QueryExtension asks for them, by xcb-proto file. */')
    for e in exts:
        if e.xname:
            out.append('#define X11_XNAME_%s %s' % (ident(e.header), c_string(e.xname)))
    out.append('')
    out.append('#endif')
    sys.stdout.write('\n'.join(out) + '\n')
    return 0


def main():
    args = sys.argv[1:]
    names = args[:1] == ['--names']
    if names:
        args = args[1:]
    if len(args) != 1:
        sys.stderr.write('usage: gen_x11.py [--names] XCB-PROTO-XML-DIR\n')
        return 2
    xmldir = args[0]
    paths = sorted(glob.glob(os.path.join(xmldir, '*.xml')))
    if not any(os.path.basename(p) == 'xproto.xml' for p in paths):
        sys.stderr.write('gen_x11.py: no xproto.xml in %s\n' % xmldir)
        return 1
    if names:
        return emit_names([collect(p) for p in paths], xmldir)
    out = ['/* Generated by protocols/gen_x11.py from xcb-proto (%s): do not edit. */'
           % xmldir, '#include "x11_tables.h"', '#include <stddef.h>', '']
    symbols = []
    core = None
    atoms = {}
    for path in paths:
        ext = collect(path)
        if ext.xname is None and ext.header != 'xproto':
            continue   # a file of shared types only (none so far)
        sym = emit(ext, out)
        if ext.header == 'xproto':
            core = sym
            atoms = ext.atoms
        else:
            symbols.append(sym)
    out.append('const struct x11_extension *const x11_extensions[] = {')
    for sym in symbols:
        out.append('\t&%s,' % sym)
    out.append('};')
    out.append('const size_t x11_nextensions = %d;' % len(symbols))
    out.append('const struct x11_extension *const x11_core_protocol = &%s;' % core)
    natoms = max(atoms) + 1 if atoms else 0
    out.append('const char *const x11_predefined_atoms[%d] = {' % natoms)
    for n in sorted(atoms):
        out.append('\t[%d] = %s,' % (n, c_string(atoms[n])))
    out.append('};')
    out.append('const size_t x11_npredefined_atoms = %d;' % natoms)
    sys.stdout.write('\n'.join(out) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
