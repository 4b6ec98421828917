/* Small byte-string helpers for hot paths, inline (no library call). */
#ifndef TD_BYTES_H
#define TD_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "common/diag.h"

/* Appends n bytes of s and a NUL to the growing buffer *buf (*used of
 * *cap bytes taken); returns the offset they start at. Offsets stay valid
 * when the buffer grows and moves, pointers into it do not. */
static inline size_t td_append_text(char **buf, size_t *used, size_t *cap, const char *s, size_t n)
{
	if (*used + n + 1 > *cap) {
		*cap = (*used + n + 1) * 2;
		*buf = td_realloc(*buf, *cap);
	}
	size_t at = *used;
	memcpy(*buf + at, s, n);
	(*buf)[at + n] = '\0';
	*used += n + 1;
	return at;
}

/* Two NUL-terminated names equal: the same pointer (a table's entries
 * share their string literals) or the same bytes. A first byte that
 * differs settles most pairs of a scan over a table without a call. */
static inline bool td_same_name(const char *a, const char *b)
{
	return a == b || (a[0] == b[0] && strcmp(a, b) == 0);
}

/* n bytes equal: in words (16 bytes with SSE2), the last word
 * overlapping the one before */
static inline bool td_same_bytes(const char *a, const char *b, size_t n)
{
	uint64_t x, y;
	uint32_t u, v;
#if defined(__SSE2__)
	if (n >= 16) {
		for (size_t i = 0; i + 16 < n; i += 16) {
			__m128i p = _mm_loadu_si128((const __m128i *)(const void *)(a + i));
			__m128i q = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
			if (_mm_movemask_epi8(_mm_cmpeq_epi8(p, q)) != 0xffff)
				return false;
		}
		__m128i p = _mm_loadu_si128((const __m128i *)(const void *)(a + n - 16));
		__m128i q = _mm_loadu_si128((const __m128i *)(const void *)(b + n - 16));
		return _mm_movemask_epi8(_mm_cmpeq_epi8(p, q)) == 0xffff;
	}
#endif
	if (n >= 8) {
		for (size_t i = 0; i + 8 < n; i += 8) {
			memcpy(&x, a + i, 8);
			memcpy(&y, b + i, 8);
			if (x != y)
				return false;
		}
		memcpy(&x, a + n - 8, 8);
		memcpy(&y, b + n - 8, 8);
		return x == y;
	}
	if (n >= 4) {
		memcpy(&u, a, 4);
		memcpy(&v, b, 4);
		if (u != v)
			return false;
		memcpy(&u, a + n - 4, 4);
		memcpy(&v, b + n - 4, 4);
		return u == v;
	}
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* The n strings s[] (len[] bytes each) lie one after the other, one byte
 * (their NUL) between each and the next: the length of that run, from
 * s[0] to the end of s[n-1]; 0 when they do not lie so. Two runs of the
 * same lengths with the same bytes have every string the same, so one
 * comparison proves the n. */
static inline size_t td_strings_run(const char *const *s, const size_t *len, int n)
{
	uintptr_t at = (uintptr_t)s[0];
	for (int i = 1; i < n; i++) {
		at += len[i - 1] + 1;
		if ((uintptr_t)s[i] != at)
			return 0;
	}
	return at + len[n - 1] - (uintptr_t)s[0];
}

/* n bytes copied (no overlap), in words, the last one overlapping the one
 * before: for the short strings of the hot paths, whose length is known
 * only at run time. Same result as memcpy(d, s, n). */
static inline void td_copy_bytes(char *d, const char *s, size_t n)
{
	uint64_t x, y;
	uint32_t u, v;
	if (n >= 8) {
		for (size_t i = 0; i + 8 < n; i += 8) {
			memcpy(&x, s + i, 8);
			memcpy(d + i, &x, 8);
		}
		memcpy(&y, s + n - 8, 8);
		memcpy(d + n - 8, &y, 8);
	} else if (n >= 4) {
		memcpy(&u, s, 4);
		memcpy(&v, s + n - 4, 4);
		memcpy(d, &u, 4);
		memcpy(d + n - 4, &v, 4);
	} else {
		for (size_t i = 0; i < n; i++)
			d[i] = s[i];
	}
}

/* A hash of n bytes for a cache that compares the bytes on a hit: cheap
 * and well spread for short strings, chained through h. Not stable across
 * versions; never stored. */
static inline uint64_t td_hash_short(const char *s, size_t n, uint64_t h)
{
	const uint64_t k = 0x9e3779b97f4a7c15u;
	uint64_t x;
	uint32_t u, v;
	h = (h ^ n) * k;
	if (n >= 8) {
		for (size_t i = 0; i + 8 < n; i += 8) {
			memcpy(&x, s + i, 8);
			h = (h ^ x) * k;
			h ^= h >> 29;
		}
		memcpy(&x, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(&u, s, 4);
		memcpy(&v, s + n - 4, 4);
		x = (uint64_t)u << 32 | v;
	} else {
		x = 0;
		for (size_t i = 0; i < n; i++)
			x = x << 8 | (unsigned char)s[i];
	}
	h = (h ^ x) * k;
	return h ^ (h >> 32);
}

#endif
