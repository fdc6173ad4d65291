/*
 * check_cut.c — unit tests of the classic-to-eBPF translation in
 * xcap/cmd/xcap/cut.c (part 1 there), with libpcap as the oracle; and of the cutter
 * (part 2) against X11's framing rules as protocols/x11_frame.h states
 * them (see "the cutter against the framing rules" below).
 *
 * Classic filters compiled by libpcap, and hand-written ones using what
 * libpcap rarely emits, are translated with cut_load_translation, loaded
 * as socket filters and run in the kernel on synthetic packets with
 * BPF_PROG_TEST_RUN.  Each verdict, with its snapshot length, is compared
 * with libpcap's own interpreter, bpf_filter(), run on the bytes the
 * program sees.
 *
 * What the program sees.  bpf_prog_test_run_skb (net/bpf/test_run.c)
 * copies data_in into a new skb, calls eth_type_trans() on it with the
 * loopback device (which pulls the 14-byte Ethernet header and sets
 * skb->protocol and skb->pkt_type from it) and resets the network header
 * there; only for tc programs (SCHED_CLS/ACT) does it push the Ethernet
 * header back.  So a socket filter's absolute loads start at data_in + 14,
 * its "len" is data_size_in - 14, and SKF_LL_OFF loads reach the Ethernet
 * header in front.  The test "presentation" below checks exactly this on
 * the running kernel.  Every frame given to the kernel is therefore an
 * outer Ethernet header followed by the bytes the program is to see: the
 * packet as it would be captured on DLT_RAW (IP header first), on
 * DLT_EN10MB (an inner Ethernet header first) or on DLT_LINUX_SLL2 (a
 * cooked header first), so the filter compiled for each link type reads
 * its packets at the offsets it was compiled for.  (A real packet socket
 * shows the filter the link header; the test run cannot, hence the outer
 * header that it strips.)  The test run also refuses (EINVAL) a frame of
 * type IPv4 or IPv6 too short for that header, so truncated packets go in
 * a frame of another type.
 *
 * Filters are compiled with pcap_open_dead and pcap_compile (what the
 * deprecated pcap_compile_nopcap does).  libpcap then tests VLAN tags in
 * the data: its ancillary loads (SKF_AD_VLAN_TAG_PRESENT) are for live
 * Linux captures only, so those and the other ancillary loads, which
 * bpf_filter() does not know, are checked against the values the test
 * run gives them.
 *
 * When not root, or when the kernel refuses BPF, the program says SKIP and
 * exits 77.
 */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* <linux/bpf.h> and libpcap both name their instruction struct bpf_insn:
   the kernel's is renamed here, libpcap's (classic) keeps the name. */
#define bpf_insn ebpf_insn
#include <linux/bpf.h>
#undef bpf_insn
#include <linux/filter.h>
#include <pcap/pcap.h>

#include "cut.h"
#include "cursor.h"
#include "protocol.h"
#include "x11_frame.h"
#include "x11_names.h"

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif

#define SNAPLEN 262144
#define ETH_TYPE_IP 0x0800
#define ETH_TYPE_IPV6 0x86dd
#define ETH_TYPE_ARP 0x0806
#define ETH_TYPE_VLAN 0x8100
#define ETH_TYPE_OTHER 0x88b5	/* IEEE 802 local experimental */

/* ---- packets ---- */

/* A packet from its network header on; its link type's header is put in
   front by seen_bytes. */
struct pkt {
	char name[40];
	uint16_t ethertype;
	bool vlan;		/* has an 802.1Q tag: only on DLT_EN10MB */
	size_t len;
	uint8_t b[1600];
};

#define MAX_PKTS 40
static struct pkt pkts[MAX_PKTS];
static size_t n_pkts;

enum { FIN = 0x01, SYN = 0x02, RST = 0x04, PSH = 0x08, ACK = 0x10 };

static void be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void be32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static struct pkt *new_pkt(const char *name, uint16_t ethertype)
{
	if (n_pkts == MAX_PKTS) {
		fprintf(stderr, "check_cut: too many packets\n");
		exit(EXIT_FAILURE);
	}
	struct pkt *p = &pkts[n_pkts++];
	memset(p, 0, sizeof *p);
	snprintf(p->name, sizeof p->name, "%s", name);
	p->ethertype = ethertype;
	return p;
}

/* Packets are built in main(), outside any test. */
static void address(int af, const char *text, uint8_t *to)
{
	if (inet_pton(af, text, to) != 1) {
		fprintf(stderr, "check_cut: bad address %s\n", text);
		exit(EXIT_FAILURE);
	}
}

/* A TCP header of doff 32-bit words (options NOPs) and plen bytes of
   payload: the string payload, then a pattern; its length. */
static size_t tcp(uint8_t *t, uint16_t sport, uint16_t dport, uint8_t flags, int doff,
		  const char *payload, size_t plen)
{
	memset(t, 0, (size_t)doff * 4);
	be16(t, sport);
	be16(t + 2, dport);
	be32(t + 4, 0x10000000u + sport);
	be32(t + 8, flags & ACK ? 0x20000000u + dport : 0);
	t[12] = (uint8_t)(doff << 4);
	t[13] = flags;
	be16(t + 14, 65535);
	memset(t + 20, 1, (size_t)doff * 4 - 20);	/* NOP options */
	uint8_t *d = t + doff * 4;
	size_t given = payload ? strlen(payload) : 0;
	for (size_t i = 0; i < plen; i++)
		d[i] = i < given ? (uint8_t)payload[i] : (uint8_t)(i * 7 + 3);
	return (size_t)doff * 4 + plen;
}

static size_t udp(uint8_t *u, uint16_t sport, uint16_t dport, size_t plen)
{
	be16(u, sport);
	be16(u + 2, dport);
	be16(u + 4, (uint16_t)(8 + plen));
	be16(u + 6, 0);
	for (size_t i = 0; i < plen; i++)
		u[8 + i] = (uint8_t)(i * 13 + 1);
	return 8 + plen;
}

/* An IPv4 header of ihl words in front of the l4len bytes already at
   p->b + 4 * ihl. */
static void ipv4(struct pkt *p, int ihl, uint8_t tos, uint8_t proto, const char *src,
		 const char *dst, uint16_t frag, size_t l4len)
{
	uint8_t *h = p->b;
	memset(h, 0, (size_t)ihl * 4);
	h[0] = (uint8_t)(0x40 | ihl);
	h[1] = tos;
	p->len = (size_t)ihl * 4 + l4len;
	be16(h + 2, (uint16_t)p->len);
	be16(h + 4, 0x1234);
	be16(h + 6, frag);
	h[8] = 64;
	h[9] = proto;
	address(AF_INET, src, h + 12);
	address(AF_INET, dst, h + 16);
}

static void ipv4_tcp(const char *name, int ihl, uint8_t tos, const char *src, const char *dst,
		     uint16_t sport, uint16_t dport, uint8_t flags, int doff, const char *payload,
		     size_t plen)
{
	struct pkt *p = new_pkt(name, ETH_TYPE_IP);
	size_t l4 = tcp(p->b + ihl * 4, sport, dport, flags, doff, payload, plen);
	ipv4(p, ihl, tos, 6, src, dst, 0, l4);
}

static void ipv6(struct pkt *p, uint8_t next, const char *src, const char *dst, size_t l4len)
{
	uint8_t *h = p->b;
	memset(h, 0, 40);
	h[0] = 0x60;
	be16(h + 4, (uint16_t)l4len);
	h[6] = next;
	h[7] = 64;
	address(AF_INET6, src, h + 8);
	address(AF_INET6, dst, h + 24);
	p->len = 40 + l4len;
}

