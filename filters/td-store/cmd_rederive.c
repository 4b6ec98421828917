/* td-store rederive: every selected run's counters and metrics derived
 * again from its kept raw capture, by this version's formulas, and the
 * values that changed reported. One transaction per capture. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
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

struct blob {
	char *bytes;
	size_t len;
	char layout[16];
};

static int blob_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	struct blob *b = ctx;
	if (n < 2 || !cols[0])
		return 1;
	b->bytes = td_malloc(lens[0] + 1);
	memcpy(b->bytes, cols[0], lens[0]);
	b->len = lens[0];
	snprintf(b->layout, sizeof b->layout, "%s", cols[1] ? cols[1] : "");
	return 1;
}

/* The stored value of each metric of a run, to say what changed. */
struct old_value {
	char key[256];             /* scope/pmu/name */
	double value;
	bool seen;
};

struct old_values {
	struct old_value *v;
	size_t n, cap;
};

static int old_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	(void)lens;
	struct old_values *o = ctx;
	if (n < 4)
		return 0;
	TD_ALLOC_GROW(o->v, o->n + 1, o->cap);
	struct old_value *v = &o->v[o->n++];
	snprintf(v->key, sizeof v->key, "%s/%s/%s", cols[0], cols[1], cols[2]);
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
	if (b->ops->exec(b, "SELECT scope, pmu, name, value FROM metrics WHERE run_id = ?", &id, 1, old_row, &old) < 0 ||
	    b->ops->exec(b, "DELETE FROM metrics WHERE run_id = ?", &id, 1, NULL, NULL) < 0 ||
	    b->ops->exec(b, "DELETE FROM counters WHERE run_id = ?", &id, 1, NULL, NULL) < 0) {
		c->failed = 1;
		free(old.v);
		return;
	}
	struct store_run r = { 0 };
	verb_rows_of(d, &r);
	for (size_t i = 0; i < d->nmetrics; i++) {
		const struct derive_metric *m = &d->metrics[i];
		char key[256];
		snprintf(key, sizeof key, "%s/%s/%s", m->scope, m->pmu, m->name);
		struct old_value *was = NULL;
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

static void drop_message(void *ctx, const char *line, size_t len)
{
	(void)ctx;
	(void)line;
	(void)len;
}

/* One capture: unpacked into a temporary file, derived, its runs replaced. */
static void rederive_capture(struct td_store *s, const struct targets *l, const char *hash, long *runs, long *changed)
{
	struct store_backend *b = s->b;
	struct blob z = { 0 };
	struct store_value key = SV_STR(hash);
	if (b->ops->exec(b, "SELECT raw, layout FROM captures WHERE hash = ?", &key, 1, blob_row, &z) < 0)
		verb_store_failed(s);
	if (!z.bytes)
		return;
	unsigned long long size = ZSTD_getFrameContentSize(z.bytes, z.len);
	if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN)
		td_die("capture %s: the stored capture is not zstd data", hash);
	char *raw = td_malloc(size + 1);
	size_t got = ZSTD_decompress(raw, size, z.bytes, z.len);
	if (ZSTD_isError(got))
		td_die("capture %s: %s", hash, ZSTD_getErrorName(got));
	char path[256];
	snprintf(path, sizeof path, "%s/td-store-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, raw, got) != (ssize_t)got)
		td_die("cannot write a temporary file: %s", strerror(errno));
	close(fd);
	struct rederive_ctx c = { s, l, hash, 0, 0, 0 };
	struct derive_options o = { STAT_AUTO, NULL };
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
	free(raw);
	free(z.bytes);
}

int cmd_rederive(int argc, char **argv)
{
	int n = td_parse_options(&cmd, argc, argv);
	td_progname = "td-store";
	if (n)
		td_usage_error(&cmd, "rederive takes no operands (select runs with --label)");
	if (td_bad_input_count())
		return TD_EXIT_BAD;
	struct td_store *s = verb_open();
	struct targets l = { 0 };
	char sql[8192] = "SELECT r.id, r.capture, r.run_index FROM runs r WHERE 1 = 1";
	struct store_value params[64];
	int np = 0;
	store_filter_sql(&verb_filter, s->b->dialect, sql, sizeof sql - 64, params, &np, 63);
	strcat(sql, " ORDER BY r.capture, r.run_index");
	if (s->b->ops->exec(s->b, sql, params, np, target_row, &l) < 0)
		verb_store_failed(s);
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
