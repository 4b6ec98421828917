/* The SQLite backend: one file, WAL mode so readers never wait for the
 * writer, a busy timeout so concurrent writers queue instead of failing,
 * and prepared statements kept by their SQL text (the store runs the same
 * few statements for every run it adds). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/diag.h"
#include "store/backend.h"

#define STMT_CACHE 48
#define BUSY_TIMEOUT_MS 60000

struct cached_stmt {
	char *sql;
	sqlite3_stmt *stmt;
};

struct sqlite_backend {
	struct store_backend base;
	sqlite3 *db;
	bool wrote;                /* a transaction committed: the statistics may be stale */
	struct cached_stmt cache[STMT_CACHE];
	int ncache, next_evict;
};

static void set_error(struct sqlite_backend *b, const char *what)
{
	const char *msg = sqlite3_errmsg(b->db);
	int code = sqlite3_extended_errcode(b->db);
	if (code == SQLITE_READONLY || (code & 0xff) == SQLITE_READONLY)
		msg = "the database is read-only";
	else if ((code & 0xff) == SQLITE_NOTADB)
		msg = "not an SQLite database (or a corrupt one)";
	else if ((code & 0xff) == SQLITE_CORRUPT)
		msg = "the database file is corrupt";
	snprintf(b->base.error, sizeof b->base.error, "%s%s%s", what ? what : "", what ? ": " : "", msg);
}

static sqlite3_stmt *prepared(struct sqlite_backend *b, const char *sql)
{
	for (int i = 0; i < b->ncache; i++)
		if (strcmp(b->cache[i].sql, sql) == 0) {
			sqlite3_reset(b->cache[i].stmt);
			sqlite3_clear_bindings(b->cache[i].stmt);
			return b->cache[i].stmt;
		}
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(b->db, sql, -1, &st, NULL) != SQLITE_OK) {
		set_error(b, NULL);
		return NULL;
	}
	struct cached_stmt *slot;
	if (b->ncache < STMT_CACHE) {
		slot = &b->cache[b->ncache++];
	} else {                           /* full: replace in turn */
		slot = &b->cache[b->next_evict];
		b->next_evict = (b->next_evict + 1) % STMT_CACHE;
		sqlite3_finalize(slot->stmt);
		free(slot->sql);
	}
	slot->sql = td_strndup(sql, strlen(sql));
	slot->stmt = st;
	return st;
}

static int bind_all(struct sqlite_backend *b, sqlite3_stmt *st, const struct store_value *p, int n)
{
	for (int i = 0; i < n; i++) {
		int rc;
		switch (p[i].type) {
		case SV_NULL: rc = sqlite3_bind_null(st, i + 1); break;
		case SV_TEXT: rc = sqlite3_bind_text(st, i + 1, p[i].s, (int)p[i].len, SQLITE_STATIC); break;
		case SV_INT: rc = sqlite3_bind_int64(st, i + 1, p[i].i); break;
		case SV_REAL: rc = sqlite3_bind_double(st, i + 1, p[i].d); break;
		case SV_BLOB: rc = sqlite3_bind_blob(st, i + 1, p[i].s, (int)p[i].len, SQLITE_STATIC); break;
		default: rc = SQLITE_MISUSE;
		}
		if (rc != SQLITE_OK) {
			set_error(b, "binding a parameter");
			return -1;
		}
	}
	return 0;
}

static int step_rows(struct sqlite_backend *b, sqlite3_stmt *st, store_row_fn fn, void *ctx)
{
	for (;;) {
		int rc = sqlite3_step(st);
		if (rc == SQLITE_DONE)
			break;
		if (rc != SQLITE_ROW) {
			set_error(b, NULL);
			sqlite3_reset(st);
			return -1;
		}
		if (!fn)
			continue;
		int n = sqlite3_column_count(st);
		const char *cols[64];
		size_t lens[64];
		char reals[64][32];
		if (n > 64)
			n = 64;
		for (int i = 0; i < n; i++) {
			if (sqlite3_column_type(st, i) == SQLITE_FLOAT) {
				/* SQLite's own text has 15 digits: give every digit the double has */
				lens[i] = (size_t)snprintf(reals[i], sizeof reals[i], "%.17g", sqlite3_column_double(st, i));
				cols[i] = reals[i];
				continue;
			}
			cols[i] = (const char *)sqlite3_column_text(st, i);
			lens[i] = (size_t)sqlite3_column_bytes(st, i);
		}
		if (fn(ctx, n, cols, lens))
			break;
	}
	sqlite3_reset(st);
	return 0;
}

static int sqlite_exec(struct store_backend *base, const char *sql, const struct store_value *params, int nparams,
		       store_row_fn fn, void *ctx)
{
	struct sqlite_backend *b = (struct sqlite_backend *)base;
	sqlite3_stmt *st = prepared(b, sql);
	if (!st || bind_all(b, st, params, nparams) < 0)
		return -1;
	return step_rows(b, st, fn, ctx);
}

static int sqlite_load(struct store_backend *base, const char *table, const char *const *cols, int ncols,
		       const struct store_value *values, size_t nrows)
{
	struct sqlite_backend *b = (struct sqlite_backend *)base;
	char sql[1024];
	int len = snprintf(sql, sizeof sql, "INSERT INTO %s (", table);
	for (int i = 0; i < ncols; i++)
		len += snprintf(sql + len, sizeof sql - (size_t)len, "%s%s", i ? ", " : "", cols[i]);
	len += snprintf(sql + len, sizeof sql - (size_t)len, ") VALUES (");
	for (int i = 0; i < ncols; i++)
		len += snprintf(sql + len, sizeof sql - (size_t)len, "%s?", i ? ", " : "");
	snprintf(sql + len, sizeof sql - (size_t)len, ")");
	sqlite3_stmt *st = prepared(b, sql);
	if (!st)
		return -1;
	for (size_t r = 0; r < nrows; r++) {
		sqlite3_reset(st);
		if (bind_all(b, st, values + r * (size_t)ncols, ncols) < 0 || step_rows(b, st, NULL, NULL) < 0)
			return -1;
	}
	return 0;
}

