/* Label filters and time windows (filter.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/diag.h"
#include "common/grow.h"
#include "store/filter.h"
#include "store/store.h"

/* A shell pattern as a POSIX regular expression (PostgreSQL's `~`). */
static char *glob_to_regex(const char *g)
{
	size_t n = strlen(g), o = 0;
	char *r = td_malloc(n * 2 + 3);
	r[o++] = '^';
	for (size_t i = 0; i < n; i++) {
		char c = g[i];
		if (c == '*')
			r[o++] = '.', r[o++] = '*';
		else if (c == '?')
			r[o++] = '.';
		else if (c == '[' || c == ']' || c == '-' || c == '^')
			r[o++] = c;           /* a class is a class in both */
		else if (strchr(".\\+()|{}$", c))
			r[o++] = '\\', r[o++] = c;
		else
			r[o++] = c;
	}
	r[o++] = '$';
	r[o] = 0;
	return r;
}

const char *store_label_invalid(const char *key, size_t keylen, const char *value, size_t valuelen)
{
	if (keylen == 0)
		return "a label needs a key (key=value)";
	if (keylen > STORE_LABEL_KEY_MAX)
		return "a label key is at most 128 characters";
	for (size_t i = 0; i < keylen; i++) {
		unsigned char c = (unsigned char)key[i];
		if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') && c != '_' &&
		    c != '.' && c != '-')
			return "a label key has only letters, digits, '_', '.' and '-'";
	}
	if (valuelen > STORE_LABEL_VALUE_MAX)
		return "a label value is at most 1024 bytes";
	for (size_t i = 0; i < valuelen; i++)
		if (value[i] == 0)
			return "a label value has no NUL byte";
	return NULL;
}

static void add_term(struct store_filter *f, enum filter_op op, const char *key, size_t klen, const char *value,
		     size_t vlen)
{
	TD_ALLOC_GROW(f->terms, f->n + 1, f->cap);
	struct filter_term *t = &f->terms[f->n++];
	*t = (struct filter_term){ op, td_strndup(key, klen), value ? td_strndup(value, vlen) : NULL, NULL };
	if (op == FILTER_GLOB)
		t->regex = glob_to_regex(t->value);
}

/* One term, "k=v" "k!=v" "k~glob" "k", its `\,` already unescaped. */
static int parse_term(struct store_filter *f, const char *t, size_t len, char *err, size_t errlen)
{
	size_t k = 0;
	while (k < len && t[k] != '=' && t[k] != '~' && !(t[k] == '!' && k + 1 < len && t[k + 1] == '='))
		k++;
	enum filter_op op = k == len ? FILTER_HAS : t[k] == '=' ? FILTER_EQ : t[k] == '~' ? FILTER_GLOB : FILTER_NE;
	size_t vstart = k == len ? len : k + (op == FILTER_NE ? 2 : 1);
	const char *why = store_label_invalid(t, k, t + vstart, len - vstart);
	if (why) {
		snprintf(err, errlen, "--label '%.*s': %s", (int)len, t, why);
		return -1;
	}
	add_term(f, op, t, k, op == FILTER_HAS ? NULL : t + vstart, len - vstart);
	return 0;
}

int store_filter_add_labels(struct store_filter *f, const char *arg, char *err, size_t errlen)
{
	size_t n = strlen(arg), o = 0;
	char *term = td_malloc(n + 1);
	for (size_t i = 0; i <= n; i++) {
		if (i < n && arg[i] == '\\' && i + 1 < n && arg[i + 1] == ',') {
			term[o++] = ',';
			i++;
			continue;
		}
		if (i == n || arg[i] == ',') {
			if (parse_term(f, term, o, err, errlen) < 0) {
				free(term);
				return -1;
			}
			o = 0;
			continue;
		}
		term[o++] = arg[i];
	}
	free(term);
	return 0;
}

static void iso_from_epoch(time_t t, char *buf, size_t cap)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void store_time_now(char *buf, size_t cap) { iso_from_epoch(time(NULL), buf, cap); }

