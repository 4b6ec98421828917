/* The event plan (plan.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "common/diag.h"
#include "filters/td-collect/perf.h"
#include "filters/td-collect/plan.h"

static void note(struct plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct plan *p, const char *fmt, ...)
{
	if (p->nnotes == PLAN_MAX_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->notes[p->nnotes++], sizeof p->notes[0], fmt, ap);
	va_end(ap);
}

static struct plan_group *add(struct plan *p, const char *what, int counters, bool metric_groups)
{
	struct plan_group *g = &p->g[p->n++];
	memset(g, 0, sizeof *g);
	g->what = what;
	g->counters = counters;
	g->metric_groups = metric_groups;
	return g;
}

/* A group of events of one PMU ("" for the generic names): those the
 * machine has, as "{a,b,c}" (one event: no braces). sysfs_checked: the
 * events are the PMU's sysfs events, so absent ones are dropped. */
static void events_group(struct plan *p, const struct machine_facts *m, const char *what, const char *pmu,
			 const char *const *events, bool sysfs_checked, const char *fixed)
{
	char list[700] = "";
	size_t used = 0;
	int n = 0, counters = 0;
	for (const char *const *e = events; *e; e++) {
		if (sysfs_checked && !detect_pmu_event(m, pmu, *e))
			continue;
		if (pmu[0])
			used += (size_t)snprintf(list + used, sizeof list - used, "%s%s/%s/", n ? "," : "", pmu, *e);
		else
			used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", n ? "," : "", *e);
		n++;
		/* events on fixed counters (Intel cycles, instructions, slots, topdown-*; Arm's cycle counter) take none */
		if (!fixed || !strstr(fixed, *e))
			counters++;
	}
	if (n == 0)
		return;
	struct plan_group *g = add(p, what, counters, false);
	snprintf(g->spec, sizeof g->spec, n > 1 ? "{%s}" : "%s", list);
}

static const char *const intel_fixed = " cycles instructions slots topdown-retiring topdown-bad-spec topdown-fe-bound "
				       "topdown-be-bound topdown-heavy-ops topdown-br-mispredict topdown-fetch-lat "
				       "topdown-mem-bound ";

/* -M with the TopdownL1..LN (or PipelineL1..) groups perf knows; false
 * when it does not know the first. */
static bool metric_groups(struct plan *p, const struct plan_options *o, const char *prefix, int deepest)
{
	char name[32], spec[256] = "";
	size_t used = 0;
	int last = 0;
	for (int l = 1; l <= o->level && l <= deepest; l++) {
		snprintf(name, sizeof name, "%s%d", prefix, l);
		if (!perf_list_has(o->metric_groups, name))
			break;
		used += (size_t)snprintf(spec + used, sizeof spec - used, "%s%s", l > 1 ? "," : "", name);
		last = l;
	}
	if (!last)
		return false;
	struct plan_group *g = add(p, "Top-down", p->counters, true);
	snprintf(g->spec, sizeof g->spec, "%s", spec);
	if (last < o->level)
		note(p, "Top-down Level %d asked; this perf's %s groups go to Level %d", o->level, prefix, last);
	return true;
}

