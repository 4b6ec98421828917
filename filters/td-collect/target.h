/* What td-collect measures: the processes whose name matches --process
 * (as pgrep -x: the comm, or argv[0] or its base name), the PIDs of --pid
 * (checked to exist), the whole system, or a command it starts. Reads
 * /proc of the running machine; td-collect itself is never a match. */
#ifndef TD_COLLECT_TARGET_H
#define TD_COLLECT_TARGET_H

#include <stdbool.h>
#include <stddef.h>

/* The PIDs matching name, comma-separated, in out; their count. */
int target_find_process(const char *name, char *out, size_t cap);

/* A --pid list "1,2,3": each a number; the ones alive kept in out (their
 * count); why names the first bad one (then -1). */
int target_check_pids(const char *list, char *out, size_t cap, char *why, size_t whylen);

/* The command can start: a path that is an executable file, or a name on
 * $PATH (unset: /usr/bin:/bin); else false after one line naming it. */
bool target_command_runs(const char *c);

#endif
