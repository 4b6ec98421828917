/* td-store rm: runs removed by id or by label (with everything kept for
 * them; a capture goes with its last run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "common/opts.h"
#include "common/grow.h"
#include "filters/td-store/verbs.h"

static bool opt_yes;

static const struct td_option options[] = {
	VERB_FILTER_OPTIONS,
	{ 0, "yes", TD_OPT_FLAG, &opt_yes, NULL, "remove more than one run", NULL },
	VERB_DB_OPTION,
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-store rm", "[options] RUN... | --label K=V ...",
	"Remove runs by id, or the runs a label filter selects; more than one needs --yes.",
	options,
	"Reads no file: the runs come from the store --db names (default: $TD_DB, else ~/.local/share/tdkit/runs.db).",
};

struct ids {
	char (*id)[STORE_ID_LEN];
	size_t n, cap;
};

static void add_id(struct ids *l, const char *id)
{
	TD_ALLOC_GROW(l->id, l->n + 1, l->cap);
	snprintf(l->id[l->n++], STORE_ID_LEN, "%s", id);
}

static void selected(void *ctx, const char *id, const char *time, const char *summary)
{
	(void)time;
	(void)summary;
	add_id(ctx, id);
}

int cmd_rm(int argc, char **argv)
{
	int n = verb_start(&cmd, argc, argv, VERB_OPERANDS);
	bool by_filter = verb_filter.n || verb_filter.since[0] || verb_filter.until[0];
	if (!n && !by_filter)
		td_usage_error(&cmd, "name the runs to remove, or select them with --label/--since/--until");
	if (n && by_filter)
		td_usage_error(&cmd, "either run ids or a filter, not both");
	struct td_store *s = verb_open();
	struct ids l = { 0 };
	int bad = 0;
	for (int i = 0; i < n; i++) {
		if (verb_run_exists(s, argv[i]))
			add_id(&l, argv[i]);
		else {
			td_error("%s: no such run", argv[i]);
			bad = 1;
		}
	}
	if (by_filter && verb_select_runs(s, 0, selected, &l) < 0)
		verb_store_failed(s);
	if (l.n > 1 && !opt_yes) {
		td_error("%zu runs would be removed: add --yes", l.n);
		free(l.id);
		store_close(s);
		return TD_EXIT_BAD;
	}
	if (s->b->ops->begin(s->b) < 0)
		verb_store_failed(s);
	for (size_t i = 0; i < l.n; i++) {
		struct store_value p = SV_STR(l.id[i]);
		/* labels, counters and metrics go with the run (ON DELETE CASCADE) */
		if (s->b->ops->exec(s->b, "DELETE FROM runs WHERE id = ?", &p, 1, NULL, NULL) < 0)
			verb_store_failed(s);
	}
	if (s->b->ops->exec(s->b, "DELETE FROM captures WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.capture = captures.hash)",
			    NULL, 0, NULL, NULL) < 0 || s->b->ops->commit(s->b) < 0)
		verb_store_failed(s);
	fprintf(stderr, "td-store: %zu run%s removed\n", l.n, l.n == 1 ? "" : "s");
	free(l.id);
	store_filter_free(&verb_filter);
	store_close(s);
	return td_exit_code(bad ? TD_EXIT_BAD : TD_EXIT_OK);
}
