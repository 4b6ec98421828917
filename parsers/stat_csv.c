/* perf stat -x SEP: counter rows of every era and aggregation mode,
 * continuation metric rows, metric-group headers, --metric-only tables and
 * the old --topdown layout. The separator is detected from the first row. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "common/swar.h"
#include "common/grow.h"
#include "stat.h"
#include "stat_csv_shape.h"
#include "stat_number.h"

#define MAX_FIELDS 256

struct field {
	const char *p;
	size_t n;
};

/* The last line of a known shape, read: r is its shape's record. */
struct known {
	bool metric;
	struct stat_record *r;
};

struct stat_csv {
	char sep;
	bool sep_from_header;           /* only an unused --metric-only header chose sep */
	bool comma_locale_warned;
	char *repaired;                 /* a comma-locale row rewritten */
	size_t repaired_cap;
	/* --metric-only: the header's column names */
	char **columns;
	int ncolumns, prefix_columns;
	bool column_values;             /* a row of values came after the header */
	struct stat_last last;          /* continuation metric rows belong to it */
	bool header_used;               /* a row of the --metric-only header came */
	unsigned long header_line;      /* the header's line */
	unsigned long unused_headers, first_unused;   /* headers no row followed: other text */
	char *scratch;
	size_t scratch_cap;
	struct csv_shapes *shapes;      /* rows that repeat */
	/* last, when a known row came last: known.r, which stays as that row
	 * left it until the shapes match or learn again (stat_csv_shape.h), so
	 * it is copied only when needed */
	bool last_known;
	struct known known;
};

struct stat_csv *stat_csv_new(void)
{
	struct stat_csv *c = td_calloc(1, sizeof(*c));
	c->shapes = csv_shapes_new();
	return c;
}

static void free_columns(struct stat_csv *c)
{
	if (!c->columns)
		return;
	if (!c->header_used && !c->unused_headers++)
		c->first_unused = c->header_line;
	for (int i = 0; i < c->ncolumns; i++)
		free(c->columns[i]);
	free(c->columns);
	c->columns = NULL;
	c->ncolumns = 0;
}

void stat_csv_free(struct stat_csv *c)
{
	if (!c)
		return;
	free_columns(c);
	csv_shapes_free(c->shapes);
	stat_last_free(&c->last);
	free(c->scratch);
	free(c->repaired);
	free(c);
}

static char pick_separator(const char *s, size_t n)
{
	static const char candidates[] = ",;\t|:";
	char best = ',';
	size_t best_count = 0;
	for (const char *c = candidates; *c; c++) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			k += s[i] == *c;
		if (k > best_count)
			best = *c, best_count = k;
	}
	return best;
}

static inline struct field trim(struct field f)
{
	/* most fields have no blank at either end: one look at each */
	if (f.n == 0 || ((unsigned char)f.p[0] > ' ' && (unsigned char)f.p[f.n - 1] > ' '))
		return f;
	while (f.n && (*f.p == ' ' || *f.p == '\t'))
		f.p++, f.n--;
	while (f.n && (f.p[f.n - 1] == ' ' || f.p[f.n - 1] == '\t'))
		f.n--;
	return f;
}

/* The fields between separators, blanks around each trimmed: every field
 * in f[] is trimmed (so the helpers below do not trim again); an event
 * spanning several fields is trimmed at its ends. */
static int split(const char *s, size_t n, char sep, struct field *f)
{
	int nf = 0;
	const char *p = s, *end = s + n, *q = s;
#if TD_SWAR
	/* eight bytes at a time: the separators of a word as one bit each */
	while (q + 8 <= end) {
		uint64_t hits = td_swar_equal(td_swar_load(q), (unsigned char)sep);
		while (hits) {
			const char *at = q + td_swar_first(hits);
			f[nf++] = trim((struct field){ p, (size_t)(at - p) });
			p = at + 1;
			if (nf == MAX_FIELDS)
				return nf;
			hits &= hits - 1;
		}
		q += 8;
	}
#endif
	for (; q < end; q++)
		if (*q == sep) {
			f[nf++] = trim((struct field){ p, (size_t)(q - p) });
			p = q + 1;
			if (nf == MAX_FIELDS)
				return nf;
		}
	f[nf++] = trim((struct field){ p, (size_t)(end - p) });
	return nf;
}

