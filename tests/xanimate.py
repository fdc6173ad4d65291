#!/usr/bin/python3
"""xanimate.py — an animation of a known frame rate, played the way a
video player plays: by the clock, dropping the frames it is late for.

usage: xanimate.py HOST DISPLAY FPS SECONDS SIZE OUT [MARK]

Maps a SIZE x SIZE window at 0,0 and, for SECONDS, draws frame i at
i / FPS seconds after the start: one PutImage of the whole window, each
frame a colour of its own, written to the socket as soon as it is due
(the write blocks while the connection cannot take more: a slow link).
A frame whose time has passed by more than a frame when the one before
it is written is dropped, as a player drops late frames.  After the last
frame's time and its own frame period it waits until the server has
everything (a round trip).  With MARK it marks the start (just before
the first frame) and the end (after that round trip) by interning the
atoms XCAP_MARK_MARK-start and XCAP_MARK_MARK-end, so a capture beside
it can name the span.  Writes to OUT one line, on this client's own
monotonic clock:

    FRAMES DROPPED SECONDS

the frames written, those dropped, and the time from the start mark (just
before the first frame) to the end (the server had the last frame).
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xclient import Client  # noqa: E402


def main():
    host, display = sys.argv[1], int(sys.argv[2])
    fps, seconds, size, out = float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
    mark = sys.argv[7] if len(sys.argv) > 7 else None
    c = Client(display, 'lsb', open(os.devnull, 'w'), host)
    if not c.setup():
        sys.exit('xanimate: the server refused the connection')
    win, gc = c.new_id(), c.new_id()
    # CreateWindow: depth and visual of the parent, InputOutput, no values.
    c.request(1, 0, c.pack('IIhhHHHHII', win, c.root, 0, 0, size, size, 0, 1, 0, 0),
              'CreateWindow')
    c.request(8, 0, c.pack('I', win), 'MapWindow')
    c.request(55, 0, c.pack('III', gc, win, 0), 'CreateGC')
    c.sync()
    time.sleep(0.3)     # mapped and exposed before the clock starts

    def intern(name):
        c.call(16, 0, c.string_req(name), 'InternAtom')

    if mark:
        intern('XCAP_MARK_%s-start' % mark)
    start = time.monotonic()
    frames = dropped = 0
    i = 0
    period = 1.0 / fps
    last = int(seconds * fps)       # frames 0 .. last-1
    while i < last:
        due = start + i * period
        now = time.monotonic()
        if now < due:
            time.sleep(due - now)
        elif now - due > period:
            # Late by more than a frame: drop to the frame of now.
            behind = min(int((now - start) / period), last)
            dropped += behind - i
            i = behind
            if i >= last:
                break
        shade = (i * 37) % 256
        pixel = bytes((shade, 255 - shade, (i * 11) % 256, 0))
        # ZPixmap at depth 24: 32 bits a pixel.
        body = c.pack('IIHHhhBBH', win, gc, size, size, 0, 0, 0, c.root_depth, 0) + pixel * (size * size)
        c.request(72, 2, body, 'PutImage')
        c.flush()
        frames += 1
        i += 1
    now = time.monotonic()
    if now < start + seconds:
        time.sleep(start + seconds - now)   # the last frame's own period
    c.sync()
    end = time.monotonic()
    if mark:
        intern('XCAP_MARK_%s-end' % mark)
    with open(out, 'w') as f:
        f.write('%d %d %.6f\n' % (frames, dropped, end - start))


if __name__ == '__main__':
    main()
