/*
 * xcap-link — an emulated network link between two network namespaces.
 *
 * For kernels without sch_netem: one tun device in each namespace, and
 * this program between them.  Every packet read from one side goes
 * through a model of the link in that direction and is written to the
 * other side's tun device when the model says it arrives:
 *
 *   serialisation starts  = max(now, the previous packet's end)
 *   serialisation ends    = start + len * 8 / rate
 *   release (arrival)     = end + delay
 *
 * Bytes not yet serialised form the queue; a packet that would take it
 * past the limit is dropped at the tail.  Random loss, seeded, comes
 * first, so lost packets take no link time.  Release times only grow
 * within a direction, so each direction is a FIFO: a byte ring holds the
 * packets (read straight into it, no allocation per packet) and the loop
 * sleeps in ppoll until the next release or the next packet.
 *
 * Belongs to: the xcap-link command's room (xcap/cmd/xcap-link/).
 */
#include "config.h"
#include "clock.h"
#include "report.h"
#include "units.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

const char program_name[] = "xcap-link";

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

#define NS_PER_S 1000000000ull
#define MAX_RATE 1000000000000ull	/* 1 Tbit/s keeps len*8e9 + rem in 64 bits */
#define DEFAULT_MTU 1500
#define DEFAULT_QUEUE_PACKETS 100
#define READ_BATCH 64			/* packets per device before releases are looked at again */
#define RING_MAX (1ull << 30)
#define REALTIME_PRIORITY 10
#define SPIN_EXTRA 10000ull		/* ns polled before a release beyond the lateness seen */
#define SPIN_MAX 2000000ull		/* never poll for longer than this */
#define SPIN_BUDGET_SHARE 4		/* polling may take 1/4 of the time... */
#define SPIN_BUDGET_MAX 10000000	/* ...saved up to 10 ms */
#define UNLIMITED_RATE_GUESS 10000000000ull	/* sizes the delay line when the rate is unlimited */

static void usage(FILE *f)
{
	fprintf(f,
"usage: xcap-link --ns-a NS --ns-b NS [--dev-a NAME] [--dev-b NAME]\n"
"                 [--rate BPS[,BPS]] [--latency MS[,MS]] [--queue BYTES]\n"
"                 [--loss PCT] [--seed N] [--mtu N] [--ready FILE]\n"
"                 [--realtime] [-q]\n"
"       xcap-link --check [--rate BPS[,BPS]] [--latency MS[,MS]] [--queue BYTES]\n"
"\n"
"Emulate a link between two network namespaces with a tun device in each.\n"
"\n"
"  --ns-a NS, --ns-b NS  the two sides: a name under /run/netns, or a path\n"
"  --dev-a, --dev-b NAME tun device names (default xlink-a, xlink-b)\n"
"  --rate BPS[,BPS]      bits per second (10M, 250k, 1.5Mbit/s; man xcap, UNITS);\n"
"                        0 = unlimited (default); the second value is B->A\n"
"  --latency MS[,MS]     one-way latency, milliseconds or with a unit (40ms,\n"
"                        1.5s, 100us); --delay is its older name\n"
"  --queue BYTES         bytes waiting for serialisation per direction before\n"
"                        tail drop (64k, 1M: powers of 1024; default 100\n"
"                        packets of MTU)\n"
"  --check               print the link the options describe (bit/s, ns,\n"
"                        bytes) and exit; makes nothing, needs no privilege\n"
"  --loss PCT            drop this percentage of packets at random\n"
"  --seed N              seed for the loss generator (default 1)\n"
"  --mtu N               device MTU (default 1500)\n"
"  --ready FILE          write \"ready\" to FILE once both devices are up\n"
"  --realtime            run at real-time priority (SCHED_FIFO) for timing\n"
"                        that holds up when the machine is busy\n"
"  -q, --quiet           do not print the start line and the summary\n"
"  -h, --help            show this help;  -V, --version  show the version\n"
"\n"
"SIGINT and SIGTERM stop the link; the devices go with the program.\n"
"Exit status: 0 success, 1 setup or I/O failure, 2 usage error.\n"
"\n"
"Examples:\n"
"  ip netns add client; ip netns add server\n"
"  xcap-link --ns-a client --ns-b server --rate 1M --latency 20 &   1 Mbit/s, 20 ms each way\n"
"  xcap-link --ns-a home --ns-b isp --rate 1M,8M --latency 15 --loss 1   asymmetric, 1 %% loss\n");
}

