/* toplev's output (pmu-tools), text and CSV, as the records perf's own
 * readers emit: each Top-down node toplev printed is a STAT_METRIC of
 * source STAT_FROM_TOPLEV whose metric_unit is toplev's unit, a blank and
 * the node's dotted name ("% Slots Backend_Bound.Memory_Bound"), as perf's
 * is "%  tma_memory_bound"; the value is the percentage toplev printed.
 *
 * A file is toplev's from its first line that only toplev prints: its
 * banner ("# 4.4-full-perf on Intel(R) ..."), its CSV header
 * ("Timestamp,CPUs,Area,Value,Unit,..."), a shell prompt that runs it, its
 * "Using level N." or a node row ("BE/Mem  Backend_Bound.Memory_Bound ...").
 * From then on every line of the file is read here, until a perf stat
 * banner hands the file back.
 *
 * The rows read, in every version seen:
 *   text   [TIMESTAMP|SUMMARY] [SCOPE] AREA NAME UNIT VALUE [<|?] [[ 3.3%]] [+- SD] [<==]
 *          SCOPE S0, S0-C0, S0-C0-T0, C0, C0-T1, CPU3; NAME may end in ':'
 *          (3.x) or start with "..." (--abbrev: the rest of the previous
 *          name); 3.x also printed VALUE before UNIT, 2.x "35.21%".
 *   CSV    the columns its header names (Timestamp, CPUs, Area = the node's
 *          name, Value, Unit = "% Slots" or "% Slots <", ..., Multiplex),
 *          fields quoted as Python's csv module quotes them.
 * Rows that are not Top-down nodes (Info.*, MUX, Bottleneck views),
 * descriptions (tab-indented) and toplev's messages are not records: they
 * are counted and said once per file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "shell_prompt.h"
#include "stat.h"
#include "stat_toplev.h"

#define MAX_TOKENS 48
#define MAX_FIELDS 32
#define NAME_CAP 256

enum col { COL_TS, COL_CPUS, COL_AREA, COL_VALUE, COL_UNIT, COL_MUX, NCOL };

struct stat_toplev {
	bool active;                    /* the lines are toplev's */
	bool csv;                       /* its CSV header was read */
	bool seen;                      /* some line was toplev's */
	char sep;
	int col[NCOL];                  /* field index of each column, -1 absent */
	int ncols;
	char last_name[NAME_CAP];       /* for --abbrev's "...Name" */
	const char *file;
	unsigned long nodes, others, messages, foreign, first_foreign, columns;
};

struct tok {
	const char *p;
	size_t n;
};

struct stat_toplev *stat_toplev_new(void)
{
	struct stat_toplev *t = td_calloc(1, sizeof(*t));
	for (int i = 0; i < NCOL; i++)
		t->col[i] = -1;
	return t;
}

/* What was not read, said once. */
static void say_skipped(struct stat_toplev *t)
{
	if (!t->file || !(t->others || t->foreign || t->columns))
		return;
	if (t->columns)
		td_warn(t->file, 0, "toplev output: %lu rows with a value per CPU (toplev --columns) not read: "
			"run toplev without --columns, or with --per-core/--per-thread", t->columns);
	char foreign[96] = "";
	if (t->foreign)
		snprintf(foreign, sizeof foreign, "; %lu lines that are not toplev's skipped (the first is line %lu)",
			 t->foreign, t->first_foreign);
	td_warn(t->file, 0, "toplev output: %lu Top-down node values read, %lu other rows (Info metrics, MUX) "
		"not read%s", t->nodes, t->others, foreign);
}

enum stat_format stat_toplev_format(const struct stat_toplev *t)
{
	return !t->seen ? STAT_AUTO : t->csv ? STAT_TOPLEV_CSV : STAT_TOPLEV_TEXT;
}

void stat_toplev_free(struct stat_toplev *t)
{
	if (!t)
		return;
	say_skipped(t);
	free(t);
}

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && memcmp(s, prefix, k) == 0;
}

static bool has(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle)) != NULL;
}

