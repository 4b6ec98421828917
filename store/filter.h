/* Which runs a command means: label terms, a time window and a limit, as
 * the user writes them (`--label branch=main,build!=debug --since 7d`)
 * and as SQL over the runs table (labels through IN over the indexed
 * labels table, so a filter starts from the runs that have the label;
 * every value a bound parameter).
 *
 * Terms: `k=v` (has label k with value v), `k!=v` (has no label k with
 * value v: a run without k matches), `k~GLOB` (value matches the shell
 * pattern: * ? [...]), `k` (has the key). Terms are ANDed; one argument may
 * hold several separated by commas (`\,` is a comma inside a value). */
#ifndef TD_STORE_FILTER_H
#define TD_STORE_FILTER_H

#include <stddef.h>
#include "store/backend.h"

enum filter_op { FILTER_EQ, FILTER_NE, FILTER_GLOB, FILTER_HAS };

struct filter_term {
	enum filter_op op;
	char *key, *value;
	char *regex;                   /* FILTER_GLOB: the pattern as a POSIX regex */
};

struct store_filter {
	struct filter_term *terms;
	int n, cap;
	char since[32], until[32];     /* ISO 8601 UTC bounds, "" when open */
	long limit;                    /* 0: all */
};

/* Adds the terms of one --label argument; -1 with err set when malformed. */
int store_filter_add_labels(struct store_filter *f, const char *arg, char *err, size_t errlen);
/* --since/--until: "7d", "12h", "30m", "2w", a date "2026-11-01" or an ISO
 * time "2026-11-01T12:00:00Z". -1 with err set when not one of those. */
int store_filter_set_time(char *bound, size_t cap, const char *arg, char *err, size_t errlen);
void store_filter_free(struct store_filter *f);

/* Appends " AND ..." conditions on runs (aliased r) to sql, and their
 * parameters to params (*np of at most max). */
void store_filter_sql(const struct store_filter *f, enum store_dialect d, char *sql, size_t cap,
		      struct store_value *params, int *np, int max);

/* Now as ISO 8601 UTC, and a perf "# started on" date as the same (false
 * when the line does not parse). */
void store_time_now(char *buf, size_t cap);
int store_time_from_perf(const char *started_on, char *buf, size_t cap);

#endif
