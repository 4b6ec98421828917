/* The tools: names, descriptions, JSON Schemas, and one check of every
 * call's arguments against its tool's inputSchema (types, ranges, lengths,
 * patterns of a few kinds, enums, required, no unknown names), so each tool
 * reads arguments it can trust. The schema is the one statement of what a
 * tool takes: tools/list shows it and the check enforces it. */
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "filters/td-mcp/mcp.h"

#define LABELS_SCHEMA                                                                                          \
	"\"labels\": {\"type\": \"string\", \"maxLength\": 2048, \"description\": \"runs with these labels: "    \
	"k=v, k!=v, k~GLOB or k, comma-separated terms ANDed (td-store --label syntax), e.g. branch=main,bench=parse\"}"
#define SINCE_SCHEMA                                                                                           \
	"\"since\": {\"type\": \"string\", \"maxLength\": 40, \"description\": \"runs at or after: 7d, 12h, 2026-11-01 or "  \
	"2026-11-01T12:00:00Z\"}"
#define RUN_ID "{\"type\": \"string\", \"pattern\": \"^[0-9A-Za-z_.:-]{1,64}$\", \"description\": \"a run id, as list_runs gives it\"}"
#define PATH_SCHEMA                                                                                            \
	"\"path\": {\"type\": \"string\", \"maxLength\": 4096, \"description\": \"a file inside a directory td-mcp was "  \
	"started with --allow-dir for\"}"
#define ARRAY_OF_OBJECTS "{\"type\": \"array\", \"items\": {\"type\": \"object\"}}"

