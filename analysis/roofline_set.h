/* The roofline point of a stat model's whole-run set, for the derive
 * engine and td-diff's comparison: roofline.h's counting over the sets of
 * a run (stat_model.h), so that roofline stays a leaf over counter sets and
 * the model can hold its peaks without an include circle. No state: one
 * pass over the model's summary sets a call. */
#ifndef TD_ROOFLINE_SET_H
#define TD_ROOFLINE_SET_H

#include <stdbool.h>
#include "analysis/roofline.h"
#include "analysis/stat_model.h"

/* The roofline of a whole-run set s of model m (stat_model.h): its FLOPs,
 * the DRAM bytes its run counted in any set of its scope (uncore counters
 * are sets of their own; s of scope "", sets merged per PMU: any scope),
 * over the wall time: elapsed_s among the set's metrics mv[0..n) (as
 * stat_model_metrics gives them), else duration_time, else the run's
 * footer; with
 * peaks k (or NULL) where it sits under the roofs. False when s has no FP
 * event, its run no memory traffic, or there is no wall time. */
struct roofline_values {
	double gflops, gbs, ai;      /* GFLOP/s, GB/s, FLOP/B */
	bool proxy;                  /* gbs from last-level misses (roofline_point) */
	double confidence;           /* lowest enabled % of the sets used */
	bool has_roof;               /* k given: */
	double roof;                 /* attainable GFLOP/s at ai */
	double share;                /* gflops in % of roof */
	bool memory_bound;
};
bool roofline_of_set(const struct stat_model *m, const struct counter_set *s, const struct metric_value *mv, int n,
		     const struct roofline_peaks *k, struct roofline_values *out);

#endif
