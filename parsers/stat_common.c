#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "stat.h"
#include "stat_number.h"

const char *stat_format_name(enum stat_format f)
{
	static const char *names[] = { "auto", "csv", "json", "text", "toplev text", "toplev csv" };
	return names[f];
}

bool stat_format_parse(const char *arg, enum stat_format *f)
{
	static const struct { const char *word; enum stat_format f; } words[] = {
		{ "csv", STAT_CSV }, { "json", STAT_JSON }, { "text", STAT_TEXT },
	};
	*f = STAT_AUTO;
	if (!arg)
		return true;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (!strcmp(arg, words[i].word)) {
			*f = words[i].f;
			return true;
		}
	return false;
}

void stat_record_init(struct stat_record *r, const char *file, unsigned long line)
{
	memset(r, 0, sizeof(*r));
	r->interval = -1;
	r->scope = r->event = r->unit = r->metric_unit = r->threshold = "";
	r->value = r->variance_pct = r->metric_value = NAN;
	r->enabled_pct = 100;
	r->metric_decimals = -1;
	for (int i = 0; i < 5; i++)
		r->len[i] = -1;
	r->file = file;
	r->line = line;
}

/* A plain C-locale number: optional sign, digits, optional fraction and
 * exponent; blanks around are allowed. */
bool stat_parse_number(const char *s, size_t n, double *out)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n == 0 || n > 63)
		return false;
	if (!((s[0] >= '0' && s[0] <= '9') || s[0] == '-' || s[0] == '+' || s[0] == '.'))
		return false;
	if (stat_plain_decimal(s, n, out))      /* reads only s[0..n): no copy */
		return true;
	char buf[64];
	memcpy(buf, s, n);
	buf[n] = '\0';
	char *end;
	double v = strtod(buf, &end);
	if (*end)
		return false;
	*out = v;
	return true;
}

bool stat_parse_number_comma(const char *s, size_t n, double *out)
{
	if (stat_parse_number(s, n, out))
		return true;
	const char *comma = memchr(s, ',', n);
	if (!comma || n > 63 || memchr(s, '.', n) || memchr(comma + 1, ',', (size_t)(s + n - comma - 1)))
		return false;
	char buf[64];
	memcpy(buf, s, n);
	buf[comma - s] = '.';
	return stat_parse_number(buf, n, out);
}

static bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* "2,812,305,464", "210,140" or "2.812.305.464": a count with thousands
 * separators (one mark throughout), as perf's text table prints it; no CSV
 * field list has this shape up to its first blank ("1,2,,cycles" holds an
 * empty field and a letter). */
static bool grouped_count(const char *s, size_t n)
{
	if (n < 5 || s[0] < '0' || s[0] > '9')
		return false;
	size_t group = 0;               /* digits since the last mark */
	char mark = 0;
	for (size_t k = 0; k < n; k++) {
		if (s[k] >= '0' && s[k] <= '9') {
			group++;
			continue;
		}
		if ((s[k] != ',' && s[k] != '.') || (mark && s[k] != mark) || group == 0 || group > 3 ||
		    (mark && group != 3))
			return false;
		mark = s[k];
		group = 0;
	}
	return mark && group == 3;
}

/* Layout of the first meaningful line: JSON objects, perf's text table
 * (columns separated by runs of blanks, or an indented grouped count and
 * its event), or separated values. */
enum stat_format stat_detect(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i < n && s[i] == '{')
		return STAT_JSON;
	/* Every text marker holds a blank after the leading ones: "Performance
	 * counter stats" 11 bytes after its start, " seconds " one before its
	 * "seconds ", a run of blanks at its second byte. Searching from 11
	 * bytes before the first such blank finds what a search of the whole
	 * line finds. */
	const char *blank = i < n ? memchr(s + i, ' ', n - i) : NULL;
	if (blank) {
		size_t from = (size_t)(blank - s) > i + 11 ? (size_t)(blank - s) - 11 : 0;
		/* both markers searched in one pass */
		for (size_t k = from; k < n; k++) {
			if (s[k] == 'P' && n - k >= 25 && memcmp(s + k, "Performance counter stats", 25) == 0)
				return STAT_TEXT;
			if (s[k] == ' ' && n - k >= 9 && memcmp(s + k, " seconds ", 9) == 0)
				return STAT_TEXT;
		}
		for (size_t k = (size_t)(blank - s) > i ? (size_t)(blank - s) - 1 : i; k + 3 < n; k++)
			if (s[k] != ' ' && s[k + 1] == ' ' && s[k + 2] == ' ' && s[k + 3] == ' ')
				return STAT_TEXT;   /* text columns: runs of 3+ blanks */
		if (i > 0 && grouped_count(s + i, (size_t)(blank - s) - i) && (size_t)(blank - s) + 1 < n &&
		    is_letter(s[blank - s + 1]))
			return STAT_TEXT;   /* perf 2.6's "    2,812,305,464 cycles" */
	}
	if (!memchr(s, ',', n) && !memchr(s, ';', n) && !memchr(s, '\t', n) && !memchr(s, '|', n))
		return STAT_AUTO;               /* no separator: the layout of the lines around */
	return STAT_CSV;
}

void stat_group_event(const char *s, size_t n, char *out, size_t cap)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	const char *open = n > 2 && s[n - 1] == ')' ? memrchr(s, '(', n) : NULL;
	if (open && open > s) {
		size_t name = (size_t)(open - s);
		while (name && s[name - 1] == ' ')
			name--;
		snprintf(out, cap, "%.*s/%.*s/", (int)(s + n - 1 - open - 1), open + 1, (int)name, s);
	} else {
		snprintf(out, cap, "%.*s", (int)n, s);
	}
}

/* len: strlen(s) if known, else -1 */
static void copy_into(char **dst, size_t *cap, const char *s, int len)
{
	size_t n = (len >= 0 ? (size_t)len : strlen(s)) + 1;
	if (n > *cap) {
		*cap = n * 2;
		*dst = td_realloc(*dst, *cap);
	}
	memcpy(*dst, s, n);
}

void stat_last_remember(struct stat_last *l, const struct stat_record *r)
{
	l->interval = r->interval;
	copy_into(&l->scope, &l->scope_cap, r->scope, r->len[0]);
	copy_into(&l->event, &l->event_cap, r->event, r->len[1]);
}

void stat_last_apply(const struct stat_last *l, struct stat_record *r)
{
	r->interval = l->scope ? l->interval : -1;
	r->scope = l->scope ? l->scope : "";
	r->event = l->event ? l->event : "";
}

void stat_last_free(struct stat_last *l)
{
	free(l->scope);
	free(l->event);
	l->scope = l->event = NULL;
	l->scope_cap = l->event_cap = 0;
}
