#!/usr/bin/env python3
"""rfbclient.py — a small RFB client of the suite's own, for the tests.

usage: rfbclient.py HOST PORT LOG [ENCODING...]

Speaks RFB 3.8 with security None, sets 32-bit true colour, then for each
encoding named (default: every one it can frame) asks for the whole screen
in that encoding alone, and scripts keys, clicks, moves and cut text
between incremental requests.  It logs one line per message it sent or
received, in order per direction:

    c2s NAME LENGTH
    s2c NAME LENGTH [ENCODING:RECTS ...]

Received updates are framed here independently of protocols/rfb.c, and
the compressed encodings are inflated (zlib, ZRLE, Tight's basic
compression) and checked to give exactly the bytes their geometry needs,
so a length this client logs is one it verified, not one it guessed.
"""
import socket
import struct
import sys
import time
import zlib

ENCODINGS = {'Raw': 0, 'CopyRect': 1, 'RRE': 2, 'CoRRE': 4, 'Hextile': 5, 'Zlib': 6,
             'Tight': 7, 'ZlibHex': 8, 'TRLE': 15, 'ZRLE': 16}
NAMES = {v: k for k, v in ENCODINGS.items()}
NAMES.update({-223: 'DesktopSize', -224: 'LastRect', -239: 'Cursor', -308: 'ExtendedDesktopSize',
              -307: 'DesktopName', -232: 'PointerPos'})
BPP = 4
TPIXEL = 3   # 32bpp depth 24, 8 bits a channel
CPIXEL = 3


