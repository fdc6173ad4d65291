/*
 * cdf.c — the CDF pictures (cdf.h): step curves of several runs on one
 * pair of axes, and their headless export.
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>

#include "cdf.h"

static const char *const metric_names[NP_CDF_METRICS] = {
	"response-time", "bytes", "pixels", "inter-input", "added-delay", "added-delay-response",
};
static const char *const metric_titles[NP_CDF_METRICS] = {
	"Response time per input", "Bytes per input", "Pixels updated per input",
	"Time between inputs", "Delay a slower link adds per packet (SLIM's replay)",
	"Delay a slower link adds per input's response (SLIM's replay)",
};
static const char *const axis_labels[NP_CDF_METRICS] = {
	"response time (ms)", "bytes per input, both ways", "pixels updated per input",
	"time from one input to the next (ms)", "added delay per packet (ms)",
	"added delay per response (ms)",
};
static const char *const y_labels[NP_CDF_METRICS] = {
	"inputs at or below (CDF)", "inputs at or below (CDF)", "inputs at or below (CDF)",
	"inputs at or below (CDF)", "packets at or below (CDF)", "responses at or below (CDF)",
};
static const char *const units[NP_CDF_METRICS] = { "ms", "bytes", "px", "ms", "ms", "ms" };

static bool is_added(enum np_cdf_metric m)
{
	return m == NP_CDF_ADDED_PACKET || m == NP_CDF_ADDED_RESPONSE;
}

int np_cdf_metric_parse(const char *name)
{
	for (int i = 0; i < NP_CDF_METRICS; i++)
		if (strcmp(name, metric_names[i]) == 0)
			return i;
	return -1;
}

const char *np_cdf_metric_name(enum np_cdf_metric m)
{
	return m < NP_CDF_METRICS ? metric_names[m] : "?";
}

struct np_rgb np_cdf_colour(size_t i)
{
	/* Okabe and Ito's palette, told apart by most colour-blind readers,
	   without its yellow (too light on white). */
	static const struct np_rgb pal[] = {
		{ 0.000, 0.447, 0.698 },	/* blue */
		{ 0.835, 0.369, 0.000 },	/* vermillion */
		{ 0.000, 0.620, 0.451 },	/* bluish green */
		{ 0.800, 0.475, 0.655 },	/* reddish purple */
		{ 0.337, 0.706, 0.914 },	/* sky blue */
		{ 0.902, 0.624, 0.000 },	/* orange */
		{ 0.000, 0.000, 0.000 },	/* black */
	};
	return pal[i % (sizeof pal / sizeof pal[0])];
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double np_cdf_x(const struct np_cdf_frame *f, double x)
{
	double u;
	if (f->log_x) {
		double lx = log10(x > f->x0 ? x : f->x0);
		u = (lx - log10(f->x0)) / (log10(f->x1) - log10(f->x0));
	} else {
		u = (x - f->x0) / (f->x1 - f->x0);
	}
	if (u > 1)
		u = 1;
	return f->px + u * f->pw;
}

static double y_of(const struct np_cdf_frame *f, double frac)
{
	return f->py + f->ph - frac * f->ph;
}

/* 0.01, 0.1, 1, 10, 100, 1k, 10k ... for a decade's tick. */
static void decade_label(char *buf, size_t size, double v)
{
	if (v < 1) {
		snprintf(buf, size, "%g", v);
		return;
	}
	static const char *const suffix[] = { "", "k", "M", "G", "T" };
	int k = 0;
	while (v >= 1000 && k < 4) {
		v /= 1000;
		k++;
	}
	snprintf(buf, size, "%.0f%s", v, suffix[k]);
}

static void text_at(cairo_t *cr, double x, double y, const char *s, double ax, double ay)
{
	cairo_text_extents_t e;
	cairo_text_extents(cr, s, &e);
	cairo_move_to(cr, x - ax * e.width - e.x_bearing, y - ay * e.height - e.y_bearing);
	cairo_show_text(cr, s);
}

/* The p-th percentile (nearest rank) of sorted v. */
static double percentile(const double *v, size_t n, double p)
{
	size_t k = (size_t)ceil(p / 100 * (double)n);
	return v[k ? k - 1 : 0];
}

