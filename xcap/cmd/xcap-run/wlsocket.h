/*
 * wlsocket.h — xcap-run's Wayland side: its own socket for the
 * application, the way to the real compositor, and the byte stream moved
 * with the file descriptors beside it (SCM_RIGHTS), which Wayland passes
 * for shared-memory pools, dmabufs and keymaps.
 *
 * Belongs to: the xcap-run command's room (xcap/cmd/xcap-run/).
 */
#ifndef XCAP_RUN_WLSOCKET_H
#define XCAP_RUN_WLSOCKET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* libwayland sends at most 28 descriptors with one sendmsg. */
#define WLS_FDS_MAX 64

/* The server port the relay's synthesised segments give the compositor:
   none of the ports a decoder is chosen by, so the Wayland decoder is
   chosen by the client's first bytes. */
#define WLS_SERVER_PORT 1

/* The compositor the application would have met: $WAYLAND_DISPLAY
   (default "wayland-0"), a path or a name in $XDG_RUNTIME_DIR, into out.
   -1 with the reason in err when it cannot be named. */
int wls_real_path(char *out, size_t size, char *err, size_t errlen);

/* A private folder in $XDG_RUNTIME_DIR (mode 0700) and a listening socket
   "wayland-0" in it; the folder's path into dir, the name to give as
   WAYLAND_DISPLAY (relative to $XDG_RUNTIME_DIR) into name.  The socket,
   or -1 with the reason in err. */
int wls_listen(char *dir, size_t dirsize, char *name, size_t namesize, char *err, size_t errlen);
/* Remove the socket and the folder. */
void wls_unlisten(const char *dir);

/* A connection to the compositor's socket at path, non-blocking; -1 with
   errno set. */
int wls_connect(const char *path);

/* The port the trace gives the client of an accepted connection: made
   from the inode of the client's own end (its peer), which
   libxcapwait.so finds from the client's side with fstat, so that the
   call sites join the connection as they do for X11 by TCP port.  0
   when the kernel does not say (no unix_diag). */
uint16_t wls_client_port(int accepted_fd);
/* The same from an inode (the rule libxcapwait.so follows too). */
static inline uint16_t wls_port_of_inode(uint64_t ino)
{
	return (uint16_t)(1024 + ino % 64512);
}

/* Read up to cap bytes and the descriptors beside them (at most
   WLS_FDS_MAX, close-on-exec).  As read(2); *nfds set. */
ssize_t wls_recv(int fd, uint8_t *buf, size_t cap, int *fds, int *nfds);
/* Write len bytes with nfds descriptors beside the first of them.  As
   write(2). */
ssize_t wls_send(int fd, const uint8_t *buf, size_t len, const int *fds, int nfds);

/* What a descriptor is, for the trace: "memfd 65536 bytes", "dmabuf",
   "file 4096 bytes", ... into out. */
void wls_describe_fd(int fd, char *out, size_t size, uint64_t *bytes);

#endif
