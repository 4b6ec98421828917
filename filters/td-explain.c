/* td-explain: what a Top-down node means, why it grows, what to change and
 * what to measure next. */
#include <stdio.h>
#include <string.h>
#include "analysis/tma_explain.h"
#include "common/diag.h"
#include "common/opts.h"
#include "reports/tma_tree.h"

static const char *opt_vendor;
static bool opt_list;

static const struct td_option options[] = {
	{ 0, "vendor", TD_OPT_STRING, &opt_vendor, "intel|amd|arm", "whose next command to show (default intel)", NULL },
	{ 0, "list", TD_OPT_FLAG, &opt_list, NULL, "list every node and its vendor names", NULL },
	TD_OPTS_END
};

static const struct td_cmd cmd = {
	"td-explain", "[--vendor intel|amd|arm] NODE... | --list",
	"Explain Top-down nodes (retiring, memory_bound, tma_fetch_latency, backend_bound_cpu ...).",
	options,
	"Reads no file: each NODE is a Top-down node name in any vendor's spelling (td-derive's, perf's tma_*,\n"
	"AMD's backend_bound_cpu ...); --list shows them all.",
};

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
		for (const struct tma_explanation *e = tma_explanations(); e->node; e++)
			printf("%-20s %s\n", e->node, e->aliases);
		return td_exit_code(TD_EXIT_OK);
	}
	if (n == 0)
		td_usage_error(&cmd, "name a node, or --list");
	for (int i = 0; i < n; i++) {
		const struct tma_explanation *e = tma_explain(argv[i]);
		if (!e) {
			td_error("no node named '%s' (td-explain --list shows them)", argv[i]);
			continue;
		}
		if (i)
			putchar('\n');
		tma_explain_write(stdout, e, vendor);
	}
	return td_exit_code(TD_EXIT_OK);
}
