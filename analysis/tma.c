#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/counter_groups.h"
#include "tma.h"

static const struct tma_model *const models[] = {
	&tma_intel_perf_metrics, &tma_intel_old_topdown, &tma_intel_pre_icl, &tma_intel_atom, &tma_intel_atom_p,
	&tma_amd_zen5, &tma_amd_zen4, &tma_arm_n3, &tma_arm_v3, &tma_arm_n2, &tma_arm_v2,
	&tma_intel_perf_metrics_raw, NULL,
};

const struct tma_model *const *tma_models(void) { return models; }

double tma_ev(const struct tma_ctx *c, const char *event)
{
	const struct counter *k = counter_set_get(c->set, event);
	return k ? k->value : NAN;
}

double tma_ev_near(const struct tma_ctx *c, const char *event, const char *near)
{
	return counter_set_near(c->set, event, near);
}

bool tma_has(const struct tma_ctx *c, const char *event)
{
	const struct counter *k = counter_set_get(c->set, event);
	return k && !isnan(k->value);
}

static bool model_applies(const struct tma_model *m, const struct tma_ctx *c)
{
	for (const char *const *e = m->required; *e; e++)
		if (!tma_has(c, *e))
			return false;
	return true;
}

/* --cpu NAME[:WIDTH] */
static const struct tma_model *model_by_name(const char *cpu, int *width)
{
	size_t n = strcspn(cpu, ":");
	for (const struct tma_model *const *m = models; *m; m++)
		if (strlen((*m)->id) == n && strncmp((*m)->id, cpu, n) == 0) {
			*width = cpu[n] == ':' ? atoi(cpu + n + 1) : (*m)->width;
			return *m;
		}
	return NULL;
}

/* ---- the tree from the metrics perf printed ---------------------------- */

static const struct {
	const char *printed, *node;
} perf_names[] = {
	{ "retiring", "retiring" }, { "frontend_bound", "frontend_bound" }, { "backend_bound", "backend_bound" },
	{ "bad_speculation", "bad_speculation" }, { "wasted", "bad_speculation" }, { "smt_contention", "smt_contention" },
	{ "heavy_operations", "heavy_operations" }, { "light_operations", "light_operations" },
	{ "branch_mispredicts", "branch_mispredicts" }, { "branch_mispredict", "branch_mispredicts" },
	{ "machine_clears", "machine_clears" }, { "fetch_latency", "fetch_latency" },
	{ "fetch_bandwidth", "fetch_bandwidth" }, { "memory_bound", "memory_bound" }, { "core_bound", "core_bound" },
	{ "frontend_bound_latency", "fetch_latency" }, { "frontend_bound_by_latency", "fetch_latency" },
	{ "frontend_bound_bandwidth", "fetch_bandwidth" }, { "frontend_bound_by_bandwidth", "fetch_bandwidth" },
	{ "bad_speculation_mispredicts", "branch_mispredicts" }, { "bad_speculation_from_mispredicts", "branch_mispredicts" },
	{ "bad_speculation_pipeline_restarts", "pipeline_restarts" },
	{ "bad_speculation_from_pipeline_restarts", "pipeline_restarts" },
	{ "backend_bound_memory", "memory_bound" }, { "backend_bound_by_memory", "memory_bound" },
	{ "backend_bound_cpu", "core_bound" }, { "backend_bound_by_cpu", "core_bound" },
	{ "retiring_fastpath", "light_operations" }, { "retiring_from_fastpath", "light_operations" },
	{ "retiring_microcode", "heavy_operations" }, { "retiring_from_microcode", "heavy_operations" },
	{ "frontend_core_bound", "frontend_core_bound" }, { "frontend_mem_bound", "frontend_mem_bound" },
	{ "backend_core_bound", "core_bound" }, { "backend_mem_bound", "memory_bound" },
	{ "bad_spec", "bad_speculation" }, { "frontend", "frontend_bound" }, { "backend", "backend_bound" },
	{ "l1_bound", "l1_bound" }, { "l2_bound", "l2_bound" }, { "l3_bound", "l3_bound" }, { "dram_bound", "dram_bound" },
	{ "store_bound", "store_bound" }, { "ports_utilization", "ports_utilization" }, { "divider", "divider" },
};

