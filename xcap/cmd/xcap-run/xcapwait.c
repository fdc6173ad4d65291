/*
 * xcapwait.c — libxcapwait.so, the preload library xcap-run(1) gives the
 * application it measures: each time the client blocks in libxcb for an
 * answer (xcb_wait_for_reply, xcb_wait_for_reply64, xcb_request_check,
 * xcb_wait_for_special_event; Xlib's _XReply goes through them) it
 * appends one line to the file named by $XCAP_WAIT_LOG:
 *
 *   wait PORT SEQ START END<TAB>FRAME<TAB>FRAME...
 *
 * PORT is the client's own TCP port of the connection (what the relay
 * saw it connect from: the join with the trace's connection), 0 when the
 * connection is not TCP; SEQ the full sequence number of the request
 * waited on (0 for a special event); START and END CLOCK_REALTIME
 * seconds around the call (the clock the trace's times use).  FRAME is
 * "MODULE:FUNCTION+0xOFF" when the dynamic symbol table holds the
 * function the address is in, else "MODULE+0xOFF" (an offset in the
 * module), followed by "@0xADDR", the return address in the module's
 * own addresses (as its ELF file numbers them: what debug info is looked
 * up by).  The caller of the wait comes first.  The first time a module
 * appears, a line
 *
 *   module MODULE PATH
 *
 * comes before the wait line, so that the reader can find the module's
 * debug info and name each frame's source file and line (xcapanalyse
 * does that when it reads the file: the client pays only for dladdr).
 * Which
 * frames are wrappers (libxcb, Xlib) is the reader's business
 * (xcapanalyse --sites), so that the rule lives in one place.
 *
 * libwayland-client's blocking calls are written the same way (see
 * "libwayland-client" below).
 *
 * Nothing here may hang or end the client: a failure to log drops the
 * line.  Each line is written with one write(2) on an O_APPEND file, so
 * threads' lines do not interleave.
 *
 * Belongs to: the xcap-run command's room (xcap/cmd/xcap-run/).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* libxcb's types, opaque here: no build dependency on its headers. */
typedef struct xcb_connection_t xcb_connection_t;
typedef struct xcb_generic_error_t xcb_generic_error_t;
typedef struct xcb_special_event xcb_special_event_t;
typedef struct { unsigned int sequence; } xcb_void_cookie_t;

#define MAX_FRAMES 40

static int log_fd = -2;	/* -2 not opened yet, -1 none */
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int log_open(void)
{
	pthread_mutex_lock(&open_lock);
	if (log_fd == -2) {
		const char *path = getenv("XCAP_WAIT_LOG");
		log_fd = path && *path ? open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) : -1;
	}
	pthread_mutex_unlock(&open_lock);
	return log_fd;
}

/* The client's port of c's socket, 0 when it is not TCP. */
static unsigned client_port(xcb_connection_t *c)
{
	static int (*get_fd)(xcb_connection_t *);
	if (!get_fd)
		*(void **)&get_fd = dlsym(RTLD_DEFAULT, "xcb_get_file_descriptor");
	if (!get_fd || !c)
		return 0;
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	if (getsockname(get_fd(c), (struct sockaddr *)&ss, &len) != 0)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return 0;
}

/* Frames already named, by address: dladdr scans a module's symbol
   table, and the same few hundred return addresses come back on every
   wait of a start-up (the benchmark, tests/bench-run.sh, showed it).
   A module unloaded and another loaded at its address would keep the
   first one's names; toolkits do not unload their X libraries. */
#define NAMED_SLOTS 4096
static struct named {
	void *addr;
	char *text;
} named[NAMED_SLOTS];
static pthread_mutex_t named_lock = PTHREAD_MUTEX_INITIALIZER;

static void name_frame(void *a, char *one, size_t size);

/* Append "\tFRAME" for address a to buf at *at, bounded by cap. */
static void put_frame(char *buf, size_t cap, size_t *at, void *a)
{
	char one[512];
	size_t h = ((uintptr_t)a >> 2) * 2654435761u % NAMED_SLOTS;
	pthread_mutex_lock(&named_lock);
	for (size_t i = 0; i < 8; i++) {
		struct named *e = &named[(h + i) % NAMED_SLOTS];
		if (e->addr == a) {
			snprintf(one, sizeof one, "%s", e->text);
			goto found;
		}
		if (!e->addr) {
			name_frame(a, one, sizeof one);
			/* Out of memory: the frame is named again next time. */
			if ((e->text = strdup(one)))
				e->addr = a;
			goto found;
		}
	}
	name_frame(a, one, sizeof one);
found:
	pthread_mutex_unlock(&named_lock);
	size_t n = strlen(one);
	if (*at + n < cap) {
		memcpy(buf + *at, one, n);
		*at += n;
	}
}

