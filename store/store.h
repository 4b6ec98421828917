/* The run store: perf stat runs kept with their labels, counters, metrics,
 * Top-down nodes and the raw capture, on SQLite (a file, the default) or
 * PostgreSQL (a team's server), behind one interface (backend.h).
 *
 * The store persists what it is given; what a capture derives to comes
 * from the derive engine, never from here. One added file is one
 * transaction: a run and all its rows are there, or none of them.
 *
 * Run ids are short, unique and sort by run time:
 * "20261125-150812-3fa9c2" (UTC time of the run, then six hex digits of
 * the hash of its capture and its place in the capture). */
#ifndef TD_STORE_H
#define TD_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include "store/backend.h"

#define STORE_ID_LEN 24            /* with the NUL */
#define STORE_LABEL_KEY_MAX 128
#define STORE_LABEL_VALUE_MAX 1024

struct td_store {
	struct store_backend *b;
	bool assume_new;           /* the capture being added is taken as new: its runs are not looked up */
	char adding[33];           /* the hash of the capture being added */
	char seen[1024][33];       /* captures known stored (direct-mapped by hash): their runs are looked up */
	bool repeats;              /* the last capture proved stored: the next is looked up too (a folder added again) */
	bool batching;             /* store_batch_begin: files share one transaction until store_batch_commit */
	bool open;                 /* a transaction is open */
	bool assumed;              /* the open transaction took some capture as new */
	bool lookup;               /* a batch is being added again: every capture's runs are looked up */
	bool serialize;            /* a batch of this add deadlocked: its transactions queue behind one lock */
};

#define STORE_RETRY (-2)           /* store_add_end: the file must be added again (store_add_begin says how) */

/* The database a URL names: NULL or "" means $TD_DB, else
 * $XDG_DATA_HOME/tdkit/runs.db (~/.local/share/tdkit/runs.db), its folder
 * created. "postgresql://...", "postgres://..." and libpq's "key=value"
 * conninfo go to PostgreSQL; anything else is an SQLite file. The schema
 * is created or upgraded on open; a newer schema is refused. NULL with a
 * one-line reason in err. */
struct td_store *store_open(const char *url, char *err, size_t errlen);
void store_close(struct td_store *s);
/* The URL store_open would use for NULL (into buf). */
const char *store_default_url(char *buf, size_t n);
/* Opens without migrating, for `td-store migrate` to report versions. */
struct td_store *store_open_raw(const char *url, char *err, size_t errlen);

int store_schema_latest(void);
int store_schema_version(struct store_backend *b);
/* 0 migrated (or nothing to do), -1 failed, -2 newer schema: b->error says. */
int store_schema_migrate(struct store_backend *b, int *from, int *to);

struct store_label {
	const char *key, *value;
};

/* Label keys are [A-Za-z0-9_.-]+ up to STORE_LABEL_KEY_MAX; values any
 * UTF-8 up to STORE_LABEL_VALUE_MAX bytes. NULL if fine, else why not. */
const char *store_label_invalid(const char *key, size_t keylen, const char *value, size_t valuelen);

struct store_counter_row {
	double interval_s;         /* NaN: the whole run */
	const char *scope, *pmu, *name;
	double value, enabled_pct, variance_pct;   /* NaN: not known */
};

struct store_metric_row {
	double interval_s;         /* NaN: the whole run */
	const char *scope, *pmu, *name;
	double value;
	const char *unit;
	const char *better;        /* "higher", "lower" or "": which way is an improvement */
	int level;                 /* Top-down level; 0: a metric, not a node */
	const char *verdict;       /* "", "healthy", "high", ... */
	double confidence, variance_pct;
	bool on_path;              /* on the bottleneck path */
	const char *source;        /* "tdkit", "perf", "toplev" */
};

/* One run as the derive engine saw it, ready to keep. */
struct store_run {
	const char *id;            /* NULL: made from the time and the capture (import keeps its own) */
	char time[32];             /* ISO 8601 UTC, "2026-11-25T15:08:12Z" */
	int run_index;             /* its place among the capture's runs */
	const char *source;        /* the input's name */
	double duration_s;         /* NaN: not known */
	const char *command, *host, *cpu, *perf_version, *summary;   /* NULL: not known */
	const struct store_label *labels;
	int nlabels;
	const struct store_counter_row *counters;
	size_t ncounters;
	const struct store_metric_row *metrics;
	size_t nmetrics;
};

/* The capture file the runs come from. */
struct store_capture {
	char hash[33];             /* hex XXH3-128 of the content */
	const char *layout;        /* "csv", "json", "text" */
	size_t size;               /* bytes before compression */
	const void *zstd;          /* the content, zstd-compressed */
	size_t zstd_len;
};

/* Keeps the capture (NULL: runs without one, from an import) and its runs
 * in one transaction. ids[i] receives each
 * run's id; existed[i] tells a run that was stored already (same capture,
 * same place), whose labels are then added to (a key it has keeps its
 * value unless relabel). Returns 0, or -1 with s->b->error set. */
int store_add(struct td_store *s, const struct store_capture *c, const struct store_run *runs, int nruns,
	      bool relabel, char (*ids)[STORE_ID_LEN], bool *existed);

/* store_add in steps, for a caller that has one run at a time (the derive
 * engine's callback): begin keeps the capture, each add_run one run, end
 * commits (ok) or rolls everything back. Each returns 0, -1 (b->error) or
 * STORE_RETRY (the transaction was rolled back: add the same file, or the
 * whole batch, again).
 *
 * On a server (b->remote), begin takes a capture as new and its runs as
 * new with it (a run refers to its capture, so a capture not stored has no
 * run stored): no lookup, the file's statements and its commit go in one
 * round trip, and add_run's ids are made here (existed false). If the
 * capture was stored after all (added before, or by a concurrent add), the
 * commit (or a statement after the capture's, in a batch) fails on the
 * capture's key: the transaction is rolled back, STORE_RETRY returned, and
 * the caller adds the same file (batch) again, which this time looks its
 * runs up (as it does at once for a capture this store handle stored or
 * met before, a file given twice, and after a capture that proved stored,
 * until one proves new: files added again come in a row). Ids are
 * therefore final only when the commit succeeds. */
int store_add_begin(struct td_store *s, const struct store_capture *c);
int store_add_run(struct td_store *s, const struct store_capture *c, const struct store_run *r, bool relabel,
		  char *id, bool *existed);
int store_add_end(struct td_store *s, bool ok);

/* Group commit: after store_batch_begin, the files added (store_add_begin
 * .. store_add_end, each) share one transaction, which
 * store_batch_commit commits; the runs of every file of the batch are
 * stored together, or none of them (a killed add loses the batch it was
 * in, never part of a run or of a file). store_add_end(ok) then only
 * ends the file; store_add_end(!ok) rolls the whole batch back. The
 * commit returns 0, -1 (b->error), or STORE_RETRY: a capture taken as new
 * was stored after all (or two adds deadlocked over the same captures);
 * the batch was rolled back and every one of its files must be added
 * again (their runs are then looked up), then committed again. Ids are
 * final only when the commit returns 0. Ends batching. */
void store_batch_begin(struct td_store *s);
int store_batch_commit(struct td_store *s);

/* A run's counter and metric rows appended (rederive replaces a run's rows:
 * it deletes them, then loads these, inside its own transaction). */
int store_load_rows(struct td_store *s, const char *id, const struct store_run *r);

#endif