/* "%  tma_backend_bound" -> "backend_bound"; tma says whether "tma_" was there. */
static void normalize_unit(const char *unit, char *out, size_t cap, bool *tma, bool *percent)
{
	*percent = false;
	while (*unit == ' ' || *unit == '%') {
		*percent |= *unit == '%';
		unit++;
	}
	size_t n = 0;
	for (; *unit && n + 1 < cap; unit++)
		out[n++] = *unit == ' ' ? '_' : (char)tolower((unsigned char)*unit);
	while (n && out[n - 1] == '_')
		n--;
	out[n] = '\0';
	*tma = strncmp(out, "tma_", 4) == 0;
	if (*tma)
		memmove(out, out + 4, n - 3);
}

const char *tma_node_for_perf_unit(const char *unit, bool *uncorrected)
{
	char name[96];
	bool tma, percent;
	normalize_unit(unit, name, sizeof name, &tma, &percent);
	*uncorrected = !tma;
	for (size_t i = 0; i < sizeof perf_names / sizeof *perf_names; i++)
		if (strcmp(name, perf_names[i].printed) == 0)
			return perf_names[i].node;
	return NULL;
}

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

static const char *const no_events[] = { NULL };
static const struct tma_model printed_model = {
	"perf", "taken from the metrics perf printed (the raw events are not in the input)",
	no_events, 0, printed_defs, NPRINTED, NULL,
};

static bool from_printed(const struct tma_printed *p, int np, double *v)
{
	bool any = false, percent_seen = false;
	double l1_sum = 0;
	for (int i = 0; i < NPRINTED; i++)
		v[i] = NAN;
	for (int i = 0; i < np; i++) {
		char name[96];
		bool tma, percent;
		normalize_unit(p[i].unit, name, sizeof name, &tma, &percent);
		bool ignored;
		const char *node = tma_node_for_perf_unit(p[i].unit, &ignored);
		for (int k = 0; node && k < NPRINTED; k++)
			if (strcmp(printed_defs[k].name, node) == 0 && isnan(v[k]) && !isnan(p[i].value)) {
				v[k] = p[i].value;
				any = true;
				percent_seen |= percent;
				if (!printed_defs[k].parent)
					l1_sum += p[i].value;
			}
	}
	/* perf prints percent, except early Arm metrics (fractions, no %) */
	double scale = !percent_seen && l1_sum > 0 && l1_sum <= 1.5 ? 1 : 0.01;
	for (int i = 0; i < NPRINTED; i++)
		v[i] *= scale;
	return any;
}

/* ---- checks, levels, the bottleneck path -------------------------------- */

static int find_node(const struct tma_tree *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (strcmp(t->node[i].def->name, name) == 0)
			return i;
	return -1;
}

const char *tma_shown_parent(const struct tma_tree *t, const struct tma_node *n)
{
	const char *p = n->def->parent;
	while (p && find_node(t, p) < 0) {
		const char *up = NULL;
		for (int k = 0; k < t->model->ndefs; k++)
			if (!strcmp(t->model->defs[k].name, p))
				up = t->model->defs[k].parent;
		p = up;
	}
	return p;
}

double tma_value(const struct tma_tree *t, const char *name)
{
	int i = find_node(t, name);
	return i < 0 ? NAN : t->node[i].value;
}

