/*
 * output.c — the table writer and the quoting of each format.
 *
 * Belongs to: libanalyse, the analysis layer's library, which netplot links too (xcapanalyse/).
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

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

void out_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	while (*s) {
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
	char clean[1024];
	s = utf8_clean(clean, sizeof clean, s);
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* A TSV cell: no quoting, so that a shell or awk reads it by splitting
   at tabs; a tab, newline, carriage return or backslash in the text is
   written as \t, \n, \r or \\. */
static void tsv_field(FILE *f, const char *s)
{
	char clean[1024];
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
	char clean[1024];
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
		snprintf(buf, size, "%" PRIu64, v->u);
		return buf;
	case OUT_COL_SECONDS:
	case OUT_COL_MILLISECONDS: {
		/* Programs get seconds to the ns; people the column's unit and
		   decimals. */
		int ms = c->type == OUT_COL_MILLISECONDS && !out_for_programs(fmt);
		int digits = ms ? 6 : 9;	/* ns are this many places below the unit */
		int64_t ns = v->ns;
		const char *sign = ns < 0 ? "-" : "";
		uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
		int dec = out_for_programs(fmt) ? 9 :
			  c->decimals > 0 && c->decimals <= digits ? c->decimals : 6;
		uint64_t scale = 1;
		for (int i = dec; i < digits; i++)
			scale *= 10;
		/* Round half up at the last printed digit. */
		uint64_t units = (a + scale / 2) / scale, one = 1;
		for (int i = 0; i < dec; i++)
			one *= 10;
		snprintf(buf, size, "%s%" PRIu64 ".%0*" PRIu64, sign, units / one, dec, units % one);
		return buf;
	}
	}
	return "";
}

static int abs_width(int w)
{
	return w < 0 ? -w : w;
}

void out_trimmed(FILE *out, const char *line, size_t len)
{
	while (len && line[len - 1] == ' ')
		len--;
	fprintf(out, "%.*s\n", (int)len, line);
}

/* One line of the aligned table: each text in its column's width, gap
   spaces apart. */
static void text_row(FILE *out, const struct out_column *cols, size_t n, const char *const *texts,
		     int gap)
{
	char line[2048], clean[1024];
	size_t len = 0;
	for (size_t i = 0; i < n && len + 1 < sizeof line; i++) {
		const char *t = utf8_clean(clean, sizeof clean, texts[i]);
		int w = abs_width(cols[i].width), chars = 0;
		size_t bytes = 0, fit = 0;
		for (; t[bytes]; bytes++)
			if (((unsigned char)t[bytes] & 0xc0) != 0x80 && ++chars == w)
				fit = bytes + 1;	/* where the w-th character begins, + 1 */
		/* Text wider than a left-aligned column that others follow is cut
		   on a character boundary, with '~' for the rest: a long client
		   name would push every later column out of line. */
		bool cut = cols[i].width < 0 && i + 1 < n && chars > w && w > 1;
		if (cut) {
			bytes = fit - 1;
			chars = w - 1;
		}
		int pad = chars < w ? w - chars : 0;
		len += (size_t)snprintf(line + len, sizeof line - len, "%*s%*s%.*s%s%*s", i ? gap : 0, "",
					cols[i].width > 0 ? pad : 0, "", (int)bytes, t, cut ? "~" : "",
					cols[i].width < 0 && !cut ? pad : 0, "");
	}
	out_trimmed(out, line, len < sizeof line ? len : sizeof line - 1);
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
	switch (fmt) {
	case OUT_NDJSON:
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
			md_field(out, cols[i].title, abs_width(cols[i].width));
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
	default: {
		const char *titles[ncols ? ncols : 1];
		for (size_t i = 0; i < ncols; i++)
			titles[i] = cols[i].title;
		text_row(out, cols, ncols, titles, gap);
		break;
	}
	}
}

void out_table_row(struct out_table *t, const struct out_cell *cells)
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
	default: {
		char bufs[t->ncols ? t->ncols : 1][64];
		const char *texts[t->ncols ? t->ncols : 1];
		for (size_t i = 0; i < t->ncols; i++)
			texts[i] = cell_text(bufs[i], sizeof bufs[i], &t->cols[i], &cells[i], t->fmt);
		text_row(out, t->cols, t->ncols, texts, t->gap);
		break;
	}
	}
	t->rows++;
}

void out_table_end(struct out_table *t)
{
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
