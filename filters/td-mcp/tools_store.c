/* The store's tools: each runs td-store's own verb (filters/td-store/cmd_*.c)
 * with --json in a worker and hands its rows on as structuredContent, with
 * a short text for the model to read. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/tma_explain.h"
#include "common/diag.h"
#include "filters/td-mcp/mcp.h"
#include "filters/td-store/verbs.h"

#define MAX_ARGS 32

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} verbs[] = {
	{ "list", cmd_list }, { "show", cmd_show }, { "query", cmd_query }, { "compare", cmd_compare }, { "trend", cmd_trend },
};

struct verb_call {
	int (*fn)(int argc, char **argv);
	char *argv[MAX_ARGS + 4];
	int argc;
};

static int run_verb(void *arg)
{
	struct verb_call *v = arg;
	td_progname = "td-store";
	return v->fn(v->argc, v->argv);
}

int mcp_store_verb(const char *const *argv, const struct mcp_cancel *c, const char *key, char **out, char **err)
{
	struct verb_call v = { 0 };
	for (size_t i = 0; i < sizeof verbs / sizeof *verbs; i++)
		if (!strcmp(verbs[i].name, argv[0]))
			v.fn = verbs[i].fn;
	if (!v.fn)
		td_die("no verb %s", argv[0]);
	while (argv[v.argc] && v.argc < MAX_ARGS)
		v.argv[v.argc] = (char *)argv[v.argc], v.argc++;
	if (mcp_cfg.db) {
		v.argv[v.argc++] = "--db";
		v.argv[v.argc++] = (char *)mcp_cfg.db;
	}
	v.argv[v.argc] = NULL;
	struct worker_result r;
	worker_run(run_verb, &v, key, c, mcp_cfg.tool_timeout_s, &r);
	*out = r.out;
	*err = r.err;
	if (r.status == WORKER_DONE)
		return r.exit_code;
	if (r.status == WORKER_CANCELLED) {
		free(*err);
		*err = NULL;
	} else if (r.status == WORKER_TIMEOUT) {
		free(*err);
		char m[96];
		snprintf(m, sizeof m, "td-store %s took longer than %.0f s and was stopped", argv[0], mcp_cfg.tool_timeout_s);
		*err = td_strndup(m, strlen(m));
	}
	return -1;
}

/* stderr of a verb as one message: its lines without the "td-store: " prefix. */
static const char *message_of(char *err)
{
	size_t n = strlen(err);
	while (n && err[n - 1] == '\n')
		err[--n] = 0;
	return n ? err : "the store gave no reason";
}

/* Runs a verb that prints JSON; the parsed document, or NULL with *result
 * set to the tool's error (or NULL: cancelled). ok_codes: exit codes that
 * are answers (compare's and trend's 1 is a finding). */
static json_t *run_json(const char *const *argv, int ok_max, const struct mcp_cancel *c, const char *key, int *rc,
			 json_t **result)
{
	char *out, *err;
	*rc = mcp_store_verb(argv, c, key, &out, &err);
	*result = NULL;
	json_t *doc = NULL;
	if (*rc < 0 && !err) {
		/* cancelled */
	} else if (*rc < 0 || *rc > ok_max) {
		*result = mcp_tool_error("%s", message_of(err));
	} else {
		json_error_t e;
		doc = json_loads(out, JSON_DECODE_ANY, &e);
		if (!doc)
			*result = mcp_tool_error("td-store %s printed no JSON (%s)%s%s", argv[0], e.text, err[0] ? ": " : "",
						 message_of(err));
	}
	free(out);
	free(err);
	return doc;
}

static char *verb_text(const char *const *argv, const struct mcp_cancel *c, const char *key, json_t **result)
{
	char *out, *err;
	int rc = mcp_store_verb(argv, c, key, &out, &err);
	*result = NULL;
	if (rc < 0 && !err) {
		free(out);
		return NULL;
	}
	if (rc < 0 || rc > 1) {
		*result = mcp_tool_error("%s", message_of(err));
		free(out);
		out = NULL;
	}
	free(err);
	return out;
}


