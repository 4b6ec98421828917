#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "tma.h"
#include "tma_explain.h"

static const struct tma_explanation entries[] = {
	{ "retiring", "tma_retiring, Retiring",
	  "Slots that did useful work: micro-operations that were issued and retired.",
	  "High is good. When it is high and the program is still slow, it simply executes many instructions.",
	  "Do less work: better algorithms, vectorisation (fewer, wider operations), avoiding redundant computation.",
	  { "perf stat -M TopdownL2 -- CMD | td-derive  (heavy vs light operations); perf record -g -- CMD; perf script | td-fold",
	    "perf stat -M PipelineL2 -- CMD | td-derive  (fastpath vs microcode); perf record -g -- CMD; perf script | td-fold",
	    "perf stat -M Operation_Mix -- CMD | td-derive; perf record -g -- CMD; perf script | td-fold" }, NULL },
	{ "bad_speculation", "tma_bad_speculation, Bad Speculation, Bad_Speculation, wasted",
	  "Slots spent on work that was thrown away: wrong-path operations after a mispredicted branch or a pipeline flush.",
	  "Data-dependent branches, indirect calls with changing targets, memory-ordering or self-modifying-code clears.",
	  "Make branches predictable or branch-free (cmov, lookup tables, sorting data), devirtualise hot indirect calls.",
	  { "perf stat -M TopdownL2 -- CMD | td-derive; perf record -b -e cycles -- CMD; perf script -F ip,brstack | td-branches",
	    "perf stat -M PipelineL2 -- CMD | td-derive; perf record -b -e cycles -- CMD; perf script -F ip,brstack | td-branches",
	    "perf stat -M Branch_Effectiveness -- CMD | td-derive; perf record -e arm_spe// -- CMD; perf script | td-branches" }, NULL },
	{ "frontend_bound", "tma_frontend_bound, Frontend Bound, Frontend_Bound, stall_frontend, stall_slot_frontend",
	  "Slots the back end could have used but the front end delivered no operations for.",
	  "Instruction cache and iTLB misses from large or scattered code, branch resteers, decoder limits.",
	  "Shrink and group hot code: PGO, BOLT, LTO, -falign-functions, fewer large inlined functions, huge pages for text.",
	  { "perf stat -M TopdownL2 -- CMD | td-derive  (fetch latency vs bandwidth)",
	    "perf stat -M PipelineL2 -- CMD | td-derive  (latency vs bandwidth)",
	    "perf stat -M Topdown_Frontend -- CMD | td-derive; perf stat -M ITLB_Effectiveness,L1I_Cache_Effectiveness" }, NULL },
	{ "backend_bound", "tma_backend_bound, Backend Bound, Backend_Bound, stall_backend, stall_slot_backend",
	  "Slots with no operation issued because the back end was full: waiting for data or for execution resources.",
	  "Cache and memory misses, long dependency chains, divides, too few execution ports for the mix.",
	  "Improve locality (layout, blocking, prefetch), shorten dependency chains, use cheaper operations.",
	  { "perf stat -M TopdownL2 -- CMD | td-derive  (memory vs core bound)",
	    "perf stat -M PipelineL2 -- CMD | td-derive  (memory vs cpu)",
	    "perf stat -M Topdown_Backend -- CMD | td-derive" }, NULL },
	{ "smt_contention", "smt_contention",
	  "Dispatch slots the core gave to the other hardware thread of the same core.",
	  "A busy SMT sibling sharing the core.",
	  "Pin the workload so siblings do not compete, or disable SMT for the measurement.",
	  { "perf stat -a -A -- CMD | td-derive", "perf stat -a --per-core -M PipelineL1 -- CMD | td-derive",
	    "perf stat -a -A -- CMD | td-derive" }, NULL },
	{ "heavy_operations", "tma_heavy_operations, Heavy Operations, retiring_microcode, retiring_from_microcode",
	  "Retired work from instructions that decode into several operations or come from the microcode sequencer.",
	  "String instructions, complex x86 instructions, denormal floating point, gathers.",
	  "Use simpler instruction sequences; flush denormals to zero (-ffast-math or DAZ/FTZ) where allowed.",
	  { "perf stat -M TopdownL3 -- CMD | td-derive; perf record -e cycles -- CMD; perf script | td-fold",
	    "perf record -e ex_ret_ucode_ops -- CMD; perf script | td-fold",
	    "perf record -e cpu_cycles -- CMD; perf script | td-fold" }, NULL },
	{ "light_operations", "tma_light_operations, Light Operations, retiring_fastpath, retiring_from_fastpath",
	  "Retired work from simple instructions that map to one operation.",
	  "Mostly healthy; a large share with slow code means many instructions.",
	  "Vectorise or otherwise reduce the instruction count.",
	  { "perf record -g -- CMD; perf script | td-fold", "perf record -g -- CMD; perf script | td-fold",
	    "perf record -g -- CMD; perf script | td-fold" }, NULL },
	{ "branch_mispredicts", "tma_branch_mispredicts, Branch Mispredict, bad_speculation_mispredicts, bad_speculation_from_mispredicts",
	  "Slots lost to branches whose direction or target was predicted wrongly.",
	  "Branches on random data, unpredictable indirect calls, deep recursion overflowing the return stack.",
	  "Branch-free code, sorted or partitioned data, profile-guided layout, fewer virtual calls in hot loops.",
	  { "perf record -b -e cycles -- CMD; perf script -F ip,sym,brstack | td-branches",
	    "perf record -b -e cycles -- CMD; perf script -F ip,sym,brstack | td-branches",
	    "perf record -e arm_spe/branch_filter=1/ -- CMD; perf script | td-branches" }, NULL },
	{ "machine_clears", "tma_machine_clears, Machine Clears",
	  "Slots lost when the whole pipeline was flushed for reasons other than a branch.",
	  "Memory-ordering conflicts (false sharing), self-modifying code, floating-point assists.",
	  "Separate data written by different threads onto different cache lines; avoid writing to code pages.",
	  { "perf stat -e machine_clears.memory_ordering,machine_clears.smc -- CMD; perf c2c record -- CMD",
	    "perf c2c record -- CMD; perf c2c report", "perf c2c record -- CMD; perf c2c report" }, NULL },
	{ "pipeline_restarts", "bad_speculation_pipeline_restarts, bad_speculation_from_pipeline_restarts",
	  "Dispatch slots lost to pipeline restarts (resyncs) rather than branch mispredictions.",
	  "Memory-ordering violations, self-modifying code, false sharing between threads.",
	  "Separate data written by different threads; avoid writing near executing code.",
	  { "perf c2c record -- CMD; perf c2c report", "perf stat -e resyncs_or_nc_redirects -- CMD; perf c2c record -- CMD",
	    "perf c2c record -- CMD; perf c2c report" }, NULL },
	{ "fetch_latency", "tma_fetch_latency, Fetch Latency, Fetch_Latency, Frontend_Latency, frontend_bound_latency, frontend_bound_by_latency",
	  "Cycles the front end delivered nothing at all: it was waiting for instructions.",
	  "Instruction cache and iTLB misses, branch resteers after mispredictions.",
	  "Smaller, hotter code layout: PGO, BOLT, huge pages for text, fewer far calls.",
	  { "perf stat -M TopdownL3 -- CMD | td-derive; perf record -e frontend_retired.l2_miss:pp -- CMD; perf script | td-fold",
	    "perf stat -e ic_fetch_stall.ic_stall_any -- CMD; perf record -g -- CMD; perf script | td-fold",
	    "perf stat -M L1I_Cache_Effectiveness,ITLB_Effectiveness -- CMD | td-derive" }, NULL },
	{ "fetch_bandwidth", "tma_fetch_bandwidth, Fetch Bandwidth, Fetch_Bandwidth, Frontend_Bandwidth, frontend_bound_bandwidth, frontend_bound_by_bandwidth",
	  "Cycles the front end delivered fewer operations than the machine could take.",
	  "Decoder limits, instruction length, code that misses the micro-op cache.",
	  "Tighter hot loops, alignment, fewer length-changing prefixes.",
	  { "perf stat -M TopdownL3 -- CMD | td-derive  (MITE, DSB, LSD)", "perf stat -M PipelineL2 -- CMD | td-derive",
	    "perf stat -M Topdown_Frontend -- CMD | td-derive" }, NULL },
	{ "frontend_core_bound", "frontend_core_bound, stall_frontend_cpubound",
	  "Front-end stall cycles caused by the core itself (flushes, flow changes) rather than memory.",
	  "Pipeline flushes after mispredictions, taken-branch limits.",
	  "Reduce mispredictions and taken branches in hot code.",
	  { "perf stat -M TopdownL2 -- CMD | td-derive", "perf stat -M PipelineL2 -- CMD | td-derive",
	    "perf stat -M Topdown_Frontend -- CMD | td-derive" }, NULL },
	{ "frontend_mem_bound", "frontend_mem_bound, stall_frontend_membound",
	  "Front-end stall cycles waiting for instruction memory (caches and TLBs).",
	  "Large code footprint, poor code locality.",
	  "PGO, BOLT, huge pages for text.",
	  { "perf stat -M TopdownL3 -- CMD | td-derive", "perf stat -e ic_fetch_stall.ic_stall_any -- CMD",
	    "perf stat -M L1I_Cache_Effectiveness,ITLB_Effectiveness -- CMD | td-derive" }, NULL },
	{ "memory_bound", "tma_memory_bound, Memory Bound, Memory_Bound, backend_bound_memory, backend_bound_by_memory, backend_mem_bound, backend_memory_bound, stall_backend_mem, stall_backend_membound",
	  "Back-end stalls waiting for loads or stores to complete in the cache hierarchy or memory.",
	  "Cache misses from poor locality or large working sets, TLB misses, memory bandwidth limits.",
	  "Improve locality (structure of arrays, blocking, prefetching), shrink data, huge pages for data.",
	  { "perf stat -M TopdownL3 -- CMD | td-derive  (L1/L2/L3/DRAM/store bound); perf record -e mem_load_retired.l3_miss:pp -- CMD; perf script | td-fold",
	    "perf mem record -- CMD; perf mem report  (IBS); perf stat -M PipelineL2 -- CMD | td-derive",
	    "perf stat -M L1D_Cache_Effectiveness,L2_Cache_Effectiveness,DTLB_Effectiveness -- CMD | td-derive; perf record -e arm_spe// -- CMD" }, NULL },
	{ "core_bound", "tma_core_bound, Core Bound, Core_Bound, backend_bound_cpu, backend_bound_by_cpu, backend_core_bound, stall_backend_cpubound",
	  "Back-end stalls not caused by memory: execution units busy or waiting on each other.",
	  "Long dependency chains, divides and square roots, port contention from one kind of operation.",
	  "Break dependency chains, unroll with several accumulators, replace divides, vectorise.",
	  { "perf stat -M TopdownL3 -- CMD | td-derive  (divider, ports utilization)",
	    "perf record -e cycles -- CMD; perf annotate", "perf stat -M Operation_Mix -- CMD | td-derive" }, NULL },
	{ "l1_bound", "tma_l1_bound, L1_Bound",
	  "Cycles stalled on loads that hit the L1 data cache but still could not complete fast enough.",
	  "Store-to-load forwarding blocks, 4K aliasing, L1 bandwidth, DTLB misses that hit the STLB.",
	  "Avoid partial overlapping stores and loads, align data, reduce loads in the hot loop.",
	  { "perf stat -M tma_l1_bound_group -- CMD | td-derive", "perf stat -e ls_dispatch.ld_dispatch,ls_stlf -- CMD",
	    "perf stat -M L1D_Cache_Effectiveness -- CMD | td-derive" }, NULL },
	{ "l2_bound", "tma_l2_bound, L2_Bound",
	  "Cycles stalled on loads that missed L1 and hit L2.",
	  "A working set a little larger than L1.",
	  "Block loops to fit L1, shrink data structures, prefetch one level ahead.",
	  { "perf stat -M tma_l2_bound_group -- CMD | td-derive; perf record -e mem_load_retired.l2_hit:pp -- CMD",
	    "perf mem record -- CMD; perf mem report", "perf stat -M L2_Cache_Effectiveness -- CMD | td-derive" }, NULL },
	{ "l3_bound", "tma_l3_bound, L3_Bound",
	  "Cycles stalled on loads that missed L2 and hit the last-level cache (or a sibling core).",
	  "A working set larger than L2, sharing between cores (contested lines).",
	  "Block for L2, avoid false sharing, keep threads' data apart.",
	  { "perf stat -M tma_l3_bound_group -- CMD | td-derive; perf record -e mem_load_retired.l3_hit:pp -- CMD",
	    "perf mem record -- CMD; perf mem report", "perf stat -M LL_Cache_Effectiveness -- CMD | td-derive" }, NULL },
	{ "dram_bound", "tma_dram_bound, DRAM_Bound",
	  "Cycles stalled on loads served from memory.",
	  "Working sets larger than the last-level cache, streaming without prefetch, remote NUMA memory.",
	  "Improve locality, compress or shrink data, prefetch, place memory on the local NUMA node.",
	  { "perf stat -M tma_dram_bound_group -- CMD | td-derive; perf record -e mem_load_retired.l3_miss:pp -- CMD",
	    "perf mem record -- CMD; perf mem report", "perf record -e arm_spe// -- CMD; perf mem report" }, NULL },
	{ "store_bound", "tma_store_bound, Store_Bound",
	  "Cycles the core was stalled because the store buffer was full.",
	  "Many stores to missing lines, false sharing, streaming writes.",
	  "Fewer stores, non-temporal stores for streams, separate per-thread data.",
	  { "perf stat -M tma_store_bound_group -- CMD | td-derive", "perf c2c record -- CMD; perf c2c report",
	    "perf stat -M Topdown_Backend -- CMD | td-derive" }, NULL },
	{ "ports_utilization", "tma_ports_utilization, Ports_Utilization",
	  "Cycles the execution ports were poorly used: few or no operations executed while not waiting for memory.",
	  "Long dependency chains, too little instruction-level parallelism, too much work on one port type.",
	  "Break dependency chains, use several accumulators, vectorise, balance the operation mix.",
	  { "perf stat -M tma_ports_utilization_group -- CMD | td-derive", "perf record -e cycles -- CMD; perf annotate",
	    "perf stat -M Operation_Mix -- CMD | td-derive" }, NULL },
	{ "divider", "tma_divider, Divider",
	  "Cycles the divide unit was busy.",
	  "Integer or floating-point divisions and square roots in hot code.",
	  "Multiply by reciprocals, hoist divisions out of loops, use shifts for powers of two.",
	  { "perf record -e arith.divider_active -- CMD; perf annotate", "perf record -e cycles -- CMD; perf annotate",
	    "perf record -e cycles -- CMD; perf annotate" }, NULL },
/* The deeper nodes: Intel's (AMD and Arm have no counterpart, so their
 * next step points at the node's ancestors). */
#define KB(node, parent, measures, causes, change, intel)                                                  \
	{ node, "tma_" node, measures, causes, change,                                                      \
	  { intel, "no AMD node of its own; see its ancestors: td-explain --vendor amd " parent,           \
	    "no Arm node of its own; see its ancestors: td-explain --vendor arm " parent },                 \
	  parent },
#include "analysis/tma_explain_kb.def"
#undef KB
/* Arm's nodes (no Intel or AMD counterpart): their next step elsewhere
 * points at the node's ancestors. */
#define KB_ARM(node, aliases, parent, measures, causes, change, arm)                                       \
	{ node, aliases, measures, causes, change,                                                          \
	  { "no Intel node of its own; see its ancestors: td-explain --vendor intel " parent,               \
	    "no AMD node of its own; see its ancestors: td-explain --vendor amd " parent, arm },            \
	  parent },
#include "analysis/tma_explain_arm.def"
#undef KB_ARM
	{ NULL, NULL, NULL, NULL, NULL, { NULL, NULL, NULL }, NULL },
};

