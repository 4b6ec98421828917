/* td_radix_sort against qsort by (key, original position): random records
 * with 8- and 4-byte keys, few and many distinct values, shared high
 * bytes, and sizes 0 to 5000. TAP. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/radix.h"

struct rec {
	uint32_t small;
	uint64_t key;
	uint32_t pos;
};

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int by_key(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

static int by_small(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->small != y->small)
		return x->small < y->small ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

static int check(int wide)
{
	for (int round = 0; round < 200; round++) {
		size_t n = round == 0 ? 0 : (size_t)(next() % 5000);
		uint64_t spread = round % 3 == 0 ? 7 : round % 3 == 1 ? 1u << 20 : UINT64_MAX;
		uint64_t base = 0xffffffff81000000ull * (uint64_t)(round & 1);
		struct rec *a = malloc((n + 1) * sizeof(*a)), *b = malloc((n + 1) * sizeof(*b));
		for (size_t i = 0; i < n; i++) {
			uint64_t v = next();
			a[i] = (struct rec){ (uint32_t)(v % (spread | 1)), base + v % (spread | 1), (uint32_t)i };
		}
		memcpy(b, a, n * sizeof(*a));
		if (wide) {
			td_radix_sort(a, n, sizeof(*a), offsetof(struct rec, key), sizeof(uint64_t));
			qsort(b, n, sizeof(*b), by_key);
		} else {
			td_radix_sort(a, n, sizeof(*a), offsetof(struct rec, small), sizeof(uint32_t));
			qsort(b, n, sizeof(*b), by_small);
		}
		int same = n == 0 || memcmp(a, b, n * sizeof(*a)) == 0;
		free(a);
		free(b);
		if (!same) {
			printf("# round %d (%zu records) differs\n", round, n);
			return 0;
		}
	}
	return 1;
}

int main(void)
{
	printf("1..2\n");
	printf("%s 1 - 8-byte keys sort stably as qsort by (key, position)\n", check(1) ? "ok" : "not ok");
	printf("%s 2 - 4-byte keys sort stably as qsort by (key, position)\n", check(0) ? "ok" : "not ok");
	return 0;
}
