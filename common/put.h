/* Appending text to a fixed buffer without printf, for lines printed per
 * sample: "%*s", "%-*s", "%*llu", "%0*llu", "%*d" and "%llx" by hand.
 * Output that does not fit is cut at the buffer's end (cap - 1 bytes),
 * like snprintf; the buffer is always NUL-terminated. */
#ifndef TD_PUT_H
#define TD_PUT_H

#include <stdint.h>
#include <string.h>

struct td_put {
	char *p;
	size_t n, cap;               /* cap >= 1 */
};

static inline void td_put_mem(struct td_put *b, const char *s, size_t len)
{
	size_t room = b->cap - 1 - b->n;
	if (len > room)
		len = room;
	memcpy(b->p + b->n, s, len);
	b->n += len;
	b->p[b->n] = '\0';
}

static inline void td_put_pad(struct td_put *b, size_t len, int width)
{
	static const char blanks[] = "                                ";
	while (width > 0 && (size_t)width > len) {
		size_t k = (size_t)width - len < sizeof blanks - 1 ? (size_t)width - len : sizeof blanks - 1;
		td_put_mem(b, blanks, k);
		width -= (int)k;
	}
}

/* "%*s" (width > 0: right-aligned) */
static inline void td_put_str(struct td_put *b, const char *s, int width)
{
	size_t len = strlen(s);
	td_put_pad(b, len, width);
	td_put_mem(b, s, len);
}

/* "%*llu", or "%0*llu" with zero_pad */
static inline void td_put_u64(struct td_put *b, uint64_t v, int width, int zero_pad)
{
	char d[24];
	size_t i = sizeof d;
	do
		d[--i] = (char)('0' + v % 10);
	while (v /= 10);
	while (zero_pad && width > 0 && sizeof d - i < (size_t)width && i > 0)
		d[--i] = '0';
	td_put_pad(b, sizeof d - i, width);
	td_put_mem(b, d + i, sizeof d - i);
}

/* "%*d" */
static inline void td_put_i64(struct td_put *b, int64_t v, int width)
{
	if (v >= 0) {
		td_put_u64(b, (uint64_t)v, width, 0);
		return;
	}
	char d[24];
	size_t i = sizeof d;
	uint64_t u = (uint64_t)0 - (uint64_t)v;
	do
		d[--i] = (char)('0' + u % 10);
	while (u /= 10);
	d[--i] = '-';
	td_put_pad(b, sizeof d - i, width);
	td_put_mem(b, d + i, sizeof d - i);
}

/* "%*llx" */
static inline void td_put_hex(struct td_put *b, uint64_t v, int width)
{
	char d[16];
	size_t i = sizeof d;
	do
		d[--i] = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	td_put_pad(b, sizeof d - i, width);
	td_put_mem(b, d + i, sizeof d - i);
}

#endif
