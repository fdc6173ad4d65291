#!/usr/bin/python3
"""xclient.py — a raw-socket X11 client that provokes every decoding pitfall
and writes down what it sent and received, as ground truth for the decoder.

usage: xclient.py DISPLAY-NUMBER lsb|msb LOG [--fail-setup] [--wrap N] [--unused]

It speaks the protocol itself (no Xlib, no xcb), in the byte order asked
for, so it knows the sequence number of every request and which request
every reply, event and error belongs to.  LOG gets one line per message:

  c2s setup 0 SetupRequest
  c2s request SEQ MAJOR.MINOR NAME
  s2c setup 0 Setup|SetupFailed
  s2c reply SEQ NAME
  s2c event SEQ CODE NAME [send-event]      (SEQ is - for KeymapNotify)
  s2c error SEQ CODE NAME

The names are what the decoder should call these messages (xcb-proto's).
What it provokes: BIG-REQUESTS with a 300 kB PutImage, N NoOperations to
wrap the 16-bit sequence number (default 66000), a Present GenericEvent,
XKB StateNotify, SHAPE and DAMAGE events (event 0 of their extensions),
a ClientMessage by SendEvent, PropertyNotify, an error, and, with
--fail-setup, a refused setup.

--unused instead runs a short conversation whose every unused byte is not
zero, as the protocol allows and some clients do (a Solaris client sends
`42 02 00 0b` to begin its setup): the setup's byte 1 and padding, the
unused second byte of requests that have one, the padding after strings.
"""
import socket
import struct
import sys


class Client:
    def __init__(self, display, order, log, host='127.0.0.1'):
        self.e = '<' if order == 'lsb' else '>'
        self.order = order
        self.sock = socket.create_connection((host, 6000 + display))
        self.log = log
        self.seq = 0                 # requests sent
        self.out = bytearray()
        self.exts = {}               # name -> (major, first_event, first_error)
        self.inbuf = bytearray()
        self.unused = 0              # what unused bytes hold (--unused: not 0)

    # ---- bytes ----
    def pack(self, fmt, *args):
        return struct.pack(self.e + fmt, *args)

    def recv_exact(self, n):
        while len(self.inbuf) < n:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise EOFError('server closed the connection')
            self.inbuf += chunk
        data = bytes(self.inbuf[:n])
        del self.inbuf[:n]
        return data

    def write(self, line):
        self.log.write(line + '\n')

    # ---- setup ----
    def setup(self, major=11):
        byte = b'l' if self.order == 'lsb' else b'B'
        u = self.unused
        self.sock.sendall(byte + bytes([u and 2]) + self.pack('HHHH', major, 0, 0, 0) +
                          bytes([u, u]))
        self.write('c2s setup 0 SetupRequest')
        head = self.recv_exact(8)
        status = head[0]
        length = struct.unpack(self.e + 'H', head[6:8])[0]
        body = self.recv_exact(4 * length)
        if status != 1:
            self.write('s2c setup 0 SetupFailed')
            return False
        self.write('s2c setup 0 Setup')
        (self.rid_base, self.rid_mask) = struct.unpack(self.e + 'II', body[4:12])
        vendor_len = struct.unpack(self.e + 'H', body[16:18])[0]
        nformats = body[21]
        screen = 32 + (vendor_len + 3) // 4 * 4 + 8 * nformats
        self.root = struct.unpack(self.e + 'I', body[screen:screen + 4])[0]
        self.root_visual = struct.unpack(self.e + 'I', body[screen + 32:screen + 36])[0]
        self.root_depth = body[screen + 38]
        self.next_id = 0
        return True

    def new_id(self):
        self.next_id += 1
        return self.rid_base | self.next_id

    # ---- requests ----
    def request(self, major, minor_or_data, body, name):
        """Queue a request; body excludes the 4-byte header."""
        assert len(body) % 4 == 0
        units = 1 + len(body) // 4
        if units > 0xffff:
            head = struct.pack('BB', major, minor_or_data) + self.pack('HI', 0, units + 1)
        else:
            head = struct.pack('BB', major, minor_or_data) + self.pack('H', units)
        self.out += head + body
        self.seq += 1
        minor = minor_or_data if major >= 128 else 0
        self.write('c2s request %d %d.%d %s' % (self.seq, major, minor, name))
        if len(self.out) > 60000:
            self.flush()
        return self.seq

    def flush(self):
        self.sock.sendall(self.out)
        self.out = bytearray()

    # ---- what comes back ----
    def widen(self, s16):
        w = (self.seq & ~0xffff) | s16
        if w > self.seq:
            w -= 0x10000
        return w

    def read_message(self):
        """Read one message, log it, return (kind, seq, data)."""
        data = self.recv_exact(32)
        code = data[0] & 0x7f
        if code in (1, 35):
            extra = struct.unpack(self.e + 'I', data[4:8])[0]
            data += self.recv_exact(4 * extra)
        s16 = struct.unpack(self.e + 'H', data[2:4])[0]
        if code == 0:
            seq = self.widen(s16)
            self.write('s2c error %d %d %s' % (seq, data[1], self.error_name(data[1])))
            return ('error', seq, data)
        if code == 1:
            seq = self.widen(s16)
            self.write('s2c reply %d %s' % (seq, self.pending.get(seq, '?')))
            return ('reply', seq, data)
        name = self.event_name(data)
        self.seen.append(name)
        send = ' send-event' if data[0] & 0x80 else ''
        if code == 11:
            self.write('s2c event - %d %s%s' % (data[0] & 0x7f, name, send))
            return ('event', None, data)
        seq = self.widen(s16)
        self.write('s2c event %d %d %s%s' % (seq, code, name, send))
        return ('event', seq, data)

    def error_name(self, code):
        # xcb-proto's names, which the decoder prints with "Bad" before them
        core = {3: 'BadWindow', 13: 'BadGContext', 9: 'BadDrawable', 2: 'BadValue'}
        return core.get(code, '?')

    def event_name(self, data):
        code = data[0] & 0x7f
        core = {28: 'PropertyNotify', 33: 'ClientMessage', 22: 'ConfigureNotify',
                19: 'MapNotify', 12: 'Expose', 11: 'KeymapNotify', 15: 'VisibilityNotify',
                18: 'UnmapNotify', 17: 'DestroyNotify', 21: 'ReparentNotify'}
        if code in core:
            return core[code]
        if code == 35:
            return {0: 'ConfigureNotify', 1: 'CompleteNotify', 2: 'IdleNotify'}.get(
                struct.unpack(self.e + 'H', data[8:10])[0], '?')
        for name, (major, ev, er) in self.exts.items():
            if name == 'SHAPE' and code == ev:
                return 'Notify'
            if name == 'DAMAGE' and code == ev:
                return 'Notify'
            if name == 'XKEYBOARD' and code == ev:
                return {0: 'NewKeyboardNotify', 1: 'MapNotify', 2: 'StateNotify'}.get(data[1], '?')
        return '?'

    pending = {}
    seen = []

    def call(self, major, minor, body, name):
        """A request with a reply: send it and read until the reply comes."""
        seq = self.request(major, minor, body, name)
        self.pending[seq] = name
        self.flush()
        while True:
            kind, s, data = self.read_message()
            if s == seq and kind in ('reply', 'error'):
                return data

    def sync(self):
        """GetInputFocus round trip: everything before it has been handled."""
        return self.call(43, self.unused, b'', 'GetInputFocus')

    def string_req(self, s):
        b = s.encode()
        return self.pack('HH', len(b), self.unused * 0x101) + b + \
            bytes([self.unused]) * ((4 - len(b) % 4) % 4)

    def query_extension(self, name):
        r = self.call(98, 0, self.string_req(name), 'QueryExtension')
        if r[0] == 1 and r[8]:
            self.exts[name] = (r[9], r[10], r[11])
            return self.exts[name]
        return None