int store_filter_set_time(char *bound, size_t cap, const char *arg, char *err, size_t errlen)
{
	char *end;
	long n = strtol(arg, &end, 10);
	if (end != arg && n >= 0 && end[0] && !end[1] && strchr("mhdw", end[0])) {
		long unit = end[0] == 'm' ? 60 : end[0] == 'h' ? 3600 : end[0] == 'd' ? 86400 : 7 * 86400;
		if (n > 10000L * 366 * 86400 / unit) {          /* 10,000 years: also keeps n * unit in range */
			snprintf(err, errlen, "'%s' reaches back more than 10,000 years", arg);
			return -1;
		}
		iso_from_epoch(time(NULL) - n * unit, bound, cap);
		return 0;
	}
	struct tm tm = { 0 };
	const char *rest = strptime(arg, "%Y-%m-%d", &tm);
	if (rest && *rest == 0) {
		snprintf(bound, cap, "%.10sT00:00:00Z", arg);
		return 0;
	}
	if (rest && (*rest == 'T' || *rest == ' ')) {
		const char *r2 = strptime(rest + 1, "%H:%M:%S", &tm);
		if (r2 && (*r2 == 0 || (r2[0] == 'Z' && r2[1] == 0))) {
			strftime(bound, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
			return 0;
		}
	}
	snprintf(err, errlen, "'%s' is not a time: use 7d, 12h, 30m, 2w, 2026-11-01 or 2026-11-01T12:00:00Z", arg);
	return -1;
}

int store_time_from_perf(const char *started_on, char *buf, size_t cap)
{
	/* perf: "Wed Nov 25 15:08:12 2026" (ctime, the recording host's local time) */
	struct tm tm = { 0 };
	const char *rest = strptime(started_on, "%a %b %d %H:%M:%S %Y", &tm);
	if (!rest)
		return 0;
	strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return 1;
}

void store_filter_free(struct store_filter *f)
{
	for (int i = 0; i < f->n; i++) {
		free(f->terms[i].key);
		free(f->terms[i].value);
		free(f->terms[i].regex);
	}
	free(f->terms);
	f->terms = NULL;
	f->n = f->cap = 0;
}

static void append(char *sql, size_t cap, const char *s)
{
	size_t used = strlen(sql);
	snprintf(sql + used, cap - used, "%s", s);
}

/* The first term that needs a label drives the query: the runs that have
 * it come from the (key, value) index; every other term is then a lookup
 * of one run's label by the primary key (run_id, key). */
void store_filter_sql(const struct store_filter *f, enum store_dialect d, char *sql, size_t cap,
		      struct store_value *params, int *np, int max)
{
	bool driven = false;
	for (int i = 0; i < f->n && *np + 2 <= max; i++) {
		const struct filter_term *t = &f->terms[i];
		bool drive = !driven && t->op != FILTER_NE;
		driven |= drive;
		append(sql, cap, t->op == FILTER_NE ? " AND NOT EXISTS (SELECT 1 FROM labels l WHERE l.run_id = r.id AND"
			       : drive ? " AND r.id IN (SELECT l.run_id FROM labels l WHERE"
			       : " AND EXISTS (SELECT 1 FROM labels l WHERE l.run_id = r.id AND");
		params[(*np)++] = SV_STR(t->key);
		switch (t->op) {
		case FILTER_HAS:
			append(sql, cap, " l.key = ?)");
			break;
		case FILTER_EQ:
		case FILTER_NE:
			append(sql, cap, " l.key = ? AND l.value = ?)");
			params[(*np)++] = SV_STR(t->value);
			break;
		case FILTER_GLOB:
			append(sql, cap, d == STORE_SQLITE ? " l.key = ? AND l.value GLOB ?)" : " l.key = ? AND l.value ~ ?)");
			params[(*np)++] = SV_STR(d == STORE_SQLITE ? t->value : t->regex);
			break;
		}
	}
	if (f->since[0] && *np < max) {
		append(sql, cap, " AND r.time >= ?");
		params[(*np)++] = SV_STR(f->since);
	}
	if (f->until[0] && *np < max) {
		append(sql, cap, " AND r.time <= ?");
		params[(*np)++] = SV_STR(f->until);
	}
}
