/* Arm Neoverse Top-down (shared/spec/TMA.md section 6): Level 1 from slot
 * events on V1/N2/V2 (perf's N2/V2 metrics, with the "- cpu_cycles" term
 * perf applies on 5-slot cores) and N3/V3 (Arm's own formulas, with
 * STALL_FRONTEND_FLUSH); below it, the splits Arm's telemetry
 * specifications define (ATS, TMA.md section 6.4), each a row of two
 * tables:
 *   - N3/V3's stall-cycle tree (Topdown_Frontend, Topdown_Backend groups),
 *     Levels 2 to 4: a node is a share of the stall cycles its denominator
 *     counts, placed in the slot tree by multiplying with the value of the
 *     node that counts those cycles (tdkit's convention, not Arm's);
 *   - the Operation_Mix group under retiring (Arm's next step from
 *     retiring) on every slot-based core: shares of the speculatively
 *     executed operations (INST_SPEC), not of slots, so domain "aux": an
 *     alternative view of the work, kept out of every sum and off the
 *     bottleneck path.
 * A share reads its denominator's copy from the numerator's own group. */
#include <math.h>
#include <string.h>
#include "tma.h"

#define EV(name) tma_ev(c, name)
#define NEAR(name, near) tma_ev_near(c, name, near)

enum {
	A_RET, A_FE, A_BE, A_BAD,
	/* Level 2, N3/V3 */
	A_FE_CORE, A_FE_MEM, A_BE_CORE, A_BE_MEM,
	/* Level 3, N3/V3 */
	A_FE_FLUSH, A_FE_FLOW, A_FE_CACHE, A_FE_TLB, A_BE_RENAME, A_BE_BUSY, A_BE_CACHE, A_BE_TLB, A_BE_STORE,
	/* Level 4, N3/V3 */
	A_FE_L1I, A_FE_L2I, A_BE_L1D, A_BE_L2D,
	/* Operation_Mix, under retiring */
	A_OP_LOAD, A_OP_STORE, A_OP_INT, A_OP_SIMD, A_OP_FP, A_OP_BRANCH, A_OP_CRYPTO, A_OP_SVE, A_OP_BARRIER,
	A_N
};