/* A C++ name as people read it, without its parameters
   ("QXcbConnection::sync"), into out; false when it is not one or the
   program has no C++ runtime to demangle it (C programs: nothing to do). */
static bool demangled(const char *name, char *out, size_t size)
{
	static char *(*demangle)(const char *, char *, size_t *, int *);
	static int looked;
	if (strncmp(name, "_Z", 2) != 0)
		return false;
	if (!looked) {
		*(void **)&demangle = dlsym(RTLD_DEFAULT, "__cxa_demangle");
		looked = 1;
	}
	int status = -1;
	char *d = demangle ? demangle(name, NULL, NULL, &status) : NULL;
	if (!d || status != 0) {
		free(d);
		return false;
	}
	/* The parameter list is the last top-level '(' group. */
	size_t n = strlen(d), cut = n;
	int depth = 0;
	for (size_t i = n; i > 0; i--) {
		char c = d[i - 1];
		if (c == ')')
			depth++;
		else if (c == '(' && --depth == 0) {
			cut = i - 1;
			break;
		}
	}
	snprintf(out, size, "%.*s", (int)cut, d);
	free(d);
	return true;
}

/* Modules whose "module" line was written (under named_lock). */
#define MODULES_MAX 512
static const struct link_map *modules_told[MODULES_MAX];
static size_t n_modules_told;

/* Write "module NAME PATH" the first time map appears. */
static void tell_module(const struct link_map *map, const char *name)
{
	for (size_t i = 0; i < n_modules_told; i++)
		if (modules_told[i] == map)
			return;
	if (n_modules_told == MODULES_MAX)
		return;
	modules_told[n_modules_told++] = map;
	char path[4096];
	const char *file = map->l_name;
	if (!file || !*file) {	/* the program itself */
		ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
		if (n <= 0)
			return;
		path[n] = '\0';
		file = path;
	}
	char line[4096 + 300];
	int n = snprintf(line, sizeof line, "module %s %s\n", name, file);
	if (n > 0 && (size_t)n < sizeof line && !strchr(file, '\n')) {
		ssize_t w = write(log_fd, line, (size_t)n);
		(void)w;
	}
}

/* "\tMODULE:FUNCTION+0xOFF@0xADDR" or "\tMODULE+0xOFF@0xADDR" for return
   address a. */
static void name_frame(void *a, char *one, size_t size)
{
	Dl_info info;
	const ElfW(Sym) *sym = NULL;
	struct link_map *map = NULL;
	/* A return address points past the call: look up the byte before it,
	   or a call that ends a function would be put in the next one. */
	void *in = (char *)a - 1;
	if (!dladdr1(in, &info, (void **)&sym, RTLD_DL_SYMENT) || !info.dli_fname) {
		snprintf(one, size, "\t?+%p", a);
	} else {
		const char *mod = strrchr(info.dli_fname, '/');
		mod = mod ? mod + 1 : info.dli_fname;
		if (!*mod)
			mod = "main";
		/* The module's load bias (l_addr): the address less it is the
		   one in the ELF file, whatever the module was loaded at. */
		char at[40] = "";
		if (dladdr1(in, &(Dl_info){0}, (void **)&map, RTLD_DL_LINKMAP) && map) {
			snprintf(at, sizeof at, "@0x%lx", (unsigned long)((uintptr_t)a - map->l_addr));
			if (!strchr(mod, ' '))
				tell_module(map, mod);
		}
		uintptr_t off = (uintptr_t)a - (uintptr_t)info.dli_saddr;
		/* dladdr names the nearest dynamic symbol before the address;
		   past its size the address is in a function the table does not
		   hold (a static one), and naming the symbol would lie. */
		char cxx[256];
		if (info.dli_sname && sym && (sym->st_size == 0 || off <= sym->st_size))
			snprintf(one, size, "\t%s:%s+0x%lx%s", mod,
				 demangled(info.dli_sname, cxx, sizeof cxx) ? cxx : info.dli_sname,
				 (unsigned long)off, at);
		else
			snprintf(one, size, "\t%s+0x%lx%s", mod,
				 (unsigned long)((uintptr_t)a - (uintptr_t)info.dli_fbase), at);
	}
}