static const struct tool {
	const char *name, *title, *description;
	const char *input;                     /* JSON Schema of the arguments */
	const char *output;                    /* JSON Schema of structuredContent, NULL: text only */
	json_t *(*fn)(json_t *args, const struct mcp_cancel *c, const char *key);
	bool collect;                          /* listed and callable with --allow-collect only */
} tools[] = {
	{ "list_runs", "List stored runs",
	  "The runs kept in the tdkit store (td-store list), newest first, with their labels and a one-line summary "
	  "(Top-down Level 1, else IPC or CPUs utilized).",
	  "{\"type\": \"object\", \"properties\": {" LABELS_SCHEMA ", " SINCE_SCHEMA ", \"limit\": {\"type\": \"integer\", "
	  "\"minimum\": 1, \"maximum\": 1000, \"default\": 50, \"description\": \"at most this many runs\"}}, "
	  "\"additionalProperties\": false}",
	  "{\"type\": \"object\", \"properties\": {\"runs\": " ARRAY_OF_OBJECTS "}, \"required\": [\"runs\"]}",
	  tool_list_runs, false },
	{ "get_run", "One run",
	  "One stored run (td-store show): its metrics with verdicts, its Top-down tree, the funnel of where the "
	  "pipeline slots went, and optionally its counters.",
	  "{\"type\": \"object\", \"properties\": {\"id\": " RUN_ID ", \"tree\": {\"type\": \"boolean\", \"default\": true}, "
	  "\"funnel\": {\"type\": \"boolean\", \"default\": true}, \"counters\": {\"type\": \"boolean\", \"default\": false}}, "
	  "\"required\": [\"id\"], \"additionalProperties\": false}",
	  "{\"type\": \"object\", \"properties\": {\"id\": {\"type\": \"string\"}, \"metrics\": " ARRAY_OF_OBJECTS ", "
	  "\"tree\": {\"type\": \"string\"}, \"funnel\": " ARRAY_OF_OBJECTS ", \"counters\": " ARRAY_OF_OBJECTS "}, "
	  "\"required\": [\"id\", \"metrics\"]}",
	  tool_get_run, false },
	{ "query_bottlenecks", "Top bottlenecks",
	  "Top-down nodes ranked by their mean share over the runs a label filter selects (td-store query "
	  "--bottlenecks), with spread, how many runs have each on the bottleneck path and how many rate it high.",
	  "{\"type\": \"object\", \"properties\": {" LABELS_SCHEMA ", " SINCE_SCHEMA ", \"top\": {\"type\": \"integer\", "
	  "\"minimum\": 1, \"maximum\": 500, \"default\": 10}}, \"additionalProperties\": false}",
	  "{\"type\": \"object\", \"properties\": {\"nodes\": " ARRAY_OF_OBJECTS "}, \"required\": [\"nodes\"]}",
	  tool_query_bottlenecks, false },
	{ "query_by_node", "Runs by a Top-down node",
	  "The runs where a Top-down node (any vendor's name: dram_bound, DRAM_Bound, Backend_Bound.Memory_Bound...) "
	  "is at least min_pct percent (td-store query --node), highest first.",
	  "{\"type\": \"object\", \"properties\": {\"node\": {\"type\": \"string\", \"maxLength\": 128}, \"min_pct\": "
	  "{\"type\": \"number\", \"minimum\": 0, \"maximum\": 100, \"default\": 0}, \"max_pct\": {\"type\": \"number\", "
	  "\"minimum\": 0, \"maximum\": 100}, " LABELS_SCHEMA ", " SINCE_SCHEMA "}, \"required\": [\"node\"], "
	  "\"additionalProperties\": false}",
	  "{\"type\": \"object\", \"properties\": {\"node\": {\"type\": \"string\"}, \"runs\": " ARRAY_OF_OBJECTS "}, "
	  "\"required\": [\"node\", \"runs\"]}",
	  tool_query_by_node, false },
	{ "compare_runs", "Compare two runs",
	  "Two stored runs side by side with td-diff's thresholds and verdicts (td-store compare RUN_A RUN_B): every "
	  "counter, metric and node, its change and whether it is a regression.",
	  "{\"type\": \"object\", \"properties\": {\"run_a\": " RUN_ID ", \"run_b\": " RUN_ID "}, \"required\": [\"run_a\", "
	  "\"run_b\"], \"additionalProperties\": false}",
	  "{\"type\": \"object\", \"properties\": {\"regression\": {\"type\": \"boolean\"}, \"comparison\": {}}, "
	  "\"required\": [\"regression\", \"comparison\"]}",
	  tool_compare_runs, false },
	{ "compare_by_labels", "Compare two sets of runs",
	  "A/B over every run each side's labels select (td-store compare --a --b): Welch's test, td-diff's "
	  "thresholds, verdicts and why. label_a is the baseline, label_b the candidate.",
	  "{\"type\": \"object\", \"properties\": {\"label_a\": {\"type\": \"string\", \"maxLength\": 2048, \"description\": "
	  "\"side A's labels, e.g. build=release\"}, \"label_b\": {\"type\": \"string\", \"maxLength\": 2048}, \"latest\": "
	  "{\"type\": \"integer\", \"minimum\": 1, \"maximum\": 10000, \"description\": \"the newest N runs of each side\"}}, "
	  "\"required\": [\"label_a\", \"label_b\"], \"additionalProperties\": false}",
	  "{\"type\": \"object\", \"properties\": {\"regression\": {\"type\": \"boolean\"}, \"comparison\": {}}, "
	  "\"required\": [\"regression\", \"comparison\"]}",
	  tool_compare_by_labels, false },
	{ "trend", "A metric over time",
	  "One counter, metric or Top-down node over the selected runs in time order (td-store trend): rolling mean, "
	  "anomalies (|z| >= 3 and the metric's threshold) and change points (steps in the mean).",
	  "{\"type\": \"object\", \"properties\": {\"metric\": {\"type\": \"string\", \"maxLength\": 256}, " LABELS_SCHEMA ", "
	  SINCE_SCHEMA ", \"min_runs\": {\"type\": \"integer\", \"minimum\": 2, \"maximum\": 100000, \"default\": 5}}, "
	  "\"required\": [\"metric\"], \"additionalProperties\": false}",
	  "{\"type\": \"object\", \"properties\": {\"metric\": {\"type\": \"string\"}, \"points\": " ARRAY_OF_OBJECTS ", "
	  "\"changes\": " ARRAY_OF_OBJECTS ", \"flagged\": {\"type\": \"boolean\"}}, \"required\": [\"metric\", \"points\", "
	  "\"changes\", \"flagged\"]}",
	  tool_trend, false },
	{ "explain_node", "Explain a Top-down node",
	  "What a Top-down node (any vendor's name) measures, why it grows, what to change, and the next command to "
	  "run (td-explain).",
	  "{\"type\": \"object\", \"properties\": {\"node\": {\"type\": \"string\", \"maxLength\": 256}, \"vendor\": "
	  "{\"type\": \"string\", \"enum\": [\"intel\", \"amd\", \"arm\"], \"description\": \"whose next command; default: all\"}}, "
	  "\"required\": [\"node\"], \"additionalProperties\": false}",
	  "{\"type\": \"object\", \"properties\": {\"node\": {\"type\": \"string\"}, \"aliases\": {\"type\": \"array\"}, "
	  "\"measures\": {\"type\": \"string\"}, \"causes\": {\"type\": \"string\"}, \"change\": {\"type\": \"string\"}, "
	  "\"next\": {\"type\": \"object\"}}, \"required\": [\"node\", \"measures\"]}",
	  tool_explain_node, false },
	{ "derive", "Derive metrics from perf stat output",
	  "perf stat output (CSV -x, JSON -j or text, as perf printed it) in; per run the derived metrics with "
	  "verdicts and the Top-down tree with its bottleneck path out (the derive engine td-derive and td-store use).",
	  "{\"type\": \"object\", \"properties\": {\"text\": {\"type\": \"string\", \"minLength\": 1, \"maxLength\": 4194304}, "
	  "\"cpu\": {\"type\": \"string\", \"pattern\": \"^[a-z0-9-]{1,32}(:[0-9]{1,2})?$\", \"description\": "
	  "\"Top-down model instead of detecting it (td-derive --cpu)\"}}, \"required\": [\"text\"], "
	  "\"additionalProperties\": false}",
	  "{\"type\": \"object\", \"properties\": {\"runs\": " ARRAY_OF_OBJECTS "}, \"required\": [\"runs\"]}",
	  tool_derive, false },
	{ "fold_top", "Hottest stacks and functions",
	  "The hottest stacks, the functions with most samples of their own (leaf) and in total (anywhere in the stack) "
	  "of a profile: folded stacks, perf script text or perf.data (folded by td-fold).",
	  "{\"type\": \"object\", \"properties\": {" PATH_SCHEMA ", \"top\": {\"type\": \"integer\", \"minimum\": 1, "
	  "\"maximum\": 1000, \"default\": 20}}, \"required\": [\"path\"], \"additionalProperties\": false}",
	  "{\"type\": \"object\", \"properties\": {\"samples\": {\"type\": \"number\"}, \"stacks\": " ARRAY_OF_OBJECTS ", "
	  "\"self\": " ARRAY_OF_OBJECTS ", \"total\": " ARRAY_OF_OBJECTS "}, \"required\": [\"samples\", \"stacks\", \"self\", "
	  "\"total\"]}",
	  tool_fold_top, false },
	{ "branches_top", "Costliest branches",
	  "The branch sites that mispredict most, with rate, type, cycles and a likely cause (td-branches), from perf "
	  "script -F ip,brstack text, SPE samples or perf.data.",
	  "{\"type\": \"object\", \"properties\": {" PATH_SCHEMA ", \"top\": {\"type\": \"integer\", \"minimum\": 1, "
	  "\"maximum\": 1000, \"default\": 20}, \"by\": {\"type\": \"string\", \"enum\": [\"pair\", \"site\", \"func\", \"symbol\"], "
	  "\"default\": \"pair\"}, \"sort\": {\"type\": \"string\", \"enum\": [\"mispredicted\", \"rate\", \"count\"], "
	  "\"default\": \"mispredicted\"}}, \"required\": [\"path\"], \"additionalProperties\": false}",
	  "{\"type\": \"object\"}",
	  tool_branches_top, false },
	{ "collect", "Collect a run",
	  "Measure a running program by name (or pids, or the whole system) with perf stat through td-collect for a "
	  "duration, and keep the run in the store with labels. Enabled by td-mcp --allow-collect.",
	  "{\"type\": \"object\", \"properties\": {\"process\": {\"type\": \"string\", \"pattern\": "
	  "\"^[A-Za-z0-9_.+:@][A-Za-z0-9_.+:@ -]{0,63}$\"}, \"pid\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": "
	  "4194304}, \"system_wide\": {\"type\": \"boolean\"}, \"duration\": {\"type\": \"string\", \"pattern\": "
	  "\"^[0-9]{1,5}(ms|s|m)?$\", \"default\": \"10s\"}, \"interval\": {\"type\": \"string\", \"pattern\": "
	  "\"^[0-9]{1,5}(ms|s)?$\"}, \"level\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 6}, " LABELS_SCHEMA ", "
	  "\"dry_run\": {\"type\": \"boolean\", \"default\": false}}, \"additionalProperties\": false}",
	  NULL, tool_collect, true },
};
#define NTOOLS (sizeof tools / sizeof *tools)

