/*
 * rfb_tables.h — the RFB catalogue, generated at build time from
 * protocols/rfb.def by protocols/gen_rfb.py into rfb_tables.c.  Every name
 * and number the RFB decoder prints or frames by comes from there.
 *
 * Belongs to: libprotocols, the protocol decoders (protocols/).
 */
#ifndef XCAP_RFB_TABLES_H
#define XCAP_RFB_TABLES_H

#include <stddef.h>
#include <stdint.h>

/* The field that counts a layout's repeated part (big-endian). */
enum rfb_count {
	RFB_COUNT_NONE = 0,
	RFB_COUNT_U8, RFB_COUNT_U16, RFB_COUNT_U32,
	RFB_COUNT_S32_MAGNITUDE,	/* cut text: negative means ExtendedClipboard */
};

/* FIXED bytes, then ELEM bytes per unit of the count field at count_off. */
struct rfb_layout {
	uint32_t fixed;
	uint8_t count;		/* enum rfb_count */
	uint8_t count_off;
	uint16_t elem;
};

/* How a message or a rectangle's data is framed beyond a layout: the
   walks protocols/rfb.c does in code. */
enum rfb_walk {
	RFB_WALK_LAYOUT = 0,	/* the layout says it all */
	RFB_WALK_UPDATE,	/* FramebufferUpdate: rectangles */
	RFB_WALK_GII,		/* gii: length in the byte order the message says */
	RFB_WALK_RAW, RFB_WALK_RRE, RFB_WALK_CORRE, RFB_WALK_HEXTILE, RFB_WALK_ZLIBHEX,
	RFB_WALK_TIGHT, RFB_WALK_TIGHTPNG, RFB_WALK_TRLE,
	RFB_WALK_CURSOR, RFB_WALK_XCURSOR, RFB_WALK_ALPHACURSOR, RFB_WALK_LASTRECT,
	RFB_WALK_VMWARECURSOR,
};

#define RFB_MSG_WANTS_REPLY 0x01

struct rfb_message {
	uint8_t type;
	int16_t sub;		/* subtype byte at offset 1, -1 when the type alone decides */
	int32_t op;		/* big-endian 16-bit operation at offset 2, -1 when none */
	const char *name;
	const char *ext;	/* "QEMU", "xvp", "gii"; NULL for the core protocol */
	uint8_t walk;		/* enum rfb_walk */
	uint8_t flags;		/* RFB_MSG_* */
	struct rfb_layout layout;
};

struct rfb_encoding {
	int32_t first, last;	/* last > first: a family of levels */
	const char *name;
	uint8_t pseudo;
	uint8_t walk;		/* enum rfb_walk */
	struct rfb_layout layout;
};

enum rfb_sec_kind { RFB_SEC_CLEAR = 0, RFB_SEC_VNCAUTH, RFB_SEC_OPAQUE };

struct rfb_security {
	uint8_t type;
	const char *name;
	uint8_t kind;		/* enum rfb_sec_kind */
};

/* Messages by direction (0 client to server, 1 server to client): entries
   of one type are contiguous, most specific first; by_type[dir][type] is
   the index of the first, or -1. */
extern const struct rfb_message *const rfb_messages[2];
extern const size_t rfb_nmessages[2];
extern const int16_t rfb_message_by_type[2][256];
/* Encodings sorted by first number. */
extern const struct rfb_encoding rfb_encodings[];
extern const size_t rfb_nencodings;
extern const struct rfb_security rfb_securities[];
extern const size_t rfb_nsecurities;

#endif
