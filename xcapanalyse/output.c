/*
 * output.c — the table writer and the quoting of each format.
 *
 * Belongs to: libanalyse, the analysis layer's library, which netplot links too (xcapanalyse/).
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "output.h"

int out_format_parse(const char *name)
{
	static const char *const names[] = { "text", "csv", "json", "markdown", "ndjson", "tsv" };
	for (int i = 0; i < 6; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

int out_for_programs(enum out_format fmt)
{
	return fmt == OUT_CSV || fmt == OUT_JSON || fmt == OUT_NDJSON || fmt == OUT_TSV;
}

/* The trace being printed (out_set_source).  One per process: a command
   prints one trace's tables at a time. */
static struct {
	const char *file;
	int file_column;
	int no_header;
	int json_members;	/* in the object out_json_open began */
} source;

void out_set_source(const char *file, int file_column, int header)
{
	source.file = file;
	source.file_column = file_column;
	source.no_header = !header;
}

void out_file_heading(FILE *out, enum out_format fmt, const char *file, size_t index)
{
	if (out_for_people(fmt))
		fprintf(out, "%s%s%s\n\n", index ? "\n" : "", fmt == OUT_MARKDOWN ? "### " : "== ", file);
}

int out_csv_header_wanted(void)
{
	return !source.no_header;
}

void out_csv_file_header(FILE *out)
{
	if (source.file_column)
		fputs("file,", out);
}

void out_csv_file_cell(FILE *out)
{
	if (source.file_column) {
		out_csv_field(out, source.file ? source.file : "");
		fputc(',', out);
	}
}

void out_ndjson_row_open(FILE *out, const char *table)
{
	fputs("{\"file\": ", out);
	out_json_string(out, source.file ? source.file : "");
	fputs(", \"table\": ", out);
	out_json_string(out, table);
}

/* How many bytes of well-formed UTF-8 character begin at s (1 for ASCII);
   0 when s begins none (a peer's text is bytes, not always UTF-8). */
static size_t utf8_char(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	if (p[0] < 0x80)
		return 1;
	size_t n = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3
		 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* no overlong forms, surrogates or code points past U+10FFFF */
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f))
		return 0;
	return n;
}

/* The room for a cell of text, CSV or TSV once cleaned: a longer cell is
   cut, at a character's end, CELL_ROOM - 5 bytes in at most. */
#define CELL_ROOM 1024

/* s with every byte that is not part of a UTF-8 character written as the
   four characters \xNN, the one rule of every format: the text stays valid
   UTF-8 and the byte can still be told.  Returns dst. */
static const char *utf8_clean(char *dst, size_t size, const char *s)
{
	size_t k = 0;
	while (*s && k + 5 < size) {
		size_t n = utf8_char(s);
		if (n) {
			if (k + n + 1 > size)
				break;
			memcpy(dst + k, s, n);
			k += n;
			s += n;
		} else {
			k += (size_t)snprintf(dst + k, size - k, "\\x%02x", (unsigned char)*s++);
		}
	}
	dst[k] = '\0';
	return dst;
}

/* The cell s as utf8_clean into clean[CELL_ROOM] gives it, and its length
   in *len; *ascii when it is all ASCII.  Most cells are: those are taken
   as they are (only cut where utf8_clean would cut them), not copied. */
static const char *cell_clean(char *clean, const char *s, size_t *len, bool *ascii)
{
	size_t n = 0;
	unsigned char any = 0;
	for (; s[n] && n + 5 < CELL_ROOM; n++)
		any |= (unsigned char)s[n];
	*ascii = !(any & 0x80);
	if (*ascii) {
		*len = n;
		return s;
	}
	utf8_clean(clean, CELL_ROOM, s);
	*len = strlen(clean);
	return clean;
}

