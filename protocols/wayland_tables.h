/*
 * wayland_tables.h — the Wayland catalogue, generated at build time from
 * the installed protocol XML (wayland.xml and every XML of
 * wayland-protocols) by protocols/gen_wayland.py into wayland_tables.c.
 * Every interface, request and event the Wayland decoder names comes from
 * there.
 *
 * Belongs to: libprotocols, the protocol decoders (protocols/).
 */
#ifndef XCAP_WAYLAND_TABLES_H
#define XCAP_WAYLAND_TABLES_H

#include <stddef.h>
#include <stdint.h>

/* Argument types, spelled as libwayland's message signatures spell them. */
enum wlt_type {
	WLT_INT = 'i',
	WLT_UINT = 'u',
	WLT_FIXED = 'f',
	WLT_STRING = 's',
	WLT_OBJECT = 'o',
	WLT_NEW_ID = 'n',
	WLT_ARRAY = 'a',
	WLT_FD = 'h',		/* travels beside the bytes, never in them */
};

struct wlt_arg {
	const char *name;
	uint8_t type;		/* enum wlt_type */
	uint8_t nullable;
	/* object and new_id: index of the interface in wlt_interfaces, -1
	   when the XML names none.  A new_id without an interface
	   (wl_registry.bind) is preceded on the wire by the interface's
	   name (string) and version (uint). */
	int16_t iface;
};

/* wlt_message.flags */
#define WLT_DESTRUCTOR 0x01	/* type="destructor": the object is gone after it */
#define WLT_HAS_FD 0x02		/* an argument is a file descriptor */

struct wlt_message {
	const char *name;
	uint16_t since;		/* interface version that added it */
	uint8_t flags;		/* WLT_* */
	uint8_t nargs;
	const struct wlt_arg *args;
};

struct wlt_interface {
	const char *name;
	const char *protocol;	/* the <protocol name=...> it comes from */
	uint32_t version;
	uint16_t nrequests, nevents;
	const struct wlt_message *requests, *events;
};

/* Every interface, sorted by name (strcmp order), each once: where two
   XML files define the same name (xdg-shell unstable v5's xdg_surface),
   the first file in the order wayland.xml, stable, staging, unstable
   wins. */
extern const struct wlt_interface wlt_interfaces[];
extern const size_t wlt_ninterfaces;
/* The XML files they were generated from, and how many <interface>
   elements those hold in all (duplicates included). */
extern const char *const wlt_sources[];
extern const size_t wlt_nsources;
extern const size_t wlt_interfaces_in_xml;

#endif
