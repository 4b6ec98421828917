/* td-collect's command line: the options as given, and the checks the
 * option table cannot make (one target, ranges, times, what a unit may
 * hold), turning them into the job collect.h runs. A check that fails
 * gives the message td-collect's usage error prints; nothing here exits
 * but a bad --label, which is refused as it is parsed. */
#ifndef TD_COLLECT_OPTIONS_H
#define TD_COLLECT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include "filters/td-collect/collect.h"

#define COLLECT_MAX_LABELS 64

struct collect_options {
	long level, passes, count;
	const char *duration, *interval, *store, *process, *pid, *every, *sysroot, *peaks;
	bool dry_run, all, unit, install_unit, no_git, measure_peaks, print_peaks;
	const char *labels[COLLECT_MAX_LABELS];   /* "k=v", checked as the store checks them */
	int nlabels;
};

/* --label's callback (data: the struct collect_options): a label the
 * store would refuse, or one too many, is an error (exit 2). */
int collect_add_label(const char *arg, void *data);

/* --store takes its DB only when one follows: "--store" before another
 * option, "--" or the end is the default store. Rewritten as --store=,
 * before the options are parsed. */
void collect_optional_store_arg(int argc, char **argv);

/* The job the options ask for, with the command cmd[0..ncmd) (ncmd 0: a
 * process, PIDs or the system), and the agent's period in *every_s (0:
 * one run). The machine, plan and perf version are left for the caller.
 * NULL, or the message of the first check that failed (valid until the
 * next call). */
const char *collect_options_job(const struct collect_options *o, char *const *cmd, int ncmd, struct collect_job *j,
				double *every_s);

#endif
