/* The readers' decimal parser (parsers/stat_number.h) against a plain
 * digit-by-digit reading and strtod, on edge cases and random strings,
 * both where a word can be read past the number and where it cannot. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parsers/stat_number.h"
#include "tap.h"

struct reading {
	size_t len;
	unsigned form;
	size_t decimals;
	double v;
};

/* What the parser must give: sign, digits, point, digits; 1-15 digits. */
static struct reading expected(const char *s, size_t n)
{
	struct reading r = { 0, 0, 0, 0 };
	size_t i = 0, digits = 0, frac = 0;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		i++, r.form = STAT_DECIMAL_SIGN;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++, digits++;
	if (i < n && s[i] == '.') {
		i++;
		r.form |= STAT_DECIMAL_POINT;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++, frac++;
	}
	if (digits + frac == 0 || digits + frac > 15)
		return (struct reading){ 0, r.form, 0, 0 };
	char copy[64];
	memcpy(copy, s, i);
	copy[i] = '\0';
	r.len = i;
	r.decimals = frac;
	r.v = strtod(copy, NULL);
	return r;
}

/* s[0..n) read both ways agree; the bytes after n are there to be read. */
static bool agrees(const char *s, size_t n)
{
	struct reading want = expected(s, n);
	double v = -1;
	unsigned form = 99, form2 = 99;
	size_t decimals = 99;
	size_t len = stat_decimal_prefix(s, n, &v, &form, &decimals);
	size_t len2 = stat_decimal_length(s, n, &form2);
	if (len != want.len || len2 != want.len)
		return false;
	if (!len)
		return true;
	return form == want.form && form2 == want.form && decimals == want.decimals &&
	       memcmp(&v, &want.v, sizeof v) == 0;
}

static bool all_agree(const char *const *cases, size_t count)
{
	char buf[64];
	for (size_t i = 0; i < count; i++) {
		size_t n = strlen(cases[i]);
		memset(buf, ',', sizeof buf);
		memcpy(buf, cases[i], n);
		if (!agrees(buf, sizeof buf) || !agrees(buf, n))
			return false;
	}
	return true;
}

int main(void)
{
	static const char *const edges[] = {
		"0", "7", "7195", "1234567", "12345678", "123456789", "251.25", "100.00", "1.005", "0.000",
		"0.250694149", ".5", "5.", ".", "..", "-", "+", "-0.25", "+3", "-.", "1.2.3", "999999999999999",
		"9999999999999999", "0.00000000000001", "1234567.", ".1234567", "12345.67", "1e3", "abc", "",
		"00000001", "0000000.1", "  1", "1,2", "3.14,", "1234567890123.45",
	};
	ok(all_agree(edges, sizeof edges / sizeof *edges), "edge cases read as digit by digit");

	const char alphabet[] = "0123456789..-+,x ";
	char buf[64], *line = buf;
	bool random_agree = true;
	srand(7);
	for (int round = 0; round < 200000 && random_agree; round++) {
		size_t n = (size_t)(rand() % 24);
		memset(buf, ',', sizeof buf);
		for (size_t i = 0; i < n; i++)
			line[i] = alphabet[rand() % (int)(sizeof alphabet - 1)];
		/* digits mostly, as in real rows */
		if (rand() % 2)
			for (size_t i = 0; i < n; i++)
				if (line[i] == 'x' || line[i] == ' ' || line[i] == '+')
					line[i] = (char)('0' + rand() % 10);
		random_agree = agrees(line, sizeof buf) && agrees(line, n);
	}
	ok(random_agree, "200,000 random strings read as digit by digit");
	return tap_done();
}
