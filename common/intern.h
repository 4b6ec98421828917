/* String interning: each distinct byte string is stored once and named by a
 * dense id (0, 1, 2, ...). Hashing is xxhash; storage is an arena, so
 * interning a million frames costs a few large allocations. */
#ifndef TD_INTERN_H
#define TD_INTERN_H

#include <stddef.h>
#include <stdint.h>

struct td_intern;

struct td_intern *td_intern_new(void);
void td_intern_free(struct td_intern *t);

/* Id of the string (added if new). */
uint32_t td_intern(struct td_intern *t, const char *s, size_t len);
/* The same, with h = td_hash(s, len) computed before. A caller with many
 * lookups to make can start fetching the slot a string's hash leads to,
 * then (once that is in cache) the string stored there, and look up
 * later: each fetch is a cache miss when taken on the spot. */
uint32_t td_intern_hashed(struct td_intern *t, const char *s, size_t len, uint64_t h);
void td_intern_prefetch(const struct td_intern *t, uint64_t h);
void td_intern_prefetch_key(const struct td_intern *t, uint64_t h);
/* Id of the string, or UINT32_MAX if absent. */
uint32_t td_intern_find(const struct td_intern *t, const char *s, size_t len);
/* The stored string (NUL-terminated) and its length. */
const char *td_intern_str(const struct td_intern *t, uint32_t id, size_t *len);
uint32_t td_intern_count(const struct td_intern *t);

uint64_t td_hash(const void *p, size_t len);

#endif