static const struct tma_def arm_defs[A_N] = {
	[A_RET] = { "retiring", "retiring", NULL, NAN, "slots" },
	[A_FE] = { "frontend_bound", "frontend_bound", NULL, NAN, "slots" },
	[A_BE] = { "backend_bound", "backend_bound", NULL, NAN, "slots" },
	[A_BAD] = { "bad_speculation", "bad_speculation", NULL, NAN, "slots" },
	[A_FE_CORE] = { "frontend_core_bound", "frontend_core_bound", "frontend_bound", NAN, "cycles" },
	[A_FE_MEM] = { "frontend_mem_bound", "frontend_mem_bound", "frontend_bound", NAN, "cycles" },
	[A_BE_CORE] = { "core_bound", "backend_core_bound", "backend_bound", NAN, "cycles" },
	[A_BE_MEM] = { "memory_bound", "backend_mem_bound", "backend_bound", NAN, "cycles" },
	[A_FE_FLUSH] = { "frontend_flush", "frontend_core_flush_bound", "frontend_core_bound", NAN, "cycles" },
	[A_FE_FLOW] = { "frontend_flow", "frontend_core_flow_bound", "frontend_core_bound", NAN, "cycles" },
	[A_FE_CACHE] = { "frontend_cache", "frontend_mem_cache_bound", "frontend_mem_bound", NAN, "cycles" },
	[A_FE_TLB] = { "frontend_tlb", "frontend_mem_tlb_bound", "frontend_mem_bound", NAN, "cycles" },
	[A_BE_RENAME] = { "backend_rename", "backend_core_rename_bound", "core_bound", NAN, "cycles" },
	[A_BE_BUSY] = { "backend_busy", "backend_busy_bound", "core_bound", NAN, "cycles" },
	[A_BE_CACHE] = { "backend_cache", "backend_mem_cache_bound", "memory_bound", NAN, "cycles" },
	[A_BE_TLB] = { "backend_tlb", "backend_mem_tlb_bound", "memory_bound", NAN, "cycles" },
	[A_BE_STORE] = { "backend_store", "backend_mem_store_bound", "memory_bound", NAN, "cycles" },
	[A_FE_L1I] = { "frontend_l1i", "frontend_cache_l1i_bound", "frontend_cache", NAN, "cycles" },
	[A_FE_L2I] = { "frontend_l2i", "frontend_cache_l2i_bound", "frontend_cache", NAN, "cycles" },
	[A_BE_L1D] = { "backend_l1d", "backend_cache_l1d_bound", "backend_cache", NAN, "cycles" },
	[A_BE_L2D] = { "backend_l2d", "backend_cache_l2d_bound", "backend_cache", NAN, "cycles" },
	[A_OP_LOAD] = { "load_operations", "load_percentage", "retiring", NAN, "aux" },
	[A_OP_STORE] = { "store_operations", "store_percentage", "retiring", NAN, "aux" },
	[A_OP_INT] = { "integer_operations", "integer_dp_percentage", "retiring", NAN, "aux" },
	[A_OP_SIMD] = { "simd_operations", "simd_percentage", "retiring", NAN, "aux" },
	[A_OP_FP] = { "scalar_fp_operations", "scalar_fp_percentage", "retiring", NAN, "aux" },
	[A_OP_BRANCH] = { "branch_operations", "branch_percentage", "retiring", NAN, "aux" },
	[A_OP_CRYPTO] = { "crypto_operations", "crypto_percentage", "retiring", NAN, "aux" },
	[A_OP_SVE] = { "sve_operations", "sve_all_percentage", "retiring", NAN, "aux" },
	[A_OP_BARRIER] = { "barrier_operations", "barrier_percentage", "retiring", NAN, "aux" },
};

/* One split: node = scale × (num[0] + num[1] + num[2] − minus) /
 * (den[0] + den[1]); scale is the value of node `scale`, or 1 when it is
 * -1. Unused terms are NULL. A term that is absent makes the node NaN:
 * never a share from fewer terms. */
struct arm_share {
	int node, scale;
	const char *num[3], *minus, *den[2];
};

/* N3/V3 (ATS neoverse-n3.json, neoverse-v3.json: the same formulas). The
 * busy share is of all backend stall cycles (Arm's denominator) and sits
 * under core_bound: issue queues filling is a core resource. */
static const struct arm_share n3_tree[] = {
	{ A_FE_CORE, A_FE, { "stall_frontend_cpubound" }, NULL, { "stalled-cycles-frontend" } },
	{ A_FE_MEM, A_FE, { "stall_frontend_membound" }, NULL, { "stalled-cycles-frontend" } },
	{ A_BE_CORE, A_BE, { "stall_backend_cpubound" }, NULL, { "stalled-cycles-backend" } },
	{ A_BE_MEM, A_BE, { "stall_backend_membound" }, NULL, { "stalled-cycles-backend" } },
	{ A_FE_FLUSH, A_FE_CORE, { "stall_frontend_flush" }, NULL, { "stall_frontend_cpubound" } },
	{ A_FE_FLOW, A_FE_CORE, { "stall_frontend_flow" }, NULL, { "stall_frontend_cpubound" } },
	{ A_FE_CACHE, A_FE_MEM, { "stall_frontend_l1i", "stall_frontend_mem" }, NULL, { "stall_frontend_membound" } },
	{ A_FE_TLB, A_FE_MEM, { "stall_frontend_tlb" }, NULL, { "stall_frontend_membound" } },
	{ A_BE_RENAME, A_BE_CORE, { "stall_backend_rename" }, NULL, { "stall_backend_cpubound" } },
	{ A_BE_BUSY, A_BE, { "stall_backend_busy" }, NULL, { "stalled-cycles-backend" } },
	{ A_BE_CACHE, A_BE_MEM, { "stall_backend_l1d", "stall_backend_mem" }, NULL, { "stall_backend_membound" } },
	{ A_BE_TLB, A_BE_MEM, { "stall_backend_tlb" }, NULL, { "stall_backend_membound" } },
	{ A_BE_STORE, A_BE_MEM, { "stall_backend_st" }, NULL, { "stall_backend_membound" } },
	{ A_FE_L1I, A_FE_CACHE, { "stall_frontend_l1i" }, NULL, { "stall_frontend_l1i", "stall_frontend_mem" } },
	{ A_FE_L2I, A_FE_CACHE, { "stall_frontend_mem" }, NULL, { "stall_frontend_l1i", "stall_frontend_mem" } },
	{ A_BE_L1D, A_BE_CACHE, { "stall_backend_l1d" }, NULL, { "stall_backend_l1d", "stall_backend_mem" } },
	{ A_BE_L2D, A_BE_CACHE, { "stall_backend_mem" }, NULL, { "stall_backend_l1d", "stall_backend_mem" } },
};