static size_t split_blanks(const char *s, size_t n, struct tok *tk, size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k < max;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == n)
			break;
		size_t b = i;
		while (i < n && s[i] != ' ' && s[i] != '\t')
			i++;
		tk[k].p = s + b;
		tk[k++].n = i - b;
	}
	return k;
}

/* "12.5", "-0.3", "1,035,193.0" (thousands separators as toplev's locale
 * printed them); *decimals: digits after the point. */
static bool number(const char *s, size_t n, double *v, int *decimals)
{
	char buf[64];
	size_t k = 0;
	int dec = -1;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == ',' && k > 0 && buf[k - 1] >= '0' && buf[k - 1] <= '9' && dec < 0 && i + 3 < n &&
		    s[i + 1] >= '0' && s[i + 1] <= '9')
			continue;               /* a thousands separator */
		if (k + 1 >= sizeof buf)
			return false;
		if (!((c >= '0' && c <= '9') || c == '.' || ((c == '-' || c == '+') && k == 0)))
			return false;
		if (c == '.') {
			if (dec >= 0)
				return false;
			dec = 0;
		} else if (dec >= 0) {
			dec++;
		}
		buf[k++] = c;
	}
	if (k == 0 || (k == 1 && (buf[0] == '.' || buf[0] == '-' || buf[0] == '+')))
		return false;
	buf[k] = '\0';
	char *end;
	*v = strtod(buf, &end);
	if (*end)
		return false;
	*decimals = dec < 0 ? 0 : dec;
	return true;
}

/* S0, S0-C0, S0-C0-T0, S0-D0-C0, C0, C0-T1, T0, CPU3: the scope a row is
 * for; returns its length at the start of s (0: none). */
static size_t scope_len(const char *s, size_t n)
{
	size_t i = 0, end = 0;
	for (;;) {
		if (starts(s + i, n - i, "CPU"))
			i += 3;
		else if (i < n && (s[i] == 'S' || s[i] == 'D' || s[i] == 'C' || s[i] == 'T'))
			i++;
		else
			return end;
		size_t d = i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == d)
			return end;
		end = i;
		if (i + 1 < n && s[i] == '-')
			i++;
		else
			return end;
	}
}

/* FE, BAD, BE, RET and their sub-areas (BE/Mem, BE/Core): the areas of
 * the Top-down hierarchy. */
static bool tma_area(const char *s, size_t n)
{
	size_t k = 0;
	while (k < n && s[k] != '/')
		k++;
	return (k == 2 && !memcmp(s, "FE", 2)) || (k == 2 && !memcmp(s, "BE", 2)) || (k == 3 && !memcmp(s, "BAD", 3)) ||
	       (k == 3 && !memcmp(s, "RET", 3));
}

/* Other areas toplev prints rows for. */
static bool other_area(const char *s, size_t n)
{
	return starts(s, n, "Info") || starts(s, n, "Bottleneck") || (n == 3 && !memcmp(s, "MUX", 3));
}

/* The name is a Top-down node's: it starts at a Level 1 node. */
static bool tma_name(const char *s, size_t n)
{
	static const char *const roots[] = { "Frontend_Bound", "Bad_Speculation", "Backend_Bound", "Retiring" };
	for (size_t i = 0; i < sizeof roots / sizeof *roots; i++) {
		size_t k = strlen(roots[i]);
		if (n >= k && !memcmp(s, roots[i], k) && (n == k || s[k] == '.' || s[k] == ':'))
			return true;
	}
	return false;
}

/* "...Fetch_Latency.ITLB_Misses" (--abbrev) is the previous name with its
 * last components replaced: the longest prefix of it, cut at a dot, that
 * toplev's shortening would give for the joined name. */
