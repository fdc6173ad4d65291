/*
 * xcap-run — measure one application on the user's own display:
 *
 *   xcap-run [--latency MS] [--rate R] [-w TRACE] [--no-stacks] -- APP [ARGS...]
 *
 * The application is given a forwarding display the suite creates (a TCP
 * listener on 127.0.0.1, port 6000+N) that relays to the real display
 * named by $DISPLAY, over its Unix socket or TCP.  The relay itself holds
 * each chunk of bytes back by --latency and paces each direction at --rate,
 * so no root, namespace or qdisc is needed; and it sees both directions,
 * so it records them itself instead of capturing packets.
 *
 * Recording: each chunk the relay reads from the client, and each chunk
 * it writes to the client, becomes a synthesised TCP segment (IPv4, link
 * type DLT_IPV4) fed through the same pipeline as a capture, with the
 * time of that read or write.  Those are the times a capture beside the
 * client would see (the relay is the client's only peer, on loopback):
 * requests when the client sent them, answers when they reached it,
 * after the emulated link.  The state model's rules for a capture beside
 * the client apply unchanged, and the trace is an ordinary .xcap trace.
 * The segments are as big as the reads and writes; segment sizes and
 * ACKs are the relay's, not a network's, so the TCP side of the delay
 * table (Block Send/Recv on a window) is not measured this way.
 *
 * Call sites: the application runs with LD_PRELOAD=libxcapwait.so
 * (xcap/cmd/xcap-run/xcapwait.c), which appends each blocking wait in libxcb with its
 * stack to TRACE.sites, read by xcapanalyse --sites.
 *
 * At the end: the delay table, the round trips by call site, and the
 * trace's path.
 *
 * Wayland (--wayland, or WAYLAND_DISPLAY set and DISPLAY not): the
 * application is given a socket of the relay's own in a private folder
 * of $XDG_RUNTIME_DIR, relayed to the compositor's with the file
 * descriptors passed through unchanged (wlsocket.c), recorded the same
 * way, and what travelled beside the bytes (descriptors, shared-memory
 * reads) said in notes of the trace (wlaccount.c).
 *
 * Belongs to: the xcap-run command's room (xcap/cmd/xcap-run/).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "parts.h"
#include "pipeline.h"
#include "record.h"
#include "report.h"
#include "trace.h"
#include "units.h"
#include "wlaccount.h"
#include "wlsocket.h"

const char program_name[] = "xcap-run";

enum { EXIT_OK = 0, EXIT_RUNTIME = 3, EXIT_USAGE = 2 };

#ifndef DLT_IPV4
#define DLT_IPV4 228
#endif
#ifndef XCAP_PKGLIBDIR
#define XCAP_PKGLIBDIR "/usr/local/lib/xcap"
#endif
#ifndef XCAP_BINDIR
#define XCAP_BINDIR "/usr/local/bin"
#endif

/* The largest segment synthesised: an IPv4 packet holds 65535 bytes. */
#define SEG_MAX 65000
#define CONN_MAX 64

/* ---- the trace ---- */

struct recorder {
	FILE *out;
	struct trace_writer *w;
	struct pipeline *pipe;
	int failed;
	uint64_t last_ts;
	uint32_t last_conn;	/* the trace's id of the connection seen last */
	struct wl_account *acct;	/* Wayland: descriptors and shm reads */
};

static void emit(void *ctx, const struct xrec *rec)
{
	struct recorder *r = ctx;
	if (!r->failed && trace_writer_put(r->w, rec) < 0)
		r->failed = 1;
	if (rec->type == XREC_CONN)
		r->last_conn = rec->u.conn.id;
	/* its notes come back here, right after the message */
	if (r->acct && rec->type == XREC_MSG)
		wl_account_message(r->acct, &rec->u.msg);
}

/* One direction of a relayed connection, as TCP would number it. */
struct flow {
	uint32_t seq;		/* next sequence number this side sends */
};

struct conn {
	int cfd, sfd;		/* client side, real display side */
	uint16_t cport, sport;
	struct flow f[2];	/* XDIR_C2S, XDIR_S2C */
	struct chunk *q[2];	/* held back, in order; per direction */
	struct chunk *qtail[2];
	uint64_t link_free[2];	/* --rate: when the link is free again */
	bool eof[2];		/* the sender of that direction closed */
	bool open;
	uint32_t trace_id;	/* the trace's id of the connection */
};

struct chunk {
	struct chunk *next;
	uint64_t release;
	size_t len, off;
	int nfds;		/* Wayland: descriptors that came with the bytes */
	int fds[WLS_FDS_MAX];	/* sent with the chunk's first byte */
	uint8_t data[];
};