const struct tma_explanation *tma_explanations(void) { return entries; }

static bool alias_matches(const char *aliases, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = aliases; *p;) {
		size_t k = strcspn(p, ",");
		if (k == n && strncasecmp(p, name, n) == 0)
			return true;
		p += k;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return false;
}

const struct tma_explanation *tma_explain(const char *node)
{
	for (const struct tma_explanation *e = entries; e->node; e++)
		if (strcasecmp(e->node, node) == 0 || alias_matches(e->aliases, node))
			return e;
	return NULL;
}

const struct tma_explanation *tma_explain_path(const char *name, const char **found_as)
{
	*found_as = NULL;
	const struct tma_explanation *e = tma_explain(name);
	if (e)
		return e;
	/* toplev's "Backend_Bound.Memory_Bound.DRAM_Bound": its node, else the
	 * nearest ancestor with an entry */
	char path[256], node[64];
	snprintf(path, sizeof path, "%s", name);
	for (bool leaf = true;; leaf = false) {
		if (tma_toplev_node(path, node, sizeof node) && (e = tma_explain(node))) {
			if (!leaf)
				*found_as = e->node;
			return e;
		}
		char *dot = strrchr(path, '.');
		if (!dot)
			return NULL;
		*dot = '\0';
	}
}

static const char *parent_of(const char *node)
{
	for (const struct tma_explanation *e = entries; e->node; e++)
		if (!strcmp(e->node, node) && e->parent)
			return e->parent;
	const struct tma_def *d = tma_def_of(NULL, node);
	return d ? d->parent : NULL;
}

const char *tma_explain_parent_path(const struct tma_explanation *e, char *buf, size_t cap)
{
	const char *chain[16];
	int n = 0;
	for (const char *p = e->node; p && n < 16; p = parent_of(p))
		chain[n++] = p;
	size_t used = 0;
	buf[0] = '\0';
	for (int i = n - 1; i >= 0 && used < cap; i--)
		used += (size_t)snprintf(buf + used, cap - used, "%s%s", i == n - 1 ? "" : " > ", chain[i]);
	return buf;
}

enum tma_vendor tma_vendor_of(const char *model_id)
{
	if (strncmp(model_id, "amd", 3) == 0)
		return TMA_AMD;
	if (strncmp(model_id, "arm", 3) == 0)
		return TMA_ARM;
	return TMA_INTEL;
}