static bool expand_name(struct stat_toplev *t, const char *s, size_t n, char *out)
{
	if (n < 3 || memcmp(s, "...", 3)) {
		if (n >= NAME_CAP)
			return false;
		memcpy(out, s, n);
		out[n] = '\0';
		return true;
	}
	s += 3;
	n -= 3;
	const char *last = t->last_name;
	for (size_t k = strlen(last); k > 0; k--) {
		if (last[k] != '.' && last[k] != '\0')
			continue;
		if (k + 1 + n >= NAME_CAP)
			continue;
		char cand[NAME_CAP];
		memcpy(cand, last, k);
		cand[k] = '.';
		memcpy(cand + k + 1, s, n);
		cand[k + 1 + n] = '\0';
		size_t c = 0;
		while (cand[c] && cand[c] == last[c])
			c++;
		while (c > 0 && cand[c - 1] != '.')
			c--;
		if (c > 0 && c - 1 == k) {
			memcpy(out, cand, k + 2 + n);
			return true;
		}
	}
	return false;
}

static void emit_node(struct stat_toplev *t, double interval, const char *scope, size_t scope_n, const char *name,
		      const char *unit, size_t unit_n, double value, int decimals, double mux, const char *file,
		      unsigned long lineno, stat_emit_fn emit, void *ctx)
{
	char sc[64], mu[NAME_CAP + 64];
	if (scope_n >= sizeof sc)
		scope_n = sizeof sc - 1;
	memcpy(sc, scope, scope_n);
	sc[scope_n] = '\0';
	if (unit_n > 48)
		unit_n = 48;
	snprintf(mu, sizeof mu, "%.*s %s", (int)unit_n, unit, name);
	struct stat_record r;
	stat_record_init(&r, file, lineno);
	r.kind = STAT_METRIC;
	r.source = STAT_FROM_TOPLEV;
	r.interval = interval;
	r.scope = sc;
	r.metric_unit = mu;
	r.metric_value = value;
	r.metric_decimals = decimals;
	if (!isnan(mux))
		r.enabled_pct = mux;
	emit(ctx, &r);
	t->nodes++;
	snprintf(t->last_name, sizeof t->last_name, "%s", name);
}

/* ---- text ---------------------------------------------------------------- */

enum row { ROW_NODE, ROW_OTHER, ROW_NONE, ROW_COLUMNS };

