/* The tools that read something other than the store: a node's
 * explanation (td-explain's knowledge base), perf stat text through the
 * derive engine, a profile through td-fold, branch stacks through
 * td-branches, and a collection through td-collect. Paths are taken only
 * inside the --allow-dir directories, after resolving links; programs are
 * exec'd without a shell, every argument checked first. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "analysis/derive.h"
#include "analysis/tma_explain.h"
#include "common/diag.h"
#include "common/input.h"
#include "filters/td-mcp/mcp.h"
#include "parsers/folded.h"
#include "parsers/sniff.h"
#include "store/store.h"

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static json_t *number(double v) { return isfinite(v) ? json_real(v) : json_null(); }


static json_t *finish(struct mcp_text *t, json_t *structured)
{
	json_t *r = mcp_tool_result(t->s ? t->s : "", structured, false);
	free(t->s);
	return r;
}

/* An optional argument, or its default (the schema checked its type). */
static const char *string_arg(json_t *args, const char *k, const char *dflt)
{
	return json_object_get(args, k) ? str(args, k) : dflt;
}

static long long integer_arg(json_t *args, const char *k, long long dflt)
{
	json_t *v = json_object_get(args, k);
	return v ? (long long)json_integer_value(v) : dflt;
}

static char *trimmed(char *s)
{
	size_t n = strlen(s);
	while (n && s[n - 1] == '\n')
		s[--n] = 0;
	return s;
}

/* ---- a tool's child ----
 * Every tool but explain_node runs its work in a worker (worker.c) and
 * checks what came back the same way: a cancelled call has no result; a
 * child that did not exit 0 is the tool's error, in the child's own words
 * (its stderr) or the tool's; a child that exited 0 leaves its stderr as
 * notes under the text. */
struct child_call {
	const char *tool;          /* names the error: "fold_top: ..." */
	const char *failed;        /* the error when the child said nothing */
	int (*fn)(void *arg);
	void *arg;
	double timeout_s;
	bool json;                 /* its stdout must be a JSON object, then in doc */
	char *path;                /* the file it reads (path_arg): freed with the run */
	struct worker_result r;    /* what came back */
	json_t *doc;
};

/* The call's result, its run freed. */
static json_t *child_end(struct child_call *k, json_t *result)
{
	free(k->path);
	json_decref(k->doc);
	worker_result_free(&k->r);
	return result;
}

/* Runs the child; true when it did its work. False with *result the
 * call's result (NULL: cancelled), the run already freed. */
static bool child_ran(struct child_call *k, const char *key, const struct mcp_cancel *c, json_t **result)
{
	k->doc = NULL;
	worker_run(k->fn, k->arg, key, c, k->timeout_s, &k->r);
	if (k->r.status == WORKER_DONE && !k->r.exit_code &&
	    (!k->json || ((k->doc = json_loads(k->r.out, 0, NULL)) && json_is_object(k->doc))))
		return true;
	json_t *error = NULL;
	if (k->r.status != WORKER_CANCELLED)
		error = mcp_tool_error("%s: %s", k->tool, k->r.err[0] ? trimmed(k->r.err) : k->failed);
	*result = child_end(k, error);
	return false;
}

/* The text, the child's stderr as notes under it, and structured; the
 * run freed. */
static json_t *child_result(struct child_call *k, struct mcp_text *t, json_t *structured)
{
	if (k->r.err[0])
		mcp_text_add(t, "notes: %s\n", trimmed(k->r.err));
	return child_end(k, finish(t, structured));
}

/* ---- explain_node ---- */

static const char *const vendor_names[TMA_NVENDORS] = { "intel", "amd", "arm" };

