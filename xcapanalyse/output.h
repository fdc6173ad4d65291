/*
 * output.h — the output formats every view of xcapanalyse offers, and the
 * quoting each needs.
 */
#ifndef XCAPANALYSE_OUTPUT_H
#define XCAPANALYSE_OUTPUT_H

#include <stdio.h>

enum format { FMT_TEXT, FMT_CSV, FMT_JSON };

/* A JSON string literal, quotes included. */
void json_string(FILE *f, const char *s);
/* A CSV field, quoted when it holds a comma, quote or newline. */
void csv_field(FILE *f, const char *s);

#endif