static bool only_digits(struct field f)
{
	for (size_t i = 0; i < f.n; i++)
		if (f.p[i] < '0' || f.p[i] > '9')
			return false;
	return true;
}

/* A field cannot hold the separator, so "2,90" under -x';' is a decimal.
 * stat_parse_number_comma, with its answer for most fields found inline:
 * no number starts with a letter (nor does its decimal-comma form), and a
 * plain decimal without blanks around is read as it would read it. */
static inline __attribute__((always_inline)) bool is_num(struct field f, double *v)
{
	double tmp, *out = v ? v : &tmp;
	if (f.n == 0)
		return false;
	unsigned char c = (unsigned char)f.p[0];
	if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == ',' || c == ' ' || c == '\t'))
		return false;
	unsigned char last = (unsigned char)f.p[f.n - 1];
	if (f.n <= 63 && c != ' ' && c != '\t' && last != ' ' && last != '\t' && stat_plain_decimal(f.p, f.n, out))
		return true;
	return stat_parse_number_comma(f.p, f.n, out);
}

static inline bool field_is(struct field f, const char *s)
{
	return f.n == strlen(s) && memcmp(f.p, s, f.n) == 0;
}

/* Units perf prints in the unit column: short words, no digits. */
static bool is_unit(struct field f)
{
	if (f.n > 16)
		return false;
	for (size_t i = 0; i < f.n; i++)
		if ((f.p[i] >= '0' && f.p[i] <= '9') || f.p[i] == '<' || f.p[i] == '/')
			return false;
	return true;
}

/* An event as perf prints it starts with a letter ("cycles", "r1a8",
 * "cpu_core/cycles/"), '_', '{' or the quote around a name holding the
 * separator, and does not end in ':' (perf script's "cycles:" does). */
static bool is_event(struct field f)
{
	if (f.n == 0 || f.p[f.n - 1] == ':')
		return false;
	char c = f.p[0];
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '{' || c == '"';
}

static const char *copy(struct stat_csv *c, size_t at, struct field f)
{
	/* scratch holds several strings back to back (at is the offset); it
	 * was sized for the whole line, so earlier strings never move */
	if (at + f.n + 1 > c->scratch_cap)
		return "";
	memcpy(c->scratch + at, f.p, f.n);
	c->scratch[at + f.n] = '\0';
	return c->scratch + at;
}

/* copy, and the length of what it gave */
static const char *copy_len(struct stat_csv *c, size_t at, struct field f, int *len)
{
	const char *s = copy(c, at, f);
	*len = s != c->scratch + at ? 0 : f.n < 1u << 30 ? (int)f.n : -1;
	return s;
}

static int decimals(struct field f)
{
	for (size_t i = 0; i < f.n; i++)      /* the digits after the first '.' */
		if (f.p[i] == '.')
			return (int)(f.n - i - 1);
	return 0;
}

static bool has_dot(struct field f)
{
	for (size_t i = 0; i < f.n; i++)
		if (f.p[i] == '.')
			return true;
	return false;
}

static bool is_threshold(struct field f)
{
	static const char *words[] = { "good", "bad", "nearly bad", "less good", "unknown", NULL };
	for (const char **w = words; *w; w++)
		if (field_is(f, *w))
			return true;
	return false;
}

/* The leading fields counter_row looks at for the value: is_value, with
 * the number each held, which it reads again (timestamp, value). */
struct lead {
	double num[4];
	bool is_num[4];
};

static bool lead_value(struct lead *l, struct field *f, int i)
{
	l->is_num[i] = is_num(f[i], &l->num[i]);
	return l->is_num[i] || field_is(f[i], "<not counted>") || field_is(f[i], "<not supported>");
}

/* Parses [ts][aggr...] value unit event... [variance%] run pct [mv mu [thr]];
 * lay: the fields its numbers came from. */
