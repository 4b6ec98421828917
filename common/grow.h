/* Growing arrays, in the spirit of git's ALLOC_GROW: one rule for every
 * array that gains elements one at a time or in runs.
 *
 *	TD_ALLOC_GROW(p, need, cap): afterwards p has room for need elements
 *	(cap of them); p moves when it grows, so pointers into it do not stay.
 *
 * Room at least doubles (16 elements at first), so appending n elements
 * costs O(n) copies in all. A capacity that does not fit cap's type, or a
 * byte count that does not fit size_t, is fatal (td_die) rather than a
 * short buffer. Several arrays sized together: td_alloc_nr once, then
 * td_realloc_array for each, then TD_SET_CAP. */
#ifndef TD_GROW_H
#define TD_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "common/diag.h"

/* The capacity to grow cap to for need elements of elem bytes. */
static inline size_t td_alloc_nr(size_t cap, size_t need, size_t elem)
{
	if (cap > SIZE_MAX / 2)
		td_die("out of memory (an array of %zu elements)", cap);
	size_t nr = cap < 8 ? 16 : 2 * cap;
	if (nr < need)
		nr = need;
	if (elem && nr > SIZE_MAX / elem)
		td_die("out of memory (%zu elements of %zu bytes)", nr, elem);
	return nr;
}

/* realloc of n elements of elem bytes, the product checked. */
static inline void *td_realloc_array(void *p, size_t n, size_t elem)
{
	if (elem && n > SIZE_MAX / elem)
		td_die("out of memory (%zu elements of %zu bytes)", n, elem);
	return td_realloc(p, n * elem);
}

/* cap = nr, fatal when nr does not fit cap's type. */
#define TD_SET_CAP(cap, nr)                                                                  \
	do {                                                                                 \
		size_t td_set_nr_ = (nr);                                                    \
		(cap) = (__typeof__(cap))td_set_nr_;                                         \
		if ((size_t)(cap) != td_set_nr_)                                             \
			td_die("out of memory (an array of %zu elements)", td_set_nr_);      \
	} while (0)

#define TD_ALLOC_GROW(p, need, cap)                                                          \
	do {                                                                                 \
		if ((size_t)(need) > (size_t)(cap)) {                                        \
			size_t td_grow_nr_ = td_alloc_nr((size_t)(cap), (size_t)(need), sizeof(*(p))); \
			(p) = td_realloc((p), td_grow_nr_ * sizeof(*(p)));                   \
			TD_SET_CAP(cap, td_grow_nr_);                                        \
		}                                                                            \
	} while (0)

/* Doubles an open-addressed table (linear probing, a power-of-two count
 * of slots; `first` slots when it has none yet) and puts its used slots
 * back: a slot is used when its field `used` is non-zero, and starts its
 * probe at the low bits of its field `hash`. */
#define TD_TABLE_DOUBLE(slots, nslots, first, used, hash)                                    \
	do {                                                                                 \
		__typeof__(slots) td_old_ = (slots);                                         \
		size_t td_nold_ = (size_t)(nslots);                                          \
		(nslots) = td_nold_ ? 2 * td_nold_ : (first);                                \
		(slots) = td_calloc((size_t)(nslots), sizeof(*(slots)));                     \
		size_t td_mask_ = (size_t)(nslots) - 1;                                      \
		for (size_t td_k_ = 0; td_k_ < td_nold_; td_k_++) {                          \
			if (!td_old_[td_k_].used)                                            \
				continue;                                                    \
			size_t td_i_ = (size_t)td_old_[td_k_].hash & td_mask_;               \
			while ((slots)[td_i_].used)                                          \
				td_i_ = (td_i_ + 1) & td_mask_;                              \
			(slots)[td_i_] = td_old_[td_k_];                                     \
		}                                                                            \
		free(td_old_);                                                               \
	} while (0)

#endif