static void build_packets(void)
{
	n_pkts = 0;
	ipv4_tcp("v4 tcp syn to 6000", 5, 0, "10.0.0.1", "10.0.0.2", 40000, 6000, SYN, 5, NULL, 0);
	ipv4_tcp("v4 tcp 6063 ack 100", 5, 0x10, "10.0.0.2", "10.0.0.1", 6063, 40001, ACK, 5,
		 NULL, 100);
	ipv4_tcp("v4 tcp to 6064 psh 1200", 5, 0, "10.0.0.1", "10.0.0.2", 40002, 6064,
		 PSH | ACK, 5, NULL, 1200);
	ipv4_tcp("v4 tcp to 80 GET", 5, 0, "10.0.0.1", "10.0.0.3", 40003, 80, PSH | ACK, 5,
		 "GET /", 5);
	ipv4_tcp("v4 tcp lo 6000 1448", 5, 0x07, "127.0.0.1", "127.0.0.1", 45000, 6000, ACK, 5,
		 NULL, 1448);
	ipv4_tcp("v4 tcp from 6001 fin", 5, 0, "10.0.0.2", "10.0.0.1", 6001, 40004, FIN | ACK, 5,
		 NULL, 0);
	ipv4_tcp("v4 tcp rst", 5, 0x03, "10.0.0.2", "10.0.0.1", 6000, 40005, RST, 5, NULL, 0);
	ipv4_tcp("v4 ip options tcp GET", 6, 0, "10.0.0.1", "10.0.0.2", 40006, 6000, PSH | ACK,
		 5, "GET /index.html", 15);
	ipv4_tcp("v4 tcp options GET", 5, 0x20, "10.0.0.1", "127.0.0.1", 40007, 8080, PSH | ACK,
		 8, "GET / HTTP/1.0", 14);
	ipv4_tcp("v4 tcp no flags", 5, 0, "10.0.0.1", "10.0.0.2", 40008, 6010, 0, 5, NULL, 20);

	struct pkt *p = new_pkt("v4 tcp fragment", ETH_TYPE_IP);
	size_t l4 = tcp(p->b + 20, 40009, 6000, ACK, 5, NULL, 300);
	ipv4(p, 5, 0, 6, "10.0.0.1", "10.0.0.2", 0x00b9, l4);

	p = new_pkt("v4 udp to 6000", ETH_TYPE_IP);
	ipv4(p, 5, 0x07, 17, "10.0.0.1", "10.0.0.2", 0, udp(p->b + 20, 5353, 6000, 60));
	p = new_pkt("v4 udp 1100", ETH_TYPE_IP);
	ipv4(p, 5, 0x0f, 17, "127.0.0.1", "10.0.0.2", 0, udp(p->b + 20, 6001, 53, 1100));

	p = new_pkt("v6 tcp syn to 6000", ETH_TYPE_IPV6);
	ipv6(p, 6, "2001:db8::1", "2001:db8::2", tcp(p->b + 40, 40010, 6000, SYN, 5, NULL, 0));
	p = new_pkt("v6 tcp from 6063 1100", ETH_TYPE_IPV6);
	ipv6(p, 6, "2001:db8::2", "2001:db8::1",
	     tcp(p->b + 40, 6063, 40011, PSH | ACK, 5, "GET ", 1100));
	p = new_pkt("v6 udp to 6000", ETH_TYPE_IPV6);
	ipv6(p, 17, "::1", "::1", udp(p->b + 40, 40012, 6000, 30));

	/* ARP: not IP at all. */
	p = new_pkt("arp request", ETH_TYPE_ARP);
	static const uint8_t arp[28] = {
		0, 1, 8, 0, 6, 4, 0, 1, 2, 0, 0, 0, 0, 1, 10, 0, 0, 1,
		0, 0, 0, 0, 0, 0, 10, 0, 0, 2 };
	memcpy(p->b, arp, sizeof arp);
	p->len = sizeof arp;

	/* Cut short: within the IP header, and within the TCP header. */
	p = new_pkt("v4 header truncated", ETH_TYPE_IP);
	ipv4(p, 5, 0, 6, "10.0.0.1", "10.0.0.2", 0, tcp(p->b + 20, 40013, 6000, SYN, 5, NULL, 0));
	p->len = 12;
	p = new_pkt("v4 tcp header truncated", ETH_TYPE_IP);
	ipv4(p, 5, 0, 6, "10.0.0.1", "10.0.0.2", 0, tcp(p->b + 20, 40014, 6000, SYN, 5, NULL, 40));
	p->len = 26;

	/* 802.1Q tagged (DLT_EN10MB only). */
	p = new_pkt("vlan v4 tcp to 6000", ETH_TYPE_IP);
	p->vlan = true;
	ipv4(p, 5, 0, 6, "10.0.0.1", "10.0.0.2", 0,
	     tcp(p->b + 20, 40015, 6000, PSH | ACK, 5, NULL, 200));
	p = new_pkt("vlan v4 udp", ETH_TYPE_IP);
	p->vlan = true;
	ipv4(p, 5, 0, 17, "10.0.0.1", "10.0.0.2", 0, udp(p->b + 20, 40016, 6000, 10));
}

/* The bytes a filter for link type dlt sees of packet p: its link header
   and the packet.  False when p does not exist on that link type. */
static bool seen_bytes(int dlt, const struct pkt *p, uint8_t *out, size_t *len)
{
	size_t h = 0;
	switch (dlt) {
	case DLT_RAW:
		if (p->vlan)
			return false;
		break;
	case DLT_EN10MB: {
		static const uint8_t macs[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };
		memcpy(out, macs, 12);
		h = 12;
		if (p->vlan) {
			be16(out + h, ETH_TYPE_VLAN);
			be16(out + h + 2, 100);	/* VLAN 100 */
			h += 4;
		}
		be16(out + h, p->ethertype);
		h += 2;
		break;
	}
	case DLT_LINUX_SLL2:
		if (p->vlan)
			return false;
		memset(out, 0, 20);
		be16(out, p->ethertype);	/* protocol type */
		be32(out + 4, 1);		/* interface index */
		be16(out + 8, 1);		/* ARPHRD_ETHER */
		out[10] = 0;			/* PACKET_HOST */
		out[11] = 6;
		memcpy(out + 12, "\x02\0\0\0\0\x01", 6);
		h = 20;
		break;
	default:
		ck_abort_msg("link type %d", dlt);
	}
	memcpy(out + h, p->b, p->len);
	*len = h + p->len;
	return true;
}

/* ---- the kernel ---- */

/* Destination addresses of the outer Ethernet header, as eth_type_trans
   classifies them against the loopback device's address (all zeros). */
static const uint8_t to_host[6] = { 0, 0, 0, 0, 0, 0 };
static const uint8_t to_broadcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t to_multicast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
static const uint8_t to_other[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x09 };

/* Run program fd on the frame made of an outer Ethernet header (dst,
   ethertype) and the n bytes seen; 0 and *retval, or -errno. */
static int test_run_ctx(int fd, const uint8_t dst[6], uint16_t ethertype, const uint8_t *seen,
			size_t n, const struct __sk_buff *ctx, uint32_t *retval)
{
	static uint8_t frame[14 + 2048];
	if (n > sizeof frame - 14)
		return -EMSGSIZE;
	memcpy(frame, dst, 6);
	memcpy(frame + 6, "\x02\0\0\0\0\x07", 6);
	/* The test run refuses (EINVAL) an IPv4 frame shorter than an IPv4
	   header, an IPv6 one shorter than an IPv6 header: those go as
	   another type, which only SKF_AD_PROTOCOL would see. */
	if ((ethertype == ETH_TYPE_IP && n < 20) || (ethertype == ETH_TYPE_IPV6 && n < 40))
		ethertype = ETH_TYPE_OTHER;
	be16(frame + 12, ethertype);
	memcpy(frame + 14, seen, n);

	union bpf_attr a;
	memset(&a, 0, sizeof a);
	a.test.prog_fd = (uint32_t)fd;
	a.test.data_in = (uint64_t)(uintptr_t)frame;
	a.test.data_size_in = (uint32_t)(14 + n);
	a.test.repeat = 1;
	if (ctx) {
		a.test.ctx_in = (uint64_t)(uintptr_t)ctx;
		a.test.ctx_size_in = sizeof *ctx;
	}
	if (syscall(__NR_bpf, BPF_PROG_TEST_RUN, &a, sizeof a) < 0)
		return -errno;
	*retval = a.test.retval;
	return 0;
}

static uint32_t test_run(int fd, uint16_t ethertype, const uint8_t *seen, size_t n)
{
	uint32_t r = 0;
	int rc = test_run_ctx(fd, to_host, ethertype, seen, n, NULL, &r);
	ck_assert_msg(rc == 0, "BPF_PROG_TEST_RUN of %zu bytes: %s", n, strerror(-rc));
	return r;
}

/* libpcap's classic instructions as the kernel's (same layout).  (Used in
   main() too, where Check's assertions cannot be.) */
static struct sock_filter *to_sock_filter(const struct bpf_insn *insns, size_t n)
{
	struct sock_filter *f = calloc(n ? n : 1, sizeof *f);
	if (!f)
		abort();
	for (size_t i = 0; i < n; i++) {
		f[i].code = insns[i].code;
		f[i].jt = insns[i].jt;
		f[i].jf = insns[i].jf;
		f[i].k = insns[i].k;
	}
	return f;
}

/* The translation of a classic program, loaded; -1 with err. */
static int translate(const struct bpf_insn *insns, size_t n, char *err, size_t errlen)
{
	struct sock_filter *f = to_sock_filter(insns, n);
	err[0] = '\0';
	int fd = cut_load_translation(f, n, err, errlen);
	free(f);
	return fd;
}

static int must_translate(const struct bpf_insn *insns, size_t n, const char *what)
{
	char err[512];
	int fd = translate(insns, n, err, sizeof err);
	ck_assert_msg(fd >= 0, "%s: not translated: %s", what, err);
	return fd;
}

/* Program fd against libpcap's interpreter of insns on packet p seen on
   link type dlt: the same return value (0: refused, else the snapshot
   length, or A for "ret a").  The value; false when p is not on dlt. */
static bool compare(int fd, const struct bpf_insn *insns, int dlt, const struct pkt *p,
		    const char *what, uint32_t *value)
{
	uint8_t seen[2048];
	size_t n;
	if (!seen_bytes(dlt, p, seen, &n))
		return false;
	uint32_t want = bpf_filter(insns, seen, (u_int)n, (u_int)n);
	uint32_t got = test_run(fd, p->ethertype, seen, n);
	ck_assert_msg(got == want, "%s, link type %d, packet \"%s\": kernel %u, libpcap %u", what,
		      dlt, p->name, got, want);
	if (value)
		*value = got;
	return true;
}

