/*
 * output.h — the output formats every view of xcapanalyse offers: one
 * table writer, so that a view says once what its columns are and gets an
 * aligned table for people, CSV, JSON and a Markdown table for bug
 * reports from the same rows.
 */
#ifndef XCAPANALYSE_OUTPUT_H
#define XCAPANALYSE_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum format { FMT_TEXT, FMT_CSV, FMT_JSON, FMT_MARKDOWN };

/* "text", "csv", "json", "markdown"; -1 when unknown. */
int format_parse(const char *name);

enum col_type {
	COL_STR,	/* text */
	COL_UINT,	/* a count */
	COL_SECONDS,	/* a duration or time in ns, printed in seconds */
};

struct column {
	const char *name;	/* snake_case: CSV header, JSON key */
	const char *title;	/* heading for people */
	enum col_type type;
	int width;		/* in the text table; negative: left-aligned */
	int decimals;		/* for COL_SECONDS */
};

/* One cell; which member counts is the column's type.  An empty cell
   (empty = 1) prints blank in text and Markdown, empty in CSV, null in
   JSON. */
struct cell {
	const char *s;
	uint64_t u;
	int64_t ns;
	int empty;
};

struct table {
	FILE *out;
	enum format fmt;
	const struct column *cols;
	size_t ncols;
	size_t rows;
};

/* Start a table.  For JSON, the table is the value of key in the object
   the caller opened with json_open, and comes first in it (what follows
   begins with a comma: notes_print, json_seconds). */
void table_begin(struct table *t, FILE *out, enum format fmt, const struct column *cols,
		 size_t ncols, const char *key);
void table_row(struct table *t, const struct cell *cells);
void table_end(struct table *t);

/* Notes for people: what the trace cannot tell.  Text and Markdown print
   them after the tables, JSON in a "notes" array, CSV on stderr (so that
   the output stays one table). */
void notes_print(FILE *out, enum format fmt, const char *const *notes, size_t n,
		 const char *prog);

/* The JSON object around a view's table. */
void json_open(FILE *out, enum format fmt);
void json_close(FILE *out, enum format fmt);
/* One more member of that object: , "key": seconds */
void json_seconds(FILE *out, const char *key, int64_t ns);

/* A line of text without its trailing blanks, and a newline. */
void put_trimmed(FILE *out, const char *line, size_t len);

/* A JSON string literal, quotes included. */
void json_string(FILE *f, const char *s);
/* A CSV field, quoted when it holds a comma, quote or newline. */
void csv_field(FILE *f, const char *s);

#endif