json_t *tool_explain_node(json_t *args, const struct mcp_cancel *c, const char *key)
{
	(void)c;
	(void)key;
	const char *found_as = NULL, *asked = str(args, "node");
	const struct tma_explanation *e = tma_explain_path(asked, &found_as);
	if (!e)
		return mcp_tool_error("explain_node: '%s' is no Top-down node tdkit knows; tdkit://nodes lists them", asked);
	const char *vendor = json_string_value(json_object_get(args, "vendor"));
	json_t *aliases = json_array(), *next = json_object();
	for (const char *p = e->aliases; p && *p;) {
		size_t n = strcspn(p, ",");
		if (n)
			json_array_append_new(aliases, json_stringn(p, n));
		p += n + (p[n] == ',');
	}
	struct mcp_text t = { 0 };
	mcp_text_add(&t, "%s", e->node);
	if (found_as)
		mcp_text_add(&t, " (the nearest node tdkit explains for %s)", asked);
	mcp_text_add(&t, "\nMeasures: %s\nWhy it grows: %s\nWhat to change: %s\n", e->measures, e->causes, e->change);
	for (int v = 0; v < TMA_NVENDORS; v++) {
		if (vendor && strcmp(vendor, vendor_names[v]))
			continue;
		if (e->next[v] && *e->next[v]) {
			json_object_set_new(next, vendor_names[v], json_string(e->next[v]));
			mcp_text_add(&t, "Next (%s): %s\n", vendor_names[v], e->next[v]);
		}
	}
	json_t *s = json_pack("{s:s, s:o, s:s, s:s, s:s, s:o}", "node", e->node, "aliases", aliases, "measures", e->measures,
			      "causes", e->causes, "change", e->change, "next", next);
	if (found_as)
		json_object_set_new(s, "asked", json_string(asked));
	return finish(&t, s);
}

/* ---- derive ---- */

struct derive_ctx {
	const char *text;
	size_t len;
	const char *cpu;
};

static void derived_run(void *ctx, const struct derive_run *r)
{
	json_t *runs = ctx, *metrics = json_array(), *tree = json_array();
	for (size_t i = 0; i < r->nmetrics; i++) {
		const struct derive_metric *m = &r->metrics[i];
		if (m->level > 0)
			json_array_append_new(tree, json_pack("{s:s, s:s, s:s, s:i, s:o, s:s, s:b, s:s}", "scope", m->scope,
							      "pmu", m->pmu, "node", m->name, "level", m->level, "value_pct",
							      number(m->value), "verdict", m->verdict, "on_path", m->on_path,
							      "source", m->source));
		else
			json_array_append_new(metrics, json_pack("{s:s, s:s, s:s, s:o, s:s, s:s, s:o, s:o, s:s}", "scope",
								 m->scope, "pmu", m->pmu, "name", m->name, "value",
								 number(m->value), "unit", m->unit, "verdict", m->verdict,
								 "confidence", number(m->confidence), "variance_pct",
								 number(m->variance_pct), "better", m->better));
	}
	json_array_append_new(runs, json_pack("{s:i, s:s, s:o, s:s, s:s, s:i, s:s, s:o, s:o}", "index", r->index, "layout",
					      r->layout, "elapsed_s", number(r->elapsed_s), "command", r->command, "model",
					      r->model, "deepest_level", r->deepest_level, "summary", r->summary, "metrics",
					      metrics, "tree", tree));
}

/* In the worker: the text as stdin, the engine over it, the runs as JSON. */
static int derive_child(void *arg)
{
	struct derive_ctx *d = arg;
	td_progname = "td-derive";
	int fd = memfd_create("text", 0);
	if (fd < 0 || write(fd, d->text, d->len) != (ssize_t)d->len || lseek(fd, 0, SEEK_SET) != 0 || dup2(fd, 0) < 0)
		td_die("cannot hold the text: %s", strerror(errno));
	json_t *runs = json_array();
	struct derive_options o = { .format = STAT_AUTO, .cpu = d->cpu };
	derive_file("-", &o, derived_run, runs);
	json_dumpf(json_pack("{s:o}", "runs", runs), stdout, JSON_COMPACT);
	return td_bad_input_count() && !json_array_size(runs) ? TD_EXIT_BAD : TD_EXIT_OK;
}