/* A text row: a node's record emitted (emit NULL: only classified). */
static enum row text_row(struct stat_toplev *t, const char *s, size_t n, const char *file, unsigned long lineno,
			 stat_emit_fn emit, void *ctx)
{
	struct tok tk[MAX_TOKENS];
	size_t k = split_blanks(s, n, tk, MAX_TOKENS), i = 0;
	if (k < 2)
		return ROW_NONE;
	double interval = -1;
	int dec;
	if (tk[0].n == 7 && !memcmp(tk[0].p, "SUMMARY", 7)) {
		i++;
	} else if (number(tk[0].p, tk[0].n, &interval, &dec) && memchr(tk[0].p, '.', tk[0].n) && k > 3) {
		i++;
	} else {
		interval = -1;
	}
	const char *scope = "";
	size_t scope_n = 0;
	struct tok area = { NULL, 0 };
	if (i < k) {
		size_t sl = scope_len(tk[i].p, tk[i].n);
		if (sl && sl == tk[i].n) {
			scope = tk[i].p;
			scope_n = sl;
			i++;
		} else if (sl && (tma_area(tk[i].p + sl, tk[i].n - sl) || other_area(tk[i].p + sl, tk[i].n - sl))) {
			scope = tk[i].p;           /* "S0-C0-T1BE/Mem": a long scope runs into the area */
			scope_n = sl;
			area = (struct tok){ tk[i].p + sl, tk[i].n - sl };
			i++;
		}
	}
	if (!area.p && i < k && (tma_area(tk[i].p, tk[i].n) || other_area(tk[i].p, tk[i].n)))
		area = tk[i++];
	if (!area.p || i >= k)
		return ROW_NONE;
	if (!tma_area(area.p, area.n))
		return ROW_OTHER;
	struct tok name = tk[i++];
	if (name.n && name.p[name.n - 1] == ':')
		name.n--;
	if (!tma_name(name.p, name.n) && !(name.n > 3 && !memcmp(name.p, "...", 3)))
		return ROW_OTHER;
	/* the rest: the unit's words and the value, either order, then markers */
	double value = NAN, mux = NAN;
	int decimals = -1;
	const char *unit = NULL, *unit_end = NULL;
	bool unit_open = false;         /* the token before was one of the unit's words */
	for (; i < k; i++) {
		const char *p = tk[i].p;
		size_t m = tk[i].n;
		if (p[0] == '[') {             /* "[ 3.3%]" or "[100.00%]": toplev's multiplex column */
			const char *e = memchr(p, ']', (size_t)(s + n - p));
			if (!e)
				break;
			const char *q = p + 1;
			while (q < e && *q == ' ')
				q++;
			double v;
			int d;
			size_t len = (size_t)(e - q);
			if (len && q[len - 1] == '%')
				len--;
			if (number(q, len, &v, &d))
				mux = v;
			while (i + 1 < k && tk[i + 1].p <= e)
				i++;
			unit_open = false;
			continue;
		}
		if (p[0] == '<' || p[0] == '?' || (m == 2 && !memcmp(p, "+-", 2)) || starts(p, m, "mismeasured"))
			break;                  /* below threshold, bottleneck, stddev */
		double again;
		int d2;
		if (!isnan(value) && number(p, m, &again, &d2))
			return ROW_COLUMNS;     /* --columns: a value per CPU, none of them the row's */
		if (isnan(value)) {
			size_t vm = m;
			while (vm && (p[vm - 1] == '<' || p[vm - 1] == '=' || p[vm - 1] == '?'))
				vm--;
			bool pct = vm > 1 && p[vm - 1] == '%';   /* 2.x: "35.21%" */
			if (number(p, pct ? vm - 1 : vm, &value, &decimals)) {
				if (pct && !unit) {
					unit = p + vm - 1;
					unit_end = p + vm;
				}
				unit_open = false;
				continue;
			}
		}
		if (unit && !unit_open)
			break;                  /* words after the unit and the value: not toplev's */
		if (!unit)
			unit = p;
		unit_end = p + m;
		unit_open = true;
	}
	if (isnan(value) || !unit || unit[0] != '%')
		return ROW_OTHER;
	if (!emit)
		return ROW_NODE;
	char full[NAME_CAP];
	if (!expand_name(t, name.p, name.n, full)) {
		td_bad_input(file, lineno, "toplev row names '%.*s', which follows no name it could shorten",
			     (int)(name.n > 80 ? 80 : name.n), name.p);
		return ROW_NONE;
	}
	emit_node(t, interval, scope, scope_n, full, unit, (size_t)(unit_end - unit), value, decimals, mux, file, lineno,
		  emit, ctx);
	return ROW_NODE;
}

/* ---- CSV ----------------------------------------------------------------- */

/* Fields of a row as Python's csv module writes them ("a ""b""" quoted
 * when it holds the separator or a quote): unquoted into buf. */
static int split_fields(const char *s, size_t n, char sep, struct tok *f, char *buf)
{
	int k = 0;
	size_t i = 0, w = 0;
	while (k < MAX_FIELDS) {
		f[k].p = buf + w;
		size_t start = w;
		if (i < n && s[i] == '"') {
			for (i++; i < n; i++) {
				if (s[i] == '"') {
					if (i + 1 < n && s[i + 1] == '"') {
						buf[w++] = '"';
						i++;
						continue;
					}
					i++;
					break;
				}
				buf[w++] = s[i];
			}
			while (i < n && s[i] != sep)
				buf[w++] = s[i++];
		} else {
			while (i < n && s[i] != sep)
				buf[w++] = s[i++];
		}
		f[k++].n = w - start;
		if (i >= n)
			break;
		i++;                            /* the separator */
	}
	return k;
}

/* The header: its columns by name. */
static bool csv_header(struct stat_toplev *t, const char *s, size_t n)
{
	const char *area = memmem(s, n, "Area", 4);
	if (!area || area + 4 >= s + n)
		return false;
	char sep = area[4];
	if (sep == ' ' || (sep >= 'A' && sep <= 'Z') || (sep >= 'a' && sep <= 'z'))
		return false;
	char buf[1024];
	if (n >= sizeof buf)
		return false;
	struct tok f[MAX_FIELDS];
	int k = split_fields(s, n, sep, f, buf);
	static const char *const names[NCOL] = { "Timestamp", "CPUs", "Area", "Value", "Unit", "Multiplex" };
	int col[NCOL];
	for (int c = 0; c < NCOL; c++) {
		col[c] = -1;
		for (int j = 0; j < k; j++)
			if (f[j].n == strlen(names[c]) && !memcmp(f[j].p, names[c], f[j].n))
				col[c] = j;
	}
	if (col[COL_AREA] < 0 || col[COL_VALUE] < 0 || col[COL_UNIT] < 0)
		return false;
	t->csv = true;
	t->sep = sep;
	t->ncols = k;
	memcpy(t->col, col, sizeof col);
	return true;
}

