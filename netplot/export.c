/*
 * export.c — headless output of a view: PNG, SVG and PDF through the same
 * renderer as the window, and xplot's own plot language so that xplot
 * users keep their tool.
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>

#include "grow.h"
#include "render.h"

static const char *extension(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot && !strchr(dot, '/') ? dot + 1 : "";
}

/* A growing buffer: cairo's SVG goes here first, then out with the
   labels added as text. */
struct membuf {
	char *p;
	size_t len, cap;
	bool failed;
};

static void mem_put(struct membuf *b, const char *data, size_t n)
{
	if (b->failed)
		return;
	if (GROW(b->p, b->cap, b->len + n) < 0) {
		b->failed = true;
		return;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static cairo_status_t mem_write(void *ctx, const unsigned char *data, unsigned int n)
{
	mem_put(ctx, (const char *)data, n);
	return CAIRO_STATUS_SUCCESS;
}

static void svg_label(void *ctx, double x, double y, const char *text, struct np_rgb c)
{
	struct membuf *b = ctx;
	char head[160];
	int n = snprintf(head, sizeof head, "<text x=\"%.1f\" y=\"%.1f\" fill=\"rgb(%d,%d,%d)\">", x, y,
			 (int)(c.r * 255), (int)(c.g * 255), (int)(c.b * 255));
	mem_put(b, head, (size_t)n);
	for (const char *s = text; *s; s++) {
		switch (*s) {
		case '<': mem_put(b, "&lt;", 4); break;
		case '>': mem_put(b, "&gt;", 4); break;
		case '&': mem_put(b, "&amp;", 5); break;
		case '"': mem_put(b, "&quot;", 6); break;
		default: mem_put(b, s, 1);
		}
	}
	mem_put(b, "</text>\n", 8);
}

static int export_svg(const struct np_view *v, const struct np_render_opts *base, const char *path,
		      char *err, size_t errlen)
{
	struct membuf svg = { 0 }, text = { 0 };
	cairo_surface_t *s = cairo_svg_surface_create_for_stream(mem_write, &svg, v->width, v->height);
	cairo_t *cr = cairo_create(s);
	struct np_render_opts o = { 0 };
	if (base)
		o = *base;
	o.label_fn = svg_label;
	o.label_ctx = &text;
	np_render(cr, v, &o, NULL);
	cairo_status_t st = cairo_status(cr);
	cairo_destroy(cr);
	cairo_surface_finish(s);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(s);
	cairo_surface_destroy(s);
	int rc = -1;
	const char *end = NULL;
	/* the labels go in last, over the picture, before the closing tag */
	for (size_t i = svg.len; !end && i >= 6 && svg.p; i--)
		if (memcmp(svg.p + i - 6, "</svg>", 6) == 0)
			end = svg.p + i - 6;
	if (st != CAIRO_STATUS_SUCCESS) {
		snprintf(err, errlen, "%s", cairo_status_to_string(st));
	} else if (svg.failed || text.failed || !end) {
		snprintf(err, errlen, "out of memory");
	} else {
		FILE *f = fopen(path, "w");
		if (!f) {
			snprintf(err, errlen, "%s", strerror(errno));
		} else {
			fwrite(svg.p, 1, (size_t)(end - svg.p), f);
			fputs("<g font-family=\"sans-serif\" font-size=\"10px\">\n", f);
			if (text.len)
				fwrite(text.p, 1, text.len, f);
			fputs("</g>\n", f);
			fwrite(end, 1, svg.len - (size_t)(end - svg.p), f);
			if (ferror(f) | (fclose(f) != 0))
				snprintf(err, errlen, "%s", strerror(errno ? errno : EIO));
			else
				rc = 0;
		}
	}
	free(svg.p);
	free(text.p);
	return rc;
}

/* PNG and PDF are written through our own FILE, so that a failure
   keeps the reason the system gave (cairo says only "error while writing
   to output stream"). */
struct out_file {
	FILE *f;
	int err;	/* errno of the first failed write, 0 if none */
};

static cairo_status_t write_out(void *closure, const unsigned char *data, unsigned int len)
{
	struct out_file *o = closure;
	if (o->err)
		return CAIRO_STATUS_WRITE_ERROR;
	if (fwrite(data, 1, len, o->f) != len) {
		o->err = errno ? errno : EIO;
		return CAIRO_STATUS_WRITE_ERROR;
	}
	return CAIRO_STATUS_SUCCESS;
}

int np_export(const struct np_view *v, const char *path, char *err, size_t errlen)
{
	return np_export_with(v, NULL, path, err, errlen);
}

int np_export_with(const struct np_view *v, const struct np_render_opts *ro, const char *path,
		   char *err, size_t errlen)
{
	const char *ext = extension(path);
	if (strcasecmp(ext, "xpl") == 0)
		return np_export_xpl(v, path, err, errlen);
	if (strcasecmp(ext, "svg") == 0)
		return export_svg(v, ro, path, err, errlen);
	if (strcasecmp(ext, "png") != 0 && strcasecmp(ext, "pdf") != 0) {
		snprintf(err, errlen, "unknown export format (use .png .svg .pdf or .xpl)");
		return -1;
	}
	struct out_file o = { fopen(path, "wb"), 0 };
	if (!o.f) {
		snprintf(err, errlen, "cannot write: %s", strerror(errno));
		return -1;
	}
	cairo_surface_t *s;
	if (strcasecmp(ext, "png") == 0)
		s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, v->width, v->height);
	else
		s = cairo_pdf_surface_create_for_stream(write_out, &o, v->width, v->height);
	if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
		snprintf(err, errlen, "%s", cairo_status_to_string(cairo_surface_status(s)));
		cairo_surface_destroy(s);
		fclose(o.f);
		return -1;
	}
	cairo_t *cr = cairo_create(s);
	np_render(cr, v, ro, NULL);
	cairo_status_t st = cairo_status(cr);
	cairo_destroy(cr);
	if (st == CAIRO_STATUS_SUCCESS && strcasecmp(ext, "png") == 0)
		st = cairo_surface_write_to_png_stream(s, write_out, &o);
	cairo_surface_finish(s);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(s);
	cairo_surface_destroy(s);
	if (!o.err && (ferror(o.f) || fflush(o.f) != 0))
		o.err = errno ? errno : EIO;
	if (fclose(o.f) != 0 && !o.err)
		o.err = errno ? errno : EIO;
	if (o.err) {
		snprintf(err, errlen, "cannot write: %s", strerror(o.err));
		return -1;
	}
	if (st != CAIRO_STATUS_SUCCESS) {
		snprintf(err, errlen, "%s", cairo_status_to_string(st));
		return -1;
	}
	return 0;
}

