/* The Top-down model a capture's CPU id names (td-collect writes the id in
 * its header, parsers/collect_header.h): exact where event names are not,
 * as Neoverse N2 (5 slots) and V2 (8 slots) count the same events, and an
 * E-core's width depends on its generation. */
#include <string.h>
#include "analysis/cpuid.h"
#include "analysis/tma.h"

static const struct tma_model *by_id(const char *id)
{
	for (const struct tma_model *const *m = tma_models(); *m; m++)
		if (!strcmp((*m)->id, id))
			return *m;
	return NULL;
}

static bool applies(const struct tma_model *m, const struct tma_ctx *c)
{
	for (const char *const *e = m->required; *e; e++)
		if (!tma_has(c, *e))
			return false;
	return true;
}

const struct tma_model *tma_model_for_cpuid(const char *cpuid, const char *pmu, const struct tma_ctx *c, int *width)
{
	const struct cpu_desc *d = cpuid_lookup(cpuid);
	if (!d)
		return NULL;
	bool atom = pmu && !strcmp(pmu, "cpu_atom");
	const char *id = atom ? d->atom_model : d->core_model;
	if (!id)
		return NULL;
	/* the same CPU counted through another event set of its own */
	const char *alternative = !strcmp(id, "intel-pre-icl") ? "intel-old-topdown"
				  : !strcmp(id, "intel-atom") ? "intel-atom-p" : NULL;
	const char *ids[2] = { id, alternative };
	for (int i = 0; i < 2 && ids[i]; i++) {
		const struct tma_model *m = by_id(ids[i]);
		if (m && applies(m, c)) {
			int w = atom ? d->atom_width : d->core_width;
			*width = w ? w : m->width;
			return m;
		}
	}
	return NULL;
}
