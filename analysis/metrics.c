#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "common/bytes.h"
#include "common/diag.h"
#include "common/grow.h"
#include "events.h"
#include "metrics.h"
#include "perf_metric_table.h"

/* One derived metric: value = scale * num / den, from the first pair of
 * events the counter set has (num_max: num is the largest of the num[]
 * events counted, over den[0]). Thresholds are tdkit's seed values
 * (TMA.md section 7.1): "healthy" on the good side of the first,
 * "investigate" past the second, "ok" between; NaN: no verdict. Rows
 * named after a perf shadow metric use perf 6.1's definition of it
 * (tools/perf/util/stat-shadow.c), so the check against perf's own
 * value compares like with like. */
struct ratio_def {
	const char *name;
	const char *num[3], *den[3];
	double scale;
	const char *unit;
	bool higher_is_better;
	double healthy, investigate;
	const char *next_step;
	bool num_max;
};

const char metrics_next_topdown[] = "perf stat -M TopdownL1 (Intel) / -M PipelineL1 (AMD) / -M TopDownL1 (ARM) -- CMD | td-derive";
const char metrics_next_branches[] = "perf record -b -e cycles -- CMD; perf script -F comm,pid,tid,ip,sym,brstack | td-branches";
#define NEXT_TOPDOWN metrics_next_topdown
#define NEXT_BRANCHES metrics_next_branches
#define NEXT_MEMORY "perf mem record -- CMD; perf mem report  (or: perf record -e cache-misses -g -- CMD; perf script | td-fold)"
#define NEXT_TLB "perf record -e dTLB-load-misses -g -- CMD; perf script | td-fold  (try huge pages)"
#define NEXT_FRONTEND "perf record -g -- CMD; perf script | td-fold | flamegraph.pl  (code layout: PGO, BOLT, -falign-functions)"

