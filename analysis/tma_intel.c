/* Intel Top-down models (formulas: shared/spec/TMA.md sections 2-4, from
 * perf's JSON metrics, Intel's TMA spreadsheet and pmu-tools). Every value
 * is a fraction; the tables give tdkit's name, Intel's name, the parent and
 * the source threshold. */
#include <math.h>
#include "tma.h"

#define EV(name) tma_ev(c, name)
#define HAS(name) tma_has(c, name)

static double max0(double v) { return v > 0 ? v : (isnan(v) ? NAN : 0); }

/* ---- perf-metrics cores (Ice Lake and later, hybrid P-cores) -------- */

enum { PM_RET, PM_FE, PM_BE, PM_BAD, PM_HEAVY, PM_LIGHT, PM_BR, PM_MC, PM_LAT, PM_BW, PM_MEM, PM_CORE,
       PM_L1, PM_L2, PM_L3, PM_DRAM, PM_STORE, PM_PORTS, PM_DIV, PM_N };

static const struct tma_def perf_metrics_defs[PM_N] = {
	[PM_RET] = { "retiring", "tma_retiring", NULL, 0.7, "slots" },
	[PM_FE] = { "frontend_bound", "tma_frontend_bound", NULL, 0.15, "slots" },
	[PM_BE] = { "backend_bound", "tma_backend_bound", NULL, 0.2, "slots" },
	[PM_BAD] = { "bad_speculation", "tma_bad_speculation", NULL, 0.15, "slots" },
	[PM_HEAVY] = { "heavy_operations", "tma_heavy_operations", "retiring", 0.1, "slots" },
	[PM_LIGHT] = { "light_operations", "tma_light_operations", "retiring", 0.6, "slots" },
	[PM_BR] = { "branch_mispredicts", "tma_branch_mispredicts", "bad_speculation", 0.1, "slots" },
	[PM_MC] = { "machine_clears", "tma_machine_clears", "bad_speculation", 0.1, "slots" },
	[PM_LAT] = { "fetch_latency", "tma_fetch_latency", "frontend_bound", 0.1, "slots" },
	[PM_BW] = { "fetch_bandwidth", "tma_fetch_bandwidth", "frontend_bound", 0.1, "slots" },
	[PM_MEM] = { "memory_bound", "tma_memory_bound", "backend_bound", 0.2, "slots" },
	[PM_CORE] = { "core_bound", "tma_core_bound", "backend_bound", 0.1, "slots" },
	[PM_L1] = { "l1_bound", "tma_l1_bound", "memory_bound", 0.1, "cycles" },
	[PM_L2] = { "l2_bound", "tma_l2_bound", "memory_bound", 0.05, "cycles" },
	[PM_L3] = { "l3_bound", "tma_l3_bound", "memory_bound", 0.05, "cycles" },
	[PM_DRAM] = { "dram_bound", "tma_dram_bound", "memory_bound", 0.1, "cycles" },
	[PM_STORE] = { "store_bound", "tma_store_bound", "memory_bound", 0.2, "cycles" },
	[PM_PORTS] = { "ports_utilization", "tma_ports_utilization", "core_bound", 0.15, "cycles" },
	[PM_DIV] = { "divider", "tma_divider", "core_bound", 0.2, "cycles" },
};

/* Level 3 (cycles domain: fractions of CLKS, not of slots). Ice Lake and
 * Skylake count memory stalls with CYCLE_ACTIVITY, Sapphire Rapids and
 * the Golden Cove P-cores with MEMORY_ACTIVITY and
 * EXE_ACTIVITY.BOUND_ON_LOADS; those cores are also the ones with the
 * Level 2 bytes of PERF_METRICS (topdown-mem-bound ...), which tells them
 * apart when the memory events were not collected. */
