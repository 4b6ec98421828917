/* The streaming derive engine (derive.h): stat_model gathers the input; each
 * completed set becomes a derive_set (metrics_compute's metrics with their
 * next steps for the machine, tma_build's tree from the raw events or from
 * the nodes perf printed), handed to the caller's callback. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/derive_internal.h"
#include "analysis/perf_metric_table.h"
#include "analysis/roofline_set.h"
#include "common/diag.h"

#define MAX_PRINTED 64
#define MAX_PMUS 8

const struct derive_unit *derive_unit_slow(struct derive_engine *e, const char *unit)
{
	size_t h = ((uintptr_t)unit >> 3) % DERIVE_UNIT_CACHE;
	struct derive_unit *u = NULL;
	for (size_t i = 0; i < DERIVE_UNIT_CACHE && !u; i++, h = (h + 1) % DERIVE_UNIT_CACHE) {
		if (e->units[h].unit == unit)
			return &e->units[h];
		if (!e->units[h].unit)
			u = &e->units[h];
	}
	if (!u)
		u = &e->spill;
	u->unit = unit;
	u->tma_node = tma_node_for_perf_unit(unit, &u->uncorrected);
	u->metric = metrics_for_perf_unit(unit, &u->factor);
	u->wall_share = u->metric && strcmp(u->metric, "cpus_utilized") == 0;
	u->event_rate = u->metric && strcmp(u->metric, METRICS_EVENT_RATE) == 0;
	return u;
}

/* The Top-down metrics perf (or toplev) printed for s: its interval's, or
 * the whole run's. */
static int printed_for(struct derive_engine *e, const struct counter_set *s, struct tma_printed *out)
{
	const struct stat_model *m = &e->m;
	const struct perf_metric *pm = s->interval >= 0 ? m->perf_cur : m->perf;
	int npm = s->interval >= 0 ? m->nperf_cur : m->nperf, n = 0;
	if (e->printed_known.pm != pm || e->printed_known.npm != npm || e->printed_known.records != m->records) {
		e->printed_known.pm = pm;
		e->printed_known.npm = npm;
		e->printed_known.records = m->records;
		e->printed_known.any = false;
		for (int i = 0; i < npm && !e->printed_known.any; i++)
			e->printed_known.any = pm[i].source == STAT_FROM_TOPLEV || derive_unit(e, pm[i].unit)->tma_node;
	}
	if (!e->printed_known.any)
		return 0;
	for (int i = 0; i < npm && n < MAX_PRINTED; i++)
		if ((pm[i].source == STAT_FROM_TOPLEV || derive_unit(e, pm[i].unit)->tma_node) &&
		    pm[i].session == s->session && pm[i].interval == s->interval &&
		    !strcmp(pm[i].scope, s->scope) && !strcmp(pm[i].pmu, s->pmu))
			out[n++] = (struct tma_printed){ .unit = pm[i].unit, .value = pm[i].value, .group = pm[i].group,
							 .toplev = pm[i].source == STAT_FROM_TOPLEV };
	return n;
}

bool derive_build_tree(struct derive_engine *e, const struct counter_set *s, const char *cpu, struct tma_tree *t)
{
	struct tma_printed printed[MAX_PRINTED];
	int np = printed_for(e, s, printed);
	struct tma_options o = { cpu, e->cpuid, e->perf };
	return tma_build(s, printed, np, &o, t);
}

void derive_capture_cpu(struct derive_engine *e)
{
	const char *header = stat_model_cpuid(&e->m);
	e->cpuid = e->perf_fixed && e->perf_fixed->cpuid[0] ? e->perf_fixed->cpuid
		   : e->cfg.cpuid && perf_metric_cpuid_valid(e->cfg.cpuid) ? e->cfg.cpuid : header;
	e->perf = e->perf_fixed;
	if (!e->cfg.metrics_file && !e->cfg.cpuid && header && !e->cfg.no_header_metrics && !e->cfg.counters) {
		int i = 0;
		while (i < e->nperf_header && strcmp(e->perf_header[i].cpuid, header))
			i++;
		if (i == e->nperf_header && i < (int)(sizeof e->perf_header / sizeof *e->perf_header)) {
			snprintf(e->perf_header[i].cpuid, sizeof e->perf_header[i].cpuid, "%s", header);
			e->perf_header[i].table = perf_metric_table_open(NULL, header, true);
			e->nperf_header++;
		}
		if (i < e->nperf_header)
			e->perf = e->perf_header[i].table;
	}
	e->m.perf_table = e->perf;
}

