#!/usr/bin/python3
"""xmark.py — mark a moment in an X session the way any client can, without
linking anything: intern the atom XCAP_MARK_<text>, or set the property
XCAP_MARK on the root window to the text.  Speaks the protocol itself
(tests/xclient.py), so the test needs neither Xlib nor xprop.

usage: xmark.py DISPLAY-NUMBER atom|property TEXT
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xclient import Client  # noqa: E402


def main():
    display, how, text = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    c = Client(display, 'lsb', open(os.devnull, 'w'))
    if not c.setup():
        return 1
    if how == 'atom':
        c.call(16, 0, c.string_req('XCAP_MARK_' + text), 'InternAtom')
    else:
        reply = c.call(16, 0, c.string_req('XCAP_MARK'), 'InternAtom')
        atom = int.from_bytes(reply[8:12], 'little')
        data = text.encode()
        pad = b'\0' * ((4 - len(data) % 4) % 4)
        # ChangeProperty: Replace, root window, XCAP_MARK, type STRING, format 8
        c.request(18, 0, c.pack('IIIB3xI', c.root, atom, 31, 8, len(data)) + data + pad,
                  'ChangeProperty')
        c.sync()
    return 0


if __name__ == '__main__':
    sys.exit(main())