static void frame_for(struct np_cdf_frame *f, int w, int h, enum np_cdf_metric m,
		      const struct np_cdf_series *s, size_t n)
{
	f->px = 76;
	f->py = 36;
	f->pw = w - f->px - 24;
	f->ph = h - f->py - 56;
	double lo = INFINITY, hi = 0;
	for (size_t i = 0; i < n; i++)
		if (s[i].n) {
			/* The smallest positive value (sorted): a log axis starts
			   at its decade, and zeros sit on its left edge. */
			for (size_t k = 0; k < s[i].n; k++)
				if (s[i].v[k] > 0) {
					if (s[i].v[k] < lo)
						lo = s[i].v[k];
					break;
				}
			if (s[i].v[s[i].n - 1] > hi)
				hi = s[i].v[s[i].n - 1];
		}
	/* Added delays span microseconds (a fast link) to seconds (a slow
	   one) in one picture, as SLIM's Figure 6 does; below a microsecond
	   is rounding. */
	f->log_x = m == NP_CDF_BYTES || m == NP_CDF_PIXELS || is_added(m);
	f->below = 0;
	if (f->log_x) {
		double floor_x = is_added(m) ? 0.001 : 1;
		f->x0 = isfinite(lo) ? pow(10, floor(log10(lo))) : floor_x;
		if (f->x0 < floor_x)
			f->x0 = floor_x;
		f->x1 = pow(10, ceil(log10(hi > f->x0 ? hi : f->x0 * 10)));
		if (f->x1 <= f->x0)
			f->x1 = f->x0 * 10;
		for (size_t i = 0; i < n && !f->below; i++)
			f->below = s[i].n && s[i].v[0] < f->x0;
	} else {
		/* Response time always shows its guides, up to 150 ms. */
		if (m == NP_CDF_RESPONSE && hi < 160)
			hi = 160;
		if (hi <= 0)
			hi = 1;
		double step = np_num_step(hi, 8);
		f->x0 = 0;
		f->x1 = ceil(hi * 1.02 / step) * step;
	}
}

void np_cdf_legend(char *buf, size_t size, enum np_cdf_metric m, const struct np_cdf_series *s)
{
	if (s->n)
		snprintf(buf, size, "%s  (n=%zu, median %.*f %s)", s->label, s->n,
			 is_added(m) ? 3 : units[m][0] == 'm' ? 1 : 0, percentile(s->v, s->n, 50),
			 units[m]);
	else
		snprintf(buf, size, "%s  (%s)", s->label, s->why_empty[0] ? s->why_empty : "no inputs");
}