/* Sets summed over their scopes (CPUs, cores ...), one per run and PMU. */
static int merge_by_pmu(const struct counter_set *sets, int n, struct counter_set *out)
{
	int k = 0;
	for (int i = 0; i < n; i++) {
		int j = 0;
		while (j < k && (strcmp(out[j].pmu, sets[i].pmu) || out[j].session != sets[i].session))
			j++;
		if (j == k) {
			if (k == MAX_PMUS)
				continue;
			counter_set_init(&out[k], sets[i].interval, "", sets[i].pmu);
			out[k++].session = sets[i].session;
		}
		counter_set_merge(&out[j], &sets[i]);
	}
	return k;
}

/* The capture's trees of one PMU (a hybrid's cpu_atom tree says nothing
 * of its cpu_core). */
static int trees_of_pmu(const struct derive_engine *e, const char *pmu, const struct tma_tree **out)
{
	int n = 0;
	for (int i = 0; i < e->ncapture_trees; i++)
		if (!strcmp(e->capture_tree_pmu[i], pmu))
			out[n++] = &e->capture_tree[i];
	return n;
}

static const char *scope_name(const struct stat_model *m, const struct counter_set *s, char *buf, size_t cap)
{
	char run[256];
	if (!stat_model_run_label(m, s->session, run, sizeof run)[0])
		return s->scope[0] ? s->scope : "all";
	snprintf(buf, cap, "%s %s", run, s->scope[0] ? s->scope : "all");   /* several runs or files */
	return buf;
}

int derive_metrics_of_slow(struct derive_engine *e, const struct counter_set *s, struct metric_value *mv,
			   const struct metric_value **out)
{
	const struct stat_model *m = &e->m;
	uintptr_t p = (uintptr_t)s, first = (uintptr_t)m->cur;
	if (m->ncur == 0 || p < first || p >= first + (size_t)m->ncur * sizeof(*m->cur)) {
		*out = mv;
		return stat_model_metrics(m, s, mv, METRICS_MAX);
	}
	if (e->metrics.interval != m->intervals || e->metrics.cur != m->cur) {
		if (m->ncur > e->metrics.cap) {
			e->metrics.cap = m->ncur * 2;
			e->metrics.n = td_realloc(e->metrics.n, (size_t)e->metrics.cap * sizeof(*e->metrics.n));
			e->metrics.mv = td_realloc(e->metrics.mv, (size_t)e->metrics.cap * sizeof(*e->metrics.mv));
		}
		for (int i = 0; i < m->ncur; i++)
			e->metrics.n[i] = -1;
		e->metrics.interval = m->intervals;
		e->metrics.cur = m->cur;
	}
	size_t i = (size_t)(s - m->cur);
	if (e->metrics.n[i] < 0)
		e->metrics.n[i] = stat_model_metrics(m, s, e->metrics.mv[i], METRICS_MAX);
	*out = e->metrics.mv[i];
	return e->metrics.n[i];
}

/* CSV and JSON print no wall time, so CPUs utilized cannot be computed for
 * a whole run from them: the value perf printed stands in, noted. */
static const struct derive_value *perf_wall_share(struct derive_engine *e, const struct counter_set *s,
						  const struct metric_value *mv, int n)
{
	const struct stat_model *m = &e->m;
	for (int i = 0; i < n; i++)
		if (strcmp(mv[i].name, "cpus_utilized") == 0)
			return NULL;
	for (int i = 0; i < m->nperf; i++) {
		const struct perf_metric *p = &m->perf[i];
		if (isnan(p->value) || !derive_unit(e, p->unit)->wall_share || p->session != s->session ||
		    p->interval >= 0 || strcmp(p->scope, s->scope) || strcmp(p->pmu, s->pmu))
			continue;
		e->wall_share = (struct derive_value){ "cpus_utilized", p->value, "CPUs", "", "", NAN, NAN, "",
						       "from perf (the input has no wall time)" };
		return &e->wall_share;
	}
	return NULL;
}

