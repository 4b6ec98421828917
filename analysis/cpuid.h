/* What a CPU id means: the microarchitecture, its Top-down kind and its
 * counters, from the id perf itself uses for a CPU ("GenuineIntel-6-8F-8":
 * vendor, family in decimal, model and stepping in hex; Arm: the MIDR as
 * "0x00000000410fd490"). One table of published facts (testdata/PROVENANCE.md
 * names the source of each row); a CPU not in it is NULL, never a guess. */
#ifndef TD_CPUID_H
#define TD_CPUID_H

#include <stdbool.h>

enum cpu_topdown {
	CPU_TD_NONE,              /* no Top-down events (AMD Zen 3, older Arm cores) */
	CPU_TD_INTEL_PERF_METRICS,/* slots + topdown-* (Ice Lake and later P-cores) */
	CPU_TD_INTEL_PRE_ICL,     /* 4 slots per cycle from generic uop events (Sandy Bridge to Cascade Lake) */
	CPU_TD_AMD_PIPELINE,      /* perf's PipelineL1/L2 (Zen 4, Zen 5) */
	CPU_TD_ARM_CYCLES,        /* stall_frontend/stall_backend over cycles (Neoverse N1, V1) */
	CPU_TD_ARM_SLOTS          /* stall_slot*, op_retired, op_spec (Neoverse N2, V2 and later) */
};

struct cpu_desc {
	const char *name;         /* "Sapphire Rapids", "Zen 4", "Neoverse N2" */
	const char *vendor;       /* "intel", "amd", "arm" */
	enum cpu_topdown topdown;
	bool topdown_l2;          /* Level 2 has its own hardware events (topdown-heavy-ops ...) */
	int counters;             /* general-purpose counters per logical CPU, SMT off */
	int counters_smt;         /* the same with SMT on */
	const char *core_model;   /* Top-down model id (analysis/tma.h) of the core PMU; NULL: none */
	int core_width;           /* its slots per cycle; 0: the model's own */
	const char *atom_model;   /* hybrid: the E-core PMU's (cpu_atom) model, NULL: not hybrid */
	int atom_width;
	int atom_counters;
};

/* The CPU an id names, NULL when the table does not know it. */
const struct cpu_desc *cpuid_lookup(const char *cpuid);

/* perf's id for an x86 CPU ("GenuineIntel-6-8F-8") or an Arm MIDR, into buf. */
void cpuid_x86(char *buf, unsigned long cap, const char *vendor, unsigned family, unsigned model, unsigned stepping);
void cpuid_arm(char *buf, unsigned long cap, unsigned long long midr);

#endif
