#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/counter_groups.h"
#include <stdint.h>
#include "common/bytes.h"
#include "common/diag.h"
#include "tma.h"

static const struct tma_model *const models[] = {
	&tma_intel_perf_metrics, &tma_intel_old_topdown, &tma_intel_pre_icl, &tma_intel_atom, &tma_intel_atom_p,
	&tma_amd_zen5, &tma_amd_zen4, &tma_arm_n3, &tma_arm_v3, &tma_arm_n2, &tma_arm_v2,
	&tma_intel_perf_metrics_raw, NULL,
};

const struct tma_model *const *tma_models(void) { return models; }

/* The counter of event, also under the spellings perf gives a
 * "cpu/EV,terms/" name on hybrid cores ("cpu_core/EV,terms/") and in
 * other versions ("EV,terms"). */
static const struct counter *lookup(const struct tma_ctx *c, const char *event)
{
	const struct counter *k = counter_set_get(c->set, event);
	if (k || strncmp(event, "cpu/", 4) || !strchr(event, ','))
		return k;
	char name[96];
	size_t n = strlen(event + 4);
	if (n < 2 || n >= sizeof name)
		return NULL;
	memcpy(name, event + 4, n - 1);          /* without "cpu/" and the closing '/' */
	name[n - 1] = '\0';
	if ((k = counter_set_get(c->set, name)) || !c->set->pmu[0])
		return k;
	char wrapped[sizeof c->set->pmu + sizeof name + 2];
	snprintf(wrapped, sizeof wrapped, "%s/%s/", c->set->pmu, name);
	return counter_set_get(c->set, wrapped);
}

/* An event the set lacks: noted for the probe, and read as 1 when the
 * probe pretends it was counted. */
static double absent(const struct tma_ctx *c, const char *event)
{
	struct tma_probe *p = c->probe;
	if (!p)
		return NAN;
	for (int i = 0; i < p->npretend; i++)
		if (td_same_name(p->pretend[i], event))
			return 1;
	for (int i = 0; i < p->nabsent; i++)
		if (td_same_name(p->absent[i], event))
			return NAN;
	if (p->nabsent < TMA_MAX_PROBED)
		p->absent[p->nabsent++] = event;
	return NAN;
}

double tma_ev(const struct tma_ctx *c, const char *event)
{
	const struct counter *k = lookup(c, event);
	return k && !isnan(k->value) && !(c->probe && c->probe->hide == k) ? k->value : absent(c, event);
}

double tma_ev_near(const struct tma_ctx *c, const char *event, const char *near)
{
	double v = counter_set_near(c->set, event, near);
	return isnan(v) ? tma_ev(c, event) : v;
}

bool tma_counted(const struct tma_ctx *c, const char *event)
{
	const struct counter *k = lookup(c, event);
	return k && !isnan(k->value);
}

bool tma_has(const struct tma_ctx *c, const char *event)
{
	return !isnan(tma_ev(c, event));
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
	{ "frontend_core_flush_bound", "frontend_flush" }, { "frontend_core_flow_bound", "frontend_flow" },
	{ "frontend_mem_cache_bound", "frontend_cache" }, { "frontend_mem_tlb_bound", "frontend_tlb" },
	{ "frontend_cache_l1i_bound", "frontend_l1i" }, { "frontend_cache_l2i_bound", "frontend_l2i" },
	{ "backend_core_rename_bound", "backend_rename" }, { "backend_busy_bound", "backend_busy" },
	{ "backend_mem_cache_bound", "backend_cache" }, { "backend_mem_tlb_bound", "backend_tlb" },
	{ "backend_mem_store_bound", "backend_store" }, { "backend_cache_l1d_bound", "backend_l1d" },
	{ "backend_cache_l2d_bound", "backend_l2d" },
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
		if (td_same_name(name, perf_names[i].printed))
			return perf_names[i].node;
	/* tma_info_* are ratios (IPC, latencies), not shares of the pipeline */
	if (!tma || !name[0] || !strncmp(name, "info_", 5))
		return NULL;
	const struct tma_def *d = tma_deeper_def(name);
	return d ? d->name : NULL;
}

/* ---- checks, levels, the bottleneck path -------------------------------- */

static int find_node(const struct tma_tree *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (td_same_name(t->node[i].def->name, name))
			return i;
	return -1;
}

