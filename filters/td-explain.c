/* td-explain: what a Top-down node means, why it grows, what to change and
 * what to measure next. */
#include <stdio.h>
#include <string.h>
#include "analysis/tma_explain.h"
#include "common/diag.h"
#include "common/opts.h"
#include "reports/table.h"
#include "reports/tma_tree.h"

static const char *opt_vendor;
static bool opt_list, opt_json;

static const struct td_option options[] = {
	{ 0, "vendor", TD_OPT_STRING, &opt_vendor, "intel|amd|arm", "whose next command to show (default intel)", NULL },
	{ 0, "list", TD_OPT_FLAG, &opt_list, NULL, "list every node and its vendor names", NULL },
	{ 0, "json", TD_OPT_FLAG, &opt_json, NULL, "one JSON array: an object per node named (or listed)", NULL },
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-explain", "[--vendor intel|amd|arm] [--json] NODE... | --list",
	"Explain Top-down nodes named as tdkit, perf, toplev or Arm name them (memory_bound, tma_fetch_latency, "
	"Backend_Bound.Memory_Bound.DRAM_Bound, backend_bound_cpu, stall_backend_mem ...).",
	options,
	"Reads no file: each NODE is a Top-down node name in any vendor's spelling (td-derive's, perf's tma_*,\n"
	"AMD's backend_bound_cpu ...); --list shows them all.",
};

static const char *const vendor_names[TMA_NVENDORS] = { "intel", "amd", "arm" };

/* {"asked": ..., "node": ..., "explained_by": parent or null, "aliases": [...], ...} */
static void write_json(const char *asked, const struct tma_explanation *e, const char *found_as, bool full)
{
	printf("{");
	if (asked) {
		printf("\"asked\": ");
		td_json_string(stdout, asked);
		printf(", ");
	}
	printf("\"node\": ");
	td_json_string(stdout, e->node);
	if (asked) {
		printf(", \"explained_by\": ");
		if (found_as)
			td_json_string(stdout, found_as);
		else
			printf("null");
	}
	printf(", \"aliases\": [");
	for (const char *p = e->aliases; *p;) {
		size_t k = strcspn(p, ",");
		char alias[128];
		snprintf(alias, sizeof alias, "%.*s", (int)k, p);
		printf("%s", p == e->aliases ? "" : ", ");
		td_json_string(stdout, alias);
		p += k;
		while (*p == ',' || *p == ' ')
			p++;
	}
	printf("]");
	if (full) {
		printf(", \"measures\": ");
		td_json_string(stdout, e->measures);
		printf(", \"causes\": ");
		td_json_string(stdout, e->causes);
		printf(", \"change\": ");
		td_json_string(stdout, e->change);
		char path[512];
		printf(", \"path\": ");
		td_json_string(stdout, tma_explain_parent_path(e, path, sizeof path));
		printf(", \"next\": {");
		for (int v = 0; v < TMA_NVENDORS; v++) {
			printf("%s\"%s\": ", v ? ", " : "", vendor_names[v]);
			td_json_string(stdout, e->next[v]);
		}
		printf("}");
	}
	printf("}");
}

int main(int argc, char **argv)
{
	int n = td_parse_options(&cmd, argc, argv);
	enum tma_vendor vendor = TMA_INTEL;
	if (opt_vendor) {
		if (!strcmp(opt_vendor, "amd"))
			vendor = TMA_AMD;
		else if (!strcmp(opt_vendor, "arm"))
			vendor = TMA_ARM;
		else if (strcmp(opt_vendor, "intel"))
			td_usage_error(&cmd, "--vendor must be intel, amd or arm, not '%s'", opt_vendor);
	}
	if (opt_list) {
		int k = 0;
		if (opt_json)
			printf("[");
		for (const struct tma_explanation *e = tma_explanations(); e->node; e++) {
			if (opt_json) {
				printf("%s\n", k++ ? "," : "");
				write_json(NULL, e, NULL, false);
			} else {
				printf("%-20s %s\n", e->node, e->aliases);
			}
		}
		if (opt_json)
			printf("\n]\n");
		return td_exit_code(TD_EXIT_OK);
	}
	if (n == 0)
		td_usage_error(&cmd, "name a node, or --list");
	int shown = 0;
	if (opt_json)
		printf("[");
	for (int i = 0; i < n; i++) {
		const char *found_as;
		const struct tma_explanation *e = tma_explain_path(argv[i], &found_as);
		if (!e) {
			td_error("no node named '%s' (td-explain --list shows them)", argv[i]);
			continue;
		}
		if (opt_json) {
			printf("%s\n", shown++ ? "," : "");
			write_json(argv[i], e, found_as, true);
			continue;
		}
		if (shown++)
			putchar('\n');
		if (found_as)
			printf("%s: no entry of its own; its nearest ancestor with one is %s\n", argv[i], found_as);
		tma_explain_write(stdout, e, vendor);
		char path[512];
		printf("  path:     %s\n", tma_explain_parent_path(e, path, sizeof path));
	}
	if (opt_json)
		printf("%s]\n", shown ? "\n" : "");
	return td_exit_code(TD_EXIT_OK);
}
