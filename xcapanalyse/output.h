/*
 * output.h — the output formats every view of xcapanalyse offers: one
 * table writer, so that a view says once what its columns are and gets an
 * aligned table for people, CSV, JSON, NDJSON (one JSON object a row,
 * for DuckDB, Spark or sqlite over a directory of results) and a Markdown
 * table for bug reports from the same rows.  Its names begin with out_ (OUT_), so that
 * a "format" or a "table" elsewhere is not mistaken for these.
 *
 * Belongs to: libanalyse, the analysis layer's library, which netplot links too (xcapanalyse/).
 */
#ifndef XCAPANALYSE_OUTPUT_H
#define XCAPANALYSE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum out_format { OUT_TEXT, OUT_CSV, OUT_JSON, OUT_MARKDOWN, OUT_NDJSON, OUT_TSV };

/* "text", "csv", "json", "markdown", "ndjson", "tsv"; -1 when unknown. */
int out_format_parse(const char *name);

/* Whether the format is read by programs (every digit of a time, every
   cell filled in, times in seconds) rather than by people (text and
   Markdown: a blank or "-" for nothing, a connection named once, totals
   and sentences after the tables).  The one place that says it. */
int out_for_programs(enum out_format fmt);
static inline int out_for_people(enum out_format fmt)
{
	return !out_for_programs(fmt);
}
/* CSV and TSV hold one table: a view of several prints its main one
   there and says on stderr what it left out. */
static inline int out_one_table(enum out_format fmt)
{
	return fmt == OUT_CSV || fmt == OUT_TSV;
}

/* The trace the rows that follow come from.  With file_column set, CSV
   and JSON rows begin with a "file" column naming it (several traces in
   one output); NDJSON rows always have it.  header 0 leaves out the CSV
   header line (it came with an earlier trace's rows). */
void out_set_source(const char *file, int file_column, int header);
/* For people, a heading naming the trace whose tables follow, when there
   are several (index: its place among them); programs have the file
   column instead. */
void out_file_heading(FILE *out, enum out_format fmt, const char *file, size_t index);

/* An NDJSON row begun by hand: {"file": ..., "table": ... ; the caller
   adds , "key": value members and the closing brace and newline. */
void out_ndjson_row_open(FILE *out, const char *table);
/* The "file" cell of CSV when the file column is on (with its comma),
   and the header's name of it. */
void out_csv_file_cell(FILE *out);
void out_csv_file_header(FILE *out);
int out_csv_header_wanted(void);

/* The one rule of units: a duration is in milliseconds for people and in
   seconds for programs; a moment (a time since the trace began) is in
   seconds for both; a share is a percent for people and a fraction for
   programs.  The writer adds the unit to a title for people (" ms",
   " %"), so that a view says only what its column holds. */
enum out_col_type {
	OUT_COL_STR,	/* text */
	OUT_COL_UINT,	/* a count */
	OUT_COL_SECONDS,	/* a duration in ns: ms for people (" ms" added to
				   the title, decimals 3 fewer), s for programs */
	OUT_COL_MILLISECONDS,	/* the same, its title saying ms already */
	OUT_COL_NUMBER,	/* a number the view wrote itself (.s; "" or empty:
			   none): as it is, unquoted in JSON */
	OUT_COL_TIME,	/* a moment or a span in ns, in seconds for everyone
			   (times since the trace began; a column whose name
			   says _s) */
	OUT_COL_FIXED,	/* a number that is not a time (a rate, a ratio), in
			   .ns as billionths: with the column's decimals */
	OUT_COL_PERCENT,	/* a share in .ns as billionths: a percent for
				   people (" %" added to the title), a fraction
				   for programs */
};

struct out_column {
	const char *name;	/* snake_case: CSV header, JSON key */
	const char *title;	/* heading for people */
	enum out_col_type type;
	int width;		/* in the text table; negative: left-aligned */
	int decimals;		/* for OUT_COL_SECONDS and _MILLISECONDS, for people */
};

/* What an abbreviation or a flag of a column (by its name) means: said to
   people under the table, when it has rows, as "TITLE: text". */
struct out_note {
	const char *column;
	const char *text;
};

/* One cell; which member counts is the column's type.  An empty cell
   (empty = 1) prints blank in text and Markdown, empty in CSV, null in
   JSON. */
