/* The derive engine (derive.h): stat_model gathers the file, and each
 * run's whole-run sets become rows: counters, metrics_compute's metrics,
 * tma_build's tree (from raw events, else from the nodes perf printed). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/derive.h"
#include "analysis/metrics.h"
#include "analysis/stat_model.h"
#include "analysis/tma.h"
#include "common/diag.h"
#include "common/intern.h"

#define MAX_PRINTED 64

struct run_rows {
	struct derive_counter *counters;
	size_t ncounters, cap_counters;
	struct derive_metric *metrics;
	size_t nmetrics, cap_metrics;
	char summary[256];
	char model[64];
	int deepest;
	char *events;
	size_t events_len, events_cap;
};

static struct derive_counter *new_counter(struct run_rows *r)
{
	if (r->ncounters == r->cap_counters) {
		r->cap_counters = r->cap_counters ? r->cap_counters * 2 : 64;
		r->counters = td_realloc(r->counters, r->cap_counters * sizeof *r->counters);
	}
	return &r->counters[r->ncounters++];
}

static struct derive_metric *new_metric(struct run_rows *r)
{
	if (r->nmetrics == r->cap_metrics) {
		r->cap_metrics = r->cap_metrics ? r->cap_metrics * 2 : 64;
		r->metrics = td_realloc(r->metrics, r->cap_metrics * sizeof *r->metrics);
	}
	return &r->metrics[r->nmetrics++];
}

/* The Top-down metrics perf (or toplev) printed for s (to build the tree
 * from when the raw events are missing). */
static int printed_for(const struct stat_model *m, const struct counter_set *s, struct tma_printed *out)
{
	int n = 0;
	bool uncorrected;
	for (int i = 0; i < m->nperf && n < MAX_PRINTED; i++) {
		const struct perf_metric *p = &m->perf[i];
		if (p->session == s->session && p->interval == s->interval && !strcmp(p->scope, s->scope) &&
		    !strcmp(p->pmu, s->pmu) &&
		    (p->source == STAT_FROM_TOPLEV || tma_node_for_perf_unit(p->unit, &uncorrected)))
			out[n++] = (struct tma_printed){ .unit = p->unit, .value = p->value, .group = p->group,
							 .toplev = p->source == STAT_FROM_TOPLEV };
	}
	return n;
}

static int by_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* The counters' names, sorted, without repeats, comma-separated. */
static void list_events(struct run_rows *r)
{
	const char **names = td_malloc((r->ncounters ? r->ncounters : 1) * sizeof *names);
	for (size_t i = 0; i < r->ncounters; i++)
		names[i] = r->counters[i].name;
	qsort(names, r->ncounters, sizeof *names, by_name);
	r->events_len = 0;
	for (size_t i = 0; i < r->ncounters; i++) {
		if (i && !strcmp(names[i], names[i - 1]))
			continue;
		size_t n = strlen(names[i]);
		if (r->events_len + n + 2 > r->events_cap) {
			r->events_cap = (r->events_len + n + 2) * 2;
			r->events = td_realloc(r->events, r->events_cap);
		}
		if (r->events_len)
			r->events[r->events_len++] = ',';
		memcpy(r->events + r->events_len, names[i], n);
		r->events_len += n;
	}
	if (!r->events)
		r->events = td_calloc(1, 1);
	r->events[r->events_len] = 0;
	free(names);
}