json_t *tool_derive(json_t *args, const struct mcp_cancel *c, const char *key)
{
	json_t *text = json_object_get(args, "text");
	struct derive_ctx d = { json_string_value(text), json_string_length(text),
				json_string_value(json_object_get(args, "cpu")) };
	struct child_call k = { .tool = "derive", .failed = "the derive engine failed", .fn = derive_child, .arg = &d,
				.timeout_s = mcp_cfg.tool_timeout_s };
	json_t *result;
	if (!child_ran(&k, key, c, &result))
		return result;
	k.doc = json_loads(k.r.out, 0, NULL);
	json_t *runs = json_object_get(k.doc, "runs");
	if (!json_array_size(runs))
		return child_end(&k, mcp_tool_error("derive: no perf stat run in the text%s%s", k.r.err[0] ? ": " : "",
						    trimmed(k.r.err)));
	struct mcp_text t = { 0 };
	size_t i, j;
	json_t *run, *m;
	json_array_foreach(runs, i, run) {
		mcp_text_add(&t, "run %zu (%s%s%s): %s\n", i + 1, str(run, "layout"), str(run, "model")[0] ? ", model " : "",
		    str(run, "model"), str(run, "summary"));
		bool path = false;
		json_array_foreach(json_object_get(run, "tree"), j, m) if (json_is_true(json_object_get(m, "on_path"))) {
			mcp_text_add(&t, "%s %s %.1f%%", path ? " >" : "bottleneck path:", str(m, "node"),
			    json_number_value(json_object_get(m, "value_pct")));
			path = true;
		}
		if (path)
			mcp_text_add(&t, "\n");
		json_array_foreach(json_object_get(run, "metrics"), j, m) {
			if (strcmp(str(m, "scope"), "all") && strcmp(str(m, "scope"), ""))
				continue;
			json_t *v = json_object_get(m, "value");
			mcp_text_add(&t, "  %s = %.4g %s%s%s\n", str(m, "name"), json_is_number(v) ? json_number_value(v) : NAN,
			    str(m, "unit"), str(m, "verdict")[0] ? "  " : "", str(m, "verdict"));
		}
	}
	return child_result(&k, &t, json_incref(k.doc));
}

/* ---- paths ---- */

/* The file's real path when it is a regular file inside an allowed
 * directory; NULL with why set otherwise. */
static char *allowed_real_path(const char *tool, const char *path, char *why, size_t cap)
{
	if (!mcp_cfg.nallow_dir) {
		snprintf(why, cap, "%s reads files only inside directories td-mcp was started with --allow-dir for, and none was given", tool);
		return NULL;
	}
	char *real = realpath(path, NULL);
	if (!real) {
		snprintf(why, cap, "%s: %s: %s", tool, path, strerror(errno));
		return NULL;
	}
	for (int i = 0; i < mcp_cfg.nallow_dir; i++) {
		size_t n = strlen(mcp_cfg.allow_dir[i]);
		if (!strncmp(real, mcp_cfg.allow_dir[i], n) && (real[n] == '/' || (n == 1 && real[0] == '/'))) {
			struct stat st;
			if (stat(real, &st) == 0 && S_ISREG(st.st_mode))
				return real;
			snprintf(why, cap, "%s: %s: not a regular file", tool, path);
			free(real);
			return NULL;
		}
	}
	snprintf(why, cap, "%s: %s is outside the directories td-mcp allows (--allow-dir)", tool, path);
	free(real);
	return NULL;
}

/* The "path" argument's real path (allowed_real_path); NULL with *error
 * the tool's error when it is not allowed. */
static char *path_arg(const char *tool, json_t *args, json_t **error)
{
	char why[PATH_MAX + 256];
	char *path = allowed_real_path(tool, str(args, "path"), why, sizeof why);
	if (!path)
		*error = mcp_tool_error("%s", why);
	return path;
}

/* Runs bin_dir/TOOL ARGV... with stdout to fd; its exit code, or -1. */
static int run_tool_to(const char *tool, char *const *argv, int fd)
{
	char exe[PATH_MAX];
	snprintf(exe, sizeof exe, "%s/%s", mcp_cfg.bin_dir, tool);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd, 1);
		execv(exe, argv);
		fprintf(stderr, "%s: cannot run: %s\n", exe, strerror(errno));
		_exit(127);
	}
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---- fold_top ---- */

struct counted {
	char *name;
	double count;
	unsigned long seen_in;                 /* the stack that counted it last (total: once per stack) */
};

struct counts {
	struct counted *e;
	size_t n, cap;                         /* open addressing; cap a power of two */
};

