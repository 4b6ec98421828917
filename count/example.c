/* The README's libtdcount example: count a block of code, print perf stat
 * -x, lines on stderr for td-derive. Build: cc example.c -ltdcount -lpfm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "tdcount.h"

/* The measured block: touch 4096 fresh pages (4096 page faults at least),
 * sleep three times (3 context switches at least), then compute. */
static double work(void)
{
	size_t len = 4096 * 4096;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	madvise(p, len, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;
	for (int i = 0; i < 3; i++)
		usleep(1000);
	double s = 0;
	for (int i = 1; i < 2000000; i++)
		s += 1.0 / i;
	munmap(p, len);
	return s;
}

int main(int argc, char **argv)
{
	const char *events = argc > 1 ? argv[1] : "task-clock,page-faults,context-switches,cycles,instructions";
	char err[256];
	tdcount *t = tdcount_open(events, err, sizeof err);
	if (!t) {
		fprintf(stderr, "tdcount: %s\n", err);
		return 2;
	}
	tdcount_start(t);
	double s = work();
	tdcount_stop(t);
	printf("result %.3f\n", s);
	tdcount_write(t, stderr);
	tdcount_close(t);
	return 0;
}
