#!/usr/bin/env python3
"""rfbpcap.py — the response time of each key and click of an RFB session,
computed from a pcap's bytes alone, for tests/responses-vnc-viewer.sh.

usage: rfbpcap.py CAPTURE.pcap PORT [QUIET_MS]

Reads a classic pcap (Ethernet, Linux cooked or raw IP; IPv4 or IPv6),
puts the TCP stream of each direction of the connection on PORT back in
order, and frames RFB 3.x there independently of protocols/rfb.c (and of
tshark, whose VNC dissector loses TigerVNC sessions): the handshake, every
client message a TigerVNC or libvncserver viewer sends (QEMU's extended
key events among them), every server message, and each FramebufferUpdate
rectangle by rectangle in the encodings those servers use (Raw, CopyRect,
RRE, Hextile, Tight, ZRLE and the cursor and size pseudo-encodings).

An input is a key press (KeyEvent or QEMU ExtendedKeyEvent going down) or
a button press (a PointerEvent whose mask gains a button); a move of the
pointer (a PointerEvent to a new position, no button gained) ends the
response before it as an input does.  Its expected
response is the time from the packet holding the input to the packet
holding the last byte of the last update carrying real pixels (a
rectangle of a pixel encoding, not a pseudo-encoding alone) before a
quiet gap of QUIET_MS (default 150) with no such update, and before the
next input or move (the first such update may come later than the gap:
a server that polls its screen).  One line per input, in order:

    INDEX KIND WHAT INPUT_S EXPECTED_S UPDATES RELEASE_S

INPUT_S the input's time in seconds since the capture's first packet;
EXPECTED_S the expected response in seconds, "-" when no update with
pixels followed; UPDATES how many updates with pixels it spans; RELEASE_S how long after the press its release came
("-" when it did not).
"""
import struct
import sys

# Pseudo-encodings whose rectangles carry a fixed number of bytes: sizes,
# the pointer's position, the acknowledgements of QEMU keys and pointer,
# audio, gii, xvp, fences and continuous updates (0), the LED states.
PSEUDO_FIXED = {-223: 0, -232: 0, -257: 0, -258: 0, -259: 0, -305: 0, -309: 0, -312: 0, -313: 0,
                -261: 1, 0x574d5666: 0, 0x574d5668: 4}


def packets(path):
    """(time_s, src_port, dst_port, seq, payload) of each TCP segment."""
    data = open(path, 'rb').read()
    magic = data[:4]
    if magic in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1'):
        e = '<'
    elif magic in (b'\xa1\xb2\xc3\xd4', b'\xa1\xb2\x3c\x4d'):
        e = '>'
    else:
        raise SystemExit('rfbpcap: not a classic pcap: %s' % path)
    nano = magic in (b'\x4d\x3c\xb2\xa1', b'\xa1\xb2\x3c\x4d')
    link = struct.unpack(e + 'I', data[20:24])[0]
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack(e + 'IIII', data[off:off + 16])
        frame = data[off + 16:off + 16 + incl]
        off += 16 + incl
        t = sec + frac / (1e9 if nano else 1e6)
        if link == 1:
            eth = 14
            etype = struct.unpack('>H', frame[12:14])[0]
            while etype == 0x8100:
                etype = struct.unpack('>H', frame[eth + 2:eth + 4])[0]
                eth += 4
            ip = frame[eth:]
        elif link == 113:
            etype = struct.unpack('>H', frame[14:16])[0]
            ip = frame[16:]
        elif link in (101, 12):
            ip = frame
            etype = 0x0800 if ip and ip[0] >> 4 == 4 else 0x86dd
        else:
            raise SystemExit('rfbpcap: link type %d not read' % link)
        if etype == 0x0800 and ip and ip[0] >> 4 == 4 and ip[9] == 6:
            ihl = (ip[0] & 15) * 4
            total = struct.unpack('>H', ip[2:4])[0]
            tcp = ip[ihl:total]
        elif etype == 0x86dd and len(ip) >= 40 and ip[6] == 6:
            plen = struct.unpack('>H', ip[4:6])[0]
            tcp = ip[40:40 + plen]
        else:
            continue
        if len(tcp) < 20:
            continue
        sport, dport, seq = struct.unpack('>HHI', tcp[:8])
        flags = tcp[13]
        doff = (tcp[12] >> 4) * 4
        yield t, sport, dport, seq, flags, tcp[doff:]