/* ---- the packet ring: variable-size records in one preallocated buffer ---- */

struct rec {
	uint64_t release;	/* CLOCK_MONOTONIC ns */
	uint32_t len;
	uint32_t wrap;		/* 1: no record here, the next one is at offset 0 */
};
#define REC_ALIGN 16u
#define REC_SPAN(len) (sizeof(struct rec) + (((size_t)(len) + REC_ALIGN - 1) & ~(size_t)(REC_ALIGN - 1)))

struct ring {
	unsigned char *buf;
	size_t size;		/* a multiple of REC_ALIGN */
	size_t head, tail;	/* write and read offsets */
	size_t count;		/* records (not wrap marks) held */
};

static void ring_init(struct ring *r, size_t size)
{
	size = (size + 63) & ~(size_t)63;
	r->buf = aligned_alloc(64, size);
	if (!r->buf)
		die(EXIT_RUNTIME, "cannot allocate the packet ring: %s: '%zu bytes'",
		    strerror(errno), size);
	r->size = size;
	r->head = r->tail = r->count = 0;
}

/* Room for a record of up to maxlen bytes at the head, or NULL when full.
 * May leave a wrap mark at the old head; that is harmless if the caller
 * then commits nothing. */
static struct rec *ring_reserve(struct ring *r, size_t maxlen)
{
	size_t need = REC_SPAN(maxlen);
	if (r->count == 0)
		r->head = r->tail = 0;
	if (r->count == 0 || r->head > r->tail) {
		if (r->size - r->head >= need)
			return (struct rec *)(r->buf + r->head);
		if (r->count == 0 || r->tail < need)
			return NULL;
		struct rec *mark = (struct rec *)(r->buf + r->head);
		mark->wrap = 1;
		mark->len = 0;
		r->head = 0;
		return (struct rec *)r->buf;
	}
	if (r->tail - r->head >= need)
		return (struct rec *)(r->buf + r->head);
	return NULL;
}

static void ring_commit(struct ring *r, struct rec *rec, uint64_t release, size_t len)
{
	rec->release = release;
	rec->len = (uint32_t)len;
	rec->wrap = 0;
	r->head += REC_SPAN(len);
	if (r->head == r->size)
		r->head = 0;
	r->count++;
}

static struct rec *ring_peek(struct ring *r)
{
	if (r->count == 0)
		return NULL;
	struct rec *rec = (struct rec *)(r->buf + r->tail);
	if (rec->wrap) {
		r->tail = 0;
		rec = (struct rec *)r->buf;
	}
	return rec;
}

static void ring_pop(struct ring *r, const struct rec *rec)
{
	r->tail += REC_SPAN(rec->len);
	if (r->tail == r->size)
		r->tail = 0;
	r->count--;
}

/* ---- one direction of the link ---- */

struct dir {
	const char *label;		/* "A->B" */
	const char *in_dev;		/* for messages */
	const char *out_dev;
	int in, out;			/* tun fds */
	uint64_t rate;			/* bit/s, 0 = unlimited */
	uint64_t delay;			/* ns */
	uint64_t queue;			/* bytes */
	uint64_t loss_threshold;	/* lost if rand < this */
	int loss_all, loss_on;
	uint64_t rng;
	uint64_t ser_end;		/* when the last accepted packet is serialised */
	uint64_t ser_rem;		/* bit-ns left over from rounding to whole ns */
	struct ring ring;
	uint64_t packets, bytes, dropped, lost, oversize, errors;
	uint64_t late_sum, late_max;	/* release lateness, ns */
};

