/*
 * wlmsg.h — a Wayland message read back from its record: the decoder
 * (protocols/wayland.c) writes each message's detail in WAYLAND_DEBUG's
 * form, `interface@id.message(argument, argument, ...)`, its interface in
 * ext and its name in name; the readers above it (frame pacing, responses
 * to input) take the object id and the arguments from that text, which is
 * the one place the decoder says them.
 *
 * Arguments are as WAYLAND_DEBUG prints them: numbers, "strings", nil,
 * fixed as 12.50000000, objects as interface@id, new ids as
 * `new id interface@id`, array[N], fd.
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#ifndef XCAP_WLMSG_H
#define XCAP_WLMSG_H

#include <stdbool.h>
#include <stdint.h>

#include "record.h"

#define WLMSG_ARGS_MAX 12

struct wlmsg {
	uint32_t id;			/* the object the message is on */
	unsigned nargs;
	const char *arg[WLMSG_ARGS_MAX];	/* into the detail: each ends at ',' or ')' */
};

/* The message is Wayland's (a record of a wayland or waypipe connection
   whose ext is an interface) and is interface.name. */
bool wlmsg_is(const struct xrec_msg *g, const char *interface, const char *name);

/* Reads the detail; false when it is not in that form (a message named
   by opcode, waypipe's own, arguments cut short by the detail's size). */
bool wlmsg_parse(const char *detail, struct wlmsg *m);

/* Argument n as a number (int, uint) or an object's id (interface@id, new
   id interface@id); false when it is neither or absent. */
bool wlmsg_u64(const struct wlmsg *m, unsigned n, uint64_t *v);
bool wlmsg_i64(const struct wlmsg *m, unsigned n, int64_t *v);

/* A wl_surface.commit's buffer bytes, which the decoder writes after the
   closing parenthesis when waypipe's transfers are tied to the buffer the
   commit shows: ` + rid R: N bytes in K transfers` (the bytes its fills
   and diffs took on the wire since the last commit charged).  False when
   the detail has none. */
bool wlmsg_buffer_bytes(const char *detail, uint64_t *bytes);

#endif
