#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/derive.h"
#include "analysis/tma.h"
#include "common/diag.h"
#include "common/input.h"
#include "common/stats.h"
#include "common/grow.h"
#include "diff_counters.h"
#include "next_step.h"

#define MAX_THRESHOLDS 64

struct diff_counters {
	bool per_scope;
	struct dc_quantity *q;
	int nq, cap;
	int runs[2];
	int repeated[2];          /* runs that are perf -r means */
	int repeats[2];           /* the perf -r runs behind them, where the file says how many */
	bool repeats_unknown[2];  /* a perf -r mean without its count (CSV, JSON) */
	char command[2][512];
	struct dc_threshold thresholds[MAX_THRESHOLDS];
	int nthresholds;
	struct dc_result *results;
};

struct diff_counters *diff_counters_new(bool per_scope)
{
	struct diff_counters *d = td_calloc(1, sizeof(*d));
	d->per_scope = per_scope;
	return d;
}

void diff_counters_free(struct diff_counters *d)
{
	if (!d)
		return;
	free(d->q);
	free(d->results);
	free(d);
}

int diff_counters_runs(const struct diff_counters *d, int side) { return d->runs[side]; }
const char *diff_counters_command(const struct diff_counters *d, int side) { return d->command[side]; }

const char *diff_counters_runs_text(const struct diff_counters *d, int side, char *buf, size_t cap)
{
	int runs = d->runs[side], plain = runs - d->repeated[side];
	if (!d->repeated[side])
		snprintf(buf, cap, "%d run%s", runs, runs == 1 ? "" : "s");
	else if (!d->repeats_unknown[side])
		snprintf(buf, cap, "%d runs, perf -r", d->repeats[side] + plain);
	else if (runs == 1)
		snprintf(buf, cap, "perf -r runs: the file does not say how many");
	else
		snprintf(buf, cap, "%d runs, %d of them perf -r means of runs the file does not count", runs,
			 d->repeated[side]);
	return buf;
}

/* Raw counters where more is worse for the same workload. */
static bool counter_higher_is_worse(const char *name)
{
	static const char *const worse[] = { "cycles", "task-clock", "cpu-clock", "duration_time", "page-faults",
					     "major-faults", "minor-faults", "context-switches", "cpu-migrations", NULL };
	for (const char *const *w = worse; *w; w++)
		if (strcmp(name, *w) == 0)
			return true;
	return strstr(name, "miss") || strstr(name, "stall") || strstr(name, "refill");
}

static struct dc_quantity *quantity(struct diff_counters *d, const char *name, bool is_metric)
{
	for (int i = 0; i < d->nq; i++)
		if (d->q[i].is_metric == is_metric && strcmp(d->q[i].name, name) == 0)
			return &d->q[i];
	TD_ALLOC_GROW(d->q, d->nq + 1, d->cap);
	struct dc_quantity *q = &d->q[d->nq++];
	memset(q, 0, sizeof(*q));
	snprintf(q->name, sizeof q->name, "%s", name);
	q->is_metric = is_metric;
	q->unit = "";
	q->rel_se[0] = q->rel_se[1] = NAN;
	q->enabled[0] = q->enabled[1] = 100;
	return q;
}

static void add_value(struct dc_quantity *q, int side, double v, double var_pct, int repeats, double enabled)
{
	if (isnan(v)) {
		q->not_counted[side]++;
		return;
	}
	if (q->n[side] < DC_MAX_RUNS)
		q->v[side][q->n[side]++] = v;
	q->rel_se[side] = q->n[side] == 1 && !isnan(var_pct) ? var_pct / 100 : NAN;
	q->repeats[side] = repeats;
	if (enabled < q->enabled[side])
		q->enabled[side] = enabled;
}

void diff_counters_next_run(struct diff_counters *d, int side) { d->runs[side]++; }

void diff_counters_add_value(struct diff_counters *d, int side, const char *name, bool is_metric, int tma_level,
			     const char *unit, int better, double value, double variance_pct, double enabled_pct,
			     bool not_meaningful)
{
	struct dc_quantity *q = quantity(d, name, is_metric);
	q->unit = unit ? unit : "";
	q->tma_level = tma_level;
	q->has_direction = better != 0 || (!is_metric && counter_higher_is_worse(name));
	q->higher_is_better = better > 0;
	add_value(q, side, value, variance_pct, 0, isnan(enabled_pct) ? 100 : enabled_pct);
	q->not_meaningful[side] |= not_meaningful;
}

