/*
 * parts.h — finding the suite's other parts (a command another runs, the
 * preload library) next to the running program, built or installed: in
 * the program's own folder (/proc/self/exe's), in a folder given relative
 * to it (the build tree keeps each layer's programs in a folder of its
 * own), then where the package installs it.  Never on PATH: a part of
 * another version found there would answer for this one.
 *
 * Belongs to: the commands' kit (xcap/cmd/), linked by every command and by no library.
 */
#ifndef XCAP_PARTS_H
#define XCAP_PARTS_H

#include <stddef.h>

/* The folder the running program is in ("" when /proc is not there). */
const char *self_dir(void);

/* Find NAME: first as env's value when that variable is set (the user's
   choice, taken as it is), else in self_dir(), in each of the folders
   of rel (relative to self_dir(), NULL-ended; may be NULL), then in
   installed.  Fills path with where it was found and returns 0; returns
   -1 with every place looked in "looked" (a sentence for the message). */
int find_part(char *path, size_t size, const char *name, const char *env,
	      const char *const *rel, const char *installed, char *looked, size_t looked_size);

#endif
