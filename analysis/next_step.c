#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "next_step.h"

/* Event-name prefixes only one vendor's PMU has (canonical names,
 * events.h); the PMU names perf prints for each vendor's cores. */
static const struct {
	const char *prefix;
	enum tma_vendor vendor;
} marks[] = {
	{ "topdown-", TMA_INTEL }, { "slots", TMA_INTEL }, { "cpu_clk_unhalted.", TMA_INTEL }, { "uops_", TMA_INTEL },
	{ "idq", TMA_INTEL }, { "cycle_activity.", TMA_INTEL }, { "exe_activity.", TMA_INTEL },
	{ "mem_load_retired.", TMA_INTEL }, { "int_misc.", TMA_INTEL }, { "br_inst_retired.", TMA_INTEL },
	{ "br_misp_retired.", TMA_INTEL }, { "machine_clears.", TMA_INTEL }, { "memory_activity.", TMA_INTEL },
	{ "topdown_", TMA_INTEL }, { "arith.", TMA_INTEL }, { "offcore_", TMA_INTEL }, { "longest_lat_cache.", TMA_INTEL },
	{ "ls_", TMA_AMD }, { "ex_ret", TMA_AMD }, { "ex_no_retire", TMA_AMD }, { "de_", TMA_AMD }, { "ic_", TMA_AMD },
	{ "bp_", TMA_AMD }, { "resyncs_or_nc_redirects", TMA_AMD }, { "l2_cache_req_stat", TMA_AMD },
	{ "stall_slot", TMA_ARM }, { "stall_frontend", TMA_ARM }, { "stall_backend", TMA_ARM }, { "op_retired", TMA_ARM },
	{ "op_spec", TMA_ARM }, { "inst_spec", TMA_ARM }, { "br_mis_pred", TMA_ARM }, { "br_pred", TMA_ARM },
	{ "br_retired", TMA_ARM }, { "l1d_cache", TMA_ARM }, { "l2d_cache", TMA_ARM }, { "l1i_cache", TMA_ARM },
	{ "l3d_cache", TMA_ARM }, { "mem_access", TMA_ARM }, { "dtlb_walk", TMA_ARM }, { "itlb_walk", TMA_ARM },
};

static const struct {
	const char *prefix;
	enum tma_vendor vendor;
} pmus[] = {
	{ "cpu_core", TMA_INTEL }, { "cpu_atom", TMA_INTEL }, { "armv8_", TMA_ARM }, { "armv9_", TMA_ARM },
	{ "arm_", TMA_ARM }, { "amd_", TMA_AMD },
};

enum tma_vendor next_step_vendor_of_event(const char *name)
{
	for (size_t k = 0; k < sizeof pmus / sizeof *pmus; k++)
		if (!strncmp(name, pmus[k].prefix, strlen(pmus[k].prefix)))
			return pmus[k].vendor;
	const char *slash = strrchr(name, '/');
	if (slash)
		name = slash + 1;
	for (size_t k = 0; k < sizeof marks / sizeof *marks; k++)
		if (!strncmp(name, marks[k].prefix, strlen(marks[k].prefix)))
			return marks[k].vendor;
	return TMA_NVENDORS;
}