int tma_node_index(const struct tma_tree *t, const char *name) { return find_node(t, name); }

struct tma_node *tma_place_node(struct tma_tree *t, int k, const struct tma_def *def, int level, double value,
				const char *source)
{
	if (k < 0) {
		if (t->n == TMA_MAX_NODES)
			return NULL;
		k = t->n++;
	}
	struct tma_node *nd = &t->node[k];
	memset(nd, 0, sizeof(*nd));
	nd->def = def;
	nd->level = level;
	nd->value = value;
	nd->source = source;
	return nd;
}

const struct tma_node *tma_find(const struct tma_tree *t, const char *name)
{
	int i = find_node(t, name);
	return i < 0 ? NULL : &t->node[i];
}

const char *tma_shown_parent(const struct tma_tree *t, const struct tma_node *n)
{
	const char *p = n->def->parent;
	while (p && find_node(t, p) < 0) {
		const struct tma_def *up = tma_def_of(t->model, p);
		p = up ? up->parent : NULL;
	}
	return p;
}

double tma_value(const struct tma_tree *t, const char *name)
{
	int i = find_node(t, name);
	return i < 0 ? NAN : t->node[i].value;
}

static int level_of(const struct tma_model *m, const struct tma_def *d)
{
	int level = 1;
	for (const char *p = d->parent; p && level < 16; level++) {
		const struct tma_def *up = tma_def_of(m, p);
		p = up ? up->parent : NULL;
	}
	return level;
}

static void check_sanity(struct tma_tree *t)
{
	double sum = 0;
	int l1 = 0;
	for (int i = 0; i < t->n; i++) {
		struct tma_node *nd = &t->node[i];
		if (isnan(nd->value) || !strcmp(nd->def->domain, "aux"))
			continue;
		if (nd->value < -0.02 || nd->value > 1.02)
			nd->mismeasured = "outside 0-100%";
		if (nd->level == 1) {
			sum += nd->value;
			l1++;
			continue;
		}
		int p = find_node(t, nd->def->parent);
		if (p >= 0 && !strcmp(nd->def->domain, "slots") && nd->value > t->node[p].value + 0.02)
			nd->mismeasured = "larger than its parent";
	}
	/* children in their parent's domain are parts of it: together no more */
	for (int p = 0; p < t->n; p++) {
		struct tma_node *pn = &t->node[p];
		double parts = 0;
		int nparts = 0;
		for (int i = 0; i < t->n && !isnan(pn->value); i++) {
			const struct tma_node *nd = &t->node[i];
			if (nd->def->parent && !strcmp(nd->def->parent, pn->def->name) && !isnan(nd->value) &&
			    !strcmp(nd->def->domain, pn->def->domain)) {
				parts += nd->value;
				nparts++;
			}
		}
		if (nparts >= 2 && parts > pn->value + 0.02 && !pn->mismeasured)
			pn->mismeasured = "smaller than the sum of its children";
	}
	/* with a node missing the rest must still fit in 100% */
	if ((l1 >= 4 && fabs(sum - 1) > 0.05) || (l1 == 3 && sum > 1.05)) {
		snprintf(t->warning, sizeof t->warning, "Level 1 sums to %.1f%%, not 100%%: the counts are inconsistent "
			 "(multiplexing, a failed group or a perf bug)", 100 * sum);
		for (int i = 0; i < t->n; i++)
			if (t->node[i].level == 1 && !isnan(t->node[i].value) && !t->node[i].mismeasured)
				t->node[i].mismeasured = "Level 1 does not sum to 100%";
	}
}

/* Level 1 is judged by the seeds' limits in every model (WORKFLOWS.md
 * section 1: Bad Speculation > 15%, Frontend Bound > 20%, Backend Bound
 * > 40%), deeper nodes by their source's threshold and only under a high
 * parent: a node is never high below a parent that is not. */
static double level1_limit(const char *name)
{
	return !strcmp(name, "bad_speculation") ? 0.15 : !strcmp(name, "frontend_bound") ? 0.20
	     : !strcmp(name, "backend_bound") ? 0.40 : NAN;
}