def run_unused(c):
    """A short conversation whose unused bytes are not zero."""
    c.unused = 0xa5
    if not c.setup():
        return 1
    c.sync()
    c.call(16, 0, c.string_req('XCAP_UNUSED'), 'InternAtom')
    for _ in range(3):
        c.request(127, c.unused, b'', 'NoOperation')
    c.call(98, 0, c.string_req('BIG-REQUESTS'), 'QueryExtension')
    c.request(60, c.unused, c.pack('I', c.rid_base | 0xffff), 'FreeGC')    # BadGContext
    c.sync()
    # A WM_CLASS that is not UTF-8 (0xff, 0xa0), with a two-byte character
    # across byte 127, where the decoder cuts a name: the client's name must
    # come out cut before that character and every format stay parseable.
    win = c.new_id()
    c.request(1, 0, c.pack('IIhhHHHHII', win, c.root, 0, 0, 10, 10, 0, 1, 0, 0), 'CreateWindow')
    wm_class = b'bad\xff\xa0name-' + b'x' * 116 + '\u00e9'.encode() + b'-cut\0Hostile\0'
    pad = (4 - len(wm_class) % 4) % 4
    c.request(18, 0, c.pack('IIIBxxxI', win, 67, 31, 8, len(wm_class)) + wm_class + b'\0' * pad,
              'ChangeProperty')    # atoms 67 WM_CLASS, 31 STRING
    c.sync()
    c.sock.close()
    return 0


