/* The CPU table: one row per microarchitecture tdkit collects for. Model
 * ranges are perf's (tools/perf/pmu-events/arch/x86/mapfile.csv,
 * arch/arm64/mapfile.csv) and the kernel's (arch/x86/kernel/cpu/amd.c for
 * the Zen generations); counters are the vendors' (Intel SDM, AMD PPR, Arm
 * TRMs); testdata/PROVENANCE.md cites each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/cpuid.h"

struct x86_row {
	const char *vendor;
	unsigned family, model_lo, model_hi;
	int stepping_lo, stepping_hi;    /* -1: any */
	struct cpu_desc d;
};

#define ANY -1, -1
static const struct x86_row x86[] = {
	{ "GenuineIntel", 6, 0x55, 0x55, 0, 4,
	  { "Skylake-X", "intel", CPU_TD_INTEL_PRE_ICL, false, 8, 4, "intel-pre-icl", 4, NULL, 0, 0 } },
	{ "GenuineIntel", 6, 0x55, 0x55, 5, 15,
	  { "Cascade Lake-X", "intel", CPU_TD_INTEL_PRE_ICL, false, 8, 4, "intel-pre-icl", 4, NULL, 0, 0 } },
	{ "GenuineIntel", 6, 0x4E, 0x4E, ANY,
	  { "Skylake", "intel", CPU_TD_INTEL_PRE_ICL, false, 8, 4, "intel-pre-icl", 4, NULL, 0, 0 } },
	{ "GenuineIntel", 6, 0x5E, 0x5E, ANY,
	  { "Skylake", "intel", CPU_TD_INTEL_PRE_ICL, false, 8, 4, "intel-pre-icl", 4, NULL, 0, 0 } },
	{ "GenuineIntel", 6, 0x8E, 0x8E, ANY,
	  { "Kaby Lake", "intel", CPU_TD_INTEL_PRE_ICL, false, 8, 4, "intel-pre-icl", 4, NULL, 0, 0 } },
	{ "GenuineIntel", 6, 0x9E, 0x9E, ANY,
	  { "Coffee Lake", "intel", CPU_TD_INTEL_PRE_ICL, false, 8, 4, "intel-pre-icl", 4, NULL, 0, 0 } },
	{ "GenuineIntel", 6, 0x6A, 0x6A, ANY,
	  { "Ice Lake-X", "intel", CPU_TD_INTEL_PERF_METRICS, false, 8, 8, "intel-perf-metrics", 0, NULL, 0, 0 } },
	{ "GenuineIntel", 6, 0x6C, 0x6C, ANY,
	  { "Ice Lake-D", "intel", CPU_TD_INTEL_PERF_METRICS, false, 8, 8, "intel-perf-metrics", 0, NULL, 0, 0 } },
	{ "GenuineIntel", 6, 0x7D, 0x7E, ANY,
	  { "Ice Lake", "intel", CPU_TD_INTEL_PERF_METRICS, false, 8, 8, "intel-perf-metrics", 0, NULL, 0, 0 } },
	{ "GenuineIntel", 6, 0x8C, 0x8D, ANY,
	  { "Tiger Lake", "intel", CPU_TD_INTEL_PERF_METRICS, false, 8, 8, "intel-perf-metrics", 0, NULL, 0, 0 } },
	{ "GenuineIntel", 6, 0x8F, 0x8F, ANY,
	  { "Sapphire Rapids", "intel", CPU_TD_INTEL_PERF_METRICS, true, 8, 8, "intel-perf-metrics", 0, NULL, 0, 0 } },
	{ "GenuineIntel", 6, 0xCF, 0xCF, ANY,
	  { "Emerald Rapids", "intel", CPU_TD_INTEL_PERF_METRICS, true, 8, 8, "intel-perf-metrics", 0, NULL, 0, 0 } },
	{ "GenuineIntel", 6, 0x97, 0x97, ANY,
	  { "Alder Lake", "intel", CPU_TD_INTEL_PERF_METRICS, true, 8, 8, "intel-perf-metrics", 0, "intel-atom", 5, 6 } },
	{ "GenuineIntel", 6, 0x9A, 0x9A, ANY,
	  { "Alder Lake", "intel", CPU_TD_INTEL_PERF_METRICS, true, 8, 8, "intel-perf-metrics", 0, "intel-atom", 5, 6 } },
	{ "GenuineIntel", 6, 0xB7, 0xB7, ANY,
	  { "Raptor Lake", "intel", CPU_TD_INTEL_PERF_METRICS, true, 8, 8, "intel-perf-metrics", 0, "intel-atom", 5, 6 } },
	{ "GenuineIntel", 6, 0xBA, 0xBA, ANY,
	  { "Raptor Lake", "intel", CPU_TD_INTEL_PERF_METRICS, true, 8, 8, "intel-perf-metrics", 0, "intel-atom", 5, 6 } },
	{ "GenuineIntel", 6, 0xBF, 0xBF, ANY,
	  { "Raptor Lake", "intel", CPU_TD_INTEL_PERF_METRICS, true, 8, 8, "intel-perf-metrics", 0, "intel-atom", 5, 6 } },
	{ "AuthenticAMD", 25, 0x00, 0x0F, ANY,
	  { "Zen 3", "amd", CPU_TD_NONE, false, 6, 6, NULL, 0, NULL, 0, 0 } },
	{ "AuthenticAMD", 25, 0x20, 0x5F, ANY,
	  { "Zen 3", "amd", CPU_TD_NONE, false, 6, 6, NULL, 0, NULL, 0, 0 } },
	{ "AuthenticAMD", 25, 0x10, 0x1F, ANY,
	  { "Zen 4", "amd", CPU_TD_AMD_PIPELINE, true, 6, 6, "amd-zen4", 6, NULL, 0, 0 } },
	{ "AuthenticAMD", 25, 0x60, 0xAF, ANY,
	  { "Zen 4", "amd", CPU_TD_AMD_PIPELINE, true, 6, 6, "amd-zen4", 6, NULL, 0, 0 } },
	{ "AuthenticAMD", 26, 0x00, 0x2F, ANY,
	  { "Zen 5", "amd", CPU_TD_AMD_PIPELINE, true, 6, 6, "amd-zen5", 8, NULL, 0, 0 } },
	{ "AuthenticAMD", 26, 0x40, 0x4F, ANY,
	  { "Zen 5", "amd", CPU_TD_AMD_PIPELINE, true, 6, 6, "amd-zen5", 8, NULL, 0, 0 } },
	{ "AuthenticAMD", 26, 0x60, 0x7F, ANY,
	  { "Zen 5", "amd", CPU_TD_AMD_PIPELINE, true, 6, 6, "amd-zen5", 8, NULL, 0, 0 } },
};