static void mark_high_and_path(struct tma_tree *t)
{
	for (int i = 0; i < t->n; i++) {       /* parents come first */
		struct tma_node *nd = &t->node[i];
		if (nd->level == 1) {
			nd->high = nd->value > level1_limit(nd->def->name);
			continue;
		}
		int p = nd->def->parent ? find_node(t, nd->def->parent) : -1;
		nd->high = !isnan(nd->def->threshold) && nd->value > nd->def->threshold && p >= 0 && t->node[p].high;
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
			if (t->node[k].def->parent && strcmp(t->node[k].def->parent, at) == 0 && !isnan(t->node[k].value) &&
			    strcmp(t->node[k].def->domain, "aux") && (next < 0 || t->node[k].value > t->node[next].value))
				next = k;
		/* go deeper only where the largest child is itself a problem: a
		 * child with a threshold must cross it (1% of cycles on stores is
		 * not where 48% of memory-bound slots went) */
		if (next >= 0 && !isnan(t->node[next].def->threshold) && !t->node[next].high)
			next = -1;
		at = next >= 0 ? t->node[next].def->name : NULL;
	}
}

/* The model's nodes with a value, and those without one that the reader
 * should hear about (see tma_build): marked by a NaN value and empty needs
 * until the probe fills it. */
/* The Level 1 node above d. */
static const char *root_of(const struct tma_model *m, const struct tma_def *d)
{
	for (int depth = 0; d && d->parent && depth < 16; depth++) {
		const struct tma_def *up = tma_def_of(m, d->parent);
		if (!up)
			return d->parent;
		d = up;
	}
	return d ? d->name : "";
}

/* The deepest level with a value under the same Level 1 node as d. */
static int deepest_under(const struct tma_model *m, const double *v, const struct tma_def *d)
{
	const char *root = root_of(m, d);
	int deepest = 0;
	for (int i = 0; i < m->ndefs; i++)
		if (!isnan(v[i]) && td_same_name(root_of(m, &m->defs[i]), root) && level_of(m, &m->defs[i]) > deepest)
			deepest = level_of(m, &m->defs[i]);
	return deepest;
}

/* The model's nodes with a value, and those without one whose parent has
 * a value. find_needs keeps those that were partly asked for (a node as
 * deep under the same Level 1 node has a value, or the node reads a
 * counted event its parent does not: a Level 1 capture hears nothing of
 * Level 2) and names what they lack; beyond[i]: node i needs the second
 * test. */
static void fill(struct tma_tree *t, const struct tma_model *m, const double *v, const char *source, bool *beyond)
{
	t->model = m;
	t->n = 0;
	for (int i = 0; i < m->ndefs && t->n < TMA_MAX_NODES; i++) {
		int level = level_of(m, &m->defs[i]);
		if (isnan(v[i])) {
			int p = -1;
			for (int k = 0; m->defs[i].parent && k < m->ndefs; k++)
				if (td_same_name(m->defs[k].name, m->defs[i].parent))
					p = k;
			if (m->defs[i].parent && (p < 0 || isnan(v[p])))
				continue;
		}
		beyond[t->n] = isnan(v[i]) && level > deepest_under(m, v, &m->defs[i]);
		struct tma_node *nd = &t->node[t->n++];
		memset(nd, 0, sizeof(*nd));
		nd->def = &m->defs[i];
		nd->value = v[i];
		nd->source = source;
		nd->level = level;         /* from the model: a node keeps its level when a parent is n/a */
	}
}

void tma_tree_finish(struct tma_tree *t)
{
	check_sanity(t);
	mark_high_and_path(t);
}

/* Joins the names into out ("a, b" or "a or b"). */
static void join_names(char *out, size_t cap, const char *const *names, int n, const char *sep)
{
	size_t used = strlen(out);
	for (int i = 0; i < n && used < cap; i++) {
		snprintf(out + used, cap - used, "%s%s", used ? sep : "", names[i]);
		used = strlen(out);
	}
}

/* Runs m's formulas with the listed absent events read as counted. */
static void run_pretending(const struct tma_model *m, const struct tma_ctx *base, const char *const *pretend, int n,
			   double *v)
{
	struct tma_probe p = { .pretend = pretend, .npretend = n };
	struct tma_ctx c = *base;
	c.probe = &p;
	for (int i = 0; i < TMA_MAX_NODES; i++)
		v[i] = NAN;
	m->compute(&c, v);
}

/* For every node kept without a value: which absent events its formula
 * needs, learnt by running the formulas again with events pretended
 * counted (all of them; all but one, to find the required ones; the
 * required plus one, to find alternatives). */
