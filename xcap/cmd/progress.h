/*
 * progress.h — a one-line meter on standard error while a command reads
 * a large file: "xcapanalyse: reading 'x.pcap': 1.2 of 4.6 GB (26%)".
 * Only on a terminal, only for a regular file, only once a read has
 * lasted a second (XCAP_PROGRESS_DELAY seconds); the line is erased
 * when reading ends, so nothing of it stays on the screen or reaches a
 * pipe or a log.  For commands, like report.c: no library prints.
 *
 * Belongs to: the commands' kit (xcap/cmd/), linked by every command and by no library.
 */
#ifndef XCAP_PROGRESS_H
#define XCAP_PROGRESS_H

#include <stdbool.h>

struct progress {
	const char *prog, *path;
	long long total;	/* bytes in the file */
	double start, last;	/* seconds, CLOCK_MONOTONIC */
	double delay;		/* quiet for this long */
	bool on, shown;
};

/* Start metering the read of path.  quiet: the command writes to
   standard output as it reads, and that is the same terminal. */
void progress_begin(struct progress *p, const char *prog, const char *path, bool quiet);
/* done bytes of the file are read (call it every thousand records or so;
   it redraws at most four times a second). */
void progress_at(struct progress *p, long long done);
/* Erase the line, for a message or at the end (progress_at draws it
   again later). */
void progress_clear(struct progress *p);
void progress_end(struct progress *p);

#endif