static const struct ratio_def ratios[] = {
	{ "ipc", { "instructions" }, { "cycles" }, 1, "", true, 2.0, 1.0, NEXT_TOPDOWN, false },
	{ "cpi", { "cycles" }, { "instructions" }, 1, "", false, 1.0, 1.0, NEXT_TOPDOWN, false },
	{ "stalled_cycles_per_insn", { "stalled-cycles-frontend", "stalled-cycles-backend" }, { "instructions" }, 1, "",
	  false, NAN, NAN, "", true },
	{ "branch_miss_rate", { "branch-misses" }, { "branches" }, 100, "%", false, 2, 5, NEXT_BRANCHES, false },
	{ "retired_mispredict_rate", { "br_mis_pred_retired" }, { "br_retired" }, 100, "%", false, 1, 3, NEXT_BRANCHES, false },
	{ "speculative_mispredict_rate", { "br_mis_pred", "branch-load-misses" }, { "br_pred", "branch-loads" }, 100, "%", false, 2, 5, NEXT_BRANCHES, false },
	{ "branch_density", { "br_retired", "branches" }, { "instructions", "instructions" }, 100, "%", false, 20, 30, NEXT_BRANCHES, false },
	{ "cache_miss_rate", { "cache-misses" }, { "cache-references" }, 100, "%", false, 10, 20, NEXT_MEMORY, false },
	{ "l1d_miss_rate", { "l1-dcache-load-misses" }, { "l1-dcache-loads" }, 100, "%", false, 5, 10, NEXT_MEMORY, false },
	{ "l1d_prefetch_miss_rate", { "l1-dcache-prefetch-misses" }, { "l1-dcache-prefetches" }, 100, "%", false, NAN, NAN, "", false },
	{ "l1d_to_l2_miss_rate", { "l1d_cache_lmiss_rd" }, { "l1-dcache-load-misses" }, 100, "%", false, 30, 50, NEXT_MEMORY, false },
	{ "l1i_miss_rate", { "l1-icache-load-misses" }, { "l1-icache-loads" }, 100, "%", false, NAN, NAN, "", false },
	{ "l2_miss_rate", { "l2d_cache_refill" }, { "l2d_cache" }, 100, "%", false, 10, 20, NEXT_MEMORY, false },
	{ "l2_to_llc_miss_rate", { "l2d_cache_lmiss_rd" }, { "l2d_cache_refill" }, 100, "%", false, 20, 40, NEXT_MEMORY, false },
	{ "llc_miss_rate", { "llc-load-misses" }, { "llc-loads" }, 100, "%", false, 2, 5, NEXT_MEMORY, false },
	{ "dtlb_miss_rate", { "dtlb-load-misses" }, { "dtlb-loads" }, 100, "%", false, 0.5, 2, NEXT_TLB, false },
	{ "dtlb_walk_rate", { "dtlb_walk" }, { "mem_access" }, 100, "%", false, 0.5, 2, NEXT_TLB, false },
	{ "itlb_miss_rate", { "itlb-load-misses" }, { "itlb-loads" }, 100, "%", false, 0.1, 1, NEXT_FRONTEND, false },
	{ "itlb_walk_rate", { "itlb_walk" }, { "l1-icache-loads" }, 100, "%", false, 0.1, 1, NEXT_FRONTEND, false },
	/* misses per 1,000 instructions; 1 / 10 for L1i is the seed's 0.1 % / 1 % per instruction */
	{ "branch_mpki", { "br_mis_pred_retired", "branch-misses" }, { "instructions", "instructions" }, 1000, "MPKI", false, NAN, NAN, "", false },
	{ "branch_pki", { "br_retired", "branches" }, { "instructions", "instructions" }, 1000, "PKI", false, NAN, NAN, "", false },
	{ "l1d_mpki", { "l1-dcache-load-misses" }, { "instructions" }, 1000, "MPKI", false, NAN, NAN, "", false },
	{ "l1i_mpki", { "l1-icache-load-misses" }, { "instructions" }, 1000, "MPKI", false, 1, 10, NEXT_FRONTEND, false },
	{ "l2_mpki", { "l2d_cache_refill" }, { "instructions" }, 1000, "MPKI", false, NAN, NAN, "", false },
	{ "llc_mpki", { "llc-load-misses", "cache-misses" }, { "instructions", "instructions" }, 1000, "MPKI", false, NAN, NAN, "", false },
	{ "dtlb_mpki", { "dtlb-load-misses", "dtlb_walk" }, { "instructions", "instructions" }, 1000, "MPKI", false, NAN, NAN, "", false },
	{ "itlb_mpki", { "itlb-load-misses", "itlb_walk" }, { "instructions", "instructions" }, 1000, "MPKI", false, NAN, NAN, "", false },
	/* stalled-cycles-* / cycles: perf's "frontend/backend cycles idle", not the Top-down nodes */
	{ "frontend_cycles_idle", { "stalled-cycles-frontend" }, { "cycles" }, 100, "%", false, 10, 20, NEXT_FRONTEND, false },
	{ "backend_cycles_idle", { "stalled-cycles-backend" }, { "cycles" }, 100, "%", false, 30, 40, NEXT_MEMORY, false },
	{ "backend_memory_bound", { "stall_backend_mem" }, { "cycles" }, 100, "%", false, 15, 25, NEXT_MEMORY, false },
	/* Intel TSX (perf stat -T) */
	{ "transactional_cycles", { "cycles-t" }, { "cycles" }, 100, "%", false, NAN, NAN, "", false },
	{ "cycles_per_transaction", { "cycles-t" }, { "tx-start" }, 1, "", false, NAN, NAN, "", false },
	{ "cycles_per_elision", { "cycles-t" }, { "el-start" }, 1, "", false, NAN, NAN, "", false },
};

/* Events per second of CPU time (task-clock or cpu-clock), as perf's
 * "/sec" column: rows for the software events a capture without hardware
 * counters still has. Any other event's rate: metrics_event_rate. */
static const struct {
	const char *name, *event;
} rates[] = {
	{ "context_switches_per_s", "context-switches" },
	{ "cpu_migrations_per_s", "cpu-migrations" },
	{ "page_faults_per_s", "page-faults" },
	{ "minor_faults_per_s", "minor-faults" },
	{ "major_faults_per_s", "major-faults" },
};

/* RAPL energy (power/energy-pkg/ and its siblings, in Joules) over the wall time. */
static const struct {
	const char *name, *event;
} energies[] = {
	{ "package_watts", "energy-pkg" },
	{ "cores_watts", "energy-cores" },
	{ "dram_watts", "energy-ram" },
	{ "gpu_watts", "energy-gpu" },
	{ "psys_watts", "energy-psys" },
};

