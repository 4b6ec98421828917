#include <math.h>
#include <string.h>
#include "tma_tree.h"

#define BAR_WIDTH 40

void tma_node_note(char *out, size_t cap, const struct tma_node *n)
{
	snprintf(out, cap, "%s%s%s%s%s%s%s", n->source ? "from " : "", n->source ? n->source : "",
		 n->source && n->mismeasured ? "; " : "", n->mismeasured ? "mismeasured: " : "",
		 n->mismeasured ? n->mismeasured : "", (n->source || n->mismeasured) && isnan(n->value) ? "; " : "",
		 isnan(n->value) ? "not computable: needs " : "");
	if (isnan(n->value)) {
		size_t used = strlen(out);
		snprintf(out + used, cap - used, "%s", n->needs);
	}
}

static void bar(FILE *f, double v)
{
	int n = (int)lround(fmax(0, fmin(1, v)) * BAR_WIDTH);
	for (int i = 0; i < BAR_WIDTH; i++)
		fputc(i < n ? '#' : '.', f);
}

const char *tma_cycles_note(const struct tma_tree *t)
{
	if (!strncmp(t->model->id, "arm", 3))
		return "(nodes below Level 1 are shares of their parent's stall cycles, scaled into its share of slots)";
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

static void write_node(FILE *f, const struct tma_node *n, bool mark_source)
{
	int indent = 2 * n->level;
	if (indent > 20)
		indent = 20;
	if (isnan(n->value)) {
		fprintf(f, "%*s%-*s    n/a  not computable: needs %s\n", indent, "", 26 - indent, n->def->name, n->needs);
		return;
	}
	fprintf(f, "%*s%-*s %6.1f%%  ", indent, "", 26 - indent, n->def->name, 100 * n->value);
	bar(f, n->value);
	const char *a = tma_assessment(n);
	char tail[200];
	snprintf(tail, sizeof tail, "%s%s%s%s%s%s", n->on_path ? "  <- bottleneck" : "", n->mismeasured ? " (" : "",
		 n->mismeasured ? n->mismeasured : "", n->mismeasured ? ")" : "",
		 mark_source && n->source ? "  from " : "", mark_source && n->source ? n->source : "");
	if (tail[0])
		fprintf(f, "  %-11s%s", a, tail);
	else if (*a)
		fprintf(f, "  %s", a);
	fputc('\n', f);
}

/* Every node's value came from the same tool: said once, not per node. */
static const char *single_source(const struct tma_tree *t)
{
	for (int i = 0; i < t->n; i++)
		if (!t->node[i].source || (i && strcmp(t->node[i].source, t->node[0].source)))
			return NULL;
	return t->n ? t->node[0].source : NULL;
}

void tma_tree_write_text(FILE *f, const struct tma_tree *t, const char *title, int max_level)
{
	fprintf(f, "\nTop-down %s: %s", title, t->model->description);
	if (t->width && t->width != t->model->width)
		fprintf(f, " [%d slots per cycle]", t->width);
	fputc('\n', f);
	int order[TMA_MAX_NODES];
	int k = tree_order(t, NULL, order, 0);
	const char *source = single_source(t);
	const char *absent = NULL;
	for (int i = 0; i < k; i++) {
		const struct tma_node *n = &t->node[order[i]];
		if (max_level && n->level > max_level)
			continue;
		/* a parent that is not in the tree: its place is named, so its
		 * children do not read as the children of the node above them */
		const char *p = n->def->parent;
		if (p && !tma_shown_parent(t, n) && (!absent || strcmp(absent, p))) {
			int indent = 2 * (n->level - 1);
			if (indent > 20)
				indent = 20;
			fprintf(f, "%*s%-*s    n/a\n", indent, "", 26 - indent, p);
			absent = p;
		}
		write_node(f, n, !source);
	}
	if (t->warning[0])
		fprintf(f, "  warning: %s\n", t->warning);
	if (source)
		fprintf(f, "  (values as %s printed them)\n", source);
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->node[i].def->domain, "cycles") && (!max_level || t->node[i].level <= max_level)) {
			fprintf(f, "  %s\n", tma_cycles_note(t));
			break;
		}
	for (int i = 0; i < t->n && !strncmp(t->model->id, "arm", 3); i++)
		if (!strcmp(t->node[i].def->domain, "aux") && (!max_level || t->node[i].level <= max_level)) {
			fprintf(f, "  (the *_operations nodes under retiring are shares of the executed operations, not of slots)\n");
			break;
		}
}

void tma_tree_write_markdown(FILE *f, const struct tma_tree *t, const char *title, int max_level)
{
	fprintf(f, "\n### Top-down %s\n\n%s\n\n| Node | Level | Value | Assessment |\n|---|---:|---:|---|\n", title,
		t->model->description);
	int order[TMA_MAX_NODES];
	int k = tree_order(t, NULL, order, 0);
	const char *source = single_source(t);
	for (int i = 0; i < k; i++) {
		const struct tma_node *n = &t->node[order[i]];
		if (max_level && n->level > max_level)
			continue;
		char note[300] = "";
		if (!source || isnan(n->value))
			tma_node_note(note, sizeof note, n);
		char value[32];
		snprintf(value, sizeof value, isnan(n->value) ? "n/a" : "%.1f%%", 100 * n->value);
		fprintf(f, "| %s%s%s | %d | %s | %s%s%s%s |\n", n->on_path ? "**" : "", n->def->name, n->on_path ? "**" : "",
			n->level, value, isnan(n->value) ? "" : tma_assessment(n), n->on_path ? " (bottleneck path)" : "",
			note[0] && !isnan(n->value) && *tma_assessment(n) ? " " : "", note);
	}
	if (source)
		fprintf(f, "\nValues as %s printed them.\n", source);
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
