/* elf_symbols' lookups through its index of ranges by their start's high
 * bits give what the search over all ranges gives (TD_PLAIN=1, read once
 * per process: the test runs itself again with it). Every key from 0 to
 * past the end of each file is looked up (strided in large files), and
 * the keys around each symbol found: in this test's own binary, libc and,
 * when TD_BIN is set, td-fold. TAP. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "parsers/elf_symbols.h"
#include "tap.h"

static void show(const struct elf_symbols *e, uint64_t key, FILE *out)
{
	uint64_t start = 0;
	const char *name = elf_symbols_find(e, key, &start);
	fprintf(out, "%llx %s %llx\n", (unsigned long long)key, name ? name : "-",
		(unsigned long long)(name ? start : 0));
}

/* The answers for every key of path, one line each. */
static int dump(const char *path)
{
	struct stat st;
	struct elf_symbols *e = stat(path, &st) == 0 ? elf_symbols_try(path, NULL) : NULL;
	if (!e)
		return 1;
	uint64_t end = (uint64_t)st.st_size + 4096, step = end / (1u << 21) + 1, last = UINT64_MAX;
	for (uint64_t key = 0; key < end; key += step) {
		show(e, key, stdout);
		uint64_t start = 0;
		if (elf_symbols_find(e, key, &start) && start != last) {
			last = start;
			for (uint64_t k = start ? start - 1 : 0; k <= start + 1; k++)
				show(e, k, stdout);
		}
	}
	show(e, UINT64_MAX, stdout);
	printf("%zu ranges\n", elf_symbols_count(e));
	elf_symbols_close(e);
	return 0;
}

/* What "SELF --dump path" prints, with TD_PLAIN=plain; NULL if it fails. */
static char *run(const char *self, const char *path, const char *plain, size_t *len)
{
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "TD_PLAIN=%s '%s' --dump '%s'", plain, self, path);
	FILE *p = popen(cmd, "r");
	if (!p)
		return NULL;
	size_t cap = 1 << 20, n = 0, got;
	char *buf = malloc(cap);
	while (buf && (got = fread(buf + n, 1, cap - n, p)) > 0)
		if ((n += got) == cap)
			buf = realloc(buf, cap *= 2);
	if (pclose(p) != 0) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--dump") == 0)
		return dump(argv[2]);
	char fold[4096] = "";
	if (getenv("TD_BIN"))
		snprintf(fold, sizeof fold, "%s/td-fold", getenv("TD_BIN"));
	const char *files[] = { argv[0], "/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6", fold };
	int compared = 0;
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		struct stat st;
		if (!*files[i] || stat(files[i], &st) != 0)
			continue;
		size_t nfast = 0, nplain = 0;
		char *fast = run(argv[0], files[i], "0", &nfast), *plain = run(argv[0], files[i], "1", &nplain);
		char what[4200];
		snprintf(what, sizeof what, "%s: every key's symbol through the index is the full search's", files[i]);
		ok(fast && plain && nfast == nplain && nfast > 0 && memcmp(fast, plain, nfast) == 0, what);
		compared++;
		free(fast);
		free(plain);
	}
	ok(compared >= 2, "at least two binaries compared");
	return tap_done();
}