#define NRATIOS (sizeof ratios / sizeof *ratios)
#define NRATES (sizeof rates / sizeof *rates)
#define NENERGIES (sizeof energies / sizeof *energies)

/* A ratio over fewer events than this, or a rate of fewer events, is
 * shown, but not judged. */
#define MEANINGFUL_DENOMINATOR 100

static const char *const names[] = {
	"ipc", "cpi", "stalled_cycles_per_insn", "branch_miss_rate", "retired_mispredict_rate",
	"speculative_mispredict_rate", "branch_density", "cache_miss_rate", "l1d_miss_rate", "l1d_prefetch_miss_rate",
	"l1d_to_l2_miss_rate", "l1i_miss_rate", "l2_miss_rate", "l2_to_llc_miss_rate", "llc_miss_rate",
	"dtlb_miss_rate", "dtlb_walk_rate", "itlb_miss_rate", "itlb_walk_rate", "branch_mpki", "branch_pki",
	"l1d_mpki", "l1i_mpki", "l2_mpki", "llc_mpki", "dtlb_mpki", "itlb_mpki", "frontend_cycles_idle",
	"backend_cycles_idle", "backend_memory_bound", "transactional_cycles", "cycles_per_transaction",
	"cycles_per_elision", "ghz", "cpus_utilized", "elapsed_s", "context_switches_per_s", "cpu_migrations_per_s",
	"page_faults_per_s", "minor_faults_per_s", "major_faults_per_s", "package_watts", "cores_watts",
	"dram_watts", "gpu_watts", "psys_watts", "instructions_per_joule", NULL
};

const char *const *metrics_names(void) { return names; }

/* snprintf(dst, cap, "%s", src) without its cost: sets are made per interval. */
static void copy_truncated(char *dst, size_t cap, const char *src)
{
	size_t n = 0;
	for (; n + 1 < cap && src[n]; n++)      /* scopes and PMUs are short: no calls */
		dst[n] = src[n];
	dst[n] = '\0';
}

void counter_set_init(struct counter_set *s, double interval, const char *scope, const char *pmu)
{
	s->session = 0;
	s->interval = interval;
	s->n = s->cap = s->kept = 0;
	s->c = NULL;
	s->topdown_events = false;
	copy_truncated(s->scope, sizeof s->scope, scope);
	copy_truncated(s->pmu, sizeof s->pmu, pmu);
}

void counter_set_reset(struct counter_set *s, double interval, const char *scope, const char *pmu)
{
	counter_set_empty(s, interval);
	copy_truncated(s->scope, sizeof s->scope, scope);
	copy_truncated(s->pmu, sizeof s->pmu, pmu);
}

void counter_set_empty(struct counter_set *s, double interval)
{
	s->session = 0;
	s->interval = interval;
	s->kept = s->n;
	s->n = 0;
	s->topdown_events = false;
}

void counter_set_free(struct counter_set *s)
{
	free(s->c);
	s->c = NULL;
	s->n = s->cap = s->kept = 0;
	s->topdown_events = false;
}

double counter_set_lowest_enabled(const struct counter_set *s)
{
	double lowest = 100;
	for (int i = 0; i < s->n; i++)
		if (!isnan(s->c[i].value) && s->c[i].enabled_pct < lowest)
			lowest = s->c[i].enabled_pct;
	return lowest;
}

const struct counter *counter_set_get(const struct counter_set *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (s->c[i].name[0] == name[0] && strcmp(s->c[i].name, name) == 0)
			return &s->c[i];
	return NULL;
}

static void first_values(struct counter *c, double value, double pct, double var)
{
	c->value = value;
	c->enabled_pct = pct;
	c->variance_pct = var;
	c->copies = 1;
	c->group = 0;
}

/* A counter not in the set yet, at its end; len: strlen(name); mark:
 * whether its name has a Top-down mark, -1 to find out. */
static struct counter *append_counter(struct counter_set *s, const char *name, size_t len, double value, double pct,
				      double var, int mark)
{
	TD_ALLOC_GROW(s->c, s->n + 1, s->cap);
	struct counter *c = &s->c[s->n++];
	if (len >= sizeof c->name)
		len = sizeof c->name - 1;
	td_copy_bytes(c->name, name, len);
	c->name[len] = '\0';
	c->name_id = NULL;
	first_values(c, value, pct, var);
	if (mark < 0)
		mark = event_has_topdown_mark(c->name);
	s->topdown_events |= mark > 0;
	s->kept = 0;
	return c;
}