static void check_sanity(struct tma_tree *t)
{
	double sum = 0;
	int l1 = 0;
	for (int i = 0; i < t->n; i++) {
		struct tma_node *nd = &t->node[i];
		if (nd->value < -0.02 || nd->value > 1.02)
			nd->mismeasured = "outside 0-100%";
		if (nd->level == 1) {
			sum += nd->value;
			l1++;
		} else {
			int p = find_node(t, nd->def->parent);
			if (p >= 0 && !strcmp(nd->def->domain, "slots") && nd->value > t->node[p].value + 0.02)
				nd->mismeasured = "larger than its parent";
		}
	}
	/* with a node missing the rest must still fit in 100% */
	if ((l1 >= 4 && fabs(sum - 1) > 0.05) || (l1 == 3 && sum > 1.05)) {
		snprintf(t->warning, sizeof t->warning, "Level 1 sums to %.1f%%, not 100%%: the counts are inconsistent "
			 "(multiplexing, a failed group or a perf bug)", 100 * sum);
		for (int i = 0; i < t->n; i++)
			if (t->node[i].level == 1 && !t->node[i].mismeasured)
				t->node[i].mismeasured = "Level 1 does not sum to 100%";
	}
}

static void mark_high_and_path(struct tma_tree *t)
{
	for (int i = 0; i < t->n; i++) {       /* parents come first in every table */
		struct tma_node *nd = &t->node[i];
		int p = nd->def->parent ? find_node(t, nd->def->parent) : -1;
		nd->high = !isnan(nd->def->threshold) && nd->value > nd->def->threshold && (p < 0 || t->node[p].high);
	}
	/* Level 1: the largest stall category (retiring is useful work) */
	const char *at = NULL;
	double best = -1;
	for (int i = 0; i < t->n; i++)
		if (t->node[i].level == 1 && strcmp(t->node[i].def->name, "retiring") && t->node[i].value > best) {
			best = t->node[i].value;
			at = t->node[i].def->name;
		}
	while (at) {
		int i = find_node(t, at);
		t->node[i].on_path = true;
		int next = -1;
		for (int k = 0; k < t->n; k++)
			if (t->node[k].def->parent && strcmp(t->node[k].def->parent, at) == 0 &&
			    (next < 0 || t->node[k].value > t->node[next].value))
				next = k;
		/* go deeper only where the largest child is itself a problem: a
		 * child with a threshold must cross it (1% of cycles on stores is
		 * not where 48% of memory-bound slots went) */
		if (next >= 0 && !isnan(t->node[next].def->threshold) && !t->node[next].high)
			next = -1;
		at = next >= 0 ? t->node[next].def->name : NULL;
	}
}

static void fill(struct tma_tree *t, const struct tma_model *m, const double *v, bool from_perf)
{
	t->model = m;
	t->n = 0;
	for (int i = 0; i < m->ndefs && t->n < TMA_MAX_NODES; i++) {
		if (isnan(v[i]))
			continue;
		struct tma_node *nd = &t->node[t->n++];
		memset(nd, 0, sizeof(*nd));
		nd->def = &m->defs[i];
		nd->value = v[i];
		nd->from_perf = from_perf;
		nd->level = 1;              /* from the model: a node keeps its level when a parent is n/a */
		for (const char *p = m->defs[i].parent; p; nd->level++) {
			const char *up = NULL;
			for (int k = 0; k < m->ndefs; k++)
				if (!strcmp(m->defs[k].name, p))
					up = m->defs[k].parent;
			p = up;
		}
	}
	check_sanity(t);
	mark_high_and_path(t);
}

/* Checked before trying every model: most sets (software events, cache
 * counters) have no Top-down event at all. The set knows (metrics.h). */
static bool has_topdown_events(const struct counter_set *s)
{
	return s->topdown_events;
}

/* A node perf printed is computed from the copies of its own group, as
 * perf computed it, where the set holds several copies of an event; the
 * other nodes keep the copies' mean. */
