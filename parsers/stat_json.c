/* perf stat -j: one flat JSON object per line. Tolerates what real perf
 * printed: numbers as strings, "nan"/"none", a trailing ", }", the 2021
 * runtime field, and --metric-only objects of {"unit" : "value"}. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "stat.h"

#define MAX_KEYS 64

struct kv {
	char *key, *val;
	bool quoted;
};

struct stat_json {
	char *buf;
	size_t cap;
	bool decimal_comma, warned;     /* perf ran under a comma locale */
	char group[256];                /* the event of the metric group being printed, or "" */
};

struct stat_json *stat_json_new(void) { return td_calloc(1, sizeof(struct stat_json)); }

void stat_json_free(struct stat_json *j)
{
	if (!j)
		return;
	free(j->buf);
	free(j);
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

/* A string body into out (escapes decoded); returns the char after the quote. */
static const char *read_string(const char *p, const char *end, char **out)
{
	char *w = *out;
	for (p++; p < end && *p != '"'; p++) {
		if (*p == '\\' && p + 1 < end) {
			p++;
			*w++ = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
		} else {
			*w++ = *p;
		}
	}
	*w++ = '\0';
	*out = w;
	return p < end ? p + 1 : NULL;
}

/* Parses {"k" : v, ...}; false on a malformed object. */
static int parse_object(struct stat_json *j, const char *s, size_t n, struct kv *kv)
{
	if (j->cap < 2 * n + 16) {
		j->cap = 2 * n + 16;
		j->buf = td_realloc(j->buf, j->cap);
	}
	char *w = j->buf;
	const char *p = skip_ws(s, s + n), *end = s + n;
	if (p == end || *p != '{')
		return -1;
	int nkv = 0;
	p = skip_ws(p + 1, end);
	while (p < end && *p != '}') {
		if (*p != '"' || nkv == MAX_KEYS)
			return -1;
		kv[nkv].key = w;
		if (!(p = read_string(p, end, &w)))
			return -1;
		p = skip_ws(p, end);
		if (p == end || *p != ':')
			return -1;
		p = skip_ws(p + 1, end);
		kv[nkv].val = w;
		kv[nkv].quoted = p < end && *p == '"';
		if (kv[nkv].quoted) {
			if (!(p = read_string(p, end, &w)))
				return -1;
		} else {
			const char *v = p;
			/* a comma followed by a digit is a decimal comma: perf under
			 * a comma locale prints "100,00", which is not JSON */
			while (p < end && *p != '}' && (*p != ',' || (p + 1 < end && p[1] >= '0' && p[1] <= '9'))) {
				j->decimal_comma |= *p == ',';
				p++;
			}
			size_t vn = (size_t)(p - v);
			while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
				vn--;
			memcpy(w, v, vn);
			w[vn] = '\0';
			w += vn + 1;
		}
		nkv++;
		p = skip_ws(p, end);
		if (p < end && *p == ',')
			p = skip_ws(p + 1, end);      /* also takes the bad ", }" */
	}
	return p < end ? nkv : -1;
}

static bool num(const char *s, double *out)
{
	if (strcmp(s, "nan") == 0 || strcmp(s, "-nan") == 0) {
		*out = NAN;
		return true;
	}
	return stat_parse_number_comma(s, strlen(s), out);
}

static const char *const scope_keys[] = { "cpu", "core", "die", "socket", "node", "thread", "cache", "cluster", NULL };

/* An object perf printed: one of its keys, or only --metric-only keys
 * whose values are numbers, "none" or "" ({"CPUs  CPUs_utilized" : "none"});
 * another program's JSON ({"name": "BM_copy", "iterations": 1000}) is not. */
static bool is_perf_object(const struct kv *kv, int n)
{
	static const char *const perf_keys[] = { "interval", "counter-value", "unit", "event", "variance",
						  "event-runtime", "pcnt-running", "metric-value", "metric-unit",
						  "metric-threshold", "metricgroup", "aggregate-number", "counters",
						  "cgroup", NULL };
	for (int i = 0; i < n; i++) {
		for (const char *const *k = perf_keys; *k; k++)
			if (strcmp(kv[i].key, *k) == 0)
				return true;
		for (const char *const *k = scope_keys; *k; k++)
			if (strcmp(kv[i].key, *k) == 0)
				return true;
	}
	for (int i = 0; i < n; i++) {
		double v;
		if (kv[i].val[0] && strcmp(kv[i].val, "none") != 0 && !num(kv[i].val, &v))
			return false;
	}
	return true;
}

bool stat_json_line(struct stat_json *j, const char *line, size_t len, const char *file,
		    unsigned long lineno, stat_emit_fn emit, void *ctx)
{
	struct kv kv[MAX_KEYS];
	int n = parse_object(j, line, len, kv);
	if (n < 0 || !is_perf_object(kv, n))
		return false;
	if (j->decimal_comma && !j->warned) {
		td_warn(file, lineno, "decimal commas: perf ran under a comma locale and printed invalid JSON; "
			"read as decimals (run perf with LC_ALL=C to avoid this)");
		j->warned = true;
	}
	struct stat_record r;
	stat_record_init(&r, file, lineno);
	r.event = j->group;             /* a metric printed without its event is its group's */
	bool has_counter = false, has_metric_key = false;
	for (int i = 0; i < n; i++) {
		const char *k = kv[i].key, *v = kv[i].val;
		if (strcmp(k, "interval") == 0) {
			num(v, &r.interval);
		} else if (strcmp(k, "counter-value") == 0) {
			has_counter = true;
			r.not_counted = strcmp(v, "<not counted>") == 0;
			r.not_supported = strcmp(v, "<not supported>") == 0;
			if (!r.not_counted && !r.not_supported && !num(v, &r.value))
				td_bad_input(file, lineno, "counter-value \"%s\" is not a number", v);
		} else if (strcmp(k, "unit") == 0) {
			r.unit = v;
		} else if (strcmp(k, "event") == 0) {
			r.event = v;
		} else if (strcmp(k, "variance") == 0) {
			num(v, &r.variance_pct);
		} else if (strcmp(k, "event-runtime") == 0) {
			/* the run time: not kept; the enabled percentage says how much of it counted */
		} else if (strcmp(k, "pcnt-running") == 0) {
			num(v, &r.enabled_pct);
		} else if (strcmp(k, "metric-value") == 0) {
			has_metric_key = true;
			if (!num(v, &r.metric_value))
				r.metric_value = NAN;
		} else if (strcmp(k, "metric-unit") == 0) {
			r.metric_unit = v;
		} else if (strcmp(k, "metric-threshold") == 0) {
			r.threshold = v;
		} else if (strcmp(k, "metricgroup") == 0) {
			/* its metrics follow, without an event: they are the group's */
			stat_group_event(v, strlen(v), j->group, sizeof j->group);
		} else if (strcmp(k, "aggregate-number") == 0 ||
			   strcmp(k, "counters") == 0 || strcmp(k, "cgroup") == 0) {
			continue;
		} else {
			bool is_scope = false;
			for (const char *const *s = scope_keys; *s; s++)
				if (strcmp(k, *s) == 0)
					is_scope = true;
			if (is_scope) {
				r.scope = v;
			} else if (!has_counter) {
				/* --metric-only: {"unit" : "value"} */
				struct stat_record m = r;
				m.kind = STAT_METRIC;
				m.metric_unit = k;
				if (num(v, &m.metric_value) && !isnan(m.metric_value))
					emit(ctx, &m);
			}
		}
	}
	if (has_counter) {
		r.kind = STAT_COUNTER;
		emit(ctx, &r);
		j->group[0] = '\0';
	}
	if (has_metric_key && r.metric_unit[0] && !isnan(r.metric_value)) {
		r.kind = STAT_METRIC;
		r.again = has_counter && r.event != j->group;   /* the counter just emitted, unchanged */
		emit(ctx, &r);
	}
	return true;
}
