/* Every node of every Top-down model has an explanation, under its tdkit
 * name and under the vendor's own name, with a next command per vendor. */
#include <stdio.h>
#include "analysis/tma.h"
#include "analysis/tma_explain.h"

int main(void)
{
	int n = 0, failed = 0;
	for (const struct tma_model *const *m = tma_models(); *m; m++)
		for (int i = 0; i < (*m)->ndefs; i++) {
			const struct tma_def *d = &(*m)->defs[i];
			const struct tma_explanation *e = tma_explain(d->name), *v = tma_explain(d->vendor_name);
			bool ok = e && v == e && e->next[TMA_INTEL] && e->next[TMA_AMD] && e->next[TMA_ARM];
			printf("%sok %d - %s: %s (%s) explained\n", ok ? "" : "not ", ++n, (*m)->id, d->name, d->vendor_name);
			failed += !ok;
		}
	printf("1..%d\n", n);
	return failed != 0;
}
