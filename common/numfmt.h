/* Number formatting for reports: "%.*f" in the C locale, fast.
 *
 * Reports print hundreds of thousands of fixed-precision numbers; printf
 * costs more than parsing the input did. Values whose scaled form fits in
 * an integer are printed by hand; exact ties and anything large go through
 * snprintf, so the bytes are always printf's. No "-0.00". */
#ifndef TD_NUMFMT_H
#define TD_NUMFMT_H

#include <stddef.h>

/* Writes v with prec (0..9) digits after the point into buf (>= 48 bytes)
 * and returns the length. v must be finite. */
size_t td_format_fixed(char *buf, double v, int prec);

#endif