static void intel_topdown(struct plan *p, const struct machine_facts *m, const struct plan_options *o)
{
	const struct cpu_desc *d = m->desc;
	if (m->atom_pmu[0]) {
		/* hybrid: each PMU its own group (events of two PMUs never share one) */
		static const char *const core[] = { "slots", "topdown-retiring", "topdown-bad-spec", "topdown-fe-bound",
						    "topdown-be-bound", NULL };
		static const char *const core2[] = { "slots", "topdown-retiring", "topdown-bad-spec", "topdown-fe-bound",
						     "topdown-be-bound", "topdown-heavy-ops", "topdown-br-mispredict",
						     "topdown-fetch-lat", "topdown-mem-bound", NULL };
		static const char *const atom[] = { "topdown_retiring.all", "topdown_bad_speculation.all",
						    "topdown_fe_bound.all", "topdown_be_bound.all", "cycles", NULL };
		events_group(p, m, "Top-down (P-cores)", m->core_pmu, o->level > 1 && d->topdown_l2 ? core2 : core, true,
			     intel_fixed);
		events_group(p, m, "Top-down (E-cores)", m->atom_pmu, atom, false, " cycles ");
		p->topdown = "raw events per PMU";
		if (o->level > 2)
			note(p, "Top-down Level %d asked; a hybrid's raw events give Level %d", o->level, d->topdown_l2 ? 2 : 1);
		return;
	}
	if (metric_groups(p, o, "TopdownL", 6)) {
		p->topdown = "perf metric groups";
		return;
	}
	if (d->topdown == CPU_TD_INTEL_PERF_METRICS && detect_pmu_event(m, m->core_pmu, "slots")) {
		static const char *const l1[] = { "slots", "topdown-retiring", "topdown-bad-spec", "topdown-fe-bound",
						  "topdown-be-bound", NULL };
		static const char *const l2[] = { "slots", "topdown-retiring", "topdown-bad-spec", "topdown-fe-bound",
						  "topdown-be-bound", "topdown-heavy-ops", "topdown-br-mispredict",
						  "topdown-fetch-lat", "topdown-mem-bound", NULL };
		events_group(p, m, "Top-down", "", o->level > 1 && d->topdown_l2 ? l2 : l1, false, intel_fixed);
		p->topdown = "raw events";
		if (o->level > (d->topdown_l2 ? 2 : 1))
			note(p, "Top-down Level %d asked; this perf has no TopdownL groups, the raw events give Level %d",
			     o->level, d->topdown_l2 ? 2 : 1);
		return;
	}
	if (d->topdown == CPU_TD_INTEL_PRE_ICL && detect_pmu_event(m, m->core_pmu, "topdown-total-slots")) {
		static const char *const old[] = { "topdown-total-slots", "topdown-slots-issued", "topdown-slots-retired",
						   "topdown-fetch-bubbles", "topdown-recovery-bubbles", NULL };
		events_group(p, m, "Top-down", "", old, false, NULL);
		p->topdown = "kernel topdown events";
		return;
	}
	note(p, "no Top-down events: this perf knows no TopdownL1 group for %s and the kernel exports none", m->cpuid);
}

static void amd_topdown(struct plan *p, const struct machine_facts *m, const struct plan_options *o)
{
	if (m->desc->topdown == CPU_TD_NONE) {
		note(p, "%s has no Top-down (pipeline utilization) events; IPC, branch, cache and TLB events only",
		     m->desc->name);
		return;
	}
	if (metric_groups(p, o, "PipelineL", 2)) {
		p->topdown = "perf metric groups";
		return;
	}
	note(p, "this perf knows no PipelineL1 metric group for %s (%s): no Top-down tree; a perf with %s's "
	     "pipeline.json (amdzen%c) has it", m->desc->name, m->cpuid, m->desc->name,
	     m->desc->name[strlen(m->desc->name) - 1]);
}

static void arm_topdown(struct plan *p, const struct machine_facts *m, const struct plan_options *o)
{
	if (m->desc->topdown == CPU_TD_ARM_SLOTS) {
		static const char *const slots[] = { "cpu_cycles", "stall_slot_frontend", "stall_slot_backend", "stall_slot",
						     "op_retired", "op_spec", "inst_retired", NULL };
		events_group(p, m, "Top-down (slots)", "", slots, false, " cpu_cycles ");
		p->topdown = "slot events";
	} else {
		static const char *const cycles[] = { "cpu_cycles", "inst_retired", "stall_frontend", "stall_backend",
						      "stall_backend_mem", NULL };
		const char *have[6];
		int n = 0;
		for (int i = 0; cycles[i]; i++)
			if (i < 4 || detect_pmu_event(m, m->core_pmu, cycles[i]))
				have[n++] = cycles[i];
		have[n] = NULL;
		events_group(p, m, "Top-down (cycles)", "", have, false, " cpu_cycles ");
		p->topdown = "cycle events";
		note(p, "%s: cycle-based stall shares only (no slot events): frontend and backend stall cycles, not a "
		     "Top-down tree", m->desc->name);
	}
	if (o->level > 1)
		note(p, "Top-down Level %d asked; Arm Neoverse gives Level 1 here", o->level);
}

