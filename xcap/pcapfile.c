/*
 * pcapfile.c — .pcap and .pcapng files (see pcapfile.h).
 *
 * The reader works on a window of bytes, buf[pos..len), that need()
 * refills from the file a chunk at a time, moving the unread rest to the
 * start, and grows when a record is larger than it.  need() makes a
 * record's bytes present; the record is then read through a cursor over
 * exactly those bytes (protocols/cursor.h), so a hostile length can only
 * end the reading with a message, never reach outside the record.
 *
 * Why not map the file: on the virtual machines this is developed on,
 * every page mapped into the process costs a trap to the hypervisor, and
 * reading a large capture through mmap took twice as long as copying it
 * into one small buffer used over and over.
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pcap/pcap.h>

#include "cursor.h"
#include "pcapfile.h"

enum { FMT_PCAP, FMT_PCAPNG };

/* Records claiming more than this are damage, not packets: libpcap's own
   largest snapshot length is 256 KB, and USB captures reach a few MB. */
#define RECORD_MAX (64u << 20)
#define CHUNK (256u << 10)	/* read at a time: the copy stays in the cache */

#define PCAPNG_SHB 0x0a0d0d0au
#define PCAPNG_IDB 1u
#define PCAPNG_PB 2u	/* the obsolete packet block */
#define PCAPNG_SPB 3u
#define PCAPNG_EPB 6u
#define PCAPNG_BOM 0x1a2b3c4du

struct iface {
	int linktype;
	uint32_t snaplen;
	uint8_t tsresol;	/* pcapng's if_tsresol: 10^-n, or 2^-n with the top bit */
	int64_t tsoffset;	/* seconds */
};

struct pcapfile {
	FILE *f;
	uint8_t *base;		/* the window */
	size_t cap, len, pos;
	uint64_t base_off;	/* file offset of base[0] */
	int eof;
	int live_pipe;		/* reads take only what is needed (see need()) */

	int format;
	bool big;		/* the file (pcap) or section (pcapng) is big-endian */
	int nano;		/* pcap: nanosecond timestamps */
	int linktype;
	uint32_t snaplen;
	struct iface *ifs;	/* pcapng: the current section's interfaces */
	size_t nifs, ifs_cap;
	uint64_t last_ts;
	uint64_t skipped;

	pcap_t *dead;		/* for the filter */
	struct bpf_program prog;
	int have_prog;
	char err[320];
};

static void fail(struct pcapfile *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err, sizeof p->err, fmt, ap);
	va_end(ap);
}


/* Make n bytes from pos available.  0: the input ends first. */
static int need(struct pcapfile *p, size_t n)
{
	if (p->len - p->pos >= n)
		return 1;
	if (p->eof)
		return 0;
	size_t have = p->len - p->pos;
	if (n > p->cap) {
		size_t cap = p->cap ? p->cap : CHUNK;
		while (cap < n)
			cap *= 2;
		uint8_t *b = malloc(cap);
		if (!b) {
			fail(p, "out of memory for a record of %zu bytes", n);
			p->eof = 1;
			return 0;
		}
		if (have)
			memcpy(b, p->base + p->pos, have);
		free(p->base);
		p->base = b;
		p->cap = cap;
	} else if (have) {
		memmove(p->base, p->base + p->pos, have);
	}
	p->base_off += p->pos;
	p->pos = 0;
	p->len = have;
	while (p->len < n) {
		/* From a pipe, a large read would wait for the writer to fill
		   it: packets from `tcpdump -U -w - | xcap -r -` would come in
		   bursts long after they were captured.  Asking for just the
		   bytes needed leaves the waiting to stdio, which returns what
		   the pipe has. */
		size_t want = p->live_pipe ? n - p->len : p->cap - p->len;
		size_t got = fread(p->base + p->len, 1, want, p->f);
		p->len += got;
		if (got == 0) {
			if (ferror(p->f))
				fail(p, "read error: %s", strerror(errno));
			p->eof = 1;
			return 0;
		}
	}
	return 1;
}