static uint16_t csum16(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* Feed one synthesised segment of conn c in direction dir to the pipeline. */
static void segment(struct recorder *r, struct conn *c, int dir, uint8_t flags,
		    const uint8_t *data, size_t len, uint64_t ts)
{
	static uint8_t frame[20 + 20 + SEG_MAX];
	size_t total = 40 + len;
	memset(frame, 0, 40);
	frame[0] = 0x45;
	frame[2] = (uint8_t)(total >> 8);
	frame[3] = (uint8_t)total;
	frame[8] = 64;
	frame[9] = 6;
	/* 127.0.0.1 both ends: the ports tell the sides apart. */
	uint8_t lo[4] = { 127, 0, 0, 1 };
	memcpy(frame + 12, lo, 4);
	memcpy(frame + 16, lo, 4);
	uint16_t ip_sum = csum16(frame, 20);
	frame[10] = (uint8_t)(ip_sum >> 8);
	frame[11] = (uint8_t)ip_sum;
	uint8_t *t = frame + 20;
	uint16_t from = dir == XDIR_C2S ? c->cport : c->sport;
	uint16_t to = dir == XDIR_C2S ? c->sport : c->cport;
	t[0] = (uint8_t)(from >> 8); t[1] = (uint8_t)from;
	t[2] = (uint8_t)(to >> 8); t[3] = (uint8_t)to;
	uint32_t seq = c->f[dir].seq, ack = c->f[!dir].seq;
	for (int i = 0; i < 4; i++) {
		t[4 + i] = (uint8_t)(seq >> (24 - 8 * i));
		t[8 + i] = (uint8_t)(ack >> (24 - 8 * i));
	}
	t[12] = 5 << 4;
	t[13] = flags | (flags & XTCP_SYN && dir == XDIR_C2S ? 0 : XTCP_ACK);
	/* A window that never closes: the relay always reads. */
	t[14] = 0xff; t[15] = 0xff;
	if (len)
		memcpy(t + 20, data, len);
	c->f[dir].seq += (uint32_t)len + (flags & (XTCP_SYN | XTCP_FIN) ? 1u : 0u);
	if (!r->failed && pipeline_packet(r->pipe, ts, frame, (uint32_t)total, (uint32_t)total) < 0)
		r->failed = 1;
	if (ts > r->last_ts)
		r->last_ts = ts;
}

static void record_bytes(struct recorder *r, struct conn *c, int dir, const uint8_t *p,
			 size_t n, uint64_t ts)
{
	while (n) {
		size_t k = n > SEG_MAX ? SEG_MAX : n;
		segment(r, c, dir, XTCP_PSH, p, k, ts);
		p += k;
		n -= k;
	}
}

/* ---- the real display ---- */

/* Connect to the display named by name ("[host]:N[.S]", "unix:N"),
   returning the socket, or -1 with the reason in err. */
static int connect_display(const char *name, char *err, size_t errlen)
{
	const char *colon = strrchr(name, ':');
	if (!colon || colon[1] < '0' || colon[1] > '9') {
		snprintf(err, errlen, "not a display name");
		return -1;
	}
	unsigned n = (unsigned)strtoul(colon + 1, NULL, 10);
	size_t hostlen = (size_t)(colon - name);
	char host[256];
	if (hostlen >= sizeof host) {
		snprintf(err, errlen, "host name too long");
		return -1;
	}
	memcpy(host, name, hostlen);
	host[hostlen] = '\0';
	if (!host[0] || strcmp(host, "unix") == 0) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			snprintf(err, errlen, "%s", strerror(errno));
			return -1;
		}
		snprintf(sa.sun_path, sizeof sa.sun_path, "/tmp/.X11-unix/X%u", n);
		if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
			return fd;
		/* Servers that listen only in the abstract namespace (some
		   Xwayland builds) are found there. */
		memset(sa.sun_path, 0, sizeof sa.sun_path);
		int k = snprintf(sa.sun_path + 1, sizeof sa.sun_path - 1, "/tmp/.X11-unix/X%u", n);
		if (connect(fd, (struct sockaddr *)&sa,
			    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)k)) == 0)
			return fd;
		snprintf(err, errlen, "%s (/tmp/.X11-unix/X%u)", strerror(errno), n);
		close(fd);
		if (host[0])
			return -1;
		snprintf(host, sizeof host, "localhost");
	}
	char port[16];
	snprintf(port, sizeof port, "%u", 6000 + n);
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	int rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0) {
		snprintf(err, errlen, "%s", gai_strerror(rc));
		return -1;
	}
	int fd = -1;
	for (struct addrinfo *a = res; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
		snprintf(err, errlen, "%s (%s:%s)", strerror(errno), host, port);
	}
	freeaddrinfo(res);
	if (fd >= 0) {
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, 1 /* TCP_NODELAY */, &one, sizeof one);
	}
	return fd;
}

/* The forwarding display's lock file, /tmp/.XN-lock, while it is ours. */
static char display_lock[64];

/* The pid an X lock file names (ten columns and a newline, as X servers
   write it), or 0 when the file is unreadable or not in that form. */
static long lock_owner(const char *path)
{
	char buf[16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t len = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (len != 11)
		return 0;
	buf[len] = 0;
	char *end;
	long pid = strtol(buf, &end, 10);
	return *end == '\n' && pid > 0 ? pid : 0;
}

/* Take display N's lock file as an X server does: an X server or another
   tool starting later then sees the number taken and picks another,
   rather than come up beside the relay's port and have its clients reach
   the relay.  The pid is written to a file of our own first and linked
   into place, so the lock is never seen empty: an X server reading an
   empty or short lock file takes it for a crashed server's, removes it
   and takes the number, and its clients would then meet the relay.  A
   lock whose owner is gone is removed, as X servers do, once. */
static bool lock_display(unsigned n)
{
	char path[sizeof display_lock], tmp[sizeof display_lock + 24];
	snprintf(path, sizeof path, "/tmp/.X%u-lock", n);
	snprintf(tmp, sizeof tmp, "/tmp/.xcap-run-X%u-lock.%ld", n, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (fd < 0)
		return false;
	char pid[16];
	int len = snprintf(pid, sizeof pid, "%10ld\n", (long)getpid());
	bool ok = write(fd, pid, (size_t)len) == len;
	if (close(fd) != 0)
		ok = false;
	bool locked = false;
	for (int tries = 0; ok && tries < 2 && !locked; tries++) {
		if (link(tmp, path) == 0) {
			locked = true;
			break;
		}
		if (errno != EEXIST)
			break;
		long owner = lock_owner(path);
		if (owner == 0 || kill((pid_t)owner, 0) == 0 || errno != ESRCH)
			break;	/* in use, being written, or not ours to judge */
		unlink(path);	/* its server is gone */
	}
	unlink(tmp);
	if (locked)
		memcpy(display_lock, path, sizeof path);
	return locked;
}

/* Remove the lock only while it still names us: one taken over (by hand,
   or by a server that judged it stale) is no longer ours to remove. */
static void unlock_display(void)
{
	if (display_lock[0] && lock_owner(display_lock) == (long)getpid())
		unlink(display_lock);
	display_lock[0] = 0;
}

/* The forwarding display: a TCP listener on 127.0.0.1:6000+N for a free
   N (its lock file ours, port free), from 63 down so as not to meet
   servers that count up from 0.  Returns the socket and sets *num. */
static int listen_display(unsigned *num)
{
	for (unsigned n = 63; n >= 10; n--) {
		if (!lock_display(n))
			continue;
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0) {
			unlock_display();
			return -1;
		}
		struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)(6000 + n)),
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		if (bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(fd, 16) == 0) {
			*num = n;
			return fd;
		}
		close(fd);
		unlock_display();
	}
	return -1;
}

