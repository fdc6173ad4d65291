#!/usr/bin/python3
"""rfb-banners.py PORT — RFB handshakes of the versions real servers send.

A raw RFB server of the suite's own and a raw client talk over loopback
on PORT, one connection a case, in turn:

  5.0-none    server "RFB 005.000" (RealVNC 5 and later), the client
              answers 5.0, chooses None (1): ServerInit, whose desktop
              name holds byte 0xA0 and a multi-byte character across the
              decoder's 200-byte cut, then an update request, a Raw
              update and a Bell
  4.1-opaque  server "RFB 004.001" (RealVNC 4), the client answers 4.1 and
              chooses RA2ne (6), which encrypts: what follows is opaque
  5.0-3.8     server 5.0, the client answers 3.8 (as TigerVNC's viewer
              does) and chooses an unknown type (113): opaque too

Each side sends its part and reads the other's, so the capture holds whole
conversations.  Prints one line a case.
"""
import socket
import struct
import sys
import threading

# 200 bytes of name, then 'é' (c3 a9) across the cut at 200, then more
NAME = b'desk\xa0top-' + b'x' * 190 + b'\xc3\xa9' + b'-end'


def recv_exact(s, n):
    data = b''
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise EOFError('peer closed')
        data += chunk
    return data


def serve(lsock, cases, errors):
    try:
        for banner, _, _ in cases:
            s, _ = lsock.accept()
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            s.sendall(banner)
            recv_exact(s, 12)
            s.sendall(bytes([2, 1, 6]))             # None, RA2ne
            choice = recv_exact(s, 1)[0]
            if choice == 1:
                s.sendall(struct.pack('>I', 0))     # SecurityResult OK
                recv_exact(s, 1)                    # ClientInit
                pf = struct.pack('>BBBBHHHBBBxxx', 32, 24, 0, 1, 255, 255, 255, 16, 8, 0)
                s.sendall(struct.pack('>HH', 64, 48) + pf + struct.pack('>I', len(NAME)) + NAME)
                recv_exact(s, 10)                   # FramebufferUpdateRequest
                s.sendall(struct.pack('>BxH', 0, 1) + struct.pack('>HHHHi', 0, 0, 8, 4, 0) +
                          b'\x40' * (8 * 4 * 4))
                s.sendall(b'\x02')                  # Bell
            else:
                s.sendall(b'\x17' * 300)            # what encryption would send
                recv_exact(s, 100)
            s.close()
    except Exception as e:  # noqa: BLE001 — reported by the main thread
        errors.append('server: %s' % e)


def main():
    port = int(sys.argv[1])
    cases = [(b'RFB 005.000\n', b'RFB 005.000\n', 1),
             (b'RFB 004.001\n', b'RFB 004.001\n', 6),
             (b'RFB 005.000\n', b'RFB 003.008\n', 113)]
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(('127.0.0.1', port))
    lsock.listen(1)
    errors = []
    t = threading.Thread(target=serve, args=(lsock, cases, errors))
    t.start()
    for banner, answer, choice in cases:
        s = socket.create_connection(('127.0.0.1', port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        got = recv_exact(s, 12)
        assert got == banner, got
        s.sendall(answer)
        n = recv_exact(s, 1)[0]
        recv_exact(s, n)
        s.sendall(bytes([choice]))
        if choice == 1:
            assert recv_exact(s, 4) == b'\0\0\0\0'
            s.sendall(b'\x01')                      # ClientInit, shared
            head = recv_exact(s, 24)
            recv_exact(s, struct.unpack('>I', head[20:24])[0])
            s.sendall(struct.pack('>BBHHHH', 3, 0, 0, 0, 64, 48))
            recv_exact(s, 4 + 12 + 8 * 4 * 4 + 1)
        else:
            recv_exact(s, 300)
            s.sendall(b'\x42' * 100)
        s.close()
        print('rfb-banners: %s -> %s, security type %d'
              % (banner.decode().strip(), answer.decode().strip(), choice))
    t.join()
    lsock.close()
    if errors:
        print('rfb-banners: ' + '; '.join(errors))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
