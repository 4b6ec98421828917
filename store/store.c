/* Opening a store by URL, and keeping runs in it (store.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>
#include "common/diag.h"
#include "store/store.h"

/* "postgresql://..." or libpq's "key=value ..." conninfo; anything else is a file. */
static bool is_postgres_url(const char *url)
{
	static const char *const prefixes[] = { "postgresql://", "postgres://", "host=", "hostaddr=", "port=",
						"dbname=", "user=", "service=", NULL };
	for (int i = 0; prefixes[i]; i++)
		if (strncmp(url, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

const char *store_default_url(char *buf, size_t n)
{
	const char *env = getenv("TD_DB");
	if (env && *env) {
		snprintf(buf, n, "%s", env);
		return buf;
	}
	const char *data = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	if (data && *data)
		snprintf(buf, n, "%s/tdkit/runs.db", data);
	else
		snprintf(buf, n, "%s/.local/share/tdkit/runs.db", home && *home ? home : ".");
	return buf;
}

/* mkdir -p of the folder that will hold path. */
static int make_parent(const char *path, char *err, size_t errlen)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = 0;
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			goto fail;
		*p = '/';
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
	return -1;
}

struct td_store *store_open_raw(const char *url, char *err, size_t errlen)
{
	char def[4096];
	if (!url || !*url)
		url = store_default_url(def, sizeof def);
	struct store_backend *b;
	if (is_postgres_url(url)) {
		b = store_postgres_open(url, err, errlen);
	} else {
		if (url == def && make_parent(url, err, errlen) < 0)
			return NULL;
		b = store_sqlite_open(url, err, errlen);
	}
	if (!b)
		return NULL;
	struct td_store *s = td_calloc(1, sizeof *s);
	s->b = b;
	return s;
}

struct td_store *store_open(const char *url, char *err, size_t errlen)
{
	struct td_store *s = store_open_raw(url, err, errlen);
	if (!s)
		return NULL;
	int from, to;
	int version = store_schema_version(s->b);
	if (version < 0 || version != store_schema_latest()) {
		if (version >= 0 && s->b->read_only && version < store_schema_latest()) {
			snprintf(err, errlen, "%s: the database is read-only and needs an upgrade (td-store migrate)",
				 s->b->where);
			store_close(s);
			return NULL;
		}
		if (version < 0 || store_schema_migrate(s->b, &from, &to) < 0) {
			snprintf(err, errlen, "%s: %s", s->b->where, s->b->error);
			store_close(s);
			return NULL;
		}
	}
	return s;
}

void store_close(struct td_store *s)
{
	if (!s)
		return;
	s->b->ops->close(s->b);
	free(s);
}

/* A missing number is SQL NULL: SQLite stores NaN as NULL anyway, and
 * both backends then read back the same. */
static struct store_value num(double v) { return isnan(v) ? (struct store_value){ .type = SV_NULL } : SV_D(v); }

static void make_id(char *id, const char *time, const char *capture_hash, int run_index)
{
	/* "2026-11-25T15:08:12Z" -> "20261125-150812" */
	char stamp[16];
	size_t o = 0;
	for (const char *p = time; *p && o < 15; p++) {
		if (*p >= '0' && *p <= '9')
			stamp[o++] = *p;
		if (o == 8)
			stamp[o++] = '-';
	}
	stamp[o] = 0;
	char key[64];
	int n = snprintf(key, sizeof key, "%s/%d", capture_hash, run_index);
	unsigned long long h = XXH3_64bits(key, (size_t)n);
	snprintf(id, STORE_ID_LEN, "%s-%06llx", stamp, h & 0xffffff);
}

static int first_cell(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	(void)lens;
	if (n > 0 && cols[0])
		snprintf(ctx, STORE_ID_LEN, "%s", cols[0]);
	return 1;
}

static const char *const counter_cols[] = { "run_id", "ord", "interval_s", "scope", "pmu", "name", "value", "enabled_pct",
					     "variance_pct" };
static const char *const metric_cols[] = { "run_id", "ord", "interval_s", "scope", "pmu", "name", "value", "unit", "better", "level",
					    "verdict", "confidence", "variance_pct", "on_path", "source" };

static int load_rows(struct store_backend *b, const char *id, const struct store_run *r)
{
	struct store_value *v;
	size_t n = r->ncounters > r->nmetrics ? r->ncounters : r->nmetrics;
	v = td_malloc((n ? n : 1) * 15 * sizeof *v);
	struct store_value idv = SV_STR(id);
	for (size_t i = 0; i < r->ncounters; i++) {
		const struct store_counter_row *c = &r->counters[i];
		struct store_value *row = v + i * 9;
		row[0] = idv;
		row[1] = SV_I((long long)i);
		row[2] = num(c->interval_s);
		row[3] = SV_STR(c->scope);
		row[4] = SV_STR(c->pmu);
		row[5] = SV_STR(c->name);
		row[6] = num(c->value);
		row[7] = num(c->enabled_pct);
		row[8] = num(c->variance_pct);
	}
	int rc = b->ops->load(b, "counters", counter_cols, 9, v, r->ncounters);
	for (size_t i = 0; rc == 0 && i < r->nmetrics; i++) {
		const struct store_metric_row *m = &r->metrics[i];
		struct store_value *row = v + i * 15;
		row[0] = idv;
		row[1] = SV_I((long long)i);
		row[2] = num(m->interval_s);
		row[3] = SV_STR(m->scope);
		row[4] = SV_STR(m->pmu);
		row[5] = SV_STR(m->name);
		row[6] = num(m->value);
		row[7] = SV_STR(m->unit);
		row[8] = SV_STR(m->better ? m->better : "");
		row[9] = SV_I(m->level);
		row[10] = SV_STR(m->verdict);
		row[11] = num(m->confidence);
		row[12] = num(m->variance_pct);
		row[13] = SV_I(m->on_path);
		row[14] = SV_STR(m->source);
	}
	if (rc == 0)
		rc = b->ops->load(b, "metrics", metric_cols, 15, v, r->nmetrics);
	free(v);
	return rc;
}

static int add_labels(struct store_backend *b, const char *id, const struct store_run *r, bool relabel)
{
	const char *sql = relabel
		? "INSERT INTO labels (run_id, key, value) VALUES (?, ?, ?) ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value"
		: "INSERT INTO labels (run_id, key, value) VALUES (?, ?, ?) ON CONFLICT (run_id, key) DO NOTHING";
	for (int i = 0; i < r->nlabels; i++) {
		struct store_value p[3] = { SV_STR(id), SV_STR(r->labels[i].key), SV_STR(r->labels[i].value) };
		if (b->ops->exec(b, sql, p, 3, NULL, NULL) < 0)
			return -1;
	}
	return 0;
}

static int add_run(struct store_backend *b, const struct store_capture *c, const struct store_run *r, bool relabel,
		   bool assume_new, char *id, bool *existed)
{
	id[0] = 0;
	if (c && assume_new) {
		/* no lookup: a new capture has no run yet (the commit proves it) */
	} else if (c) {
		struct store_value key[2] = { SV_STR(c->hash), SV_I(r->run_index) };
		if (b->ops->exec(b, "SELECT id FROM runs WHERE capture = ? AND run_index = ?", key, 2, first_cell, id) < 0)
			return -1;
	} else {
		struct store_value key = SV_STR(r->id);
		if (b->ops->exec(b, "SELECT id FROM runs WHERE id = ?", &key, 1, first_cell, id) < 0)
			return -1;
	}
	*existed = id[0] != 0;
	if (*existed)
		return add_labels(b, id, r, relabel);
	if (r->id)
		snprintf(id, STORE_ID_LEN, "%s", r->id);
	else
		make_id(id, r->time, c->hash, r->run_index);
	struct store_value none = { .type = SV_NULL };
	struct store_value p[13] = {
		SV_STR(id), SV_STR(r->time), c ? SV_STR(c->hash) : none, c ? SV_I(r->run_index) : none, SV_STR(r->source),
		num(r->duration_s), SV_STR(r->command), SV_STR(r->host), SV_STR(r->cpu), SV_STR(r->perf_version),
		SV_STR(TD_VERSION), SV_STR(r->summary),
	};
	if (b->ops->exec(b,
			 "INSERT INTO runs (id, time, capture, run_index, source, duration_s, command, host, cpu,"
			 " perf_version, tdkit_version, summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			 p, 12, NULL, NULL) < 0)
		return -1;
	/* a new run has no label yet: its labels go in with its rows, in bulk */
	static const char *const label_cols[] = { "run_id", "key", "value" };
	struct store_value *lv = td_malloc(((size_t)r->nlabels + 1) * 3 * sizeof *lv);
	for (int i = 0; i < r->nlabels; i++) {
		lv[i * 3] = SV_STR(id);
		lv[i * 3 + 1] = SV_STR(r->labels[i].key);
		lv[i * 3 + 2] = SV_STR(r->labels[i].value);
	}
	int rc = b->ops->load(b, "labels", label_cols, 3, lv, (size_t)r->nlabels);
	free(lv);
	return rc < 0 ? -1 : load_rows(b, id, r);
}

/* Rolls the open transaction back (a batch: all of it). */
static int rollback_keeping_error(struct td_store *s)
{
	struct store_backend *b = s->b;
	s->open = false;
	char saved[sizeof b->error];
	memcpy(saved, b->error, sizeof saved);
	b->ops->rollback(b);
	memcpy(b->error, saved, sizeof saved);
	return -1;
}

/* A statement of the open transaction failed: rolled back, and -1, or
 * STORE_RETRY when a capture taken as new proved stored (or concurrent
 * adds deadlocked over the same captures): everything the transaction
 * held is to be added again, every run looked up. On a server the failure
 * of a queued statement is told by a later one that waits (a lookup, a
 * commit, a full queue), so a batch may learn it before its commit. */
static int failed(struct td_store *s)
{
	struct store_backend *b = s->b;
	rollback_keeping_error(s);
	bool deadlock = !strcmp(b->conflict, "deadlock");
	bool retry = (s->assumed && !strcmp(b->conflict, "captures_pkey")) || deadlock;
	if (!retry)
		return -1;
	s->serialize |= deadlock;
	s->repeats = true;
	s->lookup = s->batching;
	return STORE_RETRY;
}

/* A capture's place in s->seen: by the last hex digits of its hash. */
static char (*seen_slot(struct td_store *s, const char *hash))[33]
{
	size_t n = strlen(hash);
	unsigned long slot = strtoul(hash + (n > 3 ? n - 3 : 0), NULL, 16);
	return &s->seen[slot % (sizeof s->seen / sizeof s->seen[0])];
}

int store_add_begin(struct td_store *s, const struct store_capture *c)
{
	struct store_backend *b = s->b;
	s->assume_new = false;
	s->adding[0] = 0;
	if (!s->open) {
		if (b->ops->begin(b) < 0)
			return -1;
		s->open = true;
		s->assumed = false;
		/* Two adds sending the same captures in other orders deadlock;
		 * the server aborts one, and its batch, sent again, can deadlock
		 * with the other's again, round after round. Batches sent after a
		 * deadlock take this lock first: they run one at a time, and a
		 * writer that never deadlocked is left to finish. */
		if (s->serialize && b->dialect == STORE_POSTGRES &&
		    b->ops->exec(b, "SELECT pg_advisory_xact_lock(727385)", NULL, 0, NULL, NULL) < 0)
			return failed(s);
	}
	if (!c)
		return 0;
	struct store_value cap[4] = { SV_STR(c->hash), SV_STR(c->layout), SV_I((long long)c->size),
				      { .type = SV_BLOB, .s = c->zstd, .len = c->zstd_len } };
	/* on a server, a capture not seen failing before is taken as new: a
	 * plain INSERT, whose key conflict (at the commit) means "look up" */
	s->assume_new = b->remote && !s->lookup && !s->repeats && strcmp(*seen_slot(s, c->hash), c->hash) != 0;
	s->assumed |= s->assume_new;
	snprintf(s->adding, sizeof s->adding, "%s", c->hash);
	if (b->ops->exec(b, s->assume_new ? "INSERT INTO captures (hash, layout, size, raw) VALUES (?, ?, ?, ?)"
			 : "INSERT INTO captures (hash, layout, size, raw) VALUES (?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING",
			 cap, 4, NULL, NULL) < 0)
		return failed(s);
	return 0;
}

int store_add_run(struct td_store *s, const struct store_capture *c, const struct store_run *r, bool relabel,
		  char *id, bool *existed)
{
	if (add_run(s->b, c, r, relabel, s->assume_new, id, existed) < 0)
		return failed(s);
	if (c && !*existed)
		s->repeats = false;       /* a new run: the next capture is taken as new again */
	return 0;
}

int store_load_rows(struct td_store *s, const char *id, const struct store_run *r)
{
	return load_rows(s->b, id, r);
}

/* Commits the open transaction: 0, -1 or STORE_RETRY (failed()). */
static int commit(struct td_store *s)
{
	if (!s->open)
		return 0;
	s->open = false;
	if (s->b->ops->commit(s->b) == 0) {
		s->lookup = false;
		return 0;
	}
	return failed(s);
}

int store_add_end(struct td_store *s, bool ok)
{
	if (!ok) {
		s->adding[0] = 0;
		return rollback_keeping_error(s);
	}
	/* a file given twice, or again after a retry: its runs are looked up */
	if (s->adding[0])
		snprintf(*seen_slot(s, s->adding), sizeof s->seen[0], "%s", s->adding);
	s->adding[0] = 0;
	return s->batching ? 0 : commit(s);
}

void store_batch_begin(struct td_store *s)
{
	s->batching = true;
}

int store_batch_commit(struct td_store *s)
{
	int rc = commit(s);
	s->batching = rc == STORE_RETRY;
	return rc;
}

int store_add(struct td_store *s, const struct store_capture *c, const struct store_run *runs, int nruns,
	      bool relabel, char (*ids)[STORE_ID_LEN], bool *existed)
{
	int rc;
	do {
		if ((rc = store_add_begin(s, c)) < 0)
			continue;
		for (int i = 0; rc == 0 && i < nruns; i++)
			rc = store_add_run(s, c, &runs[i], relabel, ids[i], &existed[i]);
		if (rc == 0)
			rc = store_add_end(s, true);
	} while (rc == STORE_RETRY);
	return rc;
}