/* v in decimal at p (20 bytes at most); returns the bytes written. */
static size_t put_u64(char *p, uint64_t v)
{
	char rev[20];
	size_t n = 0;
	do {
		rev[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		p[i] = rev[n - 1 - i];
	return n;
}

void out_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	while (*s) {
		/* A run of printable ASCII other than the quote and backslash
		   is written as it is, at once. */
		size_t run = 0;
		while (s[run] >= 0x20 && s[run] < 0x7f && s[run] != '"' && s[run] != '\\')
			run++;
		if (run) {
			fwrite(s, 1, run, f);
			s += run;
			continue;
		}
		unsigned char c = (unsigned char)*s;
		size_t n = utf8_char(s);
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else if (n)
			fwrite(s, 1, n, f);
		else
			fprintf(f, "\\\\x%02x", c);	/* not UTF-8: the same \xNN as the other formats */
		s += n ? n : 1;
	}
	fputc('"', f);
}

void out_csv_field(FILE *f, const char *s)
{
	char clean[CELL_ROOM];
	size_t n;
	bool ascii;
	s = cell_clean(clean, s, &n, &ascii);
	size_t plain = 0;
	while (plain < n && s[plain] != ',' && s[plain] != '"' && s[plain] != '\n' && s[plain] != '\r')
		plain++;
	if (plain == n) {
		fwrite(s, 1, n, f);
		return;
	}
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			fputc('"', f);
		fputc(s[i], f);
	}
	fputc('"', f);
}

/* A TSV cell: no quoting, so that a shell or awk reads it by splitting
   at tabs; a tab, newline, carriage return or backslash in the text is
   written as \t, \n, \r or \\. */
static void tsv_field(FILE *f, const char *s)
{
	char clean[CELL_ROOM];
	s = utf8_clean(clean, sizeof clean, s);
	for (; *s; s++) {
		const char *e = *s == '\t' ? "\\t" : *s == '\n' ? "\\n" : *s == '\r' ? "\\r"
			      : *s == '\\' ? "\\\\" : NULL;
		if (e)
			fputs(e, f);
		else
			fputc(*s, f);
	}
}

/* A Markdown cell: a bar would end it and a newline the row. */
static void md_field(FILE *f, const char *s, int width)
{
	char clean[CELL_ROOM];
	s = utf8_clean(clean, sizeof clean, s);
	int n = 0;
	for (; *s; s++) {
		n += ((unsigned char)*s & 0xc0) != 0x80;	/* characters, not bytes */
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
	for (; n < width; n++)
		fputc(' ', f);
}

/* The cell as text; seconds with the column's decimals for people and
   all nine for programs. */
static const char *cell_text(char *buf, size_t size, const struct out_column *c,
			     const struct out_cell *v, enum out_format fmt)
{
	if (v->empty)
		return "";
	switch (c->type) {
	case OUT_COL_STR:
	case OUT_COL_NUMBER:
		return v->s ? v->s : "";
	case OUT_COL_UINT:
		/* by hand, not snprintf: the hot path of long listings */
		buf[put_u64(buf, v->u)] = '\0';
		return buf;
	case OUT_COL_SECONDS:
	case OUT_COL_MILLISECONDS:
	case OUT_COL_TIME:
	case OUT_COL_FIXED:
	case OUT_COL_PERCENT: {
		/* Programs get every digit (seconds to the ns, fractions to the
		   billionth); people the unit of the rule in output.h, with the
		   column's decimals (given for seconds: 3 fewer in ms, 2 fewer
		   in percent). */
		bool prog = out_for_programs(fmt);
		bool duration = c->type == OUT_COL_SECONDS || c->type == OUT_COL_MILLISECONDS;
		int digits = 9;		/* places of the value below its unit */
		int dec = c->decimals > 0 && c->decimals <= 9 ? c->decimals : 6;
		if (c->type == OUT_COL_FIXED)
			dec = c->decimals >= 0 && c->decimals <= 9 ? c->decimals : 3;
		if (!prog && duration) {
			digits = 6;
			dec = dec > 3 ? dec - 3 : 0;
		} else if (!prog && c->type == OUT_COL_PERCENT) {
			digits = 7;
			dec = dec > 2 ? dec - 2 : 0;
		}
		if (prog)
			dec = 9;
		if (dec > digits)
			dec = digits;
		int64_t ns = v->ns;
		const char *sign = ns < 0 ? "-" : "";
		uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
		uint64_t scale = 1;
		for (int i = dec; i < digits; i++)
			scale *= 10;
		/* Round half up at the last printed digit. */
		uint64_t units = (a + scale / 2) / scale, one = 1;
		for (int i = 0; i < dec; i++)
			one *= 10;
		char *p = buf;
		if (*sign)
			*p++ = '-';
		p += put_u64(p, dec ? units / one : units);
		if (dec) {
			*p++ = '.';
			uint64_t frac = units % one;
			for (int i = dec - 1; i >= 0; i--, frac /= 10)
				p[i] = (char)('0' + frac % 10);
			p += dec;
		}
		*p = '\0';
		return buf;
	}
	}
	return "";
}

/* The title people read: with the unit the rule of output.h gives it. */
static const char *title_text(char *buf, size_t size, const struct out_column *c)
{
	const char *unit = c->type == OUT_COL_SECONDS ? " ms" : c->type == OUT_COL_PERCENT ? " %" : "";
	snprintf(buf, size, "%s%s", c->title, *c->title ? unit : "");
	return buf;
}

static int abs_width(int w)
{
	return w < 0 ? -w : w;
}

void out_trimmed(FILE *out, const char *line, size_t len)
{
	size_t n = strnlen(line, len);	/* as %.*s: up to a NUL */
	while (n && line[n - 1] == ' ')
		n--;
	fwrite(line, 1, n, out);
	fputc('\n', out);
}

/* Characters (not bytes) of a UTF-8 text. */
static int text_chars(const char *t)
{
	int n = 0;
	for (; *t; t++)
		n += ((unsigned char)*t & 0xc0) != 0x80;
	return n;
}

/* One line of the aligned table: each text in its column's width (from
   widths, its sign from the column: negative is left-aligned), gap
   spaces apart.  A text wider than its column (a row after the ones the
   widths were taken from) is written whole: never cut. */
static void text_row(FILE *out, const struct out_column *cols, const int *widths, size_t n,
		     const char *const *texts, int gap)
{
	/* One buffer for the line, written at once; a line longer than it
	   is cut at its end. */
	char line[4096], clean[CELL_ROOM];
	const size_t room = sizeof line - 1;
	size_t len = 0;
#define PUT_SPACES(k) do { size_t k_ = (size_t)(k); if (k_ > room - len) k_ = room - len; \
			   memset(line + len, ' ', k_); len += k_; } while (0)
	for (size_t i = 0; i < n && len < room; i++) {
		size_t tn;
		bool ascii;
		const char *t = cell_clean(clean, texts[i], &tn, &ascii);
		int w = widths[i], chars = ascii ? (int)tn : text_chars(t);
		int pad = chars < w ? w - chars : 0;
		bool left = cols[i].width < 0;
		PUT_SPACES(i ? gap : 0);
		PUT_SPACES(left ? 0 : pad);
		if (tn > room - len)
			tn = room - len;
		memcpy(line + len, t, tn);
		len += tn;
		PUT_SPACES(left ? pad : 0);
	}
#undef PUT_SPACES
	out_trimmed(out, line, len);
}