/* The roofline point of a whole-run set with FP events (roofline.h): its
 * FLOPs, the DRAM bytes its run and scope counted in any set (uncore
 * counters are sets of their own), over the run's wall time; none for an
 * interval. Rows from values[n] on (mv[0..n): the set's metrics); returns
 * the new count. */
static int roofline_rows(struct derive_engine *e, const struct counter_set *s, const struct metric_value *mv, int n)
{
	if (s->interval >= 0)
		return n;             /* before the peaks are looked up */
	const char *source;
	const struct roofline_peaks *k = e->cfg.peaks ? e->cfg.peaks : stat_model_peaks(&e->m, &source);
	struct roofline_values r;
	if (n + 5 > METRICS_MAX || !roofline_of_set(&e->m, s, mv, n, k, &r))
		return n;
	double conf = r.confidence;
	const char *note = r.proxy ? "bytes: 64 per last-level miss, a proxy for DRAM traffic" : "";
	e->values[n++] = (struct derive_value){ "gflops", r.gflops, "GFLOP/s", "", "", conf, NAN, "", "" };
	e->values[n++] = (struct derive_value){ r.proxy ? "llc_miss_gbs" : "dram_gbs", r.gbs, "GB/s", "", "", conf, NAN,
						"", note };
	e->values[n++] = (struct derive_value){ "arithmetic_intensity", r.ai, "FLOP/B", "", "", conf, NAN, "", note };
	if (r.has_roof) {
		e->values[n++] = (struct derive_value){ "roof_attainable_gflops", r.roof, "GFLOP/s", "", "", conf, NAN, "",
							"" };
		e->values[n++] = (struct derive_value){ "roof_share", r.share, "%",
							r.memory_bound ? "memory-bound" : "compute-bound", "", conf, NAN,
							"", "" };
	}
	return n;
}

/* s as a derive_set, to the callback (derive_capture_cpu called for its batch). */
static void deliver(struct derive_engine *e, const struct counter_set *s)
{
	const struct stat_model *m = &e->m;
	struct derive_set ds = { .set = s, .run = s->session, .interval = s->interval, .pmu = s->pmu };
	ds.scope = scope_name(m, s, e->scope, sizeof e->scope);
	if (e->cfg.counters) {
		e->cb.set(e->cb.ctx, &ds);
		return;
	}
	struct metric_value own[METRICS_MAX];
	const struct metric_value *mv;
	int n = derive_metrics_of(e, s, own, &mv);
	bool has_tree = derive_build_tree(e, s, e->cfg.cpu, e->tree);
	/* the machine (vendor, model) only where a next step depends on it */
	struct machine mach = { .vendor = TMA_NVENDORS };
	for (int i = 0; i < n; i++)
		if (mv[i].next_step == metrics_next_topdown || mv[i].next_step == metrics_next_branches) {
			machine_of(s, has_tree ? e->tree : NULL, e->cpuid, &mach);
			break;
		}
	const struct tma_tree *held[DERIVE_CAPTURE_TREES];
	bool topdown_held = has_tree || (s->interval < 0 && trees_of_pmu(e, s->pmu, held) > 0);
	for (int i = 0; i < n; i++)
		e->values[i] = (struct derive_value){ mv[i].name, mv[i].value, mv[i].unit, mv[i].verdict, mv[i].band,
						      mv[i].confidence, mv[i].variance_pct,
						      next_step_metric(&mv[i], &mach, topdown_held), "" };
	ds.metrics = e->values;
	ds.nmetrics = roofline_rows(e, s, mv, n);
	ds.perf_wall_share = s->interval < 0 ? perf_wall_share(e, s, mv, n) : NULL;
	if (has_tree) {
		const struct tma_tree *t = e->tree;
		machine_of(s, t, e->cpuid, &mach);
		for (int i = 0; i < t->n; i++) {
			const struct tma_node *nd = &t->node[i];
			e->nodes[i] = (struct derive_node){ nd, nd->source || isnan(nd->value) ? NAN
										  : counter_set_lowest_enabled(s), "" };
			if (nd->on_path) {
				const struct tma_tree *others[DERIVE_CAPTURE_TREES];
				int nothers = trees_of_pmu(e, s->pmu, others);
				e->node_next[i][0] = '\0';
				next_step_node(t, others, nothers, nd->def->name, &mach, e->node_next[i], sizeof e->node_next[i]);
				e->nodes[i].next_step = e->node_next[i];
			}
		}
		ds.tree = t;
		ds.nodes = e->nodes;
	}
	e->cb.set(e->cb.ctx, &ds);
}

