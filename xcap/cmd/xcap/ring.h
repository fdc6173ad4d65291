/*
 * ring.h — preparing libpcap's packet ring before the capture loop.
 *
 * Belongs to: the xcap command's room (xcap/cmd/xcap/).
 */
#ifndef XCAP_RING_H
#define XCAP_RING_H

#include <stddef.h>

/* Read one byte of every page of the packet ring that `fd` (a live
   pcap_t's pcap_fileno) has mapped, so that the capture loop does not
   pay for the pages' first touch.  Returns how many bytes of ring were
   touched, 0 when no ring is mapped (not Linux, no mmap ring). */
size_t ring_prefault(int fd);

#endif
