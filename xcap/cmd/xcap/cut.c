/*
 * cut.c — the eBPF socket filter that keeps only the headers of packets
 * inside large X11 messages, and the maps it shares with the reassembly.
 * See cut.h for what it does and why.
 *
 * The program is assembled here, instruction by instruction, so that the
 * build needs no BPF compiler.  It has two parts:
 *
 *   1. the capture's classic filter, translated one instruction at a
 *      time (A in r0, X in r7, the scratch memory M[] on the stack); each
 *      classic "return k" that accepts the packet jumps to part 2 with the
 *      snapshot length in r9;
 *   2. the cutter: find the TCP header (loads relative to the network
 *      header, so the link type hardly matters), look the direction up,
 *      and follow its framing.
 *
 * Belongs to: the xcap command's room (xcap/cmd/xcap/).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/bpf.h>
#include <linux/filter.h>
#include <pcap/dlt.h>

#include "cut.h"
#include "grow.h"
#include "protocol.h"
#include "x11_frame.h"
#include "x11_names.h"

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif
#ifndef SO_ATTACH_BPF
#define SO_ATTACH_BPF 50
#endif
#ifndef SO_GET_FILTER
#define SO_GET_FILTER SO_ATTACH_FILTER
#endif

#define SLOTS_LOG2 11
#define SLOTS (1u << SLOTS_LOG2)	/* directions followed at once */
#define PROBES 4		/* slots a key may use: its hash's and the next ones */
#define WALK_MAX 128		/* message headers read in one packet before giving up */
/* How far past the next header a packet may start before the header is
   taken for missed: more than reordering moves a packet, less than what
   arrives while this process reads the ring (an arm that came late). */
#define AHEAD_MAX (16u << 20)

/* The lookup key: addresses and ports as the program's loads see them
   (each 32-bit word in host order), IPv4 in the first word of each. */
struct cut_key {
	uint32_t src[4], dst[4];
	uint32_t ports;		/* source port << 16 | destination port */
};
#define KEY_WORDS 9

/* The state of one direction, shared with the kernel: slot i of the one
   value of a BPF array, mapped into this process too.  Field offsets are
   used by the program (F_* below). */
struct cut_state {
	/* First cache line: written rarely (ownership, a guess, a loss),
	   read by this process for every packet with data it decodes. */
	uint32_t flags;		/* CUT_* */
	uint32_t mode;		/* MODE_* */
	uint32_t guess;		/* kernel, TENTATIVE: where it guessed a message began */
	uint32_t losses;	/* kernel: times it lost track */
	uint32_t why;		/* kernel: CUT_LOST_* of the last time */
	struct cut_key key;
	uint32_t missed;	/* kernel: packets another CPU could not examine */
	uint8_t pad0[4];
	/* Second: the kernel's, written for every packet it follows. */
	uint32_t next;		/* where the next message header starts */
	uint32_t body;		/* packets from here up to next may be cut */
	uint32_t have;		/* bytes of the next header already read into hdr */
	uint32_t want;		/* bytes of it needed to know its length */
	uint8_t hdr[12];
	uint32_t ahead_lo;	/* packets past the next header's first missing byte */
	uint32_t ahead_hi;	/* came early (reordering) over [ahead_lo, ahead_hi);
				   equal: none */
	uint32_t psh_end;	/* kernel, LOST: where the last pushed packet ended */
	uint32_t psh_set;	/* psh_end is valid */
	uint32_t busy;		/* kernel: a CPU is examining a packet of this slot */
	uint64_t cut_packets;	/* kernel: packets cut */
	uint64_t cut_bytes;	/* kernel: payload bytes not copied */
};
#define SLOT_LOG2 7
/* A power of two, so a slot's offset is a shift; two cache lines. */
_Static_assert(sizeof(struct cut_state) == 1u << SLOT_LOG2, "slot size");
_Static_assert(offsetof(struct cut_state, next) == 64, "hot fields in the second line");

/* flags: who owns the slot.
     FREE, CLAIMING  nobody's connection (CLAIMING: being taken);
     WAITING         this process's: a connection that began before the
                     capture, until the decoder knows its byte order;
     ARMED           the kernel follows the framing and cuts;
     LOST            the kernel lost track; at the next packet that
                     starts where a pushed one ended (clients write whole
                     requests, so that is most often a message boundary)
                     it guesses that a message begins, and goes
     TENTATIVE       following the guess without cutting, until this
                     process, reaching that point in its own decoding,
                     confirms it (ARMED) or refutes it (LOST). */
enum { CUT_FREE = 0, CUT_ARMED = 1, CUT_WAITING = 2, CUT_CLAIMING = 3, CUT_LOST = 4,
       CUT_TENTATIVE = 5 };
enum { MODE_S2C = 1, MODE_BIG = 2, MODE_SETUP = 4 };
enum {
	F_FLAGS = offsetof(struct cut_state, flags),
	F_AHEAD_LO = offsetof(struct cut_state, ahead_lo),
	F_AHEAD_HI = offsetof(struct cut_state, ahead_hi),
	F_NEXT = offsetof(struct cut_state, next),
	F_BODY = offsetof(struct cut_state, body),
	F_HAVE = offsetof(struct cut_state, have),
	F_WANT = offsetof(struct cut_state, want),
	F_MODE = offsetof(struct cut_state, mode),
	F_HDR = offsetof(struct cut_state, hdr),
	F_LOSSES = offsetof(struct cut_state, losses),
	F_WHY = offsetof(struct cut_state, why),
	F_KEY = offsetof(struct cut_state, key),
	F_PACKETS = offsetof(struct cut_state, cut_packets),
	F_BYTES = offsetof(struct cut_state, cut_bytes),
	F_GUESS = offsetof(struct cut_state, guess),
	F_MISSED = offsetof(struct cut_state, missed),
	F_BUSY = offsetof(struct cut_state, busy),
	F_PSH_END = offsetof(struct cut_state, psh_end),
	F_PSH_SET = offsetof(struct cut_state, psh_set),
};

/* The BPF array's one value: what the program needs to know of X11
   beyond framing, then the slots. */
struct cut_shared {
	/* Bit m: a core request with major opcode m is decoded from its
	   32-byte header alone (proto_x11_core_request_keep), so the kernel
	   keeps only that much of it instead of PROTO_X11_KEEP bytes. */
	uint32_t short_requests[4];
	uint8_t pad[48];
	struct cut_state slot[SLOTS];
};
#define SLOTS_AT offsetof(struct cut_shared, slot)

/* Where a key's slots start; the program computes the same. */
static uint32_t key_hash(const struct cut_key *key)
{
	const uint32_t *w = &key->src[0];
	uint32_t h = 0;
	for (int i = 0; i < KEY_WORDS; i++)
		h = (h ^ w[i]) * 0x9e3779b1u;
	return h >> (32 - SLOTS_LOG2);
}

struct cut {
	int array_fd;
	struct cut_shared *shared;	/* the array's value, mapped */
	struct cut_state *state;	/* its slots */
	size_t map_bytes;
	struct cut_totals closed;	/* of slots closed already */
};

/* ---- a small assembler ---- */

struct jump { size_t at; int label; };

struct prog {
	struct bpf_insn *v;
	size_t n, cap;
	long *label_at;		/* instruction index, -1 until placed */
	size_t n_labels, cap_labels;
	struct jump *jumps;
	size_t n_jumps, cap_jumps;
	bool nomem;
};

static void put(struct prog *p, struct bpf_insn i)
{
	if (GROW(p->v, p->cap, p->n + 1) < 0) {
		p->nomem = true;
		return;
	}
	p->v[p->n++] = i;
}

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	struct bpf_insn i = { .code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm };
	return i;
}

static int new_label(struct prog *p)
{
	if (GROW(p->label_at, p->cap_labels, p->n_labels + 1) < 0) {
		p->nomem = true;
		return 0;
	}
	p->label_at[p->n_labels] = -1;
	return (int)p->n_labels++;
}

static void place(struct prog *p, int label)
{
	if (!p->nomem)
		p->label_at[label] = (long)p->n;
}

/* A jump to a label; its offset is filled in by link(). */
static void jump(struct prog *p, uint8_t code, uint8_t dst, uint8_t src, int32_t imm, int label)
{
	if (GROW(p->jumps, p->cap_jumps, p->n_jumps + 1) < 0) {
		p->nomem = true;
		return;
	}
	p->jumps[p->n_jumps++] = (struct jump){ p->n, label };
	put(p, insn(code, dst, src, 0, imm));
}

