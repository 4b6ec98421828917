/* common/grow.h: arrays keep their elements as they grow, and a size that
 * does not fit is fatal (exit 2) instead of a short buffer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common/diag.h"
#include "common/grow.h"
#include "tests/unit/tap.h"

/* f() in a child: its exit status (2 after td_die). */
static int status_of(void (*f)(void))
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stderr))
			_exit(3);
		f();
		_exit(0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void huge_bytes(void) { (void)td_alloc_nr(16, SIZE_MAX / 4, 8); }
static void huge_cap(void) { (void)td_alloc_nr(SIZE_MAX / 2 + 1, 1, 1); }
/* static: td_die exits with the array allocated, and LeakSanitizer would
 * turn that exit into its own status; memory a static points to is not a
 * leak */
static char *narrow_p;

static void narrow_cap(void)
{
	unsigned char cap = 200;
	volatile size_t need = 300;
	TD_ALLOC_GROW(narrow_p, need, cap);      /* 400 elements do not fit an unsigned char */
	free(narrow_p);
}

int main(void)
{
	td_progname = "test_grow";
	int *a = NULL, n = 0, cap = 0, bad = 0, grows = 0;
	for (int i = 0; i < 100000; i++) {
		int before = cap;
		TD_ALLOC_GROW(a, n + 1, cap);
		grows += cap != before;
		a[n++] = i;
	}
	for (int i = 0; i < n; i++)
		bad += a[i] != i;
	free(a);
	ok(bad == 0 && cap >= n, "100,000 appends keep every element");
	ok(grows <= 14, "room doubles: 14 reallocations at most for 100,000 elements");
	ok(td_alloc_nr(0, 1, 4) == 16 && td_alloc_nr(16, 17, 4) == 32 && td_alloc_nr(16, 100, 4) == 100,
	   "16 at first, then double, or what is needed when more");
	ok(status_of(huge_bytes) == 2, "elements whose bytes overflow size_t: fatal, exit 2");
	ok(status_of(huge_cap) == 2, "a capacity that cannot double: fatal, exit 2");
	ok(status_of(narrow_cap) == 2, "a capacity that does not fit its variable's type: fatal, exit 2");
	return tap_done();
}
