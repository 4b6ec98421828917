/* What each Top-down node means, why it grows, what to change and what to
 * measure next, per vendor. td-explain and td-derive --explain print it;
 * the next command also fills td-derive's next_step for bottleneck nodes. */
#ifndef TD_TMA_EXPLAIN_H
#define TD_TMA_EXPLAIN_H

#include <stddef.h>

enum tma_vendor { TMA_INTEL, TMA_AMD, TMA_ARM, TMA_NVENDORS };

struct tma_explanation {
	const char *node;
	const char *aliases;        /* each vendor's own names, comma-separated */
	const char *measures;
	const char *causes;
	const char *change;
	const char *next[TMA_NVENDORS];
	const char *parent;         /* tdkit name of the parent; NULL: the vocabulary's (tma.h), or none */
};

/* By tdkit name or any alias (case-insensitive); NULL if unknown. */
const struct tma_explanation *tma_explain(const char *node);
/* Also toplev's dotted names ("Backend_Bound.Memory_Bound.DRAM_Bound"):
 * the node's entry, else its nearest ancestor's, *found_as then naming
 * the ancestor (NULL when the entry is the node's own). */
const struct tma_explanation *tma_explain_path(const char *name, const char **found_as);
/* All entries, NULL-terminated by node == NULL. */
const struct tma_explanation *tma_explanations(void);
/* The node's path from Level 1 ("backend_bound > memory_bound >
 * dram_bound") in buf. */
const char *tma_explain_parent_path(const struct tma_explanation *e, char *buf, size_t cap);
/* The vendor a model id belongs to ("amd-zen4" -> TMA_AMD). */
enum tma_vendor tma_vendor_of(const char *model_id);

#endif
