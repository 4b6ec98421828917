/* The vocabulary of Top-down nodes beyond one model's table: the nodes
 * trees built from perf's printed values hold (every vendor's Level 1-3),
 * Intel's deeper hierarchy perf prints as tma_* (P-cores and E-cores), and
 * one definition made per unknown tma_* name. Lookups are linear: the
 * tables are small and a tree is built once per set. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "common/bytes.h"
#include "tma.h"

/* The vocabulary of trees built from perf's values: Intel's nodes plus
 * the AMD and Arm ones. */
static const struct tma_def printed_defs[] = {
	{ "retiring", "retiring", NULL, NAN, "slots" },
	{ "frontend_bound", "frontend_bound", NULL, NAN, "slots" },
	{ "backend_bound", "backend_bound", NULL, NAN, "slots" },
	{ "bad_speculation", "bad_speculation", NULL, NAN, "slots" },
	{ "smt_contention", "smt_contention", NULL, NAN, "slots" },
	{ "heavy_operations", "heavy_operations", "retiring", NAN, "slots" },
	{ "light_operations", "light_operations", "retiring", NAN, "slots" },
	{ "branch_mispredicts", "branch_mispredicts", "bad_speculation", NAN, "slots" },
	{ "machine_clears", "machine_clears", "bad_speculation", NAN, "slots" },
	{ "pipeline_restarts", "pipeline_restarts", "bad_speculation", NAN, "slots" },
	{ "fetch_latency", "fetch_latency", "frontend_bound", NAN, "slots" },
	{ "fetch_bandwidth", "fetch_bandwidth", "frontend_bound", NAN, "slots" },
	{ "frontend_core_bound", "frontend_core_bound", "frontend_bound", NAN, "slots" },
	{ "frontend_mem_bound", "frontend_mem_bound", "frontend_bound", NAN, "slots" },
	{ "memory_bound", "memory_bound", "backend_bound", NAN, "slots" },
	{ "core_bound", "core_bound", "backend_bound", NAN, "slots" },
	{ "l1_bound", "l1_bound", "memory_bound", NAN, "cycles" },
	{ "l2_bound", "l2_bound", "memory_bound", NAN, "cycles" },
	{ "l3_bound", "l3_bound", "memory_bound", NAN, "cycles" },
	{ "dram_bound", "dram_bound", "memory_bound", NAN, "cycles" },
	{ "store_bound", "store_bound", "memory_bound", NAN, "cycles" },
	{ "ports_utilization", "ports_utilization", "core_bound", NAN, "cycles" },
	{ "divider", "divider", "core_bound", NAN, "cycles" },
};
#define NPRINTED ((int)(sizeof printed_defs / sizeof *printed_defs))

/* Deeper nodes perf prints as tma_<name> (Intel's TMA hierarchy, P-cores
 * and E-cores): no formula here yet, their value is perf's. The parent
 * gives the place in the tree; "aux" marks an alternative view of its
 * parent's slots (E-core Backend_Bound_Aux), kept out of every sum. */