void machine_of(const struct counter_set *s, const struct tma_tree *t, const char *cpuid, struct machine *m)
{
	m->vendor = TMA_NVENDORS;
	m->model = NULL;
	if (t && t->model && strcmp(t->model->id, "perf")) {
		m->model = t->model->id;
		m->vendor = tma_vendor_of(t->model->id);
		return;
	}
	for (size_t k = 0; k < sizeof pmus / sizeof *pmus; k++)
		if (!strncmp(s->pmu, pmus[k].prefix, strlen(pmus[k].prefix))) {
			m->vendor = pmus[k].vendor;
			return;
		}
	int votes[TMA_NVENDORS] = { 0 };
	for (int i = 0; i < s->n; i++)
		for (size_t k = 0; k < sizeof marks / sizeof *marks; k++)
			if (!strncmp(s->c[i].name, marks[k].prefix, strlen(marks[k].prefix)))
				votes[marks[k].vendor]++;
	/* perf prints Intel's tma_* metrics only on Intel */
	if (t && t->n && t->node[0].source && !strcmp(t->node[0].source, "perf"))
		for (int i = 0; i < t->n; i++)
			if (t->node[i].def->vendor_name && !strncmp(t->node[i].def->vendor_name, "tma_", 4))
				votes[TMA_INTEL]++;
	int best = -1;
	for (int v = 0; v < TMA_NVENDORS; v++)
		if (votes[v] && (best < 0 || votes[v] > votes[best]))
			best = v;
	if (best >= 0)
		m->vendor = (enum tma_vendor)best;
	/* the capture's cpuid says it when the events do not */
	if (m->vendor == TMA_NVENDORS && cpuid)
		m->vendor = !strncmp(cpuid, "GenuineIntel", 12) ? TMA_INTEL
			  : !strncmp(cpuid, "AuthenticAMD", 12) || !strncmp(cpuid, "HygonGenuine", 12) ? TMA_AMD
			  : !strncmp(cpuid, "0x", 2) && ((strtoull(cpuid, NULL, 16) >> 24) & 0xff) == 0x41 ? TMA_ARM
			  : TMA_NVENDORS;     /* an Arm MIDR: implementer 0x41 in bits 31:24 */
}

/* Top-down level 1 for each machine. AMD: perf defines PipelineL1 from
 * Zen 4 on only; Arm: the slot-based TopdownL1 from Neoverse V1 on, N1
 * and older cores count stall cycles only. */
const char *next_step_topdown(const struct machine *m)
{
	switch (m->vendor) {
	case TMA_INTEL:
		return "perf stat -M TopdownL1 -- CMD | td-derive";
	case TMA_AMD:
		if (m->model)
			return "perf stat -M PipelineL1 -- CMD | td-derive";
		return "perf stat -M PipelineL1 -- CMD | td-derive  (Zen 4 and later; perf defines no pipeline metrics "
		       "for Zen 3 and earlier: perf stat -e cycles,instructions,stalled-cycles-frontend,stalled-cycles-backend)";
	case TMA_ARM:
		if (m->model)
			return "perf stat -M TopdownL1 -- CMD | td-derive";
		return "perf stat -M TopdownL1 -- CMD | td-derive  (Neoverse V1 and later; on N1 and older cores: "
		       "perf stat -e cpu_cycles,stall_frontend,stall_backend)";
	case TMA_NVENDORS:
		break;
	}
	return metrics_next_topdown;
}

/* Branch sampling: LBR (Intel), LbrExtV2/BRS (AMD); Arm cores before
 * Armv9.2 have no branch stack (BRBE): SPE samples branches instead. */
static const char *branches_for(const struct machine *m)
{
	if (m->vendor == TMA_ARM)
		return "perf record -e arm_spe/branch_filter=1,event_filter=0x80/ -- CMD; perf script | td-branches  "
		       "(SPE samples branches: Arm cores have no branch stack before Armv9.2's BRBE)";
	if (m->vendor == TMA_NVENDORS)
		return "perf record -b -e cycles -- CMD; perf script -F comm,pid,tid,ip,sym,brstack | td-branches  "
		       "(Arm: perf record -e arm_spe/branch_filter=1,event_filter=0x80/ -- CMD; perf script | td-branches)";
	return metrics_next_branches;
}

const char *next_step_metric(const struct metric_value *v, const struct machine *m, bool topdown_held)
{
	if (v->next_step == metrics_next_topdown)
		return topdown_held ? "" : next_step_topdown(m);
	if (v->next_step == metrics_next_branches)
		return branches_for(m);
	return v->next_step;
}

/* Arm's Level 2 groups Topdown_Frontend and Topdown_Backend are N3/V3
 * metrics; on V1/N2/V2 perf's metrics are the effectiveness groups. */
static const struct {
	const char *group, *instead;
} arm_l1_groups[] = {
	{ "perf stat -M Topdown_Frontend -- CMD | td-derive",
	  "perf stat -M Branch_Effectiveness,ITLB_Effectiveness,L1I_Cache_Effectiveness -- CMD | td-derive" },
	{ "perf stat -M Topdown_Backend -- CMD | td-derive",
	  "perf stat -M DTLB_Effectiveness,L1D_Cache_Effectiveness,L2_Cache_Effectiveness,LL_Cache_Effectiveness,"
	  "Operation_Mix -- CMD | td-derive" },
};

