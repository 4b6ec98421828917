/* td-derive: perf stat output in, derived metrics with verdicts and the
 * next command out. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/metrics.h"
#include "analysis/next_step.h"
#include "analysis/perf_metric_table.h"
#include "analysis/stat_model.h"
#include "analysis/tma.h"
#include "analysis/tma_explain.h"
#include "common/diag.h"
#include "common/opts.h"
#include "parsers/stat_pipe.h"
#include "reports/table.h"
#include "reports/tma_svg.h"
#include "reports/tma_tree.h"


static bool opt_csv, opt_json, opt_markdown, opt_intervals, opt_counters, opt_explain;
static const char *opt_format, *opt_cpu, *opt_svg, *opt_metrics, *opt_cpuid;
static struct tma_chart *chart;
static long opt_level = -1;        /* -1: not given */

static const struct td_option options[] = {
	{ 0, "csv", TD_OPT_FLAG, &opt_csv, NULL, "CSV with a header row", NULL },
	{ 0, "json", TD_OPT_FLAG, &opt_json, NULL, "one JSON document", NULL },
	{ 0, "markdown", TD_OPT_FLAG, &opt_markdown, NULL, "a markdown report", NULL },
	{ 0, "intervals", TD_OPT_FLAG, &opt_intervals, NULL, "text: also every -I interval (CSV/JSON always have them)", NULL },
	{ 0, "counters", TD_OPT_FLAG, &opt_counters, NULL, "the counters as read (normalized names, summed per scope) instead of metrics", NULL },
	{ 0, "explain", TD_OPT_FLAG, &opt_explain, NULL, "text: explain every node on the bottleneck path (see td-explain)", NULL },
	{ 0, "svg", TD_OPT_STRING, &opt_svg, "FILE", "-I input: a stacked-area chart of Top-down Level 1 (--level 2: Level 2) over time", NULL },
	{ 0, "level", TD_OPT_INT, &opt_level, "N", "Top-down tree down to level N (default: as deep as the events allow)", NULL },
	{ 0, "cpu", TD_OPT_STRING, &opt_cpu, "MODEL[:WIDTH]", "Top-down model instead of detecting it (see td-derive(1): intel-atom:6, arm-v2, amd-zen5 ...)", NULL },
	{ 0, "metrics", TD_OPT_STRING, &opt_metrics, "FILE", "perf's metric definitions (PERF_CPUID=ID perf list --details > FILE): every tma_* node they give", NULL },
	{ 0, "cpuid", TD_OPT_STRING, &opt_cpuid, "ID", "the capture's CPU (GenuineIntel-6-8F-0): its metric definitions from the installed perf", NULL },
	{ 0, "format", TD_OPT_STRING, &opt_format, "csv|json|text", "input layout (default: detected)", NULL },
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-derive", "[options] [FILE...]",
	"Derived metrics from perf stat output (CSV -x, JSON -j or text): IPC, cache, TLB and branch rates, verdicts, next steps.",
	options,
	NULL,
};

enum col { C_INTERVAL, C_SCOPE, C_PMU, C_METRIC, C_VALUE, C_UNIT, C_VERDICT, C_BAND, C_CONF, C_LOWCONF, C_VAR, C_NEXT,
	   C_LEVEL, C_NOTE, NCOLS };

static const struct td_column columns[NCOLS] = {
	{ "interval", TD_COL_NUM, 9 }, { "scope", TD_COL_STR, 0 }, { "pmu", TD_COL_STR, 0 },
	{ "metric", TD_COL_STR, 0 }, { "value", TD_COL_NUM, 3 }, { "unit", TD_COL_STR, 0 },
	{ "verdict", TD_COL_STR, 0 }, { "band", TD_COL_STR, 0 }, { "confidence", TD_COL_NUM, 2 },
	{ "low_confidence", TD_COL_STR, 0 }, { "variance_pct", TD_COL_NUM, 2 }, { "next_step", TD_COL_STR, 0 },
	{ "tma_level", TD_COL_INT, 0 }, { "note", TD_COL_STR, 0 },
};

#define MAX_PRINTED 64
#define UNIT_CACHE 512

/* What a perf unit names, remembered per unit: units are interned by the
 * model, so the pointer is the key (one lookup per distinct unit). */
struct unit_info {
	const char *unit;
	const char *tma_node;      /* tma_node_for_perf_unit */
	bool uncorrected;
	const char *metric;        /* metrics_for_perf_unit */
	double factor;
	bool wall_share;           /* metric is cpus_utilized */
};

static struct unit_info unit_cache[UNIT_CACHE];

static size_t unit_slot(const char *unit) { return ((uintptr_t)unit >> 3) % UNIT_CACHE; }

static const struct unit_info *unit_info_slow(const char *unit)
{
	static struct unit_info spill;
	size_t h = unit_slot(unit);
	for (size_t i = 0; i < UNIT_CACHE; i++, h = (h + 1) % UNIT_CACHE) {
		struct unit_info *u = &unit_cache[h];
		if (u->unit == unit)
			return u;
		if (!u->unit) {
			u->unit = unit;
			u->tma_node = tma_node_for_perf_unit(unit, &u->uncorrected);
			u->metric = metrics_for_perf_unit(unit, &u->factor);
			u->wall_share = u->metric && strcmp(u->metric, "cpus_utilized") == 0;
			return u;
		}
	}
	spill.unit = unit;         /* cache full: looked up every time */
	spill.tma_node = tma_node_for_perf_unit(unit, &spill.uncorrected);
	spill.metric = metrics_for_perf_unit(unit, &spill.factor);
	spill.wall_share = spill.metric && strcmp(spill.metric, "cpus_utilized") == 0;
	return &spill;
}

/* Found where its pointer hashes to, mostly: asked for every metric perf printed. */
static inline const struct unit_info *unit_info(const char *unit)
{
	const struct unit_info *u = &unit_cache[unit_slot(unit)];
	return u->unit == unit ? u : unit_info_slow(unit);
}

static const char *tma_node_of_unit(const char *unit, bool *uncorrected)
{
	const struct unit_info *u = unit_info(unit);
	*uncorrected = u->uncorrected;
	return u->tma_node;
}