struct out_cell {
	const char *s;
	uint64_t u;
	int64_t ns;
	int empty;
};

struct out_table {
	FILE *out;
	enum out_format fmt;
	const struct out_column *cols;
	size_t ncols;
	size_t rows;
	const char *key;	/* the table's name: NDJSON's "table" */
	int gap;		/* spaces between the text table's columns */
	/* Rows held until the end: for people, so that each column is as
	   wide as its longest cell (the first thousand rows of a longer
	   table; then the rest stream with the widths kept, streaming); for
	   a ranking, to sort them. */
	struct out_held *held;
	size_t nheld, capheld;
	bool hold;
	bool streaming;
	int *widths;
	bool ranked;		/* out_table_ranks: --top cuts it */
	int sort_col;		/* -1: in the order given */
	bool totals_after;	/* total rows go after the ranked ones */
	const struct out_note *notes;	/* out_table_notes */
	size_t nnotes;
};

/* Start a table.  For JSON, the table is the value of key in the object
   the caller opened with out_json_open (a member of it like the others:
   several tables, out_notes, out_json_seconds follow each other in it). */
void out_table_begin(struct out_table *t, FILE *out, enum out_format fmt, const struct out_column *cols,
		 size_t ncols, const char *key);
/* The same with the text table's columns gap spaces apart (out_table_begin:
   two), for a compact listing. */
void out_table_begin_gap(struct out_table *t, FILE *out, enum out_format fmt,
			 const struct out_column *cols, size_t ncols, const char *key, int gap);
void out_table_row(struct out_table *t, const struct out_cell *cells);
/* A total or subtotal row: where it falls in the order given, after the
   rows when they are ranked (never sorted among them, nor counted by
   --top). */
void out_table_total_row(struct out_table *t, const struct out_cell *cells);
void out_table_end(struct out_table *t);

/* The footnotes of a table for people (out_note); call after begin. */
void out_table_notes(struct out_table *t, const struct out_note *notes, size_t n);

/* --sort COLUMN and --top N of the command (column: a column's name or
   title, any case; NULL: the view's own order; top 0: every row), for
   the tables that call out_table_ranks.  Numbers and times sort largest
   first (the worst first), text in alphabetical order. */
void out_set_ranking(const char *column, size_t top);
/* This table is a ranking: sorted and cut as out_set_ranking says.
   Call right after out_table_begin.  A column the table has not is
   remembered: out_ranking_problem says it. */
void out_table_ranks(struct out_table *t);
/* NULL, or what was wrong with --sort ("no column 'X' (it has: a, b)"). */
const char *out_ranking_problem(void);

/* Notes for people: what the trace cannot tell.  Text and Markdown print
   them after the tables, JSON in a "notes" array, CSV on stderr (so that
   the output stays one table). */
void out_notes(FILE *out, enum out_format fmt, const char *const *notes, size_t n,
		 const char *prog);

/* The JSON object around a view's tables (nothing in other formats). */
void out_json_open(FILE *out, enum out_format fmt);
void out_json_close(FILE *out, enum out_format fmt);
/* One more member of that object, "key": seconds, a count or true/false;
   nothing in other formats (they say it in out_sentence, or not at all). */
void out_json_seconds(FILE *out, enum out_format fmt, const char *key, int64_t ns);
void out_json_count(FILE *out, enum out_format fmt, const char *key, uint64_t n);
void out_json_bool(FILE *out, enum out_format fmt, const char *key, int yes);

/* For people only (nothing for programs): a heading before a further
   table ("\nTITLE\n\n", Markdown "### TITLE", without a trailing colon),
   and a sentence after the tables, on a line of its own after a blank
   one, its lead (may be "") in bold in Markdown. */
void out_heading(FILE *out, enum out_format fmt, const char *title);
__attribute__((format(printf, 4, 5)))
void out_sentence(FILE *out, enum out_format fmt, const char *lead, const char *rest, ...);

/* A line of text without its trailing blanks, and a newline. */
void out_trimmed(FILE *out, const char *line, size_t len);

/* A JSON string literal, quotes included. */
void out_json_string(FILE *f, const char *s);
/* A CSV field, quoted when it holds a comma, quote or newline. */
void out_csv_field(FILE *f, const char *s);

#endif