static bool counter_row(struct stat_csv *c, struct field *f, int nf, struct stat_record *r, struct csv_layout *lay)
{
	*lay = (struct csv_layout){ nf < MAX_FIELDS, -1, -1, -1, -1, -1 };
	int v = -1;
	struct lead lead;               /* fields 0..v are read */
	for (int i = 0; i + 2 < nf && i < 4; i++)
		if (lead_value(&lead, f, i) && is_unit(f[i + 1]) && is_event(f[i + 2])) {
			v = i;
			break;
		}
	if (v < 0) {
		if (nf == 2 && lead_value(&lead, f, 0) && is_event(f[1])) {      /* perf 2.6.39-3.x */
			v = 0;
			f[2] = f[1];
			f[1] = (struct field){ "", 0 };
			nf = 3;
			lay->learnable = false;
		} else {
			return false;
		}
	}
	int p = 0;
	if (v >= 1 && lead.is_num[0] && has_dot(f[0])) {
		r->interval = lead.num[0];
		p = 1;
		lay->interval = 0;
	}
	size_t off = 0;
	if (v > p) {              /* aggregation id; a second field is the CPU count */
		r->scope = copy_len(c, off, f[p], &r->len[0]);
		off += f[p].n + 1;
	}
	struct field val = f[v];
	r->not_counted = field_is(val, "<not counted>");
	r->not_supported = field_is(val, "<not supported>");
	if (!r->not_counted && !r->not_supported && lead.is_num[v]) {
		r->value = lead.num[v];
		lay->value = v;
	}
	r->unit = copy_len(c, off, f[v + 1], &r->len[2]);
	off += f[v + 1].n + 1;
	/* the event runs up to the run-time field: digits followed by a percentage */
	int e = v + 2, end = nf;
	for (int j = e + 1; j + 1 < nf; j++) {
		double run, pct;
		struct field fj = f[j];
		bool digits = fj.n > 0 && only_digits(fj);
		if (digits && is_num(f[j], &run) && is_num(f[j + 1], &pct)) {
			end = j;
			r->enabled_pct = pct;
			lay->run = j;
			lay->enabled = j + 1;
			break;
		}
	}
	int last_event_field = end - 1;
	if (end < nf && last_event_field > e) {        /* -r variance "1.58%" */
		struct field fv = f[last_event_field];
		if (fv.n > 1 && fv.p[fv.n - 1] == '%' && is_num((struct field){ fv.p, fv.n - 1 }, &r->variance_pct))
			last_event_field--;
	}
	struct field ev = { f[e].p, (size_t)(f[last_event_field].p + f[last_event_field].n - f[e].p) };
	r->event = copy_len(c, off, trim(ev), &r->len[1]);
	off += ev.n + 1;
	if (end + 2 < nf) {                             /* metric value, unit [, threshold] */
		double mv;
		if (is_num(f[end + 2], &mv)) {
			r->metric_value = mv;
			r->metric_decimals = decimals(f[end + 2]);
			lay->metric = end + 2;
		}
		if (end + 3 < nf) {
			r->metric_unit = copy_len(c, off, f[end + 3], &r->len[3]);
			off += f[end + 3].n + 1;
		}
		if (end + 4 < nf && is_threshold(f[end + 4]))
			r->threshold = copy_len(c, off, f[end + 4], &r->len[4]);
	}
	return true;
}

/* ",,,,,,51.0,%  tma_frontend_bound,bad": a further metric of the last
 * counter. The metric is the last (number, text[, threshold]) on the row. */
static bool continuation_row(struct stat_csv *c, struct field *f, int nf, struct stat_record *r)
{
	if (!c->last.event)
		return false;           /* no counter yet: "throughput;3.2;GB/s" is a program's */
	int last = nf - 1;
	while (last >= 0 && f[last].n == 0)
		last--;
	if (last < 1)
		return false;
	int unit = is_threshold(f[last]) && last >= 2 ? last - 1 : last;
	double mv;
	if (!is_num(f[unit - 1], &mv) || is_num(f[unit], NULL))
		return false;
	for (int i = 1; i < unit - 1; i++)      /* everything between prefix and metric empty */
		if (f[i].n && i > 2)
			return false;
	r->kind = STAT_METRIC;
	stat_last_apply(&c->last, r);
	r->metric_value = mv;
	r->metric_decimals = decimals(f[unit - 1]);
	r->metric_unit = copy(c, 0, f[unit]);
	if (unit != last)
		r->threshold = copy(c, f[unit].n + 1, f[last]);
	return true;
}

static bool is_aggr_header(struct field f)
{
	static const char *keys[] = { "time", "core", "cpus", "ctrs", "cpu", "socket", "die", "node",
				      "comm-pid", "cache", "cluster", NULL };
	for (const char **k = keys; *k; k++)
		if (field_is(f, *k))
			return true;
	return false;
}

