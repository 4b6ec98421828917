/* What the derive engine's files share (derive_engine.c, derive_check.c);
 * not an interface: callers use derive.h. */
#ifndef TD_DERIVE_INTERNAL_H
#define TD_DERIVE_INTERNAL_H

#include "analysis/derive.h"
#include <stdint.h>
#include "analysis/stat_model.h"
#include "parsers/stat_pipe.h"

#define DERIVE_UNIT_CACHE 512
#define DERIVE_CAPTURE_TREES 16

/* What a perf unit names: units are interned by the model, so the pointer
 * is the key. */
struct derive_unit {
	const char *unit;
	const char *tma_node;      /* tma_node_for_perf_unit */
	bool uncorrected;
	const char *metric;        /* metrics_for_perf_unit */
	double factor;
	bool wall_share;           /* metric is cpus_utilized */
	bool event_rate;           /* metric is METRICS_EVENT_RATE */
};

struct derive_engine {
	struct derive_config cfg;
	struct derive_callbacks cb;
	struct stat_model m;
	struct stat_pipe *pipe;
	struct derive_unit units[DERIVE_UNIT_CACHE];
	struct derive_unit spill;  /* units past the cache: looked up every time */
	/* whether the open perf-metric list holds any Top-down metric: found
	 * once per list (it changes only when a record is added) */
	struct {
		const struct perf_metric *pm;
		int npm;
		unsigned long records;
		bool any;
	} printed_known;
	/* the metrics of the open interval's sets, computed once per interval
	 * for the rows and for the check against perf */
	struct {
		unsigned long interval;
		const struct counter_set *cur;
		int cap;
		int *n;                    /* per set of cur; -1 not yet */
		struct metric_value (*mv)[METRICS_MAX];
	} metrics;
	/* the whole-run sets' trees, found once the input is read; a next step
	 * never asks for what one of them holds */
	struct tma_tree *capture_tree;     /* one per whole-run set, at most DERIVE_CAPTURE_TREES */
	const char *capture_tree_pmu[DERIVE_CAPTURE_TREES];
	int ncapture_trees;
	/* the per-set results handed to the callback */
	struct tma_tree *tree;
	struct derive_node nodes[TMA_MAX_NODES];
	char node_next[TMA_MAX_NODES][400];
	struct derive_value values[METRICS_MAX];
	struct derive_value wall_share;
	char scope[320];
	/* the check against perf */
	struct {
		int printed, checked, agree;
		int n, cap;
		struct derive_not_recomputable *not;
	} account;
	double pow10_neg[32];
	/* the capture's CPU and perf's metric definitions for it (derive_config):
	 * perf_fixed from --metrics/--cpuid, else one table per cpuid a
	 * td-collect header named (loaded once, kept to the end: metric names
	 * point into them); cpuid and perf are the ones in use */
	struct perf_metric_table *perf_fixed;
	struct {
		char cpuid[64];
		struct perf_metric_table *table;   /* NULL: perf has none for it */
	} perf_header[4];
	int nperf_header;
	const char *cpuid;
	const struct perf_metric_table *perf;
};

/* Sets e->cpuid and e->perf (and the model's table) for the sets that come
 * next: a td-collect header is read before the counters it describes.
 * Called before a batch of sets is delivered (an interval's, the whole
 * run's); work is done only when the headers read changed since. */
void derive_capture_cpu(struct derive_engine *e);

const struct derive_unit *derive_unit_slow(struct derive_engine *e, const char *unit);
static inline const struct derive_unit *derive_unit(struct derive_engine *e, const char *unit)
{
	const struct derive_unit *u = &e->units[((uintptr_t)unit >> 3) % DERIVE_UNIT_CACHE];
	return u->unit == unit ? u : derive_unit_slow(e, unit);
}
bool derive_build_tree(struct derive_engine *e, const struct counter_set *s, const char *cpu, struct tma_tree *t);
int derive_metrics_of_slow(struct derive_engine *e, const struct counter_set *s, struct metric_value *mv,
			   const struct metric_value **out);
/* The metrics of s: in *out, which is mv for a set not of the open interval
 * (a set of it: computed once per interval). */
static inline int derive_metrics_of(struct derive_engine *e, const struct counter_set *s, struct metric_value *mv,
				    const struct metric_value **out)
{
	const struct stat_model *m = &e->m;
	size_t i = (size_t)((uintptr_t)s - (uintptr_t)m->cur) / sizeof(*m->cur);   /* huge below cur */
	if (e->metrics.cur == m->cur && e->metrics.interval == m->intervals && i < (size_t)m->ncur &&
	    s == &m->cur[i] && e->metrics.n[i] >= 0) {
		*out = e->metrics.mv[i];
		return e->metrics.n[i];
	}
	return derive_metrics_of_slow(e, s, mv, out);
}
/* Every metric perf printed in pm, checked (derive_check.c). */
void derive_check_perf(struct derive_engine *e, const struct perf_metric *pm, int npm);

#endif