static void level3(const struct tma_ctx *c, double *v)
{
	double clks = EV("cycles");
	bool spr = tma_counted(c, "memory_activity.stalls_l1d_miss") || tma_counted(c, "topdown-mem-bound") ||
		   tma_counted(c, "topdown-heavy-ops");
	double mem_any = spr ? EV("exe_activity.bound_on_loads") : EV("cycle_activity.stalls_mem_any");
	double l1d_miss = spr ? EV("memory_activity.stalls_l1d_miss") : EV("cycle_activity.stalls_l1d_miss");
	double l2_miss = spr ? EV("memory_activity.stalls_l2_miss") : EV("cycle_activity.stalls_l2_miss");
	double l3_miss = spr ? EV("memory_activity.stalls_l3_miss") : EV("cycle_activity.stalls_l3_miss");
	v[PM_L1] = max0((mem_any - l1d_miss) / clks);
	if (spr) {
		v[PM_L2] = (l1d_miss - l2_miss) / clks;
		v[PM_DRAM] = l3_miss / clks;
	} else {
		double l2_hit = EV("mem_load_retired.l2_hit") * (1 + EV("mem_load_retired.fb_hit") / EV("mem_load_retired.l1_miss"));
		double fb_full = HAS("l1d_pend_miss.fb_full_periods") ? EV("l1d_pend_miss.fb_full_periods")
								       : EV("cpu/l1d_pend_miss.fb_full,cmask=1/");
		v[PM_L2] = l2_hit / (l2_hit + fb_full) * (l1d_miss - l2_miss) / clks;
		v[PM_DRAM] = l3_miss / clks + (l1d_miss - l2_miss) / clks - v[PM_L2];
	}
	v[PM_L3] = (l2_miss - l3_miss) / clks;
	v[PM_STORE] = EV("exe_activity.bound_on_stores") / clks;
	double divider = HAS("arith.div_active") ? EV("arith.div_active") : EV("arith.divider_active");
	v[PM_DIV] = divider / clks;
	/* Ports_Utilization. Golden Cove counts two-port cycles as
	 * EXE_ACTIVITY.2_PORTS_UTIL,umask=0xc and the non-memory stalls with
	 * BOUND_ON_LOADS; the serializing term only where its event was
	 * counted (perf 6.1's Tiger Lake group has none). Without the divider
	 * count the branch cannot be chosen: not computable, never the
	 * smaller branch. */
	double two_ports = HAS("exe_activity.2_ports_util") ? EV("exe_activity.2_ports_util")
							   : EV("cpu/exe_activity.2_ports_util,umask=0xc/");
	double few_ports = EV("exe_activity.1_ports_util") + v[PM_RET] * two_ports;
	bool on_loads = spr || (!HAS("cycle_activity.stalls_mem_any") && HAS("exe_activity.bound_on_loads"));
	double core_stalls = EV("cycle_activity.stalls_total") -
			     (on_loads ? EV("exe_activity.bound_on_loads") : EV("cycle_activity.stalls_mem_any"));
	if (isnan(divider) || isnan(core_stalls)) {
		v[PM_PORTS] = NAN;
	} else if (divider < core_stalls) {
		double zero = EV("cpu/exe_activity.3_ports_util,umask=0x80/");
		double serializing = HAS("resource_stalls.scoreboard") ? EV("resource_stalls.scoreboard") / clks * core_stalls : 0;
		v[PM_PORTS] = (zero + serializing + few_ports) / clks;
	} else {
		v[PM_PORTS] = few_ports / clks;
	}
}

/* Memory_Bound from the stall events when PERF_METRICS gives no byte 7. */
static double memory_bound_from_stalls(const struct tma_ctx *c, double retiring, double backend)
{
	double num = EV("cycle_activity.stalls_mem_any") + EV("exe_activity.bound_on_stores");
	double den = EV("cycle_activity.stalls_total") + EV("exe_activity.1_ports_util") +
		     retiring * EV("exe_activity.2_ports_util") + EV("exe_activity.bound_on_stores");
	return num / den * backend;
}

/* Normalised by the sum of the four Level 1 counts, as perf does (the sum
 * is not exactly slots). with_corrections: the perf JSON terms for
 * dropped uops and clears (Ice Lake); without: perf 5.9-6.2's shadow
 * metrics. */
static void perf_metrics(const struct tma_ctx *c, double *v, bool with_corrections)
{
	double S = EV("topdown-retiring") + EV("topdown-fe-bound") + EV("topdown-be-bound") + EV("topdown-bad-spec");
	double slots = EV("slots");
	double dropped = with_corrections && HAS("int_misc.uop_dropping") ? EV("int_misc.uop_dropping") / slots : 0;
	double clears = NAN;
	if (HAS("int_misc.clears_count"))
		clears = EV("int_misc.clears_count");
	else if (HAS("cpu/int_misc.recovery_cycles,cmask=1,edge/"))
		clears = EV("cpu/int_misc.recovery_cycles,cmask=1,edge/");
	double clears_term = with_corrections && !isnan(clears) ? 5 * clears / slots : 0;
	v[PM_RET] = EV("topdown-retiring") / S;
	v[PM_FE] = EV("topdown-fe-bound") / S - dropped;
	v[PM_BE] = EV("topdown-be-bound") / S + clears_term;
	v[PM_BAD] = with_corrections ? max0(1 - (v[PM_FE] + v[PM_BE] + v[PM_RET])) : EV("topdown-bad-spec") / S;
	if (tma_counted(c, "topdown-heavy-ops")) {    /* PERF_METRICS with Level 2 bytes (SPR, ADL and later) */
		v[PM_HEAVY] = EV("topdown-heavy-ops") / S;
	} else if (with_corrections && HAS("idq.ms_uops") && HAS("idq.mite_uops")) {
		double ms = v[PM_RET] * slots / EV("uops_issued.any") * EV("idq.ms_uops") / slots;
		v[PM_HEAVY] = ms + v[PM_RET] * (EV("uops_decoded.dec0") - EV("cpu/uops_decoded.dec0,cmask=1/")) /
					   EV("idq.mite_uops");
	}
	v[PM_LIGHT] = max0(v[PM_RET] - v[PM_HEAVY]);
	v[PM_BR] = EV("topdown-br-mispredict") / S;
	v[PM_MC] = max0(v[PM_BAD] - v[PM_BR]);
	v[PM_LAT] = EV("topdown-fetch-lat") / S - dropped;
	v[PM_BW] = max0(v[PM_FE] - v[PM_LAT]);
	v[PM_MEM] = tma_counted(c, "topdown-mem-bound") ? EV("topdown-mem-bound") / S
					     : memory_bound_from_stalls(c, v[PM_RET], v[PM_BE]);
	v[PM_CORE] = max0(v[PM_BE] - v[PM_MEM]);
	level3(c, v);
}

