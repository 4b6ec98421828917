#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "numfmt.h"

static const double pow10_table[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };

static size_t by_printf(char *buf, double v, int prec)
{
	int n = snprintf(buf, 48, "%.*f", prec, v);
	if (buf[0] == '-' && strspn(buf + 1, "0.") == (size_t)(n - 1)) {
		memmove(buf, buf + 1, (size_t)n);        /* "-0.00" -> "0.00" */
		n--;
	}
	return (size_t)n;
}

size_t td_format_fixed(char *buf, double v, int prec)
{
	if (prec < 0 || prec > 9)
		return by_printf(buf, v, prec < 0 ? 0 : prec);
	double scaled = fabs(v) * pow10_table[prec];
	if (!(scaled < 1e15))
		return by_printf(buf, v, prec);
	double whole = floor(scaled);
	double frac = scaled - whole;
	/* near a tie the product's rounding may differ from printf's exact one */
	if (fabs(frac - 0.5) < 1e-6 + scaled * 4e-16)
		return by_printf(buf, v, prec);
	unsigned long long r = (unsigned long long)whole + (frac > 0.5);
	char digits[32];
	int nd = 0;
	do {
		digits[nd++] = (char)('0' + r % 10);
		r /= 10;
	} while (r);
	while (nd <= prec)
		digits[nd++] = '0';
	size_t n = 0;
	if (v < 0) {
		bool all_zero = true;
		for (int i = 0; i < nd; i++)
			all_zero &= digits[i] == '0';
		if (!all_zero)
			buf[n++] = '-';
	}
	for (int i = nd - 1; i >= 0; i--) {
		buf[n++] = digits[i];
		if (i == prec && prec > 0)
			buf[n++] = '.';
	}
	buf[n] = '\0';
	return n;
}