/* "main;foo 12" split at ';': folded stacks, not a metric name. */
static bool ends_in_count(struct field f)
{
	size_t e = f.n;
	while (e > 0 && f.p[e - 1] >= '0' && f.p[e - 1] <= '9')
		e--;
	return e < f.n && e > 0 && f.p[e - 1] == ' ';
}

/* --metric-only and old --topdown: a header of names, then rows of values. */
static bool header_shape(const struct field *f, int nf)
{
	int named = 0;
	for (int i = 0; i < nf; i++) {
		if (is_num(f[i], NULL) || ends_in_count(f[i]))
			return false;
		named += f[i].n > 0;
	}
	return named >= 2;
}

static bool metric_header(struct stat_csv *c, struct field *f, int nf, unsigned long lineno)
{
	if (!header_shape(f, nf))
		return false;
	free_columns(c);
	c->column_values = false;
	c->columns = td_calloc((size_t)nf, sizeof(char *));
	c->ncolumns = nf;
	c->prefix_columns = 0;
	c->header_used = false;
	c->header_line = lineno;
	for (int i = 0; i < nf; i++) {
		struct field t = f[i];
		c->columns[i] = td_strndup(t.p, t.n);
		if (i == c->prefix_columns && is_aggr_header(f[i]))
			c->prefix_columns++;
	}
	return true;
}

/* The row repeats the --metric-only header's names. */
static bool same_header(const struct stat_csv *c, const struct field *f, int nf)
{
	if (nf != c->ncolumns)
		return false;
	for (int i = 0; i < nf; i++) {
		struct field t = f[i];
		if (t.n != strlen(c->columns[i]) || memcmp(t.p, c->columns[i], t.n))
			return false;
	}
	return true;
}

/* A row of the header's table: as many fields (perf may end a row with
 * one more separator than its header), a number for a "time" column, and
 * a number or nothing in every metric column. "Load Average: 0.21, 0.48,
 * 0.50" after such a header is not one. */
static bool metric_only_shape(const struct stat_csv *c, const struct field *f, int nf)
{
	if (nf < c->ncolumns - 1 || nf > c->ncolumns + 1 || nf <= c->prefix_columns)
		return false;
	for (int col = 0; col < nf; col++) {
		bool prefix = col < c->prefix_columns;
		if (prefix && strcmp(c->columns[col], "time") != 0)
			continue;
		if ((prefix || f[col].n) && !is_num(f[col], NULL))
			return false;
	}
	return true;
}

static bool metric_only_row(struct stat_csv *c, struct field *f, int nf, const char *file,
			    unsigned long lineno, stat_emit_fn emit, void *ctx)
{
	if (!c->columns)
		return false;
	struct stat_record r;
	stat_record_init(&r, file, lineno);
	if (same_header(c, f, nf)) {
		/* perf prints the header once per run, and every 25 intervals of -I:
		 * after values and without a time column, a new run starts */
		if (c->column_values && strcmp(c->columns[0], "time")) {
			r.kind = STAT_COMMAND;
			emit(ctx, &r);
		}
		c->column_values = false;
		return true;
	}
	if (!metric_only_shape(c, f, nf))
		return false;
	c->header_used = true;
	c->column_values = true;
	r.kind = STAT_METRIC;
	int col = 0;
	char scope[256] = "";
	for (; col < c->prefix_columns && col < nf; col++) {
		struct field t = f[col];
		if (strcmp(c->columns[col], "time") == 0)
			is_num(t, &r.interval);
		else if (!scope[0] && t.n < sizeof scope)
			memcpy(scope, t.p, t.n), scope[t.n] = '\0';
	}
	r.scope = scope;
	for (; col < nf && col < c->ncolumns; col++) {
		double v;
		if (!is_num(f[col], &v))
			continue;
		r.metric_value = v;
		r.metric_unit = c->columns[col];
		emit(ctx, &r);
	}
	return true;
}

static bool all_digits(struct field f, size_t min, size_t max)
{
	return f.n >= min && f.n <= max && only_digits(f);
}

/* -x, under a comma locale: "2,41,msec,task-clock,2410960,100,00,0,CPUs
 * utilized". The enabled percentage always has two decimals, so a run-time
 * field followed by "100","00" gives the row away (in the C locale it is
 * "100.00"). perf prints values with a unit with decimals and plain counts
 * without, which tells how to rejoin the value; the metric columns are
 * dropped because perf cut them at the comma ("0" for 0,75). */
