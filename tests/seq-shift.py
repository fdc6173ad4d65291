#!/usr/bin/python3
"""seq-shift.py IN.pcap OUT.pcap PORT CLIENT_ROOM SERVER_ROOM: the same
capture with every TCP connection to or from PORT renumbered so that its
sequence numbers wrap past 2**32 within the stream.

Each direction's numbers are moved by one constant chosen from the
connection's first packet: the client's first number lands CLIENT_ROOM
below 2**32, the server's SERVER_ROOM below.  Sequence numbers,
acknowledgements and SACK blocks all move, so the stream is the same one
counted from elsewhere; checksums are left as they were (nothing that
reads these captures checks them).  Reads and writes classic pcap with
Ethernet, Linux cooked or raw IP, IPv4 or IPv6.  For tests/x11-holes.sh:
a decode of the renumbered capture must say what the original's does."""
import struct
import sys

WRAP = 2**32


def ip_offset(linktype, frame):
    if linktype == 1:
        return 14 if struct.unpack_from('!H', frame, 12)[0] in (0x0800, 0x86dd) else None
    if linktype == 113:
        return 16
    if linktype in (12, 101):
        return 0
    raise SystemExit('seq-shift.py: link type %d not handled' % linktype)


def tcp_offset(frame, ip):
    version = frame[ip] >> 4
    if version == 4 and frame[ip + 9] == 6:
        return ip + (frame[ip] & 15) * 4
    if version == 6 and frame[ip + 6] == 6:
        return ip + 40
    return None


def main(src, dst, port, client_room, server_room):
    data = bytearray(open(src, 'rb').read())
    magic = data[:4]
    order = {b'\xd4\xc3\xb2\xa1': '<', b'\xa1\xb2\xc3\xd4': '>',
             b'\x4d\x3c\xb2\xa1': '<', b'\xa1\xb2\x3c\x4d': '>'}.get(bytes(magic))
    if order is None:
        raise SystemExit('seq-shift.py: %s is not a classic pcap' % src)
    linktype = struct.unpack_from(order + 'I', data, 20)[0] & 0xffff
    shift = {}  # (client port, from server?) -> what this direction's numbers move by
    at, moved = 24, 0
    while at + 16 <= len(data):
        caplen = struct.unpack_from(order + 'I', data, at + 8)[0]
        frame_at, at = at + 16, at + 16 + caplen
        frame = memoryview(data)[frame_at:at]
        ip = ip_offset(linktype, frame)
        tcp = tcp_offset(frame, ip) if ip is not None else None
        if tcp is None or tcp + 20 > len(frame):
            continue
        sport, dport, seq, ack = struct.unpack_from('!HHII', frame, tcp)
        if port not in (sport, dport):
            continue
        from_server = sport == port
        client = dport if from_server else sport
        mine, theirs = (client, from_server), (client, not from_server)
        if mine not in shift:
            room = server_room if from_server else client_room
            shift[mine] = (WRAP - room - seq) % WRAP
        if theirs not in shift and frame[tcp + 13] & 0x10:  # an ACK names the other side's numbers
            room = client_room if from_server else server_room
            shift[theirs] = (WRAP - room - (ack - 1)) % WRAP
        ack_shift = shift.get(theirs, 0)
        struct.pack_into('!II', frame, tcp + 4, (seq + shift[mine]) % WRAP, (ack + ack_shift) % WRAP)
        # SACK blocks name the other side's numbers too.
        opt, end = tcp + 20, min(tcp + (frame[tcp + 12] >> 4) * 4, len(frame))
        while opt < end:
            kind = frame[opt]
            if kind == 0:
                break
            if kind == 1:
                opt += 1
                continue
            if opt + 1 >= end or frame[opt + 1] < 2:
                break
            if kind == 5:
                for b in range(opt + 2, min(opt + frame[opt + 1], end) - 7, 8):
                    left, right = struct.unpack_from('!II', frame, b)
                    struct.pack_into('!II', frame, b, (left + ack_shift) % WRAP, (right + ack_shift) % WRAP)
            opt += frame[opt + 1]
        moved += 1
    open(dst, 'wb').write(data)
    print('seq-shift.py: %d packets of %d connections renumbered' % (moved, len(shift) // 2))


if __name__ == '__main__':
    if len(sys.argv) != 6:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
