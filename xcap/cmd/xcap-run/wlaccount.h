/*
 * wlaccount.h — what travelled beside a Wayland connection's bytes, for
 * the trace of xcap-run's Wayland relay: which messages carried file
 * descriptors (and what they were), and for each commit of a surface
 * with a wl_shm buffer attached, how many bytes of the buffer the commit
 * made the compositor read: the damaged region of the buffer, the bytes
 * waypipe would have to send for it.
 *
 * It reads the messages the pipeline decoded (their interface, name and
 * WAYLAND_DEBUG-style detail) and says what it found as notes (XREC_NOTE)
 * of the message's connection and direction, right after the message:
 *
 *   fds N: DETAIL: WHAT[, WHAT...]
 *   shm read B of S bytes: wl_surface@ID.commit wl_buffer@ID WxH stride T format F pool P, R damage rects[, new buffer][, waypipe W bytes]
 *   dmabuf commit: wl_surface@ID.commit wl_buffer@ID
 *
 * B is the union of the commit's damage (wl_surface.damage scaled by the
 * buffer scale, and damage_buffer) clipped to the buffer, each row's
 * bytes counted once at stride/width bytes a pixel; S the buffer's bytes
 * (height × stride).  "new buffer" marks the first commit of a buffer.
 * Buffer transforms and viewports are not applied to the damage.  W is
 * what waypipe 0.8 would send for the commit (a BUFFER_DIFF of the
 * changed blocks of the damage against its copy of the pool: see
 * waypipe_diff in wlaccount.c), when the pool's memory could be read.
 *
 * Belongs to: the xcap-run command's room (xcap/cmd/xcap-run/).
 */
#ifndef XCAP_RUN_WLACCOUNT_H
#define XCAP_RUN_WLACCOUNT_H

#include <stdint.h>

#include "record.h"

struct wl_account;

/* Notes go to emit.  NULL when out of memory. */
struct wl_account *wl_account_new(xrec_emit_fn emit, void *ctx);
void wl_account_free(struct wl_account *a);

/* Descriptors came with bytes of connection conn in direction dir; what
   each is (wls_describe_fd), in order, and a duplicate of each (or -1),
   which becomes the account's: a pool's is kept to read its memory at
   commits, the others closed.  They belong to the next messages of that
   direction whose signature has a descriptor.  0, -1 when out of
   memory. */
int wl_account_fds(struct wl_account *a, uint32_t conn, int dir, const char *const *what,
		   const int *fds, int n);

/* Every message record of the trace, in order. */
void wl_account_message(struct wl_account *a, const struct xrec_msg *m);

/* Totals of the whole run: commits of shm buffers, the bytes read, the
   messages with descriptors and what waypipe would have sent. */
void wl_account_totals(const struct wl_account *a, uint64_t *commits, uint64_t *bytes,
		       uint64_t *fd_messages, uint64_t *waypipe);

#endif