/* A cursor over the n bytes at pos, which need() has made present (else
   an empty one, overrun).  Callers check its overrun flag once: then the
   compiler knows its length, and reads of fixed fields cost no checks. */
static inline struct cursor window(const struct pcapfile *p, size_t n)
{
	struct cursor all = cursor_init(p->base + p->pos, p->len - p->pos);
	return cursor_sub(&all, n);
}

/* Numbers in the file's (pcap) or the section's (pcapng) byte order. */
static uint16_t file_u16(const struct pcapfile *p, struct cursor *c) { return cursor_u16(c, p->big); }
static uint32_t file_u32(const struct pcapfile *p, struct cursor *c) { return cursor_u32(c, p->big); }

static uint64_t offset_now(const struct pcapfile *p) { return p->base_off + p->pos; }

/* The file ended inside a record of `want` bytes. */
static int truncated(struct pcapfile *p, const char *what, size_t want)
{
	if (!p->err[0])
		fail(p, "truncated: %s at byte %llu needs %zu bytes, the file has %zu", what,
		     (unsigned long long)offset_now(p), want, p->len - p->pos);
	return -1;
}

/* pcap's link-type numbers are DLT_ numbers, except where a DLT_ differs
   between systems: LINKTYPE_RAW is DLT_RAW here. */
static int dlt_of_linktype(uint32_t lt)
{
	lt &= 0xffff;	/* the upper bits say how many FCS bytes frames carry */
	return lt == 101 ? DLT_RAW : (int)lt;
}

/* ---- classic pcap ---- */

/* magic: the file's first four bytes, most significant first. */
static int open_pcap(struct pcapfile *p, uint32_t magic)
{
	p->format = FMT_PCAP;
	p->big = magic == 0xa1b2c3d4u || magic == 0xa1b23c4du;
	p->nano = magic == 0xa1b23c4du || magic == 0x4d3cb2a1u;
	if (!need(p, 24)) {
		fail(p, "truncated: the pcap file header needs 24 bytes");
		return -1;
	}
	struct cursor h = window(p, 24);
	cursor_skip(&h, 4);	/* magic */
	uint16_t major = file_u16(p, &h), minor = file_u16(p, &h);
	cursor_skip(&h, 8);	/* time zone, accuracy */
	p->snaplen = file_u32(p, &h);
	uint32_t linktype = file_u32(p, &h);
	if (major != 2) {
		fail(p, "pcap format version %u.%u, not 2.x", major, minor);
		return -1;
	}
	p->linktype = dlt_of_linktype(linktype);
	p->pos += 24;
	return 0;
}

static int next_pcap(struct pcapfile *p, struct pcapfile_packet *pkt)
{
	if (!need(p, 16)) {
		if (p->len == p->pos && !p->err[0])
			return 0;
		return truncated(p, "a record header", 16);
	}
	struct cursor h = window(p, 16);
	if (h.overrun)
		return truncated(p, "a record header", 16);
	uint64_t sec = file_u32(p, &h), frac = file_u32(p, &h);
	uint32_t caplen = file_u32(p, &h);
	uint32_t len = file_u32(p, &h);
	if (caplen > RECORD_MAX) {
		fail(p, "damaged record at byte %llu: %u bytes captured",
		     (unsigned long long)offset_now(p), caplen);
		return -1;
	}
	if (!need(p, 16 + (size_t)caplen))
		return truncated(p, "a record", 16 + (size_t)caplen);
	struct cursor r = window(p, 16 + (size_t)caplen);
	cursor_skip(&r, 16);	/* the header, read above */
	pkt->data = cursor_span(&r, caplen);
	if (!pkt->data)
		return truncated(p, "a record", 16 + (size_t)caplen);
	pkt->ts = sec * 1000000000u + (p->nano ? frac : frac * 1000u);
	pkt->caplen = caplen;
	pkt->len = len;
	p->pos += 16 + (size_t)caplen;
	return 1;
}