static unsigned mtu = DEFAULT_MTU;
static unsigned char scratch[65536 + REC_ALIGN];	/* reads when the ring is full */

/* splitmix64: small, seeded, the same sequence everywhere. */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Read what the sending side has queued (up to a batch), into the model. */
static void ingest(struct dir *d)
{
	for (int k = 0; k < READ_BATCH; k++) {
		struct rec *rec = ring_reserve(&d->ring, mtu + 1);
		unsigned char *buf = rec ? (unsigned char *)(rec + 1) : scratch;
		ssize_t n = read(d->in, buf, mtu + 1);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			if (errno == EINTR)
				continue;
			die(EXIT_RUNTIME, "cannot read from the tun device: %s: '%s'",
			    strerror(errno), d->in_dev);
		}
		uint64_t now = clock_ns(CLOCK_MONOTONIC);
		if (n == 0)
			continue;
		if ((size_t)n > mtu) {
			d->oversize++;
			continue;
		}
		if (d->loss_on && (d->loss_all || next_rand(&d->rng) < d->loss_threshold)) {
			d->lost++;
			continue;
		}
		uint64_t start = now, end = now;
		if (d->rate) {
			if (d->ser_end > now) {
				double waiting = (double)(d->ser_end - now) * (double)d->rate / 8e9;
				if (waiting + (double)n > (double)d->queue) {
					d->dropped++;
					continue;
				}
				start = d->ser_end;
			} else {
				d->ser_rem = 0;
			}
			uint64_t num = (uint64_t)n * 8 * NS_PER_S + d->ser_rem;
			end = start + num / d->rate;
			if (!rec) {	/* the ring is full: the buffer limit is reached */
				d->dropped++;
				continue;
			}
			d->ser_rem = num % d->rate;
			d->ser_end = end;
		} else if (!rec) {
			d->dropped++;
			continue;
		}
		ring_commit(&d->ring, rec, end + d->delay, (size_t)n);
	}
}

/* Write out everything due by now. */
static void release(struct dir *d, uint64_t now)
{
	struct rec *rec;
	while ((rec = ring_peek(&d->ring)) && rec->release <= now) {
		ssize_t w = write(d->out, rec + 1, rec->len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			d->errors++;
		} else {
			d->packets++;
			d->bytes += rec->len;
			uint64_t late = now - rec->release;
			d->late_sum += late;
			if (late > d->late_max)
				d->late_max = late;
		}
		ring_pop(&d->ring, rec);
	}
}

static uint64_t next_release(struct dir *d)
{
	struct rec *rec = ring_peek(&d->ring);
	return rec ? rec->release : UINT64_MAX;
}

/* ---- setting up a side: a tun device inside a namespace ---- */

static int open_side(const char *ns, const char *dev, int home)
{
	char path[PATH_MAX];
	if (strchr(ns, '/'))
		snprintf(path, sizeof path, "%s", ns);
	else if ((size_t)snprintf(path, sizeof path, "/run/netns/%s", ns) >= sizeof path)
		die(EXIT_USAGE, "namespace name too long: '%s'", ns);
	int nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0)
		die(EXIT_RUNTIME, "cannot open namespace: %s: '%s'", strerror(errno), ns);
	if (setns(nsfd, CLONE_NEWNET) < 0)
		die(EXIT_RUNTIME, "cannot enter namespace: %s: '%s'", strerror(errno), ns);
	close(nsfd);

	/* The tun device belongs to the namespace /dev/net/tun is opened in. */
	int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		die(EXIT_RUNTIME, "cannot open the tun driver: %s: '%s'", strerror(errno),
		    "/dev/net/tun");
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	memcpy(ifr.ifr_name, dev, strlen(dev));
	if (ioctl(fd, TUNSETIFF, &ifr) < 0)
		die(EXIT_RUNTIME, "cannot create tun device: %s: '%s' in '%s'",
		    strerror(errno), dev, ns);

	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		die(EXIT_RUNTIME, "cannot open a control socket: %s: '%s'", strerror(errno), ns);
	memset(&ifr, 0, sizeof ifr);
	memcpy(ifr.ifr_name, dev, strlen(dev));
	ifr.ifr_mtu = (int)mtu;
	if (ioctl(s, SIOCSIFMTU, &ifr) < 0)
		die(EXIT_RUNTIME, "cannot set the MTU: %s: '%s' in '%s'", strerror(errno), dev, ns);
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		die(EXIT_RUNTIME, "cannot read device flags: %s: '%s' in '%s'",
		    strerror(errno), dev, ns);
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		die(EXIT_RUNTIME, "cannot bring the device up: %s: '%s' in '%s'",
		    strerror(errno), dev, ns);
	close(s);

	if (setns(home, CLONE_NEWNET) < 0)
		die(EXIT_RUNTIME, "cannot return to the original namespace: %s: '%s'",
		    strerror(errno), "/proc/self/ns/net");
	return fd;
}