static bool comma_locale_row(struct stat_csv *c, struct field *f, int *nf)
{
	int run = -1;
	for (int j = 2; j + 2 < *nf; j++)
		if (all_digits(f[j], 1, 20) && all_digits(f[j + 1], 1, 3) && all_digits(f[j + 2], 2, 2)) {
			run = j;
			break;
		}
	if (run < 0)
		return false;
	/* leading fields: [timestamp] [scope [cpus]] then value[,decimals] unit */
	int i = 0;
	if (memchr(f[0].p, '.', f[0].n) && is_num(f[0], NULL))
		i++;
	if (i < run && !all_digits(f[i], 1, 20))
		i++;                            /* scope: CPU0, S0-D0-C0, comm-pid */
	int first_number = i, unit = i;
	while (unit < run && all_digits(f[unit], 1, 20))
		unit++;                         /* [cpus] value [decimals] */
	if (unit == first_number || unit >= run)
		return false;
	bool has_decimals = f[unit].n > 0 && unit - first_number >= 2;
	size_t cap = 0;
	for (int k = 0; k < *nf; k++)
		cap += f[k].n + 1;
	TD_ALLOC_GROW(c->repaired, cap + 8, c->repaired_cap);
	char *w = c->repaired;
	struct field out[MAX_FIELDS];
	int n = 0;
	for (int k = 0; k <= run + 2; k++) {
		bool join = (has_decimals && k == unit - 2) || k == run + 1;
		struct field a = f[k];
		out[n].p = w;
		memcpy(w, a.p, a.n);
		w += a.n;
		if (join) {
			struct field b = f[++k];
			*w++ = '.';
			memcpy(w, b.p, b.n);
			w += b.n;
		}
		out[n].n = (size_t)(w - out[n].p);
		n++;
	}
	memcpy(f, out, (size_t)n * sizeof(*f));
	*nf = n;
	return true;
}

/* last, as stat_last_remember would have left it */
static void settle_last(struct stat_csv *c)
{
	if (c->last_known)
		stat_last_remember(&c->last, c->known.r);
	c->last_known = false;
}

/* The counter row (and its metric) of a known shape. */
static void emit_known(struct stat_csv *c, const char *file, unsigned long lineno, stat_emit_fn emit, void *ctx)
{
	struct stat_record *r = c->known.r;
	r->file = file;
	r->line = lineno;
	free_columns(c);
	emit(ctx, r);
	c->last_known = true;
	if (c->known.metric) {
		r->kind = STAT_METRIC;
		r->again = true;
		emit(ctx, r);
		r->kind = STAT_COUNTER;
		r->again = false;
	}
}

bool stat_csv_header_pending(const struct stat_csv *c)
{
	return c->columns && !c->header_used;
}

unsigned long stat_csv_unused_headers(struct stat_csv *c, unsigned long *first)
{
	if (c->columns && !c->header_used) {        /* the last header: no row came */
		c->header_used = true;
		if (!c->unused_headers++)
			c->first_unused = c->header_line;
	}
	unsigned long n = c->unused_headers;
	*first = c->first_unused;
	c->unused_headers = 0;
	return n;
}

bool stat_csv_known_row(struct stat_csv *c, const char *line, size_t len, const char *file, unsigned long lineno,
			stat_emit_fn emit, void *ctx)
{
	struct known *k = &c->known;
	struct stat_record *r = c->sep ? csv_shapes_match(c->shapes, line, len, c->sep, &k->metric) : NULL;
	if (!r)
		return false;
	k->r = r;
	emit_known(c, file, lineno, emit, ctx);
	return true;
}

