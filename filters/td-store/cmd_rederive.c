/* td-store rederive: every selected run's counters and metrics derived
 * again from its kept raw capture, by this version's formulas, and the
 * values that changed reported. One transaction per capture. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analysis/derive.h"
#include "common/diag.h"
#include "common/opts.h"
#include "common/grow.h"
#include "filters/td-store/verbs.h"

static const struct td_option options[] = {
	VERB_FILTER_OPTIONS,
	VERB_DB_OPTION,
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-store rederive", "[filters]",
	"Derive the selected runs again from their kept captures; report what changed.",
	options,
	"Reads no file: the runs come from the store --db names (default: $TD_DB, else ~/.local/share/tdkit/runs.db).",
};

struct target {
	char id[STORE_ID_LEN];
	char capture[40];          /* "" for an imported run */
	int run_index;
};

struct targets {
	struct target *t;
	size_t n, cap;
};

static int target_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	(void)lens;
	struct targets *l = ctx;
	if (n < 3)
		return 0;
	TD_ALLOC_GROW(l->t, l->n + 1, l->cap);
	struct target *t = &l->t[l->n++];
	snprintf(t->id, sizeof t->id, "%s", cols[0]);
	snprintf(t->capture, sizeof t->capture, "%s", cols[1] ? cols[1] : "");
	t->run_index = cols[2] ? atoi(cols[2]) : -1;
	return 0;
}

/* The stored value of each metric of a run, to say what changed. */
struct old_value {
	char key[256];             /* scope/pmu/name, and @interval for an interval's row */
	double value;
	bool seen;
};

struct old_values {
	struct old_value *v;
	size_t n, cap;
};

static void row_key(char *key, size_t cap, const char *scope, const char *pmu, const char *name, double interval_s)
{
	int n = snprintf(key, cap, "%s/%s/%s", scope, pmu, name);
	if (!isnan(interval_s) && n > 0 && (size_t)n < cap)
		snprintf(key + n, cap - (size_t)n, "@%.9g", interval_s);
}

static int old_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	(void)lens;
	struct old_values *o = ctx;
	if (n < 5)
		return 0;
	TD_ALLOC_GROW(o->v, o->n + 1, o->cap);
	struct old_value *v = &o->v[o->n++];
	row_key(v->key, sizeof v->key, cols[0], cols[1], cols[2], cols[4] ? strtod(cols[4], NULL) : NAN);
	v->value = cols[3] ? strtod(cols[3], NULL) : NAN;
	v->seen = false;
	return 0;
}

struct rederive_ctx {
	struct td_store *s;
	const struct targets *targets;
	const char *capture;
	long runs, changed;
	int failed;
};