static void own_groups(const struct tma_ctx *c, const struct tma_model *m, const struct tma_printed *p, int np,
		       double *v)
{
	if (np == 0 || !counter_set_has_copies(c->set))
		return;
	for (int i = 0; i < np; i++) {
		bool uncorrected;
		const char *node = p[i].group ? tma_node_for_perf_unit(p[i].unit, &uncorrected) : NULL;
		int k = 0;
		while (node && k < m->ndefs && strcmp(m->defs[k].name, node))
			k++;
		if (!node || k == m->ndefs)
			continue;
		struct counter_set view;
		counter_set_group_view(c->set, p[i].group, &view);
		struct tma_ctx vc = { &view, c->width };
		double w[TMA_MAX_NODES];
		for (int j = 0; j < TMA_MAX_NODES; j++)
			w[j] = NAN;
		m->compute(&vc, w);
		v[k] = w[k];
		counter_set_free(&view);
	}
}

bool tma_build(const struct counter_set *s, const struct tma_printed *printed, int nprinted,
	       const struct tma_options *o, struct tma_tree *t)
{
	t->n = 0;
	if (nprinted == 0 && !has_topdown_events(s))
		return false;
	memset(t, 0, sizeof(*t));
	struct tma_ctx c = { s, 0 };
	const struct tma_model *m = NULL;
	if (o && o->cpu) {
		m = model_by_name(o->cpu, &c.width);
		if (m && !model_applies(m, &c))
			m = NULL;
	} else {
		for (const struct tma_model *const *k = models; *k && !m; k++)
			if (*k != &tma_intel_perf_metrics_raw && model_applies(*k, &c)) {
				m = *k;
				c.width = m->width;
			}
	}
	double v[TMA_MAX_NODES];
	if (m) {
		for (int i = 0; i < TMA_MAX_NODES; i++)
			v[i] = NAN;
		m->compute(&c, v);
		own_groups(&c, m, printed, nprinted, v);
		for (int i = 0; i < m->ndefs; i++)
			if (isinf(v[i]))
				v[i] = NAN;
		t->width = c.width;
		fill(t, m, v, false);
		if (t->n)
			return true;
	}
	if (nprinted && from_printed(printed, nprinted, v)) {
		fill(t, &printed_model, v, true);
		return t->n > 0;
	}
	return false;
}

/* ---- the --cpu option ---------------------------------------------------- */

const char *tma_cpu_option_error(const char *cpu)
{
	static char why[512];
	int width;
	const struct tma_model *m = model_by_name(cpu, &width);
	size_t n = strcspn(cpu, ":");
	if (!m) {
		int w = snprintf(why, sizeof why, "--cpu: no model '%.*s'; the models are", (int)n, cpu);
		for (const struct tma_model *const *k = models; *k && w > 0 && (size_t)w < sizeof why; k++)
			w += snprintf(why + w, sizeof why - (size_t)w, "%s %s", k == models ? "" : ",", (*k)->id);
		return why;
	}
	if (cpu[n] == ':') {
		char *end;
		long v = strtol(cpu + n + 1, &end, 10);
		if (end == cpu + n + 1 || *end || v < 1 || v > 16) {
			snprintf(why, sizeof why, "--cpu %s: the width after ':' is slots per cycle, 1 to 16", cpu);
			return why;
		}
	}
	return NULL;
}

bool tma_cpu_misfit(const char *cpu, const struct counter_set *s, const struct tma_model **detected)
{
	int width;
	const struct tma_model *m = model_by_name(cpu, &width);
	struct tma_ctx c = { s, 0 };
	*detected = NULL;
	if (!m || model_applies(m, &c) || !has_topdown_events(s))
		return false;
	for (const struct tma_model *const *k = models; *k && !*detected; k++)
		if (model_applies(*k, &c))
			*detected = *k;
	return true;
}

const char *tma_model_vendor(const struct tma_model *m)
{
	if (strncmp(m->id, "intel", 5) == 0)
		return "Intel";
	if (strncmp(m->id, "amd", 3) == 0)
		return "AMD";
	return "Arm";
}
