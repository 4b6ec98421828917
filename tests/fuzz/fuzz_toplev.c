/* libFuzzer target: bytes through stat_read, where toplev's reader sees
 * every line first, into the model, and the Top-down tree of every set
 * built from the node values toplev printed (tma_toplev.c), as td-derive
 * builds it. Seeded with the toplev outputs of testdata/toplev. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "analysis/tma.h"
#include "tests/fuzz/fuzz_input.h"

#define MAX_PRINTED 256

/* The tree of set s from the metrics of list pm (whole run or interval). */
static void tree_of(const struct counter_set *s, const struct perf_metric *pm, int npm)
{
	struct tma_printed p[MAX_PRINTED];
	int n = 0;
	for (int i = 0; i < npm && n < MAX_PRINTED; i++)
		if (pm[i].session == s->session && pm[i].interval == s->interval && !strcmp(pm[i].scope, s->scope) &&
		    !strcmp(pm[i].pmu, s->pmu))
			p[n++] = (struct tma_printed){ pm[i].unit, pm[i].value, pm[i].source == STAT_FROM_TOPLEV };
	struct tma_tree t;
	if (!tma_build(s, p, n, NULL, &t))
		return;
	for (int i = 0; i < t.n; i++) {
		if (!t.node[i].def || !t.node[i].def->name || t.node[i].level < 1)
			__builtin_trap();
		tma_shown_parent(&t, &t.node[i]);
	}
}

static void each_set(const struct stat_model *m, const struct counter_set *s, bool interval)
{
	if (interval)
		tree_of(s, m->perf_cur, m->nperf_cur);
	else
		tree_of(s, m->perf, m->nperf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_stat_model(data, size, STAT_AUTO, each_set);
	return 0;
}
