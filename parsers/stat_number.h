/* The readers' number parser for the common case, inline: the hot
 * fields of every row are plain decimals. */
#ifndef TD_STAT_NUMBER_H
#define TD_STAT_NUMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "common/swar.h"

enum { STAT_DECIMAL_SIGN = 1, STAT_DECIMAL_POINT = 2 };

/* The digits of s from i on appended to *mant (modulo 2^64, as digit by
 * digit) when convert; returns where they end. Up to eight at a time: the
 * bytes that are not digits found in a word, the digits before them
 * converted at once. */
static inline __attribute__((always_inline)) size_t stat_digits(const char *s, size_t i, size_t n,
								unsigned long long *mant, bool convert)
{
	unsigned long long m = *mant;
#if TD_SWAR
	static const uint64_t pow10[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000 };
	while (n - i >= 8) {
		uint64_t w = td_swar_load(s + i);
		uint64_t other = td_swar_nondigits(w);
		unsigned k = other ? td_swar_first(other) : 8;
		if (k == 0)
			break;
		if (convert)
			m = m * pow10[k] + td_swar_digits(w, k);
		i += k;
		if (k < 8) {
			*mant = m;
			return i;
		}
	}
#endif
	for (; i < n && (unsigned char)(s[i] - '0') < 10; i++)
		if (convert)
			m = m * 10 + (unsigned)(s[i] - '0');
	*mant = m;
	return i;
}

#if TD_SWAR
/* stat_decimal_scan's common case: an unsigned decimal that ends within
 * the word at s ("7195", "251.25", "100.00"), its point taken out and its
 * digits converted at once. 0: not that case (the long way decides). */
static inline __attribute__((always_inline)) size_t stat_decimal_word(const char *s, double *out, unsigned *form,
								      size_t *decimals, bool convert)
{
	static const double pow10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7 };
	uint64_t w = td_swar_load(s);
	uint64_t other = td_swar_nondigits(w);
	if (!other)
		return 0;
	unsigned t = td_swar_first(other);                     /* the first byte that is no digit */
	if (s[t] != '.') {
		if (t == 0)
			return 0;
		*form = 0;
		if (convert) {
			*decimals = 0;
			*out = (double)td_swar_digits(w, t);
		}
		return t;
	}
	uint64_t rest = other & (other - 1);
	if (!rest)
		return 0;
	unsigned end = td_swar_first(rest), frac = end - t - 1;
	if (end == 1)
		return 0;                                      /* "." */
	*form = STAT_DECIMAL_POINT;
	if (convert) {
		uint64_t before = t ? w & (~0ull >> (64 - 8 * t)) : 0;
		uint64_t after = (w >> 8) & (~0ull << (8 * t)); /* the fraction, one byte down */
		*decimals = frac;
		*out = (double)td_swar_digits(before | after, end - 1) / pow10[frac];
	}
	return end;
}
#endif

/* The plain decimal ("123", "-0.25", "100.00": up to 15 significant
 * digits) at the start of s[0..n): its length, 0 when there is none, in
 * *form which of STAT_DECIMAL_SIGN and _POINT it has and, when convert,
 * its value in *out and in *decimals its digits after the point. One
 * IEEE division of two exact values is correctly rounded, so the value is
 * strtod's (test_stat_number compares them on random strings). */
static inline __attribute__((always_inline)) size_t stat_decimal_scan(const char *s, size_t n, double *out,
								      unsigned *form, size_t *decimals, bool convert)
{
	static const double pow10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
					1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18 };
#if TD_SWAR
	if (n >= 8) {
		size_t k = stat_decimal_word(s, out, form, decimals, convert);
		if (k)
			return k;
	}
#endif
	size_t i = 0;
	bool neg = false;
	*form = 0;
	if (n && (s[0] == '-' || s[0] == '+')) {
		neg = s[i++] == '-';
		*form = STAT_DECIMAL_SIGN;
	}
	unsigned long long mant = 0;        /* wraps past 19 digits: refused below anyway */
	size_t start = i;
	i = stat_digits(s, i, n, &mant, convert);
	size_t digits = i - start, frac = 0;
	if (i < n && s[i] == '.') {
		size_t fstart = ++i;
		i = stat_digits(s, i, n, &mant, convert);
		frac = i - fstart;
		digits += frac;
		*form |= STAT_DECIMAL_POINT;
	}
	if (digits == 0 || digits > 15)
		return 0;
	if (convert) {
		*decimals = frac;
		double v = (double)mant;
		if (frac > 0)
			v /= pow10[frac];
		*out = neg ? -v : v;
	}
	return i;
}

/* The plain decimal at the start of s[0..n), read: see stat_decimal_scan. */
static inline __attribute__((always_inline)) size_t stat_decimal_prefix(const char *s, size_t n, double *out,
									 unsigned *form, size_t *decimals)
{
	return stat_decimal_scan(s, n, out, form, decimals, true);
}

/* The length and form of the plain decimal at the start of s[0..n), not read. */
static inline __attribute__((always_inline)) size_t stat_decimal_length(const char *s, size_t n, unsigned *form)
{
	return stat_decimal_scan(s, n, NULL, form, NULL, false);
}

/* The whole of s[0..n) a plain decimal; anything else (another character,
 * a second point): false. */
static inline bool stat_plain_decimal(const char *s, size_t n, double *out)
{
	unsigned form;
	size_t decimals;
	double v;
	size_t k = stat_decimal_prefix(s, n, &v, &form, &decimals);
	if (k == 0 || k != n)
		return false;
	*out = v;
	return true;
}

#endif