__attribute__((noinline))
static void record(xcb_connection_t *c, uint64_t seq, double start, double end)
{
	if (log_open() < 0)
		return;
	void *frames[MAX_FRAMES];
	int n = backtrace(frames, MAX_FRAMES);
	char buf[MAX_FRAMES * 160 + 128];
	size_t at = (size_t)snprintf(buf, sizeof buf, "wait %u %llu %.9f %.9f", client_port(c),
				     (unsigned long long)seq, start, end);
	/* frames[0] is record(), frames[1] the interposed wait: the caller
	   of the wait is frames[2]. */
	for (int i = 2; i < n; i++)
		put_frame(buf, sizeof buf - 1, &at, frames[i]);
	buf[at++] = '\n';
	ssize_t w = write(log_fd, buf, at);
	(void)w;
}

/* The next definition of name, or exit: a wait that cannot be forwarded
   would hang the client. */
static void *next(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (!f) {
		fprintf(stderr, "xcapwait: cannot find the real %s\n", name);
		_exit(127);
	}
	return f;
}

__attribute__((noinline))
void *xcb_wait_for_reply(xcb_connection_t *c, unsigned int request, xcb_generic_error_t **e)
{
	static void *(*real)(xcb_connection_t *, unsigned int, xcb_generic_error_t **);
	if (!real)
		*(void **)&real = next("xcb_wait_for_reply");
	double start = now();
	void *reply = real(c, request, e);
	record(c, request, start, now());
	return reply;
}

__attribute__((noinline))
void *xcb_wait_for_reply64(xcb_connection_t *c, uint64_t request, xcb_generic_error_t **e)
{
	static void *(*real)(xcb_connection_t *, uint64_t, xcb_generic_error_t **);
	if (!real)
		*(void **)&real = next("xcb_wait_for_reply64");
	double start = now();
	void *reply = real(c, request, e);
	record(c, request, start, now());
	return reply;
}

__attribute__((noinline))
xcb_generic_error_t *xcb_request_check(xcb_connection_t *c, xcb_void_cookie_t cookie)
{
	static xcb_generic_error_t *(*real)(xcb_connection_t *, xcb_void_cookie_t);
	if (!real)
		*(void **)&real = next("xcb_request_check");
	double start = now();
	xcb_generic_error_t *err = real(c, cookie);
	record(c, cookie.sequence, start, now());
	return err;
}

__attribute__((noinline))
void *xcb_wait_for_special_event(xcb_connection_t *c, xcb_special_event_t *se)
{
	static void *(*real)(xcb_connection_t *, xcb_special_event_t *);
	if (!real)
		*(void **)&real = next("xcb_wait_for_special_event");
	double start = now();
	void *ev = real(c, se);
	record(c, 0, start, now());
	return ev;
}

/* ---- libwayland-client ----
 *
 * A Wayland client blocks in wl_display_roundtrip(_queue) (a
 * wl_display.sync, then dispatching until its callback is done) and in
 * wl_display_dispatch(_queue) when no event is queued (it polls the
 * socket).  Each is written as a wait line like libxcb's:
 *
 *   wait PORT SEQ START END<TAB>FRAME...
 *
 * PORT is the port xcap-run's Wayland relay gives the connection in its
 * trace, made from the inode of the client's socket (the relay finds the
 * same inode as its peer: wlsocket.h), so the join is by port as for X11.
 * SEQ is, for a round trip, the number of its wl_display.sync among the
 * connection's requests (1, 2, ... as the trace's decoder counts them),
 * found by counting the messages libwayland sends on the socket
 * (sendmsg); for a dispatch that blocked, 0 (it waits for any event, as
 * xcb_wait_for_special_event).  A round trip's own dispatching is not
 * written again.
 *
 * A client may also wait in a main loop of its own (GTK 4's, Qt's): it
 * sends a wl_display.sync or get_registry, or the first wl_surface.commit
 * of an xdg_surface, and polls the socket itself (wl_display_prepare_read,
 * wl_display_read_events, wl_display_dispatch_queue_pending) until the
 * callback's done, the registry's first global, or the xdg_surface's
 * first configure, comes.  No call
 * of libwayland's blocks then, so the stack is taken where the request
 * is made (wl_proxy_marshal_array_flags, which every marshalling call of
 * libwayland 1.20 and later goes through), its message found on the wire
 * (sendmsg: the sync by its callback's id, get_registry by its
 * registry's, the commit by its surface's)
 * for SEQ, and a line written when its answer is read (recvmsg):
 *
 *   ask PORT SEQ START END<TAB>FRAME...
 *
 * START when the request was made, END when the answer came; the reader
 * prefers a wait line where both cover a round trip.  A request whose
 * message or answer is not seen writes nothing, and a wait with no such
 * request behind it gets no line.  The frames begin in libwayland-client
 * (the reader folds them).  The sync wl_display_roundtrip makes is its
 * own line already; those its listeners make while it dispatches (a
 * sync, or a round trip of their own) are the code's.
 */

