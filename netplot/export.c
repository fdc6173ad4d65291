/*
 * export.c — headless output of a view: PNG, SVG and PDF through the same
 * renderer as the window, and xplot's own plot language so that xplot
 * users keep their tool.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>

#include "render.h"

static const char *extension(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot && !strchr(dot, '/') ? dot + 1 : "";
}

int np_export(const struct np_view *v, const char *path, char *err, size_t errlen)
{
	const char *ext = extension(path);
	if (strcasecmp(ext, "xpl") == 0)
		return np_export_xpl(v, path, err, errlen);
	cairo_surface_t *s;
	if (strcasecmp(ext, "png") == 0)
		s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, v->width, v->height);
	else if (strcasecmp(ext, "svg") == 0)
		s = cairo_svg_surface_create(path, v->width, v->height);
	else if (strcasecmp(ext, "pdf") == 0)
		s = cairo_pdf_surface_create(path, v->width, v->height);
	else {
		snprintf(err, errlen, "unknown export format (use .png .svg .pdf or .xpl)");
		return -1;
	}
	if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
		snprintf(err, errlen, "%s", cairo_status_to_string(cairo_surface_status(s)));
		cairo_surface_destroy(s);
		return -1;
	}
	cairo_t *cr = cairo_create(s);
	np_render(cr, v, NULL, NULL);
	cairo_status_t st = cairo_status(cr);
	cairo_destroy(cr);
	if (st == CAIRO_STATUS_SUCCESS && strcasecmp(ext, "png") == 0)
		st = cairo_surface_write_to_png(s, path);
	cairo_surface_finish(s);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(s);
	cairo_surface_destroy(s);
	if (st != CAIRO_STATUS_SUCCESS) {
		snprintf(err, errlen, "%s", cairo_status_to_string(st));
		return -1;
	}
	return 0;
}

/* xplot's "timeval" coordinate: seconds.microseconds, absolute as
   tcptrace writes it. */
static void tv(FILE *f, const struct np_view *v, uint64_t t)
{
	uint64_t abs = v->m->t0 + t;
	fprintf(f, "%" PRIu64 ".%06" PRIu64, abs / 1000000000u, abs / 1000u % 1000000u);
}

static void line(FILE *f, const struct np_view *v, uint64_t ta, int64_t ya, uint64_t tb, int64_t yb)
{
	fputs("line ", f);
	tv(f, v, ta);
	fprintf(f, " %" PRId64 " ", ya);
	tv(f, v, tb);
	fprintf(f, " %" PRId64 "\n", yb);
}

static void point(FILE *f, const struct np_view *v, const char *cmd, uint64_t t, int64_t y,
		  const char *colour)
{
	fprintf(f, "%s ", cmd);
	tv(f, v, t);
	fprintf(f, " %" PRId64 "%s%s\n", y, colour ? " " : "", colour ? colour : "");
}

/* The same picture in xplot's language (see xplot.org's demo files and
   tcptrace's time-sequence graphs): data segments white with bars at both
   ends, retransmissions red, acks green, window yellow, SYN/FIN orange
   diamonds, messages as arrows with their names, over the view's time. */
int np_export_xpl(const struct np_view *v, const char *path, char *err, size_t errlen)
{
	const struct np_conn *c = np_view_conn(v);
	if (!c) {
		snprintf(err, errlen, "no such connection");
		return -1;
	}
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	static char buf[1 << 16];
	setvbuf(f, buf, _IOFBF, sizeof buf);
	const struct np_dir *d = &c->dir[v->dir], *peer = &c->dir[!v->dir];
	uint64_t t0 = v->t0 <= 0 ? 0 : (uint64_t)v->t0, t1 = v->t1 <= 0 ? 0 : (uint64_t)v->t1;
	fprintf(f, "timeval double\ntitle\n#%" PRIu32 " %s %s\nxlabel\ntime\nylabel\nsequence number\n",
		c->id, c->label, v->dir == 0 ? "requests (client to server)" : "replies (server to client)");
	/* acks and window edge: connected steps, like tcptrace */
	size_t a = np_pkt_lower(peer, t0), b = np_pkt_lower(peer, t1);
	const struct np_pkt *prev = NULL;
	for (size_t i = a; i < b; i++) {
		const struct np_pkt *p = &peer->pkt[i];
		if (!(p->flags & XTCP_ACK))
			continue;
		if (prev) {
			fputs("green\n", f);
			line(f, v, prev->t, prev->ack, p->t, prev->ack);
			if (p->ack != prev->ack)
				line(f, v, p->t, prev->ack, p->t, p->ack);
			fputs("yellow\n", f);
			int64_t pw = prev->ack + prev->win, w = p->ack + p->win;
			line(f, v, prev->t, pw, p->t, pw);
			if (w != pw)
				line(f, v, p->t, pw, p->t, w);
		}
		if (p->events & XPKT_ZEROWIN)
			point(f, v, "box", p->t, p->ack, "purple");
		prev = p;
	}
	size_t i0 = np_pkt_lower(d, t0), i1 = np_pkt_lower(d, t1);
	const char *cur = "";
	for (size_t i = i0; i < i1; i++) {
		const struct np_pkt *p = &d->pkt[i];
		uint32_t ext = p->len + !!(p->flags & XTCP_SYN) + !!(p->flags & XTCP_FIN);
		if (p->flags & (XTCP_SYN | XTCP_FIN | XTCP_RST))
			point(f, v, "diamond", p->t, p->seq, p->flags & XTCP_RST ? "magenta" : "orange");
		if (!ext)
			continue;
		const char *col = p->events & (XPKT_RETRANS | XPKT_OVERLAP) ? "red" : "white";
		if (strcmp(col, cur) != 0) {
			fprintf(f, "%s\n", col);
			cur = col;
		}
		point(f, v, "htick", p->t, p->seq, NULL);
		point(f, v, "htick", p->t, p->seq + ext, NULL);
		line(f, v, p->t, p->seq, p->t, p->seq + ext);
	}
	for (size_t i = 0; i < d->ngap; i++)
		if (d->gap[i].t >= t0 && d->gap[i].t < t1) {
			fputs("red\n", f);
			line(f, v, d->gap[i].t, d->gap[i].seq, d->gap[i].t,
			     d->gap[i].seq + (int64_t)d->gap[i].len);
			point(f, v, "atext", d->gap[i].t, d->gap[i].seq, NULL);
			fputs("gap\n", f);
		}
	/* messages: an arrow into the point where each ends, named */
	size_t m0 = np_msg_lower(d, t0), m1 = np_msg_lower(d, t1);
	char title[160];
	fputs("blue\n", f);
	for (size_t i = m0; i < m1; i++) {
		const struct np_msg *g = &d->msg[i];
		point(f, v, "larrow", g->t, g->end, g->kind == XMSG_ERROR ? "red" : NULL);
		point(f, v, "rtext", g->t, g->end, NULL);
		np_msg_title(v->m, g, title, sizeof title);
		fprintf(f, "%s\n", title);
	}
	fputs("go\n", f);
	int bad = ferror(f);
	if (f != stdout ? fclose(f) != 0 : fflush(f) != 0)
		bad = 1;
	if (bad) {
		snprintf(err, errlen, "%s", strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}
