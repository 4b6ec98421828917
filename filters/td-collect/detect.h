/* The machine td-collect measures, as /proc and /sys describe it: CPU
 * vendor, family, model, stepping (x86, /proc/cpuinfo) or MIDR (Arm,
 * /sys/devices/system/cpu/cpu0/regs/identification/midr_el1), the PMUs in
 * /sys/bus/event_source/devices, SMT, the NMI watchdog, perf_event_paranoid,
 * kernel and host. All paths are read under a root (--sysroot; "/" is the
 * running machine), so a copied or synthetic tree is detected the same way.
 * Reading costs a few small files; nothing is cached. */
#ifndef TD_COLLECT_DETECT_H
#define TD_COLLECT_DETECT_H

#include <stdbool.h>
#include "analysis/cpuid.h"

struct machine_facts {
	char root[512];            /* "" for the running machine */
	char arch[72];             /* "x86_64", "aarch64" (uname -m) */
	char vendor[32];           /* "GenuineIntel", "AuthenticAMD", "ARM" */
	unsigned family, model, stepping;
	unsigned long long midr;   /* Arm; 0 elsewhere */
	char cpu_name[128];        /* "Intel(R) Xeon(R) Platinum 8480+", else the table's name */
	char cpuid[64];            /* perf's id: "GenuineIntel-6-8F-8", "0x00000000410fd490" */
	const struct cpu_desc *desc;   /* NULL: not a CPU tdkit has a row for */
	char pmus[256];            /* the core PMUs, comma-separated: "cpu", "cpu_core,cpu_atom", "armv8_pmuv3_0" */
	char core_pmu[64];         /* "cpu", "cpu_core", "armv8_pmuv3_0"; "" none (no hardware counters) */
	char atom_pmu[64];         /* "cpu_atom" on a hybrid, else "" */
	int smt;                   /* 1 on, 0 off, -1 not known */
	int nmi_watchdog;          /* 1: it holds a counter; 0; -1 not known */
	int paranoid;              /* kernel.perf_event_paranoid; 99 when not readable */
	bool perfmon;              /* this process may count anything (root, CAP_PERFMON, CAP_SYS_ADMIN) */
	int ncpus;
	char kernel[128], host[128];
};

/* Reads the facts under root (NULL or "": the running machine). Returns
 * false with why set when the tree holds no CPU description at all. */
bool detect_machine(const char *root, struct machine_facts *m, char *why, unsigned long whylen);

/* The PMU exports the event in sysfs (PMU/events/NAME): perf knows it. */
bool detect_pmu_event(const struct machine_facts *m, const char *pmu, const char *event);

/* Why hardware events cannot be counted here for this kind of target
 * (system_wide: -a), with how to get them, into why; false when they can. */
bool detect_no_hardware(const struct machine_facts *m, bool system_wide, char *why, unsigned long whylen);

#endif
