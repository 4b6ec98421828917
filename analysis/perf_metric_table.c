/* perf_metric_table.h: perf list's metric listing read into a table, the
 * expressions compiled and linked once (a name is another metric of the
 * table, else an event), and evaluated per counter set with a memo. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "analysis/events.h"
#include "analysis/perf_expr.h"
#include "analysis/perf_metric_table.h"
#include "analysis/tma.h"
#include "common/diag.h"
#include "common/input.h"

static char *dup_n(const char *s, size_t n)
{
	char *d = td_malloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

static char *dup_s(const char *s) { return dup_n(s, strlen(s)); }

/* ---- reading perf list's listing --------------------------------------- */

/* One metric as it is being read. */
struct entry {
	char *name;
	char *bracket[2];
	int nbrackets;
	unsigned long line;
};

static void entry_clear(struct entry *e)
{
	free(e->name);
	free(e->bracket[0]);
	free(e->bracket[1]);
	memset(e, 0, sizeof(*e));
}

/* "... Unit: cpu_core " at the end of a description: the PMU. */
static char *unit_of(const char *desc)
{
	const char *u = strstr(desc, "Unit: ");
	if (!u)
		return dup_s("");
	u += 6;
	size_t n = strcspn(u, " ]");
	return dup_n(u, n);
}

static void add_group(struct perf_metric_def *d, const char *group)
{
	if (!group || !group[0])
		return;
	size_t gl = strlen(group), have = strlen(d->groups);
	for (const char *p = d->groups; *p;) {     /* listed once */
		size_t n = strcspn(p, ";");
		if (n == gl && !strncmp(p, group, n))
			return;
		p += n + (p[n] == ';');
	}
	d->groups = td_realloc(d->groups, have + gl + 2);
	if (have)
		d->groups[have++] = ';';
	memcpy(d->groups + have, group, gl + 1);
}

/* The entry read, into t (a metric listed under several groups is one,
 * with each group). */
static void commit(struct perf_metric_table *t, struct entry *e, const char *group, const char *file)
{
	if (!e->name)
		return;
	if (e->nbrackets == 0) {
		td_bad_input(file, e->line, "metric %s has no expression (perf list prints it in [ ] below the name)",
			     e->name);
		entry_clear(e);
		return;
	}
	const char *desc = e->nbrackets == 2 ? e->bracket[0] : "";
	const char *expr = e->bracket[e->nbrackets - 1];
	char *pmu = unit_of(desc);
	int at = -1;
	for (int i = 0; i < t->n && at < 0; i++)
		if (!strcmp(t->m[i].name, e->name) && !strcmp(t->m[i].pmu, pmu))
			at = i;
	if (at < 0) {
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 128;
			t->m = td_realloc(t->m, (size_t)t->cap * sizeof(*t->m));
		}
		at = t->n++;
		struct perf_metric_def *d = &t->m[at];
		memset(d, 0, sizeof(*d));
		d->name = e->name;
		e->name = NULL;
		d->pmu = pmu;
		pmu = NULL;
		d->description = dup_s(desc);
		d->lower = dup_s(d->name);
		for (char *c = d->lower; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		d->expr_text = dup_s(expr);
		d->groups = dup_s("");
	}
	free(pmu);
	add_group(&t->m[at], group);
	entry_clear(e);
}

/* A line "       [text]": text into out. */
static bool bracketed(const char *line, size_t len, char **out)
{
	size_t i = 0;
	while (i < len && line[i] == ' ')
		i++;
	if (i < 4 || i >= len || line[i] != '[' || line[len - 1] != ']')
		return false;
	*out = dup_n(line + i + 1, len - i - 2);
	return true;
}

static bool is_name_line(const char *line, size_t len)
{
	if (len < 3 || line[0] != ' ' || line[1] != ' ' || line[2] == ' ')
		return false;
	for (size_t i = 2; i < len; i++)
		if (!isalnum((unsigned char)line[i]) && !strchr("_.-", line[i]))
			return false;
	return true;
}