/* The next member of the object out_json_open began: its key, after a
   comma unless it is the first. */
static void json_member(FILE *out, const char *key)
{
	if (source.json_members++)
		fputs(", ", out);
	out_json_string(out, key);
	fputs(": ", out);
}

void out_json_open(FILE *out, enum out_format fmt)
{
	if (fmt == OUT_JSON) {
		fputc('{', out);
		source.json_members = 0;
		if (source.file_column) {
			json_member(out, "file");
			out_json_string(out, source.file ? source.file : "");
		}
	}
}

void out_json_close(FILE *out, enum out_format fmt)
{
	if (fmt == OUT_JSON)
		fputs("}\n", out);
}

void out_json_seconds(FILE *out, enum out_format fmt, const char *key, int64_t ns)
{
	static const struct out_column c = { .type = OUT_COL_SECONDS, .decimals = 6 };
	struct out_cell v = { .ns = ns };
	char buf[64];
	if (fmt != OUT_JSON)
		return;
	json_member(out, key);
	fputs(cell_text(buf, sizeof buf, &c, &v, OUT_JSON), out);
}

void out_json_count(FILE *out, enum out_format fmt, const char *key, uint64_t n)
{
	if (fmt != OUT_JSON)
		return;
	json_member(out, key);
	fprintf(out, "%" PRIu64, n);
}

void out_json_bool(FILE *out, enum out_format fmt, const char *key, int yes)
{
	if (fmt != OUT_JSON)
		return;
	json_member(out, key);
	fputs(yes ? "true" : "false", out);
}

void out_heading(FILE *out, enum out_format fmt, const char *title)
{
	if (out_for_programs(fmt))
		return;
	if (fmt == OUT_MARKDOWN) {
		size_t n = strlen(title);
		fprintf(out, "\n### %.*s\n\n", (int)(n && title[n - 1] == ':' ? n - 1 : n), title);
	} else
		fprintf(out, "\n%s\n\n", title);
}

