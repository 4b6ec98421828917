/* The next measurement for the machine a capture came from, and one
 * diagnosis per run.
 *
 * Design: metrics.c and tma_explain.c name generic steps; this module
 * knows which vendor and CPU the events point to and what the capture
 * already holds, and gives the step that fits: only that vendor's command,
 * only metric groups perf defines for that CPU (no PipelineL1 before Zen 4,
 * no Topdown_Backend on Neoverse V1/N2/V2), only features it has (SPE,
 * not perf record -b, on Arm before BRBE), and never a collection of what
 * is in the capture. The diagnosis follows WORKFLOWS.md section 1: the
 * Top-down bottleneck path where there is a tree, else the decision tree
 * over CPI and the miss rates. Cost: a scan of the set's names per call. */
#ifndef TD_NEXT_STEP_H
#define TD_NEXT_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include "analysis/metrics.h"
#include "analysis/tma.h"
#include "analysis/tma_explain.h"

struct machine {
	enum tma_vendor vendor;    /* TMA_NVENDORS: the events do not tell */
	const char *model;         /* the Top-down model id ("arm-n2", "amd-zen4"), or NULL */
};

/* What the events of s (and the model of its tree t, may be NULL) tell;
 * the capture's cpuid (td-collect's header, --cpuid; may be NULL) says the
 * vendor when they do not. */
void machine_of(const struct counter_set *s, const struct tma_tree *t, const char *cpuid, struct machine *m);

/* The vendor an event name ("cpu_core/cycles", "ex_ret_ops") belongs to;
 * TMA_NVENDORS for a generic or unknown name. */
enum tma_vendor next_step_vendor_of_event(const char *name);

/* The Top-down Level 1 collection for m (every vendor's when unknown). */
const char *next_step_topdown(const struct machine *m);

/* A metric's next step for m, "" when Top-down is asked for and the
 * capture holds a tree (topdown_held). The result is a literal. */
const char *next_step_metric(const struct metric_value *v, const struct machine *m, bool topdown_held);

/* The next step of a node of t for the tree's machine, without a metric
 * group collection whose nodes t, or another tree of the capture
 * (others, may include t), already holds: TopdownL2 when Level 2 is
 * there, tma_X_group when X's children are. Written to buf ("" when
 * nothing is left). */
const char *next_step_node(const struct tma_tree *t, const struct tma_tree *const *others, int nothers, const char *node,
			   const struct machine *m, char *buf, size_t cap);

struct diagnosis {
	char finding[320];         /* "memory bound: CPI 1.62 with LLC miss rate 12.0%" */
	char next[400];            /* the next measurement, "" if none */
	char complete[200];        /* "add branches to get the branch miss rate", "" if nothing */
	const char *causes, *change;   /* from the Top-down leaf's explanation, or NULL */
};

/* One diagnosis for one run's set: its metrics mv[0..n), its tree (NULL
 * if none), the capture's other trees, its machine. */
void diagnose(const struct counter_set *s, const struct metric_value *mv, int n, const struct tma_tree *t,
	      const struct tma_tree *const *others, int nothers, const struct machine *m, struct diagnosis *d);

#endif