static bool link_jumps(struct prog *p)
{
	if (p->nomem)
		return false;
	for (size_t i = 0; i < p->n_jumps; i++) {
		long to = p->label_at[p->jumps[i].label];
		long off = to - (long)p->jumps[i].at - 1;
		if (to < 0 || off < INT16_MIN || off > INT16_MAX)
			return false;
		p->v[p->jumps[i].at].off = (int16_t)off;
	}
	return true;
}

static void prog_free(struct prog *p)
{
	free(p->v);
	free(p->label_at);
	free(p->jumps);
}

/* Shorthands for the instructions the program uses. */
#define R0 BPF_REG_0
#define R1 BPF_REG_1
#define R2 BPF_REG_2
#define R3 BPF_REG_3
#define R4 BPF_REG_4
#define R5 BPF_REG_5
#define R6 BPF_REG_6
#define R7 BPF_REG_7
#define R8 BPF_REG_8
#define R9 BPF_REG_9
#define FP BPF_REG_10

#define ALU32_IMM(op, d, k)	put(p, insn(BPF_ALU | (op) | BPF_K, d, 0, 0, k))
#define ALU32_REG(op, d, s)	put(p, insn(BPF_ALU | (op) | BPF_X, d, s, 0, 0))
#define ALU64_IMM(op, d, k)	put(p, insn(BPF_ALU64 | (op) | BPF_K, d, 0, 0, k))
#define ALU64_REG(op, d, s)	put(p, insn(BPF_ALU64 | (op) | BPF_X, d, s, 0, 0))
#define MOV32_IMM(d, k)		ALU32_IMM(BPF_MOV, d, k)
#define MOV64_REG(d, s)		ALU64_REG(BPF_MOV, d, s)
#define LDX(size, d, s, off)	put(p, insn(BPF_LDX | (size) | BPF_MEM, d, s, off, 0))
#define STX(size, d, s, off)	put(p, insn(BPF_STX | (size) | BPF_MEM, d, s, off, 0))
#define ST(size, d, off, k)	put(p, insn(BPF_ST | (size) | BPF_MEM, d, 0, off, k))
#define LD_ABS(size, k)		put(p, insn(BPF_LD | (size) | BPF_ABS, 0, 0, 0, k))
#define LD_IND(size, s, k)	put(p, insn(BPF_LD | (size) | BPF_IND, 0, s, 0, k))
#define CALL(fn)		put(p, insn(BPF_JMP | BPF_CALL, 0, 0, 0, fn))
/* 32-bit atomic op at d+off with s (BPF_CMPXCHG compares with r0) */
#define ATOMIC(op, d, s, off)	put(p, insn(BPF_STX | BPF_W | BPF_ATOMIC, d, s, off, op))
#define EXIT()			put(p, insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0))
#define JA(l)			jump(p, BPF_JMP | BPF_JA, 0, 0, 0, l)
#define J_IMM(op, d, k, l)	jump(p, BPF_JMP | (op) | BPF_K, d, 0, k, l)
#define J_REG(op, d, s, l)	jump(p, BPF_JMP | (op) | BPF_X, d, s, 0, l)
#define J32_IMM(op, d, k, l)	jump(p, BPF_JMP32 | (op) | BPF_K, d, 0, k, l)
#define J32_REG(op, d, s, l)	jump(p, BPF_JMP32 | (op) | BPF_X, d, s, 0, l)

static void load_map_fd(struct prog *p, uint8_t dst, int fd)
{
	put(p, insn(BPF_LD | BPF_DW | BPF_IMM, dst, BPF_PSEUDO_MAP_FD, 0, fd));
	put(p, insn(0, 0, 0, 0, 0));
}

/* ---- part 1: the classic filter ---- */

/* Stack frame (offsets from r10). */
enum {
	S_MEM = -64,		/* M[0..15], 4 bytes each */
	S_KEY = -104,		/* struct cut_key, 36 bytes */
	S_SLOT = -108,
	S_PLEN = -112,		/* IP length, then payload length */
	S_SEQ = -116,
	S_CUTLEN = -120,	/* bytes before the payload: what a cut packet keeps */
	S_END = -124,		/* sequence number after the packet */
	S_WALK = -128,		/* headers read in this packet */
	S_N = -132,		/* bytes being read into hdr */
	S_TCPFLAGS = -136,
	S_BASE = -144,		/* the array's value (8 bytes: a pointer) */
	S_KEEP = -148,		/* bytes of the message being framed to keep */
	S_OWNED = -152,		/* 1: this run holds the slot's busy word */
	S_MISSED = -156,	/* the slot's missed count when it took it */
};
#define HDR_MAX 12		/* bytes of a header read: the setup request's */

/* The __sk_buff field a classic ancillary load reads, and whether it
   holds a network-order 16-bit value; -1 when not supported. */
static int ancillary(int32_t k, bool *be16)
{
	*be16 = false;
	switch (k - SKF_AD_OFF) {
	case SKF_AD_PROTOCOL: *be16 = true; return offsetof(struct __sk_buff, protocol);
	case SKF_AD_PKTTYPE: return offsetof(struct __sk_buff, pkt_type);
	case SKF_AD_IFINDEX: return offsetof(struct __sk_buff, ifindex);
	case SKF_AD_MARK: return offsetof(struct __sk_buff, mark);
	case SKF_AD_QUEUE: return offsetof(struct __sk_buff, queue_mapping);
	case SKF_AD_RXHASH: return offsetof(struct __sk_buff, hash);
	case SKF_AD_VLAN_TAG: return offsetof(struct __sk_buff, vlan_tci);
	case SKF_AD_VLAN_TAG_PRESENT: return offsetof(struct __sk_buff, vlan_present);
	case SKF_AD_VLAN_TPID: *be16 = true; return offsetof(struct __sk_buff, vlan_proto);
	default: return -1;
	}
}

/* A classic load of a packet byte, half-word or word at k (absolute) or
   X+k (indirect) into register A (r0). */
static bool load_packet(struct prog *p, unsigned mode, unsigned size, int32_t k, uint8_t dst)
{
	if (mode == BPF_ABS && k < 0 && k >= SKF_AD_OFF) {
		bool be16;
		int off = ancillary(k, &be16);
		if (off < 0)
			return false;
		LDX(BPF_W, dst, R6, (int16_t)off);
		if (be16)
			put(p, insn(BPF_ALU | BPF_END | BPF_TO_BE, dst, 0, 0, 16));
		return true;
	}
	if (mode == BPF_ABS)
		LD_ABS(size, k);
	else
		LD_IND(size, R7, k);
	if (dst != R0)
		MOV64_REG(dst, R0);
	return true;
}

/* Translate the classic program; every accepting return jumps to `cut`
   with the snapshot length in r9, every refusing one returns 0. */