static const struct pkt *pkt_named(const char *name)
{
	for (size_t i = 0; i < n_pkts; i++)
		if (strcmp(pkts[i].name, name) == 0)
			return &pkts[i];
	ck_abort_msg("no packet \"%s\"", name);
	return NULL;
}

/* ---- how the test run presents the packet ---- */

#define STMT(c, k) BPF_STMT(c, k)
#define JUMP(c, k, jt, jf) BPF_JUMP(c, k, jt, jf)
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A program that returns one load (plus 1, so that a load of 0 is not
   taken for a refusal). */
static uint32_t run_load(uint16_t code, uint32_t k, uint16_t ethertype, const uint8_t *seen,
			 size_t n)
{
	struct bpf_insn prog[] = {
		STMT(code, k),
		STMT(BPF_ALU | BPF_ADD | BPF_K, 1),
		STMT(BPF_RET | BPF_A, 0),
	};
	int fd = must_translate(prog, N(prog), "a load");
	uint32_t r = test_run(fd, ethertype, seen, n);
	close(fd);
	return r;
}

START_TEST(presentation)
{
	const struct pkt *p = pkt_named("v4 tcp to 80 GET");
	uint8_t seen[2048];
	size_t n;
	ck_assert(seen_bytes(DLT_RAW, p, seen, &n));
	uint32_t first = (uint32_t)seen[0] << 24 | (uint32_t)seen[1] << 16 | seen[2] << 8 | seen[3];
	/* Absolute loads start after the 14 bytes of Ethernet header given:
	   at the IP header here. */
	ck_assert_uint_eq(run_load(BPF_LD | BPF_W | BPF_ABS, 0, ETH_TYPE_IP, seen, n), first + 1);
	ck_assert_uint_eq(run_load(BPF_LD | BPF_B | BPF_ABS, 9, ETH_TYPE_IP, seen, n), 6 + 1);
	/* The length is that of what follows the Ethernet header. */
	ck_assert_uint_eq(run_load(BPF_LD | BPF_W | BPF_LEN, 0, ETH_TYPE_IP, seen, n), n + 1);
	static const struct bpf_insn x_len[] = {
		STMT(BPF_LDX | BPF_W | BPF_LEN, 0),
		STMT(BPF_MISC | BPF_TXA, 0),
		STMT(BPF_RET | BPF_A, 0),
	};
	int fd = must_translate(x_len, N(x_len), "ldx len");
	ck_assert_uint_eq(test_run(fd, ETH_TYPE_IP, seen, n), n);
	close(fd);
	/* The network header is where the data starts ... */
	ck_assert_uint_eq(run_load(BPF_LD | BPF_W | BPF_ABS, (uint32_t)SKF_NET_OFF, ETH_TYPE_IP,
				   seen, n), first + 1);
	/* ... and the link-layer header, in front of it, is the one given:
	   its type field at 12. */
	ck_assert_uint_eq(run_load(BPF_LD | BPF_H | BPF_ABS, (uint32_t)SKF_LL_OFF + 12,
				   ETH_TYPE_IP, seen, n), ETH_TYPE_IP + 1);
	ck_assert_uint_eq(run_load(BPF_LD | BPF_H | BPF_ABS, (uint32_t)SKF_LL_OFF + 12, 0x1234,
				   seen, n), 0x1234 + 1);
	/* The last byte is there, the one after it is not (a refusal). */
	ck_assert_uint_eq(run_load(BPF_LD | BPF_B | BPF_ABS, (uint32_t)n - 1, ETH_TYPE_IP, seen, n),
			  seen[n - 1] + 1u);
	ck_assert_uint_eq(run_load(BPF_LD | BPF_B | BPF_ABS, (uint32_t)n, ETH_TYPE_IP, seen, n), 0);
	/* The filter libpcap compiles for raw IP accepts the packet, the one
	   for Ethernet does not find its type at 12. */
	static const struct { int dlt; uint32_t want; } by_link[] = {
		{ DLT_RAW, SNAPLEN }, { DLT_EN10MB, 0 }, { DLT_LINUX_SLL2, 0 } };
	for (size_t i = 0; i < N(by_link); i++) {
		pcap_t *pd = pcap_open_dead(by_link[i].dlt, SNAPLEN);
		ck_assert_ptr_nonnull(pd);
		struct bpf_program bp;
		ck_assert_int_eq(pcap_compile(pd, &bp, "tcp dst port 80", 1, PCAP_NETMASK_UNKNOWN), 0);
		pcap_close(pd);
		fd = must_translate(bp.bf_insns, bp.bf_len, "tcp dst port 80");
		ck_assert_uint_eq(test_run(fd, ETH_TYPE_IP, seen, n), by_link[i].want);
		close(fd);
		pcap_freecode(&bp);
	}
}
END_TEST

/* ---- filters compiled by libpcap ---- */

enum { EN = 1, RAW = 2, SLL2 = 4, ALL = EN | RAW | SLL2 };
enum { SOME = 1, ALWAYS = 2, NEVER = 4 };	/* what the filter accepts */

static const struct expr {
	const char *text;
	int links;
	int accepts;		/* SOME: some packets, not all */
} exprs[] = {
	{ "tcp portrange 6000-6063", ALL, SOME },	/* xcap's default */
	{ "tcp port 6000", ALL, SOME },
	{ "tcp and host 127.0.0.1", ALL, SOME },
	{ "ip6 and tcp", ALL, SOME },
	{ "tcp[tcpflags] & (tcp-syn|tcp-fin) != 0", ALL, SOME },
	{ "len > 100", ALL, SOME },
	{ "ip[2:2] > 576", ALL, SOME },
	/* X-indexed loads after ldxb 4*([k]&0xf) */
	{ "tcp[((tcp[12:1] & 0xf0) >> 2):4] = 0x47455420", ALL, SOME },
	{ "ether[12:2] = 0x0800", EN, SOME },
	{ "not arp", EN | SLL2, SOME },
	{ "not arp", RAW, ALWAYS },	/* raw IP has no ARP */
	{ "vlan and tcp", EN, SOME },
	{ "vlan 100 and udp port 6000", EN, SOME },
	{ "ip[0] & 0xf * 4 = 20", ALL, NEVER },	/* ip[0] & 0x3c: never 20 */
	{ "(ip[2:2] - ((ip[0]&0xf)<<2)) / 4 > 10", ALL, SOME },
	{ "ip[2:2] % 7 = 3", ALL, SOME },
	{ "greater 1000", ALL, SOME },
	{ "less 60", ALL, SOME },
	{ "len < 0", ALL, NEVER },	/* the accepting return stays in the code */
	/* division and modulo by a packet byte: by 0 the filter refuses */
	{ "ip[2:2] / ip[1] > 2", ALL, SOME },
	{ "ip[2:2] % ip[1] = 4", ALL, SOME },
	{ "-ip[8] = 0xffffffc0", ALL, SOME },
	{ "ip[1] ^ 0xff = 0xf8", ALL, SOME },
	{ "ip[8] << (ip[9] & 3) > 200", ALL, SOME },
	{ "ip[2:2] * 3 - 100 > 4000", ALL, SOME },
	{ "tcp dst port 6000 and (ip[2:2] - ((ip[0]&0xf)<<2) - ((tcp[12]&0xf0)>>2)) != 0", ALL,
	  SOME },
	{ "ip[6:2] & 0x1fff != 0", ALL, SOME },
	{ "udp or (ip6 and tcp dst port 6000)", ALL, SOME },
	{ "src net 10.0.0.0/8 and tcp[13] = 0x18", ALL, SOME },
	{ "ip6 and ip6[6] = 17", ALL, SOME },
};

static const int links[] = { DLT_EN10MB, DLT_RAW, DLT_LINUX_SLL2 };
static const int link_bits[] = { EN, RAW, SLL2 };

START_TEST(pcap_expressions)
{
	const struct expr *e = &exprs[_i];
	int accepted = 0, refused = 0, compared = 0;
	/* optimize 1, as xcap compiles; 0 too, for the scratch memory and
	   the TAX/TXA libpcap's optimizer mostly removes. */
	for (int optimize = 1; optimize >= 0; optimize--) {
		for (size_t l = 0; l < N(links); l++) {
			if (!(e->links & link_bits[l]))
				continue;
			pcap_t *pd = pcap_open_dead(links[l], SNAPLEN);
			ck_assert_ptr_nonnull(pd);
			struct bpf_program bp;
			int rc = pcap_compile(pd, &bp, e->text, optimize, PCAP_NETMASK_UNKNOWN);
			ck_assert_msg(rc == 0, "\"%s\", link type %d: %s", e->text, links[l],
				      pcap_geterr(pd));
			pcap_close(pd);
			char what[256];
			snprintf(what, sizeof what, "\"%s\" (optimize %d, %u instructions)", e->text,
				 optimize, bp.bf_len);
			int fd = must_translate(bp.bf_insns, bp.bf_len, what);
			for (size_t i = 0; i < n_pkts; i++) {
				uint32_t v;
				if (!compare(fd, bp.bf_insns, links[l], &pkts[i], what, &v))
					continue;
				compared++;
				if (v) {
					ck_assert_uint_eq(v, SNAPLEN);
					accepted++;
				} else {
					refused++;
				}
			}
			close(fd);
			pcap_freecode(&bp);
		}
	}
	ck_assert_int_gt(compared, 0);
	if (e->accepts & (SOME | ALWAYS))
		ck_assert_msg(accepted > 0, "\"%s\" accepts no packet", e->text);
	if (e->accepts & (SOME | NEVER))
		ck_assert_msg(refused > 0, "\"%s\" refuses no packet", e->text);
	if (e->accepts & ALWAYS)
		ck_assert_int_eq(refused, 0);
	if (e->accepts & NEVER)
		ck_assert_int_eq(accepted, 0);
}
END_TEST

