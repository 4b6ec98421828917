/* What td-store's verbs share: the store they open, the runs a filter selects. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/derive.h"
#include "common/diag.h"
#include "filters/td-store/verbs.h"

const char *verb_db;
bool verb_csv, verb_json, verb_markdown;
struct store_filter verb_filter;

struct td_store *verb_open(void)
{
	char err[1024];
	struct td_store *s = store_open(verb_db, err, sizeof err);
	if (!s)
		td_die("%s", err);
	return s;
}

void verb_store_failed(struct td_store *s)
{
	td_die("%s: %s", s->b->where, s->b->error);
}

int verb_filter_label(const char *arg, void *data)
{
	(void)data;
	char err[512];
	if (store_filter_add_labels(&verb_filter, arg, err, sizeof err) < 0) {
		td_error("%s", err);
		return -1;
	}
	return 0;
}

static int set_bound(char *bound, size_t cap, const char *arg)
{
	char err[512];
	if (store_filter_set_time(bound, cap, arg, err, sizeof err) < 0) {
		td_error("%s", err);
		return -1;
	}
	return 0;
}

int verb_filter_since(const char *arg, void *data)
{
	(void)data;
	return set_bound(verb_filter.since, sizeof verb_filter.since, arg);
}

int verb_filter_until(const char *arg, void *data)
{
	(void)data;
	return set_bound(verb_filter.until, sizeof verb_filter.until, arg);
}

struct select_ctx {
	verb_run_fn fn;
	void *ctx;
	long n;
};

static int run_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	(void)lens;
	struct select_ctx *c = ctx;
	if (n >= 3 && c->fn)
		c->fn(c->ctx, cols[0], cols[1], cols[2] ? cols[2] : "");
	c->n++;
	return 0;
}

long verb_select_runs(struct td_store *s, long limit, verb_run_fn fn, void *ctx)
{
	return verb_select_filtered(s, &verb_filter, limit, fn, ctx);
}

long verb_select_filtered(struct td_store *s, const struct store_filter *f, long limit, verb_run_fn fn, void *ctx)
{
	char sql[8192] = "SELECT r.id, r.time, r.summary FROM runs r WHERE 1 = 1";
	struct store_value params[64];
	int np = 0;
	store_filter_sql(f, s->b->dialect, sql, sizeof sql - 64, params, &np, 63);
	size_t used = strlen(sql);
	snprintf(sql + used, sizeof sql - used, " ORDER BY r.time DESC, r.seq DESC%s", limit > 0 ? " LIMIT ?" : "");
	if (limit > 0)
		params[np++] = SV_I(limit);
	struct select_ctx c = { fn, ctx, 0 };
	if (s->b->ops->exec(s->b, sql, params, np, run_row, &c) < 0)
		return -1;
	return c.n;
}

bool verb_node_is_useful(const char *node)
{
	return !strcmp(node, "retiring") || !strcmp(node, "light_operations") || !strcmp(node, "heavy_operations");
}

void verb_rows_of(const struct derive_run *d, struct store_run *r)
{
	struct store_counter_row *counters = td_malloc((d->ncounters + 1) * sizeof *counters);
	for (size_t i = 0; i < d->ncounters; i++) {
		const struct derive_counter *c = &d->counters[i];
		counters[i] = (struct store_counter_row){ NAN, c->scope, c->pmu, c->name, c->value, c->enabled_pct,
							  c->variance_pct };
	}
	struct store_metric_row *metrics = td_malloc((d->nmetrics + 1) * sizeof *metrics);
	for (size_t i = 0; i < d->nmetrics; i++) {
		const struct derive_metric *m = &d->metrics[i];
		metrics[i] = (struct store_metric_row){ NAN, m->scope, m->pmu, m->name, m->value, m->unit, m->better, m->level,
							m->verdict, m->confidence, m->variance_pct, m->on_path, m->source };
	}
	r->counters = counters;
	r->ncounters = d->ncounters;
	r->metrics = metrics;
	r->nmetrics = d->nmetrics;
}

void verb_rows_free(struct store_run *r)
{
	free((void *)r->counters);
	free((void *)r->metrics);
	r->counters = NULL;
	r->metrics = NULL;
}
