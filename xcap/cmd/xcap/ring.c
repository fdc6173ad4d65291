/*
 * ring.c — touching every page of the packet ring once, at start.
 *
 * Why: on the virtual machine this was measured on, the first read of
 * each page of the ring cost about a microsecond, with no page fault the
 * guest could count: the hypervisor filling its own page tables lazily,
 * it seems.  The kernel's TPACKET_V3 ring is mapped whole when libpcap
 * activates the handle, but the capture loop is what first reads each of
 * its pages, one such cost per 4 KB in the middle of a burst.  Measured
 * with tests/ring-floor on a 64 MB ring and x11perf's image traffic: 27-31
 * ms of CPU while the workload ran untouched, 11-14 ms touched
 * beforehand; xcap's own figure fell by a third.  Where first reads are
 * cheap the touch costs a read per page at start and changes nothing.
 *
 * libpcap does not say where its ring is; /proc/self/maps does, as the
 * mapping of the capture socket ("socket:[INODE]").
 *
 * Belongs to: the xcap command's room (xcap/cmd/xcap/).
 */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ring.h"

size_t ring_prefault(int fd)
{
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		return 0;
	char name[48];
	snprintf(name, sizeof name, "socket:[%ju]", (uintmax_t)st.st_ino);
	FILE *maps = fopen("/proc/self/maps", "r");
	if (!maps)
		return 0;
	long page = sysconf(_SC_PAGESIZE);
	if (page <= 0)
		page = 4096;
	size_t touched = 0;
	char line[512];
	while (fgets(line, sizeof line, maps)) {
		uintptr_t from, to;
		if (!strstr(line, name) || sscanf(line, "%" SCNxPTR "-%" SCNxPTR, &from, &to) != 2 || to <= from)
			continue;
		/* The ring's other end is the kernel's: reading cannot disturb it. */
		for (uintptr_t p = from; p < to; p += (uintptr_t)page)
			(void)*(volatile const unsigned char *)p;
		touched += to - from;
	}
	fclose(maps);
	return touched;
}