/* Adds (sums) into c, a counter of the same name. */
static void add_to(struct counter *c, double value, double pct)
{
	c->value += value;                 /* NaN stays NaN: a part was not counted */
	if (pct < c->enabled_pct)
		c->enabled_pct = pct;
	c->variance_pct = NAN;             /* a sum of repeats' errors is not printed by perf */
}

void counter_set_add(struct counter_set *s, const char *name, double value, double pct, double var)
{
	struct counter *c = (struct counter *)counter_set_get(s, name);
	if (!c)
		append_counter(s, name, strlen(name), value, pct, var, -1);
	else
		add_to(c, value, pct);
}

void counter_set_merge(struct counter_set *into, const struct counter_set *from)
{
	for (int i = 0; i < from->n; i++) {
		const struct counter *f = &from->c[i];
		/* the intervals of a scope list the same counters in the same
		 * order: the one at the same place, when it has the same name */
		struct counter *c = i < into->n && f->name_id && into->c[i].name_id == f->name_id
					    ? &into->c[i]
					    : (struct counter *)counter_set_get(into, f->name);
		if (!c)
			append_counter(into, f->name, strlen(f->name), f->value, f->enabled_pct, NAN, -1)->name_id = f->name_id;
		else
			add_to(c, f->value, f->enabled_pct);
	}
}

int counter_set_add_copy(struct counter_set *s, const char *name, double value, double pct, double var, unsigned group)
{
	int at;
	return counter_set_add_copy_at(s, name, value, pct, var, group, &at);
}

/* c, just added to s, as the first copy printed. */
static int first_copy(const struct counter_set *s, struct counter *c, double value, unsigned group, int *at)
{
	c->group = group;
	c->copy_value[0] = value;
	c->copy_group[0] = group;
	*at = (int)(c - s->c);
	return 1;
}

/* counter_set_add_copy_marked, name looked up; name_id: for a new counter. */
static int add_copy_named(struct counter_set *s, const char *name, size_t len, bool topdown_mark,
			  const char *name_id, double value, double pct, double var, unsigned group, int *at)
{
	struct counter *c = (struct counter *)counter_set_get(s, name);
	if (!c) {
		c = append_counter(s, name, len, value, pct, var, len < sizeof c->name ? topdown_mark : -1);
		/* not for a name cut to fit, or one as long: several may look alike */
		if (len + 1 < sizeof c->name)
			c->name_id = name_id;
		return first_copy(s, c, value, group, at);
	}
	*at = (int)(c - s->c);
	if (c->copies < 4) {
		c->copy_value[c->copies] = value;
		c->copy_group[c->copies] = group;
	}
	c->copies++;
	c->value += (value - c->value) / c->copies;    /* running mean; NaN stays NaN */
	if (pct < c->enabled_pct)
		c->enabled_pct = pct;
	c->variance_pct = NAN;
	return c->copies;
}

int counter_set_add_copy_at(struct counter_set *s, const char *name, double value, double pct, double var,
			    unsigned group, int *at)
{
	/* name may be any buffer: no name_id */
	return add_copy_named(s, name, strlen(name), event_has_topdown_mark(name), NULL, value, pct, var, group, at);
}

int counter_set_add_copy_marked(struct counter_set *s, const char *name, size_t len, bool topdown_mark, double value,
				double pct, double var, unsigned group, int *at)
{
	if (s->n < s->kept && s->c[s->n].name_id == name) {
		/* the counter the set had here before counter_set_reset, after
		 * the same ones: not in the set yet, and its name is in place */
		struct counter *c = &s->c[s->n++];
		first_values(c, value, pct, var);
		s->topdown_events |= topdown_mark;
		return first_copy(s, c, value, group, at);
	}
	return add_copy_named(s, name, len, topdown_mark, name, value, pct, var, group, at);
}

double counter_set_near(const struct counter_set *s, const char *name, const char *near)
{
	const struct counter *c = counter_set_get(s, name), *n = counter_set_get(s, near);
	if (!c)
		return NAN;
	if (!n || c->copies < 2)
		return c->value;
	int best = 0, kept = c->copies < 4 ? c->copies : 4;
	for (int i = 1; i < kept; i++)
		if (labs((long)c->copy_group[i] - (long)n->group) < labs((long)c->copy_group[best] - (long)n->group))
			best = i;
	return c->copy_value[best];
}

