/* kallsyms read on the loader's thread are the file's, kallsyms never
 * taken are freed at stop (LeakSanitizer checks under make asan-test),
 * and tables past the descriptors kept for reading names name the same as
 * one loaded alone. The binary is this machine's td-fold, a real ELF file
 * with symbols. TAP. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/symbol_loader.h"
#include "tests/unit/tap.h"


/* Same ranges: every 16th byte of the first 256 KiB names the same symbol. */
static int same_table(const struct elf_symbols *a, const struct elf_symbols *b)
{
	if (!a || !b || elf_symbols_count(a) != elf_symbols_count(b))
		return 0;
	for (uint64_t key = 0; key < (256u << 10); key += 16) {
		uint64_t sa = 0, sb = 0;
		const char *na = elf_symbols_find(a, key, &sa), *nb = elf_symbols_find(b, key, &sb);
		if ((na == NULL) != (nb == NULL) || (na && (strcmp(na, nb) != 0 || sa != sb)))
			return 0;
	}
	return 1;
}

int main(void)
{
	const char *bin = getenv("TD_BIN");
	char fold[4096], ksyms[] = "/tmp/td-test-kallsyms-XXXXXX";
	snprintf(fold, sizeof fold, "%s/td-fold", bin ? bin : "bin");
	struct symbol_places places = { "/nonexistent", NULL };
	struct elf_symbols *direct = symbol_places_load(&places, fold, "", false);
	ok(direct && elf_symbols_count(direct) > 0, "td-fold's symbols load directly");

	int fd = mkstemp(ksyms);
	FILE *k = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (k) {
		fputs("ffffffff81000000 T _text\nffffffff81000100 T start_kernel\nffffffff81000300 t helper\n", k);
		fclose(k);
	}
	struct symbol_loader *l = symbol_loader_start(ksyms);
	ok(l != NULL, "the loader starts");
	if (!l) {
		remove(ksyms);
		return tap_done();
	}
	struct kallsyms *ks = symbol_loader_kallsyms(l);
	uint64_t start = 0;
	const char *name = ks ? kallsyms_find(ks, NULL, 0xffffffff81000180u, &start) : NULL;
	ok(name && strcmp(name, "start_kernel") == 0 && start == 0xffffffff81000100u && symbol_loader_kallsyms_ready(l),
	   "kallsyms read on the loader's thread are the file's");
	kallsyms_free(ks);
	symbol_loader_stop(l);

	struct symbol_loader *untaken = symbol_loader_start(ksyms);
	ok(untaken != NULL, "a loader whose kallsyms are never taken stops (and frees them)");
	symbol_loader_stop(untaken);

	/* lookups read names from the file through a descriptor per table,
	 * 256 at most for all: the tables past them read their mapping */
	enum { MANY = 260 };
	struct elf_symbols **many = calloc(MANY, sizeof(*many));
	int same = 0;
	for (int i = 0; many && i < MANY; i++)
		many[i] = symbol_places_load(&places, fold, "", false);
	for (int i = 0; many && i < MANY; i++)
		same += same_table(many[i], direct);
	printf("# %d of %d tables name every range as one alone\n", same, MANY);
	ok(same == MANY, "260 tables open at once (past the 256 descriptors kept for names) name every range as one alone");
	for (int i = 0; many && i < MANY; i++)
		elf_symbols_close(many[i]);
	free(many);
	elf_symbols_close(direct);
	remove(ksyms);
	return tap_done();
}