static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static double num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static json_t *finish(struct mcp_text *t, json_t *structured)
{
	json_t *r = mcp_tool_result(t->s ? t->s : "", structured, false);
	free(t->s);
	return r;
}

/* --label, --since from the arguments into argv. */
static int filter_args(json_t *args, const char **argv, int n)
{
	const char *labels = json_string_value(json_object_get(args, "labels"));
	const char *since = json_string_value(json_object_get(args, "since"));
	if (labels && *labels) {
		argv[n++] = "--label";
		argv[n++] = labels;
	}
	if (since) {
		argv[n++] = "--since";
		argv[n++] = since;
	}
	return n;
}

static void int_arg(json_t *args, const char *name, long fallback, char *buf, size_t cap)
{
	json_t *v = json_object_get(args, name);
	snprintf(buf, cap, "%lld", v ? (long long)json_integer_value(v) : (long long)fallback);
}

json_t *tool_list_runs(json_t *args, const struct mcp_cancel *c, const char *key)
{
	char limit[32];
	int_arg(args, "limit", 50, limit, sizeof limit);
	const char *argv[MAX_ARGS] = { "list", "--json", "--limit", limit };
	filter_args(args, argv, 4);
	int rc;
	json_t *err, *runs = run_json(argv, 0, c, key, &rc, &err);
	if (!runs)
		return err;
	struct mcp_text t = { 0 };
	mcp_text_add(&t, "%zu run%s, newest first:\n", json_array_size(runs), json_array_size(runs) == 1 ? "" : "s");
	size_t i;
	json_t *r;
	json_array_foreach(runs, i, r) {
		mcp_text_add(&t, "%s  %s  %s", str(r, "id"), str(r, "time"), str(r, "summary"));
		const char *k;
		json_t *v;
		json_object_foreach(json_object_get(r, "labels"), k, v) if (strcmp(k, "events"))
			mcp_text_add(&t, "  %s=%s", k, json_string_value(v) ? json_string_value(v) : "");
		mcp_text_add(&t, "\n");
	}
	return finish(&t, json_pack("{s:o}", "runs", runs));
}

json_t *tool_get_run(json_t *args, const struct mcp_cancel *c, const char *key)
{
	const char *id = str(args, "id");
	bool tree = !json_is_false(json_object_get(args, "tree")), funnel = !json_is_false(json_object_get(args, "funnel")),
	     counters = json_is_true(json_object_get(args, "counters"));
	int rc;
	json_t *err;
	const char *show[] = { "show", "--stored", "--json", id, NULL };
	json_t *metrics = run_json(show, 0, c, key, &rc, &err);
	if (!metrics)
		return err;
	json_t *out = json_pack("{s:s, s:o}", "id", id, "metrics", metrics);
	struct mcp_text t = { 0 };
	if (tree) {
		const char *argv[] = { "show", "--tree", id, NULL };
		char *text = verb_text(argv, c, key, &err);
		if (!text) {
			json_decref(out);
			return err;
		}
		json_object_set_new(out, "tree", json_string(text));
		mcp_text_add(&t, "%s", text);
		free(text);
	}
	if (funnel) {
		json_t *rows = json_array();
		const char *scope = NULL;
		size_t i;
		json_t *m;
		json_array_foreach(metrics, i, m) {
			json_t *level = json_object_get(m, "tma_level");
			if (!json_is_integer(level) || json_integer_value(level) > 2)
				continue;
			if (!scope)
				scope = str(m, "scope");
			if (strcmp(scope, str(m, "scope")))
				continue;
			const char *node = str(m, "metric");
			bool useful = verb_node_is_useful(node), high = !strcmp(str(m, "verdict"), "high");
			json_array_append_new(rows, json_pack("{s:s, s:I, s:o, s:s, s:s}", "node", node, "level",
							      (json_int_t)json_integer_value(level), "value_pct",
							      json_is_number(json_object_get(m, "value")) ? json_real(num(m, "value")) : json_null(),
							      "kind", useful ? "useful" : "waste", "mark", high ? "\xe2\x9c\x97" : "\xe2\x9c\x93"));
			mcp_text_add(&t, "%s%s %-24s %6.1f%%  %s\n", json_array_size(rows) == 1 ? "\nfunnel (where the slots went):\n" : "",
			    json_integer_value(level) == 1 ? "" : "  ", node, num(m, "value"), useful ? "useful" : high ? "waste \xe2\x9c\x97 (high)" : "waste");
		}
		if (!json_array_size(rows))
			mcp_text_add(&t, "\n(no Top-down nodes in this run: no funnel)\n");
		json_object_set_new(out, "funnel", rows);
	}
	if (!tree) {
		size_t i;
		json_t *m;
		json_array_foreach(metrics, i, m) if (!json_is_integer(json_object_get(m, "tma_level")))
			mcp_text_add(&t, "%s %s = %g %s %s\n", str(m, "scope"), str(m, "metric"), num(m, "value"), str(m, "unit"),
			    str(m, "verdict"));
	}
	if (counters) {
		const char *argv[] = { "show", "--stored", "--counters", "--json", id, NULL };
		json_t *rows = run_json(argv, 0, c, key, &rc, &err);
		if (!rows) {
			json_decref(out);
			free(t.s);
			return err;
		}
		mcp_text_add(&t, "\n%zu counters (in structuredContent.counters)\n", json_array_size(rows));
		json_object_set_new(out, "counters", rows);
	}
	return finish(&t, out);
}

