/*
 * wl-keytime.c — an LD_PRELOAD interposer for wtype that gives each key
 * it types the time an input device would: CLOCK_MONOTONIC in ms.
 *
 * wtype sends zwp_virtual_keyboard_v1.key with time 0, and sway passes a
 * virtual keyboard's time through to the client's wl_keyboard.key, so a
 * key typed by wtype has no compositor time and no input to photon can
 * be counted from it.  libinput stamps a real keyboard's events with the
 * kernel's CLOCK_MONOTONIC, the clock wlroots' presentation feedback
 * uses; this interposer puts that time, taken as the request is made,
 * into the request and passes every other one through unchanged.
 * WLKEYTIME_CLOCK names another clock by its number (clock_gettime's):
 * the compositor's presentation clock, when it is not CLOCK_MONOTONIC.
 * Built by the tests:
 *   cc -shared -fPIC -o wl-keytime.so wl-keytime.c $(pkg-config --cflags --libs wayland-client) -ldl
 *
 * Belongs to: tests (the Wayland response test, tests/wayland-photon.sh).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wayland-client.h>

enum { MAX_ARGS = 20 };	/* libwayland's own limit of a message */

/* wl_proxy_marshal_flags's variadic arguments as an array, by the
   request's signature, the way libwayland reads them itself. */
struct wl_proxy *wl_proxy_marshal_flags(struct wl_proxy *proxy, uint32_t opcode,
					const struct wl_interface *interface, uint32_t version,
					uint32_t flags, ...)
{
	const struct wl_interface *self = *(const struct wl_interface **)proxy;
	const char *sig = self->methods[opcode].signature;
	union wl_argument args[MAX_ARGS];
	int n = 0;
	va_list ap;
	va_start(ap, flags);
	for (const char *s = sig; *s && n < MAX_ARGS; s++) {
		switch (*s) {
		case 'i': args[n++].i = va_arg(ap, int32_t); break;
		case 'u': args[n++].u = va_arg(ap, uint32_t); break;
		case 'f': args[n++].f = va_arg(ap, wl_fixed_t); break;
		case 's': args[n++].s = va_arg(ap, const char *); break;
		case 'o': args[n++].o = va_arg(ap, struct wl_object *); break;
		case 'n': args[n++].o = va_arg(ap, struct wl_object *); break;
		case 'a': args[n++].a = va_arg(ap, struct wl_array *); break;
		case 'h': args[n++].h = va_arg(ap, int32_t); break;
		default: break;	/* '?' and the since-version digits */
		}
	}
	va_end(ap);
	/* zwp_virtual_keyboard_v1.key(time, key, state) is request 1 */
	if (strcmp(self->name, "zwp_virtual_keyboard_v1") == 0 && opcode == 1 && args[0].u == 0) {
		struct timespec t;
		const char *id = getenv("WLKEYTIME_CLOCK");
		clock_gettime(id && *id ? (clockid_t)atoi(id) : CLOCK_MONOTONIC, &t);
		args[0].u = (uint32_t)((uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000);
	}
	return wl_proxy_marshal_array_flags(proxy, opcode, interface, version, flags, args);
}