static struct counted *count_of(struct counts *c, const char *name, size_t len)
{
	if (2 * (c->n + 1) > c->cap) {
		struct counts bigger = { td_calloc(c->cap ? c->cap * 2 : 1024, sizeof *c->e), 0, c->cap ? c->cap * 2 : 1024 };
		for (size_t i = 0; i < c->cap; i++)
			if (c->e[i].name) {
				struct counted *slot = count_of(&bigger, c->e[i].name, strlen(c->e[i].name));
				free(slot->name);
				*slot = c->e[i];
			}
		free(c->e);
		*c = bigger;
	}
	unsigned long h = 5381;
	for (size_t i = 0; i < len; i++)
		h = h * 33 + (unsigned char)name[i];
	for (size_t i = h & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
		if (!c->e[i].name) {
			c->e[i].name = td_strndup(name, len);
			c->e[i].seen_in = (unsigned long)-1;
			c->n++;
			return &c->e[i];
		}
		if (!strncmp(c->e[i].name, name, len) && !c->e[i].name[len])
			return &c->e[i];
	}
}

static int by_count(const void *a, const void *b)
{
	const struct counted *x = a, *y = b;
	if (!x->name || !y->name)
		return !x->name - !y->name;
	return x->count < y->count ? 1 : x->count > y->count ? -1 : strcmp(x->name, y->name);
}

static json_t *top_of(struct counts *c, const char *key, double samples, long top)
{
	if (c->cap)                            /* an empty input has no table: qsort wants one */
		qsort(c->e, c->cap, sizeof *c->e, by_count);
	json_t *a = json_array();
	for (size_t i = 0; i < c->cap && c->e[i].name && (long)i < top; i++)
		json_array_append_new(a, json_pack("{s:s, s:f, s:f}", key, c->e[i].name, "count", c->e[i].count, "pct",
						   samples > 0 ? 100 * c->e[i].count / samples : 0.0));
	for (size_t i = 0; i < c->cap; i++)
		free(c->e[i].name);
	free(c->e);
	return a;
}

struct fold_ctx {
	const char *path;
	long top;
};

static int fold_child(void *arg)
{
	struct fold_ctx *f = arg;
	td_progname = "td-fold";
	FILE *in = fopen(f->path, "r");
	if (!in)
		td_die("%s: %s", f->path, strerror(errno));
	/* folded already, or something td-fold folds (perf script, perf.data) */
	struct sniff_votes v = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned char magic[8] = { 0 };
	size_t got = fread(magic, 1, 8, in);
	rewind(in);
	for (int i = 0; i < 200 && (n = getline(&line, &cap, in)) > 0; i++)
		sniff_vote(&v, line, (size_t)(line[n - 1] == '\n' ? n - 1 : n));
	bool folded = !(got == 8 && !memcmp(magic, "PERFILE2", 8)) && sniff_verdict(&v) == SNIFF_FOLDED;
	if (!folded) {
		fclose(in);
		int fd = memfd_create("folded", 0);
		char *argv[] = { "td-fold", "-j", "1", (char *)f->path, NULL };
		int rc = run_tool_to("td-fold", argv, fd);
		if (rc != 0)
			return rc < 0 ? TD_EXIT_BAD : rc;
		lseek(fd, 0, SEEK_SET);
		in = fdopen(fd, "r");
	} else {
		rewind(in);
	}
	struct counts stacks = { 0 }, self = { 0 }, total = { 0 };
	double samples = 0;
	unsigned long lineno = 0;
	while ((n = getline(&line, &cap, in)) > 0) {
		lineno++;
		size_t len = (size_t)n;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		struct folded_line fl;
		if (!len || !folded_parse(line, len, &fl)) {
			if (len)
				td_bad_input(f->path, lineno, "not a folded stack line");
			continue;
		}
		samples += fl.value;
		count_of(&stacks, fl.stack, fl.stack_len)->count += fl.value;
		const char *leaf = fl.stack;
		for (const char *p = fl.stack; p < fl.stack + fl.stack_len;) {
			const char *semi = memchr(p, ';', (size_t)(fl.stack + fl.stack_len - p));
			size_t fl_len = semi ? (size_t)(semi - p) : (size_t)(fl.stack + fl.stack_len - p);
			struct counted *t = count_of(&total, p, fl_len);
			if (t->seen_in != lineno) {
				t->count += fl.value;
				t->seen_in = lineno;
			}
			leaf = p;
			p += fl_len + 1;
		}
		count_of(&self, leaf, (size_t)(fl.stack + fl.stack_len - leaf))->count += fl.value;
	}
	free(line);
	fclose(in);
	json_t *doc = json_pack("{s:f, s:o, s:o, s:o}", "samples", samples, "stacks", top_of(&stacks, "stack", samples, f->top),
				"self", top_of(&self, "function", samples, f->top), "total",
				top_of(&total, "function", samples, f->top));
	json_dumpf(doc, stdout, JSON_COMPACT);
	json_decref(doc);
	return TD_EXIT_OK;
}

