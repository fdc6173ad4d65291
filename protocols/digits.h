/*
 * digits.h — an unsigned number's text, written by hand.
 *
 * The decoders put numbers into every message's detail text; a printf
 * format costs about ten times the copying of its digits, and the detail
 * text is made for every message of a capture.  One place for the digits,
 * which the X11 and Wayland decoders share.
 *
 * Belongs to: libprotocols, the protocols layer's library (protocols/).
 */
#ifndef XCAP_DIGITS_H
#define XCAP_DIGITS_H

#include <stdbool.h>
#include <stdint.h>

/* The text of v in decimal, or in hex after "0x", at the end of buf[12]
   (not NUL-terminated); returns where it starts. */
static inline char *text_u32(char buf[static 12], uint32_t v, bool hex)
{
	char *p = buf + 12;
	do {
		*--p = hex ? "0123456789abcdef"[v & 15] : (char)('0' + v % 10);
		v = hex ? v >> 4 : v / 10;
	} while (v);
	if (hex) {
		*--p = 'x';
		*--p = '0';
	}
	return p;
}

#endif
