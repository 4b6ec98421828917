/* The "# tdkit-collect: KEY=VALUE" lines td-collect writes before perf's
 * output (read back by parsers/collect_header.h), then perf's own
 * "# started on" line that starts a run for every reader. One fact per
 * line, in a fixed order, so two runs on one machine differ only where
 * the facts do. */
#ifndef TD_COLLECT_HEADER_WRITE_H
#define TD_COLLECT_HEADER_WRITE_H

#include <stdio.h>
#include <time.h>
#include "filters/td-collect/detect.h"
#include "filters/td-collect/plan.h"
#include "analysis/roofline.h"

struct header_facts {
	const struct machine_facts *m;
	const struct plan *plan;
	const char *perf_version;
	int level;
	const char *target;        /* "comm:redis-server pid:12,14", "pid:12", "system-wide", "command:make -j8" */
	const char *git_branch, *git_commit;   /* NULL: not in a work tree, or --no-git-labels */
	const char *const *labels; /* "k=v" */
	int nlabels;
	time_t start;
	const struct roofline_peaks *peaks;   /* peak_gflops=, peak_gbs=, peak_gbs_LEVEL=; NULL: none */
	const char *peaks_source, *peaks_method;   /* peaks_source=, peaks_method= (NULL: not written) */
};

void header_write(FILE *f, const struct header_facts *h);

#endif