json_t *tool_fold_top(json_t *args, const struct mcp_cancel *c, const char *key)
{
	json_t *result;
	char *path = path_arg("fold_top", args, &result);
	if (!path)
		return result;
	struct fold_ctx f = { path, (long)integer_arg(args, "top", 20) };
	struct child_call k = { .tool = "fold_top", .failed = "folding failed", .fn = fold_child, .arg = &f,
				.timeout_s = mcp_cfg.tool_timeout_s, .json = true, .path = path };
	if (!child_ran(&k, key, c, &result))
		return result;
	json_t *doc = k.doc;
	struct mcp_text t = { 0 };
	double samples = json_number_value(json_object_get(doc, "samples"));
	mcp_text_add(&t, "%.0f samples.\nfunctions by own samples (leaf):\n", samples);
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(doc, "self"), i, e) if (i < 10)
		mcp_text_add(&t, "  %5.1f%%  %s\n", json_number_value(json_object_get(e, "pct")), str(e, "function"));
	mcp_text_add(&t, "functions by samples anywhere in the stack:\n");
	json_array_foreach(json_object_get(doc, "total"), i, e) if (i < 10)
		mcp_text_add(&t, "  %5.1f%%  %s\n", json_number_value(json_object_get(e, "pct")), str(e, "function"));
	mcp_text_add(&t, "hottest stacks:\n");
	json_array_foreach(json_object_get(doc, "stacks"), i, e) if (i < 5)
		mcp_text_add(&t, "  %5.1f%%  %s\n", json_number_value(json_object_get(e, "pct")), str(e, "stack"));
	return child_result(&k, &t, json_incref(doc));
}

/* ---- branches_top ---- */

struct exec_ctx {
	const char *tool;
	char **argv;
};

static int exec_child(void *arg)
{
	struct exec_ctx *x = arg;
	if (mcp_cfg.db)
		setenv("TD_DB", mcp_cfg.db, 1);
	char exe[PATH_MAX];
	snprintf(exe, sizeof exe, "%s/%s", mcp_cfg.bin_dir, x->tool);
	execv(exe, x->argv);
	fprintf(stderr, "%s: cannot run: %s\n", exe, strerror(errno));
	return 127;
}

json_t *tool_branches_top(json_t *args, const struct mcp_cancel *c, const char *key)
{
	json_t *result;
	char *path = path_arg("branches_top", args, &result);
	if (!path)
		return result;
	char top[32];
	snprintf(top, sizeof top, "%lld", integer_arg(args, "top", 20));
	const char *by = string_arg(args, "by", "pair"), *sort = string_arg(args, "sort", "mispredicted");
	char *argv[] = { "td-branches", "--json", "--top", top, "--by", (char *)by, "--sort", (char *)sort, "--", path, NULL };
	struct exec_ctx x = { "td-branches", argv };
	struct child_call k = { .tool = "branches_top", .failed = "td-branches failed", .fn = exec_child, .arg = &x,
				.timeout_s = mcp_cfg.tool_timeout_s, .json = true, .path = path };
	if (!child_ran(&k, key, c, &result))
		return result;
	struct mcp_text t = { 0 };
	char *compact = json_dumps(k.doc, JSON_COMPACT | JSON_SORT_KEYS);
	json_t *rows = json_object_get(k.doc, "rows");
	if (json_is_array(rows)) {
		size_t i;
		json_t *e;
		json_array_foreach(rows, i, e) {
			json_t *rate = json_object_get(e, "rate");
			mcp_text_add(&t, "%zu. %s -> %s: %lld of %lld mispredicted (%s%.2f%%), %s, %s\n", i + 1, str(e, "from"), str(e, "to"),
			    (long long)json_number_value(json_object_get(e, "mispredicted")),
			    (long long)json_number_value(json_object_get(e, "count")), json_is_number(rate) ? "" : "n/a ",
			    json_is_number(rate) ? 100 * json_number_value(rate) : 0.0, str(e, "type"), str(e, "likely_cause"));
		}
	} else {
		mcp_text_add(&t, "%s\n", compact);
	}
	free(compact);
	return child_result(&k, &t, json_incref(k.doc));
}