/* The metrics perf printed for this set (its interval's, or the summary's). */
static int printed_for(const struct stat_model *m, const struct counter_set *s, struct tma_printed *out)
{
	const struct perf_metric *pm = s->interval >= 0 ? m->perf_cur : m->perf;
	int npm = s->interval >= 0 ? m->nperf_cur : m->nperf, n = 0;
	bool shadow;
	/* most inputs print no Top-down metric: found once per list, not per set
	 * (the lists change only when a record is added) */
	static struct {
		const struct perf_metric *pm;
		int npm;
		unsigned long records;
		bool any;
	} known;
	if (known.pm != pm || known.npm != npm || known.records != m->records) {
		known.pm = pm;
		known.npm = npm;
		known.records = m->records;
		known.any = false;
		for (int i = 0; i < npm && !known.any; i++)
			known.any = pm[i].source == STAT_FROM_TOPLEV || tma_node_of_unit(pm[i].unit, &shadow) != NULL;
	}
	if (!known.any)
		return 0;
	for (int i = 0; i < npm && n < MAX_PRINTED; i++)
		if ((pm[i].source == STAT_FROM_TOPLEV || tma_node_of_unit(pm[i].unit, &shadow)) &&
		    pm[i].session == s->session && pm[i].interval == s->interval &&
		    !strcmp(pm[i].scope, s->scope) && !strcmp(pm[i].pmu, s->pmu))
			out[n++] = (struct tma_printed){ .unit = pm[i].unit, .value = pm[i].value, .group = pm[i].group,
							 .toplev = pm[i].source == STAT_FROM_TOPLEV };
	return n;
}

static bool build_tree(const struct stat_model *m, const struct counter_set *s, const char *cpu, struct tma_tree *t)
{
	struct tma_printed printed[MAX_PRINTED];
	int np = printed_for(m, s, printed);
	struct tma_options o = { cpu };
	return tma_build(s, printed, np, &o, t);
}

#define MAX_PMUS 8

/* Sets summed over their scopes (CPUs, cores ...), one per PMU. */
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

/* The Top-down trees of the capture's whole-run sets: found once the
 * input is read, before the whole-run rows (interval rows ask their own
 * set). A next step never asks for what one of them holds. */
#define MAX_CAPTURE_TREES 16
static struct tma_tree capture_tree[MAX_CAPTURE_TREES];
static const struct tma_tree *capture_trees[MAX_CAPTURE_TREES];
static const char *capture_tree_pmu[MAX_CAPTURE_TREES];
static int ncapture_trees;

/* The capture's trees of one PMU (a hybrid's cpu_atom tree says nothing
 * of its cpu_core). */
static int trees_of_pmu(const char *pmu, const struct tma_tree **out)
{
	int n = 0;
	for (int i = 0; i < ncapture_trees; i++)
		if (!strcmp(capture_tree_pmu[i], pmu))
			out[n++] = capture_trees[i];
	return n;
}

static void add_tree_rows(struct td_table *t, const struct counter_set *s, const struct tma_tree *tree, const char *scope)
{
	struct machine mach;
	machine_of(s, tree, &mach);
	for (int i = 0; i < tree->n; i++) {
		const struct tma_node *n = &tree->node[i];
		if (opt_level && n->level > opt_level)
			continue;
		td_table_row(t);
		if (s->interval >= 0)
			td_table_num(t, C_INTERVAL, s->interval);
		td_table_str(t, C_SCOPE, scope);
		td_table_str(t, C_PMU, s->pmu);
		td_table_str(t, C_METRIC, n->def->name);
		td_table_num(t, C_VALUE, 100 * n->value);
		td_table_str(t, C_UNIT, "%");
		td_table_str(t, C_VERDICT, tma_assessment(n));
		td_table_str(t, C_BAND, n->on_path ? "bottleneck" : "");
		double conf = n->source || isnan(n->value) ? NAN : counter_set_lowest_enabled(s);
		td_table_num(t, C_CONF, conf);
		td_table_str(t, C_LOWCONF, conf < 50 ? "yes" : "no");
		char next[400] = "";
		if (n->on_path)
		{
			const struct tma_tree *others[MAX_CAPTURE_TREES];
			int nothers = trees_of_pmu(s->pmu, others);
			next_step_node(tree, others, nothers, n->def->name, &mach, next, sizeof next);
		}
		td_table_str(t, C_NEXT, next);
		td_table_int(t, C_LEVEL, n->level);
		char note[360], why[300];
		tma_node_note(why, sizeof why, n);
		snprintf(note, sizeof note, "%s%s%s%s", n->source ? "" : tree->model->id, n->source || !why[0] ? "" : "; ", why,
			 strcmp(n->def->domain, "cycles") || n->source ? "" : strncmp(tree->model->id, "arm", 3) ? "; share of cycles"
								  : "; scaled from stall cycles");
		td_table_str(t, C_NOTE, note);
	}
}

enum counter_col { K_INTERVAL, K_SCOPE, K_PMU, K_EVENT, K_VALUE, K_ENABLED, K_VAR, NKCOLS };

static const struct td_column counter_columns[NKCOLS] = {
	{ "interval", TD_COL_NUM, 9 }, { "scope", TD_COL_STR, 0 }, { "pmu", TD_COL_STR, 0 },
	{ "event", TD_COL_STR, 0 }, { "value", TD_COL_NUM, 6 }, { "enabled_pct", TD_COL_NUM, 2 },
	{ "variance_pct", TD_COL_NUM, 2 },
};

static const char *scope_name(const struct stat_model *m, const struct counter_set *s, char *buf, size_t cap)
{
	char run[256];
	if (!stat_model_run_label(m, s->session, run, sizeof run)[0])
		return s->scope[0] ? s->scope : "all";
	snprintf(buf, cap, "%s %s", run, s->scope[0] ? s->scope : "all");   /* several runs or files */
	return buf;
}

static void add_counter_rows(struct td_table *t, const struct stat_model *m, const struct counter_set *s)
{
	char scope[320];
	for (int i = 0; i < s->n; i++) {
		td_table_row(t);
		if (s->interval >= 0)
			td_table_num(t, K_INTERVAL, s->interval);
		td_table_str(t, K_SCOPE, scope_name(m, s, scope, sizeof scope));
		td_table_str(t, K_PMU, s->pmu);
		td_table_str(t, K_EVENT, s->c[i].name);
		td_table_num(t, K_VALUE, s->c[i].value);
		td_table_num(t, K_ENABLED, s->c[i].enabled_pct);
		td_table_num(t, K_VAR, s->c[i].variance_pct);
	}
}