struct wl_display;
struct wl_event_queue;

#define WLCONN_MAX 16
#define WL_SYNCS 64

struct wlconn {
	int fd;
	unsigned port;
	uint64_t msgs;			/* messages sent */
	uint8_t head[8];
	size_t hlen;
	uint32_t left;			/* bytes of the current message still to come */
	bool lost;			/* a header made no sense: counting stopped */
	uint64_t syncs[WL_SYNCS];	/* numbers of the last syncs sent */
	size_t nsyncs;
	struct wl_display *display;
	/* the events read, framed as the sent messages are */
	uint8_t rhead[8];
	size_t rhlen;
	uint32_t rleft;
	bool rlost;
};

/* A request that asks for an answer, made outside wl_display_roundtrip:
   its stack, until its message is sent (seq) and its answer read. */
#define WL_ASKS 32
struct wlask {
	struct wlconn *conn;
	uint32_t req_id, req_opcode;		/* its message: object, opcode */
	uint32_t ans_id, ans_opcode;		/* the event that answers it */
	uint64_t seq;				/* its number on the wire, 0 not sent yet */
	uint32_t wire_arg;			/* the first argument of that message */
	uint64_t serial;			/* which ask this slot holds */
	double start;
	int nframes;
	void *frames[MAX_FRAMES];
	bool live;
};
static struct wlask wlasks[WL_ASKS];
static uint64_t next_ask;

/* An xdg_surface made for a wl_surface whose first commit asks for its
   first configure. */
#define WL_UNCONFIGURED 16
static struct unconfigured {
	void *surface;		/* the wl_surface's proxy */
	struct wlconn *conn;
	uint32_t xdg_id;
} unconfigured[WL_UNCONFIGURED];
static struct wlconn wlconns[WLCONN_MAX];
static size_t n_wlconns;
static pthread_mutex_t wl_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int wl_depth;		/* inside an interposed wait */
static __thread bool wl_polled;		/* a dispatch polled: it blocked */
/* An interposed round trip is about to send its own sync (which its own
   line says); syncs its dispatching makes (listeners') are the code's. */
static __thread bool wl_roundtrip_sync;

/* libwayland-client's own definition of name, NULL when none.  A
   toolkit's plugin may load it in a scope of its own (Qt's, dlopened
   without RTLD_GLOBAL), where RTLD_NEXT does not look: then it is asked
   of the library loaded already. */
static void *wl_real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (!f) {
		void *lib = dlopen("libwayland-client.so.0", RTLD_LAZY | RTLD_NOLOAD);
		if (lib) {
			f = dlsym(lib, name);
			dlclose(lib);
		}
	}
	return f;
}

/* wl_real, or exit: a wait that cannot be forwarded would hang the
   client. */
static void *wl_next(const char *name)
{
	void *f = wl_real(name);
	if (!f) {
		fprintf(stderr, "xcapwait: cannot find the real %s\n", name);
		_exit(127);
	}
	return f;
}

static int (*real_get_fd(void))(struct wl_display *)
{
	static int (*get_fd)(struct wl_display *);
	if (!get_fd)
		*(void **)&get_fd = wl_real("wl_display_get_fd");
	return get_fd;
}

/* The relay's port for a socket: 1024 + its inode modulo 64512, the rule
   of xcap-run's wls_port_of_inode (wlsocket.h). */
static unsigned wl_port_of_fd(int fd)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return 0;
	return 1024 + (unsigned)(st.st_ino % 64512);
}

static struct wlconn *wl_find(int fd)
{
	for (size_t i = 0; i < n_wlconns; i++)
		if (wlconns[i].fd == fd)
			return &wlconns[i];
	return NULL;
}

/* A new connection on fd: counting starts with its first message. */
static void wl_register(struct wl_display *d)
{
	int (*get_fd)(struct wl_display *) = real_get_fd();
	if (!d || !get_fd)
		return;
	int fd = get_fd(d);
	pthread_mutex_lock(&wl_lock);
	struct wlconn *c = wl_find(fd);
	if (!c && n_wlconns < WLCONN_MAX)
		c = &wlconns[n_wlconns++];
	if (c) {
		for (size_t i = 0; i < WL_ASKS; i++)
			if (wlasks[i].conn == c)
				wlasks[i].live = false;
		for (size_t i = 0; i < WL_UNCONFIGURED; i++)
			if (unconfigured[i].conn == c)
				unconfigured[i].surface = NULL;
		memset(c, 0, sizeof *c);
		c->fd = fd;
		c->port = wl_port_of_fd(fd);
		c->display = d;
	}
	pthread_mutex_unlock(&wl_lock);
}