/* The node's children are in the capture: one has a value, none lacks an
 * event (collecting the group again, with what it lacks, would help). */
static bool children_held(const struct tma_tree *t, const char *node)
{
	bool any = false;
	for (int i = 0; i < t->n; i++)
		if (t->node[i].def->parent && !strcmp(t->node[i].def->parent, node)) {
			if (isnan(t->node[i].value))
				return false;
			any = true;
		}
	return any;
}

/* Level k of the tree is in the capture, none of its nodes lacking an event. */
static bool level_held(const struct tma_tree *t, int k)
{
	bool any = false;
	for (int i = 0; i < t->n; i++)
		if (t->node[i].level == k) {
			if (isnan(t->node[i].value))
				return false;
			any = true;
		}
	return any;
}

/* A "perf stat -M GROUP ..." clause of node's next step asks for what t
 * already holds: a Level k group given for a Level k-1 node is held when
 * that node's children are. */
static bool group_held(const struct tma_tree *t, const char *node, const char *clause)
{
	char group[64];
	if (sscanf(clause, "perf stat -M %63s", group) != 1)
		return false;
	int k;
	char tail;
	if (sscanf(group, "TopdownL%d%c", &k, &tail) == 1 || sscanf(group, "PipelineL%d%c", &k, &tail) == 1 ||
	    sscanf(group, "TopDownL%d%c", &k, &tail) == 1)
	{
		const struct tma_node *n = tma_find(t, node);
		return n && n->level == k - 1 ? children_held(t, node) : level_held(t, k);
	}
	if (!strcmp(group, "Topdown_Frontend"))
		return children_held(t, "frontend_bound");
	if (!strcmp(group, "Topdown_Backend"))
		return children_held(t, "backend_bound");
	size_t n = strlen(group);
	if (!strncmp(group, "tma_", 4) && n > 10 && !strcmp(group + n - 6, "_group")) {
		char node[64];
		snprintf(node, sizeof node, "%.*s", (int)(n - 10), group + 4);
		return children_held(t, node);
	}
	return false;
}

/* Two trees of one PMU from the same model, or one of them from the
 * values perf printed (no model: the same machine). */
static bool same_machine(const struct tma_tree *a, const struct tma_tree *b)
{
	return a->model == b->model || !strcmp(a->model->id, "perf") || !strcmp(b->model->id, "perf");
}

/* Held in t or in a tree of the same machine and PMU elsewhere in the capture. */
static bool held_anywhere(const struct tma_tree *t, const struct tma_tree *const *others, int nothers, const char *node,
			  const char *clause)
{
	if (group_held(t, node, clause))
		return true;
	for (int i = 0; i < nothers; i++)
		if (others[i] != t && same_machine(others[i], t) && tma_find(others[i], node) &&
		    group_held(others[i], node, clause))
			return true;
	return false;
}

const char *next_step_node(const struct tma_tree *t, const struct tma_tree *const *others, int nothers, const char *node,
			   const struct machine *m, char *buf, size_t cap)
{
	buf[0] = '\0';
	const struct tma_explanation *e = tma_explain(node);
	if (!e || cap == 0)
		return buf;
	enum tma_vendor v = m->vendor == TMA_NVENDORS ? TMA_INTEL : m->vendor;
	const char *step = e->next[v];
	bool old_arm = m->model && (!strcmp(m->model, "arm-n2") || !strcmp(m->model, "arm-v2"));
	/* the step's clauses, "; "-separated: each kept, replaced or dropped */
	size_t used = 0;
	for (const char *c = step; *c;) {
		const char *end = strstr(c, "; ");
		size_t len = end ? (size_t)(end - c) : strlen(c);
		char clause[400];
		snprintf(clause, sizeof clause, "%.*s", (int)len, c);
		c += len + (end ? 2 : 0);
		if (held_anywhere(t, others, nothers, node, clause))
			continue;          /* the capture holds the group's nodes */
		const char *text = clause;
		for (size_t k = 0; old_arm && k < sizeof arm_l1_groups / sizeof *arm_l1_groups; k++)
			if (!strcmp(clause, arm_l1_groups[k].group))
				text = arm_l1_groups[k].instead;
		if (strstr(text, "perf record -b") && v == TMA_ARM)
			text = branches_for(m);
		int w = snprintf(buf + used, cap - used, "%s%s", used ? "; " : "", text);
		if (w < 0 || (size_t)w >= cap - used)
			break;
		used += (size_t)w;
	}
	return buf;
}