def run(display, order, logpath, fail_setup, wrap, unused=False):
    log = open(logpath, 'w')
    c = Client(display, order, log)
    if unused:
        rc = run_unused(c)
        log.close()
        return rc
    if fail_setup:
        ok = c.setup(major=10)      # a protocol version the server refuses
        log.close()
        return 0 if not ok else 1
    if not c.setup():
        return 1

    # BIG-REQUESTS and a PutImage too big for a 16-bit length
    big = c.query_extension('BIG-REQUESTS')
    c.call(big[0], 0, b'', 'Enable')
    win = c.new_id()
    # CreateWindow 100x100, event mask PropertyChange|StructureNotify
    c.request(1, c.root_depth, c.pack('IIhhHHHHI', win, c.root, 0, 0, 100, 100, 0, 1, 0) +
              c.pack('II', 0x800, 0x420000), 'CreateWindow')
    pix = c.new_id()
    c.request(53, c.root_depth, c.pack('IIHH', pix, win, 300, 300), 'CreatePixmap')
    gc = c.new_id()
    c.request(55, 0, c.pack('III', gc, pix, 0), 'CreateGC')
    c.request(72, 2, c.pack('IIHHhhBB', pix, gc, 300, 250, 0, 0, 0, c.root_depth) + b'\0\0' +
              b'\x55' * (300 * 250 * 4), 'PutImage')
    c.sync()

    # InternAtom, and ChangeProperty on our window: PropertyNotify
    r = c.call(16, 0, c.string_req('XCAP_TEST_ATOM'), 'InternAtom')
    atom = struct.unpack(c.e + 'I', r[8:12])[0]
    c.request(18, 0, c.pack('IIIBxxxI', win, atom, 31, 8, 4) + b'test', 'ChangeProperty')
    c.sync()

    # an error: FreeGC of a GC that does not exist
    c.request(60, 0, c.pack('I', c.rid_base | 0xffff), 'FreeGC')
    c.sync()

    # SendEvent of a ClientMessage to our own window (mask 0: to its creator)
    ev = struct.pack('BB', 33, 32) + c.pack('HII', 0, win, atom) + b'\0' * 20
    c.request(25, 0, c.pack('II', win, 0) + ev, 'SendEvent')
    c.sync()

    # SHAPE: select, then shape the window: ShapeNotify (SHAPE's event 0)
    if c.query_extension('SHAPE'):
        m = c.exts['SHAPE'][0]
        c.request(m, 6, c.pack('IBxxx', win, 1), 'SelectInput')
        c.request(m, 1, struct.pack('BBBx', 0, 0, 0) + c.pack('Ihh', win, 0, 0) +
                  c.pack('hhHH', 0, 0, 50, 50), 'Rectangles')
        c.sync()

    # DAMAGE on the pixmap, then draw on it: DamageNotify (DAMAGE's event 0)
    if c.query_extension('DAMAGE'):
        m = c.exts['DAMAGE'][0]
        c.call(m, 0, c.pack('II', 1, 1), 'QueryVersion')
        dmg = c.new_id()
        c.request(m, 1, c.pack('IIBxxx', dmg, pix, 3), 'Create')     # NonEmpty
        c.request(70, 0, c.pack('II', pix, gc) + c.pack('hhHH', 0, 0, 10, 10), 'PolyFillRectangle')
        c.sync()

    # XKB: select StateNotify, lock and unlock Caps Lock: StateNotify, named
    # by its sub-type
    if c.query_extension('XKEYBOARD'):
        m = c.exts['XKEYBOARD'][0]
        c.call(m, 0, c.pack('HH', 1, 0), 'UseExtension')
        c.request(m, 1, c.pack('HHHHHH', 0x100, 4, 0, 4, 0, 0), 'SelectEvents')
        # lock Caps Lock (the Lock modifier), then unlock it
        c.request(m, 5, c.pack('H', 0x100) + struct.pack('BBBBBxxB', 2, 2, 0, 0, 0, 0) +
                  c.pack('H', 0), 'LatchLockState')
        c.sync()
        c.request(m, 5, c.pack('H', 0x100) + struct.pack('BBBBBxxB', 2, 0, 0, 0, 0, 0) +
                  c.pack('H', 0), 'LatchLockState')
        c.sync()

    # Present: a GenericEvent (CompleteNotify) for NotifyMSC
    ge = c.query_extension('Generic Event Extension')
    if ge:
        c.call(ge[0], 0, c.pack('HH', 1, 0), 'QueryVersion')
    if c.query_extension('Present'):
        m = c.exts['Present'][0]
        c.call(m, 0, c.pack('II', 1, 2), 'QueryVersion')
        eid = c.rid_base | 0x1000
        c.request(m, 3, c.pack('III', eid, win, 2), 'SelectInput')      # CompleteNotify
        c.request(8, 0, c.pack('I', win), 'MapWindow')
        c.request(m, 2, c.pack('IIIQQQ', win, 1, 0, 0, 0, 0), 'NotifyMSC')
        c.sync()
        # the MSC completes on the next (fake) vblank
        c.sock.settimeout(2)
        try:
            while 'CompleteNotify' not in c.seen:
                c.read_message()
        except (socket.timeout, EOFError):
            pass
        c.sock.settimeout(None)
        c.sync()

    # the 16-bit sequence number wraps
    for _ in range(wrap):
        c.request(127, 0, b'', 'NoOperation')
    c.sync()
    c.call(16, 0, c.string_req('XCAP_AFTER_WRAP'), 'InternAtom')
    c.request(2, 0, c.pack('II', 0x7fffffff, 0), 'ChangeWindowAttributes')   # BadWindow
    c.sync()
    log.close()
    c.sock.close()
    return 0


if __name__ == '__main__':
    args = sys.argv[1:]
    fail_setup = '--fail-setup' in args
    wrap = 66000
    if '--wrap' in args:
        wrap = int(args[args.index('--wrap') + 1])
    sys.exit(run(int(args[0]), args[1], args[2], fail_setup, wrap, '--unused' in args))