/* The metrics of the open interval's sets, computed once per interval for
 * the rows and for the check against perf's own (the same call, the same
 * model: the same values). Other sets are computed into *mv. */
static struct {
	unsigned long interval;          /* m->intervals they were computed for */
	const struct counter_set *cur;
	int cap;
	int *n;                          /* per set of cur; -1 not yet */
	struct metric_value (*mv)[METRICS_MAX];
} metric_cache;

static int metrics_of_slow(const struct stat_model *m, const struct counter_set *s, struct metric_value *mv,
			   const struct metric_value **out)
{
	uintptr_t p = (uintptr_t)s, first = (uintptr_t)m->cur;
	if (m->ncur == 0 || p < first || p >= first + (size_t)m->ncur * sizeof(*m->cur)) {
		*out = mv;
		return stat_model_metrics(m, s, mv, METRICS_MAX);
	}
	if (metric_cache.interval != m->intervals || metric_cache.cur != m->cur) {
		if (m->ncur > metric_cache.cap) {
			metric_cache.cap = m->ncur * 2;
			metric_cache.n = td_realloc(metric_cache.n, (size_t)metric_cache.cap * sizeof(*metric_cache.n));
			metric_cache.mv = td_realloc(metric_cache.mv, (size_t)metric_cache.cap * sizeof(*metric_cache.mv));
		}
		for (int i = 0; i < m->ncur; i++)
			metric_cache.n[i] = -1;
		metric_cache.interval = m->intervals;
		metric_cache.cur = m->cur;
	}
	size_t i = (size_t)(s - m->cur);
	if (metric_cache.n[i] < 0)
		metric_cache.n[i] = stat_model_metrics(m, s, metric_cache.mv[i], METRICS_MAX);
	*out = metric_cache.mv[i];
	return metric_cache.n[i];
}

/* The metrics of s: in *out, which is mv for a set not of the open interval. */
static inline int metrics_of(const struct stat_model *m, const struct counter_set *s, struct metric_value *mv,
			     const struct metric_value **out)
{
	size_t i = (size_t)((uintptr_t)s - (uintptr_t)m->cur) / sizeof(*m->cur);   /* huge below cur */
	if (metric_cache.cur == m->cur && metric_cache.interval == m->intervals && i < (size_t)m->ncur &&
	    s == &m->cur[i] && metric_cache.n[i] >= 0) {
		*out = metric_cache.mv[i];
		return metric_cache.n[i];
	}
	return metrics_of_slow(m, s, mv, out);
}

/* CSV and JSON print no wall time, so CPUs utilized cannot be computed
 * for a whole run from them: the value perf printed is the row, noted. */
static void add_perf_wall_share(struct td_table *t, const struct stat_model *m, const struct counter_set *s,
				const struct metric_value *mv, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(mv[i].name, "cpus_utilized") == 0)
			return;
	for (int i = 0; i < m->nperf; i++) {
		const struct perf_metric *p = &m->perf[i];
		if (isnan(p->value) || !unit_info(p->unit)->wall_share || p->session != s->session || p->interval >= 0 ||
		    strcmp(p->scope, s->scope) || strcmp(p->pmu, s->pmu))
			continue;
		char scope[320];
		td_table_row(t);
		td_table_str(t, C_SCOPE, scope_name(m, s, scope, sizeof scope));
		td_table_str(t, C_PMU, s->pmu);
		td_table_str(t, C_METRIC, "cpus_utilized");
		td_table_num(t, C_VALUE, p->value);
		td_table_str(t, C_UNIT, "CPUs");
		td_table_str(t, C_LOWCONF, "no");
		td_table_str(t, C_NOTE, "from perf (the input has no wall time)");
		return;
	}
}

static void add_rows(struct td_table *t, const struct stat_model *m, const struct counter_set *s)
{
	if (opt_counters) {
		add_counter_rows(t, m, s);
		return;
	}
	struct metric_value own[METRICS_MAX];
	const struct metric_value *mv;
	int n = metrics_of(m, s, own, &mv);
	char scope[320];
	const char *sc = n ? scope_name(m, s, scope, sizeof scope) : NULL;
	struct tma_tree tree;
	bool has_tree = build_tree(m, s, opt_cpu, &tree);
	/* the machine (vendor, model) only where a next step depends on it */
	struct machine mach = { .vendor = TMA_NVENDORS };
	for (int i = 0; i < n; i++)
		if (mv[i].next_step == metrics_next_topdown || mv[i].next_step == metrics_next_branches) {
			machine_of(s, has_tree ? &tree : NULL, &mach);
			break;
		}
	const struct tma_tree *held[MAX_CAPTURE_TREES];
	bool topdown_held = has_tree || (s->interval < 0 && trees_of_pmu(s->pmu, held) > 0);
	struct td_cell rows[METRICS_MAX][NCOLS];
	for (int i = 0; i < n; i++) {
		struct td_cell *row = rows[i];
		row[C_INTERVAL] = s->interval >= 0 ? TD_CELL_NUM(s->interval) : TD_CELL_NONE;
		row[C_SCOPE] = TD_CELL_STR(sc);
		row[C_PMU] = s->pmu[0] ? TD_CELL_STR(s->pmu) : TD_CELL_NONE;   /* "" is an empty cell */
		/* a metric's name, unit, verdict, band and next step are literals (metrics.h) */
		row[C_METRIC] = TD_CELL_LIT(mv[i].name);
		row[C_VALUE] = TD_CELL_NUM(mv[i].value);
		row[C_UNIT] = TD_CELL_LIT(mv[i].unit);
		row[C_VERDICT] = TD_CELL_LIT(mv[i].verdict);
		row[C_BAND] = TD_CELL_LIT(mv[i].band);
		row[C_CONF] = TD_CELL_NUM(mv[i].confidence);
		row[C_LOWCONF] = TD_CELL_LIT(mv[i].confidence < 50 ? "yes" : "no");
		row[C_VAR] = TD_CELL_NUM(mv[i].variance_pct);
		row[C_NEXT] = TD_CELL_LIT(next_step_metric(&mv[i], &mach, topdown_held));
		row[C_LEVEL] = row[C_NOTE] = TD_CELL_NONE;
	}
	td_table_put_rows(t, rows[0], n, C_UNIT);     /* one set's rows; a metric's unit ... next step repeat */
	if (s->interval < 0)
		add_perf_wall_share(t, m, s, mv, n);
	if (has_tree)
		add_tree_rows(t, s, &tree, scope_name(m, s, scope, sizeof scope));
}