static void generic(struct plan *p, const struct machine_facts *m)
{
	if (!strcmp(m->arch, "aarch64") || !strcmp(m->vendor, "ARM")) {
		static const char *const ipc[] = { "cpu_cycles", "inst_retired", NULL };
		static const char *const br[] = { "br_retired", "br_mis_pred_retired", NULL };
		static const char *const cache[] = { "l1d_cache", "l1d_cache_refill", "l2d_cache", "l2d_cache_refill",
						     "l1i_cache_refill", NULL };
		static const char *const tlb[] = { "l1d_tlb", "dtlb_walk", "l1i_tlb", "itlb_walk", NULL };
		const char *pmu = m->core_pmu;
		/* the names are the PMU's sysfs events; plain names when it has them */
		const char *const *sets[] = { ipc, br, cache, tlb };
		const char *what[] = { "IPC", "branches", "caches", "TLB" };
		/* the Top-down group counts cycles and instructions already */
		for (int s = p->n > 1 ? 1 : 0; s < 4; s++) {
			const char *have[8];
			int n = 0;
			for (int i = 0; sets[s][i]; i++)
				if (detect_pmu_event(m, pmu, sets[s][i]))
					have[n++] = sets[s][i];
			have[n] = NULL;
			events_group(p, m, what[s], "", have, false, " cpu_cycles ");
		}
		return;
	}
	bool intel = !strcmp(m->vendor, "GenuineIntel");
	static const char *const ipc[] = { "cycles", "instructions", NULL };
	static const char *const br[] = { "branches", "branch-misses", NULL };
	static const char *const intel_cache[] = { "L1-dcache-loads", "L1-dcache-load-misses", "LLC-loads",
						   "LLC-load-misses", NULL };
	static const char *const amd_cache[] = { "L1-dcache-loads", "L1-dcache-load-misses", "cache-references",
						 "cache-misses", NULL };
	static const char *const tlb[] = { "dTLB-loads", "dTLB-load-misses", "iTLB-loads", "iTLB-load-misses", NULL };
	events_group(p, m, "IPC", "", ipc, false, intel ? intel_fixed : NULL);
	events_group(p, m, "branches", "", br, false, NULL);
	events_group(p, m, "caches", "", intel ? intel_cache : amd_cache, false, NULL);
	events_group(p, m, "TLB", "", tlb, false, NULL);
}

/* First fit, in the table's order: the software events and Top-down first. */
static void pack(struct plan *p, int max_passes)
{
	int used[PLAN_MAX_GROUPS] = { 0 };
	int passes = 0;
	for (int i = 0; i < p->n; i++) {
		int k = 0;
		while (k < passes && used[k] + p->g[i].counters > p->counters)
			k++;
		if (k == passes)
			passes++;
		used[k] += p->g[i].counters;
		p->g[i].pass = k;
	}
	p->passes_needed = passes;
	p->passes = passes < max_passes ? passes : max_passes;
	for (int i = 0; i < p->n; i++)
		if (p->g[i].pass >= p->passes)
			p->g[i].pass = p->passes - 1;
}

void plan_events(const struct machine_facts *m, const struct plan_options *o, struct plan *p)
{
	memset(p, 0, sizeof *p);
	p->topdown = "none";
	struct plan_group *sw = add(p, "software", 0, false);
	snprintf(sw->spec, sizeof sw->spec, "task-clock,cpu-clock,context-switches,cpu-migrations,page-faults,duration_time");
	p->hardware = !detect_no_hardware(m, o->system_wide, p->no_hardware, sizeof p->no_hardware);
	if (p->hardware) {
		const struct cpu_desc *d = m->desc;
		p->counters = d ? (m->smt == 0 ? d->counters : d->counters_smt) : 4;
		if (m->nmi_watchdog == 1 && !strcmp(m->vendor, "GenuineIntel"))
			p->counters--;     /* the NMI watchdog holds one */
		if (!d)
			note(p, "CPU %s is not in tdkit's table: no Top-down events, the generic ones only", m->cpuid);
		else if (!strcmp(d->vendor, "intel"))
			intel_topdown(p, m, o);
		else if (!strcmp(d->vendor, "amd"))
			amd_topdown(p, m, o);
		else
			arm_topdown(p, m, o);
		generic(p, m);
	}
	pack(p, o->max_passes > 0 ? o->max_passes : 1);
}

void plan_warn(const struct plan *p, bool command, bool store)
{
	if (!p->hardware)
		td_warn(NULL, 0, "no hardware counters: %s; counting the software events only (task-clock, cpu-clock, "
			"context switches, migrations, page faults)%s", p->no_hardware, store ? "; the run is still stored" : "");
	for (int i = 0; i < p->nnotes; i++)
		td_warn(NULL, 0, "%s", p->notes[i]);
	if (p->passes_needed > p->passes)
		td_warn(NULL, 0, "the event groups need %d passes to keep to the %d counters; in %d perf multiplexes them "
			"(--passes %d avoids it)", p->passes_needed, p->counters, p->passes, p->passes_needed);
	else if (p->passes > 1)
		td_warn(NULL, 0, "%d passes: %s", p->passes,
			command ? "the command runs once per pass, each pass counting its own event groups"
				: "the event groups take turns over the duration");
}