/* Give the child the cookie of the real display under the forwarding
   display's number num, for any host (family wild, the way ssh's X
   forwarding does): a file of its own, path in xauth_file.  The number
   matters: Xlib and libxcb look a cookie up by the display number the
   client connects to, so the real display's entry as it is (number :0,
   say) is never found for 127.0.0.1:num, and a server that wants a
   cookie, as every desktop's does, refuses the client.  Without xauth or
   a cookie the child goes without, as it would on the real display. */
static bool copy_cookie(const char *real, unsigned num, const char *xauth_file)
{
	if (strchr(real, '\'') || strchr(xauth_file, '\''))
		return false;
	/* Read without locking (-i): the file may sit where the user cannot
	   create xauth's lock files, and reading needs none.  xauth nlist's
	   fields, in hex: family, address length, address,
	   number length, number (its decimal digits), name..., data... */
	char digits[16], hexnum[40] = "";
	int nd = snprintf(digits, sizeof digits, "%u", num);
	for (int i = 0; i < nd; i++)
		snprintf(hexnum + 2 * i, sizeof hexnum - 2 * (size_t)i, "%02x", (unsigned char)digits[i]);
	char cmd[3 * PATH_MAX];
	snprintf(cmd, sizeof cmd,
		 "xauth -i nlist '%s' 2>/dev/null | "
		 "sed -e 's/^[0-9a-f]* \\([0-9a-f]* [0-9a-f]*\\) [0-9a-f]* [0-9a-f]* /ffff \\1 %04x %s /' | "
		 "xauth -q -f '%s' nmerge - 2>/dev/null",
		 real, (unsigned)nd, hexnum, xauth_file);
	int rc = system(cmd);
	return rc == 0;
}

/* The Wayland relay's private folder in $XDG_RUNTIME_DIR, while it is ours. */
static char wl_listen_dir[PATH_MAX];
static void unlisten_wayland(void)
{
	if (wl_listen_dir[0])
		wls_unlisten(wl_listen_dir);
	wl_listen_dir[0] = 0;
}

/* ---- the relay ---- */

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* The child's end wakes the relay at once: SIGCHLD writes a byte to this
   pipe, which the relay polls.  (Otherwise poll, which a default SIGCHLD
   does not interrupt, slept out its timeout, up to 100 ms, after every
   application's exit, and a signal between waitpid and poll would be
   missed too.) */
static int child_pipe[2] = { -1, -1 };
static void on_child(int sig)
{
	(void)sig;
	int saved = errno;
	if (write(child_pipe[1], "", 1) < 0) {
		/* full: a wake-up is already pending */
	}
	errno = saved;
}

struct relay {
	struct conn conns[CONN_MAX];
	size_t n;
	uint64_t delay;		/* ns one way */
	double rate;		/* bytes per second, 0: unlimited */
	const char *real;	/* X11: $DISPLAY; Wayland: the compositor's socket */
	uint16_t port;
	bool wayland;
	struct recorder rec;
};

static void enqueue(struct relay *rl, struct conn *c, int dir, const uint8_t *p, size_t n,
		    uint64_t t, const int *fds, int nfds)
{
	struct chunk *k = malloc(sizeof *k + n);
	if (!k)
		die(EXIT_RUNTIME, "out of memory: 'relay buffer'");
	memcpy(k->data, p, n);
	k->len = n;
	k->off = 0;
	k->next = NULL;
	k->nfds = nfds;
	if (nfds)
		memcpy(k->fds, fds, sizeof *fds * (size_t)nfds);
	uint64_t sent = t;
	if (rl->rate > 0) {
		/* The link serialises a direction's bytes one after another. */
		uint64_t start = c->link_free[dir] > t ? c->link_free[dir] : t;
		sent = start + (uint64_t)((double)n / rl->rate * 1e9);
		c->link_free[dir] = sent;
	}
	k->release = sent + rl->delay;
	if (c->qtail[dir])
		c->qtail[dir]->next = k;
	else
		c->q[dir] = k;
	c->qtail[dir] = k;
}

static void conn_close(struct relay *rl, struct conn *c, uint64_t t)
{
	if (!c->open)
		return;
	segment(&rl->rec, c, XDIR_C2S, XTCP_FIN, NULL, 0, t);
	segment(&rl->rec, c, XDIR_S2C, XTCP_FIN, NULL, 0, t);
	close(c->cfd);
	close(c->sfd);
	for (int d = 0; d < 2; d++)
		while (c->q[d]) {
			struct chunk *k = c->q[d];
			c->q[d] = k->next;
			for (int i = 0; i < k->nfds; i++)
				close(k->fds[i]);
			free(k);
		}
	c->open = false;
}

/* The relay's next connection, client cfd to server sfd, recorded from
   its handshake on (so the pipeline knows which side is the client). */
