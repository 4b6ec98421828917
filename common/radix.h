/* A stable sort of fixed-size records by an unsigned key inside each (a
 * symbol's address, a module's id): least-significant byte first,
 * skipping the bytes all keys share, so addresses that differ in their
 * low 32 bits take four passes. Equal keys keep their order. */
#ifndef TD_RADIX_H
#define TD_RADIX_H

#include <stddef.h>

/* n records of `size` bytes at base; the key, a uint32_t or uint64_t
 * (key_size 4 or 8), at byte key_off. */
void td_radix_sort(void *base, size_t n, size_t size, size_t key_off, size_t key_size);

#endif
