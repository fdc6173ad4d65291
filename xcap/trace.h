/*
 * trace.h — the .xcap trace file: writer and streaming reader.
 * The format is documented in man/xcap.5.
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#ifndef XCAP_TRACE_H
#define XCAP_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "record.h"

/* What the file header says about the capture. */
struct trace_info {
	char host[256];		/* capture host name */
	char iface[256];	/* interface, or the file read with -r */
	char filter[1024];	/* BPF filter in force */
	char tool[64];		/* "xcap 0.1.0" */
	uint32_t linktype;	/* DLT_* of the capture */
	uint32_t snaplen;
	uint8_t ts_precision;	/* 6 = microseconds, 9 = nanoseconds */
	uint16_t version_major, version_minor;	/* filled in by the reader */
};

struct trace_writer;

/* Start a trace on an open stream (a file or stdout).  Writes the header.
   Returns NULL and fills err on failure. */
struct trace_writer *trace_writer_new(FILE *f, const struct trace_info *info,
					char *err, size_t errlen);
/* Append a record; it reaches the file when its block is complete or on
   flush.  A pkt record's cut (xrec_pkt.cut) is written as the snaplen gap
   record it stands for would be folded into it.  Returns 0, or -1 with
   err set (e.g. disk full). */
int trace_writer_put(struct trace_writer *w, const struct xrec *rec);
/* Close the current block and fflush the stream, so that a reader sees
   everything written so far. */
int trace_writer_flush(struct trace_writer *w);
/* The offset, from the trace's first byte, of the block that holds the
   record last put (where a side index says to read it from). */
uint64_t trace_writer_block_offset(const struct trace_writer *w);
/* Flush and free; does not fclose the stream.  Returns -1 if any write
   failed. */
int trace_writer_free(struct trace_writer *w);
const char *trace_writer_error(const struct trace_writer *w);

struct trace_reader;

/* Read a trace from a stream positioned at its first byte.  Returns NULL
   and fills err if the header is not a trace header. */
struct trace_reader *trace_reader_new(FILE *f, char *err, size_t errlen);
/* The next record: 1 and *rec filled, 0 at the end.  A damaged block is
   reported through the warning callback and skipped; reading goes on with
   the next good block.  A truncated tail ends the trace after a warning.
   Strings in *rec stay valid until the next call. */
int trace_reader_next(struct trace_reader *r, struct xrec *rec);
const struct trace_info *trace_reader_info(const struct trace_reader *r);
/* The file offset of the block holding the record trace_reader_next last
   returned (a side index records where to read a time span from). */
uint64_t trace_reader_block_offset(const struct trace_reader *r);
/* Read on from the block at offset (one trace_reader_block_offset gave:
   blocks stand alone), the stream being seekable.  -1 if it is not. */
int trace_reader_seek(struct trace_reader *r, uint64_t offset);
/* Called with a message for each problem found while reading. */
void trace_reader_on_warning(struct trace_reader *r,
			      void (*fn)(void *ctx, const char *msg), void *ctx);
/* Number of problems found so far (damaged blocks, truncated tail). */
unsigned trace_reader_problems(const struct trace_reader *r);
void trace_reader_free(struct trace_reader *r);

/* True if these bytes begin an .xcap trace. */
bool trace_looks_like(const uint8_t *head, size_t len);

#endif
