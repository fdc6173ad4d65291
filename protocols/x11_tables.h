/*
 * x11_tables.h — the X11 descriptor tables, generated at build time from
 * xcb-proto by protocols/gen_x11.py into x11_tables.c.  Every name the
 * decoder prints comes from here; nothing in the decoder repeats them.
 *
 * Belongs to: libprotocols, the protocol decoders (protocols/).
 */
#ifndef XCAP_X11_TABLES_H
#define XCAP_X11_TABLES_H

#include <stddef.h>
#include <stdint.h>

enum x11_field_kind {
	X11_FIELD_ATOM = 1,	/* a CARD32 atom at offset */
	X11_FIELD_STRING = 2,	/* bytes at offset, count in the size-byte field at len_offset */
	X11_FIELD_XID = 3,	/* a CARD32 window or other resource id at offset: name=0x... */
	X11_FIELD_NONZERO = 4,	/* a size-byte number at offset, shown only when not 0 */
};

/* A field worth showing in a detail: atoms and the first counted string,
   and the few fields gen_x11.py's CHOSEN names (a property request's
   window). */
struct x11_field {
	const char *name;	/* xcb-proto's field name: "property", "name" */
	uint8_t kind;		/* enum x11_field_kind */
	uint16_t offset;
	uint8_t size;		/* bytes of the atom, XID or number, or of the string's length field */
	uint16_t len_offset;
};

/* How the length of a request or reply follows from its fields
   (gen_x11.py's layout()): what tells a message from bytes that only
   look like one. */
enum x11_shape {
	X11_SHAPE_FIXED = 0,	/* nothing after the fixed part */
	X11_SHAPE_LIST = 1,	/* then a list of elem-byte items, counted by the
				   field at count_offset when count_size > 0 */
	X11_SHAPE_MASK = 2,	/* then a 4-byte value per bit set in the mask
				   field at count_offset (count_size bytes) */
	X11_SHAPE_OTHER = 3,	/* something else: only the fixed part is known */
};

struct x11_layout {
	uint16_t fixed;		/* bytes up to the first part of varying size */
	uint8_t shape;		/* enum x11_shape */
	uint8_t elem;
	uint16_t count_offset;
	uint8_t count_size;
};

struct x11_request {
	const char *name;	/* NULL: no request has this opcode */
	uint8_t has_reply;
	uint8_t nfields;
	const struct x11_field *fields;
	uint8_t nreply_fields;
	const struct x11_field *reply_fields;
	struct x11_layout layout;
	struct x11_layout reply_layout;	/* when has_reply */
};

struct x11_event {
	const char *name;	/* NULL: no event has this number */
	uint8_t has_seq;	/* 0 for KeymapNotify, which has no sequence number */
	uint8_t nfields;	/* detail fields: only those gen_x11.py's CHOSEN names */
	const struct x11_field *fields;
};

struct x11_extension {
	const char *xname;	/* as QueryExtension names it: "BIG-REQUESTS"; NULL for core */
	const char *name;	/* xcb's name: "BigRequests"; "core" */
	uint16_t nrequests;
	const struct x11_request *requests;	/* by opcode (minor for extensions) */
	uint16_t nevents;
	const struct x11_event *events;		/* by number from the first event */
	uint16_t ngeneric;
	const struct x11_event *generic;	/* GenericEvents by event type */
	uint16_t nerrors;
	const char *const *errors;		/* by number from the first error */
};

extern const struct x11_extension *const x11_core_protocol;
extern const struct x11_extension *const x11_extensions[];
extern const size_t x11_nextensions;
/* The atoms every server predefines (PRIMARY = 1 ... WM_TRANSIENT_FOR = 68),
   by number; entry 0 is NULL. */
extern const char *const x11_predefined_atoms[];
extern const size_t x11_npredefined_atoms;

#endif