void out_sentence(FILE *out, enum out_format fmt, const char *lead, const char *rest, ...)
{
	if (out_for_programs(fmt))
		return;
	const char *strong = fmt == OUT_MARKDOWN && lead[0] ? "**" : "";
	fprintf(out, "\n%s%s%s", strong, lead, strong);
	va_list ap;
	va_start(ap, rest);
	vfprintf(out, rest, ap);
	va_end(ap);
	fputc('\n', out);
}

void out_table_begin(struct out_table *t, FILE *out, enum out_format fmt, const struct out_column *cols,
		 size_t ncols, const char *key)
{
	out_table_begin_gap(t, out, fmt, cols, ncols, key, 2);
}

/* A row held until out_table_end, its texts copied. */
struct out_held {
	struct out_cell *cells;
	bool total;
};

/* A text table that ranks nothing holds this many rows at most to size
   its columns (each as wide as its longest cell among them, its title,
   and, in a longer table, the width its view gives it); the rows after
   are written as they come, so that memory does not grow with a long
   listing.  A ranked table (--sort, --top) holds every row: it sorts. */
#define OUT_HOLD_ROWS 1000

/* --sort and --top (out_set_ranking). */
static struct {
	const char *column;
	size_t top;
	char problem[512];
} ranking;

void out_set_ranking(const char *column, size_t top)
{
	ranking.column = column && *column ? column : NULL;
	ranking.top = top;
}

const char *out_ranking_problem(void)
{
	return ranking.problem[0] ? ranking.problem : NULL;
}

void out_table_begin_gap(struct out_table *t, FILE *out, enum out_format fmt,
			 const struct out_column *cols, size_t ncols, const char *key, int gap)
{
	t->gap = gap;
	t->out = out;
	t->fmt = fmt;
	t->cols = cols;
	t->ncols = ncols;
	t->rows = 0;
	t->key = key;
	t->held = NULL;
	t->nheld = t->capheld = 0;
	t->sort_col = -1;
	t->notes = NULL;
	t->nnotes = 0;
	t->ranked = false;
	t->totals_after = false;
	t->widths = NULL;
	t->streaming = false;
	/* People's table is written at its end, each column as wide as its
	   longest cell. */
	t->hold = fmt == OUT_TEXT;
	char title[160];
	switch (fmt) {
	case OUT_NDJSON:
	case OUT_TEXT:
		break;
	case OUT_CSV:
		if (source.no_header)
			break;
		out_csv_file_header(out);
		for (size_t i = 0; i < ncols; i++)
			fprintf(out, "%s%s", i ? "," : "", cols[i].name);
		fputc('\n', out);
		break;
	case OUT_TSV:
		if (source.no_header)
			break;
		if (source.file_column)
			fputs("file\t", out);
		for (size_t i = 0; i < ncols; i++)
			fprintf(out, "%s%s", i ? "\t" : "", cols[i].name);
		fputc('\n', out);
		break;
	case OUT_JSON:
		json_member(out, key);
		fputc('[', out);
		break;
	case OUT_MARKDOWN:
		fputc('|', out);
		for (size_t i = 0; i < ncols; i++) {
			fputc(' ', out);
			md_field(out, title_text(title, sizeof title, &cols[i]), abs_width(cols[i].width));
			fputs(" |", out);
		}
		fputs("\n|", out);
		for (size_t i = 0; i < ncols; i++) {
			int w = abs_width(cols[i].width);
			if (w < 3)
				w = 3;
			fputc(cols[i].width < 0 ? ':' : '-', out);
			for (int k = 0; k < w; k++)
				fputc('-', out);
			fputs(cols[i].width < 0 ? "-|" : ":|", out);
		}
		fputc('\n', out);
		break;
	}
}