static int run_plain(struct sqlite_backend *b, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(b->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		set_error(b, NULL);
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* A statement without parameters or rows, prepared once (BEGIN and COMMIT
 * run once per added file). */
static int run_cached(struct sqlite_backend *b, const char *sql)
{
	sqlite3_stmt *st = prepared(b, sql);
	return st ? step_rows(b, st, NULL, NULL) : -1;
}

/* IMMEDIATE takes the write lock now, so two writers never both read and
 * then fail to upgrade; the busy timeout makes the second one wait. */
static int sqlite_begin(struct store_backend *base) { return run_cached((struct sqlite_backend *)base, "BEGIN IMMEDIATE"); }
static int sqlite_commit(struct store_backend *base)
{
	struct sqlite_backend *b = (struct sqlite_backend *)base;
	int rc = run_cached(b, "COMMIT");
	b->wrote |= rc == 0;
	return rc;
}

static sqlite3_int64 scalar(struct sqlite_backend *b, const char *sql)
{
	sqlite3_stmt *st;
	sqlite3_int64 v = 0;
	if (sqlite3_prepare_v2(b->db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The planner needs statistics to start a label filter from the label
 * index rather than from a metric's name: without them a trend over
 * 11,000 of 100,000 runs took 0.25 s, with them 0.07 s. They are gathered
 * (sampled: analysis_limit) when the store has grown to twice the runs it
 * had when they were last gathered. */
static void refresh_statistics(struct sqlite_backend *b)
{
	sqlite3_int64 runs = scalar(b, "SELECT count(*) FROM runs");
	sqlite3_int64 known = scalar(b, "SELECT CAST(stat AS INTEGER) FROM sqlite_stat1 WHERE tbl = 'runs' LIMIT 1");
	if (runs >= 1000 && runs > 2 * known)
		sqlite3_exec(b->db, "PRAGMA analysis_limit = 400; ANALYZE", NULL, NULL, NULL);
}
static int sqlite_rollback(struct store_backend *base)
{
	struct sqlite_backend *b = (struct sqlite_backend *)base;
	return sqlite3_get_autocommit(b->db) ? 0 : run_plain(b, "ROLLBACK");
}

static void sqlite_close(struct store_backend *base)
{
	struct sqlite_backend *b = (struct sqlite_backend *)base;
	if (b->wrote)
		refresh_statistics(b);
	for (int i = 0; i < b->ncache; i++) {
		sqlite3_finalize(b->cache[i].stmt);
		free(b->cache[i].sql);
	}
	sqlite3_close(b->db);
	free(b);
}

static const struct store_backend_ops sqlite_ops = {
	sqlite_exec, sqlite_load, sqlite_begin, sqlite_commit, sqlite_rollback, sqlite_close,
};

struct store_backend *store_sqlite_open(const char *path, char *err, size_t errlen)
{
	struct sqlite_backend *b = td_calloc(1, sizeof *b);
	b->base.ops = &sqlite_ops;
	b->base.dialect = STORE_SQLITE;
	b->base.name = "sqlite";
	snprintf(b->base.where, sizeof b->base.where, "%s", path);
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
	if (sqlite3_open_v2(path, &b->db, flags, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot open: %s", path, b->db ? sqlite3_errmsg(b->db) : "out of memory");
		sqlite3_close(b->db);
		free(b);
		return NULL;
	}
	b->base.read_only = sqlite3_db_readonly(b->db, "main") == 1;
	sqlite3_busy_timeout(b->db, BUSY_TIMEOUT_MS);
	/* reads of a large store go through the page cache of the kernel, not
	 * one pread a 1 KiB page */
	sqlite3_exec(b->db, "PRAGMA mmap_size = 1073741824; PRAGMA cache_size = -16384", NULL, NULL, NULL);
	sqlite3_extended_result_codes(b->db, 1);
	/* The first statement reads the header: a corrupt or foreign file fails here. */
	if (run_plain(b, "PRAGMA foreign_keys = ON") < 0 ||
	    sqlite3_exec(b->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) != SQLITE_OK) {
		set_error(b, NULL);
		snprintf(err, errlen, "%s: %s", path, b->base.error);
		sqlite_close(&b->base);
		return NULL;
	}
	if (!b->base.read_only) {
		/* a new file: small pages, since a run writes a few rows to each of
		 * several tables and indexes, and each commit writes every page it
		 * touched to the WAL (no effect on an existing database) */
		run_plain(b, "PRAGMA page_size = 1024");
		/* journal_mode needs a moment of exclusive access: a concurrent
		 * opener may hold it briefly */
		for (int tries = 0; tries < 200; tries++) {
			if (sqlite3_exec(b->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) == SQLITE_OK)
				break;
			usleep(5000);
		}
		run_plain(b, "PRAGMA synchronous = NORMAL");
		/* commits are not synced (NORMAL); a checkpoint is, twice: at
		 * SQLite's default of 1,000 pages an add of many files spent more
		 * time waiting for the disk than working. 10,000 pages (10 MiB at
		 * 1 KiB) checkpoint a tenth as often, and a page changed by many
		 * commits is written back once. */
		run_plain(b, "PRAGMA wal_autocheckpoint = 10000");
	}
	return &b->base;
}