static bool translate(struct prog *p, const struct sock_filter *f, size_t n, int cut, const char **why)
{
	int *at = malloc((n + 1) * sizeof *at);
	if (!at) {
		*why = "out of memory";
		return false;
	}
	for (size_t i = 0; i <= n; i++)
		at[i] = new_label(p);
	/* The instructions some path reaches (classic jumps go forward): the
	   verifier refuses code that none does, classic BPF does not. */
	bool *live = calloc(n + 1, sizeof *live);
	if (!live) {
		free(at);
		*why = "out of memory";
		return false;
	}
	live[0] = true;
	for (size_t i = 0; i < n; i++) {
		uint16_t c = f[i].code;
		if (!live[i] || BPF_CLASS(c) == BPF_RET)
			continue;
		if (BPF_CLASS(c) != BPF_JMP)
			live[i + 1] = true;
		else if (BPF_OP(c) == BPF_JA)
			live[i + 1 + (f[i].k < n - i ? f[i].k : 0)] = true;
		else {
			live[i + 1 + (f[i].jt < n - i ? f[i].jt : 0)] = true;
			live[i + 1 + (f[i].jf < n - i ? f[i].jf : 0)] = true;
		}
	}
	bool ok = true;

	MOV64_REG(R6, R1);	/* the context, where LD_ABS and LD_IND expect it */
	for (int m = 0; m < 16; m++)
		ST(BPF_W, FP, (int16_t)(S_MEM + 4 * m), 0);
	MOV32_IMM(R0, 0);
	MOV32_IMM(R7, 0);
	for (size_t i = 0; i < n && ok; i++) {
		place(p, at[i]);
		size_t emitted = p->n, jumps = p->n_jumps;
		uint16_t c = f[i].code;
		int32_t k = (int32_t)f[i].k;
		unsigned size = BPF_SIZE(c), mode = BPF_MODE(c);
		switch (BPF_CLASS(c)) {
		case BPF_LD:
			if (mode == BPF_ABS || mode == BPF_IND)
				ok = load_packet(p, mode, size, k, R0);
			else if (mode == BPF_IMM)
				MOV32_IMM(R0, k);
			else if (mode == BPF_MEM && f[i].k < 16)
				LDX(BPF_W, R0, FP, (int16_t)(S_MEM + 4 * (int)f[i].k));
			else if (mode == BPF_LEN)
				LDX(BPF_W, R0, R6, offsetof(struct __sk_buff, len));
			else
				ok = false;
			break;
		case BPF_LDX:
			if (mode == BPF_IMM)
				MOV32_IMM(R7, k);
			else if (mode == BPF_MEM && f[i].k < 16)
				LDX(BPF_W, R7, FP, (int16_t)(S_MEM + 4 * (int)f[i].k));
			else if (mode == BPF_LEN)
				LDX(BPF_W, R7, R6, offsetof(struct __sk_buff, len));
			else if (mode == BPF_MSH && !(k < 0 && k >= SKF_AD_OFF)) {
				/* X = 4 * (P[k] & 0xf), A kept in r8 across the load */
				MOV64_REG(R8, R0);
				LD_ABS(BPF_B, k);
				ALU32_IMM(BPF_AND, R0, 0xf);
				ALU32_IMM(BPF_LSH, R0, 2);
				MOV64_REG(R7, R0);
				MOV64_REG(R0, R8);
			} else
				ok = false;
			break;
		case BPF_ST:
		case BPF_STX:
			if (f[i].k >= 16)
				ok = false;
			else
				STX(BPF_W, FP, BPF_CLASS(c) == BPF_ST ? R0 : R7, (int16_t)(S_MEM + 4 * (int)f[i].k));
			break;
		case BPF_ALU: {
			unsigned op = BPF_OP(c);
			if (op > BPF_XOR) {	/* eBPF's mov, arsh, end: not classic */
				ok = false;
			} else if (op == BPF_NEG) {
				ALU32_IMM(BPF_NEG, R0, 0);
			} else if (BPF_SRC(c) == BPF_X) {
				if (op == BPF_DIV || op == BPF_MOD) {	/* classic: x/0 refuses */
					int nonzero = new_label(p);
					J_IMM(BPF_JNE, R7, 0, nonzero);
					MOV32_IMM(R0, 0);
					EXIT();
					place(p, nonzero);
				}
				ALU32_REG(op, R0, R7);
			} else {
				if ((op == BPF_DIV || op == BPF_MOD) && k == 0)
					ok = false;
				else
					ALU32_IMM(op, R0, k);
			}
			break;
		}
		case BPF_JMP: {
			unsigned op = BPF_OP(c);
			if (op == BPF_JA) {
				if (i + 1 + f[i].k >= n)
					ok = false;
				else
					JA(at[i + 1 + f[i].k]);
				break;
			}
			if (i + 1 + f[i].jt >= n || i + 1 + f[i].jf >= n ||
			    (op != BPF_JEQ && op != BPF_JGT && op != BPF_JGE && op != BPF_JSET)) {
				ok = false;
				break;
			}
			/* 32-bit comparisons: classic compares A as unsigned 32 bits. */
			if (BPF_SRC(c) == BPF_X)
				J32_REG(op, R0, R7, at[i + 1 + f[i].jt]);
			else
				J32_IMM(op, R0, k, at[i + 1 + f[i].jt]);
			if (f[i].jf)
				JA(at[i + 1 + f[i].jf]);
			break;
		}
		case BPF_RET:
			if (BPF_RVAL(c) == BPF_K) {
				if (k == 0) {
					MOV32_IMM(R0, 0);
					EXIT();
				} else {
					MOV32_IMM(R9, k);
					JA(cut);
				}
			} else if (BPF_RVAL(c) == BPF_A) {
				MOV64_REG(R9, R0);
				J_IMM(BPF_JNE, R9, 0, cut);
				EXIT();		/* r0 is 0 */
			} else {
				ok = false;
			}
			break;
		case BPF_MISC:
			if (BPF_MISCOP(c) == BPF_TAX)
				MOV64_REG(R7, R0);
			else if (BPF_MISCOP(c) == BPF_TXA)
				MOV64_REG(R0, R7);
			else
				ok = false;
			break;
		default:
			ok = false;
		}
		if (!live[i]) {		/* checked, but not emitted */
			p->n = emitted;
			p->n_jumps = jumps;
		}
		if (!ok)
			*why = "the capture filter uses an instruction the translation does not know";
	}
	/* The classic program ends with a return, and every jump lands
	   inside it, so nothing falls off its end. */
	if (n == 0 || BPF_CLASS(f[n - 1].code) != BPF_RET)
		ok = false;
	free(live);
	free(at);
	return ok;
}

/* ---- part 2: the cutter ---- */

/* Load `bytes` (2 or 4) bytes of the header at `at` in the direction's
   byte order into dst (not r1 or r2, which are clobbered). */
static void header_field(struct prog *p, uint8_t dst, int at, int bytes)
{
	int big = new_label(p), done = new_label(p);
	LDX(BPF_W, R1, R8, F_MODE);
	J_IMM(BPF_JSET, R1, MODE_BIG, big);
	MOV32_IMM(dst, 0);
	for (int b = at + bytes - 1; b >= at; b--) {	/* little-endian */
		ALU32_IMM(BPF_LSH, dst, 8);
		LDX(BPF_B, R2, R8, (int16_t)(F_HDR + b));
		ALU32_REG(BPF_OR, dst, R2);
	}
	JA(done);
	place(p, big);
	MOV32_IMM(dst, 0);
	for (int b = at; b < at + bytes; b++) {
		ALU32_IMM(BPF_LSH, dst, 8);
		LDX(BPF_B, R2, R8, (int16_t)(F_HDR + b));
		ALU32_REG(BPF_OR, dst, R2);
	}
	place(p, done);
}

/* The next header: its first 4 bytes tell a request's length, its
   first 8 a server message's.  r0 is clobbered. */
static void want_a_header(struct prog *p)
{
	LDX(BPF_W, R0, R8, F_MODE);
	ALU32_IMM(BPF_AND, R0, MODE_S2C);
	ALU32_IMM(BPF_LSH, R0, 2);
	ALU32_IMM(BPF_ADD, R0, 4);
	STX(BPF_W, R8, R0, F_WANT);
}

/* r2 = the address of slot (hash + i), from the array's base in r8;
   r1 is clobbered. */
static void slot_address(struct prog *p, int i)
{
	LDX(BPF_W, R1, FP, S_SLOT);
	ALU32_IMM(BPF_ADD, R1, i);
	ALU32_IMM(BPF_AND, R1, SLOTS - 1);
	ALU32_IMM(BPF_LSH, R1, SLOT_LOG2);
	MOV64_REG(R2, R8);
	ALU64_REG(BPF_ADD, R2, R1);
	ALU64_IMM(BPF_ADD, R2, SLOTS_AT);
}

/* Entered with the snapshot length the classic filter chose in r9.
   Registers: r6 the packet, r7 offsets into it, r8 the link header
   length and then the direction's state, r9 the snapshot length. */