void np_cdf_render(cairo_t *cr, int w, int h, enum np_cdf_metric m, struct np_cdf_series *s,
		   size_t n, struct np_cdf_frame *frame)
{
	struct np_cdf_frame f;
	for (size_t i = 0; i < n; i++)
		if (s[i].n)
			qsort(s[i].v, s[i].n, sizeof *s[i].v, by_value);
	frame_for(&f, w, h, m, s, n);
	if (frame)
		*frame = f;

	cairo_save(cr);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 11);

	/* Grid and ticks. */
	char buf[64];
	cairo_set_line_width(cr, 1);
	for (int k = 0; k <= 10; k += 2) {
		double y = round(y_of(&f, k / 10.0)) + 0.5;
		cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
		cairo_move_to(cr, f.px, y);
		cairo_line_to(cr, f.px + f.pw, y);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
		snprintf(buf, sizeof buf, "%d %%", k * 10);
		text_at(cr, f.px - 6, y, buf, 1, 0.5);
	}
	if (f.log_x) {
		for (double d = f.x0; d <= f.x1 * 1.0001; d *= 10) {
			double x = round(np_cdf_x(&f, d)) + 0.5;
			cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
			cairo_move_to(cr, x, f.py);
			cairo_line_to(cr, x, f.py + f.ph);
			cairo_stroke(cr);
			cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
			/* Values below the axis (zeros) sit on its left edge: its
			   label says so. */
			char lab[48];
			decade_label(lab, sizeof lab, d);
			snprintf(buf, sizeof buf, "%s%s", d == f.x0 && f.below ? "\u2264" : "", lab);
			text_at(cr, x, f.py + f.ph + 6, buf, 0.5, 0);
		}
	} else {
		double step = np_num_step(f.x1 - f.x0, 8);
		for (double t = f.x0; t <= f.x1 + step / 1e6; t += step) {
			double x = round(np_cdf_x(&f, t)) + 0.5;
			cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
			cairo_move_to(cr, x, f.py);
			cairo_line_to(cr, x, f.py + f.ph);
			cairo_stroke(cr);
			cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
			snprintf(buf, sizeof buf, "%g", t);
			text_at(cr, x, f.py + f.ph + 6, buf, 0.5, 0);
		}
	}
	cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
	cairo_rectangle(cr, f.px + 0.5, f.py + 0.5, f.pw - 1, f.ph - 1);
	cairo_stroke(cr);
	text_at(cr, f.px + f.pw / 2, f.py + f.ph + 24, axis_labels[m], 0.5, 0);
	cairo_save(cr);
	cairo_translate(cr, 16, f.py + f.ph / 2);
	cairo_rotate(cr, -M_PI / 2);
	text_at(cr, 0, 0, y_labels[m], 0.5, 0.5);
	cairo_restore(cr);
	cairo_set_font_size(cr, 13);
	char title[160];
	snprintf(title, sizeof title, "%s, CDF%s", metric_titles[m],
		 f.log_x ? " (logarithmic axis)" : "");
	text_at(cr, f.px, 12, title, 0, 0);
	cairo_set_font_size(cr, 11);

	/* What a person starts to notice: 50, 100, 150 ms (SLIM's
	   threshold for added delay too), where the axis reaches. */
	if (m == NP_CDF_RESPONSE || is_added(m)) {
		static const double guides[] = { 50, 100, 150 };
		double dash[] = { 4, 3 };
		double free_from = 0;	/* a label not to overlap the one before */
		for (size_t g = 0; g < 3; g++) {
			if (guides[g] > f.x1 || guides[g] < f.x0)
				continue;
			double x = round(np_cdf_x(&f, guides[g])) + 0.5;
			cairo_set_source_rgb(cr, 0.55, 0.55, 0.55);
			cairo_set_dash(cr, dash, 2, 0);
			cairo_move_to(cr, x, f.py);
			cairo_line_to(cr, x, f.py + f.ph);
			cairo_stroke(cr);
			cairo_set_dash(cr, NULL, 0, 0);
			snprintf(buf, sizeof buf, "%.0f ms", guides[g]);
			/* On a logarithmic axis 100 and 150 ms lie close. */
			cairo_text_extents_t e;
			cairo_text_extents(cr, buf, &e);
			/* At the right edge, the label goes left of its line. */
			bool left = x + 3 + e.x_advance > f.px + f.pw;
			double lx = left ? x - 3 - e.x_advance : x + 3;
			if (lx >= free_from) {
				text_at(cr, lx, f.py + 4, buf, 0, 0);
				free_from = lx + e.x_advance + 4;
			}
		}
	}

	/* The curves: a step up of 1/n at each value. */
	cairo_rectangle(cr, f.px, f.py, f.pw, f.ph);
	cairo_save(cr);
	cairo_clip(cr);
	cairo_set_line_width(cr, 2);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER);
	for (size_t i = 0; i < n; i++) {
		if (!s[i].n)
			continue;
		struct np_rgb c = np_cdf_colour(i);
		cairo_set_source_rgb(cr, c.r, c.g, c.b);
		double lastx = np_cdf_x(&f, s[i].v[0]);
		cairo_move_to(cr, f.px, y_of(&f, 0));
		cairo_line_to(cr, lastx, y_of(&f, 0));
		for (size_t k = 0; k < s[i].n; k++) {
			double x = np_cdf_x(&f, s[i].v[k]);
			/* Values on the same quarter pixel make one vertical step:
			   a million inputs stay a path of a few thousand points. */
			if (x - lastx >= 0.25) {
				cairo_line_to(cr, x, y_of(&f, (double)k / (double)s[i].n));
				lastx = x;
			}
			if (k + 1 == s[i].n || np_cdf_x(&f, s[i].v[k + 1]) - lastx >= 0.25)
				cairo_line_to(cr, lastx, y_of(&f, (double)(k + 1) / (double)s[i].n));
		}
		cairo_line_to(cr, f.px + f.pw, y_of(&f, 1));
		cairo_stroke(cr);
	}
	cairo_restore(cr);

	/* The legend, bottom right, where a CDF leaves room. */
	double lh = 16, lw = 0;
	char lines[n ? n : 1][256];
	for (size_t i = 0; i < n; i++) {
		np_cdf_legend(lines[i], sizeof lines[i], m, &s[i]);
		cairo_text_extents_t e;
		cairo_text_extents(cr, lines[i], &e);
		if (e.x_advance > lw)
			lw = e.x_advance;
	}
	if (n) {
		double bw = lw + 40, bh = lh * (double)n + 8;
		double bx = f.px + f.pw - bw - 8, by = f.py + f.ph - bh - 8;
		if (bx < f.px + 4)
			bx = f.px + 4;
		cairo_set_source_rgba(cr, 1, 1, 1, 0.9);
		cairo_rectangle(cr, bx, by, bw, bh);
		cairo_fill_preserve(cr);
		cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
		cairo_set_line_width(cr, 1);
		cairo_stroke(cr);
		for (size_t i = 0; i < n; i++) {
			double y = by + 4 + lh * (double)i + lh / 2;
			struct np_rgb c = np_cdf_colour(i);
			cairo_set_source_rgb(cr, c.r, c.g, c.b);
			cairo_set_line_width(cr, s[i].n ? 2 : 1);
			cairo_move_to(cr, bx + 6, y);
			cairo_line_to(cr, bx + 28, y);
			cairo_stroke(cr);
			cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
			text_at(cr, bx + 34, y, lines[i], 0, 0.5);
		}
	}
	cairo_restore(cr);
}

