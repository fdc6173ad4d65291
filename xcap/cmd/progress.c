/*
 * progress.c — the reading meter of progress.h.
 *
 * Belongs to: the commands' kit (xcap/cmd/), linked by every command and by no library.
 */
#include "config.h"

#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define REDRAW_S 0.25

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_begin(struct progress *p, const char *prog, const char *path, bool quiet)
{
	memset(p, 0, sizeof *p);
	p->prog = prog;
	p->path = path;
	struct stat st;
	/* A pipe has no size to measure against; a file under a megabyte is
	   read before anyone could look. */
	if (!isatty(STDERR_FILENO) || (quiet && isatty(STDOUT_FILENO)) ||
	    strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < (1 << 20))
		return;
	p->total = st.st_size;
	p->delay = 1.0;
	const char *d = getenv("XCAP_PROGRESS_DELAY");
	if (d && *d) {
		char *end;
		double v = strtod(d, &end);
		if (!*end && v >= 0)
			p->delay = v;
	}
	p->start = now_s();
	p->last = -1;
	p->on = true;
}

static void size_text(char *buf, size_t len, long long n, long long scale)
{
	snprintf(buf, len, "%.1f", (double)n / (double)scale);
}

void progress_at(struct progress *p, long long done)
{
	if (!p->on || done < 0)
		return;
	double t = now_s();
	if (t - p->start < p->delay || (p->last >= 0 && t - p->last < REDRAW_S))
		return;
	p->last = t;
	if (done > p->total)
		done = p->total;
	long long scale = p->total >= (1ll << 30) ? (1ll << 30) : (1ll << 20);
	char a[32], b[32];
	size_text(a, sizeof a, done, scale);
	size_text(b, sizeof b, p->total, scale);
	fprintf(stderr, "\r%s: reading '%s': %s of %s %s (%d%%)\033[K", p->prog, p->path, a, b,
		scale == (1ll << 30) ? "GiB" : "MiB", (int)(100.0 * (double)done / (double)p->total));
	fflush(stderr);
	p->shown = true;
}

void progress_clear(struct progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		p->shown = false;
		p->last = -1;
	}
}

void progress_end(struct progress *p)
{
	progress_clear(p);
	p->on = false;
}
