/*
 * driver.c — a standalone main for the fuzz entry points, so that every
 * parser can be fuzzed with nothing but gcc and the sanitizers.
 *
 *   fuzz-NAME FILE|DIR...                 run each input once (regressions)
 *   fuzz-NAME -runs=N [-seed=S] [-max_len=L] [FILE|DIR...]
 *                                         then N inputs mutated from them
 *
 * Each entry point defines LLVMFuzzerTestOneInput(), so the same file also
 * links with clang's libFuzzer (-fsanitize=fuzzer) for coverage-guided runs.
 * The mutation loop here is blind but bounded and reproducible: the seed is
 * printed, and the same seed replays the same inputs.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
	uint8_t *data;
	size_t size;
};

static struct input *corpus;
static size_t ncorpus, corpus_cap;
static const char *prog = "fuzz";

static void add_input(uint8_t *data, size_t size)
{
	if (ncorpus == corpus_cap) {
		corpus_cap = corpus_cap ? 2 * corpus_cap : 16;
		corpus = realloc(corpus, corpus_cap * sizeof *corpus);
		if (!corpus) {
			fprintf(stderr, "%s: out of memory\n", prog);
			exit(1);
		}
	}
	corpus[ncorpus].data = data;
	corpus[ncorpus].size = size;
	ncorpus++;
}

static int load_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: cannot open: '%s': %s\n", prog, path, strerror(errno));
		return -1;
	}
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (!buf) {
		fprintf(stderr, "%s: out of memory reading: '%s'\n", prog, path);
		return -1;
	}
	add_input(buf, n);
	return 0;
}

static int load_path(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		fprintf(stderr, "%s: cannot open: '%s': %s\n", prog, path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return load_file(path);
	DIR *d = opendir(path);
	if (!d) {
		fprintf(stderr, "%s: cannot open directory: '%s': %s\n", prog, path, strerror(errno));
		return -1;
	}
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char sub[4096];
		snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
		if (load_path(sub) != 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

/* xorshift64*: small, fast, and reproducible from the printed seed. */
static uint64_t rng_state;
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}
static size_t rnd_below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

/* One mutated input in buf (capacity max_len); returns its size. */
static size_t mutate(uint8_t *buf, size_t max_len)
{
	size_t n = 0;
	if (ncorpus > 0) {
		const struct input *in = &corpus[rnd_below(ncorpus)];
		n = in->size < max_len ? in->size : max_len;
		memcpy(buf, in->data, n);
	} else {
		n = rnd_below(max_len < 512 ? max_len : 512);
		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t)rnd();
	}
	int rounds = 1 + (int)rnd_below(8);
	for (int r = 0; r < rounds; r++) {
		switch (rnd_below(7)) {
		case 0:	/* flip a bit */
			if (n)
				buf[rnd_below(n)] ^= (uint8_t)(1u << rnd_below(8));
			break;
		case 1:	/* an interesting byte value */
			if (n) {
				static const uint8_t v[] = { 0, 1, 0x7f, 0x80, 0xff, 0xfe, 0x40, 0x10 };
				buf[rnd_below(n)] = v[rnd_below(sizeof v)];
			}
			break;
		case 2:	/* truncate */
			n = rnd_below(n + 1);
			break;
		case 3:	/* delete a run */
			if (n) {
				size_t at = rnd_below(n), len = 1 + rnd_below(n - at);
				memmove(buf + at, buf + at + len, n - at - len);
				n -= len;
			}
			break;
		case 4:	/* insert random bytes */
			if (n < max_len) {
				size_t at = rnd_below(n + 1), len = 1 + rnd_below(max_len - n < 16 ? max_len - n : 16);
				memmove(buf + at + len, buf + at, n - at);
				for (size_t i = 0; i < len; i++)
					buf[at + i] = (uint8_t)rnd();
				n += len;
			}
			break;
		case 5:	/* overwrite a 32-bit word with an extreme value */
			if (n >= 4) {
				static const uint32_t v[] = { 0, 1, 0xffffffffu, 0x7fffffffu, 0x80000000u, 0xffffu, 0x10000u };
				uint32_t w = v[rnd_below(sizeof v / sizeof v[0])];
				memcpy(buf + rnd_below(n - 3), &w, 4);
			}
			break;
		case 6:	/* splice in part of another input */
			if (ncorpus > 0 && n) {
				const struct input *o = &corpus[rnd_below(ncorpus)];
				if (o->size) {
					size_t from = rnd_below(o->size), at = rnd_below(n);
					size_t len = o->size - from;
					if (len > max_len - at)
						len = max_len - at;
					memcpy(buf + at, o->data + from, len);
					if (at + len > n)
						n = at + len;
				}
			}
			break;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	unsigned long long runs = 0, seed = 0;
	size_t max_len = 1 << 16;
	int rc = 0;

	prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "-runs=", 6) == 0)
			runs = strtoull(argv[i] + 6, NULL, 10);
		else if (strncmp(argv[i], "-seed=", 6) == 0)
			seed = strtoull(argv[i] + 6, NULL, 10);
		else if (strncmp(argv[i], "-max_len=", 9) == 0)
			max_len = strtoull(argv[i] + 9, NULL, 10);
		else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("usage: %s [-runs=N] [-seed=S] [-max_len=L] [FILE|DIR...]\n", prog);
			return 0;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "%s: unknown option: '%s'\n", prog, argv[i]);
			return 2;
		} else if (load_path(argv[i]) != 0)
			rc = 1;
	}
	if (max_len == 0)
		max_len = 1;

	for (size_t i = 0; i < ncorpus; i++)
		LLVMFuzzerTestOneInput(corpus[i].data, corpus[i].size);
	printf("%s: replayed %zu inputs\n", prog, ncorpus);

	if (runs) {
		if (!seed)
			seed = 0x9e3779b97f4a7c15ULL;
		rng_state = seed;
		printf("%s: %llu mutated runs, seed %llu\n", prog, runs, seed);
		fflush(stdout);
		uint8_t *buf = malloc(max_len);
		if (!buf) {
			fprintf(stderr, "%s: out of memory\n", prog);
			return 1;
		}
		for (unsigned long long r = 0; r < runs; r++) {
			size_t n = mutate(buf, max_len);
			/* A fresh, exactly sized copy so ASan sees any overread. */
			uint8_t *in = malloc(n ? n : 1);
			memcpy(in, buf, n);
			LLVMFuzzerTestOneInput(in, n);
			free(in);
		}
		free(buf);
		printf("%s: done\n", prog);
	}
	for (size_t i = 0; i < ncorpus; i++)
		free(corpus[i].data);
	free(corpus);
	return rc;
}
