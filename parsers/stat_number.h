/* The readers' number parser for the common case, inline: the hot
 * fields of every row are plain decimals. */
#ifndef TD_STAT_NUMBER_H
#define TD_STAT_NUMBER_H

#include <stdbool.h>
#include <stddef.h>

/* "123", "-0.25", "100.00": up to 15 significant digits. One IEEE
 * division of two exact values is correctly rounded, so the result is
 * strtod's, at a fraction of its cost. Anything else: false. */
static inline bool stat_plain_decimal(const char *s, size_t n, double *out)
{
	static const double pow10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
					1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18 };
	size_t i = 0;
	bool neg = false;
	if (s[0] == '-' || s[0] == '+')
		neg = s[i++] == '-';
	unsigned long long mant = 0;        /* wraps past 19 digits: refused below anyway */
	size_t start = i;
	while (i < n && (unsigned char)(s[i] - '0') < 10)
		mant = mant * 10 + (unsigned)(s[i++] - '0');
	size_t digits = i - start, frac = 0;
	if (i < n && s[i] == '.') {
		size_t fstart = ++i;
		while (i < n && (unsigned char)(s[i] - '0') < 10)
			mant = mant * 10 + (unsigned)(s[i++] - '0');
		frac = i - fstart;
		digits += frac;
	}
	if (i != n || digits == 0 || digits > 15)    /* another character, a second point */
		return false;
	double v = (double)mant;
	if (frac > 0)
		v /= pow10[frac];
	*out = neg ? -v : v;
	return true;
}

#endif