/* Whether node d reads a counted event that no shallower node reads (the
 * capture collected part of d's level): with every absent event
 * pretended, hiding that one counted event takes d's value and no value
 * of a shallower level. The clock and instruction counts, counted for
 * everything, tell nothing of what was asked for. */
static void reads_own_event(const struct tma_model *m, const struct tma_ctx *c, const char *const *a, int na,
			    const double *all, const bool *candidate, bool *reads)
{
	int level[TMA_MAX_NODES];
	for (int d = 0; d < m->ndefs; d++)
		level[d] = level_of(m, &m->defs[d]);
	for (int k = 0; k < c->set->n; k++) {
		if (!strcmp(c->set->c[k].name, "cycles") || !strcmp(c->set->c[k].name, "instructions"))
			continue;
		struct tma_probe p = { .pretend = a, .npretend = na, .hide = &c->set->c[k] };
		struct tma_ctx hc = *c;
		hc.probe = &p;
		double v[TMA_MAX_NODES];
		for (int i = 0; i < TMA_MAX_NODES; i++)
			v[i] = NAN;
		m->compute(&hc, v);
		int first = 99;
		for (int d = 0; d < m->ndefs; d++)
			if (isfinite(all[d]) && !isfinite(v[d]) && level[d] < first)
				first = level[d];
		for (int d = 0; d < m->ndefs; d++)
			if (candidate[d] && isfinite(all[d]) && !isfinite(v[d]) && level[d] == first)
				reads[d] = true;
	}
}

/* The values with every absent event but one pretended, for each one. */
static double (*all_but_one(const struct tma_model *m, const struct tma_ctx *c, const char *const *a, int na))[TMA_MAX_NODES]
{
	double (*wo)[TMA_MAX_NODES] = td_calloc((size_t)na + 1, sizeof(*wo));
	for (int e = 0; e < na; e++) {
		const char *rest[TMA_MAX_PROBED];
		int nr = 0;
		for (int k = 0; k < na; k++)
			if (k != e)
				rest[nr++] = a[k];
		run_pretending(m, c, rest, nr, wo[e]);
	}
	return wo;
}

/* What find_needs decided for the last set of one shape (the same
 * model, counter names, counted events and nodes without a value): the
 * sets of an interval capture have one shape, so it is decided once. */
struct needs_memo {
	unsigned long long key;
	bool valid;
	bool keep[TMA_MAX_NODES];
	char needs[TMA_MAX_NODES][sizeof(((struct tma_node *)0)->needs)];
};
static _Thread_local struct needs_memo memo;

static unsigned long long shape_key(const struct tma_tree *t, const struct tma_model *m, const struct tma_ctx *c,
				    const bool *beyond)
{
	unsigned long long h = 1469598103934665603ULL;
#define MIX(x) (h = (h ^ (unsigned long long)(x)) * 1099511628211ULL)
	MIX((uintptr_t)m);
	MIX(c->width);
	for (int k = 0; k < c->set->n; k++) {
		for (const char *p = c->set->c[k].name; *p; p++)
			MIX((unsigned char)*p);
		MIX(isnan(c->set->c[k].value) ? 2 : 3);
	}
	for (int i = 0; i < t->n; i++) {
		MIX(t->node[i].def - m->defs);
		MIX(isnan(t->node[i].value) ? 5 : 7);
		MIX(beyond[i]);
	}
#undef MIX
	return h;
}

static void find_needs_once(struct tma_tree *t, const struct tma_model *m, const struct tma_ctx *c, const bool *beyond);

static void find_needs(struct tma_tree *t, const struct tma_model *m, const struct tma_ctx *c, const bool *beyond)
{
	bool any = false;
	for (int i = 0; i < t->n; i++)
		any |= isnan(t->node[i].value);
	if (!any)
		return;
	unsigned long long key = shape_key(t, m, c, beyond);
	if (!memo.valid || memo.key != key) {
		struct tma_tree probe = *t;
		find_needs_once(&probe, m, c, beyond);
		memset(memo.keep, 0, sizeof memo.keep);
		for (int i = 0; i < probe.n; i++) {
			int d = (int)(probe.node[i].def - m->defs);
			if (d >= 0 && d < m->ndefs && isnan(probe.node[i].value)) {
				memo.keep[d] = true;
				memcpy(memo.needs[d], probe.node[i].needs, sizeof memo.needs[d]);
			}
		}
		memo.key = key;
		memo.valid = true;
	}
	int kept = 0;
	for (int i = 0; i < t->n; i++) {
		struct tma_node *nd = &t->node[i];
		int d = (int)(nd->def - m->defs);
		if (isnan(nd->value)) {
			if (d < 0 || d >= m->ndefs || !memo.keep[d])
				continue;
			memcpy(nd->needs, memo.needs[d], sizeof nd->needs);
		}
		t->node[kept++] = *nd;
	}
	t->n = kept;
}