/* Count the messages in n bytes sent on c (under wl_lock). */
static void wl_count(struct wlconn *c, const uint8_t *p, size_t n)
{
	while (n && !c->lost) {
		if (c->left) {
			size_t k = n < c->left ? n : c->left;
			c->left -= (uint32_t)k;
			p += k;
			n -= k;
			continue;
		}
		size_t k = 8 - c->hlen < n ? 8 - c->hlen : n;
		memcpy(c->head + c->hlen, p, k);
		c->hlen += k;
		p += k;
		n -= k;
		if (c->hlen < 8)
			break;
		c->hlen = 0;
		uint32_t id, word;
		memcpy(&id, c->head, 4);
		memcpy(&word, c->head + 4, 4);
		uint32_t size = word >> 16;
		if (size < 8 || (size & 3)) {
			c->lost = true;
			break;
		}
		c->msgs++;
		if (id == 1 && (word & 0xffff) == 0)	/* wl_display.sync */
			c->syncs[c->nsyncs++ % WL_SYNCS] = c->msgs;
		c->left = size - 8;
		/* A request of ours: the first of its object and opcode sent
		   since it was made (a sync: the one making its callback, the
		   argument that follows). */
		uint32_t arg = 0;
		if (n >= 4 && size >= 12)
			memcpy(&arg, p, 4);
		struct wlask *first = NULL;
		for (size_t i = 0; i < WL_ASKS; i++) {
			struct wlask *a = &wlasks[i];
			if (!a->live || a->seq || a->conn != c || a->req_id != id ||
			    a->req_opcode != (word & 0xffff))
				continue;
			if (a->ans_id && id == 1 && arg != a->ans_id)
				continue;	/* the one making its callback (registry) */
			if (!first || a->serial < first->serial)
				first = a;
		}
		if (first) {
			first->seq = c->msgs;
			first->wire_arg = arg;
		}
	}
}

/* The answers among n bytes read on c (under wl_lock): each ask it
   answers is copied to done (up to max) and let go.  The count. */
static size_t wl_answers(struct wlconn *c, const uint8_t *p, size_t n, struct wlask *done, size_t max)
{
	size_t nd = 0;
	while (n && !c->rlost) {
		if (c->rleft) {
			size_t k = n < c->rleft ? n : c->rleft;
			c->rleft -= (uint32_t)k;
			p += k;
			n -= k;
			continue;
		}
		size_t k = 8 - c->rhlen < n ? 8 - c->rhlen : n;
		memcpy(c->rhead + c->rhlen, p, k);
		c->rhlen += k;
		p += k;
		n -= k;
		if (c->rhlen < 8)
			break;
		c->rhlen = 0;
		uint32_t id, word;
		memcpy(&id, c->rhead, 4);
		memcpy(&word, c->rhead + 4, 4);
		uint32_t size = word >> 16;
		if (size < 8 || (size & 3)) {
			c->rlost = true;
			break;
		}
		c->rleft = size - 8;
		for (size_t i = 0; i < WL_ASKS; i++) {
			struct wlask *a = &wlasks[i];
			if (!a->live || a->conn != c || a->ans_id != id || a->ans_opcode != (word & 0xffff))
				continue;
			/* an answer to a request never seen sent is no one's */
			if (a->seq && !c->lost && nd < max)
				done[nd++] = *a;
			a->live = false;
		}
	}
	return nd;
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	static ssize_t (*real)(int, const struct msghdr *, int);
	if (!real)
		*(void **)&real = next("sendmsg");
	ssize_t sent = real(fd, msg, flags);
	if (sent <= 0 || !n_wlconns)
		return sent;
	pthread_mutex_lock(&wl_lock);
	struct wlconn *c = wl_find(fd);
	size_t left = (size_t)sent;
	for (size_t i = 0; c && left && i < (size_t)msg->msg_iovlen; i++) {
		size_t k = msg->msg_iov[i].iov_len < left ? msg->msg_iov[i].iov_len : left;
		wl_count(c, msg->msg_iov[i].iov_base, k);
		left -= k;
	}
	pthread_mutex_unlock(&wl_lock);
	return sent;
}

