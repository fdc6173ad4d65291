/*
 * check_cdf.c — netplot's CDF pictures, headless: curves where their
 * values say, in their colours, guide lines at 50/100/150 ms, and the
 * exports' formats; SLIM's added delay on decades from a microsecond.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdf.h"

static int W = 800, H = 500;

/* The pixel's colour as 0..1 components. */
static void pixel(cairo_surface_t *s, int x, int y, double *r, double *g, double *b)
{
	cairo_surface_flush(s);
	unsigned char *d = cairo_image_surface_get_data(s);
	int stride = cairo_image_surface_get_stride(s);
	uint32_t p = *(uint32_t *)(d + y * stride + x * 4);
	*r = ((p >> 16) & 255) / 255.0;
	*g = ((p >> 8) & 255) / 255.0;
	*b = (p & 255) / 255.0;
}

static int near_colour(cairo_surface_t *s, int x, int y, struct np_rgb c)
{
	/* Anti-aliasing spreads a line over two pixels: look on both sides. */
	for (int dx = -1; dx <= 1; dx++) {
		double r, g, b;
		pixel(s, x + dx, y, &r, &g, &b);
		if (fabs(r - c.r) < 0.12 && fabs(g - c.g) < 0.12 && fabs(b - c.b) < 0.12)
			return 1;
	}
	return 0;
}

static double *values(size_t n, double lo, double hi)
{
	double *v = malloc(n * sizeof *v);
	for (size_t i = 0; i < n; i++)	/* uniform over [lo, hi], shuffled */
		v[(i * 7919) % n] = lo + (hi - lo) * (double)i / (double)(n - 1);
	return v;
}

START_TEST(curves_where_values_say)
{
	/* A: uniform 20..80 ms; B: every value 120 ms (a vertical step). */
	struct np_cdf_series s[3] = { { .label = "A" }, { .label = "B" }, { .label = "C" } };
	s[0].v = values(1000, 20, 80);
	s[0].n = 1000;
	s[1].v = malloc(100 * sizeof(double));
	for (int i = 0; i < 100; i++)
		s[1].v[i] = 120;
	s[1].n = 100;
	snprintf(s[2].why_empty, sizeof s[2].why_empty, "no inputs");
	cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
	cairo_t *cr = cairo_create(surf);
	struct np_cdf_frame f;
	np_cdf_render(cr, W, H, NP_CDF_RESPONSE, s, 3, &f);
	ck_assert(!f.log_x);
	ck_assert(f.x1 >= 150);
	/* A's median 50 ms: at x(50) the curve is at half height. */
	int x = (int)np_cdf_x(&f, 50), y = (int)(f.py + f.ph / 2);
	int found = 0;
	for (int dy = -3; dy <= 3 && !found; dy++)
		found = near_colour(surf, x, y + dy, np_cdf_colour(0));
	ck_assert_msg(found, "A's curve is not at (50 ms, 50 %%)");
	/* A is at 25 % at 35 ms. */
	x = (int)np_cdf_x(&f, 35);
	y = (int)(f.py + f.ph * 0.75);
	found = 0;
	for (int dy = -3; dy <= 3 && !found; dy++)
		found = near_colour(surf, x, y + dy, np_cdf_colour(0));
	ck_assert_msg(found, "A's curve is not at (35 ms, 25 %%)");
	/* B rises straight up at 120 ms: its colour a third of the way up. */
	x = (int)round(np_cdf_x(&f, 120));
	y = (int)(f.py + f.ph * 0.66);
	ck_assert_msg(near_colour(surf, x, y, np_cdf_colour(1)), "B's step is not at 120 ms");
	/* ... and not at 100 ms, where the grey guide is. */
	x = (int)round(np_cdf_x(&f, 100));
	ck_assert(!near_colour(surf, x, y, np_cdf_colour(1)));
	double r, g, b;
	int grey = 0;
	for (int dy = 0; dy < 8 && !grey; dy++)
		for (int dx = 0; dx <= 1 && !grey; dx++) {
			pixel(surf, x + dx, y + dy, &r, &g, &b);
			grey = fabs(r - g) < 0.02 && fabs(g - b) < 0.02 && r > 0.4 && r < 0.8;
		}
	ck_assert_msg(grey, "no guide line at 100 ms");
	/* Below A's least value the plot is empty: white or grid. */
	x = (int)np_cdf_x(&f, 10);
	pixel(surf, x, (int)(f.py + f.ph * 0.5), &r, &g, &b);
	ck_assert(r > 0.85 && g > 0.85 && b > 0.85);
	cairo_destroy(cr);
	cairo_surface_destroy(surf);
	free(s[0].v);
	free(s[1].v);
}
END_TEST

START_TEST(bytes_on_decades)
{
	struct np_cdf_series s = { .label = "A" };
	double v[] = { 0, 40, 400, 4000, 40000 };
	s.v = v;
	s.n = 5;
	cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
	cairo_t *cr = cairo_create(surf);
	struct np_cdf_frame f;
	np_cdf_render(cr, W, H, NP_CDF_BYTES, &s, 1, &f);
	ck_assert(f.log_x);
	ck_assert(f.x0 == 10 && f.x1 == 100000);
	/* Equal steps per decade: 400 is in the middle of 40 and 4000. */
	double a = np_cdf_x(&f, 40), m = np_cdf_x(&f, 400), z = np_cdf_x(&f, 4000);
	ck_assert(fabs((m - a) - (z - m)) < 0.5);
	/* The 0 sits on the left edge. */
	ck_assert(fabs(np_cdf_x(&f, 0) - f.px) < 0.5);
	cairo_destroy(cr);
	cairo_surface_destroy(surf);
}
END_TEST

