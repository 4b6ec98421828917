/* Top-down microarchitecture analysis: where the pipeline slots of one
 * counter set went, as a tree, for every vendor and as deep as the events
 * allow. Formulas live in one table per model (tma_intel.c, tma_amd.c,
 * tma_arm.c); this file's engine picks the model from the event names,
 * evaluates it, checks the result and marks the bottleneck path. */
#ifndef TD_TMA_H
#define TD_TMA_H

#include <stdbool.h>
#include <stddef.h>
#include "analysis/metrics.h"

#define TMA_MAX_NODES 160         /* toplev -l6 -v prints over a hundred nodes */

/* One node as a model defines it. */
struct tma_def {
	const char *name;          /* tdkit's vocabulary: "memory_bound" */
	const char *vendor_name;   /* the source's name: "tma_memory_bound", "backend_bound_memory" */
	const char *parent;        /* NULL at Level 1 */
	double threshold;          /* high above this fraction (and parent high); NaN: none */
	const char *domain;        /* "slots" or "cycles" (share of the parent's stall cycles) */
};

struct tma_ctx;
typedef void (*tma_compute_fn)(const struct tma_ctx *c, double *values);

struct tma_model {
	const char *id;            /* "intel-perf-metrics", "amd-zen4", ... (--cpu accepts these) */
	const char *description;
	const char *const *required;   /* events that select this model (all present) */
	int width;                 /* slots per cycle (0: not used by the formulas) */
	const struct tma_def *defs;
	int ndefs;
	tma_compute_fn compute;    /* values in defs order, fractions; NaN: n/a */
};

/* Which absent events a formula asked for, and which absent events to
 * pretend were counted: the engine runs a model's formulas again with
 * events pretended present to learn which ones a node needs. */
#define TMA_MAX_PROBED 24
struct tma_probe {
	const char *absent[TMA_MAX_PROBED];   /* asked for and absent (literals of the models) */
	int nabsent;
	const char *const *pretend;           /* absent events read as counted (value 1) */
	int npretend;
	const struct counter *hide;           /* a counted event read as absent, or NULL */
};

/* What a formula reads. */
struct tma_ctx {
	const struct counter_set *set;
	int width;
	struct tma_probe *probe;   /* NULL: plain evaluation */
};
/* NaN if absent. A "cpu/EV,terms/" name also matches "EV,terms" and
 * "PMU/EV,terms/" as perf prints them on other cores and versions. */
double tma_ev(const struct tma_ctx *c, const char *event);
double tma_ev_near(const struct tma_ctx *c, const char *event, const char *near);
bool tma_has(const struct tma_ctx *c, const char *event);
/* Counted in the set, whatever the probe pretends: for telling a CPU
 * generation's formulas apart, never for a value. */
bool tma_counted(const struct tma_ctx *c, const char *event);

struct tma_node {
	const struct tma_def *def;
	int level;
	double value;              /* fraction; NaN: not available */
	bool high;                 /* over its threshold, and its parent too */
	bool on_path;              /* the bottleneck path: the largest child at each level */
	const char *source;        /* NULL: computed here from the counts; "perf" (or "toplev"):
				      the value that tool printed, not recomputed */
	const char *mismeasured;   /* why the value cannot be right, or NULL */
	char needs[256];            /* value NaN: the events the formula lacks ("arith.div_active") */
};

struct tma_tree {
	const struct tma_model *model;
	int width;
	struct tma_node node[TMA_MAX_NODES];
	int n;
	char warning[256];         /* Level 1 does not sum, ... ("" if none) */
};

/* A metric perf printed for the same set (unit as printed, value in %). */
struct tma_printed {
	const char *unit;
	double value;
	unsigned group;            /* the printed group it came with (stat_model.h); 0: not known */
	bool toplev;               /* toplev printed it: unit is "% Slots Backend_Bound.Memory_Bound" */
};

struct perf_metric_table;
struct tma_options {
	const char *cpu;           /* model id or width override ("amd-zen5", "arm-v2"); NULL: detect */
	const char *cpuid;         /* the capture's CPU (td-collect's header, --cpuid): selects the
				      model when cpu is NULL (tma_model_for_cpuid); NULL: not known */
	const struct perf_metric_table *perf;   /* perf's definitions for that CPU: the nodes they
						   give are added (tma_perf_metrics_add); NULL: none */
};

/* Builds the tree of one set: from raw events when a model's events are
 * present, else from the TMA metrics perf printed. False when neither.
 * Nodes perf printed that the formulas do not give (Level 3 and deeper,
 * E-core nodes ...) are added with source "perf" under their parent.
 * A node of the model whose inputs are partly missing is kept with value
 * NaN and needs set, when its parent has a value and a node as deep was
 * computed: never a smaller number from the terms that were there. */
bool tma_build(const struct counter_set *s, const struct tma_printed *printed, int nprinted,
	       const struct tma_options *o, struct tma_tree *t);

/* The node perf's metric unit names ("%  tma_backend_bound", "Backend
 * Bound", "backend_bound_memory", "%  tma_ports_utilized_0"), or NULL
 * (tma_info_* are not nodes). *uncorrected is set for the perf 5.9-6.2
 * shadow names, computed without the JSON corrections. */
