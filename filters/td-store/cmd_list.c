/* td-store list: the runs a filter selects, newest first, with their
 * labels and one line of what they measured. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "common/opts.h"
#include "common/grow.h"
#include "filters/td-store/verbs.h"
#include "reports/table.h"

static long opt_limit;


static const struct td_option options[] = {
	VERB_FILTER_OPTIONS,
	{ 0, "limit", TD_OPT_INT, &opt_limit, "N", "at most N runs (the newest)", NULL },
	VERB_FORMAT_OPTIONS,
	VERB_DB_OPTION,
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-store list", "[options]",
	"The stored runs, newest first, with their labels and a summary (Level 1, IPC or CPUs utilized).",
	options,
	"Reads no file: the runs come from the store --db names (default: $TD_DB, else ~/.local/share/tdkit/runs.db).",
};

struct listed {
	char id[STORE_ID_LEN], time[32];
	char *summary;
	struct verb_buf labels;    /* "k=v k=v" (text), filled from the labels query */
	struct verb_buf labels_json;   /* {"k": "v", ...} */
};

struct list_ctx {
	struct listed *runs;
	size_t n, cap;
};

/* One row per (run, label), the runs newest first and each run's labels
 * by key; a run without labels comes once with a NULL key. */
static int run_label_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	struct list_ctx *c = ctx;
	if (n < 5 || !cols[0])
		return 0;
	if (c->n == 0 || strcmp(c->runs[c->n - 1].id, cols[0])) {
		TD_ALLOC_GROW(c->runs, c->n + 1, c->cap);
		struct listed *r = &c->runs[c->n++];
		memset(r, 0, sizeof *r);
		snprintf(r->id, sizeof r->id, "%s", cols[0]);
		snprintf(r->time, sizeof r->time, "%s", cols[1] ? cols[1] : "");
		r->summary = td_strndup(cols[2] ? cols[2] : "", cols[2] ? lens[2] : 0);
	}
	if (!cols[3] || !cols[4])
		return 0;
	struct listed *r = &c->runs[c->n - 1];
	verb_append_label_json(&r->labels_json, cols[3], cols[4]);
	/* the text view leaves the event list out: it is long and in the JSON */
	if (!strcmp(cols[3], "events"))
		return 0;
	if (r->labels.len)
		verb_append(&r->labels, " ", 1);
	verb_append(&r->labels, cols[3], lens[3]);
	verb_append(&r->labels, "=", 1);
	verb_append(&r->labels, cols[4], lens[4]);
	return 0;
}

/* The runs the filter selects (at most opt_limit, the newest) with their
 * labels, in one query: the filter is evaluated once, and each selected
 * run's labels come from the (run_id, key) primary key. */
static void load_runs(struct td_store *s, struct list_ctx *c)
{
	struct verb_sql q;
	verb_sql_start(&q, "SELECT r.id, r.time, r.summary, l.key, l.value FROM (SELECT r.id, r.time, r.seq, r.summary"
			   " FROM runs r WHERE 1 = 1");
	verb_sql_filter(&q, s, &verb_filter);
	verb_sql_add(&q, " ORDER BY r.time DESC, r.seq DESC");
	if (opt_limit > 0) {
		verb_sql_add(&q, " LIMIT ?");
		verb_sql_param(&q, SV_I(opt_limit));
	}
	verb_sql_add(&q, ") r LEFT JOIN labels l ON l.run_id = r.id ORDER BY r.time DESC, r.seq DESC, l.key");
	verb_sql_run(s, &q, run_label_row, c);
}

enum { L_ID, L_TIME, L_SUMMARY, L_LABELS, NLCOLS };
static const struct td_column columns[NLCOLS] = {
	{ "id", TD_COL_STR, 0 }, { "time", TD_COL_STR, 0 }, { "summary", TD_COL_STR, 0 }, { "labels", TD_COL_STR, 0 },
};

int cmd_list(int argc, char **argv)
{
	verb_start(&cmd, argc, argv, VERB_SELECTS_RUNS);
	if (opt_limit < 0)
		td_usage_error(&cmd, "--limit: a count of runs, 1 or more");
	struct td_store *s = verb_open();
	struct list_ctx c = { 0 };
	load_runs(s, &c);
	if (verb_json) {
		printf("[");
		for (size_t i = 0; i < c.n; i++) {
			printf("%s\n  {\"id\": ", i ? "," : "");
			td_json_string(stdout, c.runs[i].id);
			printf(", \"time\": ");
			td_json_string(stdout, c.runs[i].time);
			printf(", \"summary\": ");
			td_json_string(stdout, c.runs[i].summary);
			printf(", \"labels\": %s}}", c.runs[i].labels_json.s ? c.runs[i].labels_json.s : "{");
		}
		printf("%s]\n", c.n ? "\n" : "");
	} else {
		struct td_table *t = td_table_new(columns, NLCOLS);
		for (size_t i = 0; i < c.n; i++) {
			td_table_row(t);
			td_table_str(t, L_ID, c.runs[i].id);
			td_table_str(t, L_TIME, c.runs[i].time);
			td_table_str(t, L_SUMMARY, c.runs[i].summary);
			td_table_str(t, L_LABELS, c.runs[i].labels.s);
		}
		td_table_write(t, stdout, td_pick_format(verb_csv, false, verb_markdown));
		td_table_free(t);
	}
	for (size_t i = 0; i < c.n; i++) {
		free(c.runs[i].summary);
		free(c.runs[i].labels.s);
		free(c.runs[i].labels_json.s);
	}
	free(c.runs);
	store_filter_free(&verb_filter);
	store_close(s);
	return td_exit_code(TD_EXIT_OK);
}
