/*
 * report.h — messages from the programs to the user, in one form:
 * "PROGRAM: what failed: why: 'subject'".  Each program defines its
 * program_name.
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