/* The cross-check's account: every number perf printed as a metric is
 * counted once, as compared with td-derive's (agreeing or not) or as not
 * recomputable, with the reason, so none is skipped without a word. */
struct not_recomputable {
	char metric[128], why[256];
	int count;
};

static struct {
	int printed, checked, agree;
	int n, cap;
	struct not_recomputable *not;
} perf_account;

/* perf's label of a metric: its unit, after the event it was printed with. */
static const char *perf_label(const struct perf_metric *p, char *buf, size_t cap)
{
	const char *u = p->unit;
	while (*u == ' ' || *u == '%')
		u++;
	snprintf(buf, cap, "%s%s%s", p->event ? p->event : "", p->event && p->event[0] ? ": " : "", u);
	return buf;
}

static void not_recomputable(const struct perf_metric *p, const char *why)
{
	char label[128];
	perf_label(p, label, sizeof label);
	for (int i = 0; i < perf_account.n; i++)
		if (!strcmp(perf_account.not[i].metric, label) && !strcmp(perf_account.not[i].why, why)) {
			perf_account.not[i].count++;
			return;
		}
	if (perf_account.n == perf_account.cap) {
		perf_account.cap = perf_account.cap ? 2 * perf_account.cap : 16;
		perf_account.not = td_realloc(perf_account.not, (size_t)perf_account.cap * sizeof(*perf_account.not));
	}
	struct not_recomputable *r = &perf_account.not[perf_account.n++];
	snprintf(r->metric, sizeof r->metric, "%s", label);
	snprintf(r->why, sizeof r->why, "%s", why);
	r->count = 1;
}

static int not_recomputable_total(void)
{
	int n = 0;
	for (int i = 0; i < perf_account.n; i++)
		n += perf_account.not[i].count;
	return n;
}

/* Every metric perf printed must equal ours at perf's precision. */
static double pow10_neg(int decimals)
{
	static double known[32];
	if (decimals < 0 || decimals >= 32)
		return pow(10, -decimals);
	if (known[decimals] == 0)
		known[decimals] = pow(10, -decimals);
	return known[decimals];
}

/* perf -r: the set's counters are means with a variance (or the text
 * said "(N runs)"). */
static bool repeated_run(const struct stat_model *m, const struct counter_set *s)
{
	if (m->runs > 1)
		return true;
	for (int i = 0; i < s->n; i++)
		if (!isnan(s->c[i].variance_pct))
			return true;
	return false;
}

/* rel: the relative error ours may carry from the inputs' printed digits;
 * repeated: the set is perf -r's means. */
static void compare_with_perf(const struct perf_metric *p, const char *name, double ours, double rel, bool repeated)
{
	double tol = 0.5 * pow10_neg(p->decimals >= 0 ? p->decimals : 2) + rel * fabs(ours);
	if (fabs(ours - p->value) <= tol * 1.0001) {
		perf_account.checked++;
		perf_account.agree++;
	} else if (repeated) {
		not_recomputable(p, "perf -r: perf's value is not the ratio of the means it printed (a defect of "
				    "perf 6.x -r output), so the means cannot give it back");
	} else {
		perf_account.checked++;
		td_warn(p->file, p->line, "perf printed %s %.*f (%s), td-derive computes %.6g", name,
			p->decimals >= 0 ? p->decimals : 2, p->value, p->unit, ours);
	}
}

/* A TMA node perf printed, against the tree from the same raw counts
 * (perf 5.9-6.2's shadow names against the uncorrected formulas). */
static void check_tma_node(const struct stat_model *m, const struct counter_set *s, const struct perf_metric *p)
{
	bool uncorrected;
	const char *node = tma_node_of_unit(p->unit, &uncorrected);
	struct tma_tree tree;
	if (!build_tree(m, s, opt_cpu, &tree)) {
		not_recomputable(p, "no Top-down model fits the events of its set");
		return;
	}
	const struct tma_node *own = tma_find(&tree, node);
	if (tree.node[0].source && (!own || own->source)) {
		not_recomputable(p, "the raw Top-down events are not in the input (the tree is perf's own values)");
		return;
	}
	if (uncorrected && tree.model == &tma_intel_perf_metrics && !build_tree(m, s, "intel-perf-metrics-shadow", &tree)) {
		not_recomputable(p, "perf's uncorrected Top-down form needs the raw slots and topdown-* events");
		return;
	}
	const struct tma_node *n = tma_find(&tree, node);
	if (n && n->source) {
		not_recomputable(p, "the node is perf's own value: its raw events are not in the input");
		return;
	}
	double v = n ? n->value : NAN;
	char why[256];
	if (isnan(v)) {
		snprintf(why, sizeof why, "the %s tree from these events has no %s", tree.model->id, node);
		not_recomputable(p, why);
		return;
	}
	compare_with_perf(p, node, strchr(p->unit, '%') ? 100 * v : v, 1e-9, repeated_run(m, s));
}

/* perf's "/sec" next to an event: its count per second of task-clock. */
static void check_event_rate(const struct stat_model *m, const struct counter_set *s, const struct perf_metric *p,
			     double factor)
{
	struct metric_value mv;
	if (!stat_model_event_rate(m, s, p->event, &mv)) {
		not_recomputable(p, "needs the event's count and task-clock (or cpu-clock)");
		return;
	}
	compare_with_perf(p, p->unit, mv.value * factor, 1e-9 + mv.rounding, repeated_run(m, s));
}

/* Every metric perf printed must equal ours at perf's precision, or be
 * accounted for as not recomputable. */
