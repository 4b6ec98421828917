/* The run store's schema, as numbered migrations: each step is the DDL of
 * one version in both dialects, applied in order inside one transaction
 * with the version row, so a database is always at exactly one version.
 * Steps are only ever appended; none drops data.
 *
 * The logical schema (one for every backend):
 *   td_schema (version)                      one row: the version applied
 *   captures  (hash, layout, size, raw)      the capture file, zstd; hash = its content
 *   runs      (seq, id, time, capture, run_index, source, duration_s, command,
 *              host, cpu, perf_version, tdkit_version, summary)
 *             capture is NULL for a run imported from an export (no raw capture to rederive)
 *   labels    (run_id, key, value)           one row per label; (key, value) indexed
 *   counters  (run_id, ord, interval_s, scope, pmu, name, value, enabled_pct, variance_pct)
 *   metrics   (run_id, ord, interval_s, scope, pmu, name, value, unit, better, level, verdict,
 *              confidence, variance_pct, on_path, source)   level 0: not a Top-down node
 *             ord: the row's place in its run, as the engine gave it (SQL keeps no order)
 *
 * Rows of a run are stored together (SQLite: WITHOUT ROWID tables keyed
 * by (run_id, ord)): adding a run touches few pages, and a run's rows are
 * read in one range.
 *
 * Labels are a table rather than a JSON column: the same index serves
 * `key = ? AND value = ?` on SQLite, PostgreSQL and a column store alike,
 * and a label filter is an EXISTS over it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "store/backend.h"
#include "store/store.h"

struct migration {
	const char *sqlite;
	const char *postgres;
};

/* Statements of a step are separated by ";\n". */
static const struct migration migrations[] = {
	/* 1: the first schema */
	{
		"CREATE TABLE captures (hash TEXT PRIMARY KEY, layout TEXT NOT NULL, size INTEGER NOT NULL,"
		" raw BLOB NOT NULL) WITHOUT ROWID;\n"
		"CREATE TABLE runs (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, time TEXT NOT NULL,"
		" capture TEXT REFERENCES captures(hash), run_index INTEGER, source TEXT,"
		" duration_s REAL, command TEXT, host TEXT, cpu TEXT, perf_version TEXT, tdkit_version TEXT NOT NULL,"
		" summary TEXT, UNIQUE (capture, run_index));\n"
		"CREATE INDEX runs_time ON runs (time, seq);\n"
		"CREATE TABLE labels (run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, key TEXT NOT NULL,"
		" value TEXT NOT NULL, PRIMARY KEY (run_id, key)) WITHOUT ROWID;\n"
		"CREATE INDEX labels_key_value ON labels (key, value);\n"
		"CREATE TABLE counters (run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, ord INTEGER NOT NULL,"
		" interval_s REAL, scope TEXT NOT NULL, pmu TEXT NOT NULL, name TEXT NOT NULL, value REAL, enabled_pct REAL,"
		" variance_pct REAL, PRIMARY KEY (run_id, ord)) WITHOUT ROWID;\n"
		"CREATE TABLE metrics (run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, ord INTEGER NOT NULL,"
		" interval_s REAL, scope TEXT NOT NULL, pmu TEXT NOT NULL, name TEXT NOT NULL, value REAL, unit TEXT NOT NULL,"
		" better TEXT NOT NULL, level INTEGER NOT NULL, verdict TEXT NOT NULL, confidence REAL, variance_pct REAL,"
		" on_path INTEGER NOT NULL, source TEXT NOT NULL, PRIMARY KEY (run_id, ord)) WITHOUT ROWID;\n"
		"CREATE INDEX metrics_name_value ON metrics (name, value)",

		"CREATE TABLE captures (hash TEXT PRIMARY KEY, layout TEXT NOT NULL, size BIGINT NOT NULL,"
		" raw BYTEA NOT NULL);\n"
		"CREATE TABLE runs (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, id TEXT NOT NULL UNIQUE,"
		" time TEXT NOT NULL, capture TEXT REFERENCES captures(hash), run_index INTEGER,"
		" source TEXT, duration_s DOUBLE PRECISION, command TEXT, host TEXT, cpu TEXT, perf_version TEXT,"
		" tdkit_version TEXT NOT NULL, summary TEXT, UNIQUE (capture, run_index));\n"
		"CREATE INDEX runs_time ON runs (time, seq);\n"
		"CREATE TABLE labels (run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, key TEXT NOT NULL,"
		" value TEXT NOT NULL, PRIMARY KEY (run_id, key));\n"
		"CREATE INDEX labels_key_value ON labels (key, value);\n"
		"CREATE TABLE counters (run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
		" ord INTEGER NOT NULL, interval_s DOUBLE PRECISION, scope TEXT NOT NULL, pmu TEXT NOT NULL, name TEXT NOT NULL,"
		" value DOUBLE PRECISION, enabled_pct DOUBLE PRECISION, variance_pct DOUBLE PRECISION,"
		" PRIMARY KEY (run_id, ord));\n"
		"CREATE TABLE metrics (run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
		" ord INTEGER NOT NULL, interval_s DOUBLE PRECISION, scope TEXT NOT NULL, pmu TEXT NOT NULL, name TEXT NOT NULL,"
		" value DOUBLE PRECISION, unit TEXT NOT NULL, better TEXT NOT NULL, level INTEGER NOT NULL, verdict TEXT NOT NULL,"
		" confidence DOUBLE PRECISION, variance_pct DOUBLE PRECISION, on_path INTEGER NOT NULL,"
		" source TEXT NOT NULL, PRIMARY KEY (run_id, ord));\n"
		"CREATE INDEX metrics_name_value ON metrics (name, value)",
	},
};