/* ---- pcapng ---- */

static uint64_t ticks_to_ns(uint64_t ticks, uint8_t tsresol)
{
	unsigned n = tsresol & 0x7f;
	if (tsresol & 0x80) {		/* 2^-n seconds */
		if (n > 63)
			return 0;
		return (uint64_t)(((unsigned __int128)ticks * 1000000000u) >> n);
	}
	uint64_t scale = 1;
	if (n <= 9) {
		for (unsigned i = n; i < 9; i++)
			scale *= 10;
		return ticks * scale;
	}
	for (unsigned i = 9; i < n && i < 28; i++)
		scale *= 10;
	return n >= 28 ? 0 : ticks / scale;
}

/* An interface description: link type, snaplen, and the options that say
   how to read its timestamps.  body: the block's body (at least 8 bytes). */
static void add_interface(struct pcapfile *p, struct cursor body)
{
	if (p->nifs == p->ifs_cap) {
		size_t cap = p->ifs_cap ? p->ifs_cap * 2 : 4;
		struct iface *m = realloc(p->ifs, cap * sizeof *m);
		if (!m)
			return;
		p->ifs = m;
		p->ifs_cap = cap;
	}
	struct iface *i = &p->ifs[p->nifs++];
	i->linktype = dlt_of_linktype(file_u16(p, &body));
	cursor_skip(&body, 2);	/* reserved */
	i->snaplen = file_u32(p, &body);
	i->tsresol = 6;
	i->tsoffset = 0;
	while (cursor_left(&body) >= 4) {
		uint16_t code = file_u16(p, &body), olen = file_u16(p, &body);
		if (code == 0 || !cursor_has(&body, olen))
			break;
		struct cursor v = cursor_sub(&body, olen);
		if (code == 9 && olen >= 1)
			i->tsresol = cursor_u8(&v);
		else if (code == 14 && olen >= 8)
			i->tsoffset = (int64_t)cursor_u64(&v, p->big);
		/* values are padded to 4 bytes; the last one's padding may be missing */
		if (!cursor_skip(&body, (4u - olen % 4u) % 4u))
			break;
	}
	if (p->linktype < 0) {
		p->linktype = i->linktype;
		p->snaplen = i->snaplen;
	}
}

/* A section header: its byte order, and a fresh set of interfaces. */
static int section_header(struct pcapfile *p)
{
	if (!need(p, 12))
		return truncated(p, "a section header", 12);
	struct cursor h = window(p, 12);
	cursor_skip(&h, 8);	/* type, length */
	uint32_t bom = cursor_be32(&h);
	if (bom == PCAPNG_BOM)
		p->big = true;
	else if (bom == __builtin_bswap32(PCAPNG_BOM))
		p->big = false;
	else {
		fail(p, "damaged section header at byte %llu: no byte-order magic",
		     (unsigned long long)offset_now(p));
		return -1;
	}
	p->nifs = 0;
	return 0;
}

/* The block at pos, whole in the window and its lengths sound (a section
   header's byte order taken on the way), not yet consumed: 1; 0 at a
   clean end; -1 with the reason. */
static int block_at(struct pcapfile *p, uint32_t *type, uint32_t *total)
{
	if (!need(p, 8)) {
		if (p->len == p->pos && !p->err[0])
			return 0;
		return truncated(p, "a block header", 8);
	}
	struct cursor h = window(p, 8);
	if (cursor_peek_be32(&h, 0, NULL) == PCAPNG_SHB &&	/* the same in either order */
	    section_header(p) < 0)
		return -1;
	h = window(p, 8);	/* section_header may have moved the window */
	*type = file_u32(p, &h);
	*total = file_u32(p, &h);
	if (*total < 12 || *total % 4 || *total > RECORD_MAX) {
		fail(p, "damaged block at byte %llu: length %u", (unsigned long long)offset_now(p),
		     *total);
		return -1;
	}
	if (!need(p, *total))
		return truncated(p, "a block", *total);
	struct cursor t = window(p, *total);
	cursor_skip(&t, *total - 4);
	uint32_t trailer = file_u32(p, &t);
	if (trailer != *total) {
		fail(p, "damaged block at byte %llu: its two lengths differ (%u, %u)",
		     (unsigned long long)offset_now(p), *total, trailer);
		return -1;
	}
	return 1;
}