static void quantity_name(char *buf, size_t cap, const struct counter_set *s, bool per_scope, const char *name)
{
	snprintf(buf, cap, "%s%s%s%s%s", per_scope && s->scope[0] ? s->scope : "", per_scope && s->scope[0] ? " " : "",
		 s->pmu, s->pmu[0] ? "/" : "", name);
}

/* Top-down nodes (from raw events, or as toplev printed them) as metrics in
 * %, level recorded: more retiring is better, more of any stall category
 * worse. A set of toplev's has no counters, so its scope is kept: there is
 * nothing to sum. */
static void add_tree(struct diff_counters *d, int side, int repeats, const struct counter_set *s,
		     const struct tma_tree *t)
{
	double enabled = counter_set_lowest_enabled(s);
	char name[256];
	for (int i = 0; i < t->n; i++) {
		const struct tma_node *nd = &t->node[i];
		if (isnan(nd->value))
			continue;              /* not computable: nothing to compare */
		quantity_name(name, sizeof name, s, d->per_scope || s->n == 0, nd->def->name);
		struct dc_quantity *q = quantity(d, name, true);
		q->unit = "%";
		q->tma_level = nd->level;
		q->has_direction = true;
		q->higher_is_better = !strcmp(nd->def->name, "retiring") || !strcmp(nd->def->name, "light_operations");
		add_value(q, side, 100 * nd->value, NAN, repeats, enabled);
	}
}

static void add_set(struct diff_counters *d, int side, int repeats, const struct derive_compare_set *ds)
{
	const struct counter_set *s = ds->set;
	char name[256];
	for (int i = 0; i < s->n; i++) {
		quantity_name(name, sizeof name, s, d->per_scope, s->c[i].name);
		struct dc_quantity *q = quantity(d, name, false);
		q->has_direction = counter_higher_is_worse(s->c[i].name);
		add_value(q, side, s->c[i].value, s->c[i].variance_pct, repeats, s->c[i].enabled_pct);
	}
	const struct metric_value *mv = ds->metrics;
	for (int i = 0; i < ds->nmetrics; i++) {
		quantity_name(name, sizeof name, s, d->per_scope, mv[i].name);
		struct dc_quantity *q = quantity(d, name, true);
		q->unit = mv[i].unit;
		q->has_direction = mv[i].has_direction || strcmp(mv[i].name, "elapsed_s") == 0;
		q->higher_is_better = mv[i].higher_is_better;
		add_value(q, side, mv[i].value, mv[i].variance_pct, repeats, mv[i].confidence);
		q->not_meaningful[side] |= mv[i].not_meaningful;
	}
	if (ds->tree)
		add_tree(d, side, repeats, s, ds->tree);
}

struct reading {
	struct diff_counters *d;
	int side;
	const char *path;
};

/* One run of the file: its sets as the engine derived them. */
static bool add_run(void *ctx, const struct derive_compare_run *r)
{
	struct reading *rd = ctx;
	struct diff_counters *d = rd->d;
	int side = rd->side;
	if (d->runs[side] == DC_MAX_RUNS) {
		td_bad_input(td_input_display_name(rd->path), 0, "more than %d runs on one side: the later ones "
			     "are not compared", DC_MAX_RUNS);
		return false;
	}
	for (int i = 0; i < r->nsets; i++)
		add_set(d, side, r->repeats, &r->sets[i]);
	d->runs[side]++;
	if (r->repeats > 1 || r->variance) {
		d->repeated[side]++;
		d->repeats[side] += r->repeats;
		d->repeats_unknown[side] |= r->repeats <= 1;
	}
	return true;
}

bool diff_counters_read(struct diff_counters *d, int side, const char *path, enum stat_format fmt)
{
	struct derive_compare_options o = { fmt, d->per_scope };
	struct reading rd = { d, side, path };
	struct derive_compare_file info;
	derive_compare_file(path, &o, add_run, &rd, &info);
	if (info.command[0] && !d->command[side][0])
		snprintf(d->command[side], sizeof d->command[side], "%s", info.command);
	if (!info.any)
		td_bad_input(td_input_display_name(path), 0, "no perf stat counters in this input");
	return info.any;
}