static void check_perf(const struct stat_model *m, const struct perf_metric *pm, int npm)
{
	for (int i = 0; i < npm; i++) {
		const struct perf_metric *p = &pm[i];
		if (isnan(p->value) || p->source == STAT_FROM_TOPLEV)
			continue;              /* no number; or toplev's node: not a perf metric, no raw counts to check */
		perf_account.printed++;
		const struct unit_info *u = unit_info(p->unit);
		const char *name = u->metric;
		double factor = u->factor;
		const struct counter_set *s = stat_model_find_perf(m, p);
		if (!name && !u->tma_node) {
			not_recomputable(p, "not a metric td-derive knows");
			continue;
		}
		if (!s) {
			not_recomputable(p, "no counters in its interval and scope");
			continue;
		}
		if (!name) {
			check_tma_node(m, s, p);
			continue;
		}
		if (!strcmp(name, METRICS_EVENT_RATE)) {
			check_event_rate(m, s, p, factor);
			continue;
		}
		if (u->wall_share && s->interval < 0 && isnan(m->elapsed[s->session])) {
			not_recomputable(p, "needs the wall time (seconds time elapsed), which perf's CSV and JSON "
					    "output do not print");
			continue;
		}
		struct metric_value own[METRICS_MAX];
		const struct metric_value *mv;
		int n = metrics_of(m, s, own, &mv), j = 0;
		while (j < n && mv[j].name != name && (mv[j].name[0] != name[0] || strcmp(mv[j].name, name) != 0))
			j++;
		if (j == n) {
			char need[256], why[300];
			stat_model_missing(m, s, name, need, sizeof need);
			snprintf(why, sizeof why, "%s%s needs %s", p->value == 0 ? "perf printed 0 for what it lacked: " : "",
				 name, need[0] ? need : "events of another set");
			not_recomputable(p, why);
			continue;
		}
		/* perf divides by its unrounded wall time */
		compare_with_perf(p, name, mv[j].value * factor, (u->wall_share ? 5e-4 : 1e-9) + mv[j].rounding,
				  !u->wall_share && repeated_run(m, s));
	}
}

struct scope_row {
	const char *scope, *pmu, *dominant;
	double l1[4], dominant_value;
};

static const char *const level1[4] = { "retiring", "bad_speculation", "frontend_bound", "backend_bound" };

static int cmp_scope_rows(const void *a, const void *b)
{
	const struct scope_row *x = a, *y = b;
	int c = strcmp(x->dominant, y->dominant);
	if (c)
		return c;
	if (x->dominant_value != y->dominant_value)
		return x->dominant_value > y->dominant_value ? -1 : 1;
	return strverscmp(x->scope, y->scope);
}

/* Many scopes (-A, --per-core ...): Level 1 per scope in one table, sorted
 * by the category that dominates each, instead of a tree each. */
static void write_scope_table(const struct stat_model *m, const struct counter_set *sum, int nsum, FILE *f)
{
	struct scope_row *rows = td_calloc((size_t)nsum, sizeof(*rows));
	int n = 0;
	for (int i = 0; i < nsum; i++) {
		struct tma_tree tree;
		if (!build_tree(m, &sum[i], opt_cpu, &tree))
			continue;
		struct scope_row *r = &rows[n++];
		r->scope = sum[i].scope[0] ? sum[i].scope : "all";
		r->pmu = sum[i].pmu;
		r->dominant = "";
		r->dominant_value = -1;
		for (int k = 0; k < 4; k++) {
			r->l1[k] = tma_value(&tree, level1[k]);
			if (k && r->l1[k] > r->dominant_value) {
				r->dominant_value = r->l1[k];
				r->dominant = level1[k];
			}
		}
	}
	qsort(rows, (size_t)n, sizeof(*rows), cmp_scope_rows);
	static const struct td_column cols[] = {
		{ "scope", TD_COL_STR, 0 }, { "pmu", TD_COL_STR, 0 }, { "retiring", TD_COL_NUM, 1 },
		{ "bad_speculation", TD_COL_NUM, 1 }, { "frontend_bound", TD_COL_NUM, 1 }, { "backend_bound", TD_COL_NUM, 1 },
		{ "dominant", TD_COL_STR, 0 },
	};
	struct td_table *t = td_table_new(cols, 7);
	for (int i = 0; i < n; i++) {
		td_table_row(t);
		td_table_str(t, 0, rows[i].scope);
		td_table_str(t, 1, rows[i].pmu);
		for (int k = 0; k < 4; k++)
			td_table_num(t, 2 + k, 100 * rows[i].l1[k]);
		td_table_str(t, 6, rows[i].dominant);
	}
	fprintf(f, "\nTop-down Level 1 per scope (%% of slots), grouped by the dominant stall category:\n");
	td_table_write(t, f, TD_FMT_TEXT);
	td_table_free(t);
	free(rows);
}

/* More than four scoped sets (CPUs, cores, ...): trees and diagnoses are
 * then given per PMU, the scopes summed. */
static bool many_scopes(const struct counter_set *sum, int nsum)
{
	int scoped = 0;
	for (int i = 0; i < nsum; i++)
		scoped += sum[i].scope[0] != '\0';
	return scoped > 4;
}

/* The Top-down tree of every whole-run set that has one. */
static void write_trees(const struct stat_model *m, FILE *f, bool markdown)
{
	int nsum;
	const struct counter_set *sum = stat_model_summary(m, &nsum);
	struct counter_set merged[MAX_PMUS];
	bool with_scope = many_scopes(sum, nsum);
	if (!markdown && with_scope) {
		write_scope_table(m, sum, nsum, f);
		nsum = merge_by_pmu(sum, nsum, merged);
		sum = merged;
	} else {
		with_scope = false;
	}
	for (int i = 0; i < nsum; i++) {
		struct tma_tree tree;
		if (!build_tree(m, &sum[i], opt_cpu, &tree))
			continue;
		char scope[320], title[400];
		snprintf(title, sizeof title, "%s%s%s", scope_name(m, &sum[i], scope, sizeof scope), sum[i].pmu[0] ? " " : "",
			 sum[i].pmu);
		if (markdown)
			tma_tree_write_markdown(f, &tree, title, (int)opt_level);
		else
			tma_tree_write_text(f, &tree, title, (int)opt_level);
		for (int k = 0; opt_explain && !markdown && k < tree.n; k++) {
			const struct tma_explanation *e = tma_explain(tree.node[k].def->name);
			if (tree.node[k].on_path && e) {
				fputc('\n', f);
				tma_explain_write(f, e, tma_vendor_of(tree.model->id));
			}
		}
	}
	for (int i = 0; with_scope && i < nsum; i++)
		counter_set_free(&merged[i]);
}

/* One diagnosis per run (each whole-run set; sets summed per PMU when
 * there are many scopes, as the trees are), labelled with its run. */
struct run_diagnosis {
	char label[200];
	struct diagnosis d;
};