static void perf_metrics_json(const struct tma_ctx *c, double *v) { perf_metrics(c, v, true); }
static void perf_metrics_shadow(const struct tma_ctx *c, double *v) { perf_metrics(c, v, false); }

static const char *const perf_metrics_events[] = { "topdown-retiring", "topdown-fe-bound", "topdown-be-bound",
						    "topdown-bad-spec", NULL };

const struct tma_model tma_intel_perf_metrics = {
	"intel-perf-metrics", "Intel with PERF_METRICS (Ice Lake and later, hybrid P-cores): slots and topdown-* events",
	perf_metrics_events, 0, perf_metrics_defs, PM_N, perf_metrics_json,
};

const struct tma_model tma_intel_perf_metrics_raw = {
	"intel-perf-metrics-shadow", "Intel PERF_METRICS as perf 5.9-6.2 printed it (no JSON corrections)",
	perf_metrics_events, 0, perf_metrics_defs, PM_N, perf_metrics_shadow,
};

/* ---- before Ice Lake (Sandy Bridge ... Cascade Lake), 4 wide ---------- */

static double core_clks(const struct tma_ctx *c)
{
	if (HAS("cpu_clk_unhalted.thread_any"))        /* SMT, all threads measured */
		return EV("cpu_clk_unhalted.thread_any") / 2;
	if (HAS("cpu_clk_unhalted.one_thread_active") && HAS("cpu_clk_unhalted.ref_xclk"))   /* SMT, per thread */
		return EV("cycles") / 2 * (1 + EV("cpu_clk_unhalted.one_thread_active") / EV("cpu_clk_unhalted.ref_xclk"));
	return EV("cycles");
}

static void pre_icl(const struct tma_ctx *c, double *v)
{
	double slots = 4 * core_clks(c);
	double recovery = HAS("int_misc.recovery_cycles_any") ? EV("int_misc.recovery_cycles_any") / 2
							       : EV("int_misc.recovery_cycles");
	double issued = EV("uops_issued.any"), retired = EV("uops_retired.retire_slots");
	v[PM_FE] = EV("idq_uops_not_delivered.core") / slots;
	v[PM_BAD] = (issued - retired + 4 * recovery) / slots;
	v[PM_RET] = retired / slots;
	v[PM_BE] = 1 - v[PM_FE] - (issued + 4 * recovery) / slots;
	v[PM_LAT] = 4 * EV("idq_uops_not_delivered.cycles_0_uops_deliv.core") / slots;
	v[PM_BW] = v[PM_FE] - v[PM_LAT];
	double misp = EV("branch-misses");        /* BR_MISP_RETIRED.ALL_BRANCHES */
	v[PM_BR] = misp / (misp + EV("machine_clears.count")) * v[PM_BAD];
	v[PM_MC] = v[PM_BAD] - v[PM_BR];
	v[PM_MEM] = memory_bound_from_stalls(c, v[PM_RET], v[PM_BE]);
	v[PM_CORE] = v[PM_BE] - v[PM_MEM];
	v[PM_HEAVY] = (retired + EV("uops_retired.macro_fused") - EV("instructions")) / slots;
	v[PM_LIGHT] = v[PM_RET] - v[PM_HEAVY];
	level3(c, v);
}

static const char *const pre_icl_events[] = { "uops_issued.any", "uops_retired.retire_slots",
					       "idq_uops_not_delivered.core", "cycles", NULL };