static void open_conn(struct relay *rl, int cfd, int sfd, uint16_t cport, uint16_t sport)
{
	struct conn *c = &rl->conns[rl->n++];
	memset(c, 0, sizeof *c);
	c->cfd = cfd;
	c->sfd = sfd;
	c->cport = cport;
	c->sport = sport;
	c->f[XDIR_C2S].seq = 1000;
	c->f[XDIR_S2C].seq = 5000;
	c->open = true;
	uint64_t t = clock_ns(CLOCK_REALTIME);
	segment(&rl->rec, c, XDIR_C2S, XTCP_SYN, NULL, 0, t);
	segment(&rl->rec, c, XDIR_S2C, XTCP_SYN, NULL, 0, t);
	segment(&rl->rec, c, XDIR_C2S, 0, NULL, 0, t);
	c->trace_id = rl->rec.last_conn;
}

/* A port for the trace's client side of a Wayland connection that no
   open connection has (the inode's fold may meet another's). */
static uint16_t unique_port(struct relay *rl, uint16_t want)
{
	static uint16_t next = 1024;
	for (;;) {
		bool taken = !want;
		for (size_t i = 0; i < rl->n && !taken; i++)
			taken = rl->conns[i].open && rl->conns[i].cport == want;
		if (!taken)
			return want;
		want = next++;
		if (next < 1024)
			next = 1024;
	}
}

/* A client on the relay's Wayland socket: connected to the compositor,
   numbered by its socket's inode (wlsocket.h) so that libxcapwait.so's
   stacks join it. */
static void accept_wayland(struct relay *rl, int lfd)
{
	int cfd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (cfd < 0)
		return;
	if (rl->n == CONN_MAX) {
		complain("too many connections, refused one: '%s'", rl->real);
		close(cfd);
		return;
	}
	int sfd = wls_connect(rl->real);
	if (sfd < 0) {
		complain("cannot connect to the compositor: %s: '%s'", strerror(errno), rl->real);
		close(cfd);
		return;
	}
	open_conn(rl, cfd, sfd, unique_port(rl, wls_client_port(cfd)), WLS_SERVER_PORT);
}

/* Say what the descriptors that came with bytes of c in direction dir
   are, for the messages that carried them (wlaccount.h). */
static void account_fds(struct relay *rl, struct conn *c, int dir, const int *fds, int nfds)
{
	if (!rl->rec.acct || !nfds)
		return;
	char what[WLS_FDS_MAX][96];
	const char *p[WLS_FDS_MAX];
	int dups[WLS_FDS_MAX];
	for (int i = 0; i < nfds; i++) {
		uint64_t bytes;
		wls_describe_fd(fds[i], what[i], sizeof what[i], &bytes);
		p[i] = what[i];
		/* a file's (a pool's) memory is read at its commits */
		dups[i] = bytes ? fcntl(fds[i], F_DUPFD_CLOEXEC, 0) : -1;
	}
	if (wl_account_fds(rl->rec.acct, c->trace_id, dir, p, dups, nfds) < 0)
		die(EXIT_RUNTIME, "out of memory: 'descriptors'");
}

static void accept_one(struct relay *rl, int lfd)
{
	struct sockaddr_in peer;
	socklen_t plen = sizeof peer;
	int cfd = accept4(lfd, (struct sockaddr *)&peer, &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (cfd < 0)
		return;
	if (rl->n == CONN_MAX) {
		complain("too many connections, refused one: '%s'", rl->real);
		close(cfd);
		return;
	}
	char err[512];
	int sfd = connect_display(rl->real, err, sizeof err);
	if (sfd < 0) {
		complain("cannot connect to the display: %s: '%s'", err, rl->real);
		close(cfd);
		return;
	}
	fcntl(sfd, F_SETFL, fcntl(sfd, F_GETFL) | O_NONBLOCK);
	int one = 1;
	setsockopt(cfd, IPPROTO_TCP, 1 /* TCP_NODELAY */, &one, sizeof one);
	open_conn(rl, cfd, sfd, ntohs(peer.sin_port), rl->port);
}

/* Write what can go now of len bytes with nfds descriptors (sent with
   the first byte) to fd: the bytes written, or -1 with errno set. */
static ssize_t send_now(struct relay *rl, int fd, const uint8_t *p, size_t len, const int *fds,
			int nfds)
{
	return rl->wayland ? wls_send(fd, p, len, fds, nfds) : write(fd, p, len);
}

/* Record n bytes of direction dir of c that went with nfds descriptors:
   requests as the client sent them (at t, their read: beside the
   client), answers as they reached it (now).  Called once they are
   forwarded, so that decoding them never holds them back; and before
   the relay reads anything more, so that a commit's pool memory is read
   before the compositor's release of the buffer can reach the client. */
static void record_sent(struct relay *rl, struct conn *c, int dir, const uint8_t *p, size_t n,
			uint64_t t, const int *fds, int nfds)
{
	account_fds(rl, c, dir, fds, nfds);
	record_bytes(&rl->rec, c, dir, p, n, dir == XDIR_C2S ? t : clock_ns(CLOCK_REALTIME));
}

/* Read what fd has for direction dir of c.  With nothing to hold back
   (no --latency, no --rate, nothing queued before it) the bytes go on at
   once, straight from the read: a burst costs one recvmsg and one
   sendmsg, and is recorded after it has gone. */
static void pull(struct relay *rl, struct conn *c, int dir)
{
	static uint8_t buf[256 * 1024];
	int fd = dir == XDIR_C2S ? c->cfd : c->sfd;
	int fds[WLS_FDS_MAX], nfds = 0;
	ssize_t n = rl->wayland ? wls_recv(fd, buf, sizeof buf, fds, &nfds) : read(fd, buf, sizeof buf);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
		c->eof[dir] = true;
		return;
	}
	if (n < 0)
		return;
	uint64_t t = clock_ns(CLOCK_REALTIME);
	size_t sent = 0;
	if (!rl->delay && !rl->rate && !c->q[dir]) {
		ssize_t w = send_now(rl, dir == XDIR_C2S ? c->sfd : c->cfd, buf, (size_t)n, fds, nfds);
		if (w < 0 && errno != EAGAIN && errno != EINTR) {
			for (int i = 0; i < nfds; i++)
				close(fds[i]);
			c->eof[!dir] = c->eof[dir] = true;
			return;
		}
		if (w > 0) {
			sent = (size_t)w;
			record_sent(rl, c, dir, buf, sent, t, fds, nfds);
			/* sent with the first byte; ours to close */
			for (int i = 0; i < nfds; i++)
				close(fds[i]);
			nfds = 0;
		}
	}
	if (sent < (size_t)n) {
		/* Requests are recorded as the client sent them: now, when held
		   back (their descriptors said now too, while they are open);
		   answers when they reach the client (push). */
		if (dir == XDIR_C2S) {
			account_fds(rl, c, dir, fds, nfds);
			record_bytes(&rl->rec, c, dir, buf + sent, (size_t)n - sent, t);
		}
		enqueue(rl, c, dir, buf + sent, (size_t)n - sent, t, fds, nfds);
	}
}

