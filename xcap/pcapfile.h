/*
 * pcapfile.h — .pcap and .pcapng files, from a file or a pipe.
 *
 * Packets are handed out as pointers into a buffer that holds the whole
 * current record, filled by large reads (of a regular file, by a thread
 * reading ahead): no call per packet, no copy per packet.  Both byte orders; pcap with microsecond or nanosecond
 * timestamps; pcapng with several sections and interfaces, each with its
 * time resolution and offset.  Every command that reads a capture file
 * reads it here (libpcap still opens live captures and compiles filters).
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#ifndef XCAP_PCAPFILE_H
#define XCAP_PCAPFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "decode.h"

struct pcapfile;

struct pcapfile_packet {
	uint64_t ts;		/* ns since the epoch */
	const uint8_t *data;	/* valid until the next call */
	uint32_t caplen, len;
};

/* Read the capture from f's current position (f stays the caller's, and
   must stay open until pcapfile_close).  Returns NULL with the reason in
   err when f does not hold a capture it can read. */
struct pcapfile *pcapfile_open(FILE *f, char *err, size_t errlen);
/* Keep only packets that match a BPF expression (libpcap's syntax).
   Returns -1 with the reason in err. */
int pcapfile_set_filter(struct pcapfile *p, const char *expr, char *err, size_t errlen);
/* The next packet: 1; 0 at the end; -1 when the rest cannot be read
   (pcapfile_error says why; everything before was delivered). */
int pcapfile_next(struct pcapfile *p, struct pcapfile_packet *pkt);
const char *pcapfile_error(const struct pcapfile *p);

/* A packet with, when seg is not NULL, decode_frame's result for it
   (result, and *seg for DECODE_TCP; both valid as long as the data). */
struct pcapfile_frame {
	struct pcapfile_packet pkt;
	const struct tcp_seg *seg;
	enum decode_result result;
};
/* Let the thread that reads a regular file decode the frames (of link
   type dlt) ahead, while it has nothing to read: the parsing thread then
   finds most of them decoded (pcapfile_next_frame).  A pcap file, or a
   pcapng file whose first interface has link type dlt and which has at
   most 8 interfaces when it is called (packets of interfaces described
   later or of another link type take the parsing thread's way).  Not for
   pipes or a filter (it does nothing then); call before the first
   packet, after pcapfile_set_filter. */
void pcapfile_decode_ahead(struct pcapfile *p, int dlt);
/* pcapfile_next, with the frame's decoding when the reader did it. */
int pcapfile_next_frame(struct pcapfile *p, struct pcapfile_frame *fr);
/* The link type (a DLT_ value) of the first interface, and its snaplen.
   Packets of a pcapng interface with another link type are skipped and
   counted. */
int pcapfile_linktype(const struct pcapfile *p);
uint32_t pcapfile_snaplen(const struct pcapfile *p);
uint64_t pcapfile_skipped(const struct pcapfile *p);
/* The file offset of the next record: how far the parsing is. */
uint64_t pcapfile_offset(const struct pcapfile *p);
void pcapfile_close(struct pcapfile *p);

#endif
