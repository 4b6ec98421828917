/* libFuzzer target: bytes through stat_read, where toplev's reader sees
 * every line first, into the model, and the Top-down tree of every set
 * built from the node values toplev printed (tma_toplev.c), as td-derive
 * builds it. Seeded with the toplev outputs of testdata/toplev. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "analysis/stat_model.h"
#include "analysis/tma.h"
#include "common/diag.h"
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

static void each_interval(void *ctx, const struct stat_model *m)
{
	(void)ctx;
	for (int i = 0; i < m->ncur; i++)
		tree_of(&m->cur[i], m->perf_cur, m->nperf_cur);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_input_file("toplev", data, size);
	if (!path)
		return 0;
	td_quiet = 1;
	struct stat_model m;
	stat_model_init(&m);
	m.on_interval = each_interval;
	stat_read(path, STAT_AUTO, stat_model_add, &m);
	stat_model_finish(&m);
	int nsum;
	const struct counter_set *sum = stat_model_summary(&m, &nsum);
	for (int i = 0; i < nsum; i++)
		tree_of(&sum[i], m.perf, m.nperf);
	stat_model_free(&m);
	return 0;
}
