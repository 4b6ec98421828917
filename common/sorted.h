/* Lookups in arrays sorted by a 64-bit start address (symbols, maps). */
#ifndef TD_SORTED_H
#define TD_SORTED_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* How many of the n elements (each `size` bytes, the address at byte
 * `off`) start at or before addr: the last of them is the candidate that
 * may cover addr. */
static inline size_t td_count_at_or_before(const void *base, size_t n, size_t size, size_t off, uint64_t addr)
{
	const unsigned char *p = base;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t start;
		memcpy(&start, p + mid * size + off, sizeof start);
		if (start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