void out_table_ranks(struct out_table *t)
{
	if (!ranking.column && !ranking.top)
		return;
	t->hold = true;
	t->ranked = true;
	t->totals_after = true;
	if (!ranking.column)
		return;
	for (size_t i = 0; i < t->ncols; i++)
		if (t->cols[i].title[0] && (strcasecmp(ranking.column, t->cols[i].name) == 0 ||
					    strcasecmp(ranking.column, t->cols[i].title) == 0)) {
			t->sort_col = (int)i;
			t->totals_after = true;
			return;
		}
	int n = snprintf(ranking.problem, sizeof ranking.problem, "no column '%s' in the table (it has:",
			 ranking.column);
	for (size_t i = 0; i < t->ncols && n > 0 && (size_t)n < sizeof ranking.problem; i++)
		if (t->cols[i].title[0])
			n += snprintf(ranking.problem + n, sizeof ranking.problem - (size_t)n, "%s %s",
				      i ? "," : "", t->cols[i].name);
	if (n > 0 && (size_t)n < sizeof ranking.problem)
		snprintf(ranking.problem + n, sizeof ranking.problem - (size_t)n, ")");
}

/* Under a table for people that has rows: what its abbreviations and
   flags mean, each where it appears. */
static void footnotes(const struct out_table *t, size_t rows)
{
	if (!rows || !out_for_people(t->fmt))
		return;
	bool any = false;
	for (size_t k = 0; k < t->nnotes; k++)
		for (size_t i = 0; i < t->ncols; i++) {
			if (strcmp(t->cols[i].name, t->notes[k].column) != 0)
				continue;
			if (!any)
				fputc('\n', t->out);
			any = true;
			fprintf(t->out, t->fmt == OUT_MARKDOWN ? "- **%s**: %s\n" : "%s: %s\n",
				t->cols[i].title, t->notes[k].text);
		}
}

void out_table_notes(struct out_table *t, const struct out_note *notes, size_t n)
{
	t->notes = notes;
	t->nnotes = n;
}

/* One row in the table's format, with the text table's widths. */
static void emit_row(struct out_table *t, const struct out_cell *cells, const int *widths)
{
	FILE *out = t->out;
	char buf[64];
	switch (t->fmt) {
	case OUT_NDJSON:
		out_ndjson_row_open(out, t->key);
		for (size_t i = 0; i < t->ncols; i++) {
			fprintf(out, ", \"%s\": ", t->cols[i].name);
			const char *s = cell_text(buf, sizeof buf, &t->cols[i], &cells[i], t->fmt);
			if (cells[i].empty || (t->cols[i].type == OUT_COL_NUMBER && !*s))
				fputs("null", out);
			else if (t->cols[i].type == OUT_COL_STR)
				out_json_string(out, s);
			else
				fputs(s, out);
		}
		fputs("}\n", out);
		break;
	case OUT_CSV:
		out_csv_file_cell(out);
		for (size_t i = 0; i < t->ncols; i++) {
			if (i)
				fputc(',', out);
			out_csv_field(out, cell_text(buf, sizeof buf, &t->cols[i], &cells[i], t->fmt));
		}
		fputc('\n', out);
		break;
	case OUT_TSV:
		if (source.file_column) {
			tsv_field(out, source.file ? source.file : "");
			fputc('\t', out);
		}
		for (size_t i = 0; i < t->ncols; i++) {
			if (i)
				fputc('\t', out);
			tsv_field(out, cell_text(buf, sizeof buf, &t->cols[i], &cells[i], t->fmt));
		}
		fputc('\n', out);
		break;
	case OUT_JSON:
		fprintf(out, "%s\n  {", t->rows ? "," : "");
		for (size_t i = 0; i < t->ncols; i++) {
			fprintf(out, "%s\"%s\": ", i ? ", " : "", t->cols[i].name);
			const char *s = cell_text(buf, sizeof buf, &t->cols[i], &cells[i], t->fmt);
			if (cells[i].empty || (t->cols[i].type == OUT_COL_NUMBER && !*s))
				fputs("null", out);
			else if (t->cols[i].type == OUT_COL_STR)
				out_json_string(out, s);
			else
				fputs(s, out);
		}
		fputc('}', out);
		break;
	case OUT_MARKDOWN:
		fputc('|', out);
		for (size_t i = 0; i < t->ncols; i++) {
			const char *s = cell_text(buf, sizeof buf, &t->cols[i], &cells[i], t->fmt);
			int w = abs_width(t->cols[i].width), n = (int)strlen(s);
			fputc(' ', out);
			if (t->cols[i].width > 0)
				for (; n < w; n++)
					fputc(' ', out);
			md_field(out, s, t->cols[i].width > 0 ? 0 : w);
			fputs(" |", out);
		}
		fputc('\n', out);
		break;
	case OUT_TEXT: {
		char bufs[t->ncols ? t->ncols : 1][64];
		const char *texts[t->ncols ? t->ncols : 1];
		for (size_t i = 0; i < t->ncols; i++)
			texts[i] = cell_text(bufs[i], sizeof bufs[i], &t->cols[i], &cells[i], t->fmt);
		text_row(out, t->cols, widths, t->ncols, texts, t->gap);
		break;
	}
	}
	t->rows++;
}