static void cutter(struct prog *p, int cut, int link_len, int array_fd)
{
	int ret_snap = new_label(p), lost = new_label(p), lost_late = new_label(p), lost_order = new_label(p), lost_walk = new_label(p),
	    lost_read = new_label(p), lost_length = new_label(p), v4 = new_label(p), v6 = new_label(p),
	    tcp = new_label(p), found = new_label(p), not_found = new_label(p), init = new_label(p),
	    inside = new_label(p), gather = new_label(p),
	    decide = new_label(p), s2c_size = new_label(p), got_size = new_label(p),
	    big_req = new_label(p), l_known = new_label(p), len_done = new_label(p),
	    vlan = new_label(p), setup = new_label(p),
	    early = new_label(p), walked = new_label(p), track = new_label(p), tail = new_label(p),
	    release = new_label(p), out = new_label(p), lost_busy = new_label(p);

	place(p, cut);
	ST(BPF_W, FP, S_OWNED, 0);
	/* r8: bytes before the network header.  An in-band VLAN tag moves it. */
	MOV32_IMM(R8, link_len);
	if (link_len == 14) {
		LD_ABS(BPF_H, 12);
		J_IMM(BPF_JEQ, R0, 0x8100, vlan);
		J_IMM(BPF_JNE, R0, 0x88a8, l_known);
		place(p, vlan);
		MOV32_IMM(R8, 18);
	}
	place(p, l_known);
	/* The first byte at r8 must be the network header's first byte: if
	   not, the link header is not what was assumed, and nothing is cut. */
	LD_ABS(BPF_B, SKF_NET_OFF);
	MOV64_REG(R7, R0);
	LD_IND(BPF_B, R8, 0);
	J_REG(BPF_JNE, R0, R7, ret_snap);
	MOV64_REG(R0, R7);
	ALU32_IMM(BPF_RSH, R0, 4);
	J_IMM(BPF_JEQ, R0, 4, v4);
	J_IMM(BPF_JEQ, R0, 6, v6);
	JA(ret_snap);

	place(p, v4);		/* r7: IP header length */
	ALU32_IMM(BPF_AND, R7, 0xf);
	ALU32_IMM(BPF_LSH, R7, 2);
	J_IMM(BPF_JLT, R7, 20, ret_snap);
	LD_ABS(BPF_B, SKF_NET_OFF + 9);
	J_IMM(BPF_JNE, R0, 6, ret_snap);
	LD_ABS(BPF_H, SKF_NET_OFF + 6);
	J_IMM(BPF_JSET, R0, 0x3fff, ret_snap);	/* a fragment */
	LD_ABS(BPF_H, SKF_NET_OFF + 2);
	STX(BPF_W, FP, R0, S_PLEN);
	LD_ABS(BPF_W, SKF_NET_OFF + 12);
	STX(BPF_W, FP, R0, S_KEY);
	LD_ABS(BPF_W, SKF_NET_OFF + 16);
	STX(BPF_W, FP, R0, S_KEY + 16);
	for (int w = 1; w < 4; w++) {
		ST(BPF_W, FP, (int16_t)(S_KEY + 4 * w), 0);
		ST(BPF_W, FP, (int16_t)(S_KEY + 16 + 4 * w), 0);
	}
	JA(tcp);

	place(p, v6);		/* without extension headers only */
	LD_ABS(BPF_B, SKF_NET_OFF + 6);
	J_IMM(BPF_JNE, R0, 6, ret_snap);
	LD_ABS(BPF_H, SKF_NET_OFF + 4);
	ALU32_IMM(BPF_ADD, R0, 40);
	STX(BPF_W, FP, R0, S_PLEN);
	MOV32_IMM(R7, 40);
	for (int w = 0; w < 8; w++) {
		LD_ABS(BPF_W, SKF_NET_OFF + 8 + 4 * w);
		STX(BPF_W, FP, R0, (int16_t)(S_KEY + 4 * w));
	}

	place(p, tcp);		/* r7: offset of the TCP header */
	LD_IND(BPF_W, R7, SKF_NET_OFF);
	STX(BPF_W, FP, R0, S_KEY + 32);
	LD_IND(BPF_W, R7, SKF_NET_OFF + 4);
	STX(BPF_W, FP, R0, S_SEQ);
	LD_IND(BPF_B, R7, SKF_NET_OFF + 13);
	STX(BPF_W, FP, R0, S_TCPFLAGS);
	LD_IND(BPF_B, R7, SKF_NET_OFF + 12);
	ALU32_IMM(BPF_RSH, R0, 4);
	ALU32_IMM(BPF_LSH, R0, 2);
	J_IMM(BPF_JLT, R0, 20, ret_snap);
	ALU64_REG(BPF_ADD, R7, R0);		/* r7: offset of the payload */
	LDX(BPF_W, R0, FP, S_PLEN);
	ALU32_REG(BPF_SUB, R0, R7);		/* payload length; negative for a jumbogram */
	STX(BPF_W, FP, R0, S_PLEN);
	MOV64_REG(R0, R8);
	ALU64_REG(BPF_ADD, R0, R7);
	STX(BPF_W, FP, R0, S_CUTLEN);

	/* r8: the slots.  S_SLOT: the key's first slot. */
	ST(BPF_W, FP, S_SLOT, 0);
	load_map_fd(p, R1, array_fd);
	MOV64_REG(R2, FP);
	ALU64_IMM(BPF_ADD, R2, S_SLOT);
	CALL(BPF_FUNC_map_lookup_elem);
	J_IMM(BPF_JEQ, R0, 0, ret_snap);
	MOV64_REG(R8, R0);
	STX(BPF_DW, FP, R0, S_BASE);
	MOV32_IMM(R1, 0);
	for (int w = 0; w < KEY_WORDS; w++) {	/* key_hash() */
		LDX(BPF_W, R2, FP, (int16_t)(S_KEY + 4 * w));
		ALU32_REG(BPF_XOR, R1, R2);
		ALU32_IMM(BPF_MUL, R1, (int32_t)0x9e3779b1u);
	}
	ALU32_IMM(BPF_RSH, R1, 32 - SLOTS_LOG2);
	STX(BPF_W, FP, R1, S_SLOT);
	for (int i = 0; i < PROBES; i++) {
		int miss = new_label(p);
		slot_address(p, i);
		LDX(BPF_W, R3, R2, F_FLAGS);
		J_IMM(BPF_JEQ, R3, CUT_FREE, miss);
		J_IMM(BPF_JEQ, R3, CUT_CLAIMING, miss);
		for (int w = 0; w < KEY_WORDS; w++) {
			LDX(BPF_W, R3, R2, (int16_t)(F_KEY + 4 * w));
			LDX(BPF_W, R4, FP, (int16_t)(S_KEY + 4 * w));
			J_REG(BPF_JNE, R3, R4, miss);
		}
		MOV64_REG(R8, R2);
		JA(found);
		place(p, miss);
	}

	/* Not followed yet: a connection to an X server starts here with its
	   SYN (client to server) and SYN-ACK (server to client). */
	place(p, not_found);
	LDX(BPF_W, R0, FP, S_TCPFLAGS);
	J_IMM(BPF_JSET, R0, 0x04, ret_snap);	/* RST */
	{
		int syn = new_label(p), to_client = new_label(p), port_known = new_label(p);
		J_IMM(BPF_JSET, R0, 0x02, syn);
		JA(ret_snap);
		place(p, syn);
		LDX(BPF_W, R1, FP, S_KEY + 32);
		J_IMM(BPF_JSET, R0, 0x10, to_client);
		ALU32_IMM(BPF_AND, R1, 0xffff);		/* SYN: the destination port */
		JA(port_known);
		place(p, to_client);
		ALU32_IMM(BPF_RSH, R1, 16);		/* SYN-ACK: the source port */
		place(p, port_known);
		J_IMM(BPF_JLT, R1, PROTO_X11_PORT_FIRST, ret_snap);
		J_IMM(BPF_JGT, R1, PROTO_X11_PORT_LAST, ret_snap);
	}
	for (int i = 0; i < PROBES; i++) {	/* take a free slot */
		slot_address(p, i);
		MOV32_IMM(R0, CUT_FREE);
		MOV32_IMM(R3, CUT_CLAIMING);
		ATOMIC(BPF_CMPXCHG, R2, R3, F_FLAGS);
		int taken = new_label(p);
		J_IMM(BPF_JNE, R0, CUT_FREE, taken);
		MOV64_REG(R8, R2);
		JA(init);
		place(p, taken);
	}
	JA(ret_snap);

	place(p, found);
	LDX(BPF_W, R0, FP, S_TCPFLAGS);
	{
		int not_syn = new_label(p);
		J_IMM(BPF_JSET, R0, 0x04, not_syn);	/* RST */
		J_IMM(BPF_JSET, R0, 0x02, init);	/* SYN again, or the ports reused */
		place(p, not_syn);
	}
	LDX(BPF_W, R0, R8, F_FLAGS);
	J_IMM(BPF_JLT, R0, CUT_ARMED, ret_snap);	/* FREE */
	J_IMM(BPF_JEQ, R0, CUT_WAITING, ret_snap);
	J_IMM(BPF_JEQ, R0, CUT_CLAIMING, ret_snap);
	/* Packets of one direction may be examined on two CPUs at once (the
	   sender moved between them); the state is one CPU's at a time.  A
	   packet the other CPU could not examine is counted, and the holder
	   gives up on the framing when it lets go (see ret_snap). */
	{
		int owned = new_label(p);
		MOV32_IMM(R0, 0);
		MOV32_IMM(R1, 1);
		ATOMIC(BPF_CMPXCHG, R8, R1, F_BUSY);
		J_IMM(BPF_JEQ, R0, 0, owned);
		MOV32_IMM(R1, 1);
		ATOMIC(BPF_ADD, R8, R1, F_MISSED);
		JA(ret_snap);
		place(p, owned);
		ST(BPF_W, FP, S_OWNED, 1);
		LDX(BPF_W, R0, R8, F_MISSED);
		STX(BPF_W, FP, R0, S_MISSED);
	}
	LDX(BPF_W, R0, R8, F_FLAGS);
	J_IMM(BPF_JEQ, R0, CUT_ARMED, track);
	J_IMM(BPF_JEQ, R0, CUT_TENTATIVE, track);
	J_IMM(BPF_JNE, R0, CUT_LOST, ret_snap);
	{
		/* Lost: guess at a packet that starts where a pushed one ended. */
		int no_guess = new_label(p), pushed = new_label(p);
		LDX(BPF_W, R0, FP, S_PLEN);
		J32_IMM(BPF_JSLE, R0, 0, ret_snap);
		LDX(BPF_W, R0, R8, F_MODE);
		J_IMM(BPF_JSET, R0, MODE_SETUP, ret_snap);
		LDX(BPF_W, R1, FP, S_SEQ);
		LDX(BPF_W, R2, R8, F_PSH_END);
		LDX(BPF_W, R3, R8, F_PSH_SET);
		J_IMM(BPF_JEQ, R3, 0, no_guess);
		J_REG(BPF_JNE, R1, R2, no_guess);
		STX(BPF_W, R8, R1, F_NEXT);
		STX(BPF_W, R8, R1, F_GUESS);
		STX(BPF_W, R8, R1, F_AHEAD_LO);
		STX(BPF_W, R8, R1, F_AHEAD_HI);
		ST(BPF_W, R8, F_HAVE, 0);
		want_a_header(p);
		ST(BPF_W, R8, F_FLAGS, CUT_TENTATIVE);
		JA(track);
		place(p, no_guess);
		LDX(BPF_W, R0, FP, S_TCPFLAGS);
		J_IMM(BPF_JSET, R0, 0x08, pushed);
		JA(ret_snap);
		place(p, pushed);
		LDX(BPF_W, R0, FP, S_PLEN);
		ALU32_REG(BPF_ADD, R1, R0);
		STX(BPF_W, R8, R1, F_PSH_END);
		ST(BPF_W, R8, F_PSH_SET, 1);
		JA(ret_snap);
	}

	place(p, track);
	LDX(BPF_W, R0, FP, S_PLEN);
	J32_IMM(BPF_JSLE, R0, 0, ret_snap);	/* no payload (or a jumbogram) */

	/* W, the first header byte still wanted, is next + have.  A packet
	   holding W is read from there, in whatever order it comes; one
	   wholly before W lies inside the current message (or is an old
	   copy); one wholly after W came early, and is kept whole. */
	LDX(BPF_W, R1, FP, S_SEQ);
	LDX(BPF_W, R4, FP, S_PLEN);
	MOV64_REG(R5, R1);
	ALU32_REG(BPF_ADD, R5, R4);
	STX(BPF_W, FP, R5, S_END);
	ST(BPF_W, FP, S_WALK, 0);
	LDX(BPF_W, R2, R8, F_NEXT);
	LDX(BPF_W, R3, R8, F_HAVE);
	ALU32_REG(BPF_ADD, R2, R3);
	MOV64_REG(R3, R1);
	ALU32_REG(BPF_SUB, R3, R2);
	J32_IMM(BPF_JSGT, R3, 0, early);
	MOV64_REG(R3, R5);
	ALU32_REG(BPF_SUB, R3, R2);
	J32_IMM(BPF_JSGT, R3, 0, gather);
	LDX(BPF_W, R0, R8, F_HAVE);
	J_IMM(BPF_JNE, R0, 0, ret_snap);
	JA(inside);

	place(p, early);	/* r3: how far past W it starts */
	J32_IMM(BPF_JSGT, R3, AHEAD_MAX, lost_late);
	{
		int nonempty = new_label(p), lo_ok = new_label(p);
		LDX(BPF_W, R2, R8, F_AHEAD_LO);
		LDX(BPF_W, R3, R8, F_AHEAD_HI);
		J_REG(BPF_JNE, R2, R3, nonempty);
		STX(BPF_W, R8, R1, F_AHEAD_LO);
		STX(BPF_W, R8, R5, F_AHEAD_HI);
		JA(ret_snap);
		place(p, nonempty);
		MOV64_REG(R0, R1);
		ALU32_REG(BPF_SUB, R0, R2);
		J32_IMM(BPF_JSGE, R0, 0, lo_ok);
		STX(BPF_W, R8, R1, F_AHEAD_LO);
		place(p, lo_ok);
		MOV64_REG(R0, R5);
		ALU32_REG(BPF_SUB, R0, R3);
		J32_IMM(BPF_JSLE, R0, 0, ret_snap);
		STX(BPF_W, R8, R5, F_AHEAD_HI);
		JA(ret_snap);
	}

	/* This packet is done with; W is in a later one.  If a packet that
	   came early holds it, it went by unread. */
	place(p, walked);
	{
		int forget = new_label(p);
		LDX(BPF_W, R1, R8, F_NEXT);
		LDX(BPF_W, R0, R8, F_HAVE);
		ALU32_REG(BPF_ADD, R1, R0);
		LDX(BPF_W, R2, R8, F_AHEAD_LO);
		LDX(BPF_W, R3, R8, F_AHEAD_HI);
		J_REG(BPF_JEQ, R2, R3, ret_snap);
		MOV64_REG(R0, R1);
		ALU32_REG(BPF_SUB, R0, R2);
		J32_IMM(BPF_JSLT, R0, 0, ret_snap);	/* W is before them: still to come */
		MOV64_REG(R0, R1);
		ALU32_REG(BPF_SUB, R0, R3);
		J32_IMM(BPF_JSLT, R0, 0, lost_order);
		place(p, forget);			/* W is past them */
		STX(BPF_W, R8, R3, F_AHEAD_LO);
		JA(ret_snap);
	}

	/* The packet lies inside the current message: what of it lies past
	   the bytes kept of the message is left out; all of it, when it
	   starts past them.  Also the tail of the packet that holds the
	   start of a message going on past it (from got_size). */
	place(p, inside);
	LDX(BPF_W, R0, R8, F_FLAGS);
	J_IMM(BPF_JNE, R0, CUT_ARMED, ret_snap);	/* a guess cuts nothing */
	place(p, tail);
	{
		int from = new_label(p);
		LDX(BPF_W, R1, R8, F_BODY);
		LDX(BPF_W, R2, FP, S_SEQ);
		ALU32_REG(BPF_SUB, R1, R2);		/* r1: where body is in the payload */
		LDX(BPF_W, R3, FP, S_PLEN);
		J32_REG(BPF_JSGE, R1, R3, walked);	/* at or past the end: nothing to cut */
		J32_IMM(BPF_JSGE, R1, 0, from);
		MOV32_IMM(R1, 0);
		place(p, from);
		ALU32_REG(BPF_SUB, R3, R1);		/* r3: bytes left out */
		LDX(BPF_DW, R4, R8, F_PACKETS);
		ALU64_IMM(BPF_ADD, R4, 1);
		STX(BPF_DW, R8, R4, F_PACKETS);
		LDX(BPF_DW, R4, R8, F_BYTES);
		ALU64_REG(BPF_ADD, R4, R3);
		STX(BPF_DW, R8, R4, F_BYTES);
		LDX(BPF_W, R0, FP, S_CUTLEN);
		ALU64_REG(BPF_ADD, R0, R1);
		J_REG(BPF_JGE, R0, R9, walked);
		MOV64_REG(R9, R0);			/* returned through ret_snap */
		JA(walked);
	}

	/* Read the next header's first bytes into hdr, as many as this
	   packet has, then decide its length. */
	place(p, gather);
	LDX(BPF_W, R0, FP, S_WALK);
	ALU32_IMM(BPF_ADD, R0, 1);
	STX(BPF_W, FP, R0, S_WALK);
	J_IMM(BPF_JGT, R0, WALK_MAX, lost_walk);
	LDX(BPF_W, R3, R8, F_HAVE);
	LDX(BPF_W, R4, R8, F_WANT);
	J_IMM(BPF_JGT, R4, HDR_MAX, lost_read);
	J_REG(BPF_JGE, R3, R4, decide);
	J_IMM(BPF_JGT, R3, HDR_MAX - 1, lost_read);	/* (for the verifier: r3 < r4) */
	/* r2: where in the payload the first byte still wanted is */
	LDX(BPF_W, R2, R8, F_NEXT);
	ALU32_REG(BPF_ADD, R2, R3);
	LDX(BPF_W, R1, FP, S_SEQ);
	ALU32_REG(BPF_SUB, R2, R1);
	/* r5: bytes of the payload from there */
	LDX(BPF_W, R5, FP, S_END);
	ALU32_REG(BPF_SUB, R5, R1);
	ALU32_REG(BPF_SUB, R5, R2);
	J32_IMM(BPF_JSLE, R5, 0, walked);	/* the header goes on in a later packet */
	ALU32_REG(BPF_SUB, R4, R3);		/* r4: bytes to read now */
	J_REG(BPF_JLE, R4, R5, len_done);
	MOV64_REG(R4, R5);
	place(p, len_done);
	J_IMM(BPF_JEQ, R4, 0, lost_read);
	J_IMM(BPF_JGT, R4, HDR_MAX, lost_read);
	STX(BPF_W, FP, R4, S_N);
	/* Offset from the packet's start: bpf_skb_load_bytes reads payload
	   in page fragments too (large loopback packets keep theirs there),
	   where the loads relative to the network header do not reach. */
	LDX(BPF_W, R1, FP, S_CUTLEN);
	ALU64_REG(BPF_ADD, R2, R1);
	MOV64_REG(R1, R6);
	ALU64_REG(BPF_ADD, R3, R8);		/* r3 = &hdr[have] */
	ALU64_IMM(BPF_ADD, R3, F_HDR);
	CALL(BPF_FUNC_skb_load_bytes);
	J_IMM(BPF_JNE, R0, 0, lost_read);
	LDX(BPF_W, R0, FP, S_N);
	LDX(BPF_W, R1, R8, F_HAVE);
	ALU32_REG(BPF_ADD, R1, R0);
	STX(BPF_W, R8, R1, F_HAVE);
	JA(gather);

	/* The header's first `want` bytes are in hdr: the message's size
	   into r1. */
	place(p, decide);
	LDX(BPF_W, R0, R8, F_MODE);
	J_IMM(BPF_JSET, R0, MODE_SETUP, setup);
	J_IMM(BPF_JSET, R0, MODE_S2C, s2c_size);
	/* A request: how much of it to keep, by its major opcode */
	{
		int short_keep = new_label(p), kept = new_label(p);
		ST(BPF_W, FP, S_KEEP, PROTO_X11_KEEP);
		LDX(BPF_B, R3, R8, F_HDR);
		J_IMM(BPF_JGE, R3, 128, kept);
		MOV64_REG(R4, R3);
		ALU32_IMM(BPF_RSH, R4, 5);
		ALU32_IMM(BPF_LSH, R4, 2);
		LDX(BPF_DW, R5, FP, S_BASE);
		ALU64_REG(BPF_ADD, R5, R4);
		LDX(BPF_W, R5, R5, offsetof(struct cut_shared, short_requests));
		ALU32_IMM(BPF_AND, R3, 31);
		ALU32_REG(BPF_RSH, R5, R3);
		J_IMM(BPF_JSET, R5, 1, short_keep);
		JA(kept);
		place(p, short_keep);
		ST(BPF_W, FP, S_KEEP, 32);
		place(p, kept);
	}
	/* and its length: 16 bits in 4-byte units at 2, 0 for BIG-REQUESTS */
	header_field(p, R3, 2, 2);
	J_IMM(BPF_JEQ, R3, 0, big_req);
	MOV64_REG(R1, R3);
	ALU64_IMM(BPF_LSH, R1, 2);
	JA(got_size);
	place(p, big_req);	/* its 32-bit length follows: read 8 bytes */
	{
		int have8 = new_label(p);
		LDX(BPF_W, R3, R8, F_HAVE);
		J_IMM(BPF_JGE, R3, 8, have8);
		ST(BPF_W, R8, F_WANT, 8);
		JA(gather);
		place(p, have8);
	}
	header_field(p, R3, 4, 4);
	J_IMM(BPF_JLT, R3, 2, lost_length);
	J_IMM(BPF_JGT, R3, PROTO_X11_REQUEST_MAX_UNITS, lost_length);
	MOV64_REG(R1, R3);
	ALU64_IMM(BPF_LSH, R1, 2);
	JA(got_size);

	place(p, s2c_size);	/* 32 bytes, plus a length for replies and GenericEvents */
	ST(BPF_W, FP, S_KEEP, PROTO_X11_KEEP);
	{
		/* the code without the send-event bit, as proto_x11_length
		   reads it: 1 a reply */
		int counted = new_label(p);
		LDX(BPF_B, R3, R8, F_HDR);
		ALU32_IMM(BPF_AND, R3, 0x7f);
		J_IMM(BPF_JEQ, R3, 1, counted);
		J_IMM(BPF_JEQ, R3, X11_EVENT_GeGeneric, counted);
		MOV32_IMM(R1, 32);
		JA(got_size);
		place(p, counted);
		header_field(p, R3, 4, 4);
		J_IMM(BPF_JGT, R3, PROTO_X11_REPLY_MAX_UNITS, lost_length);
		MOV64_REG(R1, R3);
		ALU64_IMM(BPF_LSH, R1, 2);
		ALU64_IMM(BPF_ADD, R1, 32);
		JA(got_size);
	}

	/* The connection setup: the client's request names the byte order
	   in its first byte; the server's reply carries protocol version
	   11 at bytes 2-3, which tells its byte order too. */
	place(p, setup);
	ST(BPF_W, FP, S_KEEP, PROTO_X11_KEEP);
	{
		int reply = new_label(p), big = new_label(p), order_known = new_label(p),
		    r_big = new_label(p), r_order_known = new_label(p);
		J_IMM(BPF_JSET, R0, MODE_S2C, reply);
		LDX(BPF_B, R3, R8, F_HDR);
		J_IMM(BPF_JEQ, R3, 'B', big);
		J_IMM(BPF_JNE, R3, 'l', lost_length);
		ALU32_IMM(BPF_AND, R0, ~(MODE_SETUP | MODE_BIG));
		JA(order_known);
		place(p, big);
		ALU32_IMM(BPF_AND, R0, ~MODE_SETUP);
		ALU32_IMM(BPF_OR, R0, MODE_BIG);
		place(p, order_known);
		STX(BPF_W, R8, R0, F_MODE);
		/* 12 bytes, then the authorization name and data, each padded */
		header_field(p, R3, 6, 2);
		ALU32_IMM(BPF_ADD, R3, 3);
		ALU32_IMM(BPF_AND, R3, ~3);
		header_field(p, R4, 8, 2);
		ALU32_IMM(BPF_ADD, R4, 3);
		ALU32_IMM(BPF_AND, R4, ~3);
		MOV64_REG(R1, R3);
		ALU64_REG(BPF_ADD, R1, R4);
		ALU64_IMM(BPF_ADD, R1, 12);
		JA(got_size);

		place(p, reply);	/* success or failure; not Authenticate */
		LDX(BPF_B, R3, R8, F_HDR);
		J_IMM(BPF_JGT, R3, 1, lost_length);
		LDX(BPF_B, R3, R8, F_HDR + 2);
		LDX(BPF_B, R4, R8, F_HDR + 3);
		J_IMM(BPF_JEQ, R3, 0, r_big);
		J_IMM(BPF_JNE, R3, 11, lost_length);
		J_IMM(BPF_JNE, R4, 0, lost_length);
		ALU32_IMM(BPF_AND, R0, ~(MODE_SETUP | MODE_BIG));
		JA(r_order_known);
		place(p, r_big);
		J_IMM(BPF_JNE, R4, 11, lost_length);
		ALU32_IMM(BPF_AND, R0, ~MODE_SETUP);
		ALU32_IMM(BPF_OR, R0, MODE_BIG);
		place(p, r_order_known);
		STX(BPF_W, R8, R0, F_MODE);
		/* 8 bytes and a length in 4-byte units at 6 */
		header_field(p, R3, 6, 2);
		MOV64_REG(R1, R3);
		ALU64_IMM(BPF_LSH, R1, 2);
		ALU64_IMM(BPF_ADD, R1, 8);
	}

	place(p, got_size);	/* r1: the message's size */
	LDX(BPF_W, R2, R8, F_NEXT);
	MOV64_REG(R3, R2);
	LDX(BPF_W, R4, FP, S_KEEP);
	ALU32_REG(BPF_ADD, R3, R4);
	STX(BPF_W, R8, R3, F_BODY);
	ALU32_REG(BPF_ADD, R2, R1);
	STX(BPF_W, R8, R2, F_NEXT);
	ST(BPF_W, R8, F_HAVE, 0);
	want_a_header(p);
	LDX(BPF_W, R3, FP, S_END);
	ALU32_REG(BPF_SUB, R2, R3);
	J32_IMM(BPF_JSLT, R2, 0, gather);	/* the next header is in this packet too */
	/* The message goes on past this packet. */
	LDX(BPF_W, R0, R8, F_FLAGS);
	J_IMM(BPF_JEQ, R0, CUT_ARMED, tail);
	JA(walked);

	/* A new connection, or the same ports again: follow it from its
	   first byte, the setup request or reply. */
	place(p, init);
	for (int w = 0; w < KEY_WORDS; w++) {
		LDX(BPF_W, R1, FP, (int16_t)(S_KEY + 4 * w));
		STX(BPF_W, R8, R1, (int16_t)(F_KEY + 4 * w));
	}
	LDX(BPF_W, R1, FP, S_SEQ);
	ALU32_IMM(BPF_ADD, R1, 1);
	STX(BPF_W, R8, R1, F_AHEAD_LO);
	STX(BPF_W, R8, R1, F_AHEAD_HI);
	STX(BPF_W, R8, R1, F_NEXT);
	STX(BPF_W, R8, R1, F_BODY);
	ST(BPF_W, R8, F_HAVE, 0);
	ST(BPF_W, R8, F_PSH_SET, 0);
	ST(BPF_W, R8, F_LOSSES, 0);
	ST(BPF_W, R8, F_WHY, 0);
	ST(BPF_DW, R8, F_PACKETS, 0);
	ST(BPF_DW, R8, F_BYTES, 0);
	{
		int s2c = new_label(p), done = new_label(p);
		LDX(BPF_W, R0, FP, S_TCPFLAGS);
		J_IMM(BPF_JSET, R0, 0x10, s2c);
		ST(BPF_W, R8, F_MODE, MODE_SETUP);
		ST(BPF_W, R8, F_WANT, 12);
		JA(done);
		place(p, s2c);
		ST(BPF_W, R8, F_MODE, MODE_SETUP | MODE_S2C);
		ST(BPF_W, R8, F_WANT, 8);
		place(p, done);
	}
	ST(BPF_W, R8, F_FLAGS, CUT_ARMED);
	JA(ret_snap);

	/* Losing track: say why, hand the state over, keep the packet. */
	const struct { int label; int why; } reasons[] = {
		{ lost_late, CUT_LOST_LATE },
		{ lost_order, CUT_LOST_ORDER }, { lost_walk, CUT_LOST_WALK },
		{ lost_read, CUT_LOST_READ }, { lost_length, CUT_LOST_LENGTH },
	};
	for (size_t i = 0; i < sizeof reasons / sizeof *reasons; i++) {
		place(p, reasons[i].label);
		ST(BPF_W, R8, F_WHY, reasons[i].why);
		JA(lost);
	}
	place(p, lost);
	LDX(BPF_W, R1, R8, F_LOSSES);
	ALU32_IMM(BPF_ADD, R1, 1);
	STX(BPF_W, R8, R1, F_LOSSES);
	ST(BPF_W, R8, F_PSH_SET, 0);
	ST(BPF_W, R8, F_FLAGS, CUT_LOST);
	JA(release);

	/* Every way out: a run that holds the slot lets go of it, after
	   giving up on the framing if a packet went by unexamined meanwhile
	   (it may have held a header). */
	place(p, ret_snap);
	LDX(BPF_W, R0, FP, S_OWNED);
	J_IMM(BPF_JEQ, R0, 0, out);
	LDX(BPF_W, R0, R8, F_MISSED);
	LDX(BPF_W, R1, FP, S_MISSED);
	J_REG(BPF_JEQ, R0, R1, release);
	LDX(BPF_W, R0, R8, F_FLAGS);
	J_IMM(BPF_JEQ, R0, CUT_ARMED, lost_busy);
	J_IMM(BPF_JEQ, R0, CUT_TENTATIVE, lost_busy);
	JA(release);
	place(p, lost_busy);
	ST(BPF_W, R8, F_WHY, CUT_LOST_BUSY);
	JA(lost);
	place(p, release);
	MOV32_IMM(R1, 0);
	ATOMIC(BPF_XCHG, R8, R1, F_BUSY);
	place(p, out);
	MOV64_REG(R0, R9);
	EXIT();
}