static const char *ipc_band(double ipc)
{
	return ipc >= 3 ? "excellent" : ipc >= 1.5 ? "good" : ipc >= 0.8 ? "moderate" : ipc >= 0.3 ? "poor" : "critical";
}

static const char *verdict(const struct ratio_def *d, double v)
{
	if (isnan(d->healthy))
		return "";
	if (d->higher_is_better)
		return v > d->healthy ? "healthy" : v < d->investigate ? "investigate" : "ok";
	return v < d->healthy ? "healthy" : v > d->investigate ? "investigate" : "ok";
}

static double combine_error(double a, double b)
{
	if (isnan(a) && isnan(b))
		return NAN;
	a = isnan(a) ? 0 : a;
	b = isnan(b) ? 0 : b;
	return sqrt(a * a + b * b);
}

/* Half the last digit perf prints of a counter, relative to its value:
 * counts are whole numbers, clocks milliseconds to two decimals. */
static double printed_rounding(const struct counter *c)
{
	if (c->value == 0)
		return 0;
	/* the names with their NULs: a comparison of constant length, inline */
	bool clock = !memcmp(c->name, "task-clock", 11) || !memcmp(c->name, "cpu-clock", 10);
	return (clock ? 0.005 : 0.5) / fabs(c->value);
}

struct metrics_plan {
	int num[NRATIOS][3], den[NRATIOS][3];   /* counter index per alternative; -1: absent */
	int ndefs, defs[NRATIOS];               /* the ratios with one alternative's both counters */
	int rate[NRATES], energy[NENERGIES];
	int task_clock, cpu_clock, cycles, duration, instructions;
	int n, cap;                             /* the names the plan was made for */
	char (*names)[sizeof(((struct counter *)0)->name)];
	const char **name_ids;                  /* and their counters' name_id */
};

static int index_of(const struct counter_set *s, const char *name)
{
	const struct counter *c = counter_set_get(s, name);
	return c ? (int)(c - s->c) : -1;
}

static void plan_fill(struct metrics_plan *p, const struct counter_set *s)
{
	p->ndefs = 0;
	for (size_t i = 0; i < NRATIOS; i++) {
		const struct ratio_def *d = &ratios[i];
		bool any = false;
		for (int a = 0; a < 3; a++) {
			p->num[i][a] = p->den[i][a] = -1;
			if (!d->num[a])
				continue;
			p->num[i][a] = index_of(s, d->num[a]);
			p->den[i][a] = index_of(s, d->den[a] ? d->den[a] : d->den[0]);
			any |= p->num[i][a] >= 0 && p->den[i][a] >= 0;
		}
		if (any)
			p->defs[p->ndefs++] = (int)i;
	}
	for (size_t i = 0; i < NRATES; i++)
		p->rate[i] = index_of(s, rates[i].event);
	for (size_t i = 0; i < NENERGIES; i++)
		p->energy[i] = index_of(s, energies[i].event);
	p->task_clock = index_of(s, "task-clock");
	p->cpu_clock = index_of(s, "cpu-clock");
	p->cycles = index_of(s, "cycles");
	p->duration = index_of(s, "duration_time");
	p->instructions = index_of(s, "instructions");
}

struct metrics_plan *metrics_plan_new(void) { return td_calloc(1, sizeof(struct metrics_plan)); }

void metrics_plan_free(struct metrics_plan *p)
{
	if (p) {
		free(p->names);
		free(p->name_ids);
	}
	free(p);
}

static bool plan_matches(const struct metrics_plan *p, const struct counter_set *s)
{
	if (p->n != s->n || !p->names)
		return false;
	for (int i = 0; i < s->n; i++)
		if ((!s->c[i].name_id || s->c[i].name_id != p->name_ids[i]) && strcmp(p->names[i], s->c[i].name))
			return false;
	return true;
}