/* Write what is due of direction dir of c. */
static void push(struct relay *rl, struct conn *c, int dir, uint64_t t)
{
	int fd = dir == XDIR_C2S ? c->sfd : c->cfd;
	while (c->q[dir] && c->q[dir]->release <= t) {
		struct chunk *k = c->q[dir];
		/* Descriptors go, unchanged, with the first byte they came
		   with, and are ours to close once sent. */
		ssize_t n = send_now(rl, fd, k->data + k->off, k->len - k->off, k->fds, k->nfds);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			c->eof[!dir] = c->eof[dir] = true;
			return;
		}
		/* Answers are recorded as they reach the client. */
		if (dir == XDIR_S2C)
			record_sent(rl, c, dir, k->data + k->off, (size_t)n, t, k->fds, k->nfds);
		for (int i = 0; i < k->nfds; i++)
			close(k->fds[i]);
		k->nfds = 0;
		k->off += (size_t)n;
		if (k->off < k->len)
			return;
		c->q[dir] = k->next;
		if (!c->q[dir])
			c->qtail[dir] = NULL;
		free(k);
	}
}

static int relay_run(struct relay *rl, int lfd, pid_t child, int *child_status)
{
	bool child_done = false, child_signalled = true;
	uint64_t done_at = 0;
	for (;;) {
		/* Asked only when SIGCHLD said so (and once at the start): not a
		   system call per burst. */
		if (!child_done && child_signalled) {
			child_signalled = false;
			pid_t w = waitpid(child, child_status, WNOHANG);
			if (w == child) {
				child_done = true;
				done_at = clock_ns(CLOCK_REALTIME);
			}
		}
		size_t open = 0;
		for (size_t i = 0; i < rl->n; i++)
			open += rl->conns[i].open;
		/* The child is gone: its connections close with it; a second
		   later, any left belong to something it left behind. */
		if (child_done && (!open || clock_ns(CLOCK_REALTIME) - done_at > 1000000000u))
			break;
		if (stop_requested && !child_done) {
			kill(child, SIGTERM);
			stop_requested = 0;
		}
		struct pollfd pf[2 + 2 * CONN_MAX];
		struct conn *owner[2 + 2 * CONN_MAX];
		size_t np = 0;
		pf[np] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		owner[np++] = NULL;
		pf[np] = (struct pollfd){ .fd = child_pipe[0], .events = POLLIN };
		owner[np++] = NULL;
		uint64_t t = clock_ns(CLOCK_REALTIME), next = t + 100000000u;
		for (size_t i = 0; i < rl->n; i++) {
			struct conn *c = &rl->conns[i];
			if (!c->open)
				continue;
			short ev_c = 0, ev_s = 0;
			if (!c->eof[XDIR_C2S])
				ev_c |= POLLIN;
			if (!c->eof[XDIR_S2C])
				ev_s |= POLLIN;
			for (int d = 0; d < 2; d++) {
				if (!c->q[d])
					continue;
				if (c->q[d]->release > t) {
					if (c->q[d]->release < next)
						next = c->q[d]->release;
				} else if (d == XDIR_C2S) {
					ev_s |= POLLOUT;
				} else {
					ev_c |= POLLOUT;
				}
			}
			pf[np] = (struct pollfd){ .fd = c->cfd, .events = ev_c };
			owner[np++] = c;
			pf[np] = (struct pollfd){ .fd = c->sfd, .events = ev_s };
			owner[np++] = c;
		}
		int timeout = (int)((next - t + 999999) / 1000000);
		/* Sub-millisecond releases: poll's timeout is in ms, so spin on a
		   zero timeout rather than overshoot the emulated delay. */
		if (next - t < 1000000)
			timeout = 0;
		int rc = poll(pf, np, timeout > 100 ? 100 : timeout);
		if (rc < 0 && errno != EINTR)
			die(EXIT_RUNTIME, "poll failed: %s: '%s'", strerror(errno), rl->real);
		if (rc > 0 && pf[0].revents & POLLIN) {
			if (rl->wayland)
				accept_wayland(rl, lfd);
			else
				accept_one(rl, lfd);
		}
		if (rc > 0 && pf[1].revents & POLLIN) {
			child_signalled = true;
			char drain[64];
			while (read(child_pipe[0], drain, sizeof drain) > 0)
				continue;
		}
		for (size_t i = 2; rc > 0 && i < np; i++) {
			struct conn *c = owner[i];
			if (!c->open || !pf[i].revents)
				continue;
			bool client_side = pf[i].fd == c->cfd;
			int in_dir = client_side ? XDIR_C2S : XDIR_S2C;
			if (pf[i].revents & (POLLIN | POLLHUP | POLLERR))
				pull(rl, c, in_dir);
		}
		t = clock_ns(CLOCK_REALTIME);
		for (size_t i = 0; i < rl->n; i++) {
			struct conn *c = &rl->conns[i];
			if (!c->open)
				continue;
			push(rl, c, XDIR_C2S, t);
			push(rl, c, XDIR_S2C, t);
			/* A side that closed ends the connection once what it sent
			   has been delivered. */
			if ((c->eof[XDIR_C2S] && !c->q[XDIR_C2S]) || (c->eof[XDIR_S2C] && !c->q[XDIR_S2C]))
				conn_close(rl, c, t);
		}
	}
	uint64_t t = clock_ns(CLOCK_REALTIME);
	for (size_t i = 0; i < rl->n; i++)
		conn_close(rl, &rl->conns[i], t);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: xcap-run [--wayland] [--latency MS] [--rate R] [-w TRACE] [--no-stacks] -- APP [ARGS...]\n"
"\n"
"Run APP on a forwarding display that relays to $DISPLAY (Unix socket or\n"
"TCP), record the relayed X11 traffic as an .xcap trace and the stack of\n"
"each wait for a reply, and print the delay table and the round trips by\n"
"call site.  Needs no privilege.  With --wayland, or when WAYLAND_DISPLAY\n"
"is set and DISPLAY is not, APP gets a Wayland socket of the relay's own\n"
"instead, relayed to the compositor with the file descriptors passed.\n"
"\n"
"  --wayland      relay Wayland: APP's WAYLAND_DISPLAY is the relay's\n"
"                 socket (in a private folder of $XDG_RUNTIME_DIR), DISPLAY\n"
"                 is unset for it\n"
"  --latency MS   hold each direction's bytes back MS milliseconds, or a\n"
"                 duration such as 40ms or 1.5s (one way); --delay is its\n"
"                 older name\n"
"  --rate R       pace each direction at R bits per second (10M, 250k,\n"
"                 1.5Mbit/s; man xcap, UNITS)\n"
"  -w TRACE       write the trace here (default xcap-run-PID.xcap); the\n"
"                 call sites go to TRACE.sites\n"
"  --no-stacks    do not record call sites (no LD_PRELOAD)\n"
"  --report FILE  write a Markdown page for a bug report: the command, the\n"
"                 delay table, the call sites, the avoidable round trips\n"
"  -q, --quiet    print only the trace's path at the end\n"
"  -h, --help     show this help\n"
"  -V, --version  show the version\n"
"\n"
"Exit status: the application's, or 2 usage error, 3 the relay or the\n"
"trace failed.\n"
"\n"
"Examples:\n"
"  xcap-run -- xterm                            the round trips of xterm, by call site\n"
"  xcap-run --latency 50 -w gtk.xcap -- gtk3-demo how it behaves 100 ms of round trip away\n"
"  xcap-run --report slow.md -- qterminal       a page to paste into a bug report\n"
"  xcap-run --wayland -- foot                   foot's Wayland round trips, by call site\n"
"More in man xcap-tutorial.\n");
}