static bool same_number(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

static void rederived(void *ctx, const struct derive_run *d)
{
	struct rederive_ctx *c = ctx;
	const struct target *t = NULL;
	for (size_t i = 0; i < c->targets->n && !t; i++)
		if (!strcmp(c->targets->t[i].capture, c->capture) && c->targets->t[i].run_index == d->index)
			t = &c->targets->t[i];
	if (!t || c->failed)
		return;
	struct store_backend *b = c->s->b;
	struct store_value id = SV_STR(t->id);
	struct old_values old = { 0 };
	if (b->ops->exec(b, "SELECT scope, pmu, name, value, interval_s FROM metrics WHERE run_id = ? ORDER BY ord", &id, 1,
			 old_row, &old) < 0 ||
	    b->ops->exec(b, "DELETE FROM metrics WHERE run_id = ?", &id, 1, NULL, NULL) < 0 ||
	    b->ops->exec(b, "DELETE FROM counters WHERE run_id = ?", &id, 1, NULL, NULL) < 0) {
		c->failed = 1;
		free(old.v);
		return;
	}
	struct store_run r = { 0 };
	verb_rows_of(d, &r);
	/* rows come in the order they were stored: the one at the same place
	 * is tried first, so a run of many intervals is not compared n x n */
	for (size_t i = 0; i < r.nmetrics; i++) {
		const struct store_metric_row *m = &r.metrics[i];
		char key[256];
		row_key(key, sizeof key, m->scope, m->pmu, m->name, m->interval_s);
		struct old_value *was = i < old.n && !old.v[i].seen && !strcmp(old.v[i].key, key) ? &old.v[i] : NULL;
		for (size_t j = 0; j < old.n && !was; j++)
			if (!old.v[j].seen && !strcmp(old.v[j].key, key))
				was = &old.v[j];
		if (!was) {
			printf("%s: %s: new, %.6g\n", t->id, key, m->value);
			c->changed++;
		} else {
			was->seen = true;
			if (!same_number(was->value, m->value)) {
				printf("%s: %s: %.6g -> %.6g\n", t->id, key, was->value, m->value);
				c->changed++;
			}
		}
	}
	for (size_t j = 0; j < old.n; j++)
		if (!old.v[j].seen) {
			printf("%s: %s: gone (was %.6g)\n", t->id, old.v[j].key, old.v[j].value);
			c->changed++;
		}
	struct store_value upd[2] = { SV_STR(d->summary), SV_STR(t->id) };
	if (store_load_rows(c->s, t->id, &r) < 0 ||
	    b->ops->exec(b, "UPDATE runs SET summary = ? WHERE id = ?", upd, 2, NULL, NULL) < 0)
		c->failed = 1;
	else
		c->runs++;
	verb_rows_free(&r);
	free(old.v);
}

static void drop_message(void *ctx, const struct td_diag_record *r)
{
	(void)ctx;
	(void)r;
}

/* One capture: unpacked into a temporary file, derived, its runs replaced. */
static void rederive_capture(struct td_store *s, const struct targets *l, const char *hash, long *runs, long *changed)
{
	struct store_backend *b = s->b;
	char path[256];
	if (!verb_capture_file(s, hash, path, sizeof path))
		return;
	struct rederive_ctx c = { s, l, hash, 0, 0, 0 };
	struct derive_options o = { STAT_AUTO, NULL, true };
	if (b->ops->begin(b) < 0)
		verb_store_failed(s);
	/* what the capture's lines say was said when it was added */
	td_diag_capture(drop_message, NULL);
	derive_file(path, &o, rederived, &c);
	td_diag_capture(NULL, NULL);
	if (c.failed || b->ops->commit(b) < 0) {
		unlink(path);
		verb_store_failed(s);
	}
	unlink(path);
	*runs += c.runs;
	*changed += c.changed;
}

int cmd_rederive(int argc, char **argv)
{
	verb_start(&cmd, argc, argv, VERB_SELECTS_RUNS);
	struct td_store *s = verb_open();
	struct targets l = { 0 };
	struct verb_sql q;
	verb_sql_start(&q, "SELECT r.id, r.capture, r.run_index FROM runs r WHERE 1 = 1");
	verb_sql_filter(&q, s, &verb_filter);
	verb_sql_add(&q, " ORDER BY r.capture, r.run_index");
	verb_sql_run(s, &q, target_row, &l);
	long runs = 0, changed = 0, imported = 0;
	for (size_t i = 0; i < l.n; i++) {
		if (!l.t[i].capture[0]) {
			imported++;
			continue;
		}
		if (i && !strcmp(l.t[i].capture, l.t[i - 1].capture))
			continue;
		rederive_capture(s, &l, l.t[i].capture, &runs, &changed);
	}
	fprintf(stderr, "td-store: %ld run%s rederived, %ld value%s changed", runs, runs == 1 ? "" : "s", changed,
		changed == 1 ? "" : "s");
	if (imported)
		fprintf(stderr, "; %ld imported run%s have no capture to derive from", imported, imported == 1 ? "" : "s");
	fputc('\n', stderr);
	free(l.t);
	store_filter_free(&verb_filter);
	store_close(s);
	return td_exit_code(TD_EXIT_OK);
}
