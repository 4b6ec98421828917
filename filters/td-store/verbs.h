/* td-store's verbs: one cmd_<verb> per file, each parsing its own options
 * (a td_cmd table, so each has --help) over the store layer (store/). */
#ifndef TD_STORE_VERBS_H
#define TD_STORE_VERBS_H

#include "common/opts.h"
#include "store/filter.h"
#include "store/store.h"

int cmd_add(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_trend(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_rm(int argc, char **argv);
int cmd_rederive(int argc, char **argv);
int cmd_migrate(int argc, char **argv);

/* Every verb's first lines: argv parsed by cmd's option table, messages
 * named "td-store", and a usage error for operands given to a verb that
 * takes none (one that selects runs with --label says so). Returns the
 * count of operands left in argv[0..n). */
enum verb_operands { VERB_OPERANDS, VERB_SELECTS_RUNS, VERB_NO_OPERANDS };
int verb_start(const struct td_cmd *cmd, int argc, char **argv, enum verb_operands operands);

/* A statement built in steps: the SELECT, parameters bound in order, the
 * conditions of a filter on runs (aliased r), then the rest (ORDER BY ...).
 * Too long a statement or too many parameters is a bug: it dies. */
struct verb_sql {
	char text[8192];
	size_t len;
	struct store_value params[64];
	int n;
};
void verb_sql_start(struct verb_sql *q, const char *select);
void verb_sql_add(struct verb_sql *q, const char *text);
void verb_sql_param(struct verb_sql *q, struct store_value v);
void verb_sql_filter(struct verb_sql *q, const struct td_store *s, const struct store_filter *f);
/* Runs it: rows to fn; a store failure is one line and exit 2. */
void verb_sql_run(struct td_store *s, const struct verb_sql *q, store_row_fn fn, void *ctx);

/* The capture whose content hash is hash, unpacked into a new temporary
 * file (its name into path; the caller unlinks it), for the derive engine
 * to read again. False when no capture has that hash; a damaged one is one
 * line and exit 2. */
bool verb_capture_file(struct td_store *s, const char *hash, char *path, size_t cap);

/* Whether a run with this id is stored (a store failure: exit 2). */
bool verb_run_exists(struct td_store *s, const char *id);

/* A growing NUL-terminated buffer: s is NULL until the first append, then
 * len bytes and a NUL in cap; room grows by TD_ALLOC_GROW (at least
 * doubles), so n appends cost O(total) copies. The caller frees s. */
struct verb_buf {
	char *s;
	size_t len, cap;
};
/* Appends n bytes of s. */
void verb_append(struct verb_buf *b, const char *s, size_t n);
/* Appends `"key": "value"` to a JSON object being built in b: `{` first,
 * `, ` after; the caller closes it with `}`. */
void verb_append_label_json(struct verb_buf *b, const char *key, const char *value);

/* --db URL, shared by every verb's option table. */
extern const char *verb_db;
#define VERB_DB_OPTION \
	{ 0, "db", TD_OPT_STRING, &verb_db, "URL", "the store: an SQLite file or a PostgreSQL URL (default: $TD_DB, else ~/.local/share/tdkit/runs.db)", NULL }

/* The store --db names, opened and migrated; on failure one line and exit 2. */
struct td_store *verb_open(void);

/* --label for filters: the callback adds to verb_filter. --since/--until too. */
extern struct store_filter verb_filter;
int verb_filter_label(const char *arg, void *data);
int verb_filter_since(const char *arg, void *data);
int verb_filter_until(const char *arg, void *data);
#define VERB_FILTER_OPTIONS \
	{ 0, "label", TD_OPT_CALLBACK, NULL, "K=V", "runs with this label (also K!=V, K~GLOB, K; comma-separated terms are ANDed; repeatable)", verb_filter_label }, \
	{ 0, "since", TD_OPT_CALLBACK, NULL, "WHEN", "runs at or after WHEN: 7d, 12h, 2026-11-01, 2026-11-01T12:00:00Z", verb_filter_since }, \
	{ 0, "until", TD_OPT_CALLBACK, NULL, "WHEN", "runs at or before WHEN", verb_filter_until }

/* Selects the ids of the runs verb_filter (and limit) picks, newest first:
 * fn gets each id, time and summary. Returns the count, -1 on a store error. */
typedef void (*verb_run_fn)(void *ctx, const char *id, const char *time, const char *summary);
long verb_select_runs(struct td_store *s, long limit, verb_run_fn fn, void *ctx);
/* The same for another filter than --label's. */
long verb_select_filtered(struct td_store *s, const struct store_filter *f, long limit, verb_run_fn fn, void *ctx);

/* The rows of a derived run, as the store keeps them: r's counters and
 * metrics point into arrays this allocates (free with verb_rows_free). */
struct derive_run;
void verb_rows_of(const struct derive_run *d, struct store_run *r);
void verb_rows_free(struct store_run *r);

/* --csv, --json, --markdown for verbs that print a table. */
extern bool verb_csv, verb_json, verb_markdown;
#define VERB_FORMAT_OPTIONS \
	{ 0, "csv", TD_OPT_FLAG, &verb_csv, NULL, "CSV with a header row", NULL }, \
	{ 0, "json", TD_OPT_FLAG, &verb_json, NULL, "JSON", NULL }, \
	{ 0, "markdown", TD_OPT_FLAG, &verb_markdown, NULL, "a markdown table", NULL }

/* The funnel's rule: retiring (and its children) is useful work, every
 * other Top-down node waste. */
bool verb_node_is_useful(const char *node);

/* A store failure: "td-store: WHERE: ERROR" and exit 2. */
void verb_store_failed(struct td_store *s) __attribute__((noreturn));

/* The labels a capture's td-collect header gives (capture_header.c): the
 * machine and target facts and the collection's --label's, strings
 * allocated; and one of them by key, or NULL. */
int capture_header_labels(const char *bytes, size_t len, struct store_label *out, int max);
const char *capture_header_label(const struct store_label *l, int n, const char *key);

#endif