class Conn:
    def __init__(self, host, port, log):
        self.s = socket.create_connection((host, port), timeout=20)
        self.log = log
        self.buf = b''
        self.got = 0    # bytes of the message being received
        self.zlib = None
        self.zrle = None
        self.tight_z = [None] * 4

    def recv(self, n):
        while len(self.buf) < n:
            chunk = self.s.recv(65536)
            if not chunk:
                raise EOFError('server closed the connection')
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        self.got += n
        return out

    def u8(self):
        return self.recv(1)[0]

    def u16(self):
        return struct.unpack('>H', self.recv(2))[0]

    def u32(self):
        return struct.unpack('>I', self.recv(4))[0]

    def send(self, name, data):
        self.s.sendall(data)
        self.log.write('c2s %s %d\n' % (name, len(data)))

    def received(self, name, extra=''):
        self.log.write('s2c %s %d%s\n' % (name, self.got, extra))
        self.got = 0

    # ---- framing of rectangles ----
    def inflate(self, stream, data, want, what):
        out = stream.decompress(data)
        if want is not None and len(out) != want:
            raise ValueError('%s: inflated %d bytes, want %d' % (what, len(out), want))
        return out

    def compact(self):
        n = 0
        for i in range(3):
            b = self.u8()
            if i == 2:
                return n | b << 14
            n |= (b & 0x7f) << (7 * i)
            if not b & 0x80:
                return n

    def tight(self, w, h, png=False):
        ctl = self.u8()
        for i in range(4):
            if ctl & (1 << i):
                self.tight_z[i] = None
        comp = ctl >> 4
        if comp == 8:
            self.recv(TPIXEL)
            return
        if comp == 9 or (comp == 10 and png):
            self.recv(self.compact())
            return
        stream = comp & 3
        row = w * TPIXEL
        if comp & 4:
            f = self.u8()
            if f == 1:
                n = self.u8() + 1
                self.recv(n * TPIXEL)
                row = (w + 7) // 8 if n == 2 else w
        size = row * h
        if size < 12:
            self.recv(size)
            return
        data = self.recv(self.compact())
        if self.tight_z[stream] is None:
            self.tight_z[stream] = zlib.decompressobj()
        self.inflate(self.tight_z[stream], data, size, 'Tight')

    def hextile(self, w, h):
        for ty in range(0, h, 16):
            for tx in range(0, w, 16):
                tw, th = min(16, w - tx), min(16, h - ty)
                mask = self.u8()
                if mask & 1:
                    self.recv(tw * th * BPP)
                    continue
                if mask & 2:
                    self.recv(BPP)
                if mask & 4:
                    self.recv(BPP)
                if mask & 8:
                    n = self.u8()
                    self.recv(n * ((BPP if mask & 16 else 0) + 2))

    def trle_runs(self):
        n = 1
        while True:
            b = self.u8()
            n += b
            if b != 255:
                return n

    def trle(self, w, h):
        palette = 0
        for ty in range(0, h, 16):
            for tx in range(0, w, 16):
                tw, th = min(16, w - tx), min(16, h - ty)
                s = self.u8()
                if s == 0:
                    self.recv(tw * th * CPIXEL)
                elif s == 1:
                    self.recv(CPIXEL)
                elif s <= 16 or s == 127:
                    if s != 127:
                        palette = s
                        self.recv(s * CPIXEL)
                    bits = 1 if palette <= 2 else 2 if palette <= 4 else 4
                    self.recv((tw * bits + 7) // 8 * th)
                else:
                    if s >= 130:
                        palette = s - 128
                        self.recv(palette * CPIXEL)
                    covered = 0
                    while covered < tw * th:
                        if s == 128:
                            self.recv(CPIXEL)
                            covered += self.trle_runs()
                        else:
                            i = self.u8()
                            covered += self.trle_runs() if i & 0x80 else 1

    def update(self):
        self.recv(1)
        n = self.u16()
        stats = {}
        i = 0
        while n == 0xffff or i < n:
            x, y, w, h, enc = struct.unpack('>HHHHi', self.recv(12))
            i += 1
            name = NAMES.get(enc, str(enc))
            stats[name] = stats.get(name, 0) + 1
            if enc == 0:
                self.recv(w * h * BPP)
            elif enc == 1:
                self.recv(4)
            elif enc in (2, 4):
                k = self.u32()
                self.recv(BPP)
                self.recv(k * (BPP + (8 if enc == 2 else 4)))
            elif enc == 5:
                self.hextile(w, h)
            elif enc == 6:
                if self.zlib is None:
                    self.zlib = zlib.decompressobj()
                self.inflate(self.zlib, self.recv(self.u32()), w * h * BPP, 'Zlib')
            elif enc == 7:
                self.tight(w, h)
            elif enc == 15:
                self.trle(w, h)
            elif enc == 16:
                if self.zrle is None:
                    self.zrle = zlib.decompressobj()
                self.inflate(self.zrle, self.recv(self.u32()), None, 'ZRLE')
            elif enc == -224:
                break
            elif enc in (-223, -232):
                pass
            elif enc == -239:
                self.recv(w * h * BPP + (w + 7) // 8 * h)
            elif enc == -308:
                k = self.u8()
                self.recv(3 + 16 * k)
            elif enc == -307:
                self.recv(self.u32())
            else:
                raise ValueError('encoding %d not asked for' % enc)
        self.received('FramebufferUpdate', ' ' + ' '.join(
            '%s:%d' % kv for kv in sorted(stats.items())))

    def server_message(self):
        """Reads one server message; returns its name."""
        t = self.u8()
        if t == 0:
            self.update()
            return 'FramebufferUpdate'
        if t == 1:
            self.recv(1)
            self.u16()
            self.recv(6 * self.u16())
            name = 'SetColourMapEntries'
        elif t == 2:
            name = 'Bell'
        elif t == 3:
            self.recv(3)
            n = struct.unpack('>i', self.recv(4))[0]
            self.recv(abs(n))
            name = 'ServerCutText'
        else:
            raise ValueError('server message type %d' % t)
        self.received(name)
        return name

    def until_update(self):
        while self.server_message() != 'FramebufferUpdate':
            pass


def main():
    host, port, logpath = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    wanted = sys.argv[4:] or ['Raw', 'CopyRect', 'RRE', 'CoRRE', 'Hextile', 'Zlib', 'Tight',
                              'ZRLE', 'TRLE']
    log = open(logpath, 'w', buffering=1)
    c = Conn(host, port, log)
    v = c.recv(12)
    c.received('ProtocolVersion')
    c.send('ProtocolVersion', b'RFB 003.008\n')
    n = c.u8()
    types = c.recv(n)
    c.received('SecurityTypes')
    if 1 not in types:
        raise SystemExit('rfbclient: no security type None: %r' % types)
    c.send('SecurityType', b'\x01')
    if c.u32() != 0:
        raise SystemExit('rfbclient: security failed')
    c.received('SecurityResult')
    c.send('ClientInit', b'\x01')
    fw, fh = c.u16(), c.u16()
    c.recv(16)
    c.recv(c.u32())
    c.received('ServerInit')
    # 32-bit little-endian true colour, depth 24, 8 bits a channel
    c.send('SetPixelFormat', struct.pack('>B3xBBBBHHHBBB3x', 0, 32, 24, 0, 1,
                                         255, 255, 255, 16, 8, 0))
    w, h = min(fw, 320), min(fh, 240)
    for name in wanted:
        enc = ENCODINGS[name]
        encs = [enc, -223]
        if name == 'Tight':
            encs += [-256 + 6]   # CompressLevel6, and no JPEG: basic compression
        c.send('SetEncodings', struct.pack('>BxH%di' % len(encs), 2, len(encs), *encs))
        c.send('FramebufferUpdateRequest', struct.pack('>BBHHHH', 3, 0, 0, 0, w, h))
        c.until_update()
        # Input: a click, a move, a key, cut text; then an incremental update.
        c.send('PointerEvent', struct.pack('>BBHH', 5, 1, 40, 40))
        c.send('PointerEvent', struct.pack('>BBHH', 5, 0, 40, 40))
        c.send('PointerEvent', struct.pack('>BBHH', 5, 0, 60 + enc % 50, 70))
        c.send('KeyEvent', struct.pack('>BBxxI', 4, 1, 0x61))
        c.send('KeyEvent', struct.pack('>BBxxI', 4, 0, 0x61))
        text = ('cut text for %s' % name).encode()
        c.send('ClientCutText', struct.pack('>B3xI', 6, len(text)) + text)
        # An incremental request is answered only when something changed,
        # which input to a bare server may not do: the second asks again
        # in full for a corner.
        c.send('FramebufferUpdateRequest', struct.pack('>BBHHHH', 3, 1, 0, 0, w, h))
        c.send('FramebufferUpdateRequest', struct.pack('>BBHHHH', 3, 0, 0, 0, 64, 48))
        c.until_update()
    c.s.settimeout(1.0)
    try:    # the answer to an incremental request that came late
        while True:
            c.server_message()
    except (socket.timeout, EOFError):
        pass
    log.close()
    time.sleep(0.2)
    c.s.close()


if __name__ == '__main__':
    main()
