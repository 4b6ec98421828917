/* What td-store's verbs share: the store they open, the runs a filter selects. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#include "analysis/derive.h"
#include "common/diag.h"
#include "common/grow.h"
#include "filters/td-store/verbs.h"
#include "reports/table.h"

const char *verb_db;
bool verb_csv, verb_json, verb_markdown;
struct store_filter verb_filter;

int verb_start(const struct td_cmd *cmd, int argc, char **argv, enum verb_operands operands)
{
	int n = td_parse_options(cmd, argc, argv);
	td_progname = "td-store";
	if (operands != VERB_OPERANDS && n) {
		const char *verb = strrchr(cmd->name, ' ');
		td_usage_error(cmd, "%s takes no operands%s", verb ? verb + 1 : cmd->name,
			       operands == VERB_SELECTS_RUNS ? " (select runs with --label)" : "");
	}
	if (td_bad_input_count())
		exit(TD_EXIT_BAD);
	return n;
}

void verb_sql_start(struct verb_sql *q, const char *select)
{
	q->len = 0;
	q->n = 0;
	q->text[0] = 0;
	verb_sql_add(q, select);
}

void verb_sql_add(struct verb_sql *q, const char *text)
{
	size_t n = strlen(text);
	if (q->len + n >= sizeof q->text)
		td_die("internal: an SQL statement longer than %zu bytes", sizeof q->text);
	memcpy(q->text + q->len, text, n + 1);
	q->len += n;
}

void verb_sql_param(struct verb_sql *q, struct store_value v)
{
	if (q->n == (int)(sizeof q->params / sizeof *q->params))
		td_die("internal: more than %d SQL parameters", q->n);
	q->params[q->n++] = v;
}

void verb_sql_filter(struct verb_sql *q, const struct td_store *s, const struct store_filter *f)
{
	int want = q->n + !!f->since[0] + !!f->until[0];
	for (int i = 0; i < f->n; i++)
		want += f->terms[i].op == FILTER_HAS ? 1 : 2;
	store_filter_sql(f, s->b->dialect, q->text, sizeof q->text, q->params, &q->n,
			 (int)(sizeof q->params / sizeof *q->params));
	q->len = strlen(q->text);
	/* store_filter_sql leaves out the terms it has no room for */
	if (q->n != want || q->len + 1 >= sizeof q->text)
		td_die("a label filter too long for one SQL statement (at most %zu terms)", sizeof q->params / sizeof *q->params / 2 - 1);
}

void verb_sql_run(struct td_store *s, const struct verb_sql *q, store_row_fn fn, void *ctx)
{
	if (s->b->ops->exec(s->b, q->text, q->params, q->n, fn, ctx) < 0)
		verb_store_failed(s);
}

struct blob {
	char *bytes;
	size_t len;
};

static int blob_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	struct blob *b = ctx;
	if (n < 1 || !cols[0])
		return 1;
	b->bytes = td_malloc(lens[0] + 1);
	memcpy(b->bytes, cols[0], lens[0]);
	b->len = lens[0];
	return 1;
}

bool verb_capture_file(struct td_store *s, const char *hash, char *path, size_t cap)
{
	struct blob z = { 0 };
	struct store_value key = SV_STR(hash);
	if (s->b->ops->exec(s->b, "SELECT raw FROM captures WHERE hash = ?", &key, 1, blob_row, &z) < 0)
		verb_store_failed(s);
	if (!z.bytes)
		return false;
	unsigned long long size = ZSTD_getFrameContentSize(z.bytes, z.len);
	if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN)
		td_die("capture %s: the stored capture is not zstd data", hash);
	char *raw = td_malloc(size + 1);
	size_t got = ZSTD_decompress(raw, size, z.bytes, z.len);
	if (ZSTD_isError(got))
		td_die("capture %s: %s", hash, ZSTD_getErrorName(got));
	snprintf(path, cap, "%s/td-store-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, raw, got) != (ssize_t)got)
		td_die("cannot write a temporary file: %s", strerror(errno));
	close(fd);
	free(raw);
	free(z.bytes);
	return true;
}

static int exists_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	(void)n;
	(void)cols;
	(void)lens;
	*(bool *)ctx = true;
	return 1;
}

bool verb_run_exists(struct td_store *s, const char *id)
{
	bool found = false;
	struct store_value p = SV_STR(id);
	if (s->b->ops->exec(s->b, "SELECT 1 FROM runs WHERE id = ?", &p, 1, exists_row, &found) < 0)
		verb_store_failed(s);
	return found;
}

