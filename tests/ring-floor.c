/*
 * ring-floor.c — the least any capturer that keeps whole packets can do:
 * read them from libpcap's ring on the interface, look at the link, IP,
 * TCP and first payload bytes, and nothing else (no reassembly, no
 * decoding, no output).  bench-capture.sh runs it beside xcap and tcpdump
 * so that the CPU a packet costs xcap can be set against the cost of
 * reading whole packets at all, and tcpdump -s 96's against reading 96
 * bytes of each.  It reads the ring as xcap does: a 64 MB buffer whose
 * pages are touched once at start (xcap/cmd/xcap/ring.c), taken at most every 5 ms.
 *
 *   ring-floor IFACE SNAPLEN FILTER...      (SIGINT ends it)
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pcap/pcap.h>

#include "ring.h"

static volatile sig_atomic_t stop;
static pcap_t *handle;
static unsigned long packets, touched;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
	pcap_breakloop(handle);
}

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *data)
{
	(void)user;
	packets++;
	/* Ethernet, IPv4, TCP and the first payload byte: what any decoder
	   must read of every packet. */
	for (unsigned off = 0; off < 67 && off < h->caplen; off += 33)
		touched += data[off];
}

int main(int argc, char **argv)
{
	char err[PCAP_ERRBUF_SIZE];
	if (argc < 3) {
		fprintf(stderr, "usage: ring-floor IFACE SNAPLEN [FILTER...]\n");
		return 2;
	}
	char filter[1024] = "";
	for (int i = 3; i < argc; i++)
		snprintf(filter + strlen(filter), sizeof filter - strlen(filter), "%s%s",
			 i > 3 ? " " : "", argv[i]);
	handle = pcap_create(argv[1], err);
	if (!handle) {
		fprintf(stderr, "ring-floor: %s: '%s'\n", err, argv[1]);
		return 1;
	}
	pcap_set_snaplen(handle, atoi(argv[2]));
	pcap_set_timeout(handle, 100);
	pcap_set_buffer_size(handle, 64 << 20);
	pcap_set_tstamp_precision(handle, PCAP_TSTAMP_PRECISION_NANO);
	struct bpf_program prog;
	if (pcap_activate(handle) < 0 ||
	    pcap_compile(handle, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) < 0 ||
	    pcap_setfilter(handle, &prog) < 0) {
		fprintf(stderr, "ring-floor: %s: '%s'\n", pcap_geterr(handle), argv[1]);
		return 1;
	}
	ring_prefault(pcap_fileno(handle));
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	fprintf(stderr, "ring-floor: listening on %s\n", argv[1]);
	while (!stop) {
		if (pcap_dispatch(handle, -1, on_packet, NULL) > 0) {
			struct timespec pause = { 0, 5000000 };
			nanosleep(&pause, NULL);
		}
	}
	struct pcap_stat st;
	unsigned drops = pcap_stats(handle, &st) == 0 ? st.ps_drop : 0;
	fprintf(stderr, "ring-floor: %lu packets captured, %u dropped by kernel (%lu)\n", packets,
		drops, touched);
	pcap_close(handle);
	return 0;
}
