#!/usr/bin/python3
"""xpipeline.py — a raw X11 client that pipelines like xcb code (Qt, xcb
tools) and records, inside itself, every time it blocked for a reply: the
ground truth for the round trips the state model names.

usage: xpipeline.py HOST DISPLAY LOG SCENARIO...

It waits for replies the way libxcb does: the replies of requests sent
are read in order; waiting for request N reads from the socket only when
N's answer is not already buffered, and it reads everything the kernel
holds each time.  Each time it had to read (it blocked), LOG gets

  wait SEQ START END      the request waited on, and when (CLOCK_REALTIME,
                          seconds) the client began and stopped blocking

and every flush of requests gets "send FIRST LAST TIME".  The connection
setup is request 0.  Scenarios (run in order, on one connection):

  atoms:N     N InternAtoms in one flush, then their replies in order
  queryext    QueryExtension of three extensions in one flush (XFIXES,
              DAMAGE, Present, as Qt and Mesa probe them)
  check       a void request (MapWindow of a window of its own) then a
              request_check: a GetInputFocus in the same flush, waiting
              on the void request (LOG names the void request)
  chain:N     N InternAtoms in one flush; after each reply one more
              InternAtom is sent before waiting on the next (xwininfo
              -tree's walk: the replies of one flush come after the
              client's next request)
  images:N    N GetImage of 32x32 pixels of the root in one flush (their
              replies outgrow the server's first congestion window, so
              they come over more than one round trip)
"""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xclient import Client  # noqa: E402


class Pipeliner(Client):
    def __init__(self, display, log, host):
        super().__init__(display, 'lsb', open(os.devnull, 'w'), host)
        self.truth = log
        self.answered = {}      # seq -> 'reply' | 'error'
        self.completed = 0      # highest seq known answered (as xcb's request_completed)

    def now(self):
        return time.clock_gettime(time.CLOCK_REALTIME)

    def send(self):
        first = self.seq - self.unsent + 1
        self.flush()
        self.truth.write('send %d %d %.9f\n' % (first, self.seq, self.now()))
        self.unsent = 0

    unsent = 0

    def request(self, major, minor_or_data, body, name):
        self.unsent += 1
        return super().request(major, minor_or_data, body, name)

    def take_buffered(self):
        """Parse every whole message already read; True if any."""
        got = False
        while len(self.inbuf) >= 32:
            code = self.inbuf[0] & 0x7f
            size = 32
            if code == 1:
                size += 4 * struct.unpack('<I', self.inbuf[4:8])[0]
            if len(self.inbuf) < size:
                break
            data = bytes(self.inbuf[:size])
            del self.inbuf[:size]
            got = True
            if code in (0, 1):
                seq = self.widen(struct.unpack('<H', data[2:4])[0])
                self.answered[seq] = data
                self.completed = max(self.completed, seq)
        return got

    def wait(self, seq, done=None):
        """Wait as xcb does for request seq (done: when it counts as done,
        default its own answer).  Records the wait if it blocked."""
        done = done or (lambda: seq in self.answered)
        self.take_buffered()
        if done():
            return self.answered.get(seq)
        start = self.now()
        while not done():
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise EOFError('server closed the connection')
            self.inbuf += chunk
            self.take_buffered()
        self.truth.write('wait %d %.9f %.9f\n' % (seq, start, self.now()))
        return self.answered.get(seq)

    def setup_timed(self):
        self.sock.sendall(b'l\0' + self.pack('HHHH', 11, 0, 0, 0) + b'\0\0')
        self.truth.write('send 0 0 %.9f\n' % self.now())
        start = self.now()
        self.log = open(os.devnull, 'w')
        head = self.recv_exact(8)
        body = self.recv_exact(4 * struct.unpack('<H', head[6:8])[0])
        self.truth.write('wait 0 %.9f %.9f\n' % (start, self.now()))
        if head[0] != 1:
            sys.exit('xpipeline: the server refused the connection')
        self.rid_base, self.rid_mask = struct.unpack('<II', body[4:12])
        vendor_len = struct.unpack('<H', body[16:18])[0]
        screen = 32 + (vendor_len + 3) // 4 * 4 + 8 * body[21]
        self.root = struct.unpack('<I', body[screen:screen + 4])[0]
        self.root_depth = body[screen + 38]
        self.next_id = 0

    def intern(self, name):
        return self.request(16, 0, self.string_req(name), 'InternAtom')


def scenario(c, what, counter):
    name, _, arg = what.partition(':')
    n = int(arg) if arg else 0
    if name == 'atoms':
        seqs = [c.intern('XPIPE_%d_%d' % (counter, i)) for i in range(n)]
        c.send()
        for s in seqs:
            c.wait(s)
    elif name == 'queryext':
        seqs = [c.request(98, 0, c.string_req(e), 'QueryExtension')
                for e in ('XFIXES', 'DAMAGE', 'Present')]
        c.send()
        for s in seqs:
            c.wait(s)
    elif name == 'check':
        win = c.new_id()
        c.request(1, 0, c.pack('IIhhHHHHI', win, c.root, 0, 0, 10, 10, 0, 1, 0) + c.pack('I', 0),
                  'CreateWindow')
        void = c.request(8, 0, c.pack('I', win), 'MapWindow')
        sync = c.request(43, 0, b'', 'GetInputFocus')
        c.send()
        # xcb_request_check: done when anything at or past the void request
        # is answered (here the GetInputFocus added for it).
        c.wait(void, done=lambda: c.completed >= void)
        c.answered.pop(sync, None)
    elif name == 'chain':
        seqs = [c.intern('XPIPE_%d_%d' % (counter, i)) for i in range(n)]
        c.send()
        more = []
        for i in range(n):
            c.wait(seqs[i])
            if i + 1 < n:
                more.append(c.intern('XPIPE_%d_more_%d' % (counter, i)))
                c.send()
        for s in more:
            c.wait(s)
    elif name == 'images':
        seqs = [c.request(73, 2, c.pack('IhhHHI', c.root, 0, 0, 32, 32, 0xffffffff), 'GetImage')
                for _ in range(n)]
        c.send()
        for s in seqs:
            c.wait(s)
    else:
        sys.exit('xpipeline: unknown scenario: %r' % what)


def main():
    host, display, logpath = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(logpath, 'w') as log:
        c = Pipeliner(display, log, host)
        c.setup_timed()
        for i, what in enumerate(sys.argv[4:]):
            scenario(c, what, i)
            time.sleep(0.01)    # a pause between scenarios: think time
        c.sock.close()


if __name__ == '__main__':
    main()