/* find_needs, decided from the formulas. */
static void find_needs_once(struct tma_tree *t, const struct tma_model *m, const struct tma_ctx *c, const bool *beyond)
{
	/* events read only once others are counted (a branch taken on a
	 * value) show up when those are pretended: until none is new */
	const char *a[TMA_MAX_PROBED];
	int na = 0;
	double all[TMA_MAX_NODES];
	for (int round = 0; round < 8; round++) {
		struct tma_probe probe = { .pretend = a, .npretend = na };
		struct tma_ctx pc = *c;
		pc.probe = &probe;
		for (int i = 0; i < TMA_MAX_NODES; i++)
			all[i] = NAN;
		m->compute(&pc, all);
		if (!probe.nabsent || na == TMA_MAX_PROBED)
			break;
		for (int i = 0; i < probe.nabsent && na < TMA_MAX_PROBED; i++)
			a[na++] = probe.absent[i];
	}
	bool candidate[TMA_MAX_NODES] = { false }, reads[TMA_MAX_NODES] = { false };
	int ncandidates = 0;
	for (int i = 0; i < t->n; i++) {
		int d = (int)(t->node[i].def - m->defs);
		if (beyond[i] && d >= 0 && d < m->ndefs && isfinite(all[d])) {
			candidate[d] = true;
			ncandidates++;
		}
	}
	if (ncandidates)
		reads_own_event(m, c, a, na, all, candidate, reads);
	/* [e]: all but a[e] pretended, made when a node is to be named */
	double (*wo)[TMA_MAX_NODES] = NULL;
	int kept = 0;
	for (int i = 0; i < t->n; i++) {
		struct tma_node *nd = &t->node[i];
		int d = (int)(nd->def - m->defs);
		if (beyond[i] && d >= 0 && d < m->ndefs && !reads[d])
			continue;              /* not asked for: a deeper level than the capture */
		if (!isnan(nd->value) || d < 0 || d >= m->ndefs || !isfinite(all[d])) {
			if (isnan(nd->value) && !nd->needs[0])
				continue;          /* no event makes it computable: not shown */
			t->node[kept++] = *nd;
			continue;
		}
		if (!wo)
			wo = all_but_one(m, c, a, na);
		const char *req[TMA_MAX_PROBED], *alt[TMA_MAX_PROBED];
		int nreq = 0, nalt = 0;
		for (int e = 0; e < na; e++)
			if (!isfinite(wo[e][d]))
				req[nreq++] = a[e];
		double r[TMA_MAX_NODES];
		run_pretending(m, c, req, nreq, r);
		if (!isfinite(r[d]))
			for (int e = 0; e < na; e++) {
				bool in = false;
				for (int k = 0; k < nreq; k++)
					in |= req[k] == a[e];
				if (in)
					continue;
				req[nreq] = a[e];
				run_pretending(m, c, req, nreq + 1, r);
				if (isfinite(r[d]))
					alt[nalt++] = a[e];
			}
		nd->needs[0] = '\0';
		join_names(nd->needs, sizeof nd->needs, req, nreq, ", ");
		if (nalt) {
			size_t used = strlen(nd->needs);
			snprintf(nd->needs + used, sizeof nd->needs - used, "%s", used ? ", and " : "");
			char alts[96] = "";
			join_names(alts, sizeof alts, alt, nalt, " or ");
			used = strlen(nd->needs);
			snprintf(nd->needs + used, sizeof nd->needs - used, "%s", alts);
		}
		if (!nd->needs[0])
			continue;
		t->node[kept++] = *nd;
	}
	t->n = kept;
	free(wo);
}