static int is_packet_block(uint32_t type)
{
	return type == PCAPNG_EPB || type == PCAPNG_PB || type == PCAPNG_SPB;
}

static int next_pcapng(struct pcapfile *p, struct pcapfile_packet *pkt)
{
	for (;;) {
		uint32_t type, total;
		int rc = block_at(p, &type, &total);
		if (rc <= 0)
			return rc;
		struct cursor b = window(p, total);
		cursor_skip(&b, 8);	/* type, length */
		struct cursor body = cursor_sub(&b, total - 12);	/* block_at: total >= 12 */
		p->pos += total;
		size_t body_len = cursor_left(&body);
		uint32_t ifid = 0, caplen, len;
		uint64_t ts;
		switch (type) {
		case PCAPNG_IDB:
			if (body_len >= 8)
				add_interface(p, body);
			continue;
		case PCAPNG_EPB:
		case PCAPNG_PB: {
			/* The same layout, but the obsolete block numbers its
			   interface in 16 bits, then counts drops in the other 16. */
			struct cursor h = cursor_sub(&body, 20);
			if (h.overrun)
				goto damaged;
			if (type == PCAPNG_EPB) {
				ifid = file_u32(p, &h);
			} else {
				ifid = file_u16(p, &h);
				cursor_skip(&h, 2);	/* drops */
			}
			ts = (uint64_t)file_u32(p, &h) << 32;
			ts |= file_u32(p, &h);
			caplen = file_u32(p, &h);
			len = file_u32(p, &h);
			break;
		}
		case PCAPNG_SPB:
			/* No timestamp: it takes the previous packet's, so that
			   time does not jump back to 1970. */
			if (body_len < 4 || !p->nifs)
				goto damaged;
			len = file_u32(p, &body);
			caplen = len;
			if (p->ifs[0].snaplen && caplen > p->ifs[0].snaplen)
				caplen = p->ifs[0].snaplen;
			if (caplen > cursor_left(&body))
				caplen = (uint32_t)cursor_left(&body);
			ts = UINT64_MAX;
			break;
		default:
			continue;	/* statistics, name resolution, custom blocks */
		}
		if (ifid >= p->nifs) {
			fail(p, "damaged packet block at byte %llu: interface %u was never described",
			     (unsigned long long)(offset_now(p) - total), ifid);
			return -1;
		}
		const uint8_t *data = cursor_span(&body, caplen);
		if (!data)
			goto damaged;
		const struct iface *i = &p->ifs[ifid];
		if (i->linktype != p->linktype) {
			p->skipped++;
			continue;
		}
		pkt->ts = ts == UINT64_MAX ? p->last_ts
					   : ticks_to_ns(ts, i->tsresol) +
						     (uint64_t)i->tsoffset * 1000000000u;
		pkt->data = data;
		pkt->caplen = caplen;
		pkt->len = len;
		return 1;
damaged:
		fail(p, "damaged packet block at byte %llu",
		     (unsigned long long)(offset_now(p) - total));
		return -1;
	}
}

/* ---- the interface ---- */

