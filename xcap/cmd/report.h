/*
 * report.h — messages from the programs to the user, in one form:
 * "PROGRAM: what failed: why: 'subject'".  Each program defines its
 * program_name.
 *
 * For a command's own code only: report.c is compiled into each command
 * and into no library, because library code never ends the program nor
 * names one; it returns an error and the command says it and decides.
 *
 * Belongs to: the commands' kit (xcap/cmd/), linked by every command and by no library.
 */
#ifndef XCAP_REPORT_H
#define XCAP_REPORT_H

extern const char program_name[];

/* Print the message and exit with status. */
__attribute__((format(printf, 2, 3), noreturn))
void die(int status, const char *fmt, ...);
/* Print the message and go on. */
__attribute__((format(printf, 1, 2)))
void complain(const char *fmt, ...);

#endif
