/* Top-down nodes summed over runs (nodes.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "filters/td-store/nodes.h"
#include "filters/td-store/verbs.h"

static struct node_stats *node_of(struct nodes *ns, const char *name, int level)
{
	for (int i = 0; i < ns->n; i++)
		if (!strcmp(ns->s[i].name, name))
			return &ns->s[i];
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? ns->cap * 2 : 32;
		ns->s = td_realloc(ns->s, (size_t)ns->cap * sizeof *ns->s);
	}
	struct node_stats *s = &ns->s[ns->n++];
	memset(s, 0, sizeof *s);
	snprintf(s->name, sizeof s->name, "%s", name);
	s->level = level;
	return s;
}

/* run_id, name, level, value, on_path, verdict */
static int node_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	(void)lens;
	if (n < 6 || !cols[3])
		return 0;
	struct node_stats *s = node_of(ctx, cols[1], atoi(cols[2]));
	double v = strtod(cols[3], NULL);
	s->sum += v;
	s->sumsq += v * v;
	s->n++;
	if (strcmp(s->last_run, cols[0])) {
		snprintf(s->last_run, sizeof s->last_run, "%s", cols[0]);
		s->runs++;
		s->high += cols[5] && !strcmp(cols[5], "high");
	}
	if (cols[4] && atoi(cols[4]) && strcmp(s->last_path_run, cols[0])) {
		snprintf(s->last_path_run, sizeof s->last_path_run, "%s", cols[0]);
		s->on_path++;
	}
	return 0;
}

static double mean_of(const struct node_stats *s) { return s->n ? s->sum / (double)s->n : NAN; }
static double sd_of(const struct node_stats *s)
{
	if (s->n < 2)
		return NAN;
	double m = mean_of(s), var = (s->sumsq - (double)s->n * m * m) / (double)(s->n - 1);
	return var > 0 ? sqrt(var) : 0;
}

static int by_mean(const void *a, const void *b)
{
	double x = mean_of(a), y = mean_of(b);
	const struct node_stats *p = a, *q = b;
	if (p->level != q->level)
		return p->level - q->level;
	return x < y ? 1 : x > y ? -1 : strcmp(p->name, q->name);
}

void nodes_load(struct td_store *s, const struct verb_sql *q, struct nodes *ns)
{
	verb_sql_run(s, q, node_row, ns);
}

enum { B_NODE, B_LEVEL, B_MEAN, B_SD, B_RUNS, B_PATH, B_HIGH, NBCOLS };
static const struct td_column bottleneck_cols[NBCOLS] = {
	{ "node", TD_COL_STR, 0 }, { "level", TD_COL_INT, 0 }, { "mean_pct", TD_COL_NUM, 1 },
	{ "sd_pct", TD_COL_NUM, 1 }, { "runs", TD_COL_INT, 0 }, { "on_path_runs", TD_COL_INT, 0 },
	{ "high_runs", TD_COL_INT, 0 },
};

/* Ranked by mean share, whatever the level. */
static int by_share(const void *a, const void *b)
{
	const struct node_stats *p = a, *q = b;
	double x = mean_of(p), y = mean_of(q);
	return x < y ? 1 : x > y ? -1 : strcmp(p->name, q->name);
}

struct td_table *nodes_bottlenecks(struct nodes *ns, long top)
{
	qsort(ns->s, (size_t)ns->n, sizeof *ns->s, by_share);
	struct td_table *t = td_table_new(bottleneck_cols, NBCOLS);
	for (int i = 0; i < ns->n && (top <= 0 || i < top); i++) {
		const struct node_stats *s = &ns->s[i];
		td_table_row(t);
		td_table_str(t, B_NODE, s->name);
		td_table_int(t, B_LEVEL, s->level);
		td_table_num(t, B_MEAN, mean_of(s));
		td_table_num(t, B_SD, sd_of(s));
		td_table_int(t, B_RUNS, s->runs);
		td_table_int(t, B_PATH, s->on_path);
		td_table_int(t, B_HIGH, s->high);
	}
	return t;
}

enum { F_NODE, F_LEVEL, F_MEAN, F_KIND, F_MARK, NFCOLS };
static const struct td_column funnel_cols[NFCOLS] = {
	{ "node", TD_COL_STR, 0 }, { "level", TD_COL_INT, 0 }, { "mean_pct", TD_COL_NUM, 1 },
	{ "kind", TD_COL_STR, 0 }, { "mark", TD_COL_STR, 0 },
};

/* Levels 1 and 2: retiring is useful work, every other node waste; a node
 * high in most runs is marked ✗, the rest ✓. */
struct td_table *nodes_funnel(struct nodes *ns)
{
	qsort(ns->s, (size_t)ns->n, sizeof *ns->s, by_mean);
	struct td_table *t = td_table_new(funnel_cols, NFCOLS);
	for (int i = 0; i < ns->n; i++) {
		const struct node_stats *s = &ns->s[i];
		if (s->level > 2)
			continue;
		td_table_row(t);
		td_table_str(t, F_NODE, s->name);
		td_table_int(t, F_LEVEL, s->level);
		td_table_num(t, F_MEAN, mean_of(s));
		bool useful = verb_node_is_useful(s->name);
		td_table_str(t, F_KIND, useful ? "useful" : "waste");
		td_table_str(t, F_MARK, 2 * s->high > s->runs ? "\xe2\x9c\x97" : "\xe2\x9c\x93");
	}
	return t;
}