static void add_set(struct run_rows *r, const struct stat_model *m, const struct counter_set *s,
		    const struct derive_options *o)
{
	const char *scope = s->scope[0] ? s->scope : "all";
	for (int i = 0; i < s->n; i++)
		*new_counter(r) = (struct derive_counter){ scope, s->pmu, s->c[i].name, s->c[i].value,
							    s->c[i].enabled_pct, s->c[i].variance_pct };
	struct metric_value mv[METRICS_MAX];
	int n = stat_model_metrics(m, s, mv, METRICS_MAX);
	for (int i = 0; i < n; i++) {
		const char *better = mv[i].has_direction ? (mv[i].higher_is_better ? "higher" : "lower") : "";
		*new_metric(r) = (struct derive_metric){ scope, s->pmu, mv[i].name, mv[i].value, mv[i].unit, better, 0,
							  mv[i].verdict, mv[i].confidence, mv[i].variance_pct, false,
							  "tdkit" };
		if (!r->summary[0] && !strcmp(mv[i].name, "ipc"))
			snprintf(r->summary, sizeof r->summary, "IPC %.2f", mv[i].value);
	}
	struct tma_printed printed[MAX_PRINTED];
	int np = printed_for(m, s, printed);
	struct tma_options to = { o->cpu, stat_model_cpuid(m), NULL };   /* td-collect's header names the CPU */
	struct tma_tree *t = td_malloc(sizeof(*t));    /* large: not on the stack */
	if (!tma_build(s, printed, np, &to, t)) {
		free(t);
		return;
	}
	double conf = counter_set_lowest_enabled(s);
	if (!r->model[0])
		snprintf(r->model, sizeof r->model, "%s", t->model->id);
	char level1[256] = "";
	size_t used = 0;
	for (int i = 0; i < t->n; i++) {
		const struct tma_node *nd = &t->node[i];
		/* more retiring is better, more of any stall category worse (as td-diff) */
		bool useful = !strcmp(nd->def->name, "retiring") || !strcmp(nd->def->name, "light_operations");
		*new_metric(r) = (struct derive_metric){ scope, s->pmu, nd->def->name, 100 * nd->value, "%",
							  useful ? "higher" : "lower", nd->level, tma_assessment(nd), nd->source ? NAN : conf,
							  NAN, nd->on_path, nd->source ? nd->source : "tdkit" };
		if (nd->level > r->deepest && !isnan(nd->value))
			r->deepest = nd->level;
		if (nd->level == 1 && !isnan(nd->value) && used < sizeof level1)
			used += (size_t)snprintf(level1 + used, sizeof level1 - used, "%s%s %.1f%%", used ? ", " : "",
						 nd->def->name, 100 * nd->value);
	}
	/* the tree's Level 1 is the summary, over an IPC found before */
	if (level1[0] && (!r->summary[0] || !strncmp(r->summary, "IPC", 3)) && !strstr(r->summary, "%"))
		snprintf(r->summary, sizeof r->summary, "%s", level1);
	free(t);
}

/* Each interval's rows as the model hands the interval out: appended to
 * one list for the whole file, with their time stamps and runs (runs come
 * in order, so a run's rows are one stretch). */
struct interval_rows {
	const struct derive_options *o;
	struct td_intern *names;   /* scopes, PMUs, counter names: the model reuses its interval sets */
	struct run_rows rows;
	double *counter_t, *metric_t;
	int *counter_run, *metric_run;
	size_t cap_c, cap_m;
};

static const char *kept(struct td_intern *t, const char *s)
{
	return td_intern_str(t, td_intern(t, s, strlen(s)), NULL);
}

static void on_interval(void *ctx, const struct stat_model *m)
{
	struct interval_rows *iv = ctx;
	if (!iv->names)
		iv->names = td_intern_new();
	for (int i = 0; i < m->ncur; i++) {
		size_t c0 = iv->rows.ncounters, m0 = iv->rows.nmetrics;
		add_set(&iv->rows, m, &m->cur[i], iv->o);
		if (iv->rows.cap_counters > iv->cap_c) {
			iv->cap_c = iv->rows.cap_counters;
			iv->counter_t = td_realloc(iv->counter_t, iv->cap_c * sizeof *iv->counter_t);
			iv->counter_run = td_realloc(iv->counter_run, iv->cap_c * sizeof *iv->counter_run);
		}
		if (iv->rows.cap_metrics > iv->cap_m) {
			iv->cap_m = iv->rows.cap_metrics;
			iv->metric_t = td_realloc(iv->metric_t, iv->cap_m * sizeof *iv->metric_t);
			iv->metric_run = td_realloc(iv->metric_run, iv->cap_m * sizeof *iv->metric_run);
		}
		for (size_t k = c0; k < iv->rows.ncounters; k++) {
			struct derive_counter *c = &iv->rows.counters[k];
			c->scope = kept(iv->names, c->scope);
			c->pmu = kept(iv->names, c->pmu);
			c->name = kept(iv->names, c->name);
			iv->counter_t[k] = m->cur[i].interval;
			iv->counter_run[k] = m->cur[i].session;
		}
		for (size_t k = m0; k < iv->rows.nmetrics; k++) {
			struct derive_metric *d = &iv->rows.metrics[k];
			d->scope = kept(iv->names, d->scope);
			d->pmu = kept(iv->names, d->pmu);
			d->name = kept(iv->names, d->name);
			d->unit = kept(iv->names, d->unit);
			iv->metric_t[k] = m->cur[i].interval;
			iv->metric_run[k] = m->cur[i].session;
		}
	}
}