static bool csv_line(struct stat_csv *c, const char *line, size_t len, const char *file, unsigned long lineno,
		     stat_emit_fn emit, void *ctx)
{
	TD_ALLOC_GROW(c->scratch, 2 * len + 64, c->scratch_cap);
	struct field f[MAX_FIELDS];
	int nf = split(line, len, c->sep, f);
	bool repaired = c->sep == ',' && comma_locale_row(c, f, &nf);
	if (repaired && !c->comma_locale_warned) {
		td_warn(file, lineno, "decimal commas under -x, (perf ran under a comma locale): the fields are "
			"ambiguous; values rejoined by perf's layout, perf's own metric columns ignored; "
			"re-run perf with LC_ALL=C or -x';'");
		c->comma_locale_warned = true;
	}
	int nonempty = 0;
	for (int i = 0; i < nf; i++)
		nonempty += f[i].n > 0;
	if (nonempty == 0)
		return true;                  /* ",,,,," : a group that failed to count */
	struct stat_record r;
	stat_record_init(&r, file, lineno);
	struct csv_layout lay;
	if (counter_row(c, f, nf, &r, &lay)) {
		free_columns(c);
		emit(ctx, &r);
		stat_last_remember(&c->last, &r);
		c->last_known = false;
		if (!repaired)
			csv_shapes_learn(c->shapes, line, len, c->sep, &r, &lay);
		if (!isnan(r.metric_value) && r.metric_unit[0]) {
			r.kind = STAT_METRIC;
			r.again = true;
			emit(ctx, &r);
		}
		return true;
	}
	stat_record_init(&r, file, lineno);
	settle_last(c);
	if (continuation_row(c, f, nf, &r)) {
		emit(ctx, &r);
		return true;
	}
	int last = nf - 1;
	while (last > 0 && f[last].n == 0)
		last--;
	if (nf >= 3 && (nonempty == 1 || f[0].n == 0) && !is_num(f[last], NULL) && !is_threshold(f[last])) {
		/* metric-group header: ",RUNTIME,PCT,,,,TopdownL1 (cpu_core)"; the rows below
		 * are its group's (",,,,,,%  tma_retiring" is a metric perf could not compute) */
		if (f[1].n == 0)
			return true;
		char group[256];
		stat_group_event(f[last].p, f[last].n, group, sizeof group);
		stat_last_apply(&c->last, &r);
		r.event = group;
		r.len[1] = -1;
		stat_last_remember(&c->last, &r);
		return true;
	}
	return metric_only_row(c, f, nf, file, lineno, emit, ctx) || metric_header(c, f, nf, lineno);
}

/* The line repeats the --metric-only header or is a row of its table. */
static bool metric_only_line(const struct stat_csv *c, const char *line, size_t len)
{
	struct field f[MAX_FIELDS];
	int nf = split(line, len, c->sep, f);
	return same_header(c, f, nf) || metric_only_shape(c, f, nf);
}

/* The line is a counter row, a --metric-only header or a row of nothing
 * but separators under its own separator, another than sep. */
static bool perf_row_elsewhere(struct stat_csv *c, const char *line, size_t len)
{
	char sep = pick_separator(line, len);
	if (sep == c->sep)
		return false;
	TD_ALLOC_GROW(c->scratch, 2 * len + 64, c->scratch_cap);
	struct field f[MAX_FIELDS];
	int nf = split(line, len, sep, f);
	struct stat_record r;
	stat_record_init(&r, "", 0);
	struct csv_layout lay;
	char saved = c->sep;
	c->sep = sep;
	bool empty = nf >= 2;                   /* ",,,," : a group that failed to count */
	for (int i = 0; i < nf && empty; i++)
		empty = f[i].n == 0;
	bool yes = empty || counter_row(c, f, nf, &r, &lay) || header_shape(f, nf);
	c->sep = saved;
	return yes;
}

/* The separator is the one of the first row read as perf's: a line of
 * other text before it ("2024-11-24T17:56:24-08:00") does not choose it.
 * A --metric-only header alone chooses it only until a row uses that
 * header: "benchmark: 12 ops/s" reads as a header under ':', and the
 * counter rows after it under ',' must not then be lost to it (the
 * header becomes other text). */
bool stat_csv_line(struct stat_csv *c, const char *line, size_t len, const char *file, unsigned long lineno,
		   stat_emit_fn emit, void *ctx)
{
	if (c->sep && c->sep_from_header) {
		if (c->header_used)
			c->sep_from_header = false;
		else if (!metric_only_line(c, line, len) && perf_row_elsewhere(c, line, len)) {
			free_columns(c);          /* counted as other text */
			c->sep = 0;
			c->sep_from_header = false;
		}
	}
	if (c->sep)
		return csv_line(c, line, len, file, lineno, emit, ctx);
	c->sep = pick_separator(line, len);
	if (csv_line(c, line, len, file, lineno, emit, ctx)) {
		c->sep_from_header = c->columns && !c->header_used;
		return true;
	}
	c->sep = 0;
	return false;
}
