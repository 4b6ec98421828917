/* perf stat's default text table, in any locale: "3,642,649,330" and
 * "3.642.649.330", "1.101,01 msec"; -I timestamps, -A/--per-* scopes,
 * "# metric" columns and continuation lines, "(xx.xx%)" multiplexing,
 * "( +- x.xx% )" variance, and the "seconds time elapsed" footer. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "stat.h"

#define MAX_TOKENS 64

struct stat_text {
	char decimal;               /* '.' or ',' once a number showed which */
	bool decimal_known;
	struct stat_last last;          /* continuation metric rows belong to it */
	char *buf;
	size_t cap;
};

struct stat_text *stat_text_new(void)
{
	struct stat_text *t = td_calloc(1, sizeof(*t));
	t->decimal = '.';
	return t;
}

void stat_text_free(struct stat_text *t)
{
	if (!t)
		return;
	stat_last_free(&t->last);
	free(t->buf);
	free(t);
}

/* Learns the locale's decimal mark from a number that shows it. */
static void learn_decimal(struct stat_text *t, const char *s, size_t n)
{
	if (t->decimal_known)
		return;
	const char *d = memrchr(s, '.', n), *c = memrchr(s, ',', n);
	size_t dots = 0, commas = 0;
	for (size_t i = 0; i < n; i++)
		dots += s[i] == '.', commas += s[i] == ',';
	if (d && c) {
		t->decimal = d > c ? '.' : ',';
	} else if (dots > 1) {
		t->decimal = ',';
	} else if (commas > 1) {
		t->decimal = '.';
	} else if (c && (size_t)(s + n - c - 1) != 3) {
		t->decimal = ',';
	} else if (d && (size_t)(s + n - d - 1) != 3) {
		t->decimal = '.';
	} else {
		return;
	}
	t->decimal_known = true;
}

/* A number in the file's locale: grouping marks dropped. */
static bool local_number(struct stat_text *t, const char *s, size_t n, double *out)
{
	if (n == 0 || n > 63 || !((s[0] >= '0' && s[0] <= '9') || s[0] == '-'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == ',' || s[i] == '-' ||
		      s[i] == 'e' || s[i] == '+'))
			return false;
	learn_decimal(t, s, n);
	char buf[64];
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == t->decimal)
			buf[w++] = '.';
		else if (s[i] != '.' && s[i] != ',')
			buf[w++] = s[i];
	}
	return stat_parse_number(buf, w, out);
}

struct tok {
	const char *p;
	size_t n;
};

static int tokenize(const char *s, size_t n, struct tok *tk)
{
	int k = 0;
	for (size_t i = 0; i < n && k < MAX_TOKENS;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == n)
			break;
		size_t st = i;
		while (i < n && s[i] != ' ' && s[i] != '\t')
			i++;
		tk[k++] = (struct tok){ s + st, i - st };
	}
	return k;
}

static bool tok_is(struct tok t, const char *s) { return t.n == strlen(s) && memcmp(t.p, s, t.n) == 0; }

static bool is_unit_word(struct tok t)
{
	static const char *units[] = { "msec", "ns", "us", "MiB", "Joules", "W", "Bytes", NULL };
	for (const char **u = units; *u; u++)
		if (tok_is(t, *u))
			return true;
	return false;
}

static char *save(struct stat_text *t, size_t *at, const char *s, size_t n)
{
	char *d = t->buf + *at;
	memcpy(d, s, n);
	d[n] = '\0';
	*at += n + 1;
	return d;
}

/* "( +- 1.58% )", "(63.82%)", perf 3.x's "[63.82%]" and 2.6's "(scaled
 * from 63.82%)" at the end of the line. */
static size_t strip_parens(struct stat_text *t, const char *s, size_t n, struct stat_record *r)
{
	for (;;) {
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		if (n < 3 || (s[n - 1] != ')' && s[n - 1] != ']'))
			return n;
		const char *open = memrchr(s, s[n - 1] == ')' ? '(' : '[', n);
		if (!open)
			return n;
		const char *in = open + 1, *end = s + n - 1;
		while (in < end && *in == ' ')
			in++;
		bool variance = end - in > 2 && in[0] == '+' && in[1] == '-';
		if (variance)
			in += 2;
		else if (end - in > 12 && memcmp(in, "scaled from ", 12) == 0)
			in += 12;
		while (in < end && *in == ' ')
			in++;
		const char *pct = memchr(in, '%', (size_t)(end - in));
		double v;
		if (!pct || !local_number(t, in, (size_t)(pct - in), &v))
			return n;
		if (variance)
			r->variance_pct = v;
		else
			r->enabled_pct = v;
		n = (size_t)(open - s);
	}
}