/* The stretch [*from, *to) of rows whose run is session. */
static void stretch(const int *run, size_t n, int session, size_t *from, size_t *to)
{
	size_t a = 0;
	while (a < n && run[a] < session)
		a++;
	size_t b = a;
	while (b < n && run[b] == session)
		b++;
	*from = a;
	*to = b;
}

/* derive_file and derive_memory: data is NULL for the file at path. */
static int derive_input(const char *path, const void *data, size_t len, const struct derive_options *o,
			derive_run_fn fn, void *ctx)
{
	struct stat_model m;
	stat_model_init(&m);
	struct interval_rows iv = { .o = o };
	if (o->intervals) {
		m.on_interval = on_interval;
		m.on_interval_ctx = &iv;
	}
	enum stat_format got = data ? stat_read_memory(data, len, path, o->format, stat_model_add, &m)
				    : stat_read(path, o->format, stat_model_add, &m);
	stat_model_finish(&m);
	int nsum, runs = 0;
	const struct counter_set *sum = stat_model_summary(&m, &nsum);
	for (int session = 0; session <= m.session && session < STAT_MAX_SESSIONS; session++) {
		struct run_rows r = { 0 };
		for (int i = 0; i < nsum; i++)
			if (sum[i].session == session)
				add_set(&r, &m, &sum[i], o);
		if (r.ncounters == 0 && r.nmetrics == 0) {
			free(r.counters);
			free(r.metrics);
			continue;
		}
		for (size_t i = 0; !r.summary[0] && i < r.nmetrics; i++)
			if (!strcmp(r.metrics[i].name, "cpus_utilized"))
				snprintf(r.summary, sizeof r.summary, "%.2f CPUs utilized", r.metrics[i].value);
		list_events(&r);
		struct derive_run run = {
			.index = runs,
			.file = path,
			.layout = stat_format_name(got),
			.elapsed_s = m.elapsed[session],
			.command = m.command,
			.model = r.model,
			.deepest_level = r.deepest,
			.summary = r.summary,
			.events = r.events,
			.counters = r.counters,
			.ncounters = r.ncounters,
			.metrics = r.metrics,
			.nmetrics = r.nmetrics,
		};
		size_t a, b;
		stretch(iv.counter_run, iv.rows.ncounters, session, &a, &b);
		/* no interval rows: the arrays were never allocated (NULL + 0 is undefined) */
		run.interval_counters = b > a ? iv.rows.counters + a : NULL;
		run.counter_interval = b > a ? iv.counter_t + a : NULL;
		run.ninterval_counters = b - a;
		stretch(iv.metric_run, iv.rows.nmetrics, session, &a, &b);
		run.interval_metrics = b > a ? iv.rows.metrics + a : NULL;
		run.metric_interval = b > a ? iv.metric_t + a : NULL;
		run.ninterval_metrics = b - a;
		fn(ctx, &run);
		runs++;
		free(r.counters);
		free(r.metrics);
		free(r.events);
	}
	stat_model_free(&m);
	free(iv.rows.counters);
	free(iv.rows.metrics);
	free(iv.rows.events);
	free(iv.counter_t);
	free(iv.metric_t);
	free(iv.counter_run);
	free(iv.metric_run);
	if (iv.names)
		td_intern_free(iv.names);
	return runs;
}

int derive_file(const char *path, const struct derive_options *o, derive_run_fn fn, void *ctx)
{
	return derive_input(path, NULL, 0, o, fn, ctx);
}

int derive_memory(const void *data, size_t len, const char *name, const struct derive_options *o,
		  derive_run_fn fn, void *ctx)
{
	return derive_input(name, data ? data : "", len, o, fn, ctx);
}