/* ---- the diagnosis -------------------------------------------------------- */

static const struct metric_value *metric(const struct metric_value *mv, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(mv[i].name, name))
			return &mv[i];
	return NULL;
}

static bool high(const struct metric_value *mv, int n, const char *name)
{
	const struct metric_value *v = metric(mv, n, name);
	return v && !strcmp(v->verdict, "investigate");
}

/* Appends "name value unit" of the high ones among names to out. */
static void list_high(char *out, size_t cap, const struct metric_value *mv, int n, const char *const *names)
{
	for (const char *const *k = names; *k; k++) {
		const struct metric_value *v = metric(mv, n, *k);
		if (!v || strcmp(v->verdict, "investigate"))
			continue;
		size_t used = strlen(out);
		snprintf(out + used, cap - used, "%s%s %.*f%s", used ? ", " : "", v->name, v->unit[0] == '%' ? 1 : 2,
			 v->value, v->unit);
	}
}

static bool counted(const struct counter_set *s, const char *name)
{
	const struct counter *c = counter_set_get(s, name);
	return c && !isnan(c->value);
}

/* An event that alone would complete a metric: the one to add. */
static const struct {
	const char *has, *lacks, *gives;
} one_more[] = {
	{ "branch-misses", "branches", "the branch miss rate" },
	{ "instructions", "cycles", "IPC" },
	{ "cycles", "instructions", "IPC" },
	{ "cache-misses", "cache-references", "the cache miss rate" },
	{ "l1-dcache-load-misses", "l1-dcache-loads", "the L1d miss rate" },
	{ "llc-load-misses", "llc-loads", "the LLC miss rate" },
	{ "dtlb-load-misses", "dtlb-loads", "the dTLB miss rate" },
	{ "itlb-load-misses", "itlb-loads", "the iTLB miss rate" },
	{ "br_mis_pred_retired", "br_retired", "the retired mispredict rate" },
	{ "stalled-cycles-frontend", "cycles", "the frontend stall share" },
};

static void completion(const struct counter_set *s, struct diagnosis *d)
{
	for (size_t k = 0; k < sizeof one_more / sizeof *one_more; k++)
		if (counted(s, one_more[k].has) && !counted(s, one_more[k].lacks)) {
			size_t used = strlen(d->complete);
			if (used && strstr(d->complete, one_more[k].gives))
				continue;
			snprintf(d->complete + used, sizeof d->complete - used, "%sadd %s to get %s", used ? "; " : "",
				 one_more[k].lacks, one_more[k].gives);
		}
}

/* The Top-down tree answers: the bottleneck path, its leaf's next step. */
static void from_tree(const struct tma_tree *t, const struct tma_tree *const *others, int nothers,
		      const struct machine *m, struct diagnosis *d)
{
	const struct tma_node *leaf = NULL;
	size_t used = 0;
	for (int k = 0; k < t->n; k++)
		if (t->node[k].on_path) {
			int w = snprintf(d->finding + used, sizeof d->finding - used, "%s%s %.1f%%", leaf ? " -> " : "",
					 t->node[k].def->name, 100 * t->node[k].value);
			if (w > 0 && (size_t)w < sizeof d->finding - used)
				used += (size_t)w;
			leaf = &t->node[k];
		}
	if (!leaf)
		return;
	const struct tma_node *root = NULL;
	for (int k = 0; k < t->n; k++)
		if (t->node[k].on_path && t->node[k].level == 1)
			root = &t->node[k];
	if (root && !root->high) {
		snprintf(d->finding + used, sizeof d->finding - used, " (the largest stall category, under its limit: no "
			 "Top-down category is high)");
		return;
	}
	const struct tma_explanation *e = tma_explain(leaf->def->name);
	if (e) {
		snprintf(d->finding + used, sizeof d->finding - used, ": %s", e->measures);
		d->causes = e->causes;
		d->change = e->change;
	}
	next_step_node(t, others, nothers, leaf->def->name, m, d->next, sizeof d->next);
	char own[sizeof d->next];
	if (!d->next[0] && next_step_node(t, NULL, 0, leaf->def->name, m, own, sizeof own)[0])
		snprintf(d->next, sizeof d->next, "(the next level is in another run's tree of this capture)");
	if (t->warning[0]) {
		used = strlen(d->finding);
		snprintf(d->finding + used, sizeof d->finding - used, " (mismeasured: %s)", t->warning);
	}
}

