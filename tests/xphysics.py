#!/usr/bin/python3
"""xphysics.py — an X client whose network behaviour is known in advance,
for testing the state model against physics.

usage: xphysics.py HOST DISPLAY trips N [THINK_MS WAITED]
       xphysics.py HOST DISPLAY upload BYTES [READY GO]

trips:  N GetInputFocus requests, each sent alone and waited on: N
        blocking round trips and nothing else.  With THINK_MS and WAITED,
        it works THINK_MS after each answer (the setup's too) before it
        sends again, and writes to the file WAITED what its own clock
        says it waited: the setup's wait and each request's, in seconds,
        one a line.
upload: PutImage requests carrying BYTES of pixels in all, sent as fast
        as the socket takes them, then one GetInputFocus to see them done.
        With READY and GO, it creates the file READY once connected and
        waits for the file GO to appear before it uploads (so that a test
        can stop the server in between).
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xclient import Client  # noqa: E402


def main():
    host, display, mode, amount = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    c = Client(display, 'lsb', open(os.devnull, 'w'), host)
    timed = mode == 'trips' and len(sys.argv) > 6
    waited = []
    t = time.monotonic()
    if not c.setup():
        sys.exit('xphysics: the server refused the connection')
    waited.append(time.monotonic() - t)
    if mode == 'trips':
        for _ in range(amount):
            if timed:
                time.sleep(float(sys.argv[5]) / 1000)
            t = time.monotonic()
            c.sync()
            waited.append(time.monotonic() - t)
        if timed:
            with open(sys.argv[6], 'w') as f:
                f.write(''.join('%.6f\n' % w for w in waited))
    elif mode == 'upload':
        width, rows = 256, 64           # 64 KiB of 32-bit pixels per request
        pixmap, gc = c.new_id(), c.new_id()
        c.request(53, c.root_depth, c.pack('IIHH', pixmap, c.root, width, rows), 'CreatePixmap')
        c.request(55, 0, c.pack('III', gc, pixmap, 0), 'CreateGC')
        c.sync()
        if len(sys.argv) > 6:
            open(sys.argv[5], 'w').close()
            for _ in range(1000):
                if os.path.exists(sys.argv[6]):
                    break
                time.sleep(0.01)
        chunk = bytes(width * rows * 4)
        for _ in range(max(1, amount // len(chunk))):
            # ZPixmap (format 2) at depth 24 is 32 bits per pixel.
            body = c.pack('IIHHhhBBH', pixmap, gc, width, rows, 0, 0, 0, c.root_depth, 0) + chunk
            c.request(72, 2, body, 'PutImage')
            c.flush()
        c.sync()
    else:
        sys.exit('xphysics: unknown mode: %r' % mode)


if __name__ == '__main__':
    main()
