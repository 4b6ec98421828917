/* The derive engine's runs side by side (derive.h, derive_compare_file):
 * per run, the whole-run sets (summed per PMU unless per scope) with
 * metrics_compute's metrics and tma_build's tree. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/derive.h"
#include "analysis/roofline_set.h"
#include "analysis/stat_model.h"
#include "common/diag.h"

#define MAX_PRINTED 256
#define MAX_MERGED 16

struct compare {
	const struct stat_model *m;
	struct derive_compare_set *sets;
	struct metric_value (*mv)[METRICS_MAX];
	struct tma_tree *trees;
	int n, cap;
};

/* The roofline point of a whole-run set as metrics after mv[0..n): more
 * GFLOP/s is better; bandwidth and intensity have no better side. (The
 * share of the roof is not compared: under the same memory roof it is
 * GB/s over peak GB/s, and the roofs are the machine's, not the run's.)
 * Returns the new count. */
static int roofline_metrics(const struct stat_model *m, const struct counter_set *s, struct metric_value *mv, int n)
{
	struct roofline_values r;
	if (n + 3 > METRICS_MAX || !roofline_of_set(m, s, mv, n, NULL, &r))
		return n;
	struct metric_value base = { .verdict = "", .band = "", .confidence = r.confidence, .variance_pct = NAN,
				     .next_step = "", .rounding = 0 };
	mv[n] = base;
	mv[n].name = "gflops", mv[n].value = r.gflops, mv[n].unit = "GFLOP/s";
	mv[n].has_direction = mv[n].higher_is_better = true;
	n++;
	mv[n] = base;
	mv[n].name = r.proxy ? "llc_miss_gbs" : "dram_gbs", mv[n].value = r.gbs, mv[n].unit = "GB/s";
	n++;
	mv[n] = base;
	mv[n].name = "arithmetic_intensity", mv[n].value = r.ai, mv[n].unit = "FLOP/B";
	n++;
	return n;
}

/* The set's slot: its metrics, and its tree from the raw counts or from the
 * nodes toplev printed for it. */
static void add(struct compare *c, const struct counter_set *s)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 8;
		c->sets = td_realloc(c->sets, (size_t)c->cap * sizeof(*c->sets));
		c->mv = td_realloc(c->mv, (size_t)c->cap * sizeof(*c->mv));
		c->trees = td_realloc(c->trees, (size_t)c->cap * sizeof(*c->trees));
	}
	const struct stat_model *m = c->m;
	struct derive_compare_set *d = &c->sets[c->n];
	d->set = s;
	d->nmetrics = stat_model_metrics(m, s, c->mv[c->n], METRICS_MAX);
	d->nmetrics = roofline_metrics(m, s, c->mv[c->n], d->nmetrics);
	struct tma_printed printed[MAX_PRINTED];
	int np = 0;
	for (int i = 0; i < m->nperf && np < MAX_PRINTED && s->interval < 0; i++) {
		const struct perf_metric *p = &m->perf[i];
		if (p->source == STAT_FROM_TOPLEV && p->session == s->session && !strcmp(p->scope, s->scope) &&
		    !strcmp(p->pmu, s->pmu))
			printed[np++] = (struct tma_printed){ .unit = p->unit, .value = p->value, .toplev = true };
	}
	/* a pointer into trees once all are made (trees may move until then) */
	struct tma_options to = { NULL, stat_model_cpuid(m), NULL };   /* td-collect's header names the CPU */
	d->tree = tma_build(s, printed, np, &to, &c->trees[c->n]) ? (const struct tma_tree *)1 : NULL;
	c->n++;
}

/* One run's sets: scoped sets summed per PMU unless per_scope (a set of
 * toplev's has no counters: nothing to sum, its scope is kept). */
static void run_sets(struct compare *c, int session, bool per_scope, struct counter_set *merged, int *nmerged)
{
	int n;
	const struct counter_set *sum = stat_model_summary(c->m, &n);
	c->n = 0;
	*nmerged = 0;
	for (int i = 0; i < n; i++) {
		const struct counter_set *s = &sum[i];
		if (s->session != session)
			continue;
		if (per_scope || !s->scope[0] || s->n == 0) {
			add(c, s);
			continue;
		}
		int k = 0;
		while (k < *nmerged && strcmp(merged[k].pmu, s->pmu))
			k++;
		if (k == *nmerged) {
			if (*nmerged == MAX_MERGED)
				continue;
			counter_set_init(&merged[*nmerged], -1, "", s->pmu);
			merged[(*nmerged)++].session = session;
		}
		counter_set_merge(&merged[k], s);
	}
	for (int k = 0; k < *nmerged; k++)
		add(c, &merged[k]);
}

void derive_compare_file(const char *path, const struct derive_compare_options *o,
			 bool (*fn)(void *ctx, const struct derive_compare_run *r), void *ctx,
			 struct derive_compare_file *info)
{
	struct stat_model m;
	stat_model_init(&m);
	stat_read(path, o->format, stat_model_add, &m);
	stat_model_finish(&m);
	*info = (struct derive_compare_file){ .any = m.counters > 0 || m.toplev_metrics > 0, .runs = m.session + 1 };
	snprintf(info->command, sizeof info->command, "%s", m.command);
	struct compare c = { .m = &m };
	struct counter_set merged[MAX_MERGED];
	for (int s = 0; info->any && s <= m.session; s++) {
		int nmerged;
		run_sets(&c, s, o->per_scope, merged, &nmerged);
		for (int i = 0; i < c.n; i++) {
			c.sets[i].metrics = c.mv[i];
			c.sets[i].tree = c.sets[i].tree ? &c.trees[i] : NULL;
		}
		struct derive_compare_run r = { s, m.session_repeats[s], m.session_variance[s], c.sets, c.n };
		bool more = fn(ctx, &r);
		for (int k = 0; k < nmerged; k++)
			counter_set_free(&merged[k]);
		if (!more)
			break;
	}
	free(c.sets);
	free(c.mv);
	free(c.trees);
	stat_model_free(&m);
}