int diff_counters_check(const struct diff_counters *d, const char *base_name, const char *cand_name)
{
	const char *names[2] = { base_name, cand_name };
	int problems = 0;
	for (int i = 0; i < d->nq; i++) {
		const struct dc_quantity *q = &d->q[i];
		if (q->is_metric)
			continue;
		for (int s = 0; s < 2; s++) {
			bool here = q->n[s] + q->not_counted[s] > 0, there = q->n[!s] + q->not_counted[!s] > 0;
			if (here && !there && q->n[s] > 0) {
				td_bad_input(names[!s], 0, "has no %s, which %s counted: %s not compared (the inputs measured "
					     "different events)", q->name, names[s], q->name);
				problems++;
			} else if (here && !there) {
				td_bad_input(names[!s], 0, "has no %s, which %s asked for but did not count (<not counted> or "
					     "<not supported> there): %s not compared (the inputs measured different events)",
					     q->name, names[s], q->name);
				problems++;
			} else if (q->n[s] > 0 && q->not_counted[!s] > 0 && q->n[!s] == 0) {
				td_bad_input(names[!s], 0, "%s is <not counted> or <not supported> here but counted in %s: "
					     "%s not compared", q->name, names[s], q->name);
				problems++;
			}
		}
	}
	return problems;
}

static const struct dc_threshold default_thresholds[] = {
	{ "elapsed_s", 5 }, { "task-clock", 5 }, { "ipc", -5 }, { "cache_miss_rate", 20 },
	{ "llc-load-misses", 15 }, { "cache-misses", 15 },
};

double diff_counters_default_threshold(const char *name)
{
	for (size_t i = 0; i < sizeof default_thresholds / sizeof *default_thresholds; i++)
		if (strcmp(default_thresholds[i].name, name) == 0)
			return default_thresholds[i].pct;
	return NAN;
}

void diff_counters_default_thresholds(struct diff_counters *d)
{
	d->nthresholds = 0;
	for (size_t i = 0; i < sizeof default_thresholds / sizeof *default_thresholds; i++)
		d->thresholds[d->nthresholds++] = default_thresholds[i];
}

bool diff_counters_set_threshold(struct diff_counters *d, const char *spec)
{
	const char *eq = strchr(spec, '=');
	if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof d->thresholds[0].name)
		return false;
	char *end;
	double pct = strtod(eq + 1, &end);
	if (end == eq + 1 || (*end && strcmp(end, "%")) || pct == 0 || !isfinite(pct) ||
	    (eq[1] != '+' && eq[1] != '-'))
		return false;
	int k = 0;
	while (k < d->nthresholds && (strncmp(d->thresholds[k].name, spec, (size_t)(eq - spec)) ||
				      d->thresholds[k].name[eq - spec]))
		k++;
	if (k == d->nthresholds) {
		if (k == MAX_THRESHOLDS)
			return false;
		d->nthresholds++;
	}
	memcpy(d->thresholds[k].name, spec, (size_t)(eq - spec));
	d->thresholds[k].name[eq - spec] = '\0';
	d->thresholds[k].pct = pct;
	return true;
}

bool diff_counters_load_thresholds(struct diff_counters *d, const char *path)
{
	struct td_input *in = td_input_open(path);
	if (!in)
		return false;
	const char *line;
	size_t len;
	bool ok = true;
	while (td_input_next(in, &line, &len)) {
		char buf[256];
		size_t n = 0;
		for (size_t i = 0; i < len && line[i] != '#' && n + 1 < sizeof buf; i++)
			if (line[i] != ' ' && line[i] != '\t')
				buf[n++] = line[i];
		buf[n] = '\0';
		if (n && !diff_counters_set_threshold(d, buf)) {
			td_bad_input(td_input_name(in), td_input_lineno(in), "not a threshold (want NAME=+5%% or NAME=-3%%)");
			ok = false;
		}
	}
	td_input_close(in);
	return ok;
}

static double threshold_for(const struct diff_counters *d, const char *name)
{
	const char *base = strrchr(name, ' ');      /* per-scope names: "CPU0 ipc" */
	base = base ? base + 1 : name;
	const char *slash = strrchr(base, '/');     /* per-PMU names: "cpu_core/ipc" */
	if (slash && slash[1])
		base = slash + 1;
	for (int i = 0; i < d->nthresholds; i++)
		if (strcmp(d->thresholds[i].name, base) == 0)
			return d->thresholds[i].pct;
	return NAN;
}

/* perf -r gives the error of the mean; without its run count (CSV) the
 * test falls back to a large df, i.e. the normal approximation. */
static void side_stats(const struct dc_quantity *q, int s, double *mean, double *se, int *n)
{
	td_mean_se(q->v[s], q->n[s], mean, se);
	*n = q->n[s];
	if (q->n[s] == 1 && !isnan(q->rel_se[s])) {
		*se = q->rel_se[s] * fabs(*mean);
		*n = q->repeats[s] > 1 ? q->repeats[s] : 1000;
	}
}

/* A counter of events, not of time or energy (task-clock is in ms,
 * power/energy-pkg/ in Joules: small numbers there are no handful). */
