#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/events.h"
#include "common/diag.h"
#include "stat_model.h"

void stat_model_init(struct stat_model *m)
{
	memset(m, 0, sizeof(*m));
	m->elapsed_s = NAN;
	for (int i = 0; i < STAT_MAX_SESSIONS; i++)
		m->elapsed[i] = NAN;
	m->min_enabled_pct = 100;
}

void stat_model_free(struct stat_model *m)
{
	for (int i = 0; i < m->nsets; i++)
		counter_set_free(&m->sets[i]);
	for (int i = 0; i < m->ntotals; i++)
		counter_set_free(&m->totals[i]);
	free(m->sets);
	free(m->totals);
	free(m->perf);
}

static struct counter_set *find_set(struct counter_set **sets, int *n, int *cap, int session,
				    double interval, const char *scope, const char *pmu)
{
	/* perf prints in time order: scan back until an earlier interval */
	for (int i = *n; i-- > 0;) {
		struct counter_set *s = &(*sets)[i];
		if (s->session < session || (s->session == session && s->interval < interval))
			break;
		if (s->session == session && s->interval == interval && strcmp(s->scope, scope) == 0 &&
		    strcmp(s->pmu, pmu) == 0)
			return s;
	}
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*sets = td_realloc(*sets, (size_t)*cap * sizeof(**sets));
	}
	struct counter_set *s = &(*sets)[(*n)++];
	counter_set_init(s, interval, scope, pmu);
	s->session = session;
	return s;
}

static void add_perf_metric(struct stat_model *m, const struct stat_record *r)
{
	if (m->nperf == m->cap_perf) {
		m->cap_perf = m->cap_perf ? m->cap_perf * 2 : 64;
		m->perf = td_realloc(m->perf, (size_t)m->cap_perf * sizeof(*m->perf));
	}
	struct perf_metric *p = &m->perf[m->nperf++];
	struct event_name en;
	event_normalize(r->event, &en);
	p->session = m->session;
	p->interval = r->interval;
	snprintf(p->scope, sizeof p->scope, "%s", r->scope);
	snprintf(p->pmu, sizeof p->pmu, "%s", en.pmu);
	snprintf(p->event, sizeof p->event, "%s", en.name);
	snprintf(p->unit, sizeof p->unit, "%s", r->metric_unit);
	p->value = r->metric_value;
	p->decimals = r->metric_decimals;
	snprintf(p->file, sizeof p->file, "%s", r->file ? r->file : "");
	p->line = r->line;
}

void stat_model_add(void *model, const struct stat_record *r)
{
	struct stat_model *m = model;
	m->records++;
	switch (r->kind) {
	case STAT_ELAPSED:
		m->elapsed_s = isnan(m->elapsed_s) ? r->value : m->elapsed_s + r->value;
		m->elapsed[m->session] = r->value;
		return;
	case STAT_COMMAND:
		/* a second perf stat output in the same file starts a new run */
		if (m->session_has_counters && m->session + 1 < STAT_MAX_SESSIONS) {
			m->session++;
			m->session_has_counters = false;
		}
		if (!m->command[0])
			snprintf(m->command, sizeof m->command, "%s", r->event);
		return;
	case STAT_RUNS:
		m->runs = (int)r->value;
		return;
	case STAT_METRIC:
		add_perf_metric(m, r);
		return;
	case STAT_COUNTER:
		break;
	}
	struct event_name en;
	event_normalize(r->event, &en);
	double v = (r->not_counted || r->not_supported) ? NAN : r->value;
	m->counters++;
	m->session_has_counters = true;
	m->not_counted += r->not_counted;
	m->not_supported += r->not_supported;
	if (!r->not_supported && r->enabled_pct < m->min_enabled_pct)
		m->min_enabled_pct = r->enabled_pct;
	struct counter_set *s = find_set(&m->sets, &m->nsets, &m->cap_sets, m->session, r->interval, r->scope, en.pmu);
	counter_set_add(s, en.name, v, r->enabled_pct, r->variance_pct);
	if (r->interval >= 0) {
		m->has_intervals = true;
		s = find_set(&m->totals, &m->ntotals, &m->cap_totals, m->session, -1, r->scope, en.pmu);
		counter_set_add(s, en.name, v, r->enabled_pct, NAN);
	}
}