class Stream:
    """One direction's bytes in order, and for each byte the time of the
    packet that carried it first."""

    def __init__(self):
        self.isn = None
        self.segs = {}

    def add(self, t, seq, flags, payload):
        if flags & 2:           # SYN
            self.isn = (seq + 1) & 0xffffffff
            return
        if payload and self.isn is not None:
            rel = (seq - self.isn) & 0xffffffff
            if rel not in self.segs or len(payload) > len(self.segs[rel][1]):
                self.segs[rel] = (self.segs.get(rel, (t,))[0], payload)

    def build(self):
        self.data = bytearray()
        self.ends = []          # (offset just past a segment, its time)
        for rel in sorted(self.segs):
            t, p = self.segs[rel]
            if rel > len(self.data):
                raise SystemExit('rfbpcap: a hole in the stream at byte %d' % len(self.data))
            new = p[len(self.data) - rel:]
            if new:
                self.data += new
                self.ends.append((len(self.data), t))

    def time_of(self, end):
        """The time of the packet holding the byte just before offset end."""
        lo, hi = 0, len(self.ends)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.ends[mid][0] < end:
                lo = mid + 1
            else:
                hi = mid
        return self.ends[lo][1]


class Short(Exception):
    pass


class Reader:
    def __init__(self, data, pos=0):
        self.d, self.p = data, pos

    def take(self, n):
        if self.p + n > len(self.d):
            raise Short()
        out = self.d[self.p:self.p + n]
        self.p += n
        return out

    def u8(self):
        return self.take(1)[0]

    def u16(self):
        return struct.unpack('>H', self.take(2))[0]

    def u32(self):
        return struct.unpack('>I', self.take(4))[0]

    def s32(self):
        return struct.unpack('>i', self.take(4))[0]


def client_messages(r):
    """(end offset, kind, detail) of each client message after ClientInit."""
    out = []
    try:
        while True:
            t = r.u8()
            if t == 0:
                r.take(3)
                bpp, depth, _, tc, rm, gm, bm = struct.unpack('>BBBBHHH', r.take(10))
                r.take(6)
                out.append((r.p, 'SetPixelFormat',
                            dict(bpp=bpp, depth=depth, tc=tc, maxes=(rm, gm, bm))))
            elif t == 2:
                r.take(1)
                n = r.u16()
                out.append((r.p + 4 * n, 'SetEncodings',
                            struct.unpack('>%di' % n, r.take(4 * n))))
            elif t == 3:
                r.take(9)
                out.append((r.p, 'FramebufferUpdateRequest', None))
            elif t == 4:
                down = r.u8()
                r.take(2)
                out.append((r.p + 4, 'key', (down, r.u32())))
            elif t == 5:
                mask = r.u8()
                x, y = r.u16(), r.u16()
                out.append((r.p, 'pointer', (mask, x, y)))
            elif t == 6:
                r.take(3)
                n = r.s32()
                r.take(abs(n))
                out.append((r.p, 'ClientCutText', None))
            elif t == 150:
                r.take(9)
                out.append((r.p, 'EnableContinuousUpdates', None))
            elif t == 248:
                r.take(7)
                r.take(r.u8())
                out.append((r.p, 'Fence', None))
            elif t == 251:
                r.take(5)
                n = r.u8()
                r.take(1 + 16 * n)
                out.append((r.p, 'SetDesktopSize', None))
            elif t == 255 and r.u8() == 0:
                down = r.u16()
                sym = r.u32()
                r.take(4)
                out.append((r.p, 'key', (down, sym)))
            else:
                raise SystemExit('rfbpcap: client message %d at byte %d not framed' % (t, r.p - 1))
    except Short:
        return out