/* ---- options ---- */

/* "X" or "X,Y" in the grammar of units.h: both directions, the second
   B->A. */
static void parse_rates(const char *arg, uint64_t *ab, uint64_t *ba)
{
	uint64_t v[2];
	int n = units_rate_list(arg, v, 2);
	if (n < 0)
		die(EXIT_USAGE, "bad rate, want " UNITS_RATE_HINT ": '%s'", arg);
	for (int i = 0; i < n; i++) {
		if (v[i] > MAX_RATE)
			die(EXIT_USAGE, "rate above 1 Tbit/s: '%s'", arg);
	}
	*ab = v[0];
	*ba = v[n - 1];
}

static void parse_latencies(const char *arg, uint64_t *ab, uint64_t *ba)
{
	uint64_t v[2];
	int n = units_duration_list(arg, UNITS_MS, v, 2);
	if (n < 0 || v[0] > 3600 * UNITS_S || v[n - 1] > 3600 * UNITS_S)
		die(EXIT_USAGE, "bad latency, want milliseconds or " UNITS_DURATION_HINT
		    ", up to 1 h: '%s'", arg);
	*ab = v[0];
	*ba = v[n - 1];
}

/* ns as milliseconds, exactly: 100000 is "0.1", 40000000 is "40". */
static void ms_text(char *out, size_t n, uint64_t ns)
{
	int len = snprintf(out, n, "%" PRIu64 ".%06" PRIu64, ns / 1000000, ns % 1000000);
	while (len > 0 && out[len - 1] == '0')
		out[--len] = '\0';
	if (len > 0 && out[len - 1] == '.')
		out[--len] = '\0';
}

static unsigned long long parse_uint(const char *arg, const char *what,
				     unsigned long long min, unsigned long long max)
{
	char *end;
	errno = 0;
	if (*arg == '-')
		die(EXIT_USAGE, "bad %s: '%s'", what, arg);
	unsigned long long v = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || v < min || v > max)
		die(EXIT_USAGE, "bad %s: '%s'", what, arg);
	return v;
}

static const char *check_dev(const char *name)
{
	if (!*name || strlen(name) >= IFNAMSIZ || strchr(name, '/') || strchr(name, ' '))
		die(EXIT_USAGE, "bad device name (1 to %d characters): '%s'", IFNAMSIZ - 1, name);
	return name;
}

static void format_rate(char *out, size_t n, uint64_t r)
{
	if (r == 0)
		snprintf(out, n, "unlimited");
	else if (r % 1000000000 == 0)
		snprintf(out, n, "%" PRIu64 " Gbit/s", r / 1000000000);
	else if (r % 1000000 == 0)
		snprintf(out, n, "%" PRIu64 " Mbit/s", r / 1000000);
	else if (r % 1000 == 0)
		snprintf(out, n, "%" PRIu64 " kbit/s", r / 1000);
	else
		snprintf(out, n, "%" PRIu64 " bit/s", r);
}