static void chart_interval(struct derive_engine *e)
{
	const struct stat_model *m = &e->m;
	struct counter_set merged[MAX_PMUS];
	int n = merge_by_pmu(m->cur, m->ncur, merged);
	for (int i = 0; i < n; i++) {
		char run[256], series[320];        /* a series per run (or file) and PMU */
		stat_model_run_label(m, merged[i].session, run, sizeof run);
		snprintf(series, sizeof series, "%s%s%s", run, run[0] && merged[i].pmu[0] ? " " : "", merged[i].pmu);
		if (derive_build_tree(e, &merged[i], e->cfg.cpu, e->tree))
			e->cb.chart(e->cb.ctx, series, merged[i].interval, e->tree);
		counter_set_free(&merged[i]);
	}
}

static void on_interval(void *ctx, const struct stat_model *m)
{
	struct derive_engine *e = ctx;
	derive_capture_cpu(e);
	if (e->cfg.chart && e->cb.chart)
		chart_interval(e);
	if (e->cfg.intervals)
		for (int i = 0; i < m->ncur; i++)
			deliver(e, &m->cur[i]);
	derive_check_perf(e, m->perf_cur, m->nperf_cur);
}

struct derive_engine *derive_new(const struct derive_config *c, const struct derive_callbacks *cb)
{
	struct derive_engine *e = td_calloc(1, sizeof(*e));
	e->cfg = *c;
	e->cb = *cb;
	if (c->metrics_file || c->cpuid)
		e->perf_fixed = perf_metric_table_open(c->metrics_file, c->cpuid, false);
	e->tree = td_malloc(sizeof(*e->tree));
	stat_model_init(&e->m);
	e->m.on_interval = on_interval;
	e->m.on_interval_ctx = e;
	if (cb->pause) {
		e->m.on_pause = cb->pause;
		e->m.on_pause_ctx = cb->ctx;
	}
	/* reading on the caller's thread, the model and the callbacks on a second one (or the same) */
	e->pipe = c->one_thread ? NULL : stat_pipe_start(stat_model_add, &e->m);
	return e;
}

const struct roofline_peaks *derive_header_peaks(const struct derive_engine *e, const char **source)
{
	return stat_model_peaks(&e->m, source);
}

enum stat_format derive_read(struct derive_engine *e, const char *path, enum stat_format format)
{
	return e->pipe ? stat_read(path, format, stat_pipe_emit, e->pipe) : stat_read(path, format, stat_model_add, &e->m);
}

enum stat_format derive_read_memory(struct derive_engine *e, const void *data, size_t len, const char *name,
				    enum stat_format format)
{
	return e->pipe ? stat_read_memory(data, len, name, format, stat_pipe_emit, e->pipe)
		       : stat_read_memory(data, len, name, format, stat_model_add, &e->m);
}

/* --cpu names a model whose events the capture does not have while another
 * model's are there (an AMD model for an Intel capture): said once, exit 2;
 * the tree is the one perf printed, if any. */
static void check_cpu_fits(const char *cpu, const struct counter_set *sum, int nsum)
{
	for (int i = 0; i < nsum; i++) {
		const struct tma_model *found;
		if (!tma_cpu_misfit(cpu, &sum[i], &found) || !found)
			continue;
		td_error("--cpu %s does not fit this capture: its Top-down events are %s's (model %s); drop --cpu "
			 "or name a model of that vendor", cpu, tma_model_vendor(found), found->id);
		return;
	}
}