static const struct tma_def deeper_defs[] = {
	{ "backend_bound_aux", "tma_backend_bound_aux", "backend_bound", NAN, "aux" },
	{ "resource_bound", "tma_resource_bound", "backend_bound", NAN, "slots" },
	{ "base", "tma_base", "retiring", NAN, "slots" },
	{ "ms_uops", "tma_ms_uops", "retiring", NAN, "slots" },
	{ "fpdiv_uops", "tma_fpdiv_uops", "base", NAN, "slots" },
	{ "other_ret", "tma_other_ret", "base", NAN, "slots" },
	{ "nuke", "tma_nuke", "machine_clears", NAN, "slots" },
	{ "fast_nuke", "tma_fast_nuke", "machine_clears", NAN, "slots" },
	{ "branch_detect", "tma_branch_detect", "fetch_latency", NAN, "slots" },
	{ "branch_resteer", "tma_branch_resteer", "fetch_latency", NAN, "slots" },
	{ "cisc", "tma_cisc", "fetch_bandwidth", NAN, "slots" },
	{ "decode", "tma_decode", "fetch_bandwidth", NAN, "slots" },
	{ "predecode", "tma_predecode", "fetch_bandwidth", NAN, "slots" },
	{ "other_fb", "tma_other_fb", "fetch_bandwidth", NAN, "slots" },
	{ "mem_scheduler", "tma_mem_scheduler", "resource_bound", NAN, "slots" },
	{ "non_mem_scheduler", "tma_non_mem_scheduler", "resource_bound", NAN, "slots" },
	{ "register", "tma_register", "resource_bound", NAN, "slots" },
	{ "reorder_buffer", "tma_reorder_buffer", "resource_bound", NAN, "slots" },
	{ "serialization", "tma_serialization", "resource_bound", NAN, "slots" },
	{ "alloc_restriction", "tma_alloc_restriction", "core_bound", NAN, "slots" },
	{ "icache_misses", "tma_icache_misses", "fetch_latency", NAN, "cycles" },
	{ "itlb_misses", "tma_itlb_misses", "fetch_latency", NAN, "cycles" },
	{ "branch_resteers", "tma_branch_resteers", "fetch_latency", NAN, "cycles" },
	{ "ms_switches", "tma_ms_switches", "fetch_latency", NAN, "cycles" },
	{ "lcp", "tma_lcp", "fetch_latency", NAN, "cycles" },
	{ "dsb_switches", "tma_dsb_switches", "fetch_latency", NAN, "cycles" },
	{ "mispredicts_resteers", "tma_mispredicts_resteers", "branch_resteers", NAN, "cycles" },
	{ "clears_resteers", "tma_clears_resteers", "branch_resteers", NAN, "cycles" },
	{ "unknown_branches", "tma_unknown_branches", "branch_resteers", NAN, "cycles" },
	{ "mite", "tma_mite", "fetch_bandwidth", NAN, "slots" },
	{ "dsb", "tma_dsb", "fetch_bandwidth", NAN, "slots" },
	{ "lsd", "tma_lsd", "fetch_bandwidth", NAN, "slots" },
	{ "ms", "tma_ms", "fetch_bandwidth", NAN, "slots" },
	{ "decoder0_alone", "tma_decoder0_alone", "mite", NAN, "slots" },
	{ "mite_4wide", "tma_mite_4wide", "mite", NAN, "slots" },
	{ "other_mispredicts", "tma_other_mispredicts", "branch_mispredicts", NAN, "slots" },
	{ "other_nukes", "tma_other_nukes", "machine_clears", NAN, "slots" },
	{ "pmm_bound", "tma_pmm_bound", "memory_bound", NAN, "cycles" },
	{ "dtlb_load", "tma_dtlb_load", "l1_bound", NAN, "cycles" },
	{ "store_fwd_blk", "tma_store_fwd_blk", "l1_bound", NAN, "cycles" },
	{ "l1_latency_dependency", "tma_l1_latency_dependency", "l1_bound", NAN, "cycles" },
	{ "l1_hit_latency", "tma_l1_hit_latency", "l1_bound", NAN, "cycles" },
	{ "lock_latency", "tma_lock_latency", "l1_bound", NAN, "cycles" },
	{ "split_loads", "tma_split_loads", "l1_bound", NAN, "cycles" },
	{ "4k_aliasing", "tma_4k_aliasing", "l1_bound", NAN, "cycles" },
	{ "fb_full", "tma_fb_full", "l1_bound", NAN, "cycles" },
	{ "load_stlb_hit", "tma_load_stlb_hit", "dtlb_load", NAN, "cycles" },
	{ "load_stlb_miss", "tma_load_stlb_miss", "dtlb_load", NAN, "cycles" },
	{ "contested_accesses", "tma_contested_accesses", "l3_bound", NAN, "cycles" },
	{ "data_sharing", "tma_data_sharing", "l3_bound", NAN, "cycles" },
	{ "l3_hit_latency", "tma_l3_hit_latency", "l3_bound", NAN, "cycles" },
	{ "sq_full", "tma_sq_full", "l3_bound", NAN, "cycles" },
	{ "mem_bandwidth", "tma_mem_bandwidth", "dram_bound", NAN, "cycles" },
	{ "mem_latency", "tma_mem_latency", "dram_bound", NAN, "cycles" },
	{ "local_mem", "tma_local_mem", "mem_latency", NAN, "cycles" },
	{ "remote_mem", "tma_remote_mem", "mem_latency", NAN, "cycles" },
	{ "remote_cache", "tma_remote_cache", "mem_latency", NAN, "cycles" },
	{ "store_latency", "tma_store_latency", "store_bound", NAN, "cycles" },
	{ "false_sharing", "tma_false_sharing", "store_bound", NAN, "cycles" },
	{ "split_stores", "tma_split_stores", "store_bound", NAN, "cycles" },
	{ "streaming_stores", "tma_streaming_stores", "store_bound", NAN, "cycles" },
	{ "dtlb_store", "tma_dtlb_store", "store_bound", NAN, "cycles" },
	{ "store_stlb_hit", "tma_store_stlb_hit", "dtlb_store", NAN, "cycles" },
	{ "store_stlb_miss", "tma_store_stlb_miss", "dtlb_store", NAN, "cycles" },
	{ "serializing_operation", "tma_serializing_operation", "core_bound", NAN, "cycles" },
	{ "amx_busy", "tma_amx_busy", "core_bound", NAN, "cycles" },
	{ "slow_pause", "tma_slow_pause", "serializing_operation", NAN, "cycles" },
	{ "c01_wait", "tma_c01_wait", "serializing_operation", NAN, "cycles" },
	{ "c02_wait", "tma_c02_wait", "serializing_operation", NAN, "cycles" },
	{ "memory_fence", "tma_memory_fence", "serializing_operation", NAN, "cycles" },
	{ "ports_utilized_0", "tma_ports_utilized_0", "ports_utilization", NAN, "cycles" },
	{ "ports_utilized_1", "tma_ports_utilized_1", "ports_utilization", NAN, "cycles" },
	{ "ports_utilized_2", "tma_ports_utilized_2", "ports_utilization", NAN, "cycles" },
	{ "ports_utilized_3m", "tma_ports_utilized_3m", "ports_utilization", NAN, "cycles" },
	{ "mixing_vectors", "tma_mixing_vectors", "ports_utilized_0", NAN, "cycles" },
	{ "alu_op_utilization", "tma_alu_op_utilization", "ports_utilized_3m", NAN, "cycles" },
	{ "load_op_utilization", "tma_load_op_utilization", "ports_utilized_3m", NAN, "cycles" },
	{ "store_op_utilization", "tma_store_op_utilization", "ports_utilized_3m", NAN, "cycles" },
	{ "fp_arith", "tma_fp_arith", "light_operations", NAN, "slots" },
	{ "int_operations", "tma_int_operations", "light_operations", NAN, "slots" },
	{ "memory_operations", "tma_memory_operations", "light_operations", NAN, "slots" },
	{ "fused_instructions", "tma_fused_instructions", "light_operations", NAN, "slots" },
	{ "non_fused_branches", "tma_non_fused_branches", "light_operations", NAN, "slots" },
	{ "other_light_ops", "tma_other_light_ops", "light_operations", NAN, "slots" },
	{ "nop_instructions", "tma_nop_instructions", "other_light_ops", NAN, "slots" },
	{ "x87_use", "tma_x87_use", "fp_arith", NAN, "slots" },
	{ "fp_scalar", "tma_fp_scalar", "fp_arith", NAN, "slots" },
	{ "fp_vector", "tma_fp_vector", "fp_arith", NAN, "slots" },
	{ "fp_vector_128b", "tma_fp_vector_128b", "fp_vector", NAN, "slots" },
	{ "fp_vector_256b", "tma_fp_vector_256b", "fp_vector", NAN, "slots" },
	{ "fp_vector_512b", "tma_fp_vector_512b", "fp_vector", NAN, "slots" },
	{ "int_vector_128b", "tma_int_vector_128b", "int_operations", NAN, "slots" },
	{ "int_vector_256b", "tma_int_vector_256b", "int_operations", NAN, "slots" },
	{ "shuffles", "tma_shuffles", "int_operations", NAN, "slots" },
	{ "few_uops_instructions", "tma_few_uops_instructions", "heavy_operations", NAN, "slots" },
	{ "microcode_sequencer", "tma_microcode_sequencer", "heavy_operations", NAN, "slots" },
	{ "assists", "tma_assists", "microcode_sequencer", NAN, "slots" },
	{ "cisc_ms", "tma_cisc", "microcode_sequencer", NAN, "slots" },
	{ "page_faults", "tma_page_faults", "assists", NAN, "slots" },
	{ "fp_assists", "tma_fp_assists", "assists", NAN, "slots" },
	{ "avx_assists", "tma_avx_assists", "assists", NAN, "slots" },
};
#define NDEEPER ((int)(sizeof deeper_defs / sizeof *deeper_defs))