json_t *tool_query_bottlenecks(json_t *args, const struct mcp_cancel *c, const char *key)
{
	char top[32];
	int_arg(args, "top", 10, top, sizeof top);
	const char *argv[MAX_ARGS] = { "query", "--bottlenecks", "--json", "--top", top };
	filter_args(args, argv, 5);
	int rc;
	json_t *err, *nodes = run_json(argv, 0, c, key, &rc, &err);
	if (!nodes)
		return err;
	struct mcp_text t = { 0 };
	if (!json_array_size(nodes))
		mcp_text_add(&t, "no Top-down node in the runs selected\n");
	else
		mcp_text_add(&t, "Top-down nodes by mean share of the slots over the runs selected:\n");
	size_t i;
	json_t *n;
	json_array_foreach(nodes, i, n)
	{
		char sd[32] = "";
		if (isfinite(num(n, "sd_pct")))
			snprintf(sd, sizeof sd, ", sd %.1f", num(n, "sd_pct"));
		mcp_text_add(&t, "%zu. %s (level %lld): mean %.1f%%%s, on the bottleneck path in %lld of %lld runs, high in %lld\n",
		    i + 1, str(n, "node"), (long long)num(n, "level"), num(n, "mean_pct"), sd,
		    (long long)num(n, "on_path_runs"), (long long)num(n, "runs"), (long long)num(n, "high_runs"));
	}
	return finish(&t, json_pack("{s:o}", "nodes", nodes));
}

json_t *tool_query_by_node(json_t *args, const struct mcp_cancel *c, const char *key)
{
	const struct tma_explanation *e = tma_explain(str(args, "node"));
	if (!e)
		return mcp_tool_error("query_by_node: '%s' is no Top-down node tdkit knows (explain_node lists what a node "
				      "is; resources/read tdkit://nodes lists them all)", str(args, "node"));
	char min[64], max[64];
	json_t *minv = json_object_get(args, "min_pct"), *maxv = json_object_get(args, "max_pct");
	snprintf(min, sizeof min, "%.17g", minv ? json_number_value(minv) : 0.0);
	const char *argv[MAX_ARGS] = { "query", "--node", e->node, "--min", min, "--json" };
	int n = 6;
	if (maxv) {
		snprintf(max, sizeof max, "%.17g", json_number_value(maxv));
		argv[n++] = "--max";
		argv[n++] = max;
	}
	filter_args(args, argv, n);
	int rc;
	json_t *err, *runs = run_json(argv, 0, c, key, &rc, &err);
	if (!runs)
		return err;
	struct mcp_text t = { 0 };
	mcp_text_add(&t, "%zu run%s where %s is at least %s%%:\n", json_array_size(runs), json_array_size(runs) == 1 ? "" : "s",
	    e->node, min);
	size_t i;
	json_t *r;
	json_array_foreach(runs, i, r)
		mcp_text_add(&t, "%s  %s  %.1f%%  (%s%s%s)\n", str(r, "id"), str(r, "time"), num(r, "value"), str(r, "scope"),
		    str(r, "pmu")[0] ? " " : "", str(r, "pmu"));
	return finish(&t, json_pack("{s:s, s:o}", "node", e->node, "runs", runs));
}