/* perf prints percent, except early Arm metrics (fractions, no %). */
static double printed_scale(const struct tma_printed *p, int np)
{
	bool percent_seen = false;
	double l1_sum = 0;
	for (int i = 0; i < np; i++) {
		char name[96];
		bool tma, percent, ignored;
		normalize_unit(p[i].unit, name, sizeof name, &tma, &percent);
		const char *node = tma_node_for_perf_unit(p[i].unit, &ignored);
		const struct tma_def *d = node ? tma_def_of(&tma_perf_printed, node) : NULL;
		if (!d || isnan(p[i].value))
			continue;
		percent_seen |= percent;
		if (!d->parent)
			l1_sum += p[i].value;
	}
	return !percent_seen && l1_sum > 0 && l1_sum <= 1.5 ? 1 : 0.01;
}

/* The nodes perf printed that the tree has no value for, with perf's
 * value, shallow ones first so that parents come before children. */
static int cmp_rank(const void *a, const void *b)
{
	const struct tma_node *x = a, *y = b;
	int rx = tma_vocabulary_rank(x->def), ry = tma_vocabulary_rank(y->def);
	return x->level != y->level ? x->level - y->level : rx != ry ? rx - ry : strcmp(x->def->name, y->def->name);
}

static void add_printed(struct tma_tree *t, const struct tma_printed *p, int np)
{
	double scale = printed_scale(p, np);
	int first_added = t->n;
	for (int pass = 1; pass <= 16; pass++)
		for (int i = 0; i < np; i++) {
			bool ignored;
			if (p[i].toplev)
				continue;          /* toplev's values make their own tree */
			const char *node = tma_node_for_perf_unit(p[i].unit, &ignored);
			const struct tma_def *d = node ? tma_def_of(t->model, node) : NULL;
			if (!d || isnan(p[i].value) || level_of(t->model, d) != pass)
				continue;
			int k = find_node(t, node);
			if (k >= 0 && !isnan(t->node[k].value))
				continue;          /* computed, or perf printed it twice: the first */
			tma_place_node(t, k, d, pass, p[i].value * scale, "perf");
		}
	qsort(t->node + first_added, (size_t)(t->n - first_added), sizeof(*t->node), cmp_rank);
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
		const char *node = p[i].group && !p[i].toplev ? tma_node_for_perf_unit(p[i].unit, &uncorrected) : NULL;
		int k = 0;
		while (node && k < m->ndefs && !td_same_name(m->defs[k].name, node))
			k++;
		if (!node || k == m->ndefs)
			continue;
		struct counter_set view;
		counter_set_group_view(c->set, p[i].group, &view);
		struct tma_ctx vc = { .set = &view, .width = c->width };
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
	struct tma_ctx c = { s, 0, NULL };
	const struct tma_model *m = NULL;
	if (o && o->cpu) {
		m = model_by_name(o->cpu, &c.width);
		if (m && !model_applies(m, &c))
			m = NULL;
	} else {
		if (o && o->cpuid)     /* the capture says which CPU */
			m = tma_model_for_cpuid(o->cpuid, s->pmu, &c, &c.width);
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
		bool beyond[TMA_MAX_NODES];
		fill(t, m, v, NULL, beyond);
		find_needs(t, m, &c, beyond);
		bool computed = false;
		for (int i = 0; i < t->n; i++)
			computed |= !isnan(t->node[i].value);
		if (computed) {
			add_printed(t, printed, nprinted);
			tma_perf_metrics_add(t, o ? o->perf : NULL, s, printed, nprinted);
			tma_tree_finish(t);
			return true;
		}
	}
	if (nprinted && printed[0].toplev)
		return tma_toplev_build(printed, nprinted, t);
	t->n = 0;
	t->model = &tma_perf_printed;
	t->width = 0;
	add_printed(t, printed, nprinted);
	tma_perf_metrics_add(t, o ? o->perf : NULL, s, printed, nprinted);
	tma_tree_finish(t);
	return t->n > 0;
}

/* The analysis decides what is high (Level 1 by the seeds' limits, deeper
 * nodes only under a high parent); Retiring > 80% is good. */
const char *tma_assessment(const struct tma_node *n)
{
	if (isnan(n->value))
		return "n/a";
	if (n->mismeasured)
		return "mismeasured";
	if (n->level == 1 && strcmp(n->def->name, "retiring") == 0)
		return n->value > 0.8 ? "good" : "";
	return n->high ? "high" : "";
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
	struct tma_ctx c = { .set = s };
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