static bool read_listing(struct perf_metric_table *t, const char *path)
{
	struct td_input *in = td_input_open(path);
	if (!in)
		return false;
	const char *file = td_input_display_name(path);
	enum { NONE, METRICS, GROUPS } section = NONE;
	char *group = NULL;
	struct entry e = { 0 };
	const char *line;
	size_t len;
	while (td_input_next(in, &line, &len)) {
		while (len && (line[len - 1] == ' ' || line[len - 1] == '\t') && line[len - 1] != ']')
			len--;
		if (len == 0)
			continue;
		if ((len == 14 && !memcmp(line, "Metric Groups:", 14)) || (len == 8 && !memcmp(line, "Metrics:", 8))) {
			commit(t, &e, group, file);
			section = line[6] == ' ' ? GROUPS : METRICS;
			free(group);
			group = NULL;
			continue;
		}
		if (section == NONE)
			continue;                  /* perf list's events, or text around the listing */
		char *text;
		if (line[0] != ' ') {
			commit(t, &e, group, file);
			if (section == GROUPS && line[len - 1] == ':') {
				free(group);
				group = dup_n(line, len - 1);
			} else {
				section = NONE;        /* the listing ended */
			}
		} else if (is_name_line(line, len)) {
			commit(t, &e, group, file);
			e.name = dup_n(line + 2, len - 2);
			e.line = td_input_lineno(in);
		} else if (e.name && e.nbrackets < 2 && bracketed(line, len, &text)) {
			e.bracket[e.nbrackets++] = text;
		} else {
			td_bad_input(file, td_input_lineno(in), "not a line of perf list's metric listing: %.60s%s",
				     line, len > 60 ? "..." : "");
		}
	}
	commit(t, &e, group, file);
	free(group);
	bool failed = td_input_failed(in);
	td_input_close(in);
	return !failed;
}

/* ---- linking ------------------------------------------------------------ */

/* A name with a modifier ("CPU_CLK_UNHALTED.THREAD_P:k") counts a part
 * of the event: tdkit's canonical names drop modifiers, so its counter is
 * not one tdkit can tell apart, and the name keeps its modifier so that no
 * counter matches it (the metric is not computable, never computed from
 * the unmodified count). */
static const char *modifier_of(const char *raw)
{
	const char *slash = strrchr(raw, '/'), *colon = strrchr(raw, ':');
	if (!colon || (slash && colon < slash) || !colon[1])
		return NULL;
	for (const char *c = colon + 1; *c; c++)
		if (!strchr("ukhIGHSpPWe", *c))
			return NULL;
	return colon;
}

static int event_index(struct perf_metric_table *t, const char *raw)
{
	struct event_name ev;
	event_normalize(raw, &ev);
	const char *mod = modifier_of(raw);
	if (mod && strlen(ev.name) + strlen(mod) < sizeof ev.name)
		strcat(ev.name, mod);
	for (int i = 0; i < t->nevents; i++)
		if (!strcmp(t->events[i], ev.name))
			return i;
	if (t->nevents == t->evcap) {
		t->evcap = t->evcap ? 2 * t->evcap : 64;
		t->events = td_realloc(t->events, (size_t)t->evcap * sizeof(*t->events));
	}
	t->events[t->nevents] = dup_s(ev.name);
	return t->nevents++;
}

int perf_metric_find(const struct perf_metric_table *t, const char *name, const char *pmu)
{
	int any = -1;
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->m[i].name, name)) {
			if (!pmu[0] || !strcmp(t->m[i].pmu, pmu))
				return i;
			if (any < 0 && !t->m[i].pmu[0])
				any = i;
		}
	return any;
}

/* "tma_memory_bound_group" -> the metric "tma_memory_bound" as parent;
 * TopdownL<n> -> the level. */
static void place(struct perf_metric_table *t, struct perf_metric_def *d)
{
	for (const char *p = d->groups; *p;) {
		size_t n = strcspn(p, ";");
		if (n >= 9 && !strncmp(p, "TopdownL", 8) && isdigit((unsigned char)p[8]))
			d->level = atoi(p + 8);
		if (!d->parent && n > 10 && !strncmp(p, "tma_", 4) && !strncmp(p + n - 6, "_group", 6)) {
			char *parent = dup_n(p, n - 6);
			if (strcmp(parent, d->name) && perf_metric_find(t, parent, d->pmu) >= 0)
				d->parent = parent;
			else
				free(parent);
		}
		p += n + (p[n] == ';');
	}
}

static void link_all(struct perf_metric_table *t, const char *file)
{
	for (int i = 0; i < t->n; i++) {
		struct perf_metric_def *d = &t->m[i];
		char err[160];
		d->expr = perf_expr_compile(d->expr_text, err, sizeof err);
		place(t, d);
		if (!d->expr) {
			t->nbad++;
			td_warn(file, 0, "metric %s: the expression does not compile (%s): not computable", d->name, err);
			continue;
		}
		int nids = perf_expr_nids(d->expr);
		d->link = td_malloc((size_t)(nids ? nids : 1) * sizeof(*d->link));
		for (int k = 0; k < nids; k++) {
			d->link[k] = -1;
			if (perf_expr_id_kind(d->expr, k) != PERF_EXPR_NAME && perf_expr_id_kind(d->expr, k) != PERF_EXPR_HAS_EVENT)
				continue;
			const char *id = perf_expr_id(d->expr, k);
			int m = perf_expr_id_kind(d->expr, k) == PERF_EXPR_NAME ? perf_metric_find(t, id, d->pmu) : -1;
			d->link[k] = m >= 0 ? m : -2 - event_index(t, id);
		}
	}
}

