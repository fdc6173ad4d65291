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
 * A regular file is read by a thread of its own (the reader, below) into
 * a ring of buffers, ahead of the parsing: the copy out of the page cache
 * is most of the time a large capture takes, and done beside the parsing
 * it costs the wall clock no more than `cat` does.  need() then moves to
 * the next buffer instead of reading, copying only the unread tail of a
 * record cut by the buffer's end in front of it.  Pipes and terminals are
 * read in the parsing thread, as before, a record at a time.
 *
 * Why not map the file: on the virtual machines this is developed on,
 * mapping the page cache costs more than copying it (1.09 GB warm: 140
 * ms of CPU through read(), 180-195 ms mapped, with MADV_SEQUENTIAL,
 * MAP_POPULATE, MADV_POPULATE_READ in windows or MADV_HUGEPAGE alike),
 * and the parsing then misses the cache at every packet's header where
 * the copy had brought it in.  Measured again (0.98 GB, 898 k packets):
 * the parsing thread takes 75 ms beside a 40-50 ms copy in the reader;
 * mapped, with MADV_SEQUENTIAL, MAP_POPULATE, MADV_HUGEPAGE or
 * MADV_WILLNEED, the one thread takes 190-220 ms.  Buffers of 64 KB or
 * 1 MB, 4 or 32 of them, and POSIX_FADV_SEQUENTIAL measured the same as
 * 8 of 256 KB; 4 MB ones worse.
 *
 * Decoding ahead: on captures of small packets the parsing, not the
 * copy, is what the wall clock waits for, and the reader then sleeps on
 * a full ring.  It spends that time walking the records of the buffers
 * need() has not reached and decoding their frames (decode_frame) into
 * the buffer's `ahead` list, which pcapfile_next_frame hands out by a
 * look-up.  It does so only with nothing to read, so that a capture
 * whose copy is the bottleneck is read as before; when it falls behind,
 * its walk loses its place and need() gives it a record's start again
 * (reader_sync).  A buffer need() has taken is not decoded further; a
 * record cut by a buffer's end, a pcapng block other than a packet of a
 * known interface, a new section, damage, a filter or a pipe take the
 * ordinary path.  On 921 k packets cut to 96 bytes (pcapng) this takes
 * 229 M of 1,674 M instructions off the parsing thread.
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "clock.h"
#include "cursor.h"
#include "decode.h"
#include "grow.h"
#include "pcapfile.h"

enum { FMT_PCAP, FMT_PCAPNG };

/* Records claiming more than this are damage, not packets: libpcap's own
   largest snapshot length is 256 KB, and USB captures reach a few MB. */
#define RECORD_MAX (64u << 20)
#define CHUNK (256u << 10)	/* read at a time: the copy stays in the cache */
/* The reader's buffers: how many, and the room in front of each one's
   data for the tail of a record that began in the buffer before.  A
   tail longer than that is joined in p->join instead.  16, not 8: on
   small packets need() empties a buffer in about 0.09 ms, and a reader
   asleep on a full ring, woken when half of it is free, may take longer
   than 4 buffers' time to run again; half of 16 covers it (921 k 96-byte
   snaps: median of 61 runs 58.5 -> 50.0 ms; full size unchanged). */
#define RING 16
#define HEADROOM (64u << 10)
/* A buffer is read in pieces that either thread may claim (see
   claim_piece). */
#define PIECES 4u
#define PIECE (CHUNK / PIECES)
/* Records the reader decodes ahead in one buffer at most (a buffer of
   96-byte snaps holds some 2,300), and how many it decodes between two
   looks at whether need() has taken the buffer meanwhile. */
#define AHEAD_MAX 4096u
#define AHEAD_BATCH 64u
/* Slots ready for need() from which the walk goes before the reading. */
#define WALK_FIRST 2u
/* How long need(), waiting for the reader, looks for its progress
   before it sleeps (see progress_within). */
#define TAKER_SPIN_NS 200000u

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
	/* ns in a tick when the resolution is 10^-n with n <= 9 (all but
	   rare files): a multiplication per packet instead of ticks_to_ns;
	   else 0.  Set with tsresol (iface_scale). */
	uint32_t ns_per_tick;
};