static void hold_row(struct out_table *t, const struct out_cell *cells, bool total)
{
	if (t->nheld == t->capheld) {
		size_t cap = t->capheld ? t->capheld * 2 : 64;
		struct out_held *h = realloc(t->held, cap * sizeof *h);
		if (!h)
			goto direct;
		t->held = h;
		t->capheld = cap;
	}
	struct out_cell *c = malloc((t->ncols ? t->ncols : 1) * sizeof *c);
	if (!c)
		goto direct;
	for (size_t i = 0; i < t->ncols; i++) {
		c[i] = cells[i];
		c[i].s = cells[i].s ? strdup(cells[i].s) : NULL;
	}
	t->held[t->nheld++] = (struct out_held){ c, total };
	return;
direct:
	/* Out of memory: the row is written as it comes, in the columns'
	   given widths, rather than lost. */
	{
		int widths[t->ncols ? t->ncols : 1];
		for (size_t i = 0; i < t->ncols; i++)
			widths[i] = abs_width(t->cols[i].width);
		emit_row(t, cells, widths);
	}
}

static void write_held(struct out_table *t, bool more);

static void any_row(struct out_table *t, const struct out_cell *cells, bool total)
{
	if (t->streaming) {
		emit_row(t, cells, t->widths);
		return;
	}
	if (!t->hold) {
		emit_row(t, cells, NULL);
		return;
	}
	hold_row(t, cells, total && t->totals_after);
	/* A long table for people that is not ranked: the rows held so far
	   size its columns, and the rest follow as they come. */
	if (!t->ranked && t->nheld >= OUT_HOLD_ROWS)
		write_held(t, true);
}

void out_table_row(struct out_table *t, const struct out_cell *cells)
{
	any_row(t, cells, false);
}

void out_table_total_row(struct out_table *t, const struct out_cell *cells)
{
	any_row(t, cells, true);
}

/* The column sorted by, for qsort (one table sorts at a time). */
static const struct out_column *sort_by;
static int sort_index;

static int held_cmp(const void *pa, const void *pb)
{
	const struct out_cell *a = &((const struct out_held *)pa)->cells[sort_index];
	const struct out_cell *b = &((const struct out_held *)pb)->cells[sort_index];
	if (a->empty != b->empty)
		return a->empty ? 1 : -1;	/* nothing last */
	switch (sort_by->type) {
	case OUT_COL_STR:
		return strcmp(a->s ? a->s : "", b->s ? b->s : "");
	case OUT_COL_UINT:
		return a->u == b->u ? 0 : a->u < b->u ? 1 : -1;
	case OUT_COL_NUMBER: {
		double x = a->s ? strtod(a->s, NULL) : 0, y = b->s ? strtod(b->s, NULL) : 0;
		return x == y ? 0 : x < y ? 1 : -1;
	}
	default:
		return a->ns == b->ns ? 0 : a->ns < b->ns ? 1 : -1;
	}
}

/* Merge sort of the held rows: stable, so that equal rows keep the
   view's own order. */
static void held_sort(struct out_held *v, size_t n, struct out_held *tmp)
{
	if (n < 2)
		return;
	size_t h = n / 2;
	held_sort(v, h, tmp);
	held_sort(v + h, n - h, tmp);
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = held_cmp(&v[j], &v[i]) < 0 ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof *v);
}

/* The rows held, sorted and cut when the table ranks, after the title
   of the text table; more: rows follow (OUT_HOLD_ROWS), written with the
   widths kept in t->widths, each column at least its given width. */