/* Operation_Mix of V1, N2 and V2 (ATS; the barrier row is V2's only). */
static const struct arm_share op_mix_v1_n2_v2[] = {
	{ A_OP_LOAD, -1, { "ld_spec" }, NULL, { "inst_spec" } },
	{ A_OP_STORE, -1, { "st_spec" }, NULL, { "inst_spec" } },
	{ A_OP_INT, -1, { "dp_spec" }, NULL, { "inst_spec" } },
	{ A_OP_SIMD, -1, { "ase_spec" }, NULL, { "inst_spec" } },
	{ A_OP_FP, -1, { "vfp_spec" }, NULL, { "inst_spec" } },
	{ A_OP_BRANCH, -1, { "br_immed_spec", "br_indirect_spec" }, NULL, { "inst_spec" } },
	{ A_OP_CRYPTO, -1, { "crypto_spec" }, NULL, { "inst_spec" } },
	{ A_OP_SVE, -1, { "sve_inst_spec" }, NULL, { "inst_spec" } },
};
static const struct arm_share op_mix_v2_barrier[] = {
	{ A_OP_BARRIER, -1, { "isb_spec", "dsb_spec", "dmb_spec" }, NULL, { "inst_spec" } },
};

/* Operation_Mix of N3 and V3: data processing without the DSBs it counts,
 * branches as PC-writing operations. */
static const struct arm_share op_mix_n3_v3[] = {
	{ A_OP_LOAD, -1, { "ld_spec" }, NULL, { "inst_spec" } },
	{ A_OP_STORE, -1, { "st_spec" }, NULL, { "inst_spec" } },
	{ A_OP_INT, -1, { "dp_spec" }, "dsb_spec", { "inst_spec" } },
	{ A_OP_SIMD, -1, { "ase_spec" }, NULL, { "inst_spec" } },
	{ A_OP_FP, -1, { "vfp_spec" }, NULL, { "inst_spec" } },
	{ A_OP_BARRIER, -1, { "isb_spec", "dsb_spec", "dmb_spec" }, NULL, { "inst_spec" } },
	{ A_OP_BRANCH, -1, { "pc_write_spec" }, NULL, { "inst_spec" } },
	{ A_OP_CRYPTO, -1, { "crypto_spec" }, NULL, { "inst_spec" } },
	{ A_OP_SVE, -1, { "sve_inst_spec" }, NULL, { "inst_spec" } },
};

#define NROWS(a) (int)(sizeof a / sizeof *a)

/* Rows in order: a row's scale node comes from an earlier row or Level 1.
 * Every term is read (none skipped after a NaN) so that a probe learns all
 * the events a node needs. */
