/* UTF-8 decoding for text that is shown or hashed by character. */
#ifndef TD_UTF8_H
#define TD_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Decodes the character at s (n > 0 bytes left): returns its length and
 * sets *cp. A byte that does not start a well-formed sequence (overlong,
 * surrogate, beyond U+10FFFF, truncated) is one character of its own with
 * *cp = 0xFFFD, so every byte string splits into characters. */
size_t td_utf8_next(const char *s, size_t n, uint32_t *cp);

/* The number of characters in s, as td_utf8_next splits them. */
size_t td_utf8_count(const char *s, size_t n);

/* Writes cp as UTF-8 into out (4 bytes room); returns the length. */
size_t td_utf8_put(uint32_t cp, char *out);

#endif