/* compare: the report as text (what td-store prints) and as JSON. */
static json_t *compare(const char *const *json_argv, const char *const *text_argv, const struct mcp_cancel *c,
		       const char *key)
{
	int rc;
	json_t *err, *doc = run_json(json_argv, 1, c, key, &rc, &err);
	if (!doc)
		return err;
	char *text = verb_text(text_argv, c, key, &err);
	if (!text) {
		json_decref(doc);
		return err;
	}
	struct mcp_text t = { 0 };
	mcp_text_add(&t, "%s%s", rc == 1 ? "REGRESSION: at least one significant change for the worse.\n\n" : "", text);
	free(text);
	return finish(&t, json_pack("{s:b, s:o}", "regression", rc == 1, "comparison", doc));
}

json_t *tool_compare_runs(json_t *args, const struct mcp_cancel *c, const char *key)
{
	const char *a = str(args, "run_a"), *b = str(args, "run_b");
	const char *j[] = { "compare", "--json", a, b, NULL }, *t[] = { "compare", a, b, NULL };
	return compare(j, t, c, key);
}

json_t *tool_compare_by_labels(json_t *args, const struct mcp_cancel *c, const char *key)
{
	const char *a = str(args, "label_a"), *b = str(args, "label_b");
	char latest[32];
	int_arg(args, "latest", 0, latest, sizeof latest);
	bool l = json_object_get(args, "latest") != NULL;
	const char *j[] = { "compare", "--json", "--a", a, "--b", b, l ? "--latest" : NULL, latest, NULL };
	const char *t[] = { "compare", "--a", a, "--b", b, l ? "--latest" : NULL, latest, NULL };
	return compare(j, t, c, key);
}

json_t *tool_trend(json_t *args, const struct mcp_cancel *c, const char *key)
{
	char min_runs[32];
	int_arg(args, "min_runs", 5, min_runs, sizeof min_runs);
	const char *argv[MAX_ARGS] = { "trend", "--json", "--metric", str(args, "metric"), "--min-runs", min_runs };
	filter_args(args, argv, 6);
	int rc;
	json_t *err, *doc = run_json(argv, 1, c, key, &rc, &err);
	if (!doc)
		return err;
	json_t *points = json_object_get(doc, "points"), *changes = json_object_get(doc, "changes");
	struct mcp_text t = { 0 };
	mcp_text_add(&t, "%s over %zu runs", str(doc, "metric"), json_array_size(points));
	if (json_array_size(points)) {
		json_t *first = json_array_get(points, 0), *last = json_array_get(points, json_array_size(points) - 1);
		mcp_text_add(&t, " (%s: %g ... %s: %g)", str(first, "time"), num(first, "value"), str(last, "time"), num(last, "value"));
	}
	mcp_text_add(&t, ".\n");
	size_t i, anomalies = 0;
	json_t *p;
	json_array_foreach(points, i, p) if (json_is_true(json_object_get(p, "anomaly"))) {
		mcp_text_add(&t, "anomaly: run %s at %s: %g against a rolling mean of %g (z %.1f)\n", str(p, "id"), str(p, "time"),
		    num(p, "value"), num(p, "mean"), num(p, "z"));
		anomalies++;
	}
	json_array_foreach(changes, i, p)
		mcp_text_add(&t, "step: from run %s the mean moves %+.2f%% (%g -> %g, p %.2g)\n", str(p, "id"), num(p, "delta_pct"),
		    num(p, "before"), num(p, "after"), num(p, "p_value"));
	if (!anomalies && !json_array_size(changes))
		mcp_text_add(&t, "no anomaly and no step.\n");
	if (rc == 1)
		mcp_text_add(&t, "The CI gate fails: the newest run is an anomaly or a step starts among the newest runs.\n");
	json_object_set_new(doc, "flagged", json_boolean(rc == 1));
	return finish(&t, doc);
}