/* "  0.963 CPUs utilized" after '#': value then unit text. */
static bool metric_part(struct stat_text *t, const char *s, size_t n, size_t *at, struct stat_record *r)
{
	struct tok tk[MAX_TOKENS];
	int k = tokenize(s, n, tk);
	if (k < 2)
		return false;
	double v;
	struct tok num = tk[0];
	bool percent = num.n > 1 && num.p[num.n - 1] == '%';
	if (percent)                                    /* "0.30% of all branches" */
		num.n--;
	if (tok_is(num, "nan") || tok_is(num, "-nan"))
		v = NAN;
	else if (!local_number(t, num.p, num.n, &v))
		return false;
	r->metric_value = v;
	const char *dot = memchr(num.p, t->decimal, num.n);
	r->metric_decimals = dot ? (int)(num.p + num.n - dot - 1) : 0;
	/* the unit keeps the percent sign: "% of all branches", like perf's
	 * "%  tma_retiring" */
	const char *ustart = percent ? num.p + num.n : tk[1].p, *uend = tk[k - 1].p + tk[k - 1].n;
	r->metric_unit = save(t, at, ustart, (size_t)(uend - ustart));
	return true;
}

static bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* "ffffaf629d4cb320": an address perf script printed, not an event. */
static bool is_address(struct tok t)
{
	if (t.n < 8)
		return false;
	for (size_t i = 0; i < t.n; i++)
		if (!((t.p[i] >= '0' && t.p[i] <= '9') || (t.p[i] >= 'a' && t.p[i] <= 'f')))
			return false;
	return true;
}

/* tk[e..k) is an event as perf prints it ("cycles", "cpu_core/cycles/",
 * "r1a8", "msr/tsc/", "cycles:u") and at most one word after it (the
 * cgroup of -G, "0x1a8" of 2.6's "raw 0x1a8"): it starts with a letter and
 * does not end in ':' (perf script's "cycles:" does). */
static bool is_event(struct stat_text *t, const struct tok *tk, int e, int k)
{
	struct tok ev = tk[e];
	if (!(is_letter(ev.p[0]) || ev.p[0] == '_' || ev.p[0] == '{') || ev.p[ev.n - 1] == ':' || is_address(ev))
		return false;
	double x;
	return k - e == 1 || (k - e == 2 && !local_number(t, tk[e + 1].p, tk[e + 1].n, &x));
}

static bool all_digits(struct tok t)
{
	for (size_t i = 0; i < t.n; i++)
		if (t.p[i] < '0' || t.p[i] > '9')
			return false;
	return t.n > 0;
}

/* The columns before the value tk[v]: [timestamp] [scope [CPU count]], as
 * -I and -A / --per-* print them. A timestamp has decimals ("1.001234567"),
 * a scope is a word ("CPU0", "S0-D0-C0", "sh-1234"). */
static bool lead_columns(struct stat_text *t, const struct tok *tk, int v, double *ts, int *scope)
{
	int p = 0;
	double x;
	*ts = -1;
	*scope = -1;
	if (p < v && (memchr(tk[0].p, '.', tk[0].n) || memchr(tk[0].p, ',', tk[0].n)) &&
	    local_number(t, tk[0].p, tk[0].n, &x))
		*ts = x, p++;
	if (p < v && !local_number(t, tk[p].p, tk[p].n, &x) && tk[p].p[tk[p].n - 1] != ':')
		*scope = p++;
	if (p < v && *scope >= 0 && all_digits(tk[p]))
		p++;
	return p == v;
}

/* What a line that turns out not to be perf's must not change. */
struct text_saved {
	char decimal;
	bool decimal_known;
};

/* The line is not perf stat output: the decimal mark it may have taught is
 * forgotten (prose such as "0.21, 0.48" must not decide the locale). */
static bool not_perf(struct stat_text *t, const struct text_saved *saved)
{
	t->decimal = saved->decimal;
	t->decimal_known = saved->decimal_known;
	return false;
}

