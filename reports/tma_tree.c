#include <math.h>
#include <string.h>
#include "tma_tree.h"

#define BAR_WIDTH 40

/* Level 1 uses the seeds' thresholds (Retiring > 80% is good; Bad
 * Speculation > 15%, Frontend Bound > 20%, Backend Bound > 40% are high);
 * deeper nodes their source's threshold. */
const char *tma_assessment(const struct tma_node *n)
{
	if (n->mismeasured)
		return "mismeasured";
	const char *name = n->def->name;
	if (n->level == 1) {
		if (strcmp(name, "retiring") == 0)
			return n->value > 0.8 ? "good" : "";
		double limit = strcmp(name, "bad_speculation") == 0 ? 0.15 : strcmp(name, "frontend_bound") == 0 ? 0.20
			     : strcmp(name, "backend_bound") == 0 ? 0.40 : NAN;
		return n->value > limit ? "high" : "";
	}
	return n->high ? "high" : "";
}

static void bar(FILE *f, double v)
{
	int n = (int)lround(fmax(0, fmin(1, v)) * BAR_WIDTH);
	for (int i = 0; i < BAR_WIDTH; i++)
		fputc(i < n ? '#' : '.', f);
}

void tma_tree_write_text(FILE *f, const struct tma_tree *t, const char *title, int max_level)
{
	fprintf(f, "\nTop-down %s: %s", title, t->model->description);
	if (t->width && strcmp(t->model->id, "perf"))
		fprintf(f, " [%d slots/cycle]", t->width);
	fputc('\n', f);
	for (int i = 0; i < t->n; i++) {
		const struct tma_node *n = &t->node[i];
		if (max_level && n->level > max_level)
			continue;
		int indent = 2 * n->level;
		fprintf(f, "%*s%-*s %6.1f%%  ", indent, "", 26 - indent, n->def->name, 100 * n->value);
		bar(f, n->value);
		const char *a = tma_assessment(n);
		fprintf(f, "  %-11s%s%s%s%s\n", a, n->on_path ? " <- bottleneck" : "",
			n->mismeasured ? " (" : "", n->mismeasured ? n->mismeasured : "", n->mismeasured ? ")" : "");
	}
	if (t->warning[0])
		fprintf(f, "  warning: %s\n", t->warning);
	if (t->n && t->node[0].from_perf)
		fprintf(f, "  (values as perf printed them)\n");
	if (t->n && strcmp(t->node[0].def->domain, "slots") == 0) {
		for (int i = 0; i < t->n; i++)
			if (!strcmp(t->node[i].def->domain, "cycles")) {
				fprintf(f, "  (cycle-domain nodes are scaled into their parent's share of slots)\n");
				break;
			}
	}
}

void tma_tree_write_markdown(FILE *f, const struct tma_tree *t, const char *title, int max_level)
{
	fprintf(f, "\n### Top-down %s\n\n%s%s\n\n| Node | Level | Value | Assessment |\n|---|---:|---:|---|\n", title,
		t->model->description, t->n && t->node[0].from_perf ? "" : "");
	for (int i = 0; i < t->n; i++) {
		const struct tma_node *n = &t->node[i];
		if (max_level && n->level > max_level)
			continue;
		fprintf(f, "| %s%s%s | %d | %.1f%% | %s%s |\n", n->on_path ? "**" : "", n->def->name, n->on_path ? "**" : "",
			n->level, 100 * n->value, tma_assessment(n), n->on_path ? " (bottleneck path)" : "");
	}
	if (t->warning[0])
		fprintf(f, "\nWarning: %s\n", t->warning);
}