static enum row csv_row(struct stat_toplev *t, const char *s, size_t n, const char *file, unsigned long lineno,
			stat_emit_fn emit, void *ctx)
{
	if (!memchr(s, t->sep, n) || n >= 4096)
		return ROW_NONE;
	char buf[4096];
	struct tok f[MAX_FIELDS];
	int k = split_fields(s, n, t->sep, f, buf);
	if (k <= t->col[COL_AREA] || k <= t->col[COL_VALUE] || k <= t->col[COL_UNIT])
		return ROW_NONE;
	struct tok name = f[t->col[COL_AREA]], unit = f[t->col[COL_UNIT]];
	double value, interval = -1, mux = NAN;
	int decimals;
	if (t->col[COL_TS] >= 0 && t->col[COL_TS] < k) {
		struct tok ts = f[t->col[COL_TS]];
		int d;
		if (!(ts.n == 7 && !memcmp(ts.p, "SUMMARY", 7)) && !number(ts.p, ts.n, &interval, &d))
			return ROW_NONE;
	}
	if (!number(f[t->col[COL_VALUE]].p, f[t->col[COL_VALUE]].n, &value, &decimals)) {
		/* a node toplev could not compute has an empty value */
		return f[t->col[COL_VALUE]].n == 0 ? ROW_OTHER : ROW_NONE;
	}
	while (unit.n && (unit.p[unit.n - 1] == '<' || unit.p[unit.n - 1] == ' ' || unit.p[unit.n - 1] == '?'))
		unit.n--;                       /* "% Slots <": below its threshold */
	if (!tma_name(name.p, name.n) || !unit.n || unit.p[0] != '%')
		return ROW_OTHER;
	if (t->col[COL_MUX] >= 0 && t->col[COL_MUX] < k) {
		int d;
		double v;
		if (number(f[t->col[COL_MUX]].p, f[t->col[COL_MUX]].n, &v, &d))
			mux = v;
	}
	const char *scope = "";
	size_t scope_n = 0;
	if (t->col[COL_CPUS] >= 0 && t->col[COL_CPUS] < k) {
		scope = f[t->col[COL_CPUS]].p;
		scope_n = f[t->col[COL_CPUS]].n;
	}
	char full[NAME_CAP];
	if (name.n >= NAME_CAP)
		return ROW_NONE;
	memcpy(full, name.p, name.n);
	full[name.n] = '\0';
	emit_node(t, interval, scope, scope_n, full, unit.p, unit.n, value, decimals, mux, file, lineno, emit, ctx);
	return ROW_NODE;
}

/* ---- detection ------------------------------------------------------------ */

/* A shell prompt line that runs toplev ("$ toplev.py -l1 ...",
 * "[root@host dir]# ./toplev -l3 ..."). */
static bool runs_toplev(const char *s, size_t n)
{
	const char *p = memmem(s, n, "toplev", 6);
	if (!p)
		return false;
	const char *prompt = NULL;
	for (const char *q = s; q + 1 < p; q++)
		if ((*q == '$' || *q == '#') && q[1] == ' ')
			prompt = q;
	if (!prompt)
		return false;
	size_t rest = (size_t)(s + n - (p + 6));
	return rest == 0 || p[6] == ' ' || p[6] == '.';
}

/* toplev's version banner: "# 4.4-full-perf on Intel(R) ...", "# 3.4-full on ...". */
static bool banner(const char *s, size_t n)
{
	return n > 4 && s[0] == '#' && s[1] == ' ' && s[2] >= '0' && s[2] <= '9' && has(s, n, "-full") && has(s, n, " on ");
}

