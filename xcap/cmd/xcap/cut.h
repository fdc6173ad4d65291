/*
 * cut.h — keeping only the headers of packets that lie inside a large X11
 * message, decided in the kernel as the packet is captured.
 *
 * A live capture of image traffic copies every byte of every PutImage and
 * GetImage into the ring, only for the decoder to skip all but the first
 * few KB of each message.  The copy is not the kernel's cost alone: each
 * 64 KB packet lands on fresh pages, and reading even its header costs the
 * reader a cache and TLB miss.  A cut packet keeps its link, IP and TCP
 * headers, so every packet record, sequence number and window survives;
 * only payload the decoder would skip is not copied.
 *
 * How: the capture's classic BPF filter is translated into an eBPF socket
 * filter that, for packets it accepts, follows the X11 framing of each
 * connection direction it is told about.  It knows where the next message
 * begins, reads each header as it passes (also when a header straddles two
 * packets), and returns the header length as snapshot length for a packet
 * wholly inside a message, past the bytes the decoder keeps
 * (PROTO_X11_KEEP).
 *
 * The kernel follows a connection from its SYN: the setup request names
 * the byte order, and every message's length follows from its header.
 * Packets may come in any order; one that holds the next header is read
 * where the header is.  Whenever the kernel is unsure — the next header
 * went by in a packet that came early, a header it does not believe, too
 * many messages in one packet — it stops cutting for that direction.  It
 * then guesses that a message begins where a pushed packet ended, follows
 * that guess without cutting, and this process, when its own decoding
 * reaches that point (a few ms later: it reads the ring in batches),
 * confirms or refutes it.  A connection that began before the capture is
 * handed to the kernel in that lost state.  Being unsure only ever costs
 * keeping whole packets.
 *
 * The state of each direction lives in a BPF array that is also mapped
 * into this process, so checking whether a direction needs arming costs a
 * memory read, not a system call.  Ownership of a slot passes by its flags
 * word: the kernel writes only while it is CUT_ARMED, this process only
 * while it is not.
 *
 * Belongs to: the xcap command's room (xcap/cmd/xcap/).
 */
#ifndef XCAP_CUT_H
#define XCAP_CUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pipeline.h"
#include "record.h"

struct cut;

/* Replace the classic filter attached to packet socket `fd` (libpcap's,
   with its fix-ups, read back from the kernel) by its eBPF translation
   with cutting added.  dlt is the capture's link type.  NULL with the
   reason in err when the kernel, the filter or the link type does not
   allow it: the classic filter then stays and nothing changes. */
struct cut *cut_attach(int fd, int dlt, char *err, size_t errlen);

/* Follow one direction of a connection (src sends).  A slot, or -1 when
   the table is full or the kernel refused. */
int cut_open(struct cut *k, const struct xaddr *src, const struct xaddr *dst, bool server_to_client);
void cut_close(struct cut *k, int slot);

/* What the kernel is doing with a slot. */
enum cut_view {
	CUT_VIEW_FOLLOWING,	/* following the framing and cutting */
	CUT_VIEW_YOURS,		/* waiting for cut_hand_over */
	CUT_VIEW_GUESSING,	/* following a guess: judge it (cut_judge) */
	CUT_VIEW_OTHER,		/* lost track, waiting for a packet to guess from */
};
enum cut_view cut_view(const struct cut *k, int slot, uint32_t *guess);

/* A slot this process took (a connection that began before the capture)
   goes to the kernel once the byte order is known. */
void cut_hand_over(struct cut *k, int slot, bool big_endian);

/* The kernel guessed that a message begins at sequence number guess;
   right: the decoder, having taken every byte before it, is between two
   messages there. */
void cut_judge(struct cut *k, int slot, uint32_t guess, bool right);

/* Why the kernel lost track of a direction. */
enum cut_lost_reason {
	CUT_LOST_LATE = 1,	/* packets far past the next header: it was missed, or
				   the arm came later than the packets it was about */
	CUT_LOST_ORDER,		/* the next header was in a packet that came early */
	CUT_LOST_WALK,		/* more message headers in one packet than it reads */
	CUT_LOST_READ,		/* a header it could not read */
	CUT_LOST_LENGTH,	/* a message length it does not believe */
	CUT_LOST_BUSY,		/* a packet went by while another CPU held the state */
	CUT_LOST_REASONS
};

struct cut_totals {
	uint64_t packets;	/* packets cut to their headers */
	uint64_t bytes;		/* payload bytes not copied */
	uint64_t losses;	/* times the kernel lost track and waited to be armed */
	uint64_t arms;		/* guesses confirmed: the kernel cut again */
	uint64_t refuted;	/* guesses refuted */
	uint64_t lost_by[CUT_LOST_REASONS];	/* losses it re-armed after, by reason */
};
void cut_get_totals(const struct cut *k, struct cut_totals *t);

void cut_free(struct cut *k);

/* The pipeline's handle on k (struct pipeline_cutter): the five calls
   below, k as their context.  *hook lives as long as the caller keeps it. */
void cut_hook(struct cut *k, struct pipeline_cutter *hook);

/* For tests: the classic program translated as cut_attach does, without
   the cutter (an accepting return returns its value), loaded as a socket
   filter.  Its descriptor, or -1 with the reason in err. */
struct sock_filter;
int cut_load_translation(const struct sock_filter *classic, size_t n, char *err, size_t errlen);

/* For tests: the whole program for a classic filter on link type dlt
   (the translation, then the cutter), loaded but attached to nothing, in
   *prog_fd, and the state it shares; NULL with the reason in err. */
struct cut *cut_load_for_test(const struct sock_filter *classic, size_t n, int dlt, int *prog_fd,
			      char *err, size_t errlen);

#endif