void verb_append(struct verb_buf *b, const char *s, size_t n)
{
	if (n > SIZE_MAX - b->len - 1)
		td_die("out of memory (a buffer of %zu bytes and %zu more)", b->len, n);
	TD_ALLOC_GROW(b->s, b->len + n + 1, b->cap);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

/* A JSON string through the one escaper (reports/escape.h), escaped in
 * place at the end of the buffer (at most 6 bytes a byte, and the quotes). */
static void append_json_string(struct verb_buf *b, const char *s)
{
	size_t n = strlen(s);
	if (n > (SIZE_MAX - b->len - 3) / 6)
		td_die("out of memory (a buffer of %zu bytes and %zu more)", b->len, n);
	TD_ALLOC_GROW(b->s, b->len + 6 * n + 3, b->cap);
	b->len += td_json_escape(b->s + b->len, s, n);
	b->s[b->len] = 0;
}

void verb_append_label_json(struct verb_buf *b, const char *key, const char *value)
{
	verb_append(b, b->len ? ", " : "{", b->len ? 2 : 1);
	append_json_string(b, key);
	verb_append(b, ": ", 2);
	append_json_string(b, value);
}

struct td_store *verb_open(void)
{
	char err[1024];
	struct td_store *s = store_open(verb_db, err, sizeof err);
	if (!s)
		td_die("%s", err);
	return s;
}

void verb_store_failed(struct td_store *s)
{
	td_die("%s: %s", s->b->where, s->b->error);
}

int verb_filter_label(const char *arg, void *data)
{
	(void)data;
	char err[512];
	if (store_filter_add_labels(&verb_filter, arg, err, sizeof err) < 0) {
		td_error("%s", err);
		return -1;
	}
	return 0;
}

static int set_bound(char *bound, size_t cap, const char *arg)
{
	char err[512];
	if (store_filter_set_time(bound, cap, arg, err, sizeof err) < 0) {
		td_error("%s", err);
		return -1;
	}
	return 0;
}

int verb_filter_since(const char *arg, void *data)
{
	(void)data;
	return set_bound(verb_filter.since, sizeof verb_filter.since, arg);
}

int verb_filter_until(const char *arg, void *data)
{
	(void)data;
	return set_bound(verb_filter.until, sizeof verb_filter.until, arg);
}

struct select_ctx {
	verb_run_fn fn;
	void *ctx;
	long n;
};

static int run_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	(void)lens;
	struct select_ctx *c = ctx;
	if (n >= 3 && c->fn)
		c->fn(c->ctx, cols[0], cols[1], cols[2] ? cols[2] : "");
	c->n++;
	return 0;
}

long verb_select_runs(struct td_store *s, long limit, verb_run_fn fn, void *ctx)
{
	return verb_select_filtered(s, &verb_filter, limit, fn, ctx);
}

long verb_select_filtered(struct td_store *s, const struct store_filter *f, long limit, verb_run_fn fn, void *ctx)
{
	struct verb_sql q;
	verb_sql_start(&q, "SELECT r.id, r.time, r.summary FROM runs r WHERE 1 = 1");
	verb_sql_filter(&q, s, f);
	verb_sql_add(&q, " ORDER BY r.time DESC, r.seq DESC");
	if (limit > 0) {
		verb_sql_add(&q, " LIMIT ?");
		verb_sql_param(&q, SV_I(limit));
	}
	struct select_ctx c = { fn, ctx, 0 };
	if (s->b->ops->exec(s->b, q.text, q.params, q.n, run_row, &c) < 0)
		return -1;
	return c.n;
}

bool verb_node_is_useful(const char *node)
{
	return !strcmp(node, "retiring") || !strcmp(node, "light_operations") || !strcmp(node, "heavy_operations");
}

static struct store_counter_row counter_row(const struct derive_counter *c, double interval_s)
{
	return (struct store_counter_row){ interval_s, c->scope, c->pmu, c->name, c->value, c->enabled_pct, c->variance_pct };
}

static struct store_metric_row metric_row(const struct derive_metric *m, double interval_s)
{
	return (struct store_metric_row){ interval_s, m->scope, m->pmu, m->name, m->value, m->unit, m->better, m->level,
					  m->verdict, m->confidence, m->variance_pct, m->on_path, m->source };
}

/* The whole run's rows first (ord 0, 1, ...), then each interval's. */
void verb_rows_of(const struct derive_run *d, struct store_run *r)
{
	size_t nc = d->ncounters + d->ninterval_counters, nm = d->nmetrics + d->ninterval_metrics;
	struct store_counter_row *counters = td_malloc((nc + 1) * sizeof *counters);
	for (size_t i = 0; i < d->ncounters; i++)
		counters[i] = counter_row(&d->counters[i], NAN);
	for (size_t i = 0; i < d->ninterval_counters; i++)
		counters[d->ncounters + i] = counter_row(&d->interval_counters[i], d->counter_interval[i]);
	struct store_metric_row *metrics = td_malloc((nm + 1) * sizeof *metrics);
	for (size_t i = 0; i < d->nmetrics; i++)
		metrics[i] = metric_row(&d->metrics[i], NAN);
	for (size_t i = 0; i < d->ninterval_metrics; i++)
		metrics[d->nmetrics + i] = metric_row(&d->interval_metrics[i], d->metric_interval[i]);
	r->counters = counters;
	r->ncounters = nc;
	r->metrics = metrics;
	r->nmetrics = nm;
}

void verb_rows_free(struct store_run *r)
{
	free((void *)r->counters);
	free((void *)r->metrics);
	r->counters = NULL;
	r->metrics = NULL;
}
