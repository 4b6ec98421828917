/* A Top-down tree as indented text with proportional bars (a node's assessment
 * word is tma_assessment, analysis/tma.h). */
#ifndef TD_TMA_TREE_H
#define TD_TMA_TREE_H

#include <stdio.h>
#include "analysis/tma.h"
#include "analysis/tma_explain.h"

/* Where the value came from and why it may be wrong or absent: "from
 * perf", "mismeasured reason", "not computable: needs EVENT" ("" if none). */
void tma_node_note(char *out, size_t cap, const struct tma_node *n);

/* How the model's cycle-domain nodes relate to the slot tree. */
const char *tma_cycles_note(const struct tma_tree *t);

/* The tree down to max_level (0: all). */
void tma_tree_write_text(FILE *f, const struct tma_tree *t, const char *title, int max_level);

/* A markdown table of the same. */
void tma_tree_write_markdown(FILE *f, const struct tma_tree *t, const char *title, int max_level);

/* One node's explanation, with the next command for the vendor. */
void tma_explain_write(FILE *f, const struct tma_explanation *e, enum tma_vendor vendor);

#endif
