/* The Top-down nodes perf's own metric table gives (perf_metric_table.h),
 * placed in a tree: every tma_* metric of the set's PMU whose events the
 * set holds, at the place its metric groups give it. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/counter_groups.h"
#include "analysis/perf_metric_table.h"
#include "common/diag.h"
#include "tma.h"

/* tdkit's name of a table metric ("tma_dram_bound" -> "dram_bound"), NULL
 * for what is not a node (tma_info_*, other metrics). */
static const char *node_name(const char *perf_name)
{
	if (strncmp(perf_name, "tma_", 4) || !strncmp(perf_name, "tma_info_", 9))
		return NULL;
	bool uncorrected;
	return tma_node_for_perf_unit(perf_name, &uncorrected);
}

/* A node's share is of cycles when its formula divides by the clock. */
static const char *domain_of(const struct perf_metric_def *d)
{
	return strstr(d->expr_text, "CLKS") || strstr(d->expr_text, "CPU_CLK_UNHALTED") ? "cycles" : "slots";
}

/* A node the vocabulary places elsewhere than this perf's groups do
 * (serializing_operation: under core_bound in later TMA versions, under
 * ports_utilized_0 in perf 6.1's): a definition of its own with the
 * groups' parent, made once per (node, parent) and kept for the life of
 * the program, as tma_deeper_def's are. */
#define MAX_PLACED 64
static struct tma_def placed_defs[MAX_PLACED];
static int nplaced;
static pthread_mutex_t placed_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct tma_def *placed(const struct tma_def *def, const char *parent)
{
	const struct tma_def *found = def;
	pthread_mutex_lock(&placed_lock);
	int i = 0;
	while (i < nplaced && (strcmp(placed_defs[i].name, def->name) || strcmp(placed_defs[i].parent, parent)))
		i++;
	if (i < nplaced) {
		found = &placed_defs[i];
	} else if (nplaced < MAX_PLACED) {
		placed_defs[nplaced] = *def;
		placed_defs[nplaced].parent = parent;    /* a vocabulary or tma_define_node name: lives on */
		found = &placed_defs[nplaced++];
	}
	pthread_mutex_unlock(&placed_lock);
	return found;
}

/* The definition of metric i, its parents defined first. */
static const struct tma_def *define(const struct perf_metric_table *t, int i, int depth)
{
	const struct perf_metric_def *d = &t->m[i];
	const char *name = node_name(d->name);
	if (!name || depth > 16)
		return NULL;
	const char *parent = NULL;
	if (d->parent) {
		int p = perf_metric_find(t, d->parent, d->pmu);
		const struct tma_def *pd = p >= 0 ? define(t, p, depth + 1) : NULL;
		parent = pd ? pd->name : NULL;
	}
	const struct tma_def *def = tma_define_node(name, parent, domain_of(d));
	/* no parent in the groups (E-core backend_bound_aux, listed at Level 1):
	 * the vocabulary's place */
	if (!def || !parent || (def->parent && !strcmp(def->parent, parent)))
		return def;
	return placed(def, parent);
}

static int level_in(const struct tma_tree *t, const struct tma_def *d)
{
	int level = 1;
	for (const char *p = d->parent; p && level < 16; level++) {
		const struct tma_def *up = tma_def_of(t->model, p);
		p = up ? up->parent : NULL;
	}
	return level;
}

/* Parents before children, siblings in the vocabulary's order. */
static int by_level(const void *a, const void *b)
{
	const struct tma_node *x = a, *y = b;
	int rx = tma_vocabulary_rank(x->def), ry = tma_vocabulary_rank(y->def);
	return x->level != y->level ? x->level - y->level : rx != ry ? rx - ry : strcmp(x->def->name, y->def->name);
}

/* The value of metric i perf printed in a group of its own: computed from
 * that group's copies of the events, as perf computed it. */
static bool group_value(const struct perf_metric_table *t, int i, const struct counter_set *s,
			const struct tma_printed *p, int np, struct perf_metric_result *r)
{
	if (!counter_set_has_copies(s))
		return false;
	const char *name = node_name(t->m[i].name);
	for (int k = 0; k < np; k++) {
		bool uncorrected;
		if (!p[k].group || p[k].toplev)
			continue;
		const char *node = tma_node_for_perf_unit(p[k].unit, &uncorrected);
		if (!node || strcmp(node, name))
			continue;
		struct counter_set view;
		counter_set_group_view(s, p[k].group, &view);
		struct perf_metric_result *all = td_malloc((size_t)t->n * sizeof(*all));
		perf_metric_table_eval(t, &view, all);
		*r = all[i];
		free(all);
		counter_set_free(&view);
		return true;
	}
	return false;
}

void tma_perf_metrics_add(struct tma_tree *t, const struct perf_metric_table *table, const struct counter_set *s,
			  const struct tma_printed *p, int np)
{
	if (!table || !t->model)
		return;
	struct perf_metric_result *r = td_malloc((size_t)(table->n ? table->n : 1) * sizeof(*r));
	perf_metric_table_eval(table, s, r);
	int first_added = t->n;
	bool changed = false;
	for (int i = 0; i < table->n; i++) {
		const struct perf_metric_def *d = &table->m[i];
		if ((d->pmu[0] && strcmp(d->pmu, s->pmu) && !(!s->pmu[0] && !strcmp(d->pmu, "cpu"))) || !node_name(d->name))
			continue;
		const struct tma_def *def = define(table, i, 0);
		if (!def)
			continue;
		struct perf_metric_result own = r[i];
		group_value(table, i, s, p, np, &own);
		int k = tma_node_index(t, def->name);
		if (k >= 0 && !t->node[k].source && !isnan(t->node[k].value))
			continue;                  /* the model's formula computed it */
		if (isnan(own.value)) {
			/* named as not computable under a parent with a value, where
			 * a sibling was computed: that part of the tree was asked for */
			if (k >= 0 || !def->parent)
				continue;
			int parent = tma_node_index(t, def->parent);
			if (parent < 0 || isnan(t->node[parent].value))
				continue;
			bool sibling = false;
			for (int j = 0; j < table->n && !sibling; j++)
				sibling = j != i && table->m[j].parent && d->parent && !strcmp(table->m[j].parent, d->parent) &&
					  !strcmp(table->m[j].pmu, d->pmu) && !isnan(r[j].value);
			struct tma_node *nd = sibling ? tma_place_node(t, -1, def, level_in(t, def), NAN, NULL) : NULL;
			if (!nd)
				continue;
			snprintf(nd->needs, sizeof nd->needs, "%s",
				 own.divzero ? "a non-zero divisor (perf drops the metric)" : own.needs[0] ? own.needs : "its events");
			changed = true;
			continue;
		}
		if (tma_place_node(t, k, def, level_in(t, def), own.value, NULL))
			changed = true;
	}
	free(r);
	if (changed)
		qsort(t->node + first_added, (size_t)(t->n - first_added), sizeof(*t->node), by_level);
	/* a replaced printed node keeps its place; a parent added after its
	 * child (the model lacked it) moves the child after it */
	int moves = 0;
	if (changed)
		for (int i = 0; i < t->n && moves < TMA_MAX_NODES * 4; i++) {
			const char *pa = t->node[i].def->parent;
			int at = pa ? tma_node_index(t, pa) : -1;
			if (at > i) {
				struct tma_node keep = t->node[i];
				memmove(&t->node[i], &t->node[i + 1], (size_t)(at - i) * sizeof(keep));
				t->node[at] = keep;
				i--;
				moves++;
			}
		}
}