/* ---- the kernel side ---- */

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof *attr);
}

static int map_create(uint32_t type, uint32_t key, uint32_t value, uint32_t entries, uint32_t flags)
{
	union bpf_attr a;
	memset(&a, 0, sizeof a);
	a.map_type = type;
	a.key_size = key;
	a.value_size = value;
	a.max_entries = entries;
	a.map_flags = flags;
	return (int)sys_bpf(BPF_MAP_CREATE, &a);
}

static int prog_load(const struct prog *p, char *log, size_t loglen)
{
	union bpf_attr a;
	memset(&a, 0, sizeof a);
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (uint64_t)(uintptr_t)p->v;
	a.insn_cnt = (uint32_t)p->n;
	/* It calls no helper reserved to GPL programs. */
	a.license = (uint64_t)(uintptr_t)PACKAGE_NAME;
	int fd = (int)sys_bpf(BPF_PROG_LOAD, &a);
	if (fd >= 0 || !log)
		return fd;
	/* Again with the verifier's log, for the reason. */
	int err = errno;
	static char vlog[1 << 20];
	a.log_buf = (uint64_t)(uintptr_t)vlog;
	a.log_size = sizeof vlog;
	a.log_level = 1;
	vlog[0] = '\0';
	if (sys_bpf(BPF_PROG_LOAD, &a) < 0 && vlog[0]) {
		/* The line before the closing statistics says why. */
		char *end = strstr(vlog, "\nprocessed ");
		if (end)
			*end = '\0';
		char *last = strrchr(vlog, '\n');
		snprintf(log, loglen, "%s", last ? last + 1 : vlog);
		if (getenv("XCAP_CUT_LOG"))
			fputs(vlog, stderr);
	} else {
		snprintf(log, loglen, "%s", strerror(err));
	}
	errno = err;
	return -1;
}

