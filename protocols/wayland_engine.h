/*
 * wayland_engine.h — the Wayland decoder's engine, shared by the decoder
 * of a bare Wayland stream (proto_wayland, wayland.c) and by waypipe's
 * framing (proto_waypipe, waypipe.c), which hands it the Wayland bytes of
 * its PROTOCOL blocks.
 *
 * The engine sees the application's messages in the request direction
 * and the compositor's in the event direction.  Each chunk it is fed comes
 * with the offset, in the outer stream, of the chunk's first byte, so that
 * a message is reported with the outer offset just past its last byte.
 *
 * Belongs to: libprotocols, the protocol decoders (protocols/).
 */
#ifndef XCAP_WAYLAND_ENGINE_H
#define XCAP_WAYLAND_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol.h"

struct wl_engine;

/* NULL when out of memory.  fd_tags: the opcode field's bits 11 to 15
   count the file descriptors sent with the message (waypipe tags its
   Wayland messages so; libwayland leaves them 0). */
struct wl_engine *wl_engine_new(const struct proto_sink *sink, bool fd_tags);
void wl_engine_free(struct wl_engine *e);

/* Wayland bytes of one role, requests (to_server) or events, which
   travel in the outer direction outer_dir. */
void wl_engine_feed(struct wl_engine *e, bool to_server, const uint8_t *data, size_t len,
		    uint64_t outer_start, enum proto_dir outer_dir);
/* Bytes of that role were lost: what follows may begin anywhere, and the
   object map may have missed creations and destructions. */
void wl_engine_gap(struct wl_engine *e, bool to_server);
/* A new block begins at a message boundary (waypipe's PROTOCOL blocks
   hold whole messages): a direction lost after a gap finds its framing
   again here. */
void wl_engine_boundary(struct wl_engine *e, bool to_server);
/* waypipe: the remote ids of the next file descriptors the role's
   messages carry, in order (INJECT_RIDS). */
void wl_engine_fd_rids(struct wl_engine *e, bool to_server, const int32_t *rids, size_t n);
/* waypipe: a fill or diff of the application's buffer with remote id rid
   took `wire` bytes on the wire; the next commit that shows it says so. */
void wl_engine_buffer_bytes(struct wl_engine *e, int32_t rid, uint64_t wire);
/* The role's stream ended; bytes of an unfinished message are said. */
void wl_engine_end(struct wl_engine *e, bool to_server);
/* The sequence number the next outer message of the request direction
   that is not a Wayland request (waypipe's own) takes: both share one
   count, so that every client message has its own number. */
uint64_t wl_engine_next_seq(struct wl_engine *e);
uint64_t wl_engine_last_seq(const struct wl_engine *e);

#endif