/* Parsed once: the schemas are constants, so a parse failure is a bug
 * found by the first test. */
static json_t *input_schema[NTOOLS], *output_schema[NTOOLS];

static void parse_schemas(void)
{
	for (size_t i = 0; i < NTOOLS; i++) {
		json_error_t e;
		input_schema[i] = json_loads(tools[i].input, 0, &e);
		if (!input_schema[i])
			td_die("tool %s: inputSchema: %s", tools[i].name, e.text);
		if (tools[i].output && !(output_schema[i] = json_loads(tools[i].output, 0, &e)))
			td_die("tool %s: outputSchema: %s", tools[i].name, e.text);
	}
}

/* Once, whichever HTTP connection's thread asks first. */
static void load_schemas(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, parse_schemas);
}

json_t *mcp_tools_list(void)
{
	load_schemas();
	json_t *list = json_array();
	for (size_t i = 0; i < NTOOLS; i++) {
		if (tools[i].collect && !mcp_cfg.allow_collect)
			continue;
		json_t *t = json_pack("{s:s, s:s, s:s, s:O}", "name", tools[i].name, "title", tools[i].title, "description",
				      tools[i].description, "inputSchema", input_schema[i]);
		if (output_schema[i])
			json_object_set(t, "outputSchema", output_schema[i]);
		json_object_set_new(t, "annotations", json_pack("{s:b, s:b, s:b}", "readOnlyHint", !tools[i].collect,
								"destructiveHint", 0, "openWorldHint", 0));
		json_array_append_new(list, t);
	}
	return list;
}

