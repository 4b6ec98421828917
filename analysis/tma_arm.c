/* Arm Neoverse Top-down (shared/spec/TMA.md section 6): Level 1 from slot
 * events on V1/N2/V2 (perf's N2/V2 metrics, with the "- cpu_cycles" term
 * perf applies on 5-slot cores) and N3/V3 (Arm's own formulas, with
 * STALL_FRONTEND_FLUSH), plus N3/V3's cycle-based Level 2 scaled into the
 * slot tree. Each group's metric uses its own copy of cpu_cycles. */
#include <math.h>
#include "tma.h"

#define EV(name) tma_ev(c, name)
#define NEAR(name, near) tma_ev_near(c, name, near)

enum { A_RET, A_FE, A_BE, A_BAD, A_FE_CORE, A_FE_MEM, A_BE_CORE, A_BE_MEM, A_N };

static const struct tma_def arm_defs[A_N] = {
	[A_RET] = { "retiring", "retiring", NULL, NAN, "slots" },
	[A_FE] = { "frontend_bound", "frontend_bound", NULL, NAN, "slots" },
	[A_BE] = { "backend_bound", "backend_bound", NULL, NAN, "slots" },
	[A_BAD] = { "bad_speculation", "bad_speculation", NULL, NAN, "slots" },
	[A_FE_CORE] = { "frontend_core_bound", "frontend_core_bound", "frontend_bound", NAN, "cycles" },
	[A_FE_MEM] = { "frontend_mem_bound", "frontend_mem_bound", "frontend_bound", NAN, "cycles" },
	[A_BE_CORE] = { "core_bound", "backend_core_bound", "backend_bound", NAN, "cycles" },
	[A_BE_MEM] = { "memory_bound", "backend_mem_bound", "backend_bound", NAN, "cycles" },
};

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
}

/* N3, V3: Arm's formulas; Level 2 nodes are shares of their parent's
 * stall cycles, placed in the slot tree by scaling with the parent. */
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
	v[A_FE_CORE] = v[A_FE] * EV("stall_frontend_cpubound") / EV("stalled-cycles-frontend");
	v[A_FE_MEM] = v[A_FE] * EV("stall_frontend_membound") / EV("stalled-cycles-frontend");
	v[A_BE_CORE] = v[A_BE] * EV("stall_backend_cpubound") / EV("stalled-cycles-backend");
	v[A_BE_MEM] = v[A_BE] * EV("stall_backend_membound") / EV("stalled-cycles-backend");
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
