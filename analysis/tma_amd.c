/* AMD Zen 4 and Zen 5 pipeline utilization (perf's PipelineL1/PipelineL2;
 * shared/spec/TMA.md section 5): fractions of dispatch slots, 6 per cycle
 * on Zen 4 and 8 on Zen 5. Each group's metric uses the copy of
 * ls_not_halted_cyc printed in its own group, as perf does. */
#include <math.h>
#include "tma.h"

#define EV(name) tma_ev(c, name)
#define NEAR(name, near) tma_ev_near(c, name, near)

enum { Z_RET, Z_FE, Z_BE, Z_BAD, Z_SMT, Z_LAT, Z_BW, Z_BR, Z_RESTART, Z_MEM, Z_CPU, Z_FAST, Z_UCODE, Z_N };

static const struct tma_def zen4_defs[Z_N] = {
	[Z_RET] = { "retiring", "retiring", NULL, NAN, "slots" },
	[Z_FE] = { "frontend_bound", "frontend_bound", NULL, NAN, "slots" },
	[Z_BE] = { "backend_bound", "backend_bound", NULL, NAN, "slots" },
	[Z_BAD] = { "bad_speculation", "bad_speculation", NULL, NAN, "slots" },
	[Z_SMT] = { "smt_contention", "smt_contention", NULL, NAN, "slots" },
	[Z_LAT] = { "fetch_latency", "frontend_bound_latency", "frontend_bound", NAN, "slots" },
	[Z_BW] = { "fetch_bandwidth", "frontend_bound_bandwidth", "frontend_bound", NAN, "slots" },
	[Z_BR] = { "branch_mispredicts", "bad_speculation_mispredicts", "bad_speculation", NAN, "slots" },
	[Z_RESTART] = { "pipeline_restarts", "bad_speculation_pipeline_restarts", "bad_speculation", NAN, "slots" },
	[Z_MEM] = { "memory_bound", "backend_bound_memory", "backend_bound", NAN, "slots" },
	[Z_CPU] = { "core_bound", "backend_bound_cpu", "backend_bound", NAN, "slots" },
	[Z_FAST] = { "light_operations", "retiring_fastpath", "retiring", NAN, "slots" },
	[Z_UCODE] = { "heavy_operations", "retiring_microcode", "retiring", NAN, "slots" },
};

static const struct tma_def zen5_defs[Z_N] = {
	[Z_RET] = { "retiring", "retiring", NULL, NAN, "slots" },
	[Z_FE] = { "frontend_bound", "frontend_bound", NULL, NAN, "slots" },
	[Z_BE] = { "backend_bound", "backend_bound", NULL, NAN, "slots" },
	[Z_BAD] = { "bad_speculation", "bad_speculation", NULL, NAN, "slots" },
	[Z_SMT] = { "smt_contention", "smt_contention", NULL, NAN, "slots" },
	[Z_LAT] = { "fetch_latency", "frontend_bound_by_latency", "frontend_bound", NAN, "slots" },
	[Z_BW] = { "fetch_bandwidth", "frontend_bound_by_bandwidth", "frontend_bound", NAN, "slots" },
	[Z_BR] = { "branch_mispredicts", "bad_speculation_from_mispredicts", "bad_speculation", NAN, "slots" },
	[Z_RESTART] = { "pipeline_restarts", "bad_speculation_from_pipeline_restarts", "bad_speculation", NAN, "slots" },
	[Z_MEM] = { "memory_bound", "backend_bound_by_memory", "backend_bound", NAN, "slots" },
	[Z_CPU] = { "core_bound", "backend_bound_by_cpu", "backend_bound", NAN, "slots" },
	[Z_FAST] = { "light_operations", "retiring_from_fastpath", "retiring", NAN, "slots" },
	[Z_UCODE] = { "heavy_operations", "retiring_from_microcode", "retiring", NAN, "slots" },
};

#define FE_EVENT "de_no_dispatch_per_slot.no_ops_from_frontend"

static void zen(const struct tma_ctx *c, double *v, const char *latency_event, const char *resync_event)
{
	double w = c->width;
	v[Z_RET] = EV("ex_ret_ops") / (w * NEAR("cycles", "ex_ret_ops"));
	v[Z_FE] = EV(FE_EVENT) / (w * NEAR("cycles", FE_EVENT));
	v[Z_BE] = EV("de_no_dispatch_per_slot.backend_stalls") /
		  (w * NEAR("cycles", "de_no_dispatch_per_slot.backend_stalls"));
	v[Z_BAD] = (EV("de_src_op_disp.all") - EV("ex_ret_ops")) / (w * NEAR("cycles", "de_src_op_disp.all"));
	v[Z_SMT] = EV("de_no_dispatch_per_slot.smt_contention") /
		   (w * NEAR("cycles", "de_no_dispatch_per_slot.smt_contention"));
	double slots_lat = w * NEAR("cycles", latency_event);
	v[Z_LAT] = w * EV(latency_event) / slots_lat;
	v[Z_BW] = (NEAR(FE_EVENT, latency_event) - w * EV(latency_event)) / slots_lat;
	double misp = EV("branch-misses"), resync = EV(resync_event);   /* ex_ret_brn_misp */
	double bad = (NEAR("de_src_op_disp.all", "branch-misses") - NEAR("ex_ret_ops", "branch-misses")) /
		     (w * NEAR("cycles", "branch-misses"));
	v[Z_BR] = bad * misp / (misp + resync);
	v[Z_RESTART] = bad * resync / (misp + resync);
	double be = NEAR("de_no_dispatch_per_slot.backend_stalls", "ex_no_retire.load_not_complete") /
		    (w * NEAR("cycles", "ex_no_retire.load_not_complete"));
	double load_share = EV("ex_no_retire.load_not_complete") / EV("ex_no_retire.not_complete");
	v[Z_MEM] = be * load_share;
	v[Z_CPU] = be * (1 - load_share);
	double ret = NEAR("ex_ret_ops", "ex_ret_ucode_ops") / (w * NEAR("cycles", "ex_ret_ucode_ops"));
	double ucode_share = EV("ex_ret_ucode_ops") / NEAR("ex_ret_ops", "ex_ret_ucode_ops");
	v[Z_FAST] = ret * (1 - ucode_share);
	v[Z_UCODE] = ret * ucode_share;
}

static void zen4(const struct tma_ctx *c, double *v)
{
	zen(c, v, "cpu/de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x6/", "resyncs_or_nc_redirects");
}

static void zen5(const struct tma_ctx *c, double *v)
{
	zen(c, v, "cpu/de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x8/", "bp_redirects.resync");
}

static const char *const zen_events[] = { FE_EVENT, "cycles", NULL };
static const char *const zen5_events[] = { FE_EVENT, "cycles", "bp_redirects.resync", NULL };

const struct tma_model tma_amd_zen4 = {
	"amd-zen4", "AMD Zen 4 pipeline utilization (6 dispatch slots per cycle)", zen_events, 6, zen4_defs, Z_N, zen4,
};

const struct tma_model tma_amd_zen5 = {
	"amd-zen5", "AMD Zen 5 pipeline utilization (8 dispatch slots per cycle)", zen5_events, 8, zen5_defs, Z_N, zen5,
};