/* A pcap record the reader thread parsed and decoded ahead of need(). */
struct ahead {
	/* As pcapfile_next_frame hands it out, copied whole: its data
	   is frame_hdr bytes after the record's header, in the slot. */
	struct pcapfile_packet pkt;
	uint32_t size;		/* the whole record's */
	enum decode_result result;
	struct tcp_seg seg;
};

/* One buffer of the reader's ring: CHUNK bytes read at file offset off
   (fewer at the end), after HEADROOM bytes of room. */
struct slot {
	uint8_t *mem;
	size_t got;		/* bytes read: 0 at the end of the file */
	int err;		/* errno of a failed read, 0 none */
	bool full;		/* filled, not yet given back by need() */
	bool filling;		/* its pieces are being read */
	unsigned claimed, done;	/* pieces claimed, and read, so far */
	size_t piece_got[PIECES];	/* each piece's bytes read, */
	int piece_err[PIECES];		/* and errno */
	bool taken;		/* need() has taken it since it was filled */
	uint64_t chunk;		/* which CHUNK of the file it holds */
	struct ahead *ahead;	/* the records decoded ahead (n_ahead), or NULL */
	unsigned n_ahead;
};

/* The thread that reads a regular file ahead of the parsing.  It fills
   the slots in turn, each as soon as need() has given it back; need(),
   waiting for a slot, reads pieces of the one being filled itself. */
struct reader {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t filled, freed;
	struct slot slot[RING];
	int fd;
	struct slot *cur;	/* the slot whose pieces are being claimed, or NULL */
	unsigned next_fill;	/* the next slot to begin filling */
	unsigned next_take;	/* need()'s next slot */
	unsigned free_slots;	/* slots given back and not yet filled again */
	unsigned ready;		/* slots filled and not yet taken */
	unsigned progress;	/* slots begun or filled: what need() waits for */
	bool spin;		/* the process may run on two CPUs or more */
	/* Asleep on filled or freed.  Wakes cost more than the copying of a
	   slot: one asleep is woken only when half the ring is ready for it
	   (or the file ended). */
	bool taker_asleep, reader_asleep;
	bool taker_waiting;	/* need() waits for a slot: it reads pieces */
	bool stop;		/* pcapfile_close: the reader ends */
	bool eof;		/* the last slot is filled */
	uint64_t start;		/* file offset of chunk 0 */
	uint64_t chunks;	/* chunks begun so far: the next one's number */

	/* Decoding ahead (pcapfile_decode_ahead): with nothing to read (the
	   ring is full), the reader walks the pcap records of the slots
	   need() has not reached yet and decodes their frames, so that
	   need()'s thread only looks them up.  chain is the file offset of
	   the next record the walk knows of; its header's first bytes, when
	   they ended the previous slot, wait in head. */
	bool ahead_on, ng, big, nano, chain_ok, sync_ok, chain_dead;
	int dlt;
	struct iface ifs[8];	/* pcapng: the section's interfaces */
	unsigned nifs;
	uint64_t chain, sync;	/* sync: a record's start, from need() */
	uint8_t head[16];
	unsigned head_have;
};