/* Numbers are formatted by hand: ten million packets make some fifty
   million lines, and fprintf's format parsing was most of the time. */
static char *put_u64(char *p, uint64_t x, int min_digits)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + x % 10);
		x /= 10;
	} while (x || n < min_digits);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_i64(char *p, int64_t x)
{
	if (x < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)x, 1);
	}
	return put_u64(p, (uint64_t)x, 1);
}

/* xplot's "timeval" coordinate: seconds.microseconds, absolute as
   tcptrace writes it. */
static char *put_tv(char *p, const struct np_view *v, uint64_t t)
{
	uint64_t abs = v->m->t0 + t;
	p = put_u64(p, abs / 1000000000u, 1);
	*p++ = '.';
	return put_u64(p, abs / 1000u % 1000000u, 6);
}

static char *put_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

static void line(FILE *f, const struct np_view *v, uint64_t ta, int64_t ya, uint64_t tb, int64_t yb)
{
	char buf[128], *p = put_str(buf, "line ");
	p = put_tv(p, v, ta);
	*p++ = ' ';
	p = put_i64(p, ya);
	*p++ = ' ';
	p = put_tv(p, v, tb);
	*p++ = ' ';
	p = put_i64(p, yb);
	*p++ = '\n';
	fwrite(buf, 1, (size_t)(p - buf), f);
}

