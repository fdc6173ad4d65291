#!/usr/bin/env python3
"""rfbtruth.py — the viewer's own clock on RFB response time, for
tests/responses-truth.sh.

usage: rfbtruth.py HOST PORT OUT GAP_MS INPUT...

A viewer of the suite's own (the framing of tests/rfbclient.py): it asks
for the whole screen, keeps one incremental FramebufferUpdateRequest
outstanding as viewers do (a new one right after each update), puts the
pointer at 50,50, then works through the INPUTs, GAP_MS apart: a keysym
(0x61) is a key press and its release; click:B:X,Y moves the pointer to
X,Y, then presses button B and releases it (three PointerEvents);
watch:SECONDS:PID sends no input but sends PID (a capture) SIGUSR2, which
marks its trace, takes the updates for SECONDS, and signals PID again
(for --updates and its video quality).  With raw first among the INPUTs
it asks for Raw encoding alone, so that an update's size follows from its
area.  For each input sent, the first move included, it writes one line

    INDEX KIND WHAT SENT_NS LAST_NS COUNT BEFORE_NS

KIND key-press, key-release, button-press, button-release or motion;
WHAT the keysym (0x61), the button (button=1) or the position (50,50);
SENT_NS the time (CLOCK_REALTIME) just after the event was written to
the socket, BEFORE_NS just before (on a busy machine the two can be
milliseconds apart: the moment it left is between them), LAST_NS when
this host received the segment holding the last byte of the last update
before the next input (the kernel's receive stamp, SO_TIMESTAMPNS: when
the viewer's host had it, however late this process was scheduled to
read it; "-" when none came), COUNT the updates.  For a watch, the line is

    INDEX watch - START_NS LAST_NS COUNT END_NS

START_NS just before the first signal, END_NS just before the second,
LAST_NS the receive stamp of the last update between them, COUNT the
updates between them.
"""
import os
import signal
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rfbclient  # noqa: E402

# Linux's value; Python names it only on some builds.
SO_TIMESTAMPNS = getattr(socket, 'SO_TIMESTAMPNS', 35)


class StampedConn(rfbclient.Conn):
    """Conn whose reads keep the kernel's receive time of the latest
    segment read."""

    def __init__(self, host, port, log):
        super().__init__(host, port, log)
        self.s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.stamp = None

    def recv(self, n):
        while len(self.buf) < n:
            chunk, anc, _, _ = self.s.recvmsg(65536, socket.CMSG_SPACE(16))
            if not chunk:
                raise EOFError('server closed the connection')
            for level, kind, data in anc:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    sec, nsec = struct.unpack('qq', data[:16])
                    self.stamp = sec * 1000000000 + nsec
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        self.got += n
        return out


def main():
    host, port, out, gap = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]) / 1e3
    c = StampedConn(host, port, open(os.devnull, 'w'))
    c.recv(12)
    c.send('ProtocolVersion', b'RFB 003.008\n')
    types = c.recv(c.u8())
    if 1 not in types:
        raise SystemExit('rfbtruth: no security type None')
    c.send('SecurityType', b'\x01')
    if c.u32() != 0:
        raise SystemExit('rfbtruth: security failed')
    c.send('ClientInit', b'\x01')
    fw, fh = c.u16(), c.u16()
    c.recv(16)
    c.recv(c.u32())
    c.send('SetPixelFormat', struct.pack('>B3xBBBBHHHBBB3x', 0, 32, 24, 0, 1,
                                         255, 255, 255, 16, 8, 0))
    inputs = sys.argv[5:]
    encs = [rfbclient.ENCODINGS['Hextile'], rfbclient.ENCODINGS['Raw']]
    if inputs and inputs[0] == 'raw':
        encs = [rfbclient.ENCODINGS['Raw']]
        inputs = inputs[1:]
    c.send('SetEncodings', struct.pack('>BxH%di' % len(encs), 2, len(encs), *encs))

    def request(incremental):
        c.send('FramebufferUpdateRequest', struct.pack('>BBHHHH', 3, incremental, 0, 0, fw, fh))

    request(0)
    c.until_update()
    request(1)

    def drain(until):
        """Updates until the time given; the last one's end and how many."""
        last, count = None, 0
        while True:
            left = until - time.monotonic()
            if left <= 0 and not c.buf:
                return last, count
            c.s.settimeout(max(left, 0.001))
            try:
                name = c.server_message()
            except socket.timeout:
                return last, count
            if name == 'FramebufferUpdate':
                last = c.stamp
                count += 1
                request(1)

    with open(out, 'w') as f:
        index = 0

        def send(kind, what, name, data):
            """One input, then the updates until the next; one line."""
            nonlocal index
            before = time.time_ns()
            c.send(name, data)
            sent = time.time_ns()
            last, count = drain(time.monotonic() + gap)
            index += 1
            f.write('%d %s %s %d %s %d %d\n' % (index, kind, what, sent, last if last else '-',
                                                  count, before))
            f.flush()

        def pointer(kind, what, mask, x, y):
            send(kind, what, 'PointerEvent', struct.pack('>BBHH', 5, mask, x, y))

        pointer('motion', '50,50', 0, 50, 50)
        for arg in inputs:
            if arg.startswith('watch:'):
                seconds, pid = arg[6:].split(':')
                start = time.time_ns()
                os.kill(int(pid), signal.SIGUSR2)
                last, count = drain(time.monotonic() + float(seconds))
                end = time.time_ns()
                os.kill(int(pid), signal.SIGUSR2)
                index += 1
                f.write('%d watch - %d %s %d %d\n' % (index, start, last if last else '-', count,
                                                      end))
                f.flush()
                continue
            if arg.startswith('click:'):
                button, at = arg[6:].split(':')
                x, y = (int(v) for v in at.split(','))
                bit = 1 << (int(button) - 1)
                pointer('motion', '%d,%d' % (x, y), 0, x, y)
                pointer('button-press', 'button=' + button, bit, x, y)
                pointer('button-release', 'button=' + button, 0, x, y)
                continue
            k = int(arg, 0)
            for down in (1, 0):
                send('key-press' if down else 'key-release', '0x%x' % k, 'KeyEvent',
                     struct.pack('>BBxxI', 4, down, k))
    c.s.close()


if __name__ == '__main__':
    main()