/* ---- hand-written classic programs ---- */

/* Run prog on every packet as raw IP against bpf_filter; the value it
   returns for the packet named `name`. */
static uint32_t compare_all(const struct bpf_insn *prog, size_t n, const char *what,
			    const char *name)
{
	int fd = must_translate(prog, n, what);
	uint32_t named = 0;
	bool found = false;
	for (size_t i = 0; i < n_pkts; i++) {
		uint32_t v;
		for (size_t l = 0; l < N(links); l++)
			if (compare(fd, prog, links[l], &pkts[i], what, &v) && links[l] == DLT_RAW &&
			    strcmp(pkts[i].name, name) == 0) {
				named = v;
				found = true;
			}
	}
	close(fd);
	ck_assert_msg(found, "no packet \"%s\"", name);
	return named;
}

static unsigned ip_len(const struct pkt *p)
{
	return (unsigned)p->b[2] << 8 | p->b[3];
}

/* Scratch memory (ST, STX, LD and LDX of M[k]), TAX and TXA, ALU with X,
   RET A. */
START_TEST(scratch_and_x)
{
	static const struct bpf_insn prog[] = {
		STMT(BPF_LD | BPF_B | BPF_ABS, 9),		/* A = protocol */
		STMT(BPF_ST, 0),
		STMT(BPF_LD | BPF_H | BPF_ABS, 2),		/* A = IP length */
		STMT(BPF_MISC | BPF_TAX, 0),
		STMT(BPF_LD | BPF_MEM, 0),			/* A = protocol */
		STMT(BPF_STX, 15),				/* M[15] = IP length */
		STMT(BPF_LDX | BPF_MEM, 0),
		STMT(BPF_ALU | BPF_ADD | BPF_X, 0),		/* 2 * protocol */
		STMT(BPF_LDX | BPF_IMM, 3),
		STMT(BPF_ALU | BPF_LSH | BPF_X, 0),		/* 16 * protocol */
		STMT(BPF_ST, 1),
		STMT(BPF_LDX | BPF_MEM, 15),
		STMT(BPF_MISC | BPF_TXA, 0),			/* A = IP length */
		STMT(BPF_ALU | BPF_SUB | BPF_K, 20),
		STMT(BPF_ALU | BPF_RSH | BPF_K, 2),
		STMT(BPF_LDX | BPF_MEM, 1),
		STMT(BPF_ALU | BPF_OR | BPF_X, 0),
		STMT(BPF_ALU | BPF_MUL | BPF_K, 3),
		STMT(BPF_ALU | BPF_XOR | BPF_K, 0x5a5a0000),
		STMT(BPF_RET | BPF_A, 0),
	};
	const char *name = "v4 tcp lo 6000 1448";
	unsigned len = ip_len(pkt_named(name));
	uint32_t want = ((((len - 20) >> 2) | (16 * 6)) * 3) ^ 0x5a5a0000;
	ck_assert_uint_eq(compare_all(prog, N(prog), "scratch and X", name), want);
}
END_TEST

/* Every word of M[], written by ST and STX, read back by LD and LDX in
   another order. */
START_TEST(scratch_all_words)
{
	struct bpf_insn prog[128];
	size_t n = 0;
	for (int m = 0; m < 16; m++) {
		prog[n++] = (struct bpf_insn)STMT(BPF_LD | BPF_B | BPF_ABS, (uint32_t)m);
		if (m % 2) {
			prog[n++] = (struct bpf_insn)STMT(BPF_ALU | BPF_ADD | BPF_K, (uint32_t)m << 8);
			prog[n++] = (struct bpf_insn)STMT(BPF_ST, (uint32_t)m);
		} else {
			prog[n++] = (struct bpf_insn)STMT(BPF_MISC | BPF_TAX, 0);
			prog[n++] = (struct bpf_insn)STMT(BPF_STX, (uint32_t)m);
		}
	}
	/* A = A * 31 + M[m], m from 15 down: by LDX, or by TAX and LD */
	prog[n++] = (struct bpf_insn)STMT(BPF_LD | BPF_IMM, 1);
	for (int m = 15; m >= 0; m--) {
		prog[n++] = (struct bpf_insn)STMT(BPF_ALU | BPF_MUL | BPF_K, 31);
		if (m % 3 == 0) {
			prog[n++] = (struct bpf_insn)STMT(BPF_LDX | BPF_MEM, (uint32_t)m);
		} else {
			prog[n++] = (struct bpf_insn)STMT(BPF_MISC | BPF_TAX, 0);
			prog[n++] = (struct bpf_insn)STMT(BPF_LD | BPF_MEM, (uint32_t)m);
		}
		prog[n++] = (struct bpf_insn)STMT(BPF_ALU | BPF_ADD | BPF_X, 0);
	}
	prog[n++] = (struct bpf_insn)STMT(BPF_RET | BPF_A, 0);
	ck_assert_uint_le(n, N(prog));
	const char *name = "v4 tcp syn to 6000";
	const uint8_t *b = pkt_named(name)->b;
	uint32_t mem[16], want = 1;
	for (int m = 0; m < 16; m++)
		mem[m] = b[m] + (m % 2 ? (uint32_t)m << 8 : 0);
	for (int m = 15; m >= 0; m--)
		want = want * 31 + mem[m];
	ck_assert_uint_ne(want, 0);
	ck_assert_uint_eq(compare_all(prog, n, "all of M[]", name), want);
}
END_TEST

/* Division and modulo by X: by 0 at run time the classic filter ends,
   refusing the packet, whatever follows. */
START_TEST(division_by_x)
{
	static const struct bpf_insn div_prog[] = {
		STMT(BPF_LD | BPF_B | BPF_ABS, 1),		/* TOS */
		STMT(BPF_MISC | BPF_TAX, 0),
		STMT(BPF_LD | BPF_IMM, 1000),
		STMT(BPF_ALU | BPF_DIV | BPF_X, 0),
		STMT(BPF_RET | BPF_K, 77),
	};
	static const struct bpf_insn mod_prog[] = {
		STMT(BPF_LD | BPF_B | BPF_ABS, 1),
		STMT(BPF_MISC | BPF_TAX, 0),
		STMT(BPF_LD | BPF_H | BPF_ABS, 2),
		STMT(BPF_ALU | BPF_MOD | BPF_X, 0),
		STMT(BPF_ALU | BPF_ADD | BPF_K, 1),
		STMT(BPF_RET | BPF_A, 0),
	};
	static const struct bpf_insn div_a_prog[] = {
		STMT(BPF_LD | BPF_B | BPF_ABS, 1),
		STMT(BPF_MISC | BPF_TAX, 0),
		STMT(BPF_LD | BPF_H | BPF_ABS, 2),
		STMT(BPF_ALU | BPF_DIV | BPF_X, 0),
		STMT(BPF_ALU | BPF_OR | BPF_K, 0x100000),
		STMT(BPF_RET | BPF_A, 0),
	};
	/* TOS 0: refused; TOS 7 */
	ck_assert_uint_eq(compare_all(div_prog, N(div_prog), "div x", "v4 tcp syn to 6000"), 0);
	ck_assert_uint_eq(compare_all(div_prog, N(div_prog), "div x", "v4 tcp lo 6000 1448"), 77);
	ck_assert_uint_eq(compare_all(mod_prog, N(mod_prog), "mod x", "v4 tcp syn to 6000"), 0);
	const char *name = "v4 tcp lo 6000 1448";
	unsigned len = ip_len(pkt_named(name));
	ck_assert_uint_eq(compare_all(mod_prog, N(mod_prog), "mod x", name), len % 7 + 1);
	ck_assert_uint_eq(compare_all(div_a_prog, N(div_a_prog), "div x", name),
			  (len / 7) | 0x100000);
	ck_assert_uint_eq(compare_all(div_a_prog, N(div_a_prog), "div x", "v4 tcp to 80 GET"), 0);
}
END_TEST

/* Jumps comparing with X (JSET, JEQ, JGT, JGE), JA, unsigned 32-bit
   comparisons, NEG, LEN, RET A. */