bool stat_text_line(struct stat_text *t, const char *line, size_t len, const char *file,
		    unsigned long lineno, stat_emit_fn emit, void *ctx)
{
	struct text_saved saved = { t->decimal, t->decimal_known };
	if (t->cap < 2 * len + 64) {
		t->cap = 2 * len + 64;
		t->buf = td_realloc(t->buf, t->cap);
	}
	size_t at = 0;
	struct stat_record r;
	stat_record_init(&r, file, lineno);
	const char *perf = memmem(line, len, "Performance counter stats for", 29);
	if (perf) {
		/* "for 'make -j8':" gives make -j8; "for process id '2262':" and
		 * "for 'system wide':" what perf printed, quotes and all */
		const char *q1 = memchr(line, '\'', len), *q2 = q1 ? memrchr(line, '\'', len) : NULL;
		const char *what = perf + 30;
		r.kind = STAT_COMMAND;
		if (!(q1 && q2 > q1 && what <= q1))
			r.event = "";
		else if (what == q1 && q2 > q1 + 1)
			r.event = save(t, &at, q1 + 1, (size_t)(q2 - q1 - 1));
		else
			r.event = save(t, &at, what, (size_t)(q2 + 1 - what));
		emit(ctx, &r);
		const char *runs = memmem(line, len, " runs)", 6);
		if (runs) {
			const char *p = runs;
			while (p > line && p[-1] >= '0' && p[-1] <= '9')
				p--;
			r.kind = STAT_RUNS;
			r.value = strtod(p, NULL);
			if (r.value >= 1 && r.value <= INT_MAX)
				emit(ctx, &r);
			else               /* the model counts runs in an int */
				td_bad_input(file, lineno, "run count \"%.*s\" is not a number of runs", (int)(runs - p), p);
		}
		return true;
	}
	size_t n = strip_parens(t, line, len, &r);
	/* split at the '#' that starts the metric column */
	const char *hash = NULL;
	for (size_t i = 0; i < n; i++)
		if (line[i] == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
			hash = line + i;
			break;
		}
	size_t left = hash ? (size_t)(hash - line) : n;
	struct tok tk[MAX_TOKENS];
	int k = tokenize(line, left, tk);
	if (k >= 3 && tok_is(tk[k - 2], "time") && tok_is(tk[k - 1], "elapsed")) {
		r.kind = STAT_ELAPSED;
		if (!local_number(t, tk[0].p, tk[0].n, &r.value))
			return not_perf(t, &saved);
		emit(ctx, &r);
		return true;
	}
	if (k >= 3 && tok_is(tk[1], "seconds") && (tok_is(tk[2], "user") || tok_is(tk[2], "sys")))
		return true;
	/* the value: a number (or <not counted>) followed by [unit] event, after
	 * at most a timestamp, a scope and its CPU count */
	int v = -1, scope = -1;
	double ts = -1;
	for (int i = 0; i < k && i < 5 && v < 0; i++) {
		double x;
		bool notc = tok_is(tk[i], "<not") && i + 1 < k;
		if ((notc || local_number(t, tk[i].p, tk[i].n, &x)) && i + 1 < k) {
			int e = notc ? i + 2 : i + 1;
			if (e < k && is_unit_word(tk[e]))
				e++;
			if (e < k && is_event(t, tk, e, k) && lead_columns(t, tk, i, &ts, &scope))
				v = i;
		}
	}
	if (v < 0) {
		if (hash) {                    /* continuation or metric-group line */
			r.kind = STAT_METRIC;
			stat_last_apply(&t->last, &r);
			if (!metric_part(t, hash + 1, n - left - 1, &at, &r))
				return not_perf(t, &saved);
			if (k > 0) {               /* "TopdownL1 (cpu_core)": its rows are its group's */
				char group[256];
				stat_group_event(tk[0].p, (size_t)(tk[k - 1].p + tk[k - 1].n - tk[0].p), group, sizeof group);
				r.event = save(t, &at, group, strlen(group));
				stat_last_remember(&t->last, &r);
				stat_last_apply(&t->last, &r);
			}
			emit(ctx, &r);
			return true;
		}
		return k == 0 ? true : not_perf(t, &saved);
	}
	r.interval = ts;
	if (scope >= 0)
		r.scope = save(t, &at, tk[scope].p, tk[scope].n);
	int e = v + 1;
	if (tok_is(tk[v], "<not")) {
		r.not_counted = tok_is(tk[v + 1], "counted>");
		r.not_supported = !r.not_counted;
		e = v + 2;
	} else {
		local_number(t, tk[v].p, tk[v].n, &r.value);
	}
	if (e < k && is_unit_word(tk[e]))
		r.unit = save(t, &at, tk[e].p, tk[e].n), e++;
	r.event = save(t, &at, tk[e].p, (size_t)(tk[k - 1].p + tk[k - 1].n - tk[e].p));
	emit(ctx, &r);
	stat_last_remember(&t->last, &r);
	if (hash && metric_part(t, hash + 1, n - left - 1, &at, &r)) {
		r.kind = STAT_METRIC;
		emit(ctx, &r);
	}
	return true;
}
