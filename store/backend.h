/* The run store's backend interface: the few things the store asks of a
 * database, so that a backend is one file (sqlite.c, postgres.c; a column
 * store for fleets would be a third).
 *
 * SQL is written once, in the dialect both speak, with `?` placeholders;
 * a backend rewrites them as its own (`$1` for PostgreSQL). Values reach
 * SQL only as bound parameters, never spliced into the text. Where the
 * dialects differ (DDL, a bulk load), the store asks store_backend.dialect.
 *
 * Bulk rows (counters, metrics: hundreds per run) go through `load`, which
 * a backend implements its fastest way: a cached prepared statement
 * (SQLite) or COPY (PostgreSQL, one round trip for all rows). */
#ifndef TD_STORE_BACKEND_H
#define TD_STORE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

enum store_dialect { STORE_SQLITE, STORE_POSTGRES };

enum store_type { SV_NULL, SV_TEXT, SV_INT, SV_REAL, SV_BLOB };

/* One parameter or one result cell. Text and blobs point at the caller's
 * (parameters) or the backend's (results: valid during the callback) bytes. */
struct store_value {
	enum store_type type;
	const char *s;             /* SV_TEXT, SV_BLOB; results: NUL-terminated text */
	size_t len;
	long long i;
	double d;
};

#define SV_STR(str) ((struct store_value){ .type = (str) ? SV_TEXT : SV_NULL, .s = (str), .len = (str) ? strlen(str) : 0 })
#define SV_I(v) ((struct store_value){ .type = SV_INT, .i = (v) })
#define SV_D(v) ((struct store_value){ .type = SV_REAL, .d = (v) })

/* A result row: cols[i] is NULL for SQL NULL, else the value as text. */
typedef int (*store_row_fn)(void *ctx, int ncols, const char *const *cols, const size_t *lens);

struct store_backend;
struct store_backend_ops {
	/* Runs one statement; rows (if any) go to fn (fn may be NULL). fn
	 * returning non-zero stops the query. Returns 0, or -1 with the
	 * backend's message in b->error. */
	int (*exec)(struct store_backend *b, const char *sql, const struct store_value *params, int nparams,
		    store_row_fn fn, void *ctx);
	/* Appends rows to a table: ncols values per row, nrows rows. */
	int (*load)(struct store_backend *b, const char *table, const char *const *cols, int ncols,
		    const struct store_value *values, size_t nrows);
	int (*begin)(struct store_backend *b);   /* a write transaction, waited for when busy */
	int (*commit)(struct store_backend *b);
	int (*rollback)(struct store_backend *b);
	void (*close)(struct store_backend *b);
};

struct store_backend {
	const struct store_backend_ops *ops;
	enum store_dialect dialect;
	const char *name;          /* "sqlite", "postgresql" */
	char where[512];           /* the file or the server, for messages (no password) */
	char error[512];           /* the last failure, one line */
	char conflict[64];         /* the last failure's unique constraint when that was the cause, "deadlock" for one; else "" */
	bool read_only;
	bool remote;               /* a statement whose result is awaited costs a round trip to a server */
};

/* Opens a backend; NULL with the reason in err (one line) when it cannot. */
struct store_backend *store_sqlite_open(const char *path, char *err, size_t errlen);
struct store_backend *store_postgres_open(const char *conninfo, char *err, size_t errlen);

#endif