static int diagnoses(const struct stat_model *m, struct run_diagnosis **out)
{
	int nsum;
	const struct counter_set *sum = stat_model_summary(m, &nsum);
	struct counter_set merged[MAX_PMUS];
	bool merge = many_scopes(sum, nsum);
	if (merge) {
		nsum = merge_by_pmu(sum, nsum, merged);
		sum = merged;
	}
	struct run_diagnosis *r = td_calloc((size_t)nsum + 1, sizeof(*r));
	for (int i = 0; i < nsum; i++) {
		struct metric_value mv[METRICS_MAX];
		int n = stat_model_metrics(m, &sum[i], mv, METRICS_MAX);
		struct tma_tree tree;
		bool has_tree = build_tree(m, &sum[i], opt_cpu, &tree);
		struct machine mach;
		machine_of(&sum[i], has_tree ? &tree : NULL, &mach);
		char scope[320];
		snprintf(r[i].label, sizeof r[i].label, "%s%s%s", scope_name(m, &sum[i], scope, sizeof scope),
			 sum[i].pmu[0] ? " " : "", sum[i].pmu);
		const struct tma_tree *others[MAX_CAPTURE_TREES];
		int nothers = trees_of_pmu(sum[i].pmu, others);
		diagnose(&sum[i], mv, n, has_tree ? &tree : NULL, others, nothers, &mach, &r[i].d);
	}
	for (int i = 0; merge && i < nsum; i++)
		counter_set_free(&merged[i]);
	*out = r;
	return nsum;
}

static void write_diagnoses_text(const struct stat_model *m)
{
	struct run_diagnosis *r;
	int n = diagnoses(m, &r);
	if (n)
		printf("\ndiagnosis (one per run):\n");
	for (int i = 0; i < n; i++) {
		printf("  %s: %s\n", r[i].label, r[i].d.finding);
		if (r[i].d.next[0])
			printf("    next: %s\n", r[i].d.next);
		if (r[i].d.complete[0])
			printf("    to complete: %s\n", r[i].d.complete);
	}
	free(r);
}

static void write_diagnoses_markdown(const struct stat_model *m)
{
	struct run_diagnosis *r;
	int n = diagnoses(m, &r);
	printf("\n## Diagnosis\n\n");
	for (int i = 0; i < n; i++)
		printf("- **%s**: %s%s%s%s%s%s%s%s\n", r[i].label, r[i].d.finding, r[i].d.causes ? " Typical causes: " : "",
		       r[i].d.causes ? r[i].d.causes : "", r[i].d.change ? " Remediation: " : "", r[i].d.change ? r[i].d.change : "",
		       r[i].d.next[0] ? " Next: `" : "", r[i].d.next, r[i].d.next[0] ? "`" : "");
	for (int i = 0; i < n; i++)
		if (r[i].d.complete[0])
			printf("- %s, to complete: %s\n", r[i].label, r[i].d.complete);
	printf("\n## Validation plan\n\n");
	for (int i = 0; i < n; i++) {
		bool said = false;
		for (int k = 0; k < i && !said; k++)
			said = !strcmp(r[k].d.next, r[i].d.next);
		if (r[i].d.next[0] && !said)
			printf("- %s: `%s`\n", r[i].label, r[i].d.next);
	}
	free(r);
}

static void write_diagnoses_json(const struct stat_model *m)
{
	struct run_diagnosis *r;
	int n = diagnoses(m, &r);
	printf(", \"diagnosis\": [");
	for (int i = 0; i < n; i++) {
		printf("%s{\"run\": ", i ? ", " : "");
		td_json_string(stdout, r[i].label);
		printf(", \"finding\": ");
		td_json_string(stdout, r[i].d.finding);
		printf(", \"next\": ");
		td_json_string(stdout, r[i].d.next);
		printf(", \"to_complete\": ");
		td_json_string(stdout, r[i].d.complete);
		printf("}");
	}
	printf("]");
	free(r);
}

static void write_text(const struct stat_model *m, struct td_table *t, const char *inputs)
{
	int nsum;
	stat_model_summary(m, &nsum);
	printf("input: %s\n", inputs);
	if (m->command[0])
		printf("command: %s\n", m->command);
	if (!isnan(m->elapsed_s))
		printf("elapsed: %.3f s%s\n", m->elapsed_s, m->session ? " (the sum of the runs' footers)" : "");
	printf("counters: %lu rows (%lu not counted, %lu not supported); lowest enabled %.2f%%%s\n\n",
	       m->counters, m->not_counted, m->not_supported, m->min_enabled_pct,
	       m->min_enabled_pct < 100 ? " (multiplexed: values are scaled estimates)" : "");
	static const struct td_column view[] = {
		{ "scope", TD_COL_STR, 0 }, { "pmu", TD_COL_STR, 0 }, { "metric", TD_COL_STR, 0 },
		{ "value", TD_COL_STR, 0 }, { "unit", TD_COL_STR, 0 }, { "verdict", TD_COL_STR, 0 },
		{ "confidence", TD_COL_STR, 0 },
	};
	struct td_table *v = td_table_new(view, 7);
	for (int r = 0; r < td_table_rows(t); r++) {
		const char *iv = td_table_cell(t, r, C_INTERVAL);
		if ((iv && !opt_intervals) || td_table_cell(t, r, C_LEVEL))
			continue;       /* Top-down nodes are drawn as trees below */
		td_table_row(v);
		char scope[320];
		snprintf(scope, sizeof scope, "%s%s%s", iv ? iv : "", iv ? " " : "", td_table_cell(t, r, C_SCOPE));
		td_table_str(v, 0, scope);
		td_table_str(v, 1, td_table_cell(t, r, C_PMU));
		td_table_str(v, 2, td_table_cell(t, r, C_METRIC));
		td_table_str(v, 3, td_table_cell(t, r, C_VALUE));
		td_table_str(v, 4, td_table_cell(t, r, C_UNIT));
		char verdict[64];
		const char *band = td_table_cell(t, r, C_BAND), *vd = td_table_cell(t, r, C_VERDICT);
		const char *note = td_table_cell(t, r, C_NOTE);
		if (!vd && note)
			vd = note;
		snprintf(verdict, sizeof verdict, "%s%s%s%s", vd ? vd : "", band ? " (" : "", band ? band : "", band ? ")" : "");
		td_table_str(v, 5, verdict);
		char conf[32];
		const char *c = td_table_cell(t, r, C_CONF);
		snprintf(conf, sizeof conf, "%s%s", c ? c : "", strcmp(td_table_cell(t, r, C_LOWCONF), "yes") == 0 ? " LOW" : "");
		td_table_str(v, 6, strcmp(conf, "100.00") == 0 ? "exact" : conf);
	}
	if (td_table_rows(v))
		td_table_write(v, stdout, TD_FMT_TEXT);
	else if (m->toplev_metrics && !m->counters)
		printf("toplev's output: %lu node values, no counts (the Top-down tree below is toplev's)\n", m->toplev_metrics);
	else
		printf("no derived metric: the events present allow none (need e.g. cycles and instructions)\n");
	if (m->has_intervals && !opt_intervals)
		printf("\n(whole-run sums shown; per-interval rows with --intervals, --csv or --json)\n");
	td_table_free(v);
	write_trees(m, stdout, false);
	write_diagnoses_text(m);
}

