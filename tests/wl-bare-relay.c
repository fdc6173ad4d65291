/*
 * wl-bare-relay.c — the least a Wayland relay can do, for
 * tests/bench-run-wayland.sh to measure the cost of one more hop beside
 * xcap-run's: one poll, one recvmsg and one sendmsg a burst, descriptors
 * passed through, nothing recorded.  Test-only.
 *
 *   wl-bare-relay LISTEN-PATH COMPOSITOR-PATH -- APP [ARGS...]
 *
 * Runs APP with WAYLAND_DISPLAY=LISTEN-PATH and relays until it ends.
 *
 * Belongs to: the tests (tests/).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define FDS 64
#define CONNS 16

static int child_pipe[2];
static void on_child(int sig)
{
	(void)sig;
	if (write(child_pipe[1], "", 1) < 0) {
		/* a wake-up is pending already */
	}
}

/* Move one burst from a to b with its descriptors; 0 at the end. */
static int move(int a, int b)
{
	static char buf[256 * 1024];
	union {
		struct cmsghdr h;
		char bytes[CMSG_SPACE(sizeof(int) * FDS)];
	} ctl;
	struct iovec iov = { buf, sizeof buf };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &ctl,
			    .msg_controllen = sizeof ctl };
	ssize_t n = recvmsg(a, &m, MSG_CMSG_CLOEXEC);
	if (n <= 0)
		return n < 0 && errno == EINTR ? 1 : 0;
	int fds[FDS], nfds = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int) && nfds < FDS; i++)
				memcpy(&fds[nfds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
	iov.iov_len = (size_t)n;
	m.msg_controllen = 0;
	m.msg_control = NULL;
	if (nfds) {
		memset(&ctl, 0, sizeof ctl);
		m.msg_control = &ctl;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
	}
	/* blocking: a bare relay has no queue */
	ssize_t w = sendmsg(b, &m, MSG_NOSIGNAL);
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	for (ssize_t off = w; w > 0 && off < n; off += w)
		w = send(b, buf + off, (size_t)(n - off), MSG_NOSIGNAL);
	return w > 0;
}

int main(int argc, char **argv)
{
	if (argc < 5 || strcmp(argv[3], "--") != 0) {
		fprintf(stderr, "usage: wl-bare-relay LISTEN-PATH COMPOSITOR-PATH -- APP [ARGS...]\n");
		return 2;
	}
	struct sockaddr_un la = { .sun_family = AF_UNIX }, ca = { .sun_family = AF_UNIX };
	snprintf(la.sun_path, sizeof la.sun_path, "%s", argv[1]);
	snprintf(ca.sun_path, sizeof ca.sun_path, "%s", argv[2]);
	unlink(la.sun_path);
	int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&la, sizeof la) || listen(lfd, 16)) {
		perror("wl-bare-relay: listen");
		return 3;
	}
	if (pipe2(child_pipe, O_CLOEXEC | O_NONBLOCK))
		return 3;
	struct sigaction sa = { .sa_handler = on_child, .sa_flags = SA_NOCLDSTOP };
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	pid_t child = fork();
	if (child == 0) {
		setenv("WAYLAND_DISPLAY", argv[1], 1);
		execvp(argv[4], argv + 4);
		_exit(127);
	}
	int cl[CONNS], co[CONNS], n = 0, status = 0;
	for (;;) {
		struct pollfd pf[2 + 2 * CONNS] = { { .fd = lfd, .events = POLLIN },
						    { .fd = child_pipe[0], .events = POLLIN } };
		for (int i = 0; i < n; i++) {
			pf[2 + 2 * i] = (struct pollfd){ .fd = cl[i], .events = POLLIN };
			pf[3 + 2 * i] = (struct pollfd){ .fd = co[i], .events = POLLIN };
		}
		if (poll(pf, (nfds_t)(2 + 2 * n), -1) < 0 && errno != EINTR)
			return 3;
		if (pf[1].revents && waitpid(child, &status, WNOHANG) == child)
			break;
		if (pf[0].revents && n < CONNS) {
			int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC), s;
			if (c >= 0 && (s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0 &&
			    connect(s, (struct sockaddr *)&ca, sizeof ca) == 0) {
				cl[n] = c;
				co[n++] = s;
			}
		}
		for (int i = 0; i < n; i++) {
			if (cl[i] < 0)
				continue;
			int ok = 1;
			if (pf[2 + 2 * i].revents)
				ok = move(cl[i], co[i]);
			if (ok && pf[3 + 2 * i].revents)
				ok = move(co[i], cl[i]);
			if (!ok) {
				close(cl[i]);
				close(co[i]);
				cl[i] = co[i] = -1;
			}
		}
	}
	unlink(la.sun_path);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