struct pcapfile *pcapfile_open(FILE *f, char *err, size_t errlen)
{
	struct pcapfile *p = calloc(1, sizeof *p);
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->f = f;
	p->linktype = -1;
	struct stat st;
	int fd = fileno(f);
	p->live_pipe = fd >= 0 && fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ||
							  S_ISCHR(st.st_mode));
	uint32_t magic = 0;	/* the first four bytes, most significant first */
	if (need(p, 4)) {
		struct cursor m = window(p, 4);
		magic = cursor_be32(&m);
	}
	int rc;
	if (magic == 0xa1b2c3d4u || magic == 0xa1b23c4du || magic == 0xd4c3b2a1u ||
	    magic == 0x4d3cb2a1u) {
		rc = open_pcap(p, magic);
	} else if (magic == PCAPNG_SHB) {
		p->format = FMT_PCAPNG;
		/* The link type is needed now: read the blocks before the first
		   packet (the section header, interfaces, anything else). */
		uint32_t type, total;
		while ((rc = block_at(p, &type, &total)) == 1 && !is_packet_block(type)) {
			if (type == PCAPNG_IDB && total >= 20) {
				struct cursor b = window(p, total);
				cursor_skip(&b, 8);	/* type, length */
				add_interface(p, cursor_sub(&b, total - 12));
			}
			p->pos += total;
		}
		if (p->linktype >= 0) {
			/* Damage after an interface, before any packet, is for
			   pcapfile_next to report: the file opens. */
			rc = 0;
		} else if (rc >= 0) {
			fail(p, rc ? "no interface description before the first packet"
				   : "no interface description: the file ends first");
			rc = -1;
		}
	} else {
		/* Nothing at all is said as every reader says it (source.c). */
		fail(p, p->len == 0 && !ferror(f) ? "empty file" : "not a pcap or pcapng file");
		rc = -1;
	}
	if (rc < 0) {
		snprintf(err, errlen, "%s", p->err);
		pcapfile_close(p);
		return NULL;
	}
	return p;
}

int pcapfile_set_filter(struct pcapfile *p, const char *expr, char *err, size_t errlen)
{
	if (!expr || !*expr)
		return 0;
	if (p->have_prog)
		pcap_freecode(&p->prog);
	if (p->dead)
		pcap_close(p->dead);
	p->have_prog = 0;
	p->dead = pcap_open_dead_with_tstamp_precision(p->linktype, p->snaplen ? (int)p->snaplen : 262144,
						       PCAP_TSTAMP_PRECISION_NANO);
	if (!p->dead) {
		snprintf(err, errlen, "cannot prepare a filter");
		return -1;
	}
	if (pcap_compile(p->dead, &p->prog, expr, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		snprintf(err, errlen, "%s", pcap_geterr(p->dead));
		return -1;
	}
	p->have_prog = 1;
	return 0;
}

int pcapfile_next(struct pcapfile *p, struct pcapfile_packet *pkt)
{
	if (p->err[0])
		return -1;	/* reading stops at the damage, and stays stopped */
	for (;;) {
		int rc = p->format == FMT_PCAP ? next_pcap(p, pkt) : next_pcapng(p, pkt);
		if (rc != 1)
			return rc;
		p->last_ts = pkt->ts;
		if (p->have_prog) {
			struct pcap_pkthdr h = { .caplen = pkt->caplen, .len = pkt->len };
			if (!pcap_offline_filter(&p->prog, &h, pkt->data))
				continue;
		}
		return 1;
	}
}

const char *pcapfile_error(const struct pcapfile *p) { return p->err; }
int pcapfile_linktype(const struct pcapfile *p) { return p->linktype; }
uint32_t pcapfile_snaplen(const struct pcapfile *p) { return p->snaplen; }
uint64_t pcapfile_skipped(const struct pcapfile *p) { return p->skipped; }

void pcapfile_close(struct pcapfile *p)
{
	if (!p)
		return;
	if (p->have_prog)
		pcap_freecode(&p->prog);
	if (p->dead)
		pcap_close(p->dead);
	free(p->base);
	free(p->ifs);
	free(p);
}
