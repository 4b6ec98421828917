#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "radix.h"

static inline uint64_t key_of(const unsigned char *rec, size_t key_off, size_t key_size)
{
	if (key_size == sizeof(uint32_t)) {
		uint32_t k;
		memcpy(&k, rec + key_off, sizeof k);
		return k;
	}
	uint64_t k;
	memcpy(&k, rec + key_off, sizeof k);
	return k;
}

void td_radix_sort(void *base, size_t n, size_t size, size_t key_off, size_t key_size)
{
	if (n < 2)
		return;
	unsigned char *from = base;
	uint64_t any = 0, all = ~0ULL, last = 0;
	bool sorted = true;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = key_of(from + i * size, key_off, key_size);
		any |= k;
		all &= k;
		sorted &= k >= last;
		last = k;
	}
	if (sorted)
		return;                  /* nothing to move (and no buffer to fault in) */
	unsigned char *to = td_malloc(n * size), *spare = to;
	for (int shift = 0; shift < 64; shift += 8) {
		if (!(((any ^ all) >> shift) & 0xff))
			continue;
		size_t at[257] = { 0 };
		for (size_t i = 0; i < n; i++)
			at[((key_of(from + i * size, key_off, key_size) >> shift) & 0xff) + 1]++;
		for (int d = 1; d <= 256; d++)
			at[d] += at[d - 1];
		for (size_t i = 0; i < n; i++) {
			const unsigned char *rec = from + i * size;
			memcpy(to + at[(key_of(rec, key_off, key_size) >> shift) & 0xff]++ * size, rec, size);
		}
		unsigned char *swap = from;
		from = to;
		to = swap;
	}
	if (from != (unsigned char *)base)
		memcpy(base, from, n * size);
	free(spare);
}