void derive_finish(struct derive_engine *e)
{
	if (e->pipe)
		stat_pipe_finish(e->pipe);
	e->pipe = NULL;
	derive_capture_cpu(e);
	stat_model_finish(&e->m);
	int nsum;
	const struct counter_set *sum = stat_model_summary(&e->m, &nsum);
	if (e->cfg.cpu)
		check_cpu_fits(e->cfg.cpu, sum, nsum);
	if (!e->cfg.counters)       /* room for the trees the sets can give */
		e->capture_tree = td_malloc((size_t)(nsum < 1 ? 1 : nsum < DERIVE_CAPTURE_TREES ? nsum : DERIVE_CAPTURE_TREES) *
					    sizeof(*e->capture_tree));
	for (int i = 0; i < nsum && e->ncapture_trees < DERIVE_CAPTURE_TREES && !e->cfg.counters; i++)
		if (derive_build_tree(e, &sum[i], e->cfg.cpu, &e->capture_tree[e->ncapture_trees]))
			e->capture_tree_pmu[e->ncapture_trees++] = sum[i].pmu;
	for (int i = 0; i < nsum; i++)
		deliver(e, &sum[i]);
	derive_check_perf(e, e->m.perf, e->m.nperf);
}

void derive_warn_input(const struct derive_engine *e)
{
	const struct stat_model *m = &e->m;
	if (stat_model_software_only(m))
		td_warn(NULL, 0, "only software events were counted; the hardware events are <not supported>: perf saw "
			"no hardware PMU (a VM without a virtual PMU, a container, or perf_event_paranoid too high). "
			"Software metrics (CPUs utilized, events per second) are shown. For hardware counters run on "
			"bare metal or a VM with a virtual PMU (KVM/QEMU: -cpu host,pmu=on), allow them with "
			"'sysctl kernel.perf_event_paranoid=2' (1 or CAP_PERFMON for kernel events), and check with "
			"'perf stat -e cycles,instructions -- true'");
	if (m->repeated_events)
		td_warn(NULL, 0, "%lu events printed more than once in one interval and scope (e.g. %s: one copy per "
			"metric group, or one per PMU with the same name): a Top-down node perf printed is computed "
			"from its own group's copies, other metrics from the copies' mean",
			m->repeated_events, m->repeated_example);
	if (m->records == 0 && !td_bad_input_count())   /* a file without any was named already */
		td_bad_input(NULL, 0, "no perf stat output found in the input");
	else if (m->counters == 0 && m->nperf == 0 && !m->toplev_metrics && !td_bad_input_count())
		td_warn(NULL, 0, "the perf stat output holds no counter values");
}

void derive_free(struct derive_engine *e)
{
	if (!e)
		return;
	if (e->pipe)
		stat_pipe_finish(e->pipe);
	stat_model_free(&e->m);
	free(e->metrics.n);
	free(e->metrics.mv);
	free(e->capture_tree);
	free(e->tree);
	free(e->account.not);
	perf_metric_table_free(e->perf_fixed);
	for (int i = 0; i < e->nperf_header; i++)
		perf_metric_table_free(e->perf_header[i].table);
	free(e);
}

void derive_capture(const struct derive_engine *e, struct derive_capture *out)
{
	const struct stat_model *m = &e->m;
	*out = (struct derive_capture){
		.command = m->command,
		.elapsed_s = m->elapsed_s,
		.several_runs = m->session > 0,
		.has_intervals = m->has_intervals,
		.intervals = m->intervals,
		.counters = m->counters,
		.not_counted = m->not_counted,
		.not_supported = m->not_supported,
		.toplev_metrics = m->toplev_metrics,
		.min_enabled_pct = m->min_enabled_pct,
	};
}

/* More than four scoped sets (CPUs, cores, ...): trees and diagnoses are
 * then given per PMU, the scopes summed. */
bool derive_many_scopes(const struct derive_engine *e)
{
	int nsum, scoped = 0;
	const struct counter_set *sum = stat_model_summary(&e->m, &nsum);
	for (int i = 0; i < nsum; i++)
		scoped += sum[i].scope[0] != '\0';
	return scoped > 4;
}

void derive_each_tree(const struct derive_engine *ce, bool per_pmu_if_many,
		      void (*fn)(void *ctx, const char *title, const struct tma_tree *t), void *ctx)
{
	struct derive_engine *e = (struct derive_engine *)ce;   /* its caches only */
	int nsum;
	const struct counter_set *sum = stat_model_summary(&e->m, &nsum);
	struct counter_set merged[MAX_PMUS];
	bool merge = per_pmu_if_many && derive_many_scopes(e);
	if (merge) {
		nsum = merge_by_pmu(sum, nsum, merged);
		sum = merged;
	}
	struct tma_tree *tree = td_malloc(sizeof(*tree));
	for (int i = 0; i < nsum; i++) {
		if (!derive_build_tree(e, &sum[i], e->cfg.cpu, tree))
			continue;
		char scope[320], title[400];
		snprintf(title, sizeof title, "%s%s%s", scope_name(&e->m, &sum[i], scope, sizeof scope),
			 sum[i].pmu[0] ? " " : "", sum[i].pmu);
		fn(ctx, title, tree);
	}
	free(tree);
	for (int i = 0; merge && i < nsum; i++)
		counter_set_free(&merged[i]);
}