int store_schema_latest(void) { return (int)(sizeof migrations / sizeof *migrations); }

static int version_row(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	(void)lens;
	if (n > 0 && cols[0])
		*(int *)ctx = atoi(cols[0]);
	return 1;
}

static int table_exists(void *ctx, int n, const char *const *cols, const size_t *lens)
{
	(void)n;
	(void)cols;
	(void)lens;
	*(int *)ctx = 1;
	return 1;
}

int store_schema_version(struct store_backend *b)
{
	int exists = 0, version = 0;
	const char *probe = b->dialect == STORE_SQLITE
		? "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'td_schema'"
		: "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = 'td_schema'";
	if (b->ops->exec(b, probe, NULL, 0, table_exists, &exists) < 0)
		return -1;
	if (!exists)
		return 0;
	if (b->ops->exec(b, "SELECT version FROM td_schema", NULL, 0, version_row, &version) < 0)
		return -1;
	return version;
}

/* Runs each ";\n"-separated statement of a step. */
static int run_step(struct store_backend *b, const char *ddl)
{
	char *copy = strdup(ddl), *save = NULL;
	int rc = 0;
	for (char *st = copy;; st = NULL) {
		char *tok = strtok_r(st, ";", &save);
		if (!tok)
			break;
		if (b->ops->exec(b, tok, NULL, 0, NULL, NULL) < 0) {
			rc = -1;
			break;
		}
	}
	free(copy);
	return rc;
}

int store_schema_migrate(struct store_backend *b, int *from, int *to)
{
	int latest = store_schema_latest();
	if (b->ops->begin(b) < 0)
		return -1;
	/* Read inside the write transaction: two first uses at once migrate once. */
	if (b->dialect == STORE_POSTGRES &&
	    b->ops->exec(b, "SELECT pg_advisory_xact_lock(727384)", NULL, 0, NULL, NULL) < 0)
		goto fail;
	int version = store_schema_version(b);
	*from = version;
	*to = version;
	if (version < 0)
		goto fail;
	if (version > latest) {
		b->ops->rollback(b);
		snprintf(b->error, sizeof b->error,
			 "the database has schema version %d, newer than this tdkit's %d: upgrade tdkit (td-store --version)",
			 version, latest);
		return -2;
	}
	if (version == 0 && run_step(b, "CREATE TABLE td_schema (version INTEGER NOT NULL);\n"
					"INSERT INTO td_schema (version) VALUES (0)") < 0)
		goto fail;
	for (int v = version; v < latest; v++) {
		const struct migration *m = &migrations[v];
		if (run_step(b, b->dialect == STORE_SQLITE ? m->sqlite : m->postgres) < 0)
			goto fail;
	}
	if (latest != version) {
		struct store_value p = SV_I(latest);
		if (b->ops->exec(b, "UPDATE td_schema SET version = ?", &p, 1, NULL, NULL) < 0)
			goto fail;
	}
	if (b->ops->commit(b) < 0)
		goto fail;
	*to = latest;
	return 0;
fail:
	{
		char saved[sizeof b->error];
		memcpy(saved, b->error, sizeof saved);
		b->ops->rollback(b);
		memcpy(b->error, saved, sizeof saved);
	}
	return -1;
}