START_TEST(jumps_with_x)
{
	static const struct bpf_insn prog[] = {
		/* 0 */ STMT(BPF_LD | BPF_B | BPF_ABS, 33),	/* TCP flags (IHL 5) */
		/* 1 */ STMT(BPF_LDX | BPF_IMM, FIN | RST),
		/* 2 */ JUMP(BPF_JMP | BPF_JSET | BPF_X, 0, 0, 1),
		/* 3 */ STMT(BPF_RET | BPF_K, 0x111),
		/* 4 */ STMT(BPF_LDX | BPF_IMM, ACK),
		/* 5 */ JUMP(BPF_JMP | BPF_JEQ | BPF_X, 0, 0, 1),
		/* 6 */ STMT(BPF_RET | BPF_K, 0x222),
		/* 7 */ STMT(BPF_JMP | BPF_JA, 1),
		/* 8 */ STMT(BPF_RET | BPF_K, 0x999),
		/* 9 */ STMT(BPF_LDX | BPF_IMM, FIN | ACK),
		/* 10 */ JUMP(BPF_JMP | BPF_JGT | BPF_X, 0, 0, 1),
		/* 11 */ STMT(BPF_RET | BPF_K, 0x333),
		/* 12 */ STMT(BPF_LDX | BPF_IMM, SYN),
		/* 13 */ JUMP(BPF_JMP | BPF_JGE | BPF_X, 0, 0, 1),
		/* 14 */ STMT(BPF_RET | BPF_K, 0x444),
		/* 15 */ STMT(BPF_RET | BPF_K, 0),
	};
	ck_assert_uint_eq(compare_all(prog, N(prog), "jumps", "v4 tcp rst"), 0x111);
	ck_assert_uint_eq(compare_all(prog, N(prog), "jumps", "v4 tcp from 6001 fin"), 0x111);
	ck_assert_uint_eq(compare_all(prog, N(prog), "jumps", "v4 tcp lo 6000 1448"), 0x222);
	ck_assert_uint_eq(compare_all(prog, N(prog), "jumps", "v4 tcp to 80 GET"), 0x333);
	ck_assert_uint_eq(compare_all(prog, N(prog), "jumps", "v4 tcp syn to 6000"), 0x444);
	ck_assert_uint_eq(compare_all(prog, N(prog), "jumps", "v4 tcp no flags"), 0);

	static const struct bpf_insn unsigned_prog[] = {
		/* 0 */ STMT(BPF_LD | BPF_IMM, 0x80000000),
		/* 1 */ JUMP(BPF_JMP | BPF_JGT | BPF_K, 0x7fffffff, 0, 8),	/* unsigned: taken */
		/* 2 */ STMT(BPF_LDX | BPF_IMM, 0xffffffff),
		/* 3 */ STMT(BPF_LD | BPF_W | BPF_LEN, 0),
		/* 4 */ JUMP(BPF_JMP | BPF_JGE | BPF_X, 0, 6, 0),	/* len >= 2^32-1: no */
		/* 5 */ STMT(BPF_ALU | BPF_NEG, 0),
		/* 6 */ JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x80000000, 0, 4),
		/* 7 */ STMT(BPF_LDX | BPF_W | BPF_LEN, 0),
		/* 8 */ STMT(BPF_ALU | BPF_SUB | BPF_X, 0),		/* -2 * len */
		/* 9 */ STMT(BPF_RET | BPF_A, 0),
		/* 10 */ STMT(BPF_RET | BPF_K, 1),
		/* 11 */ STMT(BPF_RET | BPF_K, 2),
	};
	const char *name = "v4 tcp lo 6000 1448";
	uint32_t len = (uint32_t)pkt_named(name)->len;
	ck_assert_uint_eq(compare_all(unsigned_prog, N(unsigned_prog), "unsigned", name),
			  (uint32_t)(0u - 2 * len));
}
END_TEST

/* Instructions no path reaches: classic BPF allows them, the eBPF
   verifier would not. */
START_TEST(unreachable)
{
	static const struct bpf_insn prog[] = {
		/* 0 */ STMT(BPF_LD | BPF_B | BPF_ABS, 9),
		/* 1 */ JUMP(BPF_JMP | BPF_JEQ | BPF_K, 6, 2, 0),
		/* 2 */ STMT(BPF_JMP | BPF_JA, 4),
		/* 3 */ STMT(BPF_RET | BPF_K, 0x999),		/* dead */
		/* 4 */ STMT(BPF_RET | BPF_K, 0x11),
		/* 5 */ STMT(BPF_ALU | BPF_ADD | BPF_K, 1),	/* dead */
		/* 6 */ STMT(BPF_RET | BPF_A, 0),		/* dead */
		/* 7 */ STMT(BPF_RET | BPF_K, 0x22),
	};
	ck_assert_uint_eq(compare_all(prog, N(prog), "unreachable", "v4 tcp rst"), 0x11);
	ck_assert_uint_eq(compare_all(prog, N(prog), "unreachable", "v4 udp to 6000"), 0x22);
}
END_TEST

/* A is 32 bits: what carries out of it, or borrows into it, is lost
   before the next operation. */
START_TEST(wrapping)
{
	static const struct bpf_insn by_x[] = {
		STMT(BPF_LD | BPF_IMM, 0xfffffff0),
		STMT(BPF_LDX | BPF_IMM, 0x20),
		STMT(BPF_ALU | BPF_ADD | BPF_X, 0),	/* 0x10 */
		STMT(BPF_LDX | BPF_IMM, 4),
		STMT(BPF_ALU | BPF_RSH | BPF_X, 0),	/* 1 */
		STMT(BPF_ALU | BPF_MUL | BPF_X, 0),	/* 4 */
		STMT(BPF_ST, 0),
		STMT(BPF_LD | BPF_IMM, 1),
		STMT(BPF_LDX | BPF_IMM, 2),
		STMT(BPF_ALU | BPF_SUB | BPF_X, 0),	/* 0xffffffff */
		STMT(BPF_LDX | BPF_IMM, 0x10),
		STMT(BPF_ALU | BPF_DIV | BPF_X, 0),	/* 0x0fffffff */
		STMT(BPF_LDX | BPF_IMM, 8),
		STMT(BPF_ALU | BPF_RSH | BPF_X, 0),	/* 0x000fffff */
		STMT(BPF_LDX | BPF_MEM, 0),
		STMT(BPF_ALU | BPF_MUL | BPF_X, 0),	/* 0x003ffffc */
		STMT(BPF_RET | BPF_A, 0),
	};
	ck_assert_uint_eq(compare_all(by_x, N(by_x), "wrapping by X", "arp request"), 0x003ffffc);
	static const struct bpf_insn by_k[] = {
		STMT(BPF_LD | BPF_IMM, 0xfffffff0),
		STMT(BPF_ALU | BPF_ADD | BPF_K, 0x20),	/* 0x10 */
		STMT(BPF_ALU | BPF_RSH | BPF_K, 4),	/* 1 */
		STMT(BPF_ALU | BPF_SUB | BPF_K, 2),	/* 0xffffffff */
		STMT(BPF_ALU | BPF_DIV | BPF_K, 0x10),	/* 0x0fffffff */
		STMT(BPF_ALU | BPF_MUL | BPF_K, 0x20),	/* 0xffffffe0 */
		STMT(BPF_ALU | BPF_RSH | BPF_K, 4),	/* 0x0ffffffe */
		STMT(BPF_ALU | BPF_LSH | BPF_K, 8),	/* 0xfffffe00 */
		STMT(BPF_ALU | BPF_MOD | BPF_K, 0x10000),	/* 0xfe00 */
		STMT(BPF_RET | BPF_A, 0),
	};
	ck_assert_uint_eq(compare_all(by_k, N(by_k), "wrapping by k", "arp request"), 0xfe00);
}
END_TEST

/* Indexed loads: X from ldxb 4*([k]&0xf), which keeps A; at and past the
   end of the packet. */
START_TEST(indexed_loads)
{
	static const struct bpf_insn prog[] = {
		/* 0 */ STMT(BPF_LD | BPF_IMM, 0x1234),
		/* 1 */ STMT(BPF_LDX | BPF_B | BPF_MSH, 0),	/* X = IP header length */
		/* 2 */ STMT(BPF_ALU | BPF_ADD | BPF_X, 0),	/* A kept */
		/* 3 */ STMT(BPF_ST, 2),
		/* 4 */ STMT(BPF_LD | BPF_H | BPF_IND, 2),	/* destination port */
		/* 5 */ JUMP(BPF_JMP | BPF_JEQ | BPF_K, 6000, 0, 3),
		/* 6 */ STMT(BPF_LDX | BPF_W | BPF_LEN, 0),
		/* 7 */ STMT(BPF_LD | BPF_B | BPF_IND, 0),	/* just past the end */
		/* 8 */ STMT(BPF_RET | BPF_K, 1),
		/* 9 */ JUMP(BPF_JMP | BPF_JEQ | BPF_K, 80, 0, 3),
		/* 10 */ STMT(BPF_LD | BPF_W | BPF_IND, 20),	/* payload */
		/* 11 */ STMT(BPF_ALU | BPF_AND | BPF_K, 0xffffff00),
		/* 12 */ STMT(BPF_RET | BPF_A, 0),
		/* 13 */ STMT(BPF_LDX | BPF_W | BPF_LEN, 0),
		/* 14 */ STMT(BPF_MISC | BPF_TXA, 0),
		/* 15 */ STMT(BPF_ALU | BPF_SUB | BPF_K, 1),
		/* 16 */ STMT(BPF_MISC | BPF_TAX, 0),
		/* 17 */ STMT(BPF_LD | BPF_B | BPF_IND, 0),	/* the last byte */
		/* 18 */ STMT(BPF_LDX | BPF_MEM, 2),
		/* 19 */ STMT(BPF_ALU | BPF_ADD | BPF_X, 0),
		/* 20 */ STMT(BPF_RET | BPF_A, 0),
	};
	ck_assert_uint_eq(compare_all(prog, N(prog), "indexed", "v4 tcp syn to 6000"), 0);
	ck_assert_uint_eq(compare_all(prog, N(prog), "indexed", "v4 tcp to 80 GET"), 0x47455400);
	const struct pkt *p = pkt_named("v4 tcp rst");
	ck_assert_uint_eq(compare_all(prog, N(prog), "indexed", p->name),
			  p->b[p->len - 1] + 0x1234u + 20);
	/* ldxb beyond the packet ends the filter */
	static const struct bpf_insn msh_beyond[] = {
		STMT(BPF_LD | BPF_IMM, 5),
		STMT(BPF_LDX | BPF_B | BPF_MSH, 60),
		STMT(BPF_ALU | BPF_ADD | BPF_X, 0),
		STMT(BPF_RET | BPF_A, 0),
	};
	ck_assert_uint_eq(compare_all(msh_beyond, N(msh_beyond), "ldxb", "v4 tcp rst"), 0);
	p = pkt_named("v4 tcp to 6064 psh 1200");
	ck_assert_uint_eq(compare_all(msh_beyond, N(msh_beyond), "ldxb", p->name),
			  5 + 4u * (p->b[60] & 0xf));
}
END_TEST