/* Bytes in front of the network header in what the socket filter sees. */
static int link_length(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB: return 14;
	case DLT_LINUX_SLL:
	case DLT_LINUX_SLL2:	/* "any" is a cooked socket: no link header */
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6: return 0;
	default: return -1;
	}
}

/* The classic program translated, then the cutter (or, without the
   state array, a return of the snapshot length), assembled and loaded.
   The program's descriptor, or -1 with the reason in err. */
static int build(const struct sock_filter *classic, size_t n, int link_len, int array_fd,
		 char *err, size_t errlen)
{
	struct prog prog = { 0 }, *p = &prog;
	int cut = new_label(p), fd = -1;
	const char *why = NULL;
	if (!translate(p, classic, n, cut, &why)) {
		snprintf(err, errlen, "%s", why ? why : "cannot translate the filter");
		goto out;
	}
	if (array_fd >= 0) {
		cutter(p, cut, link_len, array_fd);
	} else {
		place(p, cut);
		MOV64_REG(R0, R9);
		EXIT();
	}
	if (!link_jumps(p)) {
		snprintf(err, errlen, "cannot assemble the program");
		goto out;
	}
	char why_not[256] = "";
	fd = prog_load(p, why_not, sizeof why_not);
	if (fd < 0)
		snprintf(err, errlen, "the kernel refused the program: %s", why_not);
out:
	prog_free(p);
	return fd;
}

