/* Top-down over time: a stacked-area chart per PMU of Level 1 (or Level
 * 2) node shares, one point per -I interval, the worst interval marked
 * (least retiring). Plain SVG, readable in a browser. */
#ifndef TD_TMA_SVG_H
#define TD_TMA_SVG_H

#include <stdio.h>
#include "analysis/tma.h"

struct tma_chart;

struct tma_chart *tma_chart_new(int level);
void tma_chart_free(struct tma_chart *c);
/* One interval's tree for a PMU ("" for the only core PMU). */
void tma_chart_add(struct tma_chart *c, const char *pmu, double time, const struct tma_tree *t);
/* False (and nothing written) when no interval had a tree. */
bool tma_chart_write(const struct tma_chart *c, FILE *f, const char *title);

#endif