static void record_ask(const struct wlask *a, double end);

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	static ssize_t (*real)(int, struct msghdr *, int);
	if (!real)
		*(void **)&real = next("recvmsg");
	ssize_t got = real(fd, msg, flags);
	if (got <= 0 || !n_wlconns || (flags & MSG_PEEK))
		return got;
	struct wlask done[4];
	size_t nd = 0;
	pthread_mutex_lock(&wl_lock);
	struct wlconn *c = wl_find(fd);
	size_t left = (size_t)got;
	for (size_t i = 0; c && left && i < (size_t)msg->msg_iovlen; i++) {
		size_t k = msg->msg_iov[i].iov_len < left ? msg->msg_iov[i].iov_len : left;
		nd += wl_answers(c, msg->msg_iov[i].iov_base, k, done + nd, 4 - nd);
		left -= k;
	}
	pthread_mutex_unlock(&wl_lock);
	double end = now();
	for (size_t i = 0; i < nd; i++)
		record_ask(&done[i], end);
	return got;
}

/* libwayland's own proxy functions, asked once. */
static uint32_t proxy_id(void *proxy)
{
	static uint32_t (*get_id)(void *);
	if (!get_id)
		*(void **)&get_id = wl_real("wl_proxy_get_id");
	return get_id && proxy ? get_id(proxy) : 0;
}
static const char *proxy_class(void *proxy)
{
	static const char *(*get_class)(void *);
	if (!get_class)
		*(void **)&get_class = wl_real("wl_proxy_get_class");
	const char *name = get_class && proxy ? get_class(proxy) : NULL;
	return name ? name : "";
}

/* The connection a proxy belongs to (under wl_lock): the only one, or
   the one whose display the proxy names (struct wl_proxy begins with its
   struct wl_object, three words, then its display: libwayland's layout
   since 1.0, checked against the displays known). */
static struct wlconn *wl_conn_of_proxy(void *proxy)
{
	if (n_wlconns == 1)
		return &wlconns[0];
	struct wl_display *d;
	memcpy(&d, (char *)proxy + 3 * sizeof(void *), sizeof d);
	for (size_t i = 0; i < n_wlconns; i++)
		if (wlconns[i].display == d)
			return &wlconns[i];
	return NULL;
}

/* A request that asks, about to be made with this stack: kept until it
   is sent and answered (under wl_lock).  Its serial. */
static uint64_t wl_ask(struct wlconn *c, uint32_t req_id, uint32_t req_opcode, uint32_t ans_id,
		       uint32_t ans_opcode, void *const *frames, int nframes)
{
	uint64_t serial = ++next_ask;
	struct wlask *a = &wlasks[serial % WL_ASKS];
	*a = (struct wlask){ .conn = c, .req_id = req_id, .req_opcode = req_opcode,
			     .ans_id = ans_id, .ans_opcode = ans_opcode, .serial = serial,
			     .start = now(), .live = true };
	a->nframes = nframes < 0 ? 0 : nframes > MAX_FRAMES ? MAX_FRAMES : nframes;
	memcpy(a->frames, frames, sizeof *frames * (size_t)a->nframes);
	return serial;
}

union wl_argument_opaque {
	int32_t i;
	uint32_t u;
	const char *s;
	void *o;
	uint32_t n;
	void *a;
	int32_t h;
};

/* The opcodes this needs, fixed by the protocols' XML: wl_display.sync
   and get_registry, wl_surface.commit, xdg_wm_base.get_xdg_surface (its surface the second
   argument), and the events wl_callback.done, wl_registry.global and
   xdg_surface.configure. */
enum { OP_SYNC = 0, OP_GET_REGISTRY = 1, OP_COMMIT = 6, OP_GET_XDG_SURFACE = 2, EV_DONE = 0,
       EV_GLOBAL = 0, EV_CONFIGURE = 0 };