struct perf_metric_table *perf_metric_table_load(const char *path)
{
	struct perf_metric_table *t = td_calloc(1, sizeof(*t));
	snprintf(t->source, sizeof t->source, "%s", path);
	if (!read_listing(t, path)) {
		perf_metric_table_free(t);
		return NULL;
	}
	if (t->n == 0) {
		td_bad_input(td_input_display_name(path), 0, "no metric in this file (expected the output of "
			     "'PERF_CPUID=ID perf list --details': a \"Metric Groups:\" or \"Metrics:\" listing)");
		perf_metric_table_free(t);
		return NULL;
	}
	link_all(t, td_input_display_name(path));
	return t;
}

void perf_metric_table_free(struct perf_metric_table *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->n; i++) {
		struct perf_metric_def *d = &t->m[i];
		free(d->name);
		free(d->pmu);
		free(d->description);
		free(d->lower);
		free(d->expr_text);
		free(d->groups);
		free(d->parent);
		free(d->link);
		perf_expr_free(d->expr);
	}
	for (int i = 0; i < t->nevents; i++)
		free(t->events[i]);
	for (int i = 0; i < t->nliterals; i++)
		free(t->literal[i]);
	free(t->events);
	free(t->m);
	free(t);
}

void perf_metric_table_set_literal(struct perf_metric_table *t, const char *literal, double value)
{
	for (int i = 0; i < t->nliterals; i++)
		if (!strcmp(t->literal[i], literal)) {
			t->literal_value[i] = value;
			return;
		}
	if (t->nliterals < 8) {
		t->literal[t->nliterals] = dup_s(literal);
		t->literal_value[t->nliterals++] = value;
	}
}

/* ---- the installed perf, and its cache ---------------------------------- */

