/* The derive engine's check against perf (derive.h, derive_perf_check):
 * every metric perf printed must equal tdkit's at perf's printed precision,
 * or be accounted for as not recomputable, with the reason. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/derive_internal.h"
#include "common/diag.h"

/* perf's label of a metric: its unit, after the event it was printed with. */
static const char *perf_label(const struct perf_metric *p, char *buf, size_t cap)
{
	const char *u = p->unit;
	while (*u == ' ' || *u == '%')
		u++;
	snprintf(buf, cap, "%s%s%s", p->event ? p->event : "", p->event && p->event[0] ? ": " : "", u);
	return buf;
}

static void not_recomputable(struct derive_engine *e, const struct perf_metric *p, const char *why)
{
	char label[128];
	perf_label(p, label, sizeof label);
	for (int i = 0; i < e->account.n; i++)
		if (!strcmp(e->account.not[i].metric, label) && !strcmp(e->account.not[i].why, why)) {
			e->account.not[i].count++;
			return;
		}
	if (e->account.n == e->account.cap) {
		e->account.cap = e->account.cap ? 2 * e->account.cap : 16;
		e->account.not = td_realloc(e->account.not, (size_t)e->account.cap * sizeof(*e->account.not));
	}
	struct derive_not_recomputable *r = &e->account.not[e->account.n++];
	snprintf(r->metric, sizeof r->metric, "%s", label);
	snprintf(r->why, sizeof r->why, "%s", why);
	r->count = 1;
}

static double pow10_neg(struct derive_engine *e, int decimals)
{
	if (decimals < 0 || decimals >= 32)
		return pow(10, -decimals);
	if (e->pow10_neg[decimals] == 0)
		e->pow10_neg[decimals] = pow(10, -decimals);
	return e->pow10_neg[decimals];
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
static void compare_with_perf(struct derive_engine *e, const struct perf_metric *p, const char *name, double ours,
			      double rel, bool repeated)
{
	double tol = 0.5 * pow10_neg(e, p->decimals >= 0 ? p->decimals : 2) + rel * fabs(ours);
	if (fabs(ours - p->value) <= tol * 1.0001) {
		e->account.checked++;
		e->account.agree++;
	} else if (repeated) {
		not_recomputable(e, p, "perf -r: perf's value is not the ratio of the means it printed (a defect of "
				       "perf 6.x -r output), so the means cannot give it back");
	} else {
		e->account.checked++;
		td_warn(p->file, p->line, "perf printed %s %.*f (%s), td-derive computes %.6g", name,
			p->decimals >= 0 ? p->decimals : 2, p->value, p->unit, ours);
	}
}

/* A TMA node perf printed, against the tree from the same raw counts
 * (perf 5.9-6.2's shadow names against the uncorrected formulas). */
static void check_tma_node(struct derive_engine *e, const struct counter_set *s, const struct perf_metric *p)
{
	const struct derive_unit *u = derive_unit(e, p->unit);
	const char *node = u->tma_node;
	bool uncorrected = u->uncorrected;
	struct tma_tree *tree = e->tree;
	if (!derive_build_tree(e, s, e->cfg.cpu, tree)) {
		not_recomputable(e, p, "no Top-down model fits the events of its set");
		return;
	}
	const struct tma_node *own = tma_find(tree, node);
	if (tree->node[0].source && (!own || own->source)) {
		not_recomputable(e, p, "the raw Top-down events are not in the input (the tree is perf's own values)");
		return;
	}
	if (uncorrected && tree->model == &tma_intel_perf_metrics &&
	    !derive_build_tree(e, s, "intel-perf-metrics-shadow", tree)) {
		not_recomputable(e, p, "perf's uncorrected Top-down form needs the raw slots and topdown-* events");
		return;
	}
	const struct tma_node *n = tma_find(tree, node);
	if (n && n->source) {
		not_recomputable(e, p, "the node is perf's own value: its raw events are not in the input");
		return;
	}
	/* perf prints an Arm node as Arm's share of stall cycles, unscaled */
	double v = !n ? NAN : strncmp(tree->model->id, "arm", 3) ? n->value : tma_arm_unscaled(tree, n);
	char why[256];
	if (isnan(v)) {
		snprintf(why, sizeof why, "the %s tree from these events has no %s", tree->model->id, node);
		not_recomputable(e, p, why);
		return;
	}
	compare_with_perf(e, p, node, strchr(p->unit, '%') ? 100 * v : v, 1e-9, repeated_run(&e->m, s));
}

/* perf's "/sec" next to an event: its count per second of task-clock. */
static void check_event_rate(struct derive_engine *e, const struct counter_set *s, const struct perf_metric *p,
			     double factor)
{
	struct metric_value mv;
	if (!stat_model_event_rate(&e->m, s, p->event, &mv)) {
		not_recomputable(e, p, "needs the event's count and task-clock (or cpu-clock)");
		return;
	}
	compare_with_perf(e, p, p->unit, mv.value * factor, 1e-9 + mv.rounding, repeated_run(&e->m, s));
}

void derive_check_perf(struct derive_engine *e, const struct perf_metric *pm, int npm)
{
	const struct stat_model *m = &e->m;
	for (int i = 0; i < npm; i++) {
		const struct perf_metric *p = &pm[i];
		if (isnan(p->value) || p->source == STAT_FROM_TOPLEV)
			continue;              /* no number; or toplev's node: not a perf metric, no raw counts to check */
		e->account.printed++;
		const struct derive_unit *u = derive_unit(e, p->unit);
		const char *name = u->metric;
		double factor = u->factor;
		bool wall_share = u->wall_share, event_rate = u->event_rate;
		const struct counter_set *s = stat_model_find_perf(m, p);
		if (!name && !u->tma_node) {
			not_recomputable(e, p, "not a metric td-derive knows");
			continue;
		}
		if (!s) {
			not_recomputable(e, p, "no counters in its interval and scope");
			continue;
		}
		if (!name) {
			check_tma_node(e, s, p);
			continue;
		}
		if (event_rate) {
			check_event_rate(e, s, p, factor);
			continue;
		}
		if (wall_share && s->interval < 0 && isnan(m->elapsed[s->session])) {
			not_recomputable(e, p, "needs the wall time (seconds time elapsed), which perf's CSV and JSON "
					       "output do not print");
			continue;
		}
		struct metric_value own[METRICS_MAX];
		const struct metric_value *mv;
		int n = derive_metrics_of(e, s, own, &mv), j = 0;
		while (j < n && mv[j].name != name && (mv[j].name[0] != name[0] || strcmp(mv[j].name, name) != 0))
			j++;
		if (j == n) {
			char need[256], why[300];
			stat_model_missing(m, s, name, need, sizeof need);
			snprintf(why, sizeof why, "%s%s needs %s", p->value == 0 ? "perf printed 0 for what it lacked: " : "",
				 name, need[0] ? need : "events of another set");
			not_recomputable(e, p, why);
			continue;
		}
		/* perf divides by its unrounded wall time */
		compare_with_perf(e, p, name, mv[j].value * factor, (wall_share ? 5e-4 : 1e-9) + mv[j].rounding,
				  !wall_share && repeated_run(m, s));
	}
}
