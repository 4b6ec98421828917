/* The capture's header (header.h). */
#include <string.h>
#include "filters/td-collect/header.h"
#include "parsers/collect_header.h"

/* A value stays on its line. */
static void fact(FILE *f, const char *key, const char *value)
{
	fprintf(f, COLLECT_HEADER_MARK "%s=", key);
	for (const char *p = value; *p; p++)
		fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
	fputc('\n', f);
}

void header_write(FILE *f, const struct header_facts *h)
{
	const struct machine_facts *m = h->m;
	char buf[640];
	struct tm tm;
	gmtime_r(&h->start, &tm);
	fact(f, "format", "1");
	fact(f, "tool", "td-collect " TD_VERSION);
	strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
	fact(f, "start", buf);
	fact(f, "host", m->host);
	fact(f, "arch", m->arch);
	fact(f, "kernel", m->kernel);
	fact(f, "cpu", m->cpu_name);
	fact(f, "cpuid", m->cpuid);
	fact(f, "uarch", m->desc ? m->desc->name : "unknown");
	fact(f, "pmus", m->pmus[0] ? m->pmus : "none");
	fact(f, "smt", m->smt < 0 ? "unknown" : m->smt ? "on" : "off");
	snprintf(buf, sizeof buf, "%d", h->plan->counters);
	fact(f, "counters", h->plan->hardware ? buf : "0");
	snprintf(buf, sizeof buf, "no: %s", h->plan->no_hardware);
	fact(f, "hardware_events", h->plan->hardware ? "yes" : buf);
	fact(f, "perf_version", h->perf_version);
	snprintf(buf, sizeof buf, "%d", h->level);
	fact(f, "tma_level", buf);
	fact(f, "topdown", h->plan->topdown);
	snprintf(buf, sizeof buf, "%d (%d needed to count every group on its own counters)", h->plan->passes,
		 h->plan->passes_needed);
	fact(f, "passes", buf);
	fact(f, "target", h->target);
	if (h->peaks) {            /* read back by roofline_header_fact, as a --peaks file's lines */
		snprintf(buf, sizeof buf, "%.15g", h->peaks->gflops);
		fact(f, "peak_gflops", buf);
		snprintf(buf, sizeof buf, "%.15g", h->peaks->gbs);
		fact(f, "peak_gbs", buf);
		for (int i = 0; i < h->peaks->nlevels; i++) {
			char key[40];
			snprintf(key, sizeof key, "peak_gbs_%s", h->peaks->level[i]);
			snprintf(buf, sizeof buf, "%.15g", h->peaks->level_gbs[i]);
			fact(f, key, buf);
		}
		if (h->peaks_source)
			fact(f, "peaks_source", h->peaks_source);
		if (h->peaks_method)
			fact(f, "peaks_method", h->peaks_method);
	}
	if (h->git_branch)
		fact(f, "git_branch", h->git_branch);
	if (h->git_commit)
		fact(f, "git_commit", h->git_commit);
	for (int i = 0; i < h->nlabels; i++) {
		snprintf(buf, sizeof buf, "label.%s", h->labels[i]);
		char *eq = strchr(buf, '=');
		if (!eq)
			continue;
		*eq = '\0';
		fact(f, buf, eq + 1);
	}
	/* perf's own run marker (perf stat -o writes it): readers start a run here */
	char when[64];
	struct tm local;
	localtime_r(&h->start, &local);
	strftime(when, sizeof when, "%a %b %e %H:%M:%S %Y", &local);
	fprintf(f, "# started on %s\n\n", when);
}
