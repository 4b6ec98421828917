#include <math.h>
#include <string.h>
#include "tma_tree.h"

#define BAR_WIDTH 40

/* Level 1 uses the seeds' thresholds (Retiring > 80% is good; Bad
 * Speculation > 15%, Frontend Bound > 20%, Backend Bound > 40% are high);
 * deeper nodes their source's threshold. */
static void bar(FILE *f, double v)
{
	int n = (int)lround(fmax(0, fmin(1, v)) * BAR_WIDTH);
	for (int i = 0; i < BAR_WIDTH; i++)
		fputc(i < n ? '#' : '.', f);
}

const char *tma_cycles_note(const struct tma_tree *t)
{
	if (!strncmp(t->model->id, "arm", 3))
		return "(Level 2 nodes are shares of their parent's stall cycles, scaled into its share of slots)";
	return "(Level 3 nodes are shares of cycles, not of slots: they need not sum to their parent)";
}

/* Nodes in display order: each parent followed by its children. */
static int tree_order(const struct tma_tree *t, const char *parent, int *order, int k)
{
	for (int i = 0; i < t->n; i++) {
		const char *p = tma_shown_parent(t, &t->node[i]);
		if ((parent == NULL) != (p == NULL) || (p && strcmp(p, parent)))
			continue;
		order[k++] = i;
		k = tree_order(t, t->node[i].def->name, order, k);
	}
	return k;
}

static void write_node(FILE *f, const struct tma_node *n)
{
	int indent = 2 * n->level;
	fprintf(f, "%*s%-*s %6.1f%%  ", indent, "", 26 - indent, n->def->name, 100 * n->value);
	bar(f, n->value);
	const char *a = tma_assessment(n);
	char tail[160];
	snprintf(tail, sizeof tail, "%s%s%s%s%s", n->on_path ? "  <- bottleneck" : "", n->mismeasured ? " (" : "",
		 n->mismeasured ? n->mismeasured : "", n->mismeasured ? ")" : "", n->from_perf ? "" : "");
	if (tail[0])
		fprintf(f, "  %-11s%s", a, tail);
	else if (*a)
		fprintf(f, "  %s", a);
	fputc('\n', f);
}

void tma_tree_write_text(FILE *f, const struct tma_tree *t, const char *title, int max_level)
{
	fprintf(f, "\nTop-down %s: %s", title, t->model->description);
	if (t->width && t->width != t->model->width)
		fprintf(f, " [%d slots per cycle]", t->width);
	fputc('\n', f);
	int order[TMA_MAX_NODES];
	int k = tree_order(t, NULL, order, 0);
	for (int i = 0; i < k; i++)
		if (!max_level || t->node[order[i]].level <= max_level)
			write_node(f, &t->node[order[i]]);
	if (t->warning[0])
		fprintf(f, "  warning: %s\n", t->warning);
	if (t->n && t->node[0].from_perf)
		fprintf(f, "  (values as perf printed them)\n");
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->node[i].def->domain, "cycles") && (!max_level || t->node[i].level <= max_level)) {
			fprintf(f, "  %s\n", tma_cycles_note(t));
			break;
		}
}

void tma_tree_write_markdown(FILE *f, const struct tma_tree *t, const char *title, int max_level)
{
	fprintf(f, "\n### Top-down %s\n\n%s%s\n\n| Node | Level | Value | Assessment |\n|---|---:|---:|---|\n", title,
		t->model->description, t->n && t->node[0].from_perf ? "" : "");
	int order[TMA_MAX_NODES];
	int k = tree_order(t, NULL, order, 0);
	for (int i = 0; i < k; i++) {
		const struct tma_node *n = &t->node[order[i]];
		if (max_level && n->level > max_level)
			continue;
		fprintf(f, "| %s%s%s | %d | %.1f%% | %s%s |\n", n->on_path ? "**" : "", n->def->name, n->on_path ? "**" : "",
			n->level, 100 * n->value, tma_assessment(n), n->on_path ? " (bottleneck path)" : "");
	}
	if (t->warning[0])
		fprintf(f, "\nWarning: %s\n", t->warning);
}

void tma_explain_write(FILE *f, const struct tma_explanation *e, enum tma_vendor vendor)
{
	static const char *const vendors[TMA_NVENDORS] = { "Intel", "AMD", "Arm" };
	fprintf(f, "%s (also: %s)\n", e->node, e->aliases);
	fprintf(f, "  measures: %s\n  causes:   %s\n  change:   %s\n  next (%s): %s\n", e->measures, e->causes, e->change,
		vendors[vendor], e->next[vendor]);
}