/* ---- signals: a flag, delivered only inside ppoll ---- */

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void summary(const struct dir *d)
{
	fprintf(stderr, "%s %" PRIu64 " packets, %" PRIu64 " bytes, %" PRIu64
		" dropped (queue), %" PRIu64 " lost (random)",
		d->label, d->packets, d->bytes, d->dropped, d->lost);
	if (d->oversize)
		fprintf(stderr, ", %" PRIu64 " over the MTU", d->oversize);
	if (d->errors)
		fprintf(stderr, ", %" PRIu64 " write errors", d->errors);
	if (d->ring.count)
		fprintf(stderr, ", %zu in flight", d->ring.count);
}

int main(int argc, char **argv)
{
	const char *ns_a = NULL, *ns_b = NULL, *dev_a = "xlink-a", *dev_b = "xlink-b";
	const char *ready = NULL;
	uint64_t rate_ab = 0, rate_ba = 0, delay_ab = 0, delay_ba = 0, queue = 0;
	uint64_t seed = 1;
	double loss = 0;
	int quiet = 0, realtime = 0, check = 0;

	enum { O_NS_A = 256, O_NS_B, O_DEV_A, O_DEV_B, O_RATE, O_LATENCY, O_QUEUE,
	       O_LOSS, O_SEED, O_MTU, O_READY, O_REALTIME, O_CHECK };
	static const struct option opts[] = {
		{ "ns-a", required_argument, NULL, O_NS_A },
		{ "ns-b", required_argument, NULL, O_NS_B },
		{ "dev-a", required_argument, NULL, O_DEV_A },
		{ "dev-b", required_argument, NULL, O_DEV_B },
		{ "rate", required_argument, NULL, O_RATE },
		{ "latency", required_argument, NULL, O_LATENCY },
		{ "delay", required_argument, NULL, O_LATENCY },	/* its older name */
		{ "queue", required_argument, NULL, O_QUEUE },
		{ "loss", required_argument, NULL, O_LOSS },
		{ "seed", required_argument, NULL, O_SEED },
		{ "mtu", required_argument, NULL, O_MTU },
		{ "ready", required_argument, NULL, O_READY },
		{ "realtime", no_argument, NULL, O_REALTIME },
		{ "check", no_argument, NULL, O_CHECK },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":qhV", opts, NULL)) != -1) {
		switch (opt) {
		case O_NS_A: ns_a = optarg; break;
		case O_NS_B: ns_b = optarg; break;
		case O_DEV_A: dev_a = check_dev(optarg); break;
		case O_DEV_B: dev_b = check_dev(optarg); break;
		case O_RATE: parse_rates(optarg, &rate_ab, &rate_ba); break;
		case O_LATENCY: parse_latencies(optarg, &delay_ab, &delay_ba); break;
		case O_QUEUE:
			if (units_size(optarg, &queue) < 0 || queue < 1 || queue > 1ull << 40)
				die(EXIT_USAGE, "bad queue size, want " UNITS_SIZE_HINT ", up to 1T: '%s'",
				    optarg);
			break;
		case O_CHECK: check = 1; break;
		case O_LOSS: {
			char *end;
			errno = 0;
			loss = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(loss >= 0 && loss <= 100))
				die(EXIT_USAGE, "bad loss percentage: '%s'", optarg);
			break;
		}
		case O_SEED: seed = parse_uint(optarg, "seed", 0, UINT64_MAX); break;
		case O_MTU: mtu = (unsigned)parse_uint(optarg, "MTU", 68, 65535); break;
		case O_READY: ready = optarg; break;
		case O_REALTIME: realtime = 1; break;
		case 'q': quiet = 1; break;
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': printf("%s %s\n", program_name, PACKAGE_VERSION); return EXIT_OK;
		case ':':
			fprintf(stderr, "%s: option needs a value: '%s'\n", program_name, argv[optind - 1]);
			usage(stderr);
			return EXIT_USAGE;
		default:
			fprintf(stderr, "%s: unknown option: '%s'\n", program_name, argv[optind - 1]);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		die(EXIT_USAGE, "unexpected argument: '%s'", argv[optind]);
	if (check) {
		if (queue == 0)
			queue = (uint64_t)DEFAULT_QUEUE_PACKETS * mtu;
		char ab[32], ba[32];
		ms_text(ab, sizeof ab, delay_ab);
		ms_text(ba, sizeof ba, delay_ba);
		printf("rate %" PRIu64 " %" PRIu64 " latency_ms %s %s queue %" PRIu64 "\n",
		       rate_ab, rate_ba, ab, ba, queue);
		return EXIT_OK;
	}
	if (!ns_a || !ns_b) {
		fprintf(stderr, "%s: no namespace given: '%s'\n", program_name, ns_a ? "--ns-b NS" : "--ns-a NS");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(ns_a, ns_b) == 0 && strcmp(dev_a, dev_b) == 0)
		die(EXIT_USAGE, "both sides in one namespace need two device names: '%s'", dev_a);
	if (queue == 0)
		queue = (uint64_t)DEFAULT_QUEUE_PACKETS * mtu;
	if (queue < mtu)
		die(EXIT_USAGE, "queue smaller than the MTU (%u): '%" PRIu64 "'", mtu, queue);

	/* Stop signals wait for ppoll, so none lands between check and sleep. */
	sigset_t stops, run_mask;
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGHUP);
	sigprocmask(SIG_BLOCK, &stops, &run_mask);
	sigdelset(&run_mask, SIGINT);
	sigdelset(&run_mask, SIGTERM);
	sigdelset(&run_mask, SIGHUP);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	if (realtime) {
		/* Woken ahead of whatever else runs, as a link in the kernel
		 * would be; the kernel's real-time throttling still leaves the
		 * rest of the system some time should the loop spin. */
		struct sched_param sp = { .sched_priority = REALTIME_PRIORITY };
		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
			fprintf(stderr, "%s: cannot run in real time, timing will suffer: %s: "
				"'SCHED_FIFO %d'\n", program_name, strerror(errno), REALTIME_PRIORITY);
	}

	int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home < 0)
		die(EXIT_RUNTIME, "cannot open namespace: %s: '%s'", strerror(errno),
		    "/proc/self/ns/net");
	int fd_a = open_side(ns_a, dev_a, home);
	int fd_b = open_side(ns_b, dev_b, home);
	close(home);

	struct dir d[2] = {
		{ .label = "A->B", .in_dev = dev_a, .out_dev = dev_b, .in = fd_a, .out = fd_b,
		  .rate = rate_ab, .delay = delay_ab },
		{ .label = "B->A", .in_dev = dev_b, .out_dev = dev_a, .in = fd_b, .out = fd_a,
		  .rate = rate_ba, .delay = delay_ba },
	};
	for (int i = 0; i < 2; i++) {
		d[i].queue = queue;
		d[i].loss_on = loss > 0;
		d[i].loss_all = loss >= 100;
		d[i].loss_threshold = (uint64_t)(loss / 100 * 18446744073709551616.0);
		d[i].rng = seed ^ (i ? 0x5851f42d4c957f2dull : 0);
		/* Room for the queue and the delay line, with slack for record
		 * headers on small packets. */
		double line = (double)(d[i].rate ? d[i].rate : UNLIMITED_RATE_GUESS)
			* (double)d[i].delay / 8e9;
		double size = 3 * ((double)queue + line) + 8.0 * (double)REC_SPAN(mtu + 1);
		if (size > (double)RING_MAX)
			size = (double)RING_MAX;
		ring_init(&d[i].ring, (size_t)size);
	}

	if (ready) {
		FILE *f = fopen(ready, "w");
		if (!f || fputs("ready\n", f) == EOF || fclose(f) == EOF)
			die(EXIT_RUNTIME, "cannot write the ready file: %s: '%s'", strerror(errno), ready);
	}
	if (!quiet) {
		char ra[32], rb[32];
		format_rate(ra, sizeof ra, rate_ab);
		format_rate(rb, sizeof rb, rate_ba);
		fprintf(stderr, "%s: up: A %s/%s, B %s/%s; A->B %s %.3f ms, B->A %s %.3f ms;"
			" queue %" PRIu64 " bytes, loss %g%%, mtu %u\n",
			program_name, ns_a, dev_a, ns_b, dev_b, ra, (double)delay_ab / 1e6,
			rb, (double)delay_ba / 1e6, queue, loss, mtu);
	}

	struct pollfd pfd[2] = {
		{ .fd = fd_a, .events = POLLIN },
		{ .fd = fd_b, .events = POLLIN },
	};
	/* Timed wake-ups come late (tens to hundreds of microseconds in a
	 * virtual machine), so the loop sleeps until a margin before the next
	 * release and polls without sleeping from there.  The margin follows
	 * the lateness seen: a maximum that decays.  Polling is paid from a
	 * budget that grows with a quarter of the time passing: sparse
	 * packets (where a late wake-up shows as delay) always get it, while
	 * a stream of them, whose releases are always near, does not turn the
	 * loop into a busy one; there being a little late costs nothing, as
	 * the model, not the release, sets when the next packet goes. */
	uint64_t late_est = 50000;
	uint64_t last = clock_ns(CLOCK_MONOTONIC);
	int64_t spin_budget = SPIN_BUDGET_MAX;
	while (!stop_requested) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC);
		spin_budget += (int64_t)((now - last) / SPIN_BUDGET_SHARE);
		if (spin_budget > (int64_t)SPIN_BUDGET_MAX)
			spin_budget = SPIN_BUDGET_MAX;
		last = now;
		release(&d[0], now);
		release(&d[1], now);
		uint64_t next = next_release(&d[0]);
		uint64_t nb = next_release(&d[1]);
		if (nb < next)
			next = nb;
		struct timespec ts, *tp = NULL;
		uint64_t wake = 0, spin_from = 0;
		if (next != UINT64_MAX) {
			uint64_t margin = late_est + SPIN_EXTRA;
			if (margin > SPIN_MAX)
				margin = SPIN_MAX;
			if (spin_budget <= 0)
				margin = 0;
			now = clock_ns(CLOCK_MONOTONIC);
			uint64_t wait = next > now + margin ? next - margin - now : 0;
			if (wait)
				wake = now + wait;
			else if (next > now)
				spin_from = now;
			ts.tv_sec = (time_t)(wait / NS_PER_S);
			ts.tv_nsec = (long)(wait % NS_PER_S);
			tp = &ts;
		}
		int n = ppoll(pfd, 2, tp, &run_mask);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die(EXIT_RUNTIME, "cannot wait for packets: %s: '%s'", strerror(errno), "ppoll");
		}
		if (n == 0 && wake) {
			uint64_t t = clock_ns(CLOCK_MONOTONIC);
			uint64_t late = t > wake ? t - wake : 0;
			late_est -= late_est / 64;
			if (late > late_est)
				late_est = late;
		}
		for (int i = 0; i < 2; i++) {
			if (pfd[i].revents & (POLLERR | POLLHUP | POLLNVAL))
				die(EXIT_RUNTIME, "the tun device failed: '%s'", d[i].in_dev);
			if (pfd[i].revents & POLLIN)
				ingest(&d[i]);
		}
		if (spin_from)
			spin_budget -= (int64_t)(clock_ns(CLOCK_MONOTONIC) - spin_from);
	}

	if (!quiet) {
		fprintf(stderr, "%s: ", program_name);
		summary(&d[0]);
		fputs("; ", stderr);
		summary(&d[1]);
		uint64_t np = d[0].packets + d[1].packets;
		uint64_t lmax = d[0].late_max > d[1].late_max ? d[0].late_max : d[1].late_max;
		if (np)
			fprintf(stderr, "; released %.1f us late on average, %.1f us at most",
				(double)(d[0].late_sum + d[1].late_sum) / (double)np / 1e3,
				(double)lmax / 1e3);
		fputc('\n', stderr);
	}
	close(fd_a);
	close(fd_b);
	free(d[0].ring.buf);
	free(d[1].ring.buf);
	return EXIT_OK;
}