/* Lines of toplev's own that carry no value. */
static bool message(const char *s, size_t n)
{
	static const char *const prefixes[] = {
		"Using level ", "Will measure ", "Run toplev ", "Add --", "warning:", "Mismeasured ", "Nodes ",
		"have errata", "perf stat ", "Sampling events", "Rerunning workload", "Consider rerunning",
		"Idle CPUs ", "Setting nmi_watchdog", "Please ", "This metric ", "WARNING", "Not all ",
	};
	if (banner(s, n) || (n && s[0] == '#'))
		return true;
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
		if (starts(s, n, prefixes[i]))
			return true;
	/* "5 events not counted", "3 nodes had zero counts: ...", "1 results not referenced: 8" */
	size_t i = 0;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	return i && i < n && s[i] == ' ' &&
	       (has(s, n, " not counted") || has(s, n, " had zero counts") || has(s, n, " not referenced") ||
		has(s, n, " not supported") || has(s, n, " not found"));
}

/* perf stat's own output starts here: the file is perf's again. */
static bool perf_banner(const char *s, size_t n)
{
	return has(s, n, "Performance counter stats for") ||
	       ((has(s, n, "$ perf stat") || has(s, n, "# perf stat")) && !has(s, n, "toplev"));
}

bool stat_toplev_line(struct stat_toplev *t, const char *line, size_t len, bool rows_too, const char *file,
		      unsigned long lineno, stat_emit_fn emit, void *ctx)
{
	size_t b = 0;
	while (b < len && line[b] == ' ')
		b++;
	const char *s = line + b;
	size_t n = len - b;
	if (!t->active) {
		/* every marker but a node row starts with '#' (banner), 'U', 'W'
		 * (Using, Will), 'T', 'C', 'A' (the CSV header's first column) or
		 * holds "toplev" (a prompt): one look at the first byte, one search */
		if (!rows_too && !(n && strchr("#UWTCA", s[0])) && !memmem(s, n, "toplev", 6))
			return false;
		bool toplev = runs_toplev(s, n) || banner(s, n) || starts(s, n, "Using level ") ||
			      starts(s, n, "Will measure complete system") || csv_header(t, s, n) ||
			      (rows_too && (has(s, n, "_Bound") || has(s, n, "Retiring") || has(s, n, "Bad_Speculation")) &&
			       text_row(t, s, n, file, lineno, NULL, NULL) == ROW_NODE);
		if (!toplev)
			return false;
		t->active = true;
		t->seen = true;
		t->file = file;
	} else if (perf_banner(s, n)) {
		say_skipped(t);
		t->active = false;
		t->nodes = t->others = t->messages = t->foreign = t->columns = 0;
		return false;
	}
	if (runs_toplev(s, n)) {
		struct stat_record r;          /* a run of its own, as a perf stat command starts one */
		stat_record_init(&r, file, lineno);
		r.kind = STAT_COMMAND;
		size_t at = shell_prompt_len(s, n);   /* the command without its prompt */
		char *cmd = td_strndup(s + at, n - at);
		r.event = cmd;
		emit(ctx, &r);
		free(cmd);
		return true;
	}
	if (n == 0)
		return true;
	if (!t->csv && !(line[0] == '\t') && csv_header(t, s, n))
		return true;
	enum row row = ROW_NONE;
	if (line[0] != '\t') {
		if (t->csv)
			row = csv_row(t, s, n, file, lineno, emit, ctx);
		if (row == ROW_NONE)
			row = text_row(t, s, n, file, lineno, emit, ctx);
	}
	if (row == ROW_OTHER)
		t->others++;
	else if (row == ROW_COLUMNS)
		t->columns++;
	else if (row == ROW_NONE && (line[0] == '\t' || message(s, n)))
		t->messages++;
	else if (row == ROW_NONE && !(t->csv && csv_header(t, s, n)) && !(n >= 3 && !memcmp(s, "###", 3))) {
		if (!t->foreign++)
			t->first_foreign = lineno;
	}
	return true;
}