/* ---- collect ---- */

static double seconds_of(const char *d)
{
	char *end;
	double v = strtod(d, &end);
	return !strcmp(end, "ms") ? v / 1000 : !strcmp(end, "m") ? v * 60 : v;
}

json_t *tool_collect(json_t *args, const struct mcp_cancel *c, const char *key)
{
	json_t *process = json_object_get(args, "process"), *pid = json_object_get(args, "pid");
	bool system_wide = json_is_true(json_object_get(args, "system_wide"));
	if ((process != NULL) + (pid != NULL) + system_wide != 1)
		return mcp_tool_error("collect: name one target: process (a program's name), pid, or system_wide: true");
	const char *duration = string_arg(args, "duration", "10s");
	double secs = seconds_of(duration);
	if (!(secs > 0 && secs <= 3600))
		return mcp_tool_error("collect: duration %s: more than 0 and at most 1 hour (60m)", duration);
	char exe[PATH_MAX];
	snprintf(exe, sizeof exe, "%s/td-collect", mcp_cfg.bin_dir);
	if (access(exe, X_OK))
		return mcp_tool_error("collect: td-collect is not installed next to td-mcp (%s: %s)", exe, strerror(errno));
	char *argv[64];
	int n = 0;
	char level[16], pidtext[32], terms[2048];
	argv[n++] = "td-collect";
	argv[n++] = "--duration";
	argv[n++] = (char *)duration;
	if (json_object_get(args, "interval")) {
		argv[n++] = "--interval";
		argv[n++] = (char *)str(args, "interval");
	}
	if (json_object_get(args, "level")) {
		snprintf(level, sizeof level, "%lld", (long long)json_integer_value(json_object_get(args, "level")));
		argv[n++] = "--level";
		argv[n++] = level;
	}
	/* labels: k=v terms, each a label the store would take */
	snprintf(terms, sizeof terms, "%s", str(args, "labels"));
	for (char *save = NULL, *term = strtok_r(terms, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(term, '=');
		const char *bad = !eq ? "a label is k=v" : store_label_invalid(term, (size_t)(eq - term), eq + 1, strlen(eq + 1));
		if (!bad && term[0] == '-')
			bad = "a label key starts with a letter or digit";
		if (bad)
			return mcp_tool_error("collect: label '%s': %s", term, bad);
		if (n > 50)
			return mcp_tool_error("collect: at most 20 labels");
		argv[n++] = "--label";
		argv[n++] = term;
	}
	if (json_is_true(json_object_get(args, "dry_run")))
		argv[n++] = "--dry-run";
	else
		argv[n++] = "--store";    /* the store comes as $TD_DB (exec_child): a URL's password stays off the command line */
	if (process) {
		argv[n++] = "--process";
		argv[n++] = (char *)json_string_value(process);
	} else if (pid) {
		snprintf(pidtext, sizeof pidtext, "%lld", (long long)json_integer_value(pid));
		argv[n++] = "--pid";
		argv[n++] = pidtext;
	} else {
		argv[n++] = "-a";
	}
	argv[n] = NULL;
	struct exec_ctx x = { "td-collect", argv };
	struct child_call k = { .tool = "collect", .failed = "td-collect failed", .fn = exec_child, .arg = &x,
				.timeout_s = secs + 60 };
	json_t *result;
	if (!child_ran(&k, key, c, &result))
		return result;
	struct mcp_text t = { 0 };        /* its stderr is the text's second part, not notes */
	mcp_text_add(&t, "%s%s%s", trimmed(k.r.out), k.r.err[0] ? "\n" : "", trimmed(k.r.err));
	return child_end(&k, finish(&t, NULL));
}
