/* common/swar.h against byte loops: every byte value at every position of
 * a word, next to every other value, so no carry between bytes can give a
 * wrong mark. */
#include <stdint.h>
#include <string.h>
#include "common/swar.h"
#include "tests/unit/tap.h"

/* The mark a byte loop gives: the high bit of each byte where test holds. */
static uint64_t marks(const unsigned char *b, int (*test)(unsigned char, unsigned char), unsigned char c)
{
	uint64_t m = 0;
	for (int i = 0; i < 8; i++)
		if (test(b[i], c))
			m |= 0x80ull << (8 * i);
	return m;
}

static int equal(unsigned char x, unsigned char c) { return x == c; }
static int nondigit(unsigned char x, unsigned char c) { (void)c; return x < '0' || x > '9'; }

int main(void)
{
#if TD_SWAR
	int bad_equal = 0, bad_digit = 0, bad_first = 0, bad_value = 0;
	for (unsigned a = 0; a < 256; a++)
		for (unsigned n = 0; n < 256; n += 5)
			for (int at = 0; at < 8; at++) {
				unsigned char b[8];
				memset(b, (int)n, 8);
				b[at] = (unsigned char)a;
				uint64_t w = td_swar_load((const char *)b);
				for (unsigned c = 0; c < 256; c += 17)
					bad_equal += td_swar_equal(w, (unsigned char)c) != marks(b, equal, (unsigned char)c);
				bad_equal += td_swar_equal(w, (unsigned char)a) != marks(b, equal, (unsigned char)a);
				uint64_t nd = td_swar_nondigits(w);
				bad_digit += nd != marks(b, nondigit, 0);
				if (nd) {
					unsigned first = 0;
					while (b[first] >= '0' && b[first] <= '9')
						first++;
					bad_first += td_swar_first(nd) != first;
				}
			}
	ok(bad_equal == 0, "td_swar_equal marks exactly the bytes equal to c");
	ok(bad_digit == 0, "td_swar_nondigits marks exactly the bytes that are no digit");
	ok(bad_first == 0, "td_swar_first gives the first marked byte");
	const char *digits = "9876543210";
	for (unsigned k = 1; k <= 8; k++) {
		uint64_t v = 0;
		for (unsigned i = 0; i < k; i++)
			v = v * 10 + (uint64_t)(digits[i] - '0');
		bad_value += td_swar_digits(td_swar_load(digits), k) != v;
	}
	ok(bad_value == 0, "td_swar_digits gives the value of the first k digits, k = 1..8");
#else
	ok(1, "# skip not a little-endian machine: the byte loops answer");
#endif
	return tap_done();
}