/* Arm: implementer and part number of the MIDR (variant and revision do
 * not change the core). */
struct arm_row {
	unsigned implementer, part;
	struct cpu_desc d;
};

static const struct arm_row arm[] = {
	{ 0x41, 0xD0C, { "Neoverse N1", "arm", CPU_TD_ARM_CYCLES, false, 6, 6, NULL, 0, NULL, 0, 0 } },
	{ 0x41, 0xD40, { "Neoverse V1", "arm", CPU_TD_ARM_CYCLES, false, 6, 6, NULL, 0, NULL, 0, 0 } },
	{ 0x41, 0xD49, { "Neoverse N2", "arm", CPU_TD_ARM_SLOTS, false, 6, 6, "arm-n2", 5, NULL, 0, 0 } },
	{ 0x41, 0xD4F, { "Neoverse V2", "arm", CPU_TD_ARM_SLOTS, false, 6, 6, "arm-v2", 8, NULL, 0, 0 } },
	{ 0x41, 0xD8E, { "Neoverse N3", "arm", CPU_TD_ARM_SLOTS, false, 6, 6, "arm-n3", 5, NULL, 0, 0 } },
	{ 0x41, 0xD84, { "Neoverse V3", "arm", CPU_TD_ARM_SLOTS, false, 6, 6, "arm-v3", 10, NULL, 0, 0 } },
};

const struct cpu_desc *cpuid_lookup(const char *cpuid)
{
	if (!cpuid)
		return NULL;
	if (cpuid[0] == '0' && (cpuid[1] == 'x' || cpuid[1] == 'X')) {
		char *end;
		unsigned long long midr = strtoull(cpuid, &end, 16);
		if (*end)
			return NULL;
		unsigned impl = (unsigned)(midr >> 24) & 0xff, part = (unsigned)(midr >> 4) & 0xfff;
		for (size_t i = 0; i < sizeof arm / sizeof *arm; i++)
			if (arm[i].implementer == impl && arm[i].part == part)
				return &arm[i].d;
		return NULL;
	}
	char vendor[16];
	unsigned family, model, stepping = 0;
	int got = sscanf(cpuid, "%15[A-Za-z]-%u-%x-%x", vendor, &family, &model, &stepping);
	if (got < 3)
		return NULL;
	for (size_t i = 0; i < sizeof x86 / sizeof *x86; i++) {
		const struct x86_row *r = &x86[i];
		if (strcmp(r->vendor, vendor) || r->family != family || model < r->model_lo || model > r->model_hi)
			continue;
		if (r->stepping_lo >= 0 && (got < 4 || (int)stepping < r->stepping_lo || (int)stepping > r->stepping_hi))
			continue;
		return &r->d;
	}
	return NULL;
}

void cpuid_x86(char *buf, unsigned long cap, const char *vendor, unsigned family, unsigned model, unsigned stepping)
{
	snprintf(buf, cap, "%s-%u-%X-%X", vendor, family, model, stepping);
}

void cpuid_arm(char *buf, unsigned long cap, unsigned long long midr)
{
	snprintf(buf, cap, "0x%016llx", midr);
}
