#!/usr/bin/python3
"""rfb-regress.py PORT — RFB conversations for two view regressions.

A raw RFB server of the suite's own and raw clients talk over loopback on
PORT, all from this one process (so the order of events is the script's):

  authfail     3.8 with VNC authentication: the client thinks 100 ms over
               the challenge, the server 30 ms over the response, then
               refuses it (SecurityResult 1 with a reason).  The error's
               wait is the server's 30 ms, from the response, not from
               the client's ProtocolVersion.
  interleaved  two connections, A and B, security None; then keys, each
               after an update request and answered by an update 10 ms
               later: A at 0 s, B at 0.2 s and 0.5 s, A at 0.8 s.  Their
               responses end at 0.01, 0.21, 0.51 and 0.81 s: --responses
               lists them in that order (A, B, B, A), though A's first is
               only over when A goes on.

Prints one line a case.
"""
import socket
import struct
import sys
import time

PF = struct.pack('>BBBBHHHBBBxxx', 32, 24, 0, 1, 255, 255, 255, 16, 8, 0)


def recv_exact(s, n):
    data = b''
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise EOFError('peer closed')
        data += chunk
    return data


def pair(lsock, port):
    c = socket.create_connection(('127.0.0.1', port))
    s, _ = lsock.accept()
    for x in (c, s):
        x.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.sendall(b'RFB 003.008\n')
    recv_exact(c, 12)
    c.sendall(b'RFB 003.008\n')
    recv_exact(s, 12)
    return c, s


def authfail(lsock, port):
    c, s = pair(lsock, port)
    s.sendall(bytes([1, 2]))                        # VNC authentication
    recv_exact(c, 2)
    c.sendall(b'\x02')
    recv_exact(s, 1)
    s.sendall(bytes(range(16)))                     # the challenge
    recv_exact(c, 16)
    time.sleep(0.1)
    c.sendall(b'\x55' * 16)                         # the response
    recv_exact(s, 16)
    time.sleep(0.03)
    reason = b'authentication failed'
    s.sendall(struct.pack('>II', 1, len(reason)) + reason)
    recv_exact(c, 8 + len(reason))
    c.close()
    s.close()
    print('rfb-regress: authfail: VNC authentication refused after 30 ms')


def interleaved(lsock, port):
    conns = []
    for name in (b'A', b'B'):
        c, s = pair(lsock, port)
        s.sendall(bytes([1, 1]))                    # None
        recv_exact(c, 2)
        c.sendall(b'\x01')
        recv_exact(s, 1)
        s.sendall(struct.pack('>I', 0))             # SecurityResult OK
        recv_exact(c, 4)
        c.sendall(b'\x01')                          # ClientInit, shared
        recv_exact(s, 1)
        s.sendall(struct.pack('>HH', 64, 48) + PF + struct.pack('>I', 1) + name)
        recv_exact(c, 24 + 1)
        conns.append((c, s))
    t0 = time.monotonic()
    for at, who, key in ((0.0, 0, 0x61), (0.2, 1, 0x62), (0.5, 1, 0x63), (0.8, 0, 0x64)):
        c, s = conns[who]
        time.sleep(max(0.0, t0 + at - time.monotonic()))
        c.sendall(struct.pack('>BBHHHH', 3, 1, 0, 0, 64, 48) +      # FramebufferUpdateRequest
                  struct.pack('>BBxxI', 4, 1, key))                 # KeyEvent down
        recv_exact(s, 10 + 8)
        time.sleep(0.01)
        s.sendall(struct.pack('>BxH', 0, 1) + struct.pack('>HHHHi', 0, 0, 8, 4, 0) +
                  b'\x40' * (8 * 4 * 4))
        recv_exact(c, 4 + 12 + 8 * 4 * 4)
    time.sleep(0.3)
    for c, s in conns:
        c.close()
        s.close()
    print('rfb-regress: interleaved: keys of A and B answered in turn')


def main():
    port = int(sys.argv[1])
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(('127.0.0.1', port))
    lsock.listen(2)
    authfail(lsock, port)
    interleaved(lsock, port)
    lsock.close()
    return 0


if __name__ == '__main__':
    sys.exit(main())