json_t *mcp_tool_result(const char *text, json_t *structured, bool is_error)
{
	json_t *r = json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text", "text", text ? text : "", "isError",
			      is_error);
	if (structured)
		json_object_set_new(r, "structuredContent", structured);
	return r;
}

json_t *mcp_tool_error(const char *fmt, ...)
{
	char text[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	return mcp_tool_result(text, NULL, true);
}

/* A client that passes arguments as text (a command line) sends "5" and
 * "true": taken when the whole string is the number or the word. */
static json_t *coerced(json_t *v, const char *type)
{
	if (!json_is_string(v))
		return NULL;
	const char *s = json_string_value(v);
	char *end;
	if (!strcmp(type, "integer")) {
		long long n = strtoll(s, &end, 10);
		return *s && !*end ? json_integer(n) : NULL;
	}
	if (!strcmp(type, "number")) {
		double d = strtod(s, &end);
		return *s && !*end && isfinite(d) ? json_real(d) : NULL;
	}
	if (!strcmp(type, "boolean"))
		return !strcmp(s, "true") ? json_true() : !strcmp(s, "false") ? json_false() : NULL;
	return NULL;
}

static bool of_type(json_t *v, const char *type)
{
	if (!strcmp(type, "string"))
		return json_is_string(v);
	if (!strcmp(type, "integer"))
		return json_is_integer(v);
	if (!strcmp(type, "number"))
		return json_is_number(v);
	if (!strcmp(type, "boolean"))
		return json_is_boolean(v);
	if (!strcmp(type, "object"))
		return json_is_object(v);
	if (!strcmp(type, "array"))
		return json_is_array(v);
	return true;
}

/* Checks args in place (coercing text numbers); NULL if fine, else why not. */
static const char *check_args(const json_t *schema, json_t *args, char *why, size_t cap)
{
	json_t *props = json_object_get(schema, "properties"), *req = json_object_get(schema, "required");
	const char *k;
	json_t *v;
	void *tmp;
	json_object_foreach_safe(args, tmp, k, v) {
		json_t *p = json_object_get(props, k);
		if (!p) {
			char names[512] = "";
			const char *pk;
			json_t *pv;
			json_object_foreach(props, pk, pv) {
				size_t used = strlen(names);
				snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", pk);
			}
			snprintf(why, cap, "unknown argument '%s' (this tool takes: %s)", k, names);
			return why;
		}
		const char *type = json_string_value(json_object_get(p, "type"));
		if (type && !of_type(v, type)) {
			json_t *c = coerced(v, type);
			if (!c) {
				snprintf(why, cap, "argument '%s' must be %s %s", k, strchr("aeiou", type[0]) ? "an" : "a", type);
				return why;
			}
			json_object_set_new(args, k, c);
			v = c;
		}
		json_t *min = json_object_get(p, "minimum"), *max = json_object_get(p, "maximum");
		if (json_is_number(v) && ((min && json_number_value(v) < json_number_value(min)) ||
					  (max && json_number_value(v) > json_number_value(max)))) {
			snprintf(why, cap, "argument '%s' is %g; it must be between %g and %g", k, json_number_value(v),
				 min ? json_number_value(min) : -INFINITY, max ? json_number_value(max) : INFINITY);
			return why;
		}
		if (json_is_string(v)) {
			const char *s = json_string_value(v);
			size_t len = json_string_length(v);
			json_t *maxlen = json_object_get(p, "maxLength"), *minlen = json_object_get(p, "minLength");
			if (maxlen && len > (size_t)json_integer_value(maxlen)) {
				snprintf(why, cap, "argument '%s' is %zu bytes long; at most %lld", k, len,
					 (long long)json_integer_value(maxlen));
				return why;
			}
			if ((minlen && len < (size_t)json_integer_value(minlen)) || strlen(s) != len) {
				snprintf(why, cap, "argument '%s' is empty or holds a NUL byte", k);
				return why;
			}
			json_t *en = json_object_get(p, "enum");
			if (en) {
				size_t i;
				json_t *e;
				bool found = false;
				json_array_foreach(en, i, e) found |= !strcmp(json_string_value(e), s);
				if (!found) {
					char *list = json_dumps(en, JSON_COMPACT);
					snprintf(why, cap, "argument '%s' is '%.64s'; it must be one of %s", k, s, list);
					free(list);
					return why;
				}
			}
			const char *pattern = json_string_value(json_object_get(p, "pattern"));
			if (pattern) {
				regex_t re;
				bool match = !regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) && !regexec(&re, s, 0, NULL, 0);
				regfree(&re);
				if (!match) {
					snprintf(why, cap, "argument '%s' ('%.64s') does not have the form %s", k, s, pattern);
					return why;
				}
			}
		}
	}
	size_t i;
	json_t *r;
	json_array_foreach(req, i, r) if (!json_object_get(args, json_string_value(r)))
	{
		snprintf(why, cap, "argument '%s' is required", json_string_value(r));
		return why;
	}
	return NULL;
}