/* Bytes per second, from bits per second in the grammar of units.h. */
static double parse_rate(const char *s)
{
	uint64_t bps;
	if (units_rate(s, &bps) < 0 || bps == 0)
		die(EXIT_USAGE, "bad rate, want " UNITS_RATE_HINT ": '%s'", s);
	return (double)bps / 8;
}

/* xcapanalyse, found once next to xcap-run (parts.h) before the
   application runs: the tables are what the user came for. */
static char analyser[PATH_MAX];

/* Run xcapanalyse with the trace; its output is ours (or goes to to).
   Returns its exit status, or -1 when it could not be run. */
static int analyse(const char *const argv[], FILE *to)
{
	fflush(stdout);
	if (to)
		fflush(to);
	pid_t p = fork();
	if (p == 0) {
		if (to && dup2(fileno(to), STDOUT_FILENO) < 0)
			_exit(127);
		execv(analyser, (char *const *)argv);
		fprintf(stderr, "%s: cannot run: %s: '%s'\n", program_name, strerror(errno), analyser);
		_exit(127);
	}
	int status;
	if (p < 0 || waitpid(p, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Whether name runs as execvp would find it: a path, or a command in a
   folder of $PATH. */
static bool runnable(const char *name)
{
	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		char full[PATH_MAX];
		snprintf(full, sizeof full, "%.*s/%s", (int)(n ? n : 1), n ? path : ".", name);
		struct stat st;
		if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

/* The page for a bug report: how it was made, then the tables. */
static int write_report(const char *path, const char *trace, bool stacks, double delay_ms,
			double rate, int argc, char **argv)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "# X11 round trips of `%s`\n\n", argv[optind]);
	fprintf(f, "Measured with `xcap-run");
	if (delay_ms > 0)
		fprintf(f, " --latency %g", delay_ms);
	if (rate > 0)
		fprintf(f, " --rate %g", rate * 8);
	fprintf(f, " --");
	for (int i = optind; i < argc; i++)
		fprintf(f, " %s", argv[i]);
	fprintf(f, "` (xcap %s); trace `%s`.\n\n## Where the time went\n\n", PACKAGE_VERSION, trace);
	int bad = analyse((const char *const[]){ "xcapanalyse", "--delays", "--format", "markdown", trace,
					      NULL }, f) != 0;
	if (stacks) {
		fprintf(f, "\n## Round trips by call site\n\n");
		bad |= analyse((const char *const[]){ "xcapanalyse", "--sites", "--format", "markdown", trace,
						      NULL }, f) != 0;
	}
	if (fclose(f) != 0)
		return -1;
	if (bad)
		complain("the report lacks tables xcapanalyse could not make: '%s'", path);
	return 0;
}

int main(int argc, char **argv)
{
	double delay_ms = 0, rate = 0;
	const char *out = NULL;
	bool stacks = true, quiet = false, want_wayland = false;
	const char *report = NULL;
	enum { OPT_LATENCY = 256, OPT_RATE, OPT_NO_STACKS, OPT_REPORT, OPT_WAYLAND };
	static const struct option longopts[] = {
		{ "latency", required_argument, NULL, OPT_LATENCY },
		{ "delay", required_argument, NULL, OPT_LATENCY },	/* its older name */
		{ "rate", required_argument, NULL, OPT_RATE },
		{ "write", required_argument, NULL, 'w' },
		{ "no-stacks", no_argument, NULL, OPT_NO_STACKS },
		{ "report", required_argument, NULL, OPT_REPORT },
		{ "wayland", no_argument, NULL, OPT_WAYLAND },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "+w:qhV", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_LATENCY: {
			uint64_t ns;
			if (units_duration(optarg, UNITS_MS, &ns) < 0 || ns > 60 * UNITS_S)
				die(EXIT_USAGE, "bad latency, want milliseconds or " UNITS_DURATION_HINT
				    ", up to 60 s: '%s'", optarg);
			delay_ms = (double)ns / 1e6;
			break;
		}
		case OPT_RATE: rate = parse_rate(optarg); break;
		case 'w': out = optarg; break;
		case OPT_NO_STACKS: stacks = false; break;
		case OPT_REPORT: report = optarg; break;
		case OPT_WAYLAND: want_wayland = true; break;
		case 'q': quiet = true; break;
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': printf("xcap-run %s\n", PACKAGE_VERSION); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		complain("no application given: 'APP'");
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *real = getenv("DISPLAY");
	char err[512], wl_real[PATH_MAX];
	bool wayland = want_wayland || ((!real || !*real) && getenv("WAYLAND_DISPLAY") &&
					 *getenv("WAYLAND_DISPLAY"));
	if (wayland) {
		if (wls_real_path(wl_real, sizeof wl_real, err, sizeof err) < 0)
			die(EXIT_USAGE, "no compositor to relay to: %s: '$WAYLAND_DISPLAY'", err);
		int probe = wls_connect(wl_real);
		if (probe < 0)
			die(EXIT_RUNTIME, "cannot connect to the compositor: %s: '%s'", strerror(errno),
			    wl_real);
		close(probe);
		real = wl_real;
	} else {
		if (!real || !*real)
			die(EXIT_USAGE, "no display to relay to: '$DISPLAY'");
		int probe = connect_display(real, err, sizeof err);
		if (probe < 0)
			die(EXIT_RUNTIME, "cannot connect to the display: %s: '%s'", err, real);
		close(probe);
	}

	/* Everything it needs, found before a file is made or the
	   application started: a missing part ends it here, clearly. */
	if (!runnable(argv[optind]))
		die(EXIT_USAGE, "no such application (not a path, nor on $PATH): '%s'", argv[optind]);
	char looked[2 * PATH_MAX], libpath[PATH_MAX];
	if (stacks && find_part(libpath, sizeof libpath, "libxcapwait.so", "XCAP_WAIT_LIB", NULL,
				XCAP_PKGLIBDIR, looked, sizeof looked) < 0)
		die(EXIT_RUNTIME, "cannot find the call-site library (looked in %s; or run with "
		    "--no-stacks): 'libxcapwait.so'", looked);
	/* In the build tree xcapanalyse is in its layer's folder beside ours. */
	static const char *const beside[] = { "../xcapanalyse", NULL };
	const char *bindir = getenv("XCAP_BINDIR");	/* the user's choice of folder */
	if ((!quiet || report) &&
	    find_part(analyser, sizeof analyser, "xcapanalyse", NULL, bindir && *bindir ? NULL : beside,
		      bindir && *bindir ? bindir : XCAP_BINDIR, looked, sizeof looked) < 0)
		die(EXIT_RUNTIME, "cannot find the program that makes the tables (looked in %s; "
		    "or run with --quiet): 'xcapanalyse'", looked);

	char trace_path[PATH_MAX], sites_path[PATH_MAX + 8], xauth_path[PATH_MAX];
	if (out)
		snprintf(trace_path, sizeof trace_path, "%s", out);
	else
		snprintf(trace_path, sizeof trace_path, "xcap-run-%ld.xcap", (long)getpid());
	snprintf(sites_path, sizeof sites_path, "%s.sites", trace_path);

	unsigned num = 0;
	int lfd;
	char wl_name[PATH_MAX];
	if (wayland) {
		lfd = wls_listen(wl_listen_dir, sizeof wl_listen_dir, wl_name, sizeof wl_name, err,
				 sizeof err);
		if (lfd < 0)
			die(EXIT_RUNTIME, "cannot make the relay's socket: %s: '$XDG_RUNTIME_DIR'", err);
		atexit(unlisten_wayland);
	} else {
		lfd = listen_display(&num);
		if (lfd < 0)
			die(EXIT_RUNTIME, "no free display number for the forwarding display: '127.0.0.1:10-63'");
		atexit(unlock_display);	/* also when a failure below ends the program */
	}

	struct relay *rl = calloc(1, sizeof *rl);
	if (!rl)
		die(EXIT_RUNTIME, "out of memory: 'relay'");
	rl->delay = (uint64_t)(delay_ms * 1e6 + 0.5);
	rl->rate = rate;
	rl->real = real;
	rl->wayland = wayland;
	rl->port = wayland ? WLS_SERVER_PORT : (uint16_t)(6000 + num);
	rl->rec.out = fopen(trace_path, "wb");
	if (!rl->rec.out)
		die(EXIT_RUNTIME, "cannot open output: %s: '%s'", strerror(errno), trace_path);
	struct trace_info info = { .linktype = DLT_IPV4, .snaplen = 65535, .ts_precision = 9 };
	gethostname(info.host, sizeof info.host - 1);
	if (wayland)
		snprintf(info.iface, sizeof info.iface, "wayland relay %.100s -> %.130s", wl_name, real);
	else
		snprintf(info.iface, sizeof info.iface, "relay 127.0.0.1:%u -> %.200s", num, real);
	snprintf(info.tool, sizeof info.tool, "xcap-run %s", PACKAGE_VERSION);
	if (!(rl->rec.w = trace_writer_new(rl->rec.out, &info, err, sizeof err)))
		die(EXIT_RUNTIME, "cannot start the trace: %s: '%s'", err, trace_path);
	struct pipeline_options popt;
	pipeline_default_options(&popt);
	popt.snaplen = 65535;
	if (!(rl->rec.pipe = pipeline_new(DLT_IPV4, &popt, emit, &rl->rec)))
		die(EXIT_RUNTIME, "out of memory: 'pipeline'");
	if (wayland && !(rl->rec.acct = wl_account_new(emit, &rl->rec)))
		die(EXIT_RUNTIME, "out of memory: 'descriptors'");
	unlink(sites_path);

	char display[64];
	snprintf(display, sizeof display, "127.0.0.1:%u", num);
	snprintf(xauth_path, sizeof xauth_path, "%s/xcap-run-%ld.xauth",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
	bool cookie = !wayland && copy_cookie(real, num, xauth_path);

	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (pipe(child_pipe) != 0)
		die(EXIT_RUNTIME, "cannot make a pipe: %s: 'SIGCHLD'", strerror(errno));
	for (int i = 0; i < 2; i++) {
		fcntl(child_pipe[i], F_SETFD, FD_CLOEXEC);
		fcntl(child_pipe[i], F_SETFL, O_NONBLOCK);
	}
	struct sigaction sc = { .sa_handler = on_child, .sa_flags = SA_NOCLDSTOP };
	sigaction(SIGCHLD, &sc, NULL);

	pid_t child = fork();
	if (child < 0)
		die(EXIT_RUNTIME, "cannot fork: %s: '%s'", strerror(errno), argv[optind]);
	if (child == 0) {
		signal(SIGPIPE, SIG_DFL);
		if (wayland) {
			/* The relayed compositor only: a toolkit that found an X
			   display too might go there, unrecorded. */
			setenv("WAYLAND_DISPLAY", wl_name, 1);
			unsetenv("WAYLAND_SOCKET");
			unsetenv("DISPLAY");
		} else {
			setenv("DISPLAY", display, 1);
		}
		if (cookie)
			setenv("XAUTHORITY", xauth_path, 1);
		if (stacks) {
			const char *old = getenv("LD_PRELOAD");
			char pre[2 * PATH_MAX];
			snprintf(pre, sizeof pre, "%s%s%s", libpath, old && *old ? " " : "",
				 old ? old : "");
			setenv("LD_PRELOAD", pre, 1);
			setenv("XCAP_WAIT_LOG", sites_path, 1);
		}
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "%s: cannot run: %s: '%s'\n", program_name, strerror(errno),
			argv[optind]);
		_exit(127);
	}
	int status = 0;
	relay_run(rl, lfd, child, &status);
	close(lfd);
	unlock_display();
	unlisten_wayland();
	unlink(xauth_path);
	if (pipeline_finish(rl->rec.pipe, rl->rec.last_ts) < 0 || rl->rec.failed)
		complain("the trace is incomplete: %s: '%s'",
			 pipeline_error(rl->rec.pipe) ? pipeline_error(rl->rec.pipe) : "write error",
			 trace_path);
	struct xrec st = { .type = XREC_STATS };
	pipeline_stats(rl->rec.pipe, &st.u.stats);
	st.u.stats.ts = rl->rec.last_ts;
	emit(&rl->rec, &st);
	pipeline_free(rl->rec.pipe);
	uint64_t shm_commits = 0, shm_bytes = 0, fd_messages = 0, waypipe = 0;
	if (rl->rec.acct) {
		wl_account_totals(rl->rec.acct, &shm_commits, &shm_bytes, &fd_messages, &waypipe);
		wl_account_free(rl->rec.acct);
	}
	int bad = trace_writer_free(rl->rec.w) < 0 || fclose(rl->rec.out) != 0 || rl->rec.failed;
	if (bad)
		die(EXIT_RUNTIME, "cannot write the trace: '%s'", trace_path);
	fflush(stdout);
	int failed = 0;
	if (!quiet) {
		printf("== delays\n\n");
		fflush(stdout);
		failed |= analyse((const char *const[]){ "xcapanalyse", "--delays", trace_path, NULL }, NULL) != 0;
		if (stacks) {
			printf("\n== round trips by call site\n\n");
			fflush(stdout);
			failed |= analyse((const char *const[]){ "xcapanalyse", "--sites", trace_path, NULL },
					  NULL) != 0;
		}
		printf("\n");
	}
	if (report && write_report(report, trace_path, stacks, delay_ms, rate, argc, argv) < 0)
		complain("cannot write the report: %s: '%s'", strerror(errno), report);
	if (wayland)
		printf("wayland: %llu messages with descriptors; %llu shm commits made the compositor read %llu bytes"
		       " (waypipe would send %llu)\n",
		       (unsigned long long)fd_messages, (unsigned long long)shm_commits,
		       (unsigned long long)shm_bytes, (unsigned long long)waypipe);
	printf("trace: %s\n", trace_path);
	if (report)
		printf("report: %s\n", report);
	if (stacks)
		printf("call sites: %s\n", sites_path);
	free(rl);
	/* The application's status, unless it went well and the tables did not. */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && failed)
		return EXIT_RUNTIME;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : EXIT_RUNTIME;
}