struct sink {
	FILE *f;
	int failed;
};

static cairo_status_t sink_write(void *closure, const unsigned char *data, unsigned int len)
{
	struct sink *k = closure;
	if (fwrite(data, 1, len, k->f) != len) {
		k->failed = 1;
		return CAIRO_STATUS_WRITE_ERROR;
	}
	return CAIRO_STATUS_SUCCESS;
}

int np_cdf_export(const char *path, int w, int h, enum np_cdf_metric m, struct np_cdf_series *s,
		  size_t n, char *err, size_t errlen)
{
	return np_cdf_export_frame(path, w, h, m, s, n, NULL, err, errlen);
}

int np_cdf_export_frame(const char *path, int w, int h, enum np_cdf_metric m,
			struct np_cdf_series *s, size_t n, struct np_cdf_frame *frame, char *err,
			size_t errlen)
{
	const char *dot = strrchr(path, '.');
	enum { PNG, SVG, PDF } kind;
	if (dot && strcasecmp(dot, ".png") == 0)
		kind = PNG;
	else if (dot && strcasecmp(dot, ".svg") == 0)
		kind = SVG;
	else if (dot && strcasecmp(dot, ".pdf") == 0)
		kind = PDF;
	else {
		snprintf(err, errlen, "unknown picture format, want .png, .svg or .pdf: '%s'", path);
		return -1;
	}
	struct sink k = { .f = fopen(path, "wb") };
	if (!k.f) {
		snprintf(err, errlen, "cannot write: '%s'", path);
		return -1;
	}
	cairo_surface_t *surf = kind == PNG ? cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h) :
				kind == SVG ? cairo_svg_surface_create_for_stream(sink_write, &k, w, h) :
				cairo_pdf_surface_create_for_stream(sink_write, &k, w, h);
	cairo_t *cr = cairo_create(surf);
	np_cdf_render(cr, w, h, m, s, n, frame);
	cairo_status_t st = cairo_status(cr);
	cairo_destroy(cr);
	if (st == CAIRO_STATUS_SUCCESS && kind == PNG)
		st = cairo_surface_write_to_png_stream(surf, sink_write, &k);
	cairo_surface_finish(surf);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(surf);
	cairo_surface_destroy(surf);
	if (fclose(k.f) != 0)
		k.failed = 1;
	if (st != CAIRO_STATUS_SUCCESS || k.failed) {
		snprintf(err, errlen, "cannot write the picture (%s): '%s'",
			 k.failed ? "write error" : cairo_status_to_string(st), path);
		return -1;
	}
	return 0;
}