/* A and X start at 0. */
START_TEST(initial_registers)
{
	static const struct bpf_insn a_prog[] = {
		STMT(BPF_ALU | BPF_ADD | BPF_K, 7),
		STMT(BPF_RET | BPF_A, 0),
	};
	static const struct bpf_insn x_prog[] = {
		STMT(BPF_MISC | BPF_TXA, 0),
		STMT(BPF_ALU | BPF_ADD | BPF_K, 9),
		STMT(BPF_RET | BPF_A, 0),
	};
	static const struct bpf_insn ret_a[] = { STMT(BPF_RET | BPF_A, 0) };
	ck_assert_uint_eq(compare_all(a_prog, N(a_prog), "A", "arp request"), 7);
	ck_assert_uint_eq(compare_all(x_prog, N(x_prog), "X", "arp request"), 9);
	ck_assert_uint_eq(compare_all(ret_a, N(ret_a), "ret a", "arp request"), 0);
}
END_TEST

/* ---- ancillary loads (libpcap's interpreter does not know them) ---- */

static uint32_t ancillary(int32_t ad, const uint8_t dst[6], uint16_t ethertype,
			  const struct __sk_buff *ctx)
{
	struct bpf_insn prog[] = {
		STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(SKF_AD_OFF + ad)),
		STMT(BPF_ALU | BPF_ADD | BPF_K, 0x10000000),
		STMT(BPF_RET | BPF_A, 0),
	};
	int fd = must_translate(prog, N(prog), "ancillary");
	const struct pkt *p = pkt_named("v4 tcp syn to 6000");
	uint32_t r = 0;
	int rc = test_run_ctx(fd, dst, ethertype, p->b, p->len, ctx, &r);
	ck_assert_msg(rc == 0, "BPF_PROG_TEST_RUN: %s", strerror(-rc));
	close(fd);
	ck_assert_uint_ge(r, 0x10000000);
	return r - 0x10000000;
}

START_TEST(ancillary_loads)
{
	/* skb->protocol: the Ethernet type, in host order */
	ck_assert_uint_eq(ancillary(SKF_AD_PROTOCOL, to_host, ETH_TYPE_IP, NULL), ETH_TYPE_IP);
	ck_assert_uint_eq(ancillary(SKF_AD_PROTOCOL, to_host, ETH_TYPE_IPV6, NULL), ETH_TYPE_IPV6);
	/* skb->pkt_type, from the destination address */
	ck_assert_uint_eq(ancillary(SKF_AD_PKTTYPE, to_host, ETH_TYPE_IP, NULL), 0);
	/* (the loopback device has no broadcast address: all ones is
	   multicast to it) */
	ck_assert_uint_eq(ancillary(SKF_AD_PKTTYPE, to_broadcast, ETH_TYPE_IP, NULL), 2);
	ck_assert_uint_eq(ancillary(SKF_AD_PKTTYPE, to_multicast, ETH_TYPE_IP, NULL), 2);
	ck_assert_uint_eq(ancillary(SKF_AD_PKTTYPE, to_other, ETH_TYPE_IP, NULL), 3);
	/* the mark, from the context given */
	struct __sk_buff ctx;
	memset(&ctx, 0, sizeof ctx);
	ctx.mark = 0x0badcafe;
	ck_assert_uint_eq(ancillary(SKF_AD_MARK, to_host, ETH_TYPE_IP, &ctx), 0x0badcafe);
	ck_assert_uint_eq(ancillary(SKF_AD_MARK, to_host, ETH_TYPE_IP, NULL), 0);
	/* the device: loopback */
	unsigned lo = if_nametoindex("lo");
	ck_assert_uint_ne(lo, 0);
	ck_assert_uint_eq(ancillary(SKF_AD_IFINDEX, to_host, ETH_TYPE_IP, NULL), lo);
	/* no VLAN tag outside the data, no queue, no hash */
	ck_assert_uint_eq(ancillary(SKF_AD_VLAN_TAG_PRESENT, to_host, ETH_TYPE_IP, NULL), 0);
	ck_assert_uint_eq(ancillary(SKF_AD_VLAN_TAG, to_host, ETH_TYPE_IP, NULL), 0);
	ck_assert_uint_eq(ancillary(SKF_AD_VLAN_TPID, to_host, ETH_TYPE_IP, NULL), 0);
	ck_assert_uint_eq(ancillary(SKF_AD_QUEUE, to_host, ETH_TYPE_IP, NULL), 0);
	ck_assert_uint_eq(ancillary(SKF_AD_RXHASH, to_host, ETH_TYPE_IP, NULL), 0);

	/* libpcap's code for "vlan" on a live Linux capture: the tag is
	   outside the data there. */
	static const struct bpf_insn vlan[] = {
		STMT(BPF_LD | BPF_B | BPF_ABS, (uint32_t)(SKF_AD_OFF + SKF_AD_VLAN_TAG_PRESENT)),
		JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1),
		STMT(BPF_RET | BPF_K, SNAPLEN),
		STMT(BPF_RET | BPF_K, 0),
	};
	int fd = must_translate(vlan, N(vlan), "vlan tag present");
	const struct pkt *p = pkt_named("v4 tcp syn to 6000");
	ck_assert_uint_eq(test_run(fd, ETH_TYPE_IP, p->b, p->len), 0);
	close(fd);

	/* Those the kernel's socket filters know but the translation does
	   not: refused, with a reason. */
	static const int32_t unknown[] = { SKF_AD_NLATTR, SKF_AD_NLATTR_NEST, SKF_AD_HATYPE,
					   SKF_AD_CPU, SKF_AD_ALU_XOR_X, SKF_AD_PAY_OFFSET,
					   SKF_AD_RANDOM, 0x100 };
	for (size_t i = 0; i < N(unknown); i++) {
		struct bpf_insn prog[] = {
			STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(SKF_AD_OFF + unknown[i])),
			STMT(BPF_RET | BPF_A, 0),
		};
		char err[256];
		ck_assert_int_eq(translate(prog, N(prog), err, sizeof err), -1);
		ck_assert_msg(strstr(err, "instruction") != NULL, "ancillary %d: \"%s\"",
			      unknown[i], err);
	}
}
END_TEST

/* ---- programs the translation refuses ---- */

static void refused(const struct bpf_insn *prog, size_t n, const char *what)
{
	char err[256];
	int fd = translate(prog, n, err, sizeof err);
	if (fd >= 0)
		close(fd);
	ck_assert_msg(fd == -1, "%s: translated", what);
	ck_assert_msg(err[0] != '\0', "%s: refused without a reason", what);
}

