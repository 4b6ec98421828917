#include <ctype.h>
#include <string.h>
#include "events.h"

/* Spellings of one event across vendors -> the generic perf name. */
static const struct {
	const char *alias, *canonical;
} aliases[] = {
	{ "cpu-cycles", "cycles" },
	{ "cpu_cycles", "cycles" },                        /* ARM PMUv3 */
	{ "cpu_clk_unhalted.thread", "cycles" },           /* Intel */
	{ "cpu_clk_unhalted.core", "cycles" },             /* Intel E-core */
	{ "cpu_clk_unhalted.thread_p", "cycles" },
	{ "ls_not_halted_cyc", "cycles" },                 /* AMD Zen */
	{ "inst_retired", "instructions" },                /* ARM */
	{ "inst_retired.any", "instructions" },            /* Intel */
	{ "inst_retired.any_p", "instructions" },
	{ "ex_ret_instr", "instructions" },                /* AMD */
	{ "ex_ret_ops", "ex_ret_ops" },
	{ "branch-instructions", "branches" },
	{ "br_inst_retired.all_branches", "branches" },    /* Intel */
	{ "ex_ret_brn", "branches" },                      /* AMD */
	{ "br_misp_retired.all_branches", "branch-misses" },
	{ "ex_ret_brn_misp", "branch-misses" },
	{ "stall_frontend", "stalled-cycles-frontend" },   /* ARM */
	{ "stall_backend", "stalled-cycles-backend" },
	{ "l1d_cache", "l1-dcache-loads" },                /* ARM */
	{ "l1d_cache_refill", "l1-dcache-load-misses" },
	{ "l1i_cache", "l1-icache-loads" },
	{ "l1i_cache_refill", "l1-icache-load-misses" },
	{ "ll_cache_rd", "llc-loads" },
	{ "ll_cache_miss_rd", "llc-load-misses" },
	{ "l1d_tlb", "dtlb-loads" },
	{ "l1d_tlb_refill", "dtlb-load-misses" },
	{ "l1i_tlb", "itlb-loads" },
	{ "l1i_tlb_refill", "itlb-load-misses" },
	{ "longest_lat_cache.reference", "cache-references" },
	{ "longest_lat_cache.miss", "cache-misses" },
	{ "l2_rqsts.miss", "l2d_cache_refill" },           /* Intel L2 pair */
	{ "l2_rqsts.references", "l2d_cache" },
	{ "topdown.slots", "slots" },
	{ "cpu-clock", "cpu-clock" },
	{ "task-clock-msecs", "task-clock" },              /* perf before 2.6.35, also in msec */
};

static void lower_copy(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	for (size_t i = 0; i < n; i++)
		dst[i] = (char)tolower((unsigned char)s[i]);
	dst[n] = '\0';
}

void event_normalize(const char *raw, struct event_name *out)
{
	out->pmu[0] = '\0';
	const char *s = raw;
	size_t n = strlen(raw);
	while (n && s[n - 1] == ' ')
		n--;
	/* "event [pmu]" as some uncore rows print it */
	const char *br = memchr(s, '[', n);
	if (br && s[n - 1] == ']' && br > s && br[-1] == ' ') {
		lower_copy(out->pmu, sizeof out->pmu, br + 1, (size_t)(s + n - br - 2));
		n = (size_t)(br - s - 1);
	}
	/* "pmu/inner/[mods]" */
	const char *slash = memchr(s, '/', n);
	if (slash && slash > s) {
		const char *close = memrchr(s, '/', n);
		if (close > slash) {
			const char *inner = slash + 1;
			size_t in = (size_t)(close - inner);
			lower_copy(out->pmu, sizeof out->pmu, s, (size_t)(slash - s));
			if (strcmp(out->pmu, "cpu") == 0)
				out->pmu[0] = '\0';    /* the one core PMU of a non-hybrid x86 */
			if (!memchr(inner, '=', in) && !memchr(inner, ',', in)) {
				s = inner;
				n = in;
			} else {
				lower_copy(out->name, sizeof out->name, s, (size_t)(close + 1 - s));
				return;
			}
		}
	}
	/* modifiers ":u", ":k", ":ppp" */
	const char *colon = memrchr(s, ':', n);
	if (colon && colon + 1 < s + n &&
	    strspn(colon + 1, "ukhpPGHISDWe") >= (size_t)(s + n - colon - 1))
		n = (size_t)(colon - s);
	lower_copy(out->name, sizeof out->name, s, n);
	for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
		if (strcmp(out->name, aliases[i].alias) == 0) {
			strcpy(out->name, aliases[i].canonical);
			break;
		}
}

#define STARTS(p, lit) ((p)[1] == (lit)[1] && strncmp(p, lit, sizeof lit - 1) == 0)

bool event_has_topdown_mark(const char *name)
{
	for (const char *p = name; *p; p++) {        /* one pass: each mark by its first letter */
		switch (*p) {
		case 't': if (STARTS(p, "topdown")) return true; break;
		case 's': if (STARTS(p, "slot")) return true; break;
		case 'u': if (STARTS(p, "uops_")) return true; break;
		case 'd': if (STARTS(p, "de_no_dispatch")) return true; break;
		case 'c': if (STARTS(p, "cycle_activity")) return true; break;
		}
	}
	return false;
}

bool event_is_software(const char *name)
{
	static const char *const software[] = {
		"task-clock", "cpu-clock", "context-switches", "cs", "cpu-migrations", "migrations", "page-faults",
		"faults", "minor-faults", "major-faults", "alignment-faults", "emulation-faults", "duration_time",
		"user_time", "system_time", "dummy", "bpf-output", "cgroup-switches",
	};
	for (size_t i = 0; i < sizeof software / sizeof *software; i++)
		if (strcmp(name, software[i]) == 0)
			return true;
	return false;
}