void metrics_plan_update(struct metrics_plan *p, const struct counter_set *s)
{
	if (plan_matches(p, s))
		return;
	plan_fill(p, s);
	if (s->n > p->cap || !p->names) {
		p->cap = s->n > 8 ? s->n : 8;
		p->names = td_realloc(p->names, (size_t)p->cap * sizeof(*p->names));
		p->name_ids = td_realloc(p->name_ids, (size_t)p->cap * sizeof(*p->name_ids));
	}
	for (int i = 0; i < s->n; i++) {
		memcpy(p->names[i], s->c[i].name, sizeof p->names[i]);
		p->name_ids[i] = s->c[i].name_id;
	}
	p->n = s->n;
}

static const struct counter *at(const struct counter_set *s, int i) { return i >= 0 ? &s->c[i] : NULL; }

static bool counted(const struct counter *c) { return c && !isnan(c->value); }

static void plain(struct metric_value *m, const char *name, double v, const char *unit, double conf)
{
	memset(m, 0, sizeof(*m));
	m->name = name;
	m->value = v;
	m->unit = unit;
	m->verdict = "";
	m->band = "";
	m->next_step = "";
	m->confidence = conf;
	m->variance_pct = NAN;
}

/* m = scale * n / q with n's and q's confidence, error and rounding. */
static void quotient(struct metric_value *m, const char *name, const struct counter *n, const struct counter *q,
		     double scale, const char *unit)
{
	plain(m, name, scale * n->value / q->value, unit, fmin(n->enabled_pct, q->enabled_pct));
	m->variance_pct = combine_error(n->variance_pct, q->variance_pct);
	m->rounding = printed_rounding(n) + printed_rounding(q);
	m->input[0] = n->name;
	m->input[1] = q->name;
}

/* The numerator of a num_max ratio: the largest of its events counted. */
static const struct counter *largest_num(const struct metrics_plan *p, const struct counter_set *s, size_t def)
{
	const struct counter *best = NULL;
	for (int i = 0; i < 3 && ratios[def].num[i]; i++) {
		const struct counter *c = at(s, p->num[def][i]);
		if (counted(c) && (!best || c->value > best->value))
			best = c;
	}
	return best;
}

/* The first alternative whose two counters were counted and whose
 * denominator is not zero. */
static bool ratio(const struct metrics_plan *p, const struct counter_set *s, size_t def, struct metric_value *m)
{
	const struct ratio_def *d = &ratios[def];
	for (int i = 0; i < 3 && d->num[i]; i++) {
		const struct counter *n = d->num_max ? largest_num(p, s, def) : at(s, p->num[def][i]);
		const struct counter *q = at(s, p->den[def][d->num_max ? 0 : i]);
		if (!counted(n) || !counted(q) || q->value == 0)
			continue;
		quotient(m, d->name, n, q, d->scale, d->unit);
		m->not_meaningful = q->value < MEANINGFUL_DENOMINATOR;
		m->verdict = m->not_meaningful ? "not meaningful" : verdict(d, m->value);
		m->band = strcmp(d->name, "ipc") == 0 && !m->not_meaningful ? ipc_band(m->value) : "";
		m->next_step = strcmp(m->verdict, "investigate") == 0 ? d->next_step : "";
		m->higher_is_better = d->higher_is_better;
		m->has_direction = true;
		return true;
	}
	return false;
}

/* task-clock (or cpu-clock) in ms, NULL if neither */
static const struct counter *clock_ms(const struct metrics_plan *p, const struct counter_set *s)
{
	const struct counter *c = at(s, p->task_clock);
	if (!counted(c))
		c = at(s, p->cpu_clock);
	return counted(c) ? c : NULL;
}

bool metrics_event_rate(const struct counter *event, const struct counter *clock, struct metric_value *m)
{
	if (!counted(event) || !counted(clock) || clock->value <= 0)
		return false;
	quotient(m, "event_per_s", event, clock, 1e3, "/s");
	m->not_meaningful = event->value > 0 && event->value < MEANINGFUL_DENOMINATOR;   /* none is exact */
	m->verdict = m->not_meaningful ? "not meaningful" : "";
	return true;
}

/* perf's own metrics for the capture's CPU (td-derive --metrics/--cpuid):
 * each one that is not a Top-down node (those are tma_build's) and that
 * the set's events give, after tdkit's, named in lower case; a name tdkit
 * computes itself stays tdkit's. Names live as long as the table. */
