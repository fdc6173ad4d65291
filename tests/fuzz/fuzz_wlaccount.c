/*
 * fuzz_wlaccount.c — fuzz entry point for what xcap-run's Wayland relay
 * reads of the decoded messages (xcap/cmd/xcap-run/wlaccount.c): each
 * line of the input is a message's detail as the decoder names it
 * ("wl_surface@3.damage(0, 0, 250, 250)"), its interface and name taken
 * from it as the decoder gives them; a first character of '<' makes it
 * the compositor's, and a detail naming an fd comes with a descriptor
 * (none to read: the relay's duplicate may be missing).  Geometry,
 * damage and ids then come from hostile text, as a hostile client's
 * would through the decoder.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../xcap/cmd/xcap-run/wlaccount.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void drop(void *ctx, const struct xrec *rec)
{
	(void)ctx;
	(void)rec;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wl_account *a = wl_account_new(drop, NULL);
	if (!a)
		return 0;
	size_t at = 0;
	while (at < size) {
		const uint8_t *nl = memchr(data + at, '\n', size - at);
		size_t len = nl ? (size_t)(nl - (data + at)) : size - at;
		char line[XMSG_DETAIL_MAX];
		if (len >= sizeof line)
			len = sizeof line - 1;
		memcpy(line, data + at, len);
		line[len] = '\0';
		at += (nl ? (size_t)(nl - (data + at)) + 1 : size - at);
		int dir = line[0] == '<' ? XDIR_S2C : XDIR_C2S;
		const char *detail = line + (line[0] == '<');
		char ext[64] = "", name[64] = "";
		const char *atp = strchr(detail, '@'), *dot = atp ? strchr(atp, '.') : NULL;
		const char *open = dot ? strchr(dot, '(') : NULL;
		if (atp && (size_t)(atp - detail) < sizeof ext)
			memcpy(ext, detail, (size_t)(atp - detail));
		if (dot && open && (size_t)(open - dot - 1) < sizeof name)
			memcpy(name, dot + 1, (size_t)(open - dot - 1));
		struct xrec_msg m = { .conn = 1, .dir = (uint8_t)dir, .kind = XMSG_REQUEST,
				      .name = name, .ext = ext, .detail = detail };
		if (strstr(detail, "fd")) {
			const char *what[2] = { "memfd 4096 bytes", "pipe" };
			int fds[2] = { -1, -1 };
			wl_account_fds(a, 1, dir, what, fds, 2);
			m.flags = XMSG_F_NO_BYTES;
		}
		wl_account_message(a, &m);
	}
	uint64_t c, b, f, w;
	wl_account_totals(a, &c, &b, &f, &w);
	wl_account_free(a);
	return 0;
}