static void write_markdown(const struct stat_model *m, struct td_table *t, const char *inputs)
{
	printf("# Performance counter report\n\n## Environment\n\n");
	printf("- Input: `%s`\n", inputs);
	if (m->command[0])
		printf("- Command: `%s`\n", m->command);
	if (!isnan(m->elapsed_s))
		printf("- Elapsed: %.3f s%s\n", m->elapsed_s, m->session ? " (the sum of the runs' footers)" : "");
	printf("- Counters: %lu rows, %lu not counted, %lu not supported; lowest enabled %.2f%%\n\n",
	       m->counters, m->not_counted, m->not_supported, m->min_enabled_pct);
	printf("## Summary\n\n| Scope | Metric | Value | Assessment |\n|---|---|---:|---|\n");
	for (int r = 0; r < td_table_rows(t); r++) {
		if (td_table_cell(t, r, C_INTERVAL) || td_table_cell(t, r, C_LEVEL))
			continue;
		const char *vd = td_table_cell(t, r, C_VERDICT), *band = td_table_cell(t, r, C_BAND);
		const char *unit = td_table_cell(t, r, C_UNIT);
		printf("| %s%s%s | %s | %s%s%s | %s%s%s%s |\n", td_table_cell(t, r, C_SCOPE),
		       td_table_cell(t, r, C_PMU) ? " " : "", td_table_cell(t, r, C_PMU) ? td_table_cell(t, r, C_PMU) : "",
		       td_table_cell(t, r, C_METRIC), td_table_cell(t, r, C_VALUE), unit ? " " : "", unit ? unit : "",
		       vd ? vd : "-", band ? " (" : "", band ? band : "", band ? ")" : "");
	}
	write_trees(m, stdout, true);
	write_diagnoses_markdown(m);
	printf("- Re-run with repeats to judge noise: `perf stat -r 5 -x, ... | td-derive`\n");
}

/* Where interval rows go: streamed (CSV, JSON), kept for the text view
 * (--intervals), or only checked against perf's own metrics. */
struct interval_sink {
	struct td_table *table;     /* NULL: rows not wanted */
};

static void chart_interval(const struct stat_model *m)
{
	struct counter_set merged[MAX_PMUS];
	int n = merge_by_pmu(m->cur, m->ncur, merged);
	for (int i = 0; i < n; i++) {
		struct tma_tree tree;
		char run[256], series[320];        /* a series per run (or file) and PMU */
		stat_model_run_label(m, merged[i].session, run, sizeof run);
		snprintf(series, sizeof series, "%s%s%s", run, run[0] && merged[i].pmu[0] ? " " : "", merged[i].pmu);
		if (build_tree(m, &merged[i], opt_cpu, &tree))
			tma_chart_add(chart, series, merged[i].interval, &tree);
		counter_set_free(&merged[i]);
	}
}

static void on_interval(void *ctx, const struct stat_model *m)
{
	struct interval_sink *sink = ctx;
	if (chart)
		chart_interval(m);
	if (sink->table)
		for (int i = 0; i < m->ncur; i++)
			add_rows(sink->table, m, &m->cur[i]);
	check_perf(m, m->perf_cur, m->nperf_cur);
}

/* The input paused (a live perf stat -I): the rows so far are shown now. */
static void show_streamed_rows(void *table)
{
	td_table_flush(table);
}

/* --cpu names a model whose events the capture does not have while another
 * model's are there (an AMD model for an Intel capture): said once, exit 2;
 * the tree is the one perf printed, if any. */
static void check_cpu_fits(const struct counter_set *sum, int nsum)
{
	for (int i = 0; i < nsum; i++) {
		const struct tma_model *found;
		if (!tma_cpu_misfit(opt_cpu, &sum[i], &found) || !found)
			continue;
		td_error("--cpu %s does not fit this capture: its Top-down events are %s's (model %s); drop --cpu "
			 "or name a model of that vendor", opt_cpu, tma_model_vendor(found), found->id);
		return;
	}
}

static void write_json_head(const struct stat_model *m, const char *inputs)
{
	printf(",\n\"input\": ");
	td_json_string(stdout, inputs);
	printf(", \"command\": ");
	td_json_string(stdout, m->command);
	printf(", \"elapsed_s\": ");
	if (isnan(m->elapsed_s))
		printf("null");
	else
		printf("%.9g", m->elapsed_s);
	printf(", \"intervals\": %lu, \"counters\": %lu, \"not_counted\": %lu, \"not_supported\": %lu, \"min_enabled_pct\": %.2f,\n",
	       m->intervals, m->counters, m->not_counted, m->not_supported, m->min_enabled_pct);
	printf("\"perf_check\": {\"printed\": %d, \"checked\": %d, \"agree\": %d, \"not_recomputable\": [",
	       perf_account.printed, perf_account.checked, perf_account.agree);
	for (int i = 0; i < perf_account.n; i++) {
		printf("%s{\"metric\": ", i ? ", " : "");
		td_json_string(stdout, perf_account.not[i].metric);
		printf(", \"count\": %d, \"why\": ", perf_account.not[i].count);
		td_json_string(stdout, perf_account.not[i].why);
		printf("}");
	}
	printf("]}");
	write_diagnoses_json(m);
	printf("}\n");
}

static void write_perf_account(void)
{
	if (perf_account.checked)
		printf("\nperf's own metrics: %d of %d agree with td-derive at perf's precision\n", perf_account.agree,
		       perf_account.checked);
	if (perf_account.n)
		printf("%sperf's metrics td-derive cannot recompute (%d):\n", perf_account.checked ? "" : "\n",
		       not_recomputable_total());
	for (int i = 0; i < perf_account.n; i++)
		printf("  %s%s%.0d%s: %s\n", perf_account.not[i].metric, perf_account.not[i].count > 1 ? " (" : "",
		       perf_account.not[i].count > 1 ? perf_account.not[i].count : 0,
		       perf_account.not[i].count > 1 ? "x)" : "", perf_account.not[i].why);
}