static void write_held(struct out_table *t, bool more)
{
	if (more && !(t->widths = malloc((t->ncols ? t->ncols : 1) * sizeof *t->widths)))
		return;		/* held on, to the end */
	/* The rows ranked (totals after them), then cut to --top. */
	size_t n = 0;
	struct out_held *tot = malloc((t->nheld ? t->nheld : 1) * sizeof *tot);
	size_t ntot = 0;
	for (size_t i = 0; i < t->nheld; i++)
		if (t->held[i].total && tot)
			tot[ntot++] = t->held[i];
		else
			t->held[n++] = t->held[i];
	if (t->sort_col >= 0 && n > 1) {
		struct out_held *tmp = malloc(n * sizeof *tmp);
		if (tmp) {
			sort_by = &t->cols[t->sort_col];
			sort_index = t->sort_col;
			held_sort(t->held, n, tmp);
			free(tmp);
		}
	}
	size_t shown = n;
	if (t->ranked && ranking.top && ranking.top < n)
		shown = ranking.top;
	/* Each text column as wide as its title and its longest cell. */
	int widths[t->ncols ? t->ncols : 1];
	char buf[64];
	const char *titles[t->ncols ? t->ncols : 1];
	char tbufs[t->ncols ? t->ncols : 1][160];
	for (size_t c = 0; c < t->ncols; c++) {
		titles[c] = title_text(tbufs[c], sizeof tbufs[c], &t->cols[c]);
		widths[c] = text_chars(titles[c]);
	}
	for (size_t pass = 0; pass < 2; pass++) {
		size_t m = pass ? ntot : shown;
		struct out_held *rows = pass ? tot : t->held;
		for (size_t r = 0; r < m && t->fmt == OUT_TEXT; r++)
			for (size_t c = 0; c < t->ncols; c++) {
				int w = text_chars(cell_text(buf, sizeof buf, &t->cols[c], &rows[r].cells[c],
							     t->fmt));
				if (w > widths[c])
					widths[c] = w;
			}
	}
	if (more) {
		for (size_t c = 0; c < t->ncols; c++) {
			if (widths[c] < abs_width(t->cols[c].width))
				widths[c] = abs_width(t->cols[c].width);
			t->widths[c] = widths[c];
		}
		t->streaming = true;
		t->hold = false;
	}
	if (t->fmt == OUT_TEXT)
		text_row(t->out, t->cols, widths, t->ncols, titles, t->gap);
	for (size_t r = 0; r < shown; r++)
		emit_row(t, t->held[r].cells, widths);
	for (size_t r = 0; r < ntot; r++)
		emit_row(t, tot[r].cells, widths);
	if (!more)
		footnotes(t, shown + ntot);
	for (size_t r = 0; r < n; r++) {
		for (size_t c = 0; c < t->ncols; c++)
			free((char *)t->held[r].cells[c].s);
		free(t->held[r].cells);
	}
	for (size_t r = 0; r < ntot; r++) {
		for (size_t c = 0; c < t->ncols; c++)
			free((char *)tot[r].cells[c].s);
		free(tot[r].cells);
	}
	free(tot);
	free(t->held);
	t->held = NULL;
	t->nheld = t->capheld = 0;
}

void out_table_end(struct out_table *t)
{
	if (t->hold)
		write_held(t, false);
	else
		footnotes(t, t->rows);
	free(t->widths);
	t->widths = NULL;
	t->streaming = false;
	if (t->fmt == OUT_JSON)
		fputs(t->rows ? "\n]" : "]", t->out);
}

void out_notes(FILE *out, enum out_format fmt, const char *const *notes, size_t n,
		 const char *prog)
{
	switch (fmt) {
	case OUT_CSV:
	case OUT_TSV:
	case OUT_NDJSON:
		/* Several traces in one output: say which one the note is of. */
		for (size_t i = 0; i < n; i++)
			if (source.file_column || fmt == OUT_NDJSON)
				fprintf(stderr, "%s: note: %s: '%s'\n", prog, notes[i],
					source.file ? source.file : "");
			else
				fprintf(stderr, "%s: note: %s\n", prog, notes[i]);
		break;
	case OUT_JSON:
		json_member(out, "notes");
		fputc('[', out);
		for (size_t i = 0; i < n; i++) {
			fputs(i ? ", " : "", out);
			out_json_string(out, notes[i]);
		}
		fputc(']', out);
		break;
	case OUT_MARKDOWN:
		if (n)
			fputc('\n', out);
		for (size_t i = 0; i < n; i++)
			fprintf(out, "- %s\n", notes[i]);
		break;
	default:
		if (n)
			fputc('\n', out);
		for (size_t i = 0; i < n; i++)
			fprintf(out, "note: %s\n", notes[i]);
		break;
	}
}