const char *const derive_level1_names[4] = { "retiring", "bad_speculation", "frontend_bound", "backend_bound" };

static int cmp_scope_rows(const void *a, const void *b)
{
	const struct derive_scope_level1 *x = a, *y = b;
	int c = strcmp(x->dominant, y->dominant);
	if (c)
		return c;
	if (x->dominant_share != y->dominant_share)
		return x->dominant_share > y->dominant_share ? -1 : 1;
	return strverscmp(x->scope, y->scope);
}

int derive_scope_table(const struct derive_engine *ce, struct derive_scope_level1 **out)
{
	struct derive_engine *e = (struct derive_engine *)ce;   /* its caches only */
	int nsum;
	const struct counter_set *sum = stat_model_summary(&e->m, &nsum);
	struct derive_scope_level1 *rows = td_calloc((size_t)nsum + 1, sizeof(*rows));
	struct tma_tree *tree = td_malloc(sizeof(*tree));
	int n = 0;
	for (int i = 0; i < nsum; i++) {
		if (!derive_build_tree(e, &sum[i], e->cfg.cpu, tree))
			continue;
		struct derive_scope_level1 *r = &rows[n++];
		r->scope = sum[i].scope[0] ? sum[i].scope : "all";
		r->pmu = sum[i].pmu;
		r->dominant = "";
		r->dominant_share = -1;
		for (int k = 0; k < 4; k++) {
			r->share[k] = tma_value(tree, derive_level1_names[k]);
			if (k && r->share[k] > r->dominant_share) {
				r->dominant_share = r->share[k];
				r->dominant = derive_level1_names[k];
			}
		}
	}
	free(tree);
	qsort(rows, (size_t)n, sizeof(*rows), cmp_scope_rows);
	*out = rows;
	return n;
}

int derive_diagnoses(const struct derive_engine *ce, struct derive_diagnosis **out)
{
	struct derive_engine *e = (struct derive_engine *)ce;   /* its caches only */
	const struct stat_model *m = &e->m;
	int nsum;
	const struct counter_set *sum = stat_model_summary(m, &nsum);
	struct counter_set merged[MAX_PMUS];
	bool merge = derive_many_scopes(e);
	if (merge) {
		nsum = merge_by_pmu(sum, nsum, merged);
		sum = merged;
	}
	struct derive_diagnosis *r = td_calloc((size_t)nsum + 1, sizeof(*r));
	struct tma_tree *tree = td_malloc(sizeof(*tree));
	for (int i = 0; i < nsum; i++) {
		struct metric_value mv[METRICS_MAX];
		int n = stat_model_metrics(m, &sum[i], mv, METRICS_MAX);
		bool has_tree = derive_build_tree(e, &sum[i], e->cfg.cpu, tree);
		struct machine mach;
		machine_of(&sum[i], has_tree ? tree : NULL, e->cpuid, &mach);
		char scope[320];
		snprintf(r[i].label, sizeof r[i].label, "%s%s%s", scope_name(m, &sum[i], scope, sizeof scope),
			 sum[i].pmu[0] ? " " : "", sum[i].pmu);
		const struct tma_tree *others[DERIVE_CAPTURE_TREES];
		int nothers = trees_of_pmu(e, sum[i].pmu, others);
		diagnose(&sum[i], mv, n, has_tree ? tree : NULL, others, nothers, &mach, &r[i].d);
	}
	free(tree);
	for (int i = 0; merge && i < nsum; i++)
		counter_set_free(&merged[i]);
	*out = r;
	return nsum;
}

void derive_perf_check(const struct derive_engine *e, struct derive_perf_check *out)
{
	*out = (struct derive_perf_check){ e->account.printed, e->account.checked, e->account.agree, e->account.n, 0,
					   e->account.not };
	for (int i = 0; i < e->account.n; i++)
		out->total += e->account.not[i].count;
}