static void point(FILE *f, const struct np_view *v, const char *cmd, uint64_t t, int64_t y,
		  const char *colour)
{
	char buf[128], *p = put_str(buf, cmd);	/* cmd and colour: short names of ours */
	*p++ = ' ';
	p = put_tv(p, v, t);
	*p++ = ' ';
	p = put_i64(p, y);
	if (colour) {
		*p++ = ' ';
		p = put_str(p, colour);
	}
	*p++ = '\n';
	fwrite(buf, 1, (size_t)(p - buf), f);
}

static const char *xpl_colour(int series_colour)
{
	static const char *const names[] = { "blue", "red", "yellow", "red", "yellow", "white" };
	return names[series_colour >= 0 && series_colour < 6 ? series_colour : 0];
}

/* The family's other graphs in xplot's language: each series in its
   colour, dots as tcptrace draws samples, lines as joined steps; the
   lanes as a line per message at its row, named at the left. */
static int export_xpl_graph(const struct np_view *v, FILE *f)
{
	const struct np_conn *c = np_view_conn(v);
	uint64_t t0 = np_tkey(v->t0), t1 = np_tkey(v->t1);
	fprintf(f, "timeval double\ntitle\n#%" PRIu32 " %s %s — %s\nxlabel\ntime\nylabel\n%s\n",
		c->id, c->label, v->dir == 0 ? "requests (client to server)" :
		"replies (server to client)", np_graph_title(v->graph), np_graph_ylabel(v->graph));
	char a[64], b[64];
	if (v->graph == NP_GRAPH_LANES) {
		size_t nl;
		const struct np_lane *lane = np_lanes(c, v->dir, &nl);
		const struct np_dir *d = &c->dir[v->dir];
		for (size_t r = 0; r < nl; r++) {
			double y = (double)(nl - 1 - r);
			char title[160];
			bool named = false;
			for (size_t i = 0; i < lane[r].n; i++) {
				const struct np_msg *g = &d->msg[lane[r].msg[i]];
				if (g->t < t0 || g->t >= t1)
					continue;
				*put_tv(a, v, g->t) = '\0';
				*put_tv(b, v, g->reply_t > g->t ? g->reply_t : g->t) = '\0';
				if (!named) {
					struct np_msg k = { .name = lane[r].name, .ext = lane[r].ext };
					np_msg_title(v->m, &k, title, sizeof title);
					fprintf(f, "white\nrtext %s %.0f\n%s ×%zu\n", a, y, title,
						lane[r].n);
					named = true;
				}
				fprintf(f, "%s\nline %s %.0f %s %.0f\n",
					g->reply_t > g->t ? "red" : "blue", a, y, b, y);
			}
		}
	} else {
		size_t n;
		const struct np_series *s = np_graph_series(c, v->dir, v->graph, &n);
		for (size_t k = 0; k < n; k++) {
			fprintf(f, "%s\n", xpl_colour(s[k].colour));
			size_t i0 = np_series_lower(&s[k], 0, t0), i1 = np_series_lower(&s[k], i0, t1);
			for (size_t i = i0; i < i1; i++) {
				*put_tv(a, v, s[k].t[i]) = '\0';
				if (s[k].line && i + 1 < i1) {
					*put_tv(b, v, s[k].t[i + 1]) = '\0';
					fprintf(f, "line %s %.6g %s %.6g\nline %s %.6g %s %.6g\n", a, s[k].y[i],
						b, s[k].y[i], b, s[k].y[i], b, s[k].y[i + 1]);
				} else {
					fprintf(f, "dot %s %.6g\n", a, s[k].y[i]);
				}
			}
		}
	}
	fputs("go\n", f);
	return 0;
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
	if (v->graph != NP_GRAPH_TSG) {
		export_xpl_graph(v, f);
		goto done;
	}
	const struct np_dir *d = &c->dir[v->dir], *peer = &c->dir[!v->dir];
	uint64_t t0 = np_tkey(v->t0), t1 = np_tkey(v->t1);
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
done:;
	int bad = ferror(f);
	if (f != stdout ? fclose(f) != 0 : fflush(f) != 0)
		bad = 1;
	if (bad) {
		snprintf(err, errlen, "%s", strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}
