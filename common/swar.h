/* SWAR: eight bytes of a string handled at once in a 64-bit word, for
 * the readers' hot loops. Little-endian only (byte 0 of the string is the
 * word's low byte): TD_SWAR is 0 elsewhere, and callers keep a byte loop
 * that gives the same answer.
 *
 * Every test here is exact for every byte value (no false positive from a
 * carry between bytes), so a caller can act on a hit without checking it. */
#ifndef TD_SWAR_H
#define TD_SWAR_H

#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TD_SWAR 1
#else
#define TD_SWAR 0
#endif

#define TD_SWAR_ONES 0x0101010101010101u
#define TD_SWAR_HIGH 0x8080808080808080u
#define TD_SWAR_LOW7 0x7f7f7f7f7f7f7f7fu

/* The eight bytes at p (any alignment). */
static inline uint64_t td_swar_load(const char *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
	return w;
}

/* The high bit of each byte of w equal to c, and no other bit. */
static inline uint64_t td_swar_equal(uint64_t w, unsigned char c)
{
	uint64_t x = w ^ (TD_SWAR_ONES * c);          /* the bytes equal to c: 0 */
	return ~(((x & TD_SWAR_LOW7) + TD_SWAR_LOW7) | x | TD_SWAR_LOW7);
}

/* The high bit of each byte of w that is not an ASCII digit. */
static inline uint64_t td_swar_nondigits(uint64_t w)
{
	uint64_t t = w ^ 0x3030303030303030u;     /* digits: their values; other bytes: 10 or more */
	return (((t & TD_SWAR_LOW7) + 0x7676767676767676u) | t) & TD_SWAR_HIGH;
}

/* The value of the first k (1-8) bytes of w, all digits: three multiplications. */
static inline uint64_t td_swar_digits(uint64_t w, unsigned k)
{
	uint64_t v = (w ^ 0x3030303030303030u) << (8 * (8 - k));   /* the k digits, zeros before them */
	v = (v * 10 + (v >> 8)) & 0x00ff00ff00ff00ffu;
	v = (v * 100 + (v >> 16)) & 0x0000ffff0000ffffu;
	return (v * 10000 + (v >> 32)) & 0xffffffffu;
}

/* The index of the first byte marked in mask (not 0), from the functions above. */
static inline unsigned td_swar_first(uint64_t mask) { return (unsigned)__builtin_ctzll(mask) >> 3; }

#endif
