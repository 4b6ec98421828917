/* perf_symtab's two ways to the ranges must agree: the shortcut taken
 * when no symbols overlap after the fix-ups, and the replay of perf's
 * tree. Random tables in both shapes (laid out without overlaps but
 * inserted in random order, with zero-size symbols, aliases and stubs;
 * and freely overlapping), each built twice from one seed. TAP. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include "parsers/perf_symtab.h"

#define CASES 3000
#define MAX_SYMS 64

static uint64_t rng;

static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static const char *names[] = { "f", "_f", "__f", "ff", "_Zf", "g", "_Zgg", "h", "__h2", "main" };

/* "demangled" names: strings of their own, freed by perf_symtab */
static char *shown(void *ctx, const char *name)
{
	(void)ctx;
	if (strcmp(name, "_Zf") == 0)
		return strdup("f()");
	if (strcmp(name, "_Zgg") == 0)
		return strdup("gg()");
	return NULL;
}

static void add(struct perf_symtab *t, uint64_t start, uint64_t size)
{
	static const int binds[] = { STB_LOCAL, STB_GLOBAL, STB_WEAK };
	perf_symtab_insert(t, start, size, binds[next() % 3], names[next() % 10]);
}

/* Symbols laid end to end (some zero-size, some sharing a start), inserted
 * in random order, then stubs past them or over the first. */
static void disjoint_table(struct perf_symtab *t)
{
	uint64_t start[MAX_SYMS], size[MAX_SYMS];
	int n = 1 + (int)(next() % MAX_SYMS);
	uint64_t at = 0x1000 + next() % 64;
	for (int i = 0; i < n; i++) {
		start[i] = at;
		size[i] = next() % 4 == 0 ? 0 : 1 + next() % 32;
		if (next() % 5 != 0)
			at += size[i] ? size[i] : 1 + next() % 8;
	}
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(next() % (uint32_t)(i + 1));
		uint64_t s = start[i], z = size[i];
		start[i] = start[j], size[i] = size[j];
		start[j] = s, size[j] = z;
	}
	for (int i = 0; i < n; i++)
		add(t, start[i], size[i]);
	perf_symtab_fixup(t);
	int stubs = (int)(next() % 4);
	uint64_t stub = next() % 3 == 0 ? 0x1000 : at + 0x2000;
	for (int i = 0; i < stubs; i++, stub += 16)
		add(t, stub, 16);
}

static void overlapping_table(struct perf_symtab *t)
{
	int n = 1 + (int)(next() % MAX_SYMS);
	for (int i = 0; i < n; i++)
		add(t, 0x1000 + next() % 256, next() % 3 == 0 ? 0 : next() % 64);
	perf_symtab_fixup(t);
	for (int i = (int)(next() % 4); i > 0; i--)
		add(t, 0x1000 + next() % 256, 16);
}

static struct perf_symtab *build(uint64_t seed, int shape)
{
	struct perf_symtab *t = perf_symtab_new(shown, NULL);
	rng = seed;
	if (shape == 0)
		disjoint_table(t);
	else
		overlapping_table(t);
	return t;
}

static int same(const struct symtab_range *a, size_t na, const struct symtab_range *b, size_t nb)
{
	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (a[i].lo != b[i].lo || a[i].hi != b[i].hi || a[i].start != b[i].start || strcmp(a[i].name, b[i].name) != 0)
			return 0;
	return 1;
}

int main(void)
{
	printf("1..2\n");
	for (int shape = 0; shape < 2; shape++) {
		int bad = 0;
		for (int c = 0; c < CASES; c++) {
			uint64_t seed = 0x9e3779b97f4a7c15u * (uint64_t)(c + 1) + (uint64_t)shape;
			struct perf_symtab *quick = build(seed, shape), *tree = build(seed, shape);
			struct symtab_range *a, *b;
			size_t na = perf_symtab_ranges(quick, &a), nb = perf_symtab_ranges_replayed(tree, &b);
			if (!same(a, na, b, nb) && bad++ == 0)
				printf("# case %d: %zu ranges, the replay gives %zu\n", c, na, nb);
			free(a);
			free(b);
			perf_symtab_free(quick);
			perf_symtab_free(tree);
		}
		printf("%s %d - %s tables: ranges equal the replayed tree's (%d cases)\n", bad ? "not ok" : "ok",
		       shape + 1, shape == 0 ? "non-overlapping" : "overlapping", CASES);
	}
	return 0;
}