static void shares(const struct tma_ctx *c, const struct arm_share *rows, int n, double *v)
{
	for (const struct arm_share *r = rows; r < rows + n; r++) {
		double num = 0, den = 0;
		for (int i = 0; i < 3 && r->num[i]; i++)
			num += EV(r->num[i]);
		if (r->minus)
			num -= NEAR(r->minus, r->num[0]);
		for (int i = 0; i < 2 && r->den[i]; i++)
			den += NEAR(r->den[i], r->num[0]);
		v[r->node] = (r->scale < 0 ? 1 : v[r->scale]) * num / den;
	}
}

/* V1, N2, V2: perf's N2/V2 metric file. */
static void n2_v2(const struct tma_ctx *c, double *v)
{
	double n = c->width;
	double correction = n == 5 ? 1 : 0;     /* perf: "- cpu_cycles" on 5-slot cores */
	double cfe = NEAR("cycles", "stall_slot_frontend");
	double cbe = NEAR("cycles", "stall_slot_backend");
	double cret = NEAR("cycles", "stall_slot");
	v[A_FE] = (EV("stall_slot_frontend") - correction * cfe) / (n * cfe);
	v[A_BE] = EV("stall_slot_backend") / (n * cbe);
	double useful = 1 - (EV("stall_slot") - correction * cret) / (n * cret);
	double retired_share = EV("op_retired") / EV("op_spec");
	v[A_RET] = retired_share * useful;
	v[A_BAD] = (1 - retired_share) * useful;
	shares(c, op_mix_v1_n2_v2, NROWS(op_mix_v1_n2_v2), v);
	if (n == 8)
		shares(c, op_mix_v2_barrier, NROWS(op_mix_v2_barrier), v);
}

/* N3, V3: Arm's formulas. */
static void n3_v3(const struct tma_ctx *c, double *v)
{
	double n = c->width, cyc = EV("cycles");
	double flush = EV("stall_frontend_flush") / cyc;
	double useful = 1 - EV("stall_slot") / (n * cyc);
	double retired_share = EV("op_retired") / EV("op_spec");
	v[A_FE] = EV("stall_slot_frontend") / (n * cyc) - flush;
	v[A_BE] = EV("stall_slot_backend") / (n * cyc);
	v[A_RET] = useful * retired_share;
	v[A_BAD] = useful * (1 - retired_share) + flush;
	shares(c, n3_tree, NROWS(n3_tree), v);
	shares(c, op_mix_n3_v3, NROWS(op_mix_n3_v3), v);
}

static const char *const slot_events[] = { "stall_slot_frontend", "stall_slot_backend", "stall_slot", "op_retired",
					    "op_spec", "cycles", NULL };
static const char *const n3_events[] = { "stall_slot_frontend", "stall_slot_backend", "stall_slot", "op_retired",
					  "op_spec", "cycles", "stall_frontend_flush", NULL };

const struct tma_model tma_arm_n2 = {
	"arm-n2", "Arm Neoverse N2 (5 slots; also V1/V2 with --cpu arm-v2)", slot_events, 5, arm_defs, A_N, n2_v2,
};
const struct tma_model tma_arm_v2 = {
	"arm-v2", "Arm Neoverse V1/V2 (8 slots)", slot_events, 8, arm_defs, A_N, n2_v2,
};
const struct tma_model tma_arm_n3 = {
	"arm-n3", "Arm Neoverse N3 (5 slots, Arm's formulas)", n3_events, 5, arm_defs, A_N, n3_v3,
};
const struct tma_model tma_arm_v3 = {
	"arm-v3", "Arm Neoverse V3 (10 slots, Arm's formulas)", n3_events, 10, arm_defs, A_N, n3_v3,
};

double tma_arm_unscaled(const struct tma_tree *t, const struct tma_node *n)
{
	for (const struct arm_share *r = n3_tree; r < n3_tree + NROWS(n3_tree); r++)
		if (!strcmp(arm_defs[r->node].name, n->def->name))
			return n->value / tma_value(t, arm_defs[r->scale].name);
	return n->value;
}