json_t *mcp_tools_call(const char *name, json_t *args, const char *request_key, const struct mcp_cancel *cancel,
		       struct mcp_error *e)
{
	load_schemas();
	for (size_t i = 0; i < NTOOLS; i++) {
		if (strcmp(tools[i].name, name))
			continue;
		if (tools[i].collect && !mcp_cfg.allow_collect) {
			mcp_fail(e, RPC_INVALID_PARAMS, "Unknown tool: %s (td-mcp serves it when started with --allow-collect)",
				 name);
			return NULL;
		}
		char why[1024];
		json_t *copy = json_deep_copy(args);
		if (check_args(input_schema[i], copy, why, sizeof why)) {
			json_decref(copy);
			return mcp_tool_error("%s: %s", name, why);
		}
		json_t *r = tools[i].fn(copy, cancel, request_key);
		json_decref(copy);
		if (!r)
			mcp_fail(e, MCP_CANCELLED, "cancelled");
		return r;
	}
	mcp_fail(e, RPC_INVALID_PARAMS, "Unknown tool: %s", name);
	return NULL;
}

void mcp_text_add(struct mcp_text *t, const char *fmt, ...)
{
	va_list ap, aq;
	va_start(ap, fmt);
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	t->s = td_realloc(t->s, t->len + (size_t)n + 1);
	vsnprintf(t->s + t->len, (size_t)n + 1, fmt, aq);
	va_end(aq);
	t->len += (size_t)n;
}