START_TEST(refusals)
{
	/* for contrast: a program that is translated */
	static const struct bpf_insn fine[] = {
		STMT(BPF_LD | BPF_B | BPF_ABS, 0),
		JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x45, 0, 1),
		STMT(BPF_RET | BPF_K, 1),
		STMT(BPF_RET | BPF_K, 0),
	};
	close(must_translate(fine, N(fine), "fine"));

	refused(fine, 0, "no instructions");
	/* no return at the end */
	refused(fine, 1, "a load alone");
	refused(fine, 2, "ending with a jump");
	static const struct bpf_insn ret_first[] = {
		STMT(BPF_RET | BPF_K, 1),
		STMT(BPF_LD | BPF_B | BPF_ABS, 0),
	};
	refused(ret_first, N(ret_first), "a load after the return");
	/* jumps out of the program, or to just past its end */
	static const struct bpf_insn jt_out[] = {
		STMT(BPF_LD | BPF_B | BPF_ABS, 0),
		JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x45, 2, 0),
		STMT(BPF_RET | BPF_K, 1),
		STMT(BPF_RET | BPF_K, 0),
	};
	refused(jt_out, N(jt_out), "jt past the end");
	static const struct bpf_insn jf_out[] = {
		STMT(BPF_LD | BPF_B | BPF_ABS, 0),
		JUMP(BPF_JMP | BPF_JGT | BPF_K, 0x45, 0, 200),
		STMT(BPF_RET | BPF_K, 1),
	};
	refused(jf_out, N(jf_out), "jf out of range");
	static const struct bpf_insn ja_out[] = {
		STMT(BPF_JMP | BPF_JA, 1),
		STMT(BPF_RET | BPF_K, 1),
	};
	refused(ja_out, N(ja_out), "ja past the end");
	static const struct bpf_insn ja_far[] = {
		STMT(BPF_JMP | BPF_JA, 0xffffffff),
		STMT(BPF_RET | BPF_K, 1),
	};
	refused(ja_far, N(ja_far), "ja far away");
	/* checked also where no path reaches */
	static const struct bpf_insn dead_bad[] = {
		STMT(BPF_JMP | BPF_JA, 1),
		STMT(BPF_LD | BPF_MEM, 16),
		STMT(BPF_RET | BPF_K, 1),
	};
	refused(dead_bad, N(dead_bad), "an unreachable M[16]");
	static const struct bpf_insn dead_jump[] = {
		STMT(BPF_JMP | BPF_JA, 1),
		JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 9, 0),
		STMT(BPF_RET | BPF_K, 1),
	};
	refused(dead_jump, N(dead_jump), "an unreachable jump out of range");
	/* what classic BPF does not have */
	static const struct bpf_insn bad[][2] = {
		{ STMT(BPF_LD | BPF_MEM, 16), STMT(BPF_RET | BPF_K, 1) },
		{ STMT(BPF_ST, 16), STMT(BPF_RET | BPF_K, 1) },
		{ STMT(BPF_LDX | BPF_MEM, 16), STMT(BPF_RET | BPF_K, 1) },
		{ STMT(BPF_ALU | BPF_DIV | BPF_K, 0), STMT(BPF_RET | BPF_K, 1) },
		{ STMT(BPF_ALU | BPF_MOD | BPF_K, 0), STMT(BPF_RET | BPF_K, 1) },
		{ STMT(BPF_ALU | 0xb0 | BPF_K, 5), STMT(BPF_RET | BPF_A, 0) },	/* eBPF's mov */
		{ STMT(BPF_ALU | 0xc0 | BPF_K, 1), STMT(BPF_RET | BPF_A, 0) },	/* arsh */
		{ STMT(BPF_ALU | 0xd0 | BPF_K, 16), STMT(BPF_RET | BPF_A, 0) },	/* byte swap */
		{ STMT(BPF_MISC | 0x08, 0), STMT(BPF_RET | BPF_A, 0) },
		{ STMT(BPF_MISC | 0x40, 0), STMT(BPF_RET | BPF_A, 0) },
		{ STMT(BPF_RET | BPF_X, 0), STMT(BPF_RET | BPF_K, 1) },
		{ JUMP(BPF_JMP | 0x50 | BPF_K, 0, 0, 0), STMT(BPF_RET | BPF_K, 1) },	/* jne */
		{ STMT(BPF_LDX | BPF_B | BPF_MSH, (uint32_t)SKF_AD_OFF), STMT(BPF_RET | BPF_K, 1) },
	};
	for (size_t i = 0; i < N(bad); i++) {
		char what[64];
		snprintf(what, sizeof what, "instruction 0x%02x k %u", bad[i][0].code, bad[i][0].k);
		refused(bad[i], 2, what);
	}
}
END_TEST

/* ---- the cutter against the framing rules (protocols/x11_frame.h) ----

   The whole program (translation of "accept everything", then the
   cutter) runs in the kernel over generated conversations: the handshake,
   then the two streams of one X11 connection in packets of random sizes,
   interleaved.  For every packet the snapshot length it returns is
   compared with what the framing rules say: where messages begin and end
   (proto_x11_length) and how much of each the decoder reads
   (proto_x11_keep).  A packet whose last byte lies in a message, past
   the bytes of it the decoder reads, keeps its headers and payload up to
   those bytes; every other packet is kept whole.  Once the rules say no
   message can begin where one must (a length past the limits), the
   cutter must keep every packet from there on.  The conversations are
   valid X11 in both byte orders except for such a last message, with
   the cases that took framing code wrong before: BIG-REQUESTS,
   GenericEvents, the send-event bit, headers split across packets,
   messages over many packets. */

#define FRAMING_TRIALS 300
#define STREAM_MAX (1u << 20)
#define PAYLOAD_MAX 1448	/* with at most 90 headers a packet: under the cutter's 128 */
#define FRAME_SNAP 262144u

struct rng { uint64_t s; };

static uint32_t rnd(struct rng *r, uint32_t n)	/* 0 .. n-1 */
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return n ? (uint32_t)((r->s >> 16) % n) : 0;
}

struct stream {
	uint8_t *b;
	size_t n;
	bool big;
};

static void put8(struct stream *s, uint8_t v) { s->b[s->n++] = v; }
static void put16(struct stream *s, uint16_t v)
{
	put8(s, (uint8_t)(s->big ? v >> 8 : v));
	put8(s, (uint8_t)(s->big ? v : v >> 8));
}
static void put32(struct stream *s, uint32_t v)
{
	put16(s, (uint16_t)(s->big ? v >> 16 : v));
	put16(s, (uint16_t)(s->big ? v : v >> 16));
}
static void fill(struct stream *s, size_t n, struct rng *r)
{
	for (size_t i = 0; i < n; i++)
		put8(s, (uint8_t)rnd(r, 256));
}

/* Whether a message of `bytes` fits, leaving room for a last, invalid
   one (at most 12 KB). */
static bool room(const struct stream *s, uint64_t bytes)
{
	return s->n + bytes <= STREAM_MAX - 16384;
}

/* The client's stream: the setup request, then requests of every kind. */
static void client_stream(struct stream *s, struct rng *r, bool invalid_end)
{
	put8(s, s->big ? 'B' : 'l');
	put8(s, 0);
	put16(s, 11);
	put16(s, 0);
	uint16_t an = (uint16_t)rnd(r, 20), dn = (uint16_t)rnd(r, 40);
	put16(s, an);
	put16(s, dn);
	put16(s, 0);
	fill(s, (an + 3u) / 4 * 4 + (dn + 3u) / 4 * 4, r);
	unsigned count = 20 + rnd(r, 200);
	for (unsigned i = 0; i < count; i++) {
		/* core requests the decoder reads 32 bytes of, and all of; extensions */
		static const uint8_t majors[] = { 1, 8, 12, 16, 18, 20, 38, 43, 55, 62, 70, 72, 98,
						  127 };
		uint8_t major = rnd(r, 3) ? majors[rnd(r, sizeof majors)]
					  : (uint8_t)(128 + rnd(r, 128));
		/* mostly small, some over many packets; at least 16 bytes, so
		   that a packet holds fewer headers than the cutter reads */
		uint32_t units = rnd(r, 4) ? 4 + rnd(r, 60) : 4 + rnd(r, 20000);
		bool big = rnd(r, 6) == 0;
		if (!room(s, 4ull * units + 4))
			break;
		put8(s, major);
		put8(s, (uint8_t)rnd(r, 256));
		if (big) {
			put16(s, 0);
			put32(s, units + 1);
			fill(s, 4ull * units - 4, r);
		} else {
			put16(s, (uint16_t)units);
			fill(s, 4ull * units - 4, r);
		}
	}
	if (invalid_end) {	/* BIG-REQUESTS with a length past the limit */
		put8(s, 72);
		put8(s, 0);
		put16(s, 0);
		put32(s, PROTO_X11_REQUEST_MAX_UNITS + 1 + rnd(r, 1000));
		fill(s, 4000 + rnd(r, 8000), r);
	}
}

/* The server's stream: the setup reply, then replies, events, errors. */
static void server_stream(struct stream *s, struct rng *r, bool invalid_end)
{
	put8(s, 1);			/* Success */
	put8(s, 0);
	put16(s, 11);
	put16(s, 0);
	uint16_t units = (uint16_t)(8 + rnd(r, 2000));
	put16(s, units);
	fill(s, 4u * units, r);
	unsigned count = 20 + rnd(r, 300);
	for (unsigned i = 0; i < count; i++) {
		unsigned kind = rnd(r, 10);
		uint32_t extra = rnd(r, 3) ? rnd(r, 30) : rnd(r, 30000);
		if (!room(s, 32 + 4ull * extra))
			break;
		uint8_t code;
		switch (kind) {
		case 0: code = 0; extra = 0; break;				/* error */
		case 1: case 2: case 3: code = 1; break;			/* reply */
		case 4: code = 0x81; break;	/* reply code with the send-event bit */
		case 5: code = X11_EVENT_GeGeneric | (rnd(r, 2) ? 0x80 : 0); break;
		default:
			code = (uint8_t)(2 + rnd(r, 126));
			if (code == X11_EVENT_GeGeneric)
				code++;
			code |= rnd(r, 4) ? 0 : 0x80;
			extra = 0;
		}
		put8(s, code);
		put8(s, (uint8_t)rnd(r, 256));
		put16(s, (uint16_t)rnd(r, 65536));
		put32(s, extra);
		fill(s, 24 + 4ull * extra, r);
	}
	if (invalid_end) {	/* a reply longer than the limit */
		put8(s, 1);
		put8(s, 0);
		put16(s, 0);
		put32(s, PROTO_X11_REPLY_MAX_UNITS + 1 + rnd(r, 1000));
		fill(s, 4000 + rnd(r, 8000), r);
	}
}

/* What the rules say of a stream: message i starts at start[i] and the
   decoder reads its first keep[i] bytes; a message the rules reject
   starts at bad (else bad is the stream's length). */
