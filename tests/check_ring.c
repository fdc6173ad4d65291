/*
 * check_ring.c — ring_prefault (xcap/cmd/xcap/ring.c) finds libpcap's packet ring
 * and reading it leaves the capture working.
 *
 * The prefault is invisible from outside: were it to stop finding the
 * ring (a change in /proc/self/maps, in libpcap's mapping), captures
 * would still work, only slower on some machines.  So this asks directly
 * how much ring it touched, on a live handle on lo, and then that a
 * datagram sent to lo afterwards is still captured.
 *
 * Live capture needs root; without it, or without lo, the program says
 * SKIP and exits 77.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <check.h>
#include <pcap/pcap.h>

#include "ring.h"

enum { RING_BYTES = 4 << 20, PORT = 47001 };

static pcap_t *open_lo(char *err)
{
	pcap_t *p = pcap_create("lo", err);
	if (!p)
		return NULL;
	pcap_set_snaplen(p, 262144);
	pcap_set_buffer_size(p, RING_BYTES);
	pcap_set_timeout(p, 10);
	if (pcap_activate(p) < 0) {
		snprintf(err, PCAP_ERRBUF_SIZE, "%s", pcap_geterr(p));
		pcap_close(p);
		return NULL;
	}
	return p;
}

START_TEST(not_a_ring)
{
	ck_assert_uint_eq(ring_prefault(-1), 0);
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_uint_eq(ring_prefault(fds[0]), 0);
	close(fds[0]);
	close(fds[1]);
	/* a socket of the same family with no ring mapped */
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	ck_assert_int_ge(s, 0);
	ck_assert_uint_eq(ring_prefault(s), 0);
	close(s);
}
END_TEST

static int seen_port;
static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *b)
{
	(void)user;
	/* lo: Ethernet, IPv4 without options, UDP */
	if (h->caplen >= 14 + 20 + 8 && b[12] == 0x08 && b[13] == 0 && b[14 + 9] == 17 &&
	    (b[14 + 22] << 8 | b[14 + 23]) == PORT)
		seen_port = 1;
}

START_TEST(touches_the_whole_ring)
{
	char err[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = open_lo(err);
	ck_assert_msg(p != NULL, "cannot capture on lo: %s", err);
	size_t touched = ring_prefault(pcap_fileno(p));
	/* libpcap rounds the ring up to whole blocks, never down */
	ck_assert_uint_ge(touched, RING_BYTES);
	ck_assert_uint_le(touched, 2 * RING_BYTES);

	struct bpf_program bp;
	ck_assert_int_eq(pcap_compile(p, &bp, "udp port 47001", 1, PCAP_NETMASK_UNKNOWN), 0);
	ck_assert_int_eq(pcap_setfilter(p, &bp), 0);
	pcap_freecode(&bp);
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	ck_assert_int_ge(s, 0);
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(PORT) };
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	seen_port = 0;
	for (int i = 0; i < 200 && !seen_port; i++) {
		ck_assert_int_eq(sendto(s, "ring", 4, 0, (struct sockaddr *)&to, sizeof to), 4);
		ck_assert_int_ge(pcap_dispatch(p, -1, on_packet, NULL), 0);
	}
	close(s);
	pcap_close(p);
	ck_assert_msg(seen_port, "nothing captured on lo after the ring was touched");
}
END_TEST

int main(void)
{
	char err[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = geteuid() == 0 ? open_lo(err) : NULL;
	if (!p) {
		printf("SKIP: check_ring: cannot capture on lo: %s\n",
		       geteuid() == 0 ? err : "not root");
		return 77;
	}
	pcap_close(p);
	Suite *s = suite_create("ring");
	TCase *tc = tcase_create("prefault");
	tcase_add_test(tc, not_a_ring);
	tcase_add_test(tc, touches_the_whole_ring);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
