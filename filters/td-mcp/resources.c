/* tdkit:// resources: each run's Top-down tree (a template and the newest
 * runs listed), the explain knowledge base and how to read the tree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/tma_explain.h"
#include "common/diag.h"
#include "filters/td-mcp/mcp.h"

#define RUN_PREFIX "tdkit://runs/"
#define RUNS_LISTED "100"

static const char methodology[] =
	"# Reading a Top-down tree (tdkit)\n\n"
	"A core can issue a fixed number of micro-operations per cycle: its pipeline slots (4 on Skylake, 6 on\n"
	"Golden Cove and Zen 4, 8 on Zen 5 and Neoverse V2 ...). Top-down sorts every slot of a run into one of four\n"
	"Level 1 nodes, which add up to 100 %:\n\n"
	"- retiring: the slot did useful work (a micro-op that completed). High is good, unless the work itself is\n"
	"  wasteful (look at the instruction count and vectorisation).\n"
	"- bad_speculation: the slot was used by work thrown away (mispredicted branches, machine clears).\n"
	"- frontend_bound: the back end could take a micro-op but the front end had none to give (instruction\n"
	"  cache and TLB misses, decoding, branch resteers).\n"
	"- backend_bound: a micro-op was ready but the back end could not take it (memory: cache and DRAM misses;\n"
	"  core: busy execution ports, dividers).\n\n"
	"Each node splits into children (Level 2, 3 ...): backend_bound into memory_bound and core_bound,\n"
	"memory_bound into l1/l2/l3/dram/store_bound, and so on. A child's value is in percent of all slots too, so\n"
	"children add up to their parent.\n\n"
	"How tdkit reads it:\n"
	"1. Follow the bottleneck path: at each level the largest waste node that is above its threshold (tdkit\n"
	"   marks the nodes 'high' and 'on_path'). Its deepest node is where to look first.\n"
	"2. The funnel: retiring is useful work, everything else waste; it says how much could be won at most.\n"
	"3. Check the confidence: a node from counters that were multiplexed (enabled < 100 %) is an estimate; a\n"
	"   'mismeasured' node has inputs that do not add up and should be measured again with fewer events.\n"
	"4. Explain the node (explain_node or tdkit://nodes): what it measures, why it grows, what to change, and\n"
	"   the next command to run to drill down.\n"
	"5. Compare runs with statistics, not single numbers: compare_by_labels uses every run of each side and\n"
	"   Welch's test; trend finds anomalies and steps over a history.\n\n"
	"Thresholds (Level 1): retiring above 80 % is near the machine's peak; bad_speculation above 15 %, frontend\n"
	"above 20 % and backend above 40 % are worth a look. A Level 2 or deeper node matters when it is on the path.\n";

json_t *mcp_resource_templates(void)
{
	return json_pack("[{s:s, s:s, s:s, s:s}]", "uriTemplate", RUN_PREFIX "{id}/tree", "name", "run-tree", "title",
			 "A run's Top-down tree", "description",
			 "The Top-down tree of a stored run, as td-store show --tree draws it (ids from list_runs)",
			 "mimeType", "text/plain");
}

json_t *mcp_resources_list(const struct mcp_cancel *c, const char *key)
{
	json_t *list = json_pack("[{s:s, s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s, s:s}]", "uri", "tdkit://nodes", "name",
				 "nodes", "title", "Top-down nodes explained", "description",
				 "Every Top-down node tdkit knows: its vendors' names, what it measures, causes, what to change, "
				 "the next command",
				 "mimeType", "application/json", "uri", "tdkit://methodology", "name", "methodology", "title",
				 "How to read the Top-down tree", "description",
				 "The method behind tdkit's trees, paths, funnels and comparisons", "mimeType", "text/markdown");
	const char *argv[] = { "list", "--json", "--limit", RUNS_LISTED, NULL };
	char *out, *err;
	if (mcp_store_verb(argv, c, key, &out, &err) == 0) {
		json_t *runs = json_loads(out, 0, NULL);
		size_t i;
		json_t *r;
		json_array_foreach(runs, i, r) {
			const char *id = json_string_value(json_object_get(r, "id"));
			const char *summary = json_string_value(json_object_get(r, "summary"));
			if (!id)
				continue;
			char uri[128], name[128];
			snprintf(uri, sizeof uri, RUN_PREFIX "%s/tree", id);
			snprintf(name, sizeof name, "run %s", id);
			json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s}", "uri", uri, "name", name, "description",
							      summary && *summary ? summary : "a stored run", "mimeType",
							      "text/plain"));
		}
		json_decref(runs);
	}
	free(out);
	free(err);
	return list;
}

static json_t *nodes_json(void)
{
	json_t *a = json_array();
	for (const struct tma_explanation *e = tma_explanations(); e->node; e++) {
		json_t *next = json_object();
		static const char *const vendors[TMA_NVENDORS] = { "intel", "amd", "arm" };
		for (int v = 0; v < TMA_NVENDORS; v++)
			if (e->next[v] && *e->next[v])
				json_object_set_new(next, vendors[v], json_string(e->next[v]));
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:s, s:o}", "node", e->node, "aliases",
						   e->aliases ? e->aliases : "", "measures", e->measures, "causes", e->causes,
						   "change", e->change, "next", next));
	}
	return a;
}

static json_t *contents(const char *uri, const char *mime, const char *text)
{
	return json_pack("[{s:s, s:s, s:s}]", "uri", uri, "mimeType", mime, "text", text);
}

/* A run id as td-store makes them: 1 to 64 of [0-9A-Za-z_.:-]. */
static bool run_id_ok(const char *id)
{
	size_t n = strspn(id, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_.:-");
	return n >= 1 && n <= 64 && id[n] == '\0';
}

static json_t *not_found(const char *uri, bool modern, struct mcp_error *e, const char *why)
{
	mcp_fail(e, modern ? RPC_INVALID_PARAMS : MCP_RESOURCE_NOT_FOUND_LEGACY, "Resource not found: %s", why);
	e->data = json_pack("{s:s}", "uri", uri);
	return NULL;
}

json_t *mcp_resource_read(const char *uri, bool modern, const struct mcp_cancel *c, const char *key, struct mcp_error *e)
{
	if (!strcmp(uri, "tdkit://methodology"))
		return contents(uri, "text/markdown", methodology);
	if (!strcmp(uri, "tdkit://nodes")) {
		json_t *nodes = nodes_json();
		char *text = json_dumps(nodes, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		json_t *r = contents(uri, "application/json", text);
		free(text);
		json_decref(nodes);
		return r;
	}
	size_t plen = strlen(RUN_PREFIX), n = strlen(uri);
	if (strncmp(uri, RUN_PREFIX, plen) || n < plen + 6 || strcmp(uri + n - 5, "/tree"))
		return not_found(uri, modern, e, "tdkit:// offers runs/{id}/tree, nodes and methodology");
	char id[80];
	if (n - plen - 5 >= sizeof id)
		return not_found(uri, modern, e, "no such run");
	memcpy(id, uri + plen, n - plen - 5);
	id[n - plen - 5] = 0;
	if (!run_id_ok(id))
		return not_found(uri, modern, e, "not a run id");
	const char *argv[] = { "show", "--tree", id, NULL };
	char *out, *err;
	int rc = mcp_store_verb(argv, c, key, &out, &err);
	json_t *r = NULL;
	if (rc < 0 && !err)
		mcp_fail(e, MCP_CANCELLED, "cancelled");
	else if (rc == 0)
		r = contents(uri, "text/plain", out);
	else if (strstr(err, "no such run"))
		not_found(uri, modern, e, "no such run");
	else
		mcp_fail(e, RPC_INTERNAL_ERROR, "the store: %.400s", err);
	free(out);
	free(err);
	return r;
}