/* tma_* names perf printed that no table here knows: a definition each,
 * made once and kept for the life of the program (names are few). */
#define MAX_UNKNOWN 64
static struct tma_def unknown_defs[MAX_UNKNOWN];
static char unknown_names[MAX_UNKNOWN][48];
static int nunknown;
static pthread_mutex_t unknown_lock = PTHREAD_MUTEX_INITIALIZER;

/* The printed and deeper definitions by name, sorted once (ties in table
 * order), so a lookup is a binary search, not a strcmp per definition. */
struct def_by_name {
	const char *name;
	const struct tma_def *def;
};
static struct def_by_name printed_by_name[NPRINTED], deeper_by_name[NDEEPER];
static pthread_once_t by_name_once = PTHREAD_ONCE_INIT;

static int cmp_by_name(const void *a, const void *b)
{
	const struct def_by_name *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->def > y->def) - (x->def < y->def);
}

static void sort_by_name(void)
{
	for (int i = 0; i < NPRINTED; i++)
		printed_by_name[i] = (struct def_by_name){ printed_defs[i].name, &printed_defs[i] };
	for (int i = 0; i < NDEEPER; i++)
		deeper_by_name[i] = (struct def_by_name){ deeper_defs[i].name, &deeper_defs[i] };
	qsort(printed_by_name, NPRINTED, sizeof *printed_by_name, cmp_by_name);
	qsort(deeper_by_name, NDEEPER, sizeof *deeper_by_name, cmp_by_name);
}

