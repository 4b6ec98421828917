#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "numfmt.h"

#define DIGITS_MAX 16             /* of a scaled value below 1e15, rounded */

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

static const char pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* The decimal digits of r, at least min of them (zeros in front), ending
 * at end; returns where they start. */
static char *digits_before(char *end, unsigned long long r, int min)
{
	char *p = end;
	while (r >= 100) {
		p -= 2;
		memcpy(p, pairs + 2 * (r % 100), 2);
		r /= 100;
	}
	if (r >= 10) {
		p -= 2;
		memcpy(p, pairs + 2 * r, 2);
	} else {
		*--p = (char)('0' + r);
	}
	while (end - p < min)
		*--p = '0';
	return p;
}

size_t td_format_fixed(char *buf, double v, int prec)
{
	if (prec < 0 || prec > 9)
		return by_printf(buf, v, prec < 0 ? 0 : prec);
	double scaled = fabs(v) * pow10_table[prec];
	if (!(scaled < 1e15))
		return by_printf(buf, v, prec);
	unsigned long long whole = (unsigned long long)scaled;   /* floor: scaled >= 0, < 2^53 */
	double frac = scaled - (double)whole;
	/* near a tie the product's rounding may differ from printf's exact one */
	if (fabs(frac - 0.5) < 1e-6 + scaled * 4e-16)
		return by_printf(buf, v, prec);
	unsigned long long r = whole + (frac > 0.5);
	/* r has 16 digits at most: copied 16 bytes at a time, the bytes after
	 * them overwritten or past the end */
	char tmp[3 * DIGITS_MAX], *end = tmp + DIGITS_MAX;
	char *d = digits_before(end, r, prec + 1);
	size_t nd = (size_t)(end - d), n = 0;
	if (v < 0 && r != 0)             /* no "-0.00" */
		buf[n++] = '-';
	size_t whole_digits = nd - (size_t)prec;
	memcpy(buf + n, d, DIGITS_MAX);
	n += whole_digits;
	if (prec > 0) {
		buf[n++] = '.';
		memcpy(buf + n, d + whole_digits, DIGITS_MAX);
		n += (size_t)prec;
	}
	buf[n] = '\0';
	return n;
}