static void head_is(const char *path, const char *magic, size_t off)
{
	char buf[64] = "";
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	ck_assert(n > off + strlen(magic));
	ck_assert_msg(memcmp(buf + off, magic, strlen(magic)) == 0, "%s does not begin with %s", path,
		      magic);
}

START_TEST(exports)
{
	struct np_cdf_series s = { .label = "A" };
	double v[] = { 12, 30, 55, 160 };
	s.v = v;
	s.n = 4;
	char dir[] = "/tmp/check_cdf.XXXXXX", path[128], err[256];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/a.png", dir);
	ck_assert_int_eq(np_cdf_export(path, 640, 400, NP_CDF_RESPONSE, &s, 1, err, sizeof err), 0);
	head_is(path, "\x89PNG\r\n\x1a\n", 0);
	cairo_surface_t *png = cairo_image_surface_create_from_png(path);
	ck_assert_int_eq(cairo_image_surface_get_width(png), 640);
	cairo_surface_destroy(png);
	remove(path);
	snprintf(path, sizeof path, "%s/a.svg", dir);
	ck_assert_int_eq(np_cdf_export(path, 640, 400, NP_CDF_RESPONSE, &s, 1, err, sizeof err), 0);
	head_is(path, "<?xml", 0);
	remove(path);
	snprintf(path, sizeof path, "%s/a.pdf", dir);
	ck_assert_int_eq(np_cdf_export(path, 640, 400, NP_CDF_RESPONSE, &s, 1, err, sizeof err), 0);
	head_is(path, "%PDF-", 0);
	remove(path);
	snprintf(path, sizeof path, "%s/a.gif", dir);
	ck_assert_int_eq(np_cdf_export(path, 640, 400, NP_CDF_RESPONSE, &s, 1, err, sizeof err), -1);
	ck_assert(strstr(err, "a.gif") != NULL);
	snprintf(path, sizeof path, "%s/no/such/dir.png", dir);
	ck_assert_int_eq(np_cdf_export(path, 640, 400, NP_CDF_RESPONSE, &s, 1, err, sizeof err), -1);
	remove(dir);
}
END_TEST

START_TEST(added_delay_on_decades)
{
	/* SLIM's picture: at the trace's own rate every packet gains 0, at
	   a slower one 2 us to 40 ms. */
	struct np_cdf_series s[2] = { { .label = "10M" }, { .label = "1M" } };
	double zeros[4] = { 0, 0, 0, 0 }, slow[4] = { 40, 0.002, 3, 0.2 };
	s[0].v = zeros;
	s[0].n = 4;
	s[1].v = slow;
	s[1].n = 4;
	cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
	cairo_t *cr = cairo_create(surf);
	struct np_cdf_frame f;
	np_cdf_render(cr, W, H, NP_CDF_ADDED_PACKET, s, 2, &f);
	/* Decades from the microsecond's, the zeros on the left edge. */
	ck_assert(f.log_x);
	ck_assert(fabs(f.x0 - 0.001) < 1e-12 && f.x1 == 100);
	ck_assert(f.below);
	ck_assert(fabs(np_cdf_x(&f, 0) - f.px) < 0.5);
	/* The zeros rise straight up on the left edge ... */
	int found = 0;
	for (int dx = 0; dx <= 3 && !found; dx++)
		found = near_colour(surf, (int)f.px + dx, (int)(f.py + f.ph / 2), np_cdf_colour(0));
	ck_assert_msg(found, "the zeros are not on the left edge");
	/* ... the slower rate's median (nearest rank: 0.2 ms) at half height. */
	int x = (int)round(np_cdf_x(&f, 0.2)), y = (int)(f.py + f.ph / 2);
	found = 0;
	for (int dy = -3; dy <= 3 && !found; dy++)
		found = near_colour(surf, x, y + dy, np_cdf_colour(1));
	ck_assert_msg(found, "1M's curve is not at (0.2 ms, 50 %%)");
	char line[256];
	np_cdf_legend(line, sizeof line, NP_CDF_ADDED_PACKET, &s[1]);
	ck_assert_str_eq(line, "1M  (n=4, median 0.200 ms)");
	cairo_destroy(cr);
	cairo_surface_destroy(surf);
}
END_TEST

START_TEST(metric_names)
{
	for (int i = 0; i < NP_CDF_METRICS; i++)
		ck_assert_int_eq(np_cdf_metric_parse(np_cdf_metric_name(i)), i);
	ck_assert_int_eq(np_cdf_metric_parse("added-delay"), NP_CDF_ADDED_PACKET);
	ck_assert_int_eq(np_cdf_metric_parse("added-delay-response"), NP_CDF_ADDED_RESPONSE);
	ck_assert_int_eq(np_cdf_metric_parse("latency"), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cdf");
	TCase *tc = tcase_create("cdf");
	tcase_add_test(tc, curves_where_values_say);
	tcase_add_test(tc, bytes_on_decades);
	tcase_add_test(tc, exports);
	tcase_add_test(tc, added_delay_on_decades);
	tcase_add_test(tc, metric_names);
	suite_add_tcase(s, tc);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