const struct tma_model tma_intel_pre_icl = {
	"intel-pre-icl", "Intel before Ice Lake (Sandy Bridge to Cascade Lake), 4 slots per cycle, SMT-aware",
	pre_icl_events, 4, perf_metrics_defs, PM_N, pre_icl,
};

/* ---- old perf stat --topdown kernel events (already scaled to slots) - */

static void old_topdown(const struct tma_ctx *c, double *v)
{
	double total = EV("topdown-total-slots");
	v[PM_FE] = EV("topdown-fetch-bubbles") / total;
	v[PM_RET] = EV("topdown-slots-retired") / total;
	v[PM_BAD] = (EV("topdown-slots-issued") - EV("topdown-slots-retired") + EV("topdown-recovery-bubbles")) / total;
	v[PM_BE] = 1 - (v[PM_FE] + v[PM_BAD] + v[PM_RET]);
}

static const char *const old_topdown_events[] = { "topdown-total-slots", "topdown-slots-issued",
						   "topdown-slots-retired", "topdown-fetch-bubbles", NULL };

const struct tma_model tma_intel_old_topdown = {
	"intel-old-topdown", "Intel before Ice Lake through perf stat --topdown's kernel events",
	old_topdown_events, 4, perf_metrics_defs, PM_N, old_topdown,
};

/* ---- E-cores (cpu_atom): Gracemont 5 wide, Crestmont 6, Skymont 8 ---- */

enum { AT_RET, AT_FE, AT_BE, AT_BAD, AT_LAT, AT_BW, AT_BR, AT_MC, AT_N };

static const struct tma_def atom_defs[AT_N] = {
	[AT_RET] = { "retiring", "tma_retiring", NULL, 0.75, "slots" },
	[AT_FE] = { "frontend_bound", "tma_frontend_bound", NULL, 0.20, "slots" },
	[AT_BE] = { "backend_bound", "tma_backend_bound", NULL, 0.10, "slots" },
	[AT_BAD] = { "bad_speculation", "tma_bad_speculation", NULL, 0.15, "slots" },
	[AT_LAT] = { "fetch_latency", "tma_fetch_latency", "frontend_bound", 0.15, "slots" },
	[AT_BW] = { "fetch_bandwidth", "tma_fetch_bandwidth", "frontend_bound", 0.10, "slots" },
	[AT_BR] = { "branch_mispredicts", "tma_branch_mispredicts", "bad_speculation", 0.05, "slots" },
	[AT_MC] = { "machine_clears", "tma_machine_clears", "bad_speculation", 0.05, "slots" },
};

static double atom_event(const struct tma_ctx *c, const char *all, const char *all_p)
{
	return HAS(all) ? EV(all) : EV(all_p);    /* Crestmont and later count the _P form */
}

static void atom(const struct tma_ctx *c, double *v)
{
	double slots = c->width * EV("cycles");
	double ret = atom_event(c, "topdown_retiring.all", "topdown_retiring.all_p");
	double fe = atom_event(c, "topdown_fe_bound.all", "topdown_fe_bound.all_p");
	double be = atom_event(c, "topdown_be_bound.all", "topdown_be_bound.all_p");
	v[AT_RET] = ret / slots;
	v[AT_FE] = fe / slots;
	v[AT_BE] = be / slots;
	v[AT_BAD] = HAS("topdown_bad_speculation.all_p") ? EV("topdown_bad_speculation.all_p") / slots
							  : (slots - (fe + be + ret)) / slots;
	v[AT_LAT] = EV("topdown_fe_bound.frontend_latency") / slots;
	v[AT_BW] = EV("topdown_fe_bound.frontend_bandwidth") / slots;
	v[AT_BR] = EV("topdown_bad_speculation.mispredict") / slots;
	v[AT_MC] = EV("topdown_bad_speculation.machine_clears") / slots;
}

static const char *const atom_events[] = { "topdown_retiring.all", "topdown_fe_bound.all", "topdown_be_bound.all",
					    "cycles", NULL };

const struct tma_model tma_intel_atom = {
	"intel-atom", "Intel E-core (cpu_atom: Gracemont 5 slots per cycle; --cpu intel-atom:6 or :8 for Crestmont, Skymont)",
	atom_events, 5, atom_defs, AT_N, atom,
};

static const char *const atom_p_events[] = { "topdown_retiring.all_p", "topdown_fe_bound.all_p",
					      "topdown_be_bound.all_p", "cycles", NULL };

const struct tma_model tma_intel_atom_p = {
	"intel-atom-p", "Intel E-core counting TOPDOWN_*.ALL_P (Crestmont 6 slots per cycle; --cpu intel-atom-p:8 for Skymont)",
	atom_p_events, 6, atom_defs, AT_N, atom,
};