/* The state array, mapped, and the program for a classic filter on link
   type dlt that uses it, loaded: the program's descriptor in *prog_fd. */
static struct cut *cut_new(const struct sock_filter *classic, size_t n, int dlt, int *prog_fd,
			   char *err, size_t errlen)
{
	int link_len = link_length(dlt);
	if (link_len < 0) {
		snprintf(err, errlen, "not done on this link type");
		return NULL;
	}
	struct cut *k = calloc(1, sizeof *k);
	if (!k) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	k->array_fd = -1;
	/* One value holding every slot: the program reaches a slot by
	   arithmetic on one pointer instead of a lookup per probe. */
	k->map_bytes = sizeof(struct cut_shared);
	k->array_fd = map_create(BPF_MAP_TYPE_ARRAY, sizeof(uint32_t), (uint32_t)k->map_bytes, 1,
				 BPF_F_MMAPABLE);
	if (k->array_fd < 0) {
		snprintf(err, errlen, "cannot create a BPF map: %s", strerror(errno));
		goto fail;
	}
	void *m = mmap(NULL, k->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, k->array_fd, 0);
	if (m == MAP_FAILED) {
		snprintf(err, errlen, "cannot map the BPF map: %s", strerror(errno));
		goto fail;
	}
	k->shared = m;
	k->state = k->shared->slot;
	/* What the framing rules keep of each core request (x11_frame.h). */
	struct proto_x11_at request = { .server = false };
	for (unsigned major = 0; major < 128; major++)
		if (proto_x11_keep(request, (uint8_t)major) <= 32)
			k->shared->short_requests[major / 32] |= 1u << (major % 32);
	*prog_fd = build(classic, n, link_len, k->array_fd, err, errlen);
	if (*prog_fd < 0)
		goto fail;
	return k;
fail:
	cut_free(k);
	return NULL;
}

