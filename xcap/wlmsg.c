/*
 * wlmsg.c — a Wayland message read back from its record's detail
 * (wlmsg.h).
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "wlmsg.h"

bool wlmsg_is(const struct xrec_msg *g, const char *interface, const char *name)
{
	return g->ext && g->name && strcmp(g->ext, interface) == 0 && strcmp(g->name, name) == 0;
}

bool wlmsg_parse(const char *detail, struct wlmsg *m)
{
	memset(m, 0, sizeof *m);
	const char *at = strchr(detail, '@');
	const char *open = strchr(detail, '(');
	if (!at || !open || at > open)
		return false;
	char *end;
	unsigned long id = strtoul(at + 1, &end, 10);
	if (end == at + 1 || *end != '.' || id == 0 || id > UINT32_MAX)
		return false;
	m->id = (uint32_t)id;
	const char *p = open + 1;
	if (*p == ')')
		return true;
	for (;;) {
		if (m->nargs == WLMSG_ARGS_MAX)
			return false;
		m->arg[m->nargs++] = p;
		/* to the argument's end: ',' or ')' outside a string */
		bool quoted = false;
		while (*p && (quoted || (*p != ',' && *p != ')'))) {
			if (*p == '"')
				quoted = !quoted;
			p++;
		}
		if (*p == ')')
			return true;
		if (*p != ',' || p[1] != ' ')
			return false;	/* cut short ("...") */
		p += 2;
	}
}

/* The number an argument holds: itself, or the id after '@'. */
static const char *number_of(const struct wlmsg *m, unsigned n)
{
	if (n >= m->nargs)
		return NULL;
	const char *a = m->arg[n];
	const char *e = a + strcspn(a, ",)");
	const char *at = memchr(a, '@', (size_t)(e - a));
	return at ? at + 1 : a;
}

bool wlmsg_u64(const struct wlmsg *m, unsigned n, uint64_t *v)
{
	const char *s = number_of(m, n);
	if (!s || *s < '0' || *s > '9')
		return false;
	char *end;
	*v = strtoull(s, &end, 10);
	return *end == ',' || *end == ')';
}

bool wlmsg_i64(const struct wlmsg *m, unsigned n, int64_t *v)
{
	const char *s = number_of(m, n);
	if (!s || !((*s >= '0' && *s <= '9') || *s == '-'))
		return false;
	char *end;
	*v = strtoll(s, &end, 10);
	return *end == ',' || *end == ')';
}

bool wlmsg_buffer_bytes(const char *detail, uint64_t *bytes)
{
	const char *p = strstr(detail, ") + rid ");
	if (!p || !(p = strchr(p + 8, ':')) || p[1] != ' ' || p[2] < '0' || p[2] > '9')
		return false;
	char *end;
	*bytes = strtoull(p + 2, &end, 10);
	return strncmp(end, " bytes", 6) == 0;
}