def tight_pixel(fmt):
    return 3 if (fmt['bpp'] == 32 and fmt['depth'] == 24 and fmt['tc'] and
                 fmt['maxes'] == (255, 255, 255)) else fmt['bpp'] // 8


def compact(r):
    n = 0
    for i in range(3):
        b = r.u8()
        if i == 2:
            return n | b << 14
        n |= (b & 0x7f) << (7 * i)
        if not b & 0x80:
            return n
    return n


def rect(r, fmt, w, h, enc):
    """Skips one rectangle's data; False for LastRect (the update ends)."""
    bpp = fmt['bpp'] // 8
    if enc == 0:
        r.take(w * h * bpp)
    elif enc == 1:
        r.take(4)
    elif enc in (2, 4):
        n = r.u32()
        r.take(bpp + n * (bpp + (8 if enc == 2 else 4)))
    elif enc == 5:
        for ty in range(0, h, 16):
            for tx in range(0, w, 16):
                tw, th = min(16, w - tx), min(16, h - ty)
                m = r.u8()
                if m & 1:
                    r.take(tw * th * bpp)
                    continue
                r.take((bpp if m & 2 else 0) + (bpp if m & 4 else 0))
                if m & 8:
                    r.take(r.u8() * ((bpp if m & 16 else 0) + 2))
    elif enc == 7:
        tp = tight_pixel(fmt)
        ctl = r.u8()
        comp = ctl >> 4
        if comp == 8:
            r.take(tp)
        elif comp == 9:
            r.take(compact(r))
        elif comp > 9:
            raise SystemExit('rfbpcap: Tight compression %d not framed' % comp)
        else:
            row = w * tp
            if comp & 4:
                f = r.u8()
                if f == 1:
                    n = r.u8() + 1
                    r.take(n * tp)
                    row = (w + 7) // 8 if n == 2 else w
            size = row * h
            r.take(size if size < 12 else compact(r))
    elif enc == 16:
        r.take(r.u32())
    elif enc == -224:
        return False
    elif enc == -239:
        r.take(w * h * bpp + (w + 7) // 8 * h)
    elif enc == -314:
        if r.s32() != 0:
            raise SystemExit('rfbpcap: CursorWithAlpha not in Raw')
        r.take(w * h * 4)
    elif enc == 0x574d5664:
        kind = r.u8()
        r.take(1)
        r.take(w * h * (2 * bpp if kind == 0 else 4))
    elif enc == -240:
        if w and h:
            r.take(6 + 2 * ((w + 7) // 8) * h)
    elif enc == -308:
        n = r.u8()
        r.take(3 + 16 * n)
    elif enc == -307:
        r.take(r.u32())
    elif enc in PSEUDO_FIXED:
        r.take(PSEUDO_FIXED[enc])
    else:
        raise SystemExit('rfbpcap: encoding %d not framed' % enc)
    return True


def server_messages(r, fmt):
    """(end offset, pixels) of each FramebufferUpdate: pixels true when a
    rectangle of a pixel encoding was in it."""
    out = []
    try:
        while True:
            t = r.u8()
            if t == 0:
                r.take(1)
                n = r.u16()
                pixels = False
                i = 0
                while n == 0xffff or i < n:
                    x, y, w, h, enc = struct.unpack('>HHHHi', r.take(12))
                    i += 1
                    if not rect(r, fmt, w, h, enc):
                        break
                    pixels |= enc >= 0 and enc < 0x574d5600
                out.append((r.p, pixels))
            elif t == 1:
                r.take(3)
                r.take(6 * r.u16())
            elif t == 2:
                pass
            elif t == 3:
                r.take(3)
                r.take(abs(r.s32()))
            elif t == 150:
                pass
            elif t == 248:
                r.take(7)
                r.take(r.u8())
            else:
                raise SystemExit('rfbpcap: server message %d at byte %d not framed' % (t, r.p - 1))
    except Short:
        return out


def main():
    path, port = sys.argv[1], int(sys.argv[2])
    quiet = (float(sys.argv[3]) if len(sys.argv) > 3 else 150.0) / 1e3
    c2s, s2c = Stream(), Stream()
    first = None
    for t, sp, dp, seq, flags, payload in packets(path):
        if first is None:
            first = t
        if dp == port:
            c2s.add(t, seq, flags, payload)
        elif sp == port:
            s2c.add(t, seq, flags, payload)
    c2s.build()
    s2c.build()
    # The handshake: versions, security None, ClientInit, ServerInit.
    cs, ss = Reader(c2s.data), Reader(s2c.data)
    ss.take(12)
    cs.take(12)
    n = ss.u8()
    if n == 0 or 1 not in ss.take(n):
        raise SystemExit('rfbpcap: no security type None offered')
    if cs.u8() != 1:
        raise SystemExit('rfbpcap: the viewer chose security other than None')
    if ss.u32() != 0:
        raise SystemExit('rfbpcap: security failed')
    cs.take(1)
    ss.take(4)
    bpp, depth, _, tc, rm, gm, bm = struct.unpack('>BBBBHHH', ss.take(10))
    ss.take(6)
    ss.take(ss.u32())
    fmt = dict(bpp=bpp, depth=depth, tc=tc, maxes=(rm, gm, bm))
    # The server's updates are in the viewer's pixel format, set before
    # its first update request; a viewer that changes it later (TigerVNC's
    # automatic selection on a slow link) is not read here.
    msgs = client_messages(cs)
    formats = [d for _, kind, d in msgs if kind == 'SetPixelFormat']
    if any(d != formats[0] for d in formats):
        raise SystemExit('rfbpcap: the viewer changed its pixel format during the session')
    updates = [(s2c.time_of(end), pixels)
               for end, pixels in server_messages(ss, formats[0] if formats else fmt)]
    # The presses, and the moves: a move ends the response of the press
    # before it as the next press does (a release does not: it is the
    # press's own, nor a PointerEvent that changes nothing).
    inputs, moves, released = [], [], {}
    held = {}           # key or button down: the index of its press
    mask, at = 0, None
    for end, kind, detail in msgs:
        t = c2s.time_of(end)
        if kind == 'key':
            if detail[0]:
                held[('key', detail[1])] = len(inputs)
                inputs.append((t, 'key-press', '0x%x' % detail[1]))
            elif ('key', detail[1]) in held:
                released[held.pop(('key', detail[1]))] = t
        elif kind == 'pointer':
            m, x, y = detail
            pressed = m & ~mask
            for bit in range(8):
                if mask & ~m & (1 << bit) and ('button', bit) in held:
                    released[held.pop(('button', bit))] = t
            if pressed:
                b = (pressed & -pressed).bit_length()
                held[('button', b - 1)] = len(inputs)
                inputs.append((t, 'button-press', 'button=%d' % b))
            elif m == mask and (x, y) != at:
                moves.append(t)
            mask, at = m, (x, y)
    for i, (t, kind, what) in enumerate(inputs):
        nxt = min(([inputs[i + 1][0]] if i + 1 < len(inputs) else []) +
                  [m for m in moves if m > t] + [float('inf')])
        last, count = None, 0
        for ut, pixels in updates:
            if ut < t or not pixels:
                continue
            if ut >= nxt or (last is not None and ut - last >= quiet):
                break
            last, count = ut, count + 1
        print('%d %s %s %.6f %s %d %s' % (i + 1, kind, what, t - first,
                                          '%.6f' % (last - t) if last is not None else '-', count,
                                          '%.6f' % (released[i] - t) if i in released else '-'))


if __name__ == '__main__':
    main()
