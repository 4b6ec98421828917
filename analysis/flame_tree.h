/* Folded stacks merged into the frames of a flame graph, by flamegraph.pl's
 * rules: the input lines are taken in byte order (or, for a flame chart, in
 * input order), and consecutive lines share the frames of their common
 * prefix. A frame's width is the sum of the counts below it; in the
 * two-count form ("stack count1 count2") the width is count2 and the frame
 * of a stack's last function carries the delta count2 - count1.
 *
 * Memory: one node per distinct frame path (the tree of stacks) plus the
 * distinct names, whatever the number or order of lines; a flame chart keeps
 * one node per drawn frame. Lines are not kept.
 *
 * Order: instead of sorting lines, the tree orders siblings by their names as
 * the line sort would: a frame "f" whose lines end there sorts as "f " and
 * one with callees as "f;". The two runs are one frame unless a sibling's
 * name falls between them (e.g. "f.cold"), as flamegraph.pl draws them.
 * Differences from sorting whole lines, for input no tool writes: a name
 * holding a blank followed by digits, or a control character right after a
 * name that is a prefix of a sibling's, may order differently; the deltas
 * of a stack given on several lines are summed (flamegraph.pl keeps the
 * first line's). */
#ifndef TD_FLAME_TREE_H
#define TD_FLAME_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct flame_tree;

struct flame_tree_options {
	bool reverse;      /* stacks read leaf first (--reverse) */
	bool flamechart;   /* keep input order, merge only neighbouring lines */
};

/* One drawn frame, in count units. Depth 0 is the root ("all"). */
struct flame_frame {
	uint32_t name;     /* flame_tree_name(); the root's name is "" */
	uint32_t depth;
	double start, end;
	double delta;      /* two-count input: count2 - count1 of the stacks ending here */
};

struct flame_tree *flame_tree_new(const struct flame_tree_options *o);
void flame_tree_free(struct flame_tree *t);

/* Adds one line; false (nothing added) when it is not "stack count" or
 * "stack count1 count2" with non-negative decimal counts. */
bool flame_tree_add_line(struct flame_tree *t, const char *line, size_t len);

double flame_tree_total(const struct flame_tree *t);      /* sum of the widths' counts */
bool flame_tree_differential(const struct flame_tree *t); /* some line had two counts */
const char *flame_tree_name(const struct flame_tree *t, uint32_t id, size_t *len);
uint32_t flame_tree_name_count(const struct flame_tree *t);   /* ids are 0 .. count-1 */

/* The frames at least min_count wide, parents before children; the root
 * spans [0, total). *max_delta is the largest |delta| (at least 1) and
 * *max_depth the deepest frame kept. The array is the caller's to free. */
struct flame_frame *flame_tree_layout(struct flame_tree *t, double total, double min_count,
				      size_t *nframes, double *max_delta, uint32_t *max_depth);

/* Every distinct stack with its width count, root frame first (ids for
 * flame_tree_name; the root itself is not included), in frame order. For a
 * flame chart, the stacks in input order. */
typedef void (*flame_stack_fn)(void *ctx, const uint32_t *names, size_t depth, double count);
void flame_tree_each_stack(struct flame_tree *t, flame_stack_fn fn, void *ctx);

#endif