struct pcapfile {
	FILE *f;
	struct reader *rd;	/* NULL: read through f in this thread */
	struct slot *held;	/* the reader's slot the window is in, or NULL */
	/* held's records decoded ahead: the next one to hand out, and the
	   end of them (both NULL: none).  Pointers, not indexes: the
	   look-up is done a packet. */
	const struct ahead *next_ahead, *end_ahead;
	bool decode_ahead;	/* pcapfile_decode_ahead is on */
	uint32_t frame_hdr;	/* then: a record's bytes before its frame */
	uint8_t *base;		/* the window: in a slot (held), or buf */
	uint8_t *buf;		/* the window's own buffer (cap bytes) when not a slot's */
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


/* ---- the reader thread ---- */

/* Which chunk file offset off falls in. */
static uint64_t chunk_of(const struct reader *r, uint64_t off) { return (off - r->start) / CHUNK; }

static uint64_t ticks_to_ns(uint64_t ticks, uint8_t tsresol);

/* A packet's time in ns since the epoch: a pcap record's seconds and
   fraction, or a pcapng packet's ticks on its interface's clock.  One
   place each for the walk ahead and the parsing thread. */
static inline uint64_t pcap_ns(uint64_t sec, uint64_t frac, int nano)
{
	return sec * 1000000000u + (nano ? frac : frac * 1000u);
}

static inline uint64_t iface_ns(const struct iface *i, uint64_t ticks)
{
	uint64_t ns = i->ns_per_tick ? ticks * i->ns_per_tick : ticks_to_ns(ticks, i->tsresol);
	return ns + (uint64_t)i->tsoffset * 1000000000u;
}

/* A record header as the walk reads it: a pcap record's 16 bytes, or a
   pcapng block's first 8 (type and length). */
static unsigned head_size(const struct reader *r) { return r->ng ? 8 : 16; }

/* Decode the record at h (size bytes, wholly in the slot) into *a: 1, or
   0 when the parsing thread must read it itself (a pcapng block other
   than a packet of a known interface, or a damaged one). */
static int decode_record(const struct reader *r, const uint8_t *h, uint32_t size,
			 struct ahead *a)
{
	struct cursor c = cursor_init(h, size);
	uint32_t caplen, len, hdr;
	uint64_t ts;
	if (!r->ng) {
		uint64_t sec = cursor_u32(&c, r->big), frac = cursor_u32(&c, r->big);
		caplen = cursor_u32(&c, r->big);
		len = cursor_u32(&c, r->big);
		ts = pcap_ns(sec, frac, r->nano);
		hdr = 16;
	} else {
		/* The enhanced packet block's fixed fields taken as one
		   checked span, then its trailing length. */
		struct cursor f = cursor_sub(&c, 28);
		if (f.overrun)
			return 0;
		uint32_t type = cursor_u32(&f, r->big);
		cursor_skip(&f, 4);	/* the length: size */
		uint32_t ifid = cursor_u32(&f, r->big);
		bool ok = true;
		if (type != PCAPNG_EPB || size < 32 || cursor_peek_u32(&c, size - 4, r->big, &ok) != size ||
		    !ok || ifid >= r->nifs || r->ifs[ifid].linktype != r->dlt)
			return 0;
		/* The timestamp's two 32-bit halves (high first, each in the
		   section's order) as one 64-bit read: read as two, they
		   went through the stack as two 4-byte stores and one 8-byte
		   load, which waited for the stores (no forwarding), a
		   stall a packet. */
		uint64_t ticks = cursor_u64(&f, r->big);
		if (!r->big)
			ticks = ticks << 32 | ticks >> 32;
		caplen = cursor_u32(&f, r->big);
		len = cursor_u32(&f, r->big);
		if (caplen > size - 32)
			return 0;
		ts = iface_ns(&r->ifs[ifid], ticks);
		hdr = 28;
	}
	a->pkt.ts = ts;
	a->pkt.data = h + hdr;
	a->pkt.caplen = caplen;
	a->pkt.len = len;
	a->size = r->ng ? size : 16 + caplen;
	a->result = decode_frame(r->dlt, h + hdr, caplen, len, &a->seg);
	return 1;
}

/* Walk the records of slot s from r->chain on, until the chain leaves
   the slot, decoding the frames of those wholly inside it while need()
   has not taken it.  Called without the lock; the slot's bytes stay as
   they are meanwhile, for only this thread fills slots, and only after
   the walk. */
static void walk_slot(struct reader *r, struct slot *s)
{
	uint64_t s_off = r->start + s->chunk * CHUNK;
	const uint8_t *data = s->mem + HEADROOM;
	size_t end = s->got;
	uint64_t x = r->chain;
	unsigned n = 0, hs = head_size(r);
	pthread_mutex_lock(&r->lock);
	bool dec = !s->taken && !s->err;
	pthread_mutex_unlock(&r->lock);
	if (dec && !s->ahead && !(s->ahead = malloc(AHEAD_MAX * sizeof *s->ahead)))
		dec = false;
	bool lost = false, dead = false;
	for (;;) {
		uint8_t joined[16];
		const uint8_t *h;
		if (x < s_off) {	/* the header began in the slot before */
			size_t rest = hs - r->head_have;
			if (rest > end) {
				lost = true;
				break;
			}
			memcpy(joined, r->head, r->head_have);
			memcpy(joined + r->head_have, data, rest);
			r->head_have = 0;
			h = joined;
		} else {
			size_t o = x - s_off;
			if (o >= end) {
				dead = end < CHUNK;	/* the file ends */
				break;	/* else it begins in a later slot */
			}
			if (end - o < hs) {
				if (end < CHUNK) {	/* the file ends inside it */
					dead = true;
					break;
				}
				r->head_have = (unsigned)(end - o);
				memcpy(r->head, data + o, r->head_have);
				break;
			}
			h = data + o;
		}
		struct cursor c = cursor_init(h, hs);
		uint64_t size;
		if (r->ng) {
			uint32_t type = cursor_u32(&c, r->big);
			size = cursor_u32(&c, r->big);
			/* A new section (its byte order, its interfaces) ends
			   the walk; damage is need()'s to report. */
			if (type == PCAPNG_SHB || size < 12 || size % 4 || size > RECORD_MAX) {
				dead = true;
				break;
			}
		} else {
			cursor_skip(&c, 8);
			uint32_t caplen = cursor_u32(&c, r->big);
			if (caplen > RECORD_MAX) {
				dead = true;
				break;
			}
			size = 16 + (uint64_t)caplen;
		}
		uint64_t next = x + size;
		if (dec && x >= s_off && next <= s_off + end && n < AHEAD_MAX &&
		    decode_record(r, h, (uint32_t)size, &s->ahead[n])) {
			if (++n % AHEAD_BATCH == 0) {
				pthread_mutex_lock(&r->lock);
				if (s->taken)
					dec = false;
				else
					s->n_ahead = n;
				pthread_mutex_unlock(&r->lock);
			}
		}
		x = next;
	}
	pthread_mutex_lock(&r->lock);
	if (dec && !s->taken)
		s->n_ahead = n;
	r->chain = x;
	r->chain_ok = !lost && !dead;
	r->chain_dead |= dead;
	pthread_mutex_unlock(&r->lock);
}

/* Under the lock: the slot the walk goes on in, when it is filled and
   there is a walk to make; else NULL. */
static struct slot *walk_next(struct reader *r)
{
	if (!r->ahead_on || r->chain_dead)
		return NULL;
	if (!r->chain_ok && r->sync_ok) {
		r->chain = r->sync;
		r->head_have = 0;
		r->chain_ok = true;
		r->sync_ok = false;
	}
	if (!r->chain_ok)
		return NULL;
	uint64_t c = chunk_of(r, r->chain + r->head_have);
	if (c >= r->chunks || c + RING < r->chunks)
		return NULL;
	struct slot *s = &r->slot[c % RING];
	return s->chunk == c && s->full ? s : NULL;
}

/* Under the lock: begin filling the next slot, when it is free and the
   file goes on; 0 if not. */
static int begin_slot(struct reader *r)
{
	struct slot *s = &r->slot[r->next_fill];
	if (r->eof || s->full || s->filling)
		return 0;
	/* The slot is refilled: a walk that has not passed its old bytes
	   loses its place (need() will give another). */
	if (r->chain_ok && r->chunks >= RING &&
	    chunk_of(r, r->chain + r->head_have) <= r->chunks - RING)
		r->chain_ok = false;
	s->taken = false;
	s->n_ahead = 0;
	s->chunk = r->chunks++;
	s->filling = true;
	s->claimed = s->done = 0;
	r->free_slots--;
	r->next_fill = (r->next_fill + 1) % RING;
	r->cur = s;
	r->progress++;
	return 1;
}

/* Under the lock: claim the next pieces to read (*n of them from *piece,
   of the slot returned), or NULL when there is none.  Only the reader
   thread begins a slot (begin), so that no slot its walk reads is filled
   meanwhile; need() claims pieces of the slot begun, one at a time.  The
   reader claims all a slot has left in one read, or one piece while
   need() is waiting too (a read a piece costs more CPU: when the other
   core is busy anyway, it is lost).  It begins the next slot as it
   claims the last piece of the one before, so that a need() waiting
   for that piece finds others to read meanwhile. */
static struct slot *claim_piece(struct reader *r, unsigned *piece, unsigned *n, bool begin)
{
	if (!r->cur && !(begin && begin_slot(r)))
		return NULL;
	struct slot *s = r->cur;
	*piece = s->claimed;
	*n = begin && !r->taker_waiting ? PIECES - s->claimed : 1;
	s->claimed += *n;
	if (s->claimed == PIECES) {
		r->cur = NULL;
		if (begin)
			begin_slot(r);
	}
	return s;
}

/* Read n claimed pieces from piece on, without the lock: no other
   thread touches their bytes. */
static void read_pieces(struct reader *r, struct slot *s, unsigned piece, unsigned n)
{
	uint8_t *to = s->mem + HEADROOM + (size_t)piece * PIECE;
	uint64_t off = r->start + s->chunk * CHUNK + (uint64_t)piece * PIECE;
	size_t want = (size_t)n * PIECE, got = 0;
	int err = 0;
	while (got < want) {
		ssize_t k = pread(r->fd, to + got, want - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			err = errno;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	for (unsigned i = 0; i < n; i++) {	/* short: the error is the first short piece's */
		size_t at = (size_t)i * PIECE;
		s->piece_got[piece + i] = got <= at ? 0 : got - at < PIECE ? got - at : PIECE;
		s->piece_err[piece + i] = got < at + PIECE ? err : 0;
	}
}

/* Under the lock: n pieces of s are read.  With the last one, the slot
   is filled: its bytes are those of its pieces up to the first short one
   (the end of the file, or an error; a file that grew meanwhile is read
   no further). */
static void pieces_read(struct reader *r, struct slot *s, unsigned n)
{
	if ((s->done += n) < PIECES)
		return;
	size_t got = 0;
	int err = 0;
	for (unsigned i = 0; i < PIECES; i++) {
		got += s->piece_got[i];
		err = s->piece_err[i];
		if (err || s->piece_got[i] < PIECE)
			break;
	}
	s->got = got;
	s->err = err;
	s->filling = false;
	s->full = true;
	r->ready++;
	r->progress++;
	if (got < CHUNK)
		r->eof = true;	/* the end, or an error: nothing follows */
	/* need() sleeps only with no piece to read; it waits for this slot. */
	if (r->taker_asleep && (s == &r->slot[r->next_take] || r->eof))
		pthread_cond_signal(&r->filled);
}

static void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* Under the lock: whether the reader begins or fills a slot within ns,
   looked for with the lock let go between looks.  need() looks a while
   before it sleeps, when the two threads can run at once: the reader is
   then in the middle of a copy or a walk, and on the virtual machines
   measured a thread woken from its sleep took 0.3 ms on average to run
   again, up to 2 ms, more than the reader needs for a slot. */
static bool progress_within(struct reader *r, uint64_t ns)
{
	if (!r->spin)
		return false;
	unsigned seen = r->progress;
	uint64_t until = clock_ns(CLOCK_MONOTONIC) + ns;
	do {
		pthread_mutex_unlock(&r->lock);
		for (int i = 0; i < 32; i++)
			relax();
		pthread_mutex_lock(&r->lock);
		if (r->progress != seen)
			return true;
	} while (clock_ns(CLOCK_MONOTONIC) < until);
	return false;
}

/* Under the lock: claim pieces (claim_piece's begin), read them with the
   lock let go, and take them in.  False when there was none to claim.
   The one way either thread copies, whichever of them is free. */
static bool copy_claimed(struct reader *r, bool begin)
{
	unsigned piece, n;
	struct slot *s = claim_piece(r, &piece, &n, begin);
	if (!s)
		return false;
	pthread_mutex_unlock(&r->lock);
	read_pieces(r, s, piece, n);
	pthread_mutex_lock(&r->lock);
	pieces_read(r, s, n);
	return true;
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	pthread_mutex_lock(&r->lock);
	for (;;) {
		if (r->stop)
			break;
		/* With slots ready for the parsing, the walk goes first,
		   over the slot just read while its bytes are in the cache;
		   else reading goes first, and the walk comes when there is
		   nothing to read. */
		struct slot *w = r->ready >= WALK_FIRST ? walk_next(r) : NULL;
		if (!w && copy_claimed(r, true))
			continue;
		if (!w)
			w = walk_next(r);
		if (w) {
			pthread_mutex_unlock(&r->lock);
			walk_slot(r, w);
			pthread_mutex_lock(&r->lock);
			continue;
		}
		if (r->eof)
			break;
		r->reader_asleep = true;
		pthread_cond_wait(&r->freed, &r->lock);
		r->reader_asleep = false;
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* Read f from its current position in a thread of its own, when it is a
   regular file; otherwise (or without the resources) leave p->rd NULL. */
static void reader_start(struct pcapfile *p, const struct stat *st)
{
	off_t at = ftello(p->f);	/* stdio may have read ahead of it */
	if (!S_ISREG(st->st_mode) || at < 0)
		return;
	struct reader *r = calloc(1, sizeof *r);
	if (!r)
		return;
	unsigned made = 0;
	for (; made < RING; made++)
		if (!(r->slot[made].mem = malloc(HEADROOM + CHUNK)))
			break;
	r->fd = fileno(p->f);
	r->start = (uint64_t)at;
	r->free_slots = RING;
	cpu_set_t cpus;
	r->spin = sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) > 1;
	if (made == RING && pthread_mutex_init(&r->lock, NULL) == 0) {
		if (pthread_cond_init(&r->filled, NULL) == 0) {
			if (pthread_cond_init(&r->freed, NULL) == 0) {
				/* The first slot is begun before the thread
				   is: the first need() reads pieces of it
				   instead of waiting for the thread to start. */
				begin_slot(r);
				if (pthread_create(&r->thread, NULL, reader_main, r) == 0) {
					p->rd = r;
					p->base_off = (uint64_t)at;
					return;
				}
				pthread_cond_destroy(&r->freed);
			}
			pthread_cond_destroy(&r->filled);
		}
		pthread_mutex_destroy(&r->lock);
	}
	for (unsigned i = 0; i < made; i++)
		free(r->slot[i].mem);
	free(r);
}

static void reader_stop(struct reader *r)
{
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_signal(&r->freed);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL);
	pthread_cond_destroy(&r->freed);
	pthread_cond_destroy(&r->filled);
	pthread_mutex_destroy(&r->lock);
	for (unsigned i = 0; i < RING; i++) {
		free(r->slot[i].mem);
		free(r->slot[i].ahead);
	}
	free(r);
}

/* The next slot the reader filled, waited for, with the records decoded
   in it ahead (p->next_ahead): from now on the reader decodes no more there. */
static struct slot *reader_take(struct pcapfile *p, struct reader *r)
{
	pthread_mutex_lock(&r->lock);
	struct slot *s = &r->slot[r->next_take];
	while (!s->full) {
		/* Rather than wait for the copy, share it. */
		r->taker_waiting = true;
		if (copy_claimed(r, false) || progress_within(r, TAKER_SPIN_NS))
			continue;
		r->taker_asleep = true;
		pthread_cond_wait(&r->filled, &r->lock);
		r->taker_asleep = false;
	}
	r->taker_waiting = false;
	r->taker_asleep = false;
	r->ready--;
	r->next_take = (r->next_take + 1) % RING;
	s->taken = true;
	p->next_ahead = s->ahead;
	p->end_ahead = s->ahead ? s->ahead + s->n_ahead : NULL;
	pthread_mutex_unlock(&r->lock);
	return s;
}

/* Tell a reader whose walk lost its place (it fell behind, or began
   after the file's header) where a record begins in the slot the window
   is now in: after the record at pos, when that one began before the
   slot's data, else at pos. */
static void reader_sync(struct pcapfile *p)
{
	struct reader *r = p->rd;
	const uint8_t *data = p->held->mem + HEADROOM;
	uint64_t at = p->base_off + p->pos;
	if (p->base + p->pos < data) {	/* the record at pos: its size */
		struct cursor h = cursor_init(p->base + p->pos, p->len - p->pos);
		uint64_t size;
		if (p->format == FMT_PCAP) {
			cursor_skip(&h, 8);
			size = 16 + (uint64_t)cursor_u32(&h, p->big);
		} else {
			cursor_skip(&h, 4);
			size = cursor_u32(&h, p->big);
		}
		if (h.overrun || size > RECORD_MAX || size < 12)
			return;
		at += size;
	}
	pthread_mutex_lock(&r->lock);
	if (!r->chain_ok && !r->chain_dead) {
		r->sync = at;
		r->sync_ok = true;
		if (r->reader_asleep)
			pthread_cond_signal(&r->freed);
	}
	pthread_mutex_unlock(&r->lock);
}

/* A slot taken goes back to the reader, to be filled again. */
static void reader_give_back(struct reader *r, struct slot *s)
{
	pthread_mutex_lock(&r->lock);
	s->full = false;
	r->free_slots++;
	if (r->reader_asleep && r->free_slots >= RING / 2)
		pthread_cond_signal(&r->freed);
	pthread_mutex_unlock(&r->lock);
}

/* Make the window the own buffer, of at least n bytes, with the window's
   unread bytes (have of them, wherever they were) at its start. */
static int own_buffer(struct pcapfile *p, size_t n, size_t have)
{
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
		free(p->buf);
		p->buf = b;
		p->cap = cap;
	} else if (have) {
		memmove(p->buf, p->base + p->pos, have);
	}
	p->base = p->buf;
	p->base_off += p->pos;
	p->pos = 0;
	p->len = have;
	return 1;
}

/* need() with the reader.  The window moves to the reader's next buffer,
   its unread bytes copied in front of that buffer's data; when they are
   more than the room there, or the record goes on past that buffer too,
   the window is the own buffer instead, the next buffer's data copied
   after them. */
static int need_from_reader(struct pcapfile *p, size_t n)
{
	struct reader *r = p->rd;
	for (;;) {
		size_t have = p->len - p->pos;
		if (have >= n)
			return 1;
		if (p->eof)
			return 0;
		struct slot *s = reader_take(p, r), *old = p->held;
		if (s->err) {
			fail(p, "read error: %s", strerror(s->err));
			p->eof = 1;
		} else if (s->got < CHUNK) {
			p->eof = 1;	/* the reader stopped there */
		}
		int ok = !s->err;
		if (ok && have <= HEADROOM && have + s->got >= n) {
			uint8_t *data = s->mem + HEADROOM;
			if (have)
				memcpy(data - have, p->base + p->pos, have);
			p->base_off += p->pos;
			p->base = data - have;
			p->pos = 0;
			p->len = have + s->got;
			p->held = s;
			if (p->decode_ahead)
				reader_sync(p);
		} else {
			if (ok && (ok = own_buffer(p, have + s->got, have)) && s->got) {
				memcpy(p->buf + p->len, s->mem + HEADROOM, s->got);
				p->len += s->got;
			}
			reader_give_back(r, s);
			p->held = NULL;
			p->next_ahead = p->end_ahead = NULL;
		}
		if (old)
			reader_give_back(r, old);
		if (!ok)
			return 0;
	}
}

/* need() when the bytes are not in the buffer yet. */
static int need_more(struct pcapfile *p, size_t n)
{
	if (p->rd)
		return need_from_reader(p, n);
	if (p->eof)
		return 0;
	if (!own_buffer(p, n, p->len - p->pos))
		return 0;
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

/* Make n bytes from pos available.  0: the input ends first.  Inline:
   the bytes are there for all but one packet in thousands. */
static inline int need(struct pcapfile *p, size_t n)
{
	return p->len - p->pos >= n ? 1 : need_more(p, n);
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
	pkt->ts = pcap_ns(sec, frac, p->nano);
	pkt->caplen = caplen;
	pkt->len = len;
	p->pos += 16 + (size_t)caplen;
	/* The next record's header and the packet headers after it, asked
	   for while this packet is decoded: the reader's thread copied them
	   on another core, and the first touch here otherwise waits for them
	   (3 % of the parsing thread's time on a capture of full-size
	   packets). */
	if (p->len - p->pos >= 128) {
		__builtin_prefetch(p->base + p->pos);
		__builtin_prefetch(p->base + p->pos + 64);
	}
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
	/* A table, not a loop: this runs for every packet. */
	static const uint64_t pow10[] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
		10000000000u, 100000000000u, 1000000000000u, 10000000000000u,
		100000000000000u, 1000000000000000u, 10000000000000000u,
		100000000000000000u, 1000000000000000000u,
	};
	if (n <= 9)
		return ticks * pow10[9 - n];
	return n >= 28 ? 0 : ticks / pow10[n - 9];	/* n - 9 <= 18 */
}

/* An interface description: link type, snaplen, and the options that say
   how to read its timestamps.  body: the block's body (at least 8 bytes). */
static void add_interface(struct pcapfile *p, struct cursor body)
{
	if (GROW(p->ifs, p->ifs_cap, p->nifs + 1) < 0)
		return;
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
	/* ticks_to_ns of one tick is exact when a tick is a whole number of ns */
	i->ns_per_tick = (i->tsresol & 0x80) || (i->tsresol & 0x7f) > 9 ?
			 0 : (uint32_t)ticks_to_ns(1, i->tsresol);
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
		pkt->ts = ts == UINT64_MAX ? p->last_ts : iface_ns(i, ts);
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
	bool known = fd >= 0 && fstat(fd, &st) == 0;
	p->live_pipe = known && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode));
	if (known)
		reader_start(p, &st);
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
	if (p->decode_ahead) {
		snprintf(err, errlen, "a filter after decoding ahead began");
		return -1;
	}
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

void pcapfile_decode_ahead(struct pcapfile *p, int dlt)
{
	struct reader *r = p->rd;
	if (!r || p->have_prog || p->decode_ahead || !p->held ||
	    (p->format == FMT_PCAPNG && (dlt != p->linktype || p->nifs > 8)))
		return;
	pthread_mutex_lock(&r->lock);
	r->ng = p->format == FMT_PCAPNG;
	for (size_t i = 0; r->ng && i < p->nifs; i++)
		r->ifs[i] = p->ifs[i];
	r->nifs = r->ng ? (unsigned)p->nifs : 0;
	r->dlt = dlt;
	r->big = p->big;
	r->nano = p->nano;
	r->ahead_on = true;
	pthread_mutex_unlock(&r->lock);
	p->decode_ahead = true;
	p->frame_hdr = p->format == FMT_PCAP ? 16 : 28;
	reader_sync(p);
}

int pcapfile_next_frame(struct pcapfile *p, struct pcapfile_frame *fr)
{
	const uint8_t *at = p->base + p->pos;
	const struct ahead *a = p->next_ahead;
	/* Records decoded ahead that pcapfile_next went past are passed
	   over: a block it skipped (another interface's packet, statistics)
	   and then a packet the walk had decoded.  Left behind, the look-up
	   would miss for the rest of the buffer (42 k packets of 921 k on a
	   pcapng capture). */
	while (a != p->end_ahead && a->pkt.data - p->frame_hdr < at)
		a++;
	if (a != p->end_ahead && a->pkt.data - p->frame_hdr == at && !p->err[0]) {
		p->next_ahead = a + 1;
		fr->pkt = a->pkt;
		fr->seg = &a->seg;
		fr->result = a->result;
		p->pos += a->size;
		p->last_ts = a->pkt.ts;
		return 1;
	}
	p->next_ahead = a;
	fr->seg = NULL;
	return pcapfile_next(p, &fr->pkt);
}

const char *pcapfile_error(const struct pcapfile *p) { return p->err; }
int pcapfile_linktype(const struct pcapfile *p) { return p->linktype; }
uint32_t pcapfile_snaplen(const struct pcapfile *p) { return p->snaplen; }
uint64_t pcapfile_skipped(const struct pcapfile *p) { return p->skipped; }
uint64_t pcapfile_offset(const struct pcapfile *p) { return p->base_off + p->pos; }

void pcapfile_close(struct pcapfile *p)
{
	if (!p)
		return;
	if (p->have_prog)
		pcap_freecode(&p->prog);
	if (p->dead)
		pcap_close(p->dead);
	if (p->rd)
		reader_stop(p->rd);
	free(p->buf);
	free(p->ifs);
	free(p);
}