static bool counts_events(const char *name)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	size_t n = strlen(base);
	return !(n >= 6 && strcmp(base + n - 6, "-clock") == 0) && !strstr(base, "_time") && strncmp(base, "energy-", 7);
}

static const char *verdict(const struct dc_quantity *q, const struct dc_result *r)
{
	bool worse = q->has_direction && (q->higher_is_better ? r->delta < 0 : r->delta > 0);
	bool known = !isnan(r->p);
	if (r->delta == 0)
		return "unchanged";
	/* a handful of events (0 -> 1 is not +inf%, even with -r's variance),
	 * a ratio over a handful, or counts scaled from a sliver of the run
	 * without variance cannot carry a verdict */
	if ((!q->is_metric && counts_events(q->name) && fmax(fabs(r->base), fabs(r->cand)) < 100) || q->not_meaningful[0] ||
	    q->not_meaningful[1] || (!known && r->confidence < 10))
		return "uncertain";
	if (!isnan(r->threshold_pct) && (known ? r->significant : true)) {
		/* from 0 to anything is an infinite relative change */
		double rel = isnan(r->rel_pct) ? copysign(INFINITY, r->delta) : r->rel_pct;
		bool bad = r->threshold_pct > 0 ? rel >= r->threshold_pct : rel <= r->threshold_pct;
		bool good = r->threshold_pct > 0 ? rel <= -r->threshold_pct : rel >= -r->threshold_pct;
		if (bad)
			return "regression";
		if (good)
			return "improvement";
	}
	if (known && !r->significant)
		return "noise";
	if (!known || !q->has_direction)
		return "changed";          /* no variance: only thresholds judge */
	return worse ? "worse" : "better";
}

static int verdict_rank(const char *v)
{
	static const char *const order[] = { "regression", "improvement", "worse", "better", "changed", "uncertain", "noise",
					     "unchanged" };
	for (int i = 0; i < 8; i++)
		if (strcmp(v, order[i]) == 0)
			return i;
	return 8;
}

static int cmp_results(const void *a, const void *b)
{
	const struct dc_result *x = a, *y = b;
	int c = verdict_rank(x->verdict) - verdict_rank(y->verdict);
	if (c)
		return c;
	if (x->q->is_metric != y->q->is_metric)
		return x->q->is_metric ? -1 : 1;     /* metrics before raw counters */
	return strcmp(x->q->name, y->q->name);
}

int diff_counters_compare(struct diff_counters *d, double alpha, const struct dc_result **out)
{
	free(d->results);
	d->results = td_calloc((size_t)d->nq + 1, sizeof(*d->results));
	int k = 0;
	for (int i = 0; i < d->nq; i++) {
		const struct dc_quantity *q = &d->q[i];
		if (q->n[0] == 0 || q->n[1] == 0)
			continue;
		struct dc_result *r = &d->results[k++];
		double se[2];
		int n[2];
		side_stats(q, 0, &r->base, &se[0], &n[0]);
		side_stats(q, 1, &r->cand, &se[1], &n[1]);
		r->q = q;
		r->delta = r->cand - r->base;
		r->rel_pct = r->base != 0 ? 100 * r->delta / fabs(r->base) : (r->delta == 0 ? 0 : NAN);
		r->p = td_welch_p(r->base, se[0], n[0], r->cand, se[1], n[1], &r->df);
		r->significant = !isnan(r->p) && r->p < alpha;
		r->threshold_pct = threshold_for(d, q->name);
		r->confidence = fmin(q->enabled[0], q->enabled[1]);
		r->verdict = verdict(q, r);
	}
	qsort(d->results, (size_t)k, sizeof(*d->results), cmp_results);
	*out = d->results;
	return k;
}

/* By name; on hybrids the P-core PMU's ("cpu_core/ipc"), else any PMU's. */
static const struct dc_result *find(const struct dc_result *r, int n, const char *name)
{
	const struct dc_result *any = NULL;
	char core[300];
	snprintf(core, sizeof core, "cpu_core/%s", name);
	for (int i = 0; i < n; i++) {
		const char *qn = r[i].q->name, *slash = strchr(qn, '/');
		if (strcmp(qn, name) == 0 || strcmp(qn, core) == 0)
			return &r[i];
		if (!any && slash && !strchr(qn, ' ') && strcmp(slash + 1, name) == 0)
			any = &r[i];
	}
	return any;
}

static bool moved(const struct dc_result *r)
{
	return r && strcmp(r->verdict, "noise") && strcmp(r->verdict, "unchanged") && fabs(r->rel_pct) >= 1;
}

/* The stall node (not retiring) whose share grew most, at the deepest
 * level both sides have. */