int main(int argc, char **argv)
{
	int n = td_parse_options(&cmd, argc, argv);
	enum stat_format fmt = STAT_AUTO;
	if (opt_format) {
		if (strcmp(opt_format, "csv") == 0)
			fmt = STAT_CSV;
		else if (strcmp(opt_format, "json") == 0)
			fmt = STAT_JSON;
		else if (strcmp(opt_format, "text") == 0)
			fmt = STAT_TEXT;
		else
			td_usage_error(&cmd, "--format must be csv, json or text, not '%s'", opt_format);
	}
	if (opt_level != -1 && (opt_level < 1 || opt_level > TMA_DEEPEST_LEVEL))
		td_usage_error(&cmd, "--level is a Top-down level, 1 to %d, not %ld", TMA_DEEPEST_LEVEL, opt_level);
	if (opt_level == -1)
		opt_level = 0;
	const char *cpu_error = opt_cpu ? tma_cpu_option_error(opt_cpu) : NULL;
	if (cpu_error)
		td_usage_error(&cmd, "%s", cpu_error);
	perf_metric_table_options(opt_metrics, opt_cpuid);
	enum td_format out = td_pick_format(opt_csv, opt_json, opt_markdown);
	if (opt_counters && out == TD_FMT_MARKDOWN)
		td_usage_error(&cmd, "--counters writes text, CSV or JSON");
	struct td_table *t = opt_counters ? td_table_new(counter_columns, NKCOLS) : td_table_new(columns, NCOLS);
	bool streaming = out == TD_FMT_CSV || out == TD_FMT_JSON;
	if (out == TD_FMT_JSON)
		printf("{\"metrics\": ");
	if (streaming)
		td_table_stream(t, stdout, out);
	struct interval_sink sink = { streaming || (out == TD_FMT_TEXT && (opt_intervals || opt_counters)) ? t : NULL };
	if (opt_svg)
		chart = tma_chart_new((int)opt_level);
	struct stat_model m;
	stat_model_init(&m);
	m.on_interval = on_interval;
	m.on_interval_ctx = &sink;
	if (streaming) {
		m.on_pause = show_streamed_rows;
		m.on_pause_ctx = t;
	}
	char inputs[1024] = "";
	const char *stdin_only[] = { "-" };
	const char **files = n ? (const char **)argv : stdin_only;
	int nfiles = n ? n : 1;
	/* reading on this thread, the model and the rows on a second one */
	struct stat_pipe *pipe = stat_pipe_start(stat_model_add, &m);
	for (int i = 0; i < nfiles; i++) {
		enum stat_format got = pipe ? stat_read(files[i], fmt, stat_pipe_emit, pipe)
					    : stat_read(files[i], fmt, stat_model_add, &m);
		size_t used = strlen(inputs);
		snprintf(inputs + used, sizeof inputs - used, "%s%s (%s)", i ? ", " : "",
			 strcmp(files[i], "-") ? files[i] : "<stdin>",
			 got == STAT_AUTO ? "no perf stat output" : stat_format_name(got));
	}
	if (pipe)
		stat_pipe_finish(pipe);
	stat_model_finish(&m);
	int nsum;
	const struct counter_set *sum = stat_model_summary(&m, &nsum);
	if (opt_cpu)
		check_cpu_fits(sum, nsum);
	for (int i = 0; i < nsum && ncapture_trees < MAX_CAPTURE_TREES && !opt_counters; i++)
		if (build_tree(&m, &sum[i], opt_cpu, &capture_tree[ncapture_trees])) {
			capture_trees[ncapture_trees] = &capture_tree[ncapture_trees];
			capture_tree_pmu[ncapture_trees++] = sum[i].pmu;
		}
	for (int i = 0; i < nsum; i++)
		add_rows(t, &m, &sum[i]);
	check_perf(&m, m.perf, m.nperf);
	if (streaming)
		td_table_end_stream(t);
	if (out == TD_FMT_JSON) {
		write_json_head(&m, inputs);
	} else if (out == TD_FMT_MARKDOWN) {
		write_markdown(&m, t, inputs);
	} else if (opt_counters) {
		td_table_write(t, stdout, TD_FMT_TEXT);
	} else if (out == TD_FMT_TEXT) {
		write_text(&m, t, inputs);
		write_perf_account();
	}
	if (chart) {
		FILE *svg = fopen(opt_svg, "w");
		if (!svg)
			td_error("%s: cannot write: %s", opt_svg, strerror(errno));
		else if (!tma_chart_write(chart, svg, inputs))
			td_warn(NULL, 0, "--svg: no interval had a Top-down tree (needs -I input with Top-down events or tma_* metrics)");
		if (svg && fclose(svg))
			td_error("%s: cannot write: %s", opt_svg, strerror(errno));
		tma_chart_free(chart);
	}
	if (stat_model_software_only(&m))
		td_warn(NULL, 0, "only software events were counted; the hardware events are <not supported>: perf saw "
			"no hardware PMU (a VM without a virtual PMU, a container, or perf_event_paranoid too high). "
			"Software metrics (CPUs utilized, events per second) are shown. For hardware counters run on "
			"bare metal or a VM with a virtual PMU (KVM/QEMU: -cpu host,pmu=on), allow them with "
			"'sysctl kernel.perf_event_paranoid=2' (1 or CAP_PERFMON for kernel events), and check with "
			"'perf stat -e cycles,instructions -- true'");
	if (m.repeated_events)
		td_warn(NULL, 0, "%lu events printed more than once in one interval and scope (e.g. %s: one copy per "
			"metric group, or one per PMU with the same name): a Top-down node perf printed is computed "
			"from its own group's copies, other metrics from the copies' mean",
			m.repeated_events, m.repeated_example);
	if (m.records == 0 && !td_bad_input_count())   /* a file without any was named already */
		td_bad_input(NULL, 0, "no perf stat output found in the input");
	else if (m.counters == 0 && m.nperf == 0 && !m.toplev_metrics && !td_bad_input_count())
		td_warn(NULL, 0, "the perf stat output holds no counter values");
	td_table_free(t);
	stat_model_free(&m);
	return td_exit_code(TD_EXIT_OK);
}