static int perf_defined(const struct perf_metric_table *t, const struct counter_set *s, struct metric_value *out, int k,
			int max)
{
	if (!t || k >= max || !s->n)
		return k;
	struct perf_metric_result *r = td_malloc((size_t)(t->n ? t->n : 1) * sizeof(*r));
	perf_metric_table_eval(t, s, r);
	double conf = counter_set_lowest_enabled(s);
	int own = k;
	for (int i = 0; i < t->n && k < max; i++) {
		const struct perf_metric_def *d = &t->m[i];
		if (!isfinite(r[i].value) || (!strncmp(d->lower, "tma_", 4) && strncmp(d->lower, "tma_info_", 9)) ||
		    !strpbrk(d->expr_text, "+-*/%<>()"))
			continue;          /* a node, or one event's count under another name */
		bool taken = false;
		for (int j = 0; j < k && !taken; j++)
			taken = !strcmp(out[j].name, d->lower) || (j >= own && out[j].name == d->lower);
		if (taken)
			continue;
		plain(&out[k++], d->lower, r[i].value, "", conf);
	}
	free(r);
	return k;
}

int metrics_compute_planned(const struct metrics_plan *p, const struct counter_set *s, double elapsed_s,
			    const struct perf_metric_table *perf, struct metric_value *out, int max)
{
	int k = 0;
	for (int i = 0; i < p->ndefs && k < max; i++)     /* the others have no inputs */
		k += ratio(p, s, (size_t)p->defs[i], &out[k]);
	const struct counter *clk = clock_ms(p, s), *cyc = at(s, p->cycles);
	if (clk && counted(cyc) && clk->value > 0 && k < max) {
		/* GHz: cycles per nanosecond of the clock */
		quotient(&out[k++], "ghz", cyc, clk, 1e-6, "GHz");
	}
	for (size_t i = 0; clk && i < NRATES && k < max; i++)
		if (metrics_event_rate(at(s, p->rate[i]), clk, &out[k]))
			out[k++].name = rates[i].name;
	const struct counter *dur = at(s, p->duration);
	if (isnan(elapsed_s) && counted(dur))
		elapsed_s = dur->value / 1e9;
	if (clk && elapsed_s > 0 && k < max) {
		plain(&out[k], "cpus_utilized", clk->value / (elapsed_s * 1e3), "CPUs", clk->enabled_pct);
		out[k].rounding = printed_rounding(clk);
		out[k++].input[0] = clk->name;
	}
	const struct counter *pkg = NULL;
	for (size_t i = 0; i < NENERGIES && k < max; i++) {
		const struct counter *e = at(s, p->energy[i]);
		if (!counted(e) || !(elapsed_s > 0))
			continue;
		plain(&out[k], energies[i].name, e->value / elapsed_s, "W", e->enabled_pct);
		out[k++].input[0] = e->name;
		if (!pkg || i == 0)
			pkg = e;
	}
	const struct counter *ins = at(s, p->instructions);
	if (!pkg)
		pkg = at(s, p->energy[0]);
	if (counted(pkg) && pkg->value > 0 && counted(ins) && k < max) {
		plain(&out[k], "instructions_per_joule", ins->value / pkg->value, "insn/J",
		      fmin(ins->enabled_pct, pkg->enabled_pct));
		out[k].input[0] = ins->name;
		out[k++].input[1] = pkg->name;
	}
	if (elapsed_s > 0 && k < max)
		plain(&out[k++], "elapsed_s", elapsed_s, "s", 100);
	return perf_defined(perf, s, out, k, max);
}

int metrics_compute(const struct counter_set *s, double elapsed_s, const struct perf_metric_table *perf,
		    struct metric_value *out, int max)
{
	struct metrics_plan p;
	plan_fill(&p, s);
	return metrics_compute_planned(&p, s, elapsed_s, perf, out, max);
}

/* What a metric needs that s does not have counted: the first
 * alternative's missing events. */