__attribute__((noinline))
void *wl_proxy_marshal_array_flags(void *proxy, uint32_t opcode, const void *interface,
				   uint32_t version, uint32_t flags, union wl_argument_opaque *args)
{
	static void *(*real)(void *, uint32_t, const void *, uint32_t, uint32_t,
			     union wl_argument_opaque *);
	if (!real)
		*(void **)&real = wl_next("wl_proxy_marshal_array_flags");
	if (!n_wlconns || log_open() < 0)
		return real(proxy, opcode, interface, version, flags, args);
	const char *cls = proxy_class(proxy);
	bool sync = opcode == OP_SYNC && strcmp(cls, "wl_display") == 0;
	if (sync && wl_roundtrip_sync) {
		wl_roundtrip_sync = false;
		return real(proxy, opcode, interface, version, flags, args);
	}
	bool registry = opcode == OP_GET_REGISTRY && strcmp(cls, "wl_display") == 0;
	bool get_xdg = opcode == OP_GET_XDG_SURFACE && strcmp(cls, "xdg_wm_base") == 0;
	bool commit = opcode == OP_COMMIT && strcmp(cls, "wl_surface") == 0;
	if (!sync && !registry && !get_xdg && !commit)
		return real(proxy, opcode, interface, version, flags, args);
	/* the surface argument of get_xdg_surface, read before the call */
	void *surface = get_xdg && args ? args[1].o : NULL;
	void *frames[MAX_FRAMES];
	int nframes = sync || registry || commit ? backtrace(frames, MAX_FRAMES) : 0;
	/* The ask is made before the call, which may send the message
	   (libwayland flushes a full buffer): frames[0] is this function,
	   libwayland's marshalling and then the code that asked follow. */
	uint64_t serial = 0;
	pthread_mutex_lock(&wl_lock);
	struct wlconn *c = wl_conn_of_proxy(proxy);
	if (c && (sync || registry)) {
		/* the id of its callback (registry) is known after the call */
		serial = wl_ask(c, 1, opcode, 0, sync ? EV_DONE : EV_GLOBAL, frames + 1, nframes - 1);
	} else if (c && commit) {
		for (size_t i = 0; i < WL_UNCONFIGURED; i++)
			if (unconfigured[i].surface == proxy && unconfigured[i].conn == c) {
				wl_ask(c, proxy_id(proxy), OP_COMMIT, unconfigured[i].xdg_id, EV_CONFIGURE,
				       frames + 1, nframes - 1);
				unconfigured[i].surface = NULL;
				break;
			}
	}
	pthread_mutex_unlock(&wl_lock);
	void *made = real(proxy, opcode, interface, version, flags, args);
	if (!c || (!serial && !get_xdg))
		return made;
	pthread_mutex_lock(&wl_lock);
	if (serial) {
		struct wlask *a = &wlasks[serial % WL_ASKS];
		uint32_t cb = made ? proxy_id(made) : 0;
		if (a->serial == serial && a->live) {
			a->ans_id = cb;
			/* another thread's request went first: not ours */
			if (!cb || (a->seq && a->wire_arg != cb))
				a->live = false;
		}
	} else if (made && surface) {
		for (size_t i = 0; i < WL_UNCONFIGURED; i++)
			if (!unconfigured[i].surface) {
				unconfigured[i] = (struct unconfigured){ surface, c, proxy_id(made) };
				break;
			}
	}
	pthread_mutex_unlock(&wl_lock);
	return made;
}

/* The connection of d: its port, and its message count now. */
static unsigned wl_state(struct wl_display *d, uint64_t *msgs)
{
	int (*get_fd)(struct wl_display *) = real_get_fd();
	*msgs = 0;
	if (!d || !get_fd)
		return 0;
	int fd = get_fd(d);
	pthread_mutex_lock(&wl_lock);
	struct wlconn *c = wl_find(fd);
	unsigned port = c ? c->port : wl_port_of_fd(fd);
	if (c)
		*msgs = c->msgs;
	pthread_mutex_unlock(&wl_lock);
	return port;
}

/* The first sync d sent after its message count was before. */
static uint64_t wl_sync_after(struct wl_display *d, uint64_t before)
{
	int (*get_fd)(struct wl_display *) = real_get_fd();
	uint64_t seq = 0;
	pthread_mutex_lock(&wl_lock);
	struct wlconn *c = get_fd ? wl_find(get_fd(d)) : NULL;
	for (size_t i = 0; c && !c->lost && i < c->nsyncs && i < WL_SYNCS; i++) {
		uint64_t s = c->syncs[(c->nsyncs - 1 - i) % WL_SYNCS];
		if (s > before)
			seq = s;
		else
			break;
	}
	pthread_mutex_unlock(&wl_lock);
	return seq;
}

/* record() for a Wayland wait: the same line, caller first. */
__attribute__((noinline))
static void record_wl(unsigned port, uint64_t seq, double start, double end)
{
	if (log_open() < 0)
		return;
	void *frames[MAX_FRAMES];
	int n = backtrace(frames, MAX_FRAMES);
	char buf[MAX_FRAMES * 160 + 128];
	size_t at = (size_t)snprintf(buf, sizeof buf, "wait %u %llu %.9f %.9f", port,
				     (unsigned long long)seq, start, end);
	/* frames[0] is record_wl(), frames[1] the interposed call */
	for (int i = 2; i < n; i++)
		put_frame(buf, sizeof buf - 1, &at, frames[i]);
	buf[at++] = '\n';
	ssize_t w = write(log_fd, buf, at);
	(void)w;
}

/* The line of an answered ask: its request's stack, from when it was
   made to when its answer was read. */