struct cut *cut_attach(int fd, int dlt, char *err, size_t errlen)
{
	if (link_length(dlt) < 0) {
		snprintf(err, errlen, "not done on this link type");
		return NULL;
	}
	/* The classic filter as the kernel holds it, libpcap's changes
	   included. */
	socklen_t n = 0;
	if (getsockopt(fd, SOL_SOCKET, SO_GET_FILTER, NULL, &n) < 0 || n == 0) {
		snprintf(err, errlen, "no filter attached to read back");
		return NULL;
	}
	struct sock_filter *classic = calloc(n, sizeof *classic);
	if (!classic) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	struct cut *k = NULL;
	if (getsockopt(fd, SOL_SOCKET, SO_GET_FILTER, classic, &n) < 0) {
		snprintf(err, errlen, "cannot read the filter back: %s", strerror(errno));
		goto fail;
	}
	int prog_fd;
	k = cut_new(classic, n, dlt, &prog_fd, err, errlen);
	if (!k)
		goto fail;
	int rc = setsockopt(fd, SOL_SOCKET, SO_ATTACH_BPF, &prog_fd, sizeof prog_fd);
	int e = errno;
	close(prog_fd);
	if (rc < 0) {
		snprintf(err, errlen, "cannot attach the program: %s", strerror(e));
		goto fail;
	}
	free(classic);
	return k;
fail:
	free(classic);
	cut_free(k);
	return NULL;
}

struct cut *cut_load_for_test(const struct sock_filter *classic, size_t n, int dlt, int *prog_fd,
			      char *err, size_t errlen)
{
	return cut_new(classic, n, dlt, prog_fd, err, errlen);
}

int cut_load_translation(const struct sock_filter *classic, size_t n, char *err, size_t errlen)
{
	return build(classic, n, 0, -1, err, errlen);
}

/* ---- following connections ---- */

static void key_words(uint32_t w[4], const struct xaddr *a)
{
	memset(w, 0, 4 * sizeof *w);
	int words = a->family == 6 ? 4 : 1;
	for (int i = 0; i < words; i++) {
		const uint8_t *b = a->addr + 4 * i;
		w[i] = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	}
}

static uint32_t flags_of(const struct cut_state *st)
{
	return __atomic_load_n(&st->flags, __ATOMIC_ACQUIRE);
}

int cut_open(struct cut *k, const struct xaddr *src, const struct xaddr *dst, bool server_to_client)
{
	if (!k)
		return -1;
	struct cut_key key;
	memset(&key, 0, sizeof key);
	key_words(key.src, src);
	key_words(key.dst, dst);
	key.ports = (uint32_t)src->port << 16 | dst->port;
	uint32_t first = key_hash(&key);
	/* The kernel took a slot at the connection's SYN (or SYN-ACK)... */
	for (uint32_t i = 0; i < PROBES; i++) {
		int slot = (int)((first + i) & (SLOTS - 1));
		const struct cut_state *st = &k->state[slot];
		uint32_t f = flags_of(st);
		if (f != CUT_FREE && f != CUT_CLAIMING && memcmp(&st->key, &key, sizeof key) == 0)
			return slot;
	}
	/* ... or the connection began before the capture: take one, to arm
	   when the decoder is sure of the framing. */
	for (uint32_t i = 0; i < PROBES; i++) {
		int slot = (int)((first + i) & (SLOTS - 1));
		struct cut_state *st = &k->state[slot];
		uint32_t expected = CUT_FREE;
		if (!__atomic_compare_exchange_n(&st->flags, &expected, CUT_CLAIMING, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			continue;
		st->key = key;
		st->mode = server_to_client ? MODE_S2C : 0;
		st->have = 0;
		st->losses = 0;
		st->why = 0;
		st->cut_packets = st->cut_bytes = 0;
		__atomic_store_n(&st->flags, CUT_WAITING, __ATOMIC_RELEASE);
		return slot;
	}
	return -1;
}

static void count_loss(struct cut *k, struct cut_state *st)
{
	if (st->why > 0 && st->why < CUT_LOST_REASONS)
		k->closed.lost_by[st->why]++;
	st->why = 0;
}

void cut_close(struct cut *k, int slot)
{
	if (!k || slot < 0 || slot >= (int)SLOTS)
		return;
	struct cut_state *st = &k->state[slot];
	k->closed.packets += st->cut_packets;
	k->closed.bytes += st->cut_bytes;
	k->closed.losses += st->losses;
	count_loss(k, st);
	/* A packet the kernel is processing right now may still write to
	   it; the connection is over, so it can only be a late one. */
	__atomic_store_n(&st->flags, CUT_FREE, __ATOMIC_RELEASE);
}


void cut_hand_over(struct cut *k, int slot, bool big_endian)
{
	struct cut_state *st = &k->state[slot];
	if (flags_of(st) != CUT_WAITING)
		return;
	st->mode = (st->mode & MODE_S2C) | (big_endian ? MODE_BIG : 0);
	st->psh_set = 0;
	__atomic_store_n(&st->flags, CUT_LOST, __ATOMIC_RELEASE);
}

enum cut_view cut_view(const struct cut *k, int slot, uint32_t *guess)
{
	const struct cut_state *st = &k->state[slot];
	switch (flags_of(st)) {
	case CUT_ARMED: return CUT_VIEW_FOLLOWING;
	case CUT_WAITING: return CUT_VIEW_YOURS;
	case CUT_TENTATIVE:
		*guess = __atomic_load_n(&st->guess, __ATOMIC_RELAXED);
		return CUT_VIEW_GUESSING;
	default: return CUT_VIEW_OTHER;
	}
}

void cut_judge(struct cut *k, int slot, uint32_t guess, bool right)
{
	struct cut_state *st = &k->state[slot];
	uint32_t expected = CUT_TENTATIVE;
	if (__atomic_load_n(&st->guess, __ATOMIC_RELAXED) != guess)
		return;
	if (right) {
		if (__atomic_compare_exchange_n(&st->flags, &expected, CUT_ARMED, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			k->closed.arms++;
			count_loss(k, st);
		}
	} else {
		/* (psh_set may be seen stale by the kernel: it only leads to
		   another guess that will be judged in turn.) */
		st->psh_set = 0;
		if (__atomic_compare_exchange_n(&st->flags, &expected, CUT_LOST, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			k->closed.refuted++;
	}
}

void cut_get_totals(const struct cut *k, struct cut_totals *t)
{
	*t = k->closed;
	for (uint32_t s = 0; s < SLOTS; s++) {
		const struct cut_state *st = &k->state[s];
		if (flags_of(st) == CUT_FREE)
			continue;
		t->packets += st->cut_packets;
		t->bytes += st->cut_bytes;
		t->losses += st->losses;
	}
}

void cut_free(struct cut *k)
{
	if (!k)
		return;
	if (k->shared)
		munmap(k->shared, k->map_bytes);
	if (k->array_fd >= 0)
		close(k->array_fd);
	free(k);
}

/* The pipeline sees the cutter only through struct pipeline_cutter. */
static int hook_open(void *k, const struct xaddr *src, const struct xaddr *dst, bool s2c)
{
	return cut_open(k, src, dst, s2c);
}

static void hook_close(void *k, int slot)
{
	cut_close(k, slot);
}

static enum pipeline_cut_view hook_view(void *k, int slot, uint32_t *guess)
{
	switch (cut_view(k, slot, guess)) {
	case CUT_VIEW_FOLLOWING:
		return PIPELINE_CUT_FOLLOWING;
	case CUT_VIEW_YOURS:
		return PIPELINE_CUT_YOURS;
	case CUT_VIEW_GUESSING:
		return PIPELINE_CUT_GUESSING;
	case CUT_VIEW_OTHER:
		break;
	}
	return PIPELINE_CUT_OTHER;
}

static void hook_hand_over(void *k, int slot, bool big_endian)
{
	cut_hand_over(k, slot, big_endian);
}

static void hook_judge(void *k, int slot, uint32_t guess, bool right)
{
	cut_judge(k, slot, guess, right);
}

void cut_hook(struct cut *k, struct pipeline_cutter *hook)
{
	hook->ctx = k;
	hook->open = hook_open;
	hook->close = hook_close;
	hook->view = hook_view;
	hook->hand_over = hook_hand_over;
	hook->judge = hook_judge;
}