const char *metrics_missing(const struct counter_set *s, const char *name, char *buf, size_t cap)
{
	const char *need[3] = { NULL, NULL, NULL };
	for (size_t i = 0; i < NRATIOS && !need[0]; i++)
		if (!strcmp(ratios[i].name, name)) {
			need[0] = ratios[i].num[0];
			need[1] = ratios[i].den[0];
		}
	if (!strcmp(name, "ghz")) {
		need[0] = "cycles";
		need[1] = "task-clock";
	} else if (!strcmp(name, "cpus_utilized")) {
		need[0] = "task-clock";
		need[1] = "the wall time";
	}
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < 3 && need[i]; i++) {
		const struct counter *c = counter_set_get(s, need[i]);
		if (c && !isnan(c->value) && c->value != 0)
			continue;
		if (!strcmp(need[i], "task-clock") && counted(counter_set_get(s, "cpu-clock")))
			continue;
		if (!strcmp(need[i], "the wall time")) {
			used += (size_t)snprintf(buf + used, used < cap ? cap - used : 0, "%sthe wall time (seconds time "
						 "elapsed, which perf's CSV and JSON output do not print, or duration_time)",
						 used ? " and " : "");
			continue;
		}
		used += (size_t)snprintf(buf + used, used < cap ? cap - used : 0, "%s%s%s", used ? " and " : "", need[i],
					 !c ? "" : isnan(c->value) ? " (not counted)" : " (zero)");
	}
	return buf;
}

/* perf's metric units and the tdkit metric printing the same number;
 * factor: from tdkit's value to perf's. */
static const struct {
	const char *unit, *metric;
	double factor;
} perf_units[] = {
	{ "insn per cycle", "ipc", 1 },
	{ "IPC", "ipc", 1 },
	{ "stalled cycles per insn", "stalled_cycles_per_insn", 1 },
	{ "of all branches", "branch_miss_rate", 1 },
	{ "GHz", "ghz", 1 },
	{ "CPUs utilized", "cpus_utilized", 1 },
	{ "CPUs", "cpus_utilized", 1 },                    /* perf before 2.6.35 */
	{ "of all L1-dcache accesses", "l1d_miss_rate", 1 },
	{ "of all L1-dcache hits", "l1d_miss_rate", 1 },
	{ "of all L1-icache accesses", "l1i_miss_rate", 1 },
	{ "of all L1-icache hits", "l1i_miss_rate", 1 },
	{ "of all LL-cache accesses", "llc_miss_rate", 1 },
	{ "of all LL-cache hits", "llc_miss_rate", 1 },
	{ "of all dTLB cache accesses", "dtlb_miss_rate", 1 },
	{ "of all dTLB cache hits", "dtlb_miss_rate", 1 },
	{ "of all iTLB cache accesses", "itlb_miss_rate", 1 },
	{ "of all iTLB cache hits", "itlb_miss_rate", 1 },
	{ "of all cache refs", "cache_miss_rate", 1 },
	{ "frontend cycles idle", "frontend_cycles_idle", 1 },
	{ "backend cycles idle", "backend_cycles_idle", 1 },
	{ "transactional cycles", "transactional_cycles", 1 },
	{ "cycles / transaction", "cycles_per_transaction", 1 },
	{ "cycles / elision", "cycles_per_elision", 1 },
	/* perf's JSON metrics (Arm Neoverse) */
	{ "branch_miss_pred_rate", "retired_mispredict_rate", 1 },
	{ "branch_miss_rate", "branch_miss_rate", 1 },
	{ "branch_mpki", "branch_mpki", 1 },
	{ "branch_pki", "branch_pki", 1 },
	{ "MPKI  branch_mpki", "branch_mpki", 1 },
	{ "PKI  branch_pki", "branch_pki", 1 },
	{ "insn_per_cycle", "ipc", 1 },
	{ "instructions  insn_per_cycle", "ipc", 1 },
	/* any event's count per second of task-clock, scaled by convert_unit's prefix */
	{ "/sec", METRICS_EVENT_RATE, 1 },
	{ "K/sec", METRICS_EVENT_RATE, 1e-3 },
	{ "M/sec", METRICS_EVENT_RATE, 1e-6 },
	{ "G/sec", METRICS_EVENT_RATE, 1e-9 },
	{ "cs/sec", METRICS_EVENT_RATE, 1 },               /* perf 6.5 and later */
	{ "migrations/sec", METRICS_EVENT_RATE, 1 },
	{ "faults/sec", METRICS_EVENT_RATE, 1 },
};

const char *metrics_for_perf_unit(const char *unit, double *factor)
{
	while (*unit == ' ' || *unit == '%')
		unit++;
	for (size_t i = 0; i < sizeof perf_units / sizeof *perf_units; i++)
		if (strcmp(unit, perf_units[i].unit) == 0) {
			*factor = perf_units[i].factor;
			return perf_units[i].metric;
		}
	return NULL;
}