static void record_ask(const struct wlask *a, double end)
{
	if (log_open() < 0)
		return;
	char buf[MAX_FRAMES * 160 + 128];
	size_t at = (size_t)snprintf(buf, sizeof buf, "ask %u %llu %.9f %.9f", a->conn->port,
				     (unsigned long long)a->seq, a->start, end);
	for (int i = 0; i < a->nframes; i++)
		put_frame(buf, sizeof buf - 1, &at, a->frames[i]);
	buf[at++] = '\n';
	ssize_t w = write(log_fd, buf, at);
	(void)w;
}

__attribute__((noinline))
struct wl_display *wl_display_connect(const char *name)
{
	static struct wl_display *(*real)(const char *);
	if (!real)
		*(void **)&real = wl_next("wl_display_connect");
	wl_depth++;
	struct wl_display *d = real(name);
	wl_depth--;
	if (!wl_depth)
		wl_register(d);
	return d;
}

__attribute__((noinline))
struct wl_display *wl_display_connect_to_fd(int fd)
{
	static struct wl_display *(*real)(int);
	if (!real)
		*(void **)&real = wl_next("wl_display_connect_to_fd");
	wl_depth++;
	struct wl_display *d = real(fd);
	wl_depth--;
	if (!wl_depth)
		wl_register(d);
	return d;
}

/* A round trip through real_q (with q) or real, the other NULL: timed, and
   recorded with the sync it waited for unless it is inside another call
   of ours (libwayland's roundtrip calls roundtrip_queue).  Always inlined:
   record_wl's backtrace takes the frame below it for the interposer. */
static inline __attribute__((always_inline)) int
roundtrip(struct wl_display *d, struct wl_event_queue *q,
	  int (*real_q)(struct wl_display *, struct wl_event_queue *),
	  int (*real)(struct wl_display *))
{
	uint64_t before;
	unsigned port = wl_state(d, &before);
	double start = now();
	wl_depth++;
	/* A round trip a listener makes inside another's dispatching is
	   not written as a wait (the outer one is): its sync is an ask. */
	bool outer = wl_depth == 1;
	if (outer)
		wl_roundtrip_sync = true;
	int rc = real_q ? real_q(d, q) : real(d);
	if (outer)
		wl_roundtrip_sync = false;
	wl_depth--;
	if (!wl_depth)
		record_wl(port, wl_sync_after(d, before), start, now());
	return rc;
}

__attribute__((noinline))
int wl_display_roundtrip_queue(struct wl_display *d, struct wl_event_queue *q)
{
	static int (*real)(struct wl_display *, struct wl_event_queue *);
	if (!real)
		*(void **)&real = wl_next("wl_display_roundtrip_queue");
	return roundtrip(d, q, real, NULL);
}

__attribute__((noinline))
int wl_display_roundtrip(struct wl_display *d)
{
	static int (*real)(struct wl_display *);
	if (!real)
		*(void **)&real = wl_next("wl_display_roundtrip");
	return roundtrip(d, NULL, NULL, real);
}

/* A dispatch through real_q (with q) or real, the other NULL: recorded
   when the outermost call waited in poll (below).  Always inlined, as
   roundtrip(). */
static inline __attribute__((always_inline)) int
dispatch(struct wl_display *d, struct wl_event_queue *q,
	 int (*real_q)(struct wl_display *, struct wl_event_queue *),
	 int (*real)(struct wl_display *))
{
	uint64_t before;
	unsigned port = wl_state(d, &before);
	double start = now();
	bool outer = !wl_depth;
	if (outer)
		wl_polled = false;
	wl_depth++;
	int rc = real_q ? real_q(d, q) : real(d);
	wl_depth--;
	if (outer && wl_polled)
		record_wl(port, 0, start, now());
	return rc;
}

__attribute__((noinline))
int wl_display_dispatch_queue(struct wl_display *d, struct wl_event_queue *q)
{
	static int (*real)(struct wl_display *, struct wl_event_queue *);
	if (!real)
		*(void **)&real = wl_next("wl_display_dispatch_queue");
	return dispatch(d, q, real, NULL);
}

__attribute__((noinline))
int wl_display_dispatch(struct wl_display *d)
{
	static int (*real)(struct wl_display *);
	if (!real)
		*(void **)&real = wl_next("wl_display_dispatch");
	return dispatch(d, NULL, NULL, real);
}

/* libwayland's dispatch waits in poll when nothing is queued: that is
   when it blocked.  Elsewhere poll passes straight through. */
int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	static int (*real)(struct pollfd *, nfds_t, int);
	if (!real)
		*(void **)&real = next("poll");
	if (wl_depth)
		wl_polled = true;
	return real(fds, n, timeout);
}
