#!/usr/bin/python3
"""wm-class-twice.py DISPLAY — a client that names itself three times.

On one connection to DISPLAY (TCP, 127.0.0.1) it creates a window and sets
its WM_NAME ("a-title"), then its WM_CLASS twice ("first" "First", then
"second" "Second"), each followed by a round trip.  Every view must call
the connection by the first WM_CLASS: WM_CLASS names the program over a
title, and of one source the first name said is kept
(xrec_name_takes, xcap/record.h).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xclient import Client  # noqa: E402

WM_NAME, WM_CLASS, STRING = 39, 67, 31


def set_property(c, win, atom, value):
    pad = (4 - len(value) % 4) % 4
    c.request(18, 0, c.pack('IIIBxxxI', win, atom, STRING, 8, len(value)) + value + b'\0' * pad,
              'ChangeProperty')
    c.sync()


def main():
    c = Client(int(sys.argv[1]), 'lsb', open(os.devnull, 'w'))
    if not c.setup():
        sys.exit('wm-class-twice: the server refused the connection')
    win = c.new_id()
    c.request(1, 0, c.pack('IIhhHHHHII', win, c.root, 0, 0, 10, 10, 0, 1, 0, 0), 'CreateWindow')
    set_property(c, win, WM_NAME, b'a-title')
    set_property(c, win, WM_CLASS, b'first\0First\0')
    set_property(c, win, WM_CLASS, b'second\0Second\0')
    c.sock.close()


if __name__ == '__main__':
    main()
