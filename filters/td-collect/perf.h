/* The perf td-collect drives: where it is ($TD_PERF, else "perf" on PATH),
 * its version, the metric groups it knows for a CPU id, and running it.
 * Each question is one perf process (perf list takes about 0.1 s). */
#ifndef TD_COLLECT_PERF_H
#define TD_COLLECT_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* "perf", or $TD_PERF. */
const char *perf_path(void);

/* "6.1.192" into buf; false (why set: not found, not runnable) when perf
 * does not answer. */
bool perf_version(char *buf, size_t cap, char *why, size_t whylen);

/* The metric groups perf knows for cpuid (PERF_CPUID; NULL: this CPU),
 * space-separated, in out (malloc'd; "" when none). */
char *perf_metric_groups(const char *cpuid);
/* Whether a space-separated list holds the word. */
bool perf_list_has(const char *list, const char *word);

/* Runs argv (argv[0] looked up on PATH) with stdout on out_fd, stderr
 * into err (the last bytes, NUL-terminated; also to our stderr as it comes
 * when echo: a measured command's own messages) and log_fd as fd 3; waits.
 * Returns the exit status (128 + signal when killed), -1 when it could not
 * start (why in err). */
int perf_run(char *const argv[], int out_fd, int log_fd, bool echo, char *err, size_t errcap);

/* The child perf_run is waiting for (0: none): a signal handler may
 * forward a stop to it. */
extern volatile pid_t perf_running;

#endif
