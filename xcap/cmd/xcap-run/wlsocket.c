/*
 * wlsocket.c — xcap-run's Wayland side (wlsocket.h).
 *
 * Belongs to: the xcap-run command's room (xcap/cmd/xcap-run/).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "wlsocket.h"

int wls_real_path(char *out, size_t size, char *err, size_t errlen)
{
	const char *name = getenv("WAYLAND_DISPLAY");
	if (!name || !*name)
		name = "wayland-0";
	int n;
	if (name[0] == '/') {
		n = snprintf(out, size, "%s", name);
	} else {
		const char *dir = getenv("XDG_RUNTIME_DIR");
		if (!dir || !*dir) {
			snprintf(err, errlen, "XDG_RUNTIME_DIR is not set");
			return -1;
		}
		n = snprintf(out, size, "%s/%s", dir, name);
	}
	if (n < 0 || (size_t)n >= size || (size_t)n >= sizeof ((struct sockaddr_un *)0)->sun_path) {
		snprintf(err, errlen, "socket path too long");
		return -1;
	}
	return 0;
}

int wls_listen(char *dir, size_t dirsize, char *name, size_t namesize, char *err, size_t errlen)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	if (!rt || !*rt) {
		snprintf(err, errlen, "XDG_RUNTIME_DIR is not set");
		return -1;
	}
	int n = snprintf(dir, dirsize, "%s/xcap-run-XXXXXX", rt);
	if (n < 0 || (size_t)n >= dirsize) {
		snprintf(err, errlen, "XDG_RUNTIME_DIR too long");
		return -1;
	}
	/* mkdtemp makes it 0700: only the user's processes reach the relay. */
	if (!mkdtemp(dir)) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	n = snprintf(sa.sun_path, sizeof sa.sun_path, "%s/wayland-0", dir);
	if (n < 0 || (size_t)n >= sizeof sa.sun_path) {
		snprintf(err, errlen, "socket path too long");
		rmdir(dir);
		return -1;
	}
	snprintf(name, namesize, "%s/wayland-0", strrchr(dir, '/') + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 16) != 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		wls_unlisten(dir);
		return -1;
	}
	return fd;
}

void wls_unlisten(const char *dir)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/wayland-0", dir);
	unlink(path);
	rmdir(dir);
}

int wls_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof sa.sun_path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

/* The inode of the peer of our end with inode ino, asked of the kernel's
   unix_diag (what ss -x shows); 0 when it does not answer. */
static uint64_t peer_inode(uint64_t ino)
{
	int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (nl < 0)
		return 0;
	struct {
		struct nlmsghdr h;
		struct unix_diag_req r;
	} req = {
		.h = { .nlmsg_len = sizeof req, .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		       .nlmsg_flags = NLM_F_REQUEST },
		.r = { .sdiag_family = AF_UNIX, .udiag_states = ~0u, .udiag_ino = (uint32_t)ino,
		       .udiag_show = UDIAG_SHOW_PEER, .udiag_cookie = { ~0u, ~0u } },
	};
	uint64_t peer = 0;
	union {
		struct nlmsghdr h;
		char bytes[8192];
	} buf;
	if (send(nl, &req, sizeof req, 0) == (ssize_t)sizeof req) {
		ssize_t n = recv(nl, &buf, sizeof buf, 0);
		for (struct nlmsghdr *h = &buf.h; n > 0 && NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY)
				break;
			struct unix_diag_msg *m = NLMSG_DATA(h);
			int len = (int)h->nlmsg_len - NLMSG_LENGTH(sizeof *m);
			for (struct rtattr *a = (struct rtattr *)(m + 1); RTA_OK(a, len); a = RTA_NEXT(a, len))
				if (a->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(a) >= 4) {
					uint32_t v;
					memcpy(&v, RTA_DATA(a), sizeof v);
					peer = v;
				}
			break;
		}
	}
	close(nl);
	return peer;
}

uint16_t wls_client_port(int accepted_fd)
{
	struct stat st;
	if (fstat(accepted_fd, &st) != 0)
		return 0;
	uint64_t peer = peer_inode((uint64_t)st.st_ino);
	return peer ? wls_port_of_inode(peer) : 0;
}

ssize_t wls_recv(int fd, uint8_t *buf, size_t cap, int *fds, int *nfds)
{
	union {
		struct cmsghdr h;
		char bytes[CMSG_SPACE(sizeof(int) * WLS_FDS_MAX)];
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &ctl,
			      .msg_controllen = sizeof ctl };
	*nfds = 0;
	ssize_t n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0)
		return n;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int one;
			memcpy(&one, CMSG_DATA(c) + i * sizeof(int), sizeof one);
			if (*nfds < WLS_FDS_MAX)
				fds[(*nfds)++] = one;
			else
				close(one);
		}
	}
	return n;
}

ssize_t wls_send(int fd, const uint8_t *buf, size_t len, const int *fds, int nfds)
{
	union {
		struct cmsghdr h;
		char bytes[CMSG_SPACE(sizeof(int) * WLS_FDS_MAX)];
	} ctl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (nfds > 0) {
		memset(&ctl, 0, sizeof ctl);
		msg.msg_control = &ctl;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
	}
	return sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
}

void wls_describe_fd(int fd, char *out, size_t size, uint64_t *bytes)
{
	*bytes = 0;
	char link[64], target[256];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, target, sizeof target - 1);
	target[n > 0 ? n : 0] = '\0';
	struct stat st;
	bool sized = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	if (sized)
		*bytes = (uint64_t)st.st_size;
	const char *kind = "fd";
	if (strncmp(target, "/memfd:", 7) == 0)
		kind = "memfd";
	else if (strstr(target, "dmabuf"))
		kind = "dmabuf";
	else if (strncmp(target, "anon_inode:", 11) == 0)
		kind = target + 11;
	else if (strncmp(target, "socket:", 7) == 0)
		kind = "socket";
	else if (strncmp(target, "pipe:", 5) == 0)
		kind = "pipe";
	else if (sized)
		kind = "file";
	if (sized)
		snprintf(out, size, "%s %llu bytes", kind, (unsigned long long)*bytes);
	else
		snprintf(out, size, "%s", kind);
}