static const struct dc_result *tma_grew_most(const struct dc_result *r, int n)
{
	const struct dc_result *best = NULL;
	for (int i = 0; i < n; i++) {
		const struct dc_quantity *q = r[i].q;
		if (!q->tma_level || q->higher_is_better || r[i].delta <= 0)
			continue;
		if (!best || q->tma_level > best->q->tma_level ||
		    (q->tma_level == best->q->tma_level && r[i].delta > best->delta))
			best = &r[i];
	}
	return best;
}

void diff_counters_explain(const struct diff_counters *d, const struct dc_result *r, int n, char *buf, size_t cap)
{
	(void)d;
	const struct dc_result *cyc = find(r, n, "cycles"), *clk = find(r, n, "task-clock");
	const struct dc_result *ins = find(r, n, "instructions"), *ipc = find(r, n, "ipc");
	const struct dc_result *bd = find(r, n, "branch_density"), *cmr = find(r, n, "cache_miss_rate");
	const struct dc_result *bmr = find(r, n, "branch_miss_rate");
	const struct dc_result *time = cyc ? cyc : clk;
	size_t w = 0;
#define SAY(...) (w += (size_t)snprintf(buf + w, w < cap ? cap - w : 0, __VA_ARGS__))
	buf[0] = '\0';
	if (!time) {
		SAY("Neither cycles nor task-clock was counted on both sides: no time to explain.");
		return;
	}
	const struct dc_result *wall = find(r, n, "elapsed_s"), *cpus = find(r, n, "cpus_utilized");
	if (wall)
		SAY("Elapsed %+.1f%% (%s). ", wall->rel_pct, wall->verdict);
	SAY("%s %+.1f%% (%s).", time->q->name, time->rel_pct, time->verdict);
	if (wall && clk && moved(wall) && moved(clk) && (wall->rel_pct < 0) != (clk->rel_pct < 0))
		SAY(" Wall time and CPU time moved apart: the parallelism changed%s.",
		    cpus ? (cpus->delta > 0 ? " (more CPUs busy)" : " (fewer CPUs busy)") : "");
	if (!moved(time)) {
		SAY(" No real change in time.");
	} else if (ipc && ins) {
		if (moved(ins) && ins->rel_pct > 0)
			SAY(" Instructions %+.1f%%: more work is being done%s.", ins->rel_pct,
			    bd && moved(bd) ? " and branch density moved too" : "");
		if (moved(ipc) && ipc->rel_pct < 0) {
			SAY(" IPC %+.1f%%: each instruction costs more cycles%s%s.", ipc->rel_pct,
			    cmr && moved(cmr) && cmr->rel_pct > 0 ? "; the cache miss rate grew" : "",
			    bmr && moved(bmr) && bmr->rel_pct > 0 ? "; the branch miss rate grew" : "");
			const struct dc_result *grew = tma_grew_most(r, n);
			if (grew)
				SAY(" Top-down: %s grew most (%.1f%% -> %.1f%% of slots, %+.1f points).", grew->q->name,
				    grew->base, grew->cand, grew->delta);
		}
		if (!moved(ins) && !moved(ipc))
			SAY(" Neither instructions nor IPC moved significantly: check frequency (ghz) and CPU time.");
	} else {
		SAY(" Without cycles and instructions on both sides the cause cannot be split into work and efficiency.");
		const struct dc_result *grew = tma_grew_most(r, n);
		if (grew)
			SAY(" Top-down: %s grew most (%.1f%% -> %.1f%% of slots, %+.1f points).", grew->q->name, grew->base,
			    grew->cand, grew->delta);
	}
	if (moved(time) && time->rel_pct > 0) {
		/* the vendor the events name; Top-down asked for only when absent */
		int votes[TMA_NVENDORS + 1] = { 0 };
		bool tree = false;
		for (int i = 0; i < n; i++) {
			votes[next_step_vendor_of_event(r[i].q->name)]++;
			tree |= r[i].q->tma_level > 0;
		}
		struct machine mach = { TMA_NVENDORS, NULL };
		for (int v = 0; v < TMA_NVENDORS; v++)
			if (votes[v] && (mach.vendor == TMA_NVENDORS || votes[v] > votes[mach.vendor]))
				mach.vendor = (enum tma_vendor)v;
		if (tree)
			SAY(" Next: the Top-down rows above show which node grew; perf record -g both and td-diff "
			    "--folded --top 20.");
		else
			SAY(" Next, on both builds: %s; td-diff the two perf stat outputs to see which top-down node grew; "
			    "perf record -g both and td-diff --folded --top 20.", next_step_topdown(&mach));
	}
#undef SAY
}
