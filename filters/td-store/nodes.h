/* Top-down nodes over the runs a statement selects, for query
 * --bottlenecks and --funnel and show --funnel: per node its mean share
 * (over runs and scopes), spread, and in how many runs it is on the
 * bottleneck path or called high. */
#ifndef TD_STORE_NODES_H
#define TD_STORE_NODES_H

#include "filters/td-store/verbs.h"
#include "reports/table.h"

/* The columns nodes_load reads, in order; a statement starts with it and
 * names the metrics table m. */
#define NODES_SELECT "SELECT m.run_id, m.name, m.level, m.value, m.on_path, m.verdict FROM metrics m"

struct node_stats {
	char name[64];
	int level;
	double sum, sumsq;
	long n, on_path, high;
	char last_run[STORE_ID_LEN], last_path_run[STORE_ID_LEN];
	long runs;
};

struct nodes {
	struct node_stats *s;      /* free(s) when done */
	int n, cap;
};

/* Adds the rows of q (NODES_SELECT ..., a run's rows together). */
void nodes_load(struct td_store *s, const struct verb_sql *q, struct nodes *ns);
/* Ranked by mean share, whatever the level; the first top (0: all). */
struct td_table *nodes_bottlenecks(struct nodes *ns, long top);
/* Levels 1 and 2: retiring and its children useful work, every other node
 * waste; a node high in most runs is marked with a cross (U+2717), the
 * rest with a check mark (U+2713). */
struct td_table *nodes_funnel(struct nodes *ns);

#endif
