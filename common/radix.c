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

/* The sort for records of `size` bytes: inlined with size a constant for
 * the common sizes, so a record's move is a few loads and stores, not a
 * memcpy call. One pass counts every byte of every key; a byte all keys
 * share (one count of n) takes no pass. */
static inline __attribute__((always_inline)) void radix_sized(unsigned char *base, size_t n, size_t size,
							     size_t key_off, size_t key_size)
{
	size_t count[8][256];
	memset(count, 0, key_size * sizeof(count[0]));
	bool sorted = true;
	uint64_t last = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = key_of(base + i * size, key_off, key_size);
		for (size_t b = 0; b < key_size; b++)
			count[b][(k >> (8 * b)) & 0xff]++;
		sorted &= k >= last;
		last = k;
	}
	if (sorted)
		return;                  /* nothing to move (and no buffer to fault in) */
	unsigned char *from = base, *to = td_malloc(n * size), *spare = to;
	for (size_t b = 0; b < key_size; b++) {
		size_t *at = count[b], sum = 0;
		if (at[(key_of(base, key_off, key_size) >> (8 * b)) & 0xff] == n)
			continue;
		for (int d = 0; d < 256; d++) {
			size_t c = at[d];
			at[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++) {
			const unsigned char *rec = from + i * size;
			memcpy(to + at[(key_of(rec, key_off, key_size) >> (8 * b)) & 0xff]++ * size, rec, size);
		}
		unsigned char *swap = from;
		from = to;
		to = swap;
	}
	if (from != base)
		memcpy(base, from, n * size);
	free(spare);
}

void td_radix_sort(void *base, size_t n, size_t size, size_t key_off, size_t key_size)
{
	if (n < 2)
		return;
	switch (size) {
	case 4:
		radix_sized(base, n, 4, key_off, key_size);
		break;
	case 8:
		radix_sized(base, n, 8, key_off, key_size);
		break;
	case 12:
		radix_sized(base, n, 12, key_off, key_size);
		break;
	case 16:
		radix_sized(base, n, 16, key_off, key_size);
		break;
	case 24:
		radix_sized(base, n, 24, key_off, key_size);
		break;
	default:
		radix_sized(base, n, size, key_off, key_size);
		break;
	}
}