const char *tma_node_for_perf_unit(const char *unit, bool *uncorrected);

/* Checks a tree whose nodes are filled (values, levels) and marks its
 * high nodes and bottleneck path. */
void tma_tree_finish(struct tma_tree *t);

/* The tree of the node values toplev printed (tma_toplev.c): each node
 * where toplev's dotted name puts it, named in tdkit's vocabulary. */
bool tma_toplev_build(const struct tma_printed *p, int n, struct tma_tree *t);
/* tdkit's name of a toplev node ("Backend_Bound.Memory_Bound.DRAM_Bound",
 * "DRAM_Bound" -> "dram_bound") in buf; NULL when it names no node. */
const char *tma_toplev_node(const char *name, char *buf, size_t cap);

/* The definition of a node by tdkit name: the model's, else the common
 * vocabulary's (Intel's deeper nodes, E-core nodes), else one made for a
 * tma_* name perf printed (no parent known). Never NULL for a name
 * tma_node_for_perf_unit returned. */
const struct tma_def *tma_def_of(const struct tma_model *m, const char *name);

/* The index of a node by tdkit name, -1 if absent. */
int tma_node_index(const struct tma_tree *t, const char *name);
/* Node k of t (k < 0: a new one after the others) made def's, at level,
 * with value (NaN: not computable) and source (tma_node's), the rest
 * cleared; NULL when k < 0 and t is full. */
struct tma_node *tma_place_node(struct tma_tree *t, int k, const struct tma_def *def, int level, double value,
				const char *source);

/* The nearest ancestor present in the tree (a parent may be n/a). */
const char *tma_shown_parent(const struct tma_tree *t, const struct tma_node *n);

/* A node by tdkit name, NULL if absent. */
const struct tma_node *tma_find(const struct tma_tree *t, const char *name);

/* Value of a node by tdkit name, NaN if absent. */
double tma_value(const struct tma_tree *t, const char *name);

/* The seeds' word for a node: "good", "high", "mismeasured", "n/a" or "". */
const char *tma_assessment(const struct tma_node *n);
/* The vocabulary (tma_vocabulary.c): the model of trees built from the
 * values perf printed; the definition of a deeper node perf printed by
 * tdkit name, made for an unknown name (kept for the life of the
 * program, NULL once 64 are made); where a node comes among its siblings. */
extern const struct tma_model tma_perf_printed;
const struct tma_def *tma_deeper_def(const char *name);
/* The definition of a node perf's metric groups place under parent (tdkit
 * names; parent already defined): the vocabulary's when it has one, else
 * one made (as tma_deeper_def) with that parent and domain ("slots" or
 * "cycles", a literal). */
const struct tma_def *tma_define_node(const char *name, const char *parent, const char *domain);
/* The nodes perf's metric table (perf_metric_table.h) computes
 * from s, into t (tma_perf.c): added where t lacks them, perf's printed
 * values replaced where t has only those; the model's own values kept.
 * A printed node is computed from its own group's copies. */
void tma_perf_metrics_add(struct tma_tree *t, const struct perf_metric_table *table, const struct counter_set *s,
			  const struct tma_printed *p, int np);
int tma_vocabulary_rank(const struct tma_def *d);

/* The models, for --cpu and the man page. */
const struct tma_model *const *tma_models(void);

/* The deepest Top-down level a tree holds (TMA defines six). */
#define TMA_DEEPEST_LEVEL 6

/* --cpu MODEL[:WIDTH] checked before any input is read: NULL when it names
 * a model (and a width of 1 to 16 slots), else what is wrong with it. */
const char *tma_cpu_option_error(const char *cpu);
/* When the --cpu model cannot be computed from s (its selecting events are
 * not there): the model detection would pick instead (NULL: none) and true;
 * false when it fits or s has no Top-down event. */
bool tma_cpu_misfit(const char *cpu, const struct counter_set *s, const struct tma_model **detected);
/* The model the capture's CPU id (analysis/cpuid.h) names for the set of
 * a PMU ("cpu_atom": a hybrid's E-cores), when its events are there; its
 * width in *width. NULL: the id names none, or its events are missing. */
const struct tma_model *tma_model_for_cpuid(const char *cpuid, const char *pmu, const struct tma_ctx *c, int *width);
/* An Arm tree's node as Arm's formula gives it (tma_arm.c): the share of
 * the stall cycles its denominator counts, before tdkit scales it into the
 * slot tree; what perf prints for it. The value itself for a node that is
 * not scaled. */
double tma_arm_unscaled(const struct tma_tree *t, const struct tma_node *n);
/* "Intel", "AMD", "Arm" from a model's id. */
const char *tma_model_vendor(const struct tma_model *m);

/* Per vendor (tma_intel.c, tma_amd.c, tma_arm.c). */
extern const struct tma_model tma_intel_perf_metrics, tma_intel_perf_metrics_raw, tma_intel_pre_icl,
	tma_intel_old_topdown, tma_intel_atom, tma_intel_atom_p, tma_amd_zen4, tma_amd_zen5, tma_arm_n2, tma_arm_v2,
	tma_arm_n3, tma_arm_v3;

#endif