void diagnose(const struct counter_set *s, const struct metric_value *mv, int n, const struct tma_tree *t,
	      const struct tma_tree *const *others, int nothers, const struct machine *m, struct diagnosis *d)
{
	d->finding[0] = d->next[0] = d->complete[0] = '\0';
	d->causes = d->change = NULL;
	bool topdown_held = t != NULL || nothers > 0;
	completion(s, d);
	bool has_path = false;
	for (int k = 0; t && k < t->n; k++)
		has_path |= t->node[k].on_path;
	if (has_path) {
		from_tree(t, others, nothers, m, d);
		return;
	}
	static const char *const memory[] = { "l1d_miss_rate", "llc_miss_rate", "cache_miss_rate", "l2_miss_rate",
					      "l1d_to_l2_miss_rate", "l2_to_llc_miss_rate", "dtlb_miss_rate",
					      "backend_memory_bound", NULL };
	static const char *const branch[] = { "branch_miss_rate", "retired_mispredict_rate",
					      "speculative_mispredict_rate", NULL };
	static const char *const frontend[] = { "l1i_mpki", "itlb_miss_rate", "frontend_cycles_idle", NULL };
	static const char *const backend[] = { "backend_cycles_idle", NULL };
	char mem[160] = "", br[160] = "", fe[160] = "", be[160] = "";
	list_high(mem, sizeof mem, mv, n, memory);
	list_high(br, sizeof br, mv, n, branch);
	list_high(fe, sizeof fe, mv, n, frontend);
	list_high(be, sizeof be, mv, n, backend);
	const struct metric_value *cpi = metric(mv, n, "cpi");
	bool cpi_high = high(mv, n, "cpi");
	char cpi_text[48] = "";
	if (cpi)
		snprintf(cpi_text, sizeof cpi_text, "CPI %.2f%s", cpi->value, mem[0] || br[0] || fe[0] || be[0] ? " with " : "");
	const struct metric_value *any = NULL;
	const char *what = NULL, *list = NULL;
	if (mem[0]) {
		what = "memory bound";
		list = mem;
	} else if (br[0]) {
		what = "bad speculation (branch mispredictions)";
		list = br;
	} else if (fe[0]) {
		what = "frontend bound (instruction fetch)";
		list = fe;
	} else if (be[0]) {
		what = "backend bound";
		list = be;
	}
	if (what) {
		snprintf(d->finding, sizeof d->finding, "%s: %s%s", what, cpi_high ? cpi_text : "", list);
		/* the first high metric of the list in the table's order names the step */
		for (int i = 0; i < n && !any; i++)
			if (!strcmp(mv[i].verdict, "investigate") && strstr(list, mv[i].name) && mv[i].next_step[0])
				any = &mv[i];
		const char *next = any ? next_step_metric(any, m, topdown_held) : "";
		/* high CPI: Top-down says which stall category first, unless held */
		if (cpi_high && !topdown_held)
			snprintf(d->next, sizeof d->next, "%s; then %s", next_step_topdown(m), next);
		else
			snprintf(d->next, sizeof d->next, "%s", next);
		return;
	}
	if (cpi_high) {
		snprintf(d->finding, sizeof d->finding, "CPI %.2f above 1 with no miss rate high among the counters here: "
			 "classify the stalls with Top-down", cpi->value);
		snprintf(d->next, sizeof d->next, "%s", topdown_held ? "" : next_step_topdown(m));
		return;
	}
	const struct metric_value *ipc = metric(mv, n, "ipc");
	if (ipc)
		snprintf(d->finding, sizeof d->finding, "no bottleneck in these counters: IPC %.2f (%s), no rate past its "
			 "limit", ipc->value, ipc->band);
	else
		snprintf(d->finding, sizeof d->finding, "not enough counters for a diagnosis (needs cycles and "
			 "instructions at least)");
}