struct framing {
	size_t *start, *keep, n;
	size_t bad;
};

static void frame_by_rules(const struct stream *s, bool server, struct framing *f)
{
	f->n = 0;
	f->bad = s->n;
	struct proto_x11_at at = { .server = server, .setup = true, .big_endian = s->big };
	size_t pos = 0;
	while (pos < s->n) {
		struct cursor c = cursor_init(s->b + pos, s->n - pos);
		int64_t len = proto_x11_length(at, &c);
		if (len < 0) {
			f->bad = pos;
			return;
		}
		ck_assert_msg(len > 0, "generated stream ends inside a header at %zu", pos);
		f->start[f->n] = pos;
		f->keep[f->n] = proto_x11_keep(at, s->b[pos]);
		f->n++;
		pos += (size_t)len;
		at.setup = false;
	}
	ck_assert_uint_eq(pos, s->n);	/* the generator's lengths are the rules' */
}

/* The snapshot length the rules want for the packet holding stream bytes
   [a, b). */
static uint32_t expected_snap(const struct framing *f, size_t a, size_t b, unsigned headers)
{
	if (b > f->bad)
		return FRAME_SNAP;	/* the cutter must have given up */
	/* the message holding the packet's last byte */
	size_t lo = 0, hi = f->n;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (f->start[mid] <= b - 1)
			lo = mid;
		else
			hi = mid;
	}
	size_t body = f->start[lo] + f->keep[lo];
	if (body >= b)
		return FRAME_SNAP;
	return headers + (uint32_t)(body > a ? body - a : 0);
}

/* One IPv4/TCP packet from (client ? client : server), seen from its IP header. */
static size_t frame_packet(uint8_t *out, bool client, uint32_t seq, uint8_t flags,
			   const uint8_t *payload, size_t n)
{
	uint8_t src[4] = { 10, 0, 0, 1 }, dst[4] = { 10, 0, 0, 2 };
	uint16_t sport = 40000, dport = PROTO_X11_PORT_FIRST;
	memset(out, 0, 40);
	out[0] = 0x45;
	be16(out + 2, (uint16_t)(40 + n));
	out[8] = 64;
	out[9] = 6;
	memcpy(out + 12, client ? src : dst, 4);
	memcpy(out + 16, client ? dst : src, 4);
	be16(out + 20, client ? sport : dport);
	be16(out + 22, client ? dport : sport);
	be32(out + 24, seq);
	out[32] = 5 << 4;
	out[33] = flags;
	be16(out + 34, 65535);
	if (n)
		memcpy(out + 40, payload, n);
	return 40 + n;
}

START_TEST(framing_rules)
{
	struct bpf_insn accept[] = { STMT(BPF_RET | BPF_K, FRAME_SNAP) };
	struct sock_filter *f = to_sock_filter(accept, 1);
	char err[512] = "";
	int fd = -1;
	struct cut *k = cut_load_for_test(f, 1, DLT_RAW, &fd, err, sizeof err);
	free(f);
	ck_assert_msg(k, "cutter not loaded: %s", err);

	struct stream st[2];
	struct framing fr[2];
	for (int d = 0; d < 2; d++) {
		st[d].b = malloc(STREAM_MAX);
		fr[d].start = calloc(STREAM_MAX / 4, sizeof(size_t));
		fr[d].keep = calloc(STREAM_MAX / 4, sizeof(size_t));
		ck_assert(st[d].b && fr[d].start && fr[d].keep);
	}
	uint8_t pkt[40 + PAYLOAD_MAX];
	unsigned long checked = 0, cut = 0;
	for (unsigned trial = 0; trial < FRAMING_TRIALS; trial++) {
		struct rng r = { 0x9e3779b97f4a7c15ull * (trial + 1) };
		bool big = rnd(&r, 2);
		bool invalid = rnd(&r, 5) == 0;
		for (int d = 0; d < 2; d++) {
			st[d].n = 0;
			st[d].big = big;
		}
		client_stream(&st[0], &r, invalid && rnd(&r, 2));
		server_stream(&st[1], &r, invalid && rnd(&r, 2));
		frame_by_rules(&st[0], false, &fr[0]);
		frame_by_rules(&st[1], true, &fr[1]);

		/* the handshake: the cutter starts following at the SYNs */
		uint32_t isn[2] = { rnd(&r, UINT32_MAX), rnd(&r, UINT32_MAX) };
		size_t n = frame_packet(pkt, true, isn[0], SYN, NULL, 0);
		ck_assert_uint_eq(test_run(fd, ETH_TYPE_IP, pkt, n), FRAME_SNAP);
		n = frame_packet(pkt, false, isn[1], SYN | ACK, NULL, 0);
		ck_assert_uint_eq(test_run(fd, ETH_TYPE_IP, pkt, n), FRAME_SNAP);

		size_t sent[2] = { 0, 0 };
		while (sent[0] < st[0].n || sent[1] < st[1].n) {
			int d = sent[0] == st[0].n ? 1 : sent[1] == st[1].n ? 0 : (int)rnd(&r, 2);
			size_t len = rnd(&r, 4) ? PAYLOAD_MAX : 1 + rnd(&r, PAYLOAD_MAX);
			if (len > st[d].n - sent[d])
				len = st[d].n - sent[d];
			n = frame_packet(pkt, d == 0, isn[d] + 1 + (uint32_t)sent[d], ACK | PSH,
					 st[d].b + sent[d], len);
			uint32_t got = test_run(fd, ETH_TYPE_IP, pkt, n);
			uint32_t want = expected_snap(&fr[d], sent[d], sent[d] + len, 40);
			ck_assert_msg(got == want,
				      "trial %u (%s-endian), %s bytes %zu-%zu: the cutter keeps %u, "
				      "the rules %u", trial, big ? "big" : "little",
				      d ? "server" : "client", sent[d], sent[d] + len, got, want);
			checked++;
			cut += want != FRAME_SNAP;
			sent[d] += len;
		}
	}
	/* the comparison meant something: both kinds of decision were made */
	ck_assert_uint_gt(cut, 1000);
	ck_assert_uint_gt(checked - cut, 1000);
	for (int d = 0; d < 2; d++) {
		free(st[d].b);
		free(fr[d].start);
		free(fr[d].keep);
	}
	close(fd);
	cut_free(k);
}
END_TEST

static Suite *cut_suite(void)
{
	Suite *s = suite_create("cut");
	TCase *tc = tcase_create("presentation");
	tcase_add_test(tc, presentation);
	suite_add_tcase(s, tc);

	tc = tcase_create("libpcap");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, pcap_expressions, 0, (int)N(exprs));
	suite_add_tcase(s, tc);

	tc = tcase_create("hand-written");
	tcase_add_test(tc, scratch_and_x);
	tcase_add_test(tc, scratch_all_words);
	tcase_add_test(tc, division_by_x);
	tcase_add_test(tc, jumps_with_x);
	tcase_add_test(tc, unreachable);
	tcase_add_test(tc, wrapping);
	tcase_add_test(tc, indexed_loads);
	tcase_add_test(tc, initial_registers);
	tcase_add_test(tc, ancillary_loads);
	suite_add_tcase(s, tc);

	tc = tcase_create("refused");
	tcase_add_test(tc, refusals);
	suite_add_tcase(s, tc);

	tc = tcase_create("framing");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, framing_rules);
	suite_add_tcase(s, tc);
	return s;
}

/* Whether BPF can be used here: a translation of "tcp" is loaded and run
   once; NULL, or the reason it cannot. */
static const char *bpf_unusable(char *why, size_t len)
{
	if (geteuid() != 0)
		return "not root";
	pcap_t *pd = pcap_open_dead(DLT_RAW, SNAPLEN);
	struct bpf_program bp;
	if (!pd || pcap_compile(pd, &bp, "tcp", 1, PCAP_NETMASK_UNKNOWN) != 0) {
		fprintf(stderr, "check_cut: libpcap cannot compile \"tcp\"\n");
		exit(EXIT_FAILURE);
	}
	pcap_close(pd);
	struct sock_filter *f = to_sock_filter(bp.bf_insns, bp.bf_len);
	char err[256] = "";
	errno = 0;
	int fd = cut_load_translation(f, bp.bf_len, err, sizeof err);
	int e = errno;
	free(f);
	pcap_freecode(&bp);
	if (fd < 0) {
		if (e == EPERM || e == ENOSYS) {
			snprintf(why, len, "the kernel refuses BPF: %s", err);
			return why;
		}
		return NULL;	/* some other refusal: the tests say which */
	}
	const struct pkt *p = &pkts[0];
	uint32_t r;
	int rc = test_run_ctx(fd, to_host, p->ethertype, p->b, p->len, NULL, &r);
	close(fd);
	if (rc == -EPERM || rc == -ENOSYS || rc == -ENOTSUP || rc == -524 /* ENOTSUPP */) {
		snprintf(why, len, "the kernel cannot test-run socket filters: %s", strerror(-rc));
		return why;
	}
	return NULL;
}

int main(void)
{
	build_packets();
	char why[512];
	const char *skip = bpf_unusable(why, sizeof why);
	if (skip) {
		printf("SKIP: check_cut: %s\n", skip);
		return 77;
	}
	SRunner *sr = srunner_create(cut_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