/* The first definition of the table named name, or NULL. */
static const struct tma_def *find_by_name(const struct def_by_name *by, int n, const char *name)
{
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (strcmp(by[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(by[lo].name, name) ? by[lo].def : NULL;
}

static const struct tma_def *printed_def(const char *name)
{
	pthread_once(&by_name_once, sort_by_name);
	return find_by_name(printed_by_name, NPRINTED, name);
}

static const struct tma_def *deeper_def(const char *name)
{
	pthread_once(&by_name_once, sort_by_name);
	return find_by_name(deeper_by_name, NDEEPER, name);
}

const struct tma_def *tma_deeper_def(const char *name)
{
	const struct tma_def *d = deeper_def(name);
	if (d)
		return d;
	pthread_mutex_lock(&unknown_lock);
	for (int i = 0; i < nunknown && !d; i++)
		if (td_same_name(unknown_names[i], name))
			d = &unknown_defs[i];
	if (!d && nunknown < MAX_UNKNOWN && strlen(name) < sizeof unknown_names[0]) {
		strcpy(unknown_names[nunknown], name);
		unknown_defs[nunknown] = (struct tma_def){ unknown_names[nunknown], unknown_names[nunknown], NULL, NAN,
							   "cycles" };
		d = &unknown_defs[nunknown++];
	}
	pthread_mutex_unlock(&unknown_lock);
	return d;
}

const struct tma_def *tma_define_node(const char *name, const char *parent, const char *domain)
{
	const struct tma_def *known = printed_def(name);
	if (!known)
		known = deeper_def(name);
	if (known)
		return known;
	const struct tma_def *d = tma_deeper_def(name);
	if (!d)
		return NULL;
	pthread_mutex_lock(&unknown_lock);
	struct tma_def *u = &unknown_defs[d - unknown_defs];
	if (!u->parent && parent) {
		/* the parent's name lives as long as the program too */
		const struct tma_def *p = printed_def(parent);
		if (!p)
			p = deeper_def(parent);
		for (int i = 0; i < nunknown && !p; i++)
			p = td_same_name(unknown_names[i], parent) ? &unknown_defs[i] : NULL;
		u->parent = p ? p->name : NULL;
		u->domain = domain;
	}
	pthread_mutex_unlock(&unknown_lock);
	return d;
}

const struct tma_def *tma_def_of(const struct tma_model *m, const char *name)
{
	for (int k = 0; m && k < m->ndefs; k++)
		if (td_same_name(m->defs[k].name, name))
			return &m->defs[k];
	const struct tma_def *d = printed_def(name);
	if (!d)
		d = deeper_def(name);
	if (d)
		return d;
	pthread_mutex_lock(&unknown_lock);
	for (int i = 0; i < nunknown && !d; i++)
		if (td_same_name(unknown_names[i], name))
			d = &unknown_defs[i];
	pthread_mutex_unlock(&unknown_lock);
	return d;
}

static const char *const no_events[] = { NULL };
const struct tma_model tma_perf_printed = {
	"perf", "taken from the metrics perf printed (the raw events are not in the input)",
	no_events, 0, printed_defs, NPRINTED, NULL,
};

/* Where a node comes in the vocabulary (siblings are shown in this order). */
int tma_vocabulary_rank(const struct tma_def *d)
{
	for (int k = 0; k < NPRINTED; k++)
		if (td_same_name(printed_defs[k].name, d->name))
			return k;
	for (int k = 0; k < NDEEPER; k++)
		if (td_same_name(deeper_defs[k].name, d->name))
			return NPRINTED + k;
	return NPRINTED + NDEEPER;
}

