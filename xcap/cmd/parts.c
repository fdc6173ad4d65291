/*
 * parts.c — see parts.h.
 *
 * Belongs to: the commands' kit (xcap/cmd/), linked by every command and by no library.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parts.h"

const char *self_dir(void)
{
	static char dir[PATH_MAX];
	static int done;
	if (!done) {
		done = 1;
		ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
		dir[n > 0 ? n : 0] = '\0';
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		else
			dir[0] = '\0';
	}
	return dir;
}

static int usable(const char *path)
{
	/* a command must run; a library need only be read */
	size_t n = strlen(path);
	int lib = n > 3 && strcmp(path + n - 3, ".so") == 0;
	return access(path, lib ? R_OK : X_OK) == 0;
}

static void add_looked(char *looked, size_t size, const char *place)
{
	size_t n = strlen(looked);
	if (n + 1 < size)
		snprintf(looked + n, size - n, "%s%s", n ? ", " : "", place);
}

int find_part(char *path, size_t size, const char *name, const char *env,
	      const char *const *rel, const char *installed, char *looked, size_t looked_size)
{
	looked[0] = '\0';
	const char *given = env ? getenv(env) : NULL;
	if (given && *given) {
		snprintf(path, size, "%s", given);
		if (usable(path))
			return 0;
		snprintf(looked, looked_size, "$%s=%s", env, given);
		return -1;
	}
	const char *self = self_dir();
	if (*self) {
		snprintf(path, size, "%s/%s", self, name);
		if (usable(path))
			return 0;
		add_looked(looked, looked_size, self);
		for (size_t i = 0; rel && rel[i]; i++) {
			char dir[2 * PATH_MAX];
			snprintf(dir, sizeof dir, "%s/%s", self, rel[i]);
			char *real = realpath(dir, NULL);
			snprintf(path, size, "%s/%s", real ? real : dir, name);
			free(real);
			if (usable(path))
				return 0;
		}
	}
	if (installed && *installed) {
		snprintf(path, size, "%s/%s", installed, name);
		if (usable(path))
			return 0;
		add_looked(looked, looked_size, installed);
	}
	return -1;
}
