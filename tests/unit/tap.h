/* TAP for the unit tests: ok() numbers each check as it runs; tap_done()
 * prints the plan after them and is main's exit status. */
#ifndef TD_TEST_TAP_H
#define TD_TEST_TAP_H

#include <stdio.h>

static int tap_count, tap_failed;

static inline void ok(int cond, const char *what)
{
	tap_count++;
	tap_failed += !cond;
	printf("%sok %d - %s\n", cond ? "" : "not ", tap_count, what);
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed != 0;
}

#endif