bool perf_metric_cpuid_valid(const char *cpuid)
{
	if (!cpuid[0] || strlen(cpuid) > 60)
		return false;
	for (const char *p = cpuid; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_,", *p))
			return false;
	return true;
}

/* "6.1.192" from perf --version; false without perf. */
static bool perf_version(char *out, size_t cap)
{
	FILE *p = popen("perf --version 2>/dev/null", "r");
	if (!p)
		return false;
	char line[256] = "";
	bool got = fgets(line, sizeof line, p) != NULL;
	int rc = pclose(p);
	if (!got || rc != 0 || strncmp(line, "perf version ", 13))
		return false;
	size_t n = strcspn(line + 13, " \n");
	snprintf(out, cap, "%.*s", (int)n, line + 13);
	for (char *c = out; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-' && *c != '_')
			*c = '_';
	return out[0] != '\0';
}

static void make_dirs(const char *path)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	mkdir(buf, 0755);
}

struct perf_metric_table *perf_metric_table_for_cpuid(const char *cpuid, char *err, size_t cap)
{
	if (!perf_metric_cpuid_valid(cpuid)) {
		snprintf(err, cap, "--cpuid '%s' is not a cpuid (like GenuineIntel-6-8F-0 or AuthenticAMD-25-11-0)", cpuid);
		return NULL;
	}
	char version[64];
	if (!perf_version(version, sizeof version)) {
		snprintf(err, cap, "--cpuid %s: perf is not installed here; give its metric listing with --metrics FILE "
			 "(PERF_CPUID=%s perf list --details > FILE, on a machine with perf)", cpuid, cpuid);
		return NULL;
	}
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char dir[512], path[700], tmp[720];
	if (xdg && xdg[0] == '/')
		snprintf(dir, sizeof dir, "%s/tdkit", xdg);
	else
		snprintf(dir, sizeof dir, "%s/.cache/tdkit", home && home[0] ? home : "/tmp");
	snprintf(path, sizeof path, "%s/perf-%s-%s.metrics", dir, version, cpuid);
	const char *listing = path;          /* the cached listing, else a temporary one */
	if (access(path, R_OK) != 0) {
		make_dirs(dir);
		snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
		char cmd[1600];
		snprintf(cmd, sizeof cmd, "PERF_CPUID='%s' perf list --details 2>/dev/null > '%s'", cpuid, tmp);
		if (system(cmd) != 0 || rename(tmp, path) != 0) {
			unlink(tmp);
			/* no cache directory: read perf's output from the temporary file */
			snprintf(tmp, sizeof tmp, "/tmp/tdkit-perf-%s-%ld.metrics", cpuid, (long)getpid());
			snprintf(cmd, sizeof cmd, "PERF_CPUID='%s' perf list --details 2>/dev/null > '%s'", cpuid, tmp);
			if (system(cmd) != 0) {
				unlink(tmp);
				snprintf(err, cap, "--cpuid %s: 'perf list --details' failed", cpuid);
				return NULL;
			}
			listing = tmp;
		}
	}
	/* a listing without metrics: said here, not as bad input */
	FILE *f = fopen(listing, "r");
	char line[256];
	bool any = false, header = false;
	while (f && !any && fgets(line, sizeof line, f)) {
		header |= !strncmp(line, "Metric Groups:", 14) || !strncmp(line, "Metrics:", 8);
		any = header && line[0] == ' ' && line[1] == ' ' && line[2] != ' ' && line[2] != '\n';
	}
	if (f)
		fclose(f);
	if (!any) {
		snprintf(err, cap, "--cpuid %s: perf %s has no metric table for this CPU (a CPU newer than the perf "
			 "build lists nothing); give a newer perf's listing with --metrics FILE", cpuid, version);
		if (listing == tmp)
			unlink(tmp);
		return NULL;
	}
	struct perf_metric_table *t = perf_metric_table_load(listing);
	if (listing == tmp)
		unlink(tmp);
	if (!t) {
		snprintf(err, cap, "--cpuid %s: perf %s's listing could not be read", cpuid, version);
		return NULL;
	}
	snprintf(t->source, sizeof t->source, "perf %s PERF_CPUID=%s", version, cpuid);
	snprintf(t->cpuid, sizeof t->cpuid, "%s", cpuid);
	return t;
}

/* ---- evaluation ---------------------------------------------------------- */

/* Literals read as booleans: tried both ways when the caller set none. */
static const char *const boolean_literals[] = { "#smt_on", "#core_wide" };
#define NBOOL 2

struct eval {
	const struct perf_metric_table *t;
	struct tma_ctx c;
	const char *pmu;
	double *ev;                 /* per event: value, NaN missing */
	unsigned char *ev_state;    /* 0 not looked up */
	struct perf_expr_value *mv;
	const char **need;          /* per metric: the name it needs */
	unsigned char *state;       /* 0 to do, 1 under way, 2 done */
	unsigned assignment;        /* bit k: boolean_literals[k] */
	bool used_bool[NBOOL];
};

static double event_value(struct eval *x, int e)
{
	if (!x->ev_state[e]) {
		x->ev[e] = tma_ev(&x->c, x->t->events[e]);
		x->ev_state[e] = 1;
	}
	return x->ev[e];
}

static struct perf_expr_value literal(struct eval *x, const char *name, int id, const char **need)
{
	struct perf_expr_value v = { NAN, -1, true, false };
	for (int i = 0; i < x->t->nliterals; i++)
		if (!strcmp(x->t->literal[i], name)) {
			v.v = x->t->literal_value[i];
			return v;
		}
	for (int k = 0; k < NBOOL; k++)
		if (!strcmp(boolean_literals[k], name)) {
			x->used_bool[k] = true;
			v.v = (x->assignment >> k) & 1;
			return v;
		}
	v.need = id;
	*need = name;
	return v;
}

static struct perf_expr_value metric(struct eval *x, int i);

static struct perf_expr_value input(struct eval *x, const struct perf_metric_def *d, int id, const char **need)
{
	struct perf_expr_value v = { NAN, -1, false, false };
	const char *name = perf_expr_id(d->expr, id);
	switch (perf_expr_id_kind(d->expr, id)) {
	case PERF_EXPR_LITERAL:
		return literal(x, name, id, need);
	case PERF_EXPR_HAS_EVENT:
		v.v = !isnan(event_value(x, -2 - d->link[id]));
		v.konst = true;
		return v;
	case PERF_EXPR_CPUID_STR:
		if (x->t->cpuid[0]) {
			v.v = strncasecmp(x->t->cpuid, name, strlen(name)) != 0;     /* 0: the cpuid matches */
			v.konst = true;
			return v;
		}
		break;
	case PERF_EXPR_SOURCE_COUNT:
		break;                     /* how many PMUs perf merged: not in its output */
	case PERF_EXPR_NAME:
		if (d->link[id] >= 0) {
			struct perf_expr_value r = metric(x, d->link[id]);
			if (r.need >= 0) {
				*need = x->need[d->link[id]];
				r.need = id;
			}
			return r;
		}
		v.v = event_value(x, -2 - d->link[id]);
		if (!isnan(v.v))
			return v;
		v.need = id;
		*need = x->t->events[-2 - d->link[id]];     /* as tdkit names events */
		return v;
	}
	v.need = id;
	*need = name;
	return v;
}

static struct perf_expr_value metric(struct eval *x, int i)
{
	const struct perf_metric_def *d = &x->t->m[i];
	if (x->state[i] == 2)
		return x->mv[i];
	struct perf_expr_value none = { NAN, 0, false, false };
	if (x->state[i] == 1 || !d->expr) {        /* a loop of references, or no expression */
		x->need[i] = d->name;
		return none;
	}
	x->state[i] = 1;
	int nids = perf_expr_nids(d->expr);
	struct perf_expr_value small[32], *in = nids <= 32 ? small : td_malloc((size_t)nids * sizeof(*in));
	const char *small_need[32], **need = nids <= 32 ? small_need : td_malloc((size_t)nids * sizeof(*need));
	for (int k = 0; k < nids; k++) {
		need[k] = NULL;
		in[k] = input(x, d, k, &need[k]);
	}
	struct perf_expr_value r = perf_expr_eval(d->expr, in);
	x->need[i] = r.need >= 0 && need[r.need] ? need[r.need] : "";
	if (in != small)
		free(in);
	if (need != small_need)
		free(need);
	x->mv[i] = r;
	x->state[i] = 2;
	return r;
}

static bool of_pmu(const struct perf_metric_def *d, const char *pmu)
{
	return !d->pmu[0] || !strcmp(d->pmu, pmu) || (!pmu[0] && !strcmp(d->pmu, "cpu"));
}

void perf_metric_table_eval(const struct perf_metric_table *t, const struct counter_set *s,
			    struct perf_metric_result *out)
{
	size_t n = (size_t)(t->n ? t->n : 1);
	struct eval x = { .t = t, .c = { s, 0, NULL }, .pmu = s->pmu };
	x.ev = td_malloc((size_t)(t->nevents ? t->nevents : 1) * sizeof(*x.ev));
	x.ev_state = td_calloc((size_t)(t->nevents ? t->nevents : 1), 1);
	x.mv = td_malloc(n * sizeof(*x.mv));
	x.need = td_malloc(n * sizeof(*x.need));
	x.state = td_malloc(n);
	for (int i = 0; i < t->n; i++)
		out[i] = (struct perf_metric_result){ NAN, "", false, false };
	bool *seen = td_calloc(n, sizeof(*seen));
	/* assignment 0 first; the others only for the literals it used */
	for (unsigned a = 0; a < (1u << NBOOL); a++) {
		bool wanted = true;
		for (int k = 0; k < NBOOL; k++)
			if ((a >> k) & 1 && !x.used_bool[k])
				wanted = false;
		if (!wanted)
			continue;
		x.assignment = a;
		memset(x.state, 0, n);
		for (int i = 0; i < t->n; i++) {
			if (!of_pmu(&t->m[i], s->pmu))
				continue;
			struct perf_expr_value r = metric(&x, i);
			struct perf_metric_result *o = &out[i];
			if (r.need >= 0 || r.divzero) {
				if (!seen[i] && a == 0) {
					o->needs = x.need[i];
					o->divzero = r.divzero && r.need < 0;
				}
				continue;
			}
			if (!seen[i]) {
				seen[i] = true;
				o->value = r.v;
				o->needs = "";
				o->divzero = false;
			} else if (!o->ambiguous && !(fabs(o->value - r.v) <= 1e-12 * fabs(r.v)) &&
				   !(isnan(o->value) && isnan(r.v))) {
				o->ambiguous = true;
				o->value = NAN;
				o->needs = x.used_bool[0] ? boolean_literals[0] : boolean_literals[1];
			}
		}
	}
	free(seen);
	free(x.ev);
	free(x.ev_state);
	free(x.mv);
	free(x.need);
	free(x.state);
}

struct perf_metric_table *perf_metric_table_open(const char *file, const char *cpuid, bool quiet)
{
	struct perf_metric_table *t = NULL;
	if (file) {
		t = perf_metric_table_load(file);
		if (t && cpuid && perf_metric_cpuid_valid(cpuid))
			snprintf(t->cpuid, sizeof t->cpuid, "%s", cpuid);
	} else if (cpuid) {
		char err[512];
		t = perf_metric_table_for_cpuid(cpuid, err, sizeof err);
		if (!t && !quiet)
			td_warn(NULL, 0, "%s; the Top-down tree is tdkit's own (Level 1-3)", err);
	}
	return t;
}
