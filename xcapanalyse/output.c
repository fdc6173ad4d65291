/*
 * output.c — the table writer and the quoting of each format.
 *
 * Belongs to: libanalyse, the analysis layer's library, which netplot links too (xcapanalyse/).
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "output.h"

int out_format_parse(const char *name)
{
	static const char *const names[] = { "text", "csv", "json", "markdown", "ndjson" };
	for (int i = 0; i < 5; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

int out_for_programs(enum out_format fmt)
{
	return fmt == OUT_CSV || fmt == OUT_JSON || fmt == OUT_NDJSON;
}

/* The trace being printed (out_set_source).  One per process: a command
   prints one trace's tables at a time. */
static struct {
	const char *file;
	int file_column;
	int no_header;
} source;

void out_set_source(const char *file, int file_column, int header)
{
	source.file = file;
	source.file_column = file_column;
	source.no_header = !header;
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

void out_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void out_csv_field(FILE *f, const char *s)
{
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

/* A Markdown cell: a bar would end it and a newline the row. */
static void md_field(FILE *f, const char *s, int width)
{
	int n = 0;
	for (; *s; s++, n++) {
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
	case OUT_COL_SECONDS: {
		int64_t ns = v->ns;
		const char *sign = ns < 0 ? "-" : "";
		uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
		int dec = out_for_programs(fmt) ? 9 :
			  c->decimals > 0 && c->decimals <= 9 ? c->decimals : 6;
		uint64_t scale = 1;
		for (int i = dec; i < 9; i++)
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

/* One line of the aligned table: each text in its column's width, two
   spaces apart. */
static void text_row(FILE *out, const struct out_column *cols, size_t n, const char *const *texts)
{
	char line[2048];
	size_t len = 0;
	for (size_t i = 0; i < n && len < sizeof line; i++)
		len += (size_t)snprintf(line + len, sizeof line - len, "%s%*s", i ? "  " : "",
					cols[i].width, texts[i]);
	out_trimmed(out, line, len < sizeof line ? len : sizeof line - 1);
}

void out_json_open(FILE *out, enum out_format fmt)
{
	if (fmt == OUT_JSON) {
		fputc('{', out);
		if (source.file_column) {
			fputs("\"file\": ", out);
			out_json_string(out, source.file ? source.file : "");
			fputs(", ", out);
		}
	}
}

void out_json_close(FILE *out, enum out_format fmt)
{
	if (fmt == OUT_JSON)
		fputs("}\n", out);
}

void out_json_seconds(FILE *out, const char *key, int64_t ns)
{
	static const struct out_column c = { .type = OUT_COL_SECONDS, .decimals = 6 };
	struct out_cell v = { .ns = ns };
	char buf[64];
	fprintf(out, ", \"%s\": %s", key, cell_text(buf, sizeof buf, &c, &v, OUT_JSON));
}

void out_table_begin(struct out_table *t, FILE *out, enum out_format fmt, const struct out_column *cols,
		 size_t ncols, const char *key)
{
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
	case OUT_JSON:
		out_json_string(out, key);
		fputs(": [", out);
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
		text_row(out, cols, ncols, titles);
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
		text_row(out, t->cols, t->ncols, texts);
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
		fputs(", \"notes\": [", out);
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