static int cmp_sets(const void *a, const void *b)
{
	const struct counter_set *x = a, *y = b;
	if (x->session != y->session)
		return x->session - y->session;
	if (x->interval != y->interval)
		return x->interval < y->interval ? -1 : 1;
	int c = strverscmp(x->scope, y->scope);
	return c ? c : strcmp(x->pmu, y->pmu);
}

static double nominal_interval(const struct stat_model *m, int session);

void stat_model_finish(struct stat_model *m)
{
	if (m->nsets)
		qsort(m->sets, (size_t)m->nsets, sizeof(*m->sets), cmp_sets);
	if (m->ntotals)
		qsort(m->totals, (size_t)m->ntotals, sizeof(*m->totals), cmp_sets);
	for (int i = 0; i <= m->session; i++)
		m->period[i] = nominal_interval(m, i);
}

const struct counter_set *stat_model_find(const struct stat_model *m, bool totals, int session,
					  double interval, const char *scope, const char *pmu)
{
	struct counter_set key;
	counter_set_init(&key, interval, scope, pmu);
	key.session = session;
	if (totals)
		return bsearch(&key, m->totals, (size_t)m->ntotals, sizeof(key), cmp_sets);
	return bsearch(&key, m->sets, (size_t)m->nsets, sizeof(key), cmp_sets);
}

const struct counter_set *stat_model_summary(const struct stat_model *m, int *n)
{
	if (m->has_intervals) {
		*n = m->ntotals;
		return m->totals;
	}
	*n = m->nsets;
	return m->sets;
}

/* first and last timestamp of a run */
static void interval_span(const struct stat_model *m, int session, double *first, double *last)
{
	*first = 1e300;
	*last = 0;
	for (int i = 0; i < m->nsets; i++) {
		const struct counter_set *s = &m->sets[i];
		if (s->session != session || s->interval < 0)
			continue;
		if (s->interval < *first)
			*first = s->interval;
		if (s->interval > *last)
			*last = s->interval;
	}
}

/* perf divides per-interval rates by the -I period it was given, not by
 * the measured gap (the last, partial interval included): take it from the
 * command line, else from the first timestamp (the period plus a little). */
static double nominal_interval(const struct stat_model *m, int session)
{
	const char *opt = strstr(m->command, "-I");
	if (!opt)
		opt = strstr(m->command, "--interval-print");
	if (opt) {
		while (*opt && !(*opt >= '0' && *opt <= '9'))
			opt++;
		double ms = strtod(opt, NULL);
		if (ms > 0)
			return ms / 1000;
	}
	double first, last;
	interval_span(m, session, &first, &last);
	if (first == 1e300)
		return NAN;
	return first >= 0.01 ? floor(first * 100 + 1e-9) / 100 : first;   /* -I is usually a round 10 ms */
}

int stat_model_metrics(const struct stat_model *m, const struct counter_set *s,
		       struct metric_value *out, int max)
{
	struct counter_set merged;
	const struct counter_set *use = s;
	counter_set_init(&merged, s->interval, s->scope, s->pmu);
	if (s->pmu[0]) {
		for (int k = 0; k < s->n; k++)
			counter_set_add(&merged, s->c[k].name, s->c[k].value, s->c[k].enabled_pct, s->c[k].variance_pct);
		const struct counter_set *o = stat_model_find(m, s->interval < 0 && m->has_intervals,
							      s->session, s->interval, s->scope, "");
		if (o) {
			for (int k = 0; k < o->n; k++)
				if (!counter_set_get(&merged, o->c[k].name))
					counter_set_add(&merged, o->c[k].name, o->c[k].value, o->c[k].enabled_pct, o->c[k].variance_pct);
		}
		use = &merged;
	}
	double elapsed = NAN;
	if (s->interval >= 0)
		elapsed = m->period[s->session];
	else if (!isnan(m->elapsed[s->session]))
		elapsed = m->elapsed[s->session];
	else if (m->has_intervals) {
		double first;
		interval_span(m, s->session, &first, &elapsed);
	}
	bool borrowed = use == &merged && merged.n > s->n;
	int k = metrics_compute(use, elapsed, out, max);
	counter_set_free(&merged);
	if (borrowed) {        /* wall-clock metrics belong to the unqualified set */
		int w = 0;
		for (int i = 0; i < k; i++)
			if (strcmp(out[i].name, "cpus_utilized") && strcmp(out[i].name, "elapsed_s"))
				out[w++] = out[i];
		k = w;
	}
	return k;
}
