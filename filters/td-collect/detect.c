/* Machine detection under a root folder (detect.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "filters/td-collect/detect.h"

static bool read_file(const struct machine_facts *m, const char *path, char *buf, size_t cap)
{
	char full[1024];
	snprintf(full, sizeof full, "%s%s", m->root, path);
	FILE *f = fopen(full, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, cap - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return true;
}

static int read_int(const struct machine_facts *m, const char *path, int absent)
{
	char buf[64];
	if (!read_file(m, path, buf, sizeof buf))
		return absent;
	char *end;
	long v = strtol(buf, &end, 10);
	return end == buf ? absent : (int)v;
}

/* "key\t: value" of the first processor in /proc/cpuinfo */
static bool cpuinfo_field(const char *info, const char *key, char *out, size_t cap)
{
	size_t kn = strlen(key);
	for (const char *p = info; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, kn) || (p[kn] != ' ' && p[kn] != '\t' && p[kn] != ':'))
			continue;
		const char *colon = strchr(p, ':'), *nl = strchr(p, '\n');
		if (!colon || (nl && colon > nl))
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		size_t n = nl ? (size_t)(nl - colon) : strlen(colon);
		snprintf(out, cap, "%.*s", (int)n, colon);
		return true;
	}
	return false;
}

static bool is_core_pmu(const char *name)
{
	return !strcmp(name, "cpu") || !strcmp(name, "cpu_core") || !strcmp(name, "cpu_atom") ||
	       !strncmp(name, "armv8_", 6) || !strncmp(name, "armv9_", 6);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void find_pmus(struct machine_facts *m)
{
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/sys/bus/event_source/devices", m->root);
	DIR *d = opendir(dir);
	if (!d)
		return;
	char *names[32];
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < 32)
		if (is_core_pmu(e->d_name))
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, (size_t)n, sizeof *names, cmp_str);
	size_t used = 0;
	for (int i = 0; i < n; i++) {
		used += (size_t)snprintf(m->pmus + used, used < sizeof m->pmus ? sizeof m->pmus - used : 0, "%s%s",
					 i ? "," : "", names[i]);
		if (!strcmp(names[i], "cpu_atom"))
			snprintf(m->atom_pmu, sizeof m->atom_pmu, "%s", names[i]);
		else if (!m->core_pmu[0])
			snprintf(m->core_pmu, sizeof m->core_pmu, "%s", names[i]);
		free(names[i]);
	}
}

/* Effective capabilities of this process: CAP_SYS_ADMIN (21), CAP_PERFMON (38). */
static bool may_count_anything(void)
{
	if (geteuid() == 0)
		return true;
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return false;
	char line[256];
	unsigned long long caps = 0;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "CapEff:", 7))
			caps = strtoull(line + 7, NULL, 16);
	fclose(f);
	return (caps >> 21 & 1) || (caps >> 38 & 1);
}

bool detect_machine(const char *root, struct machine_facts *m, char *why, unsigned long whylen)
{
	memset(m, 0, sizeof *m);
	snprintf(m->root, sizeof m->root, "%s", root && strcmp(root, "/") ? root : "");
	static char info[1 << 16];
	char midr[64];
	if (read_file(m, "/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", midr, sizeof midr)) {
		m->midr = strtoull(midr, NULL, 16);
		snprintf(m->arch, sizeof m->arch, "aarch64");
		snprintf(m->vendor, sizeof m->vendor, "ARM");
		cpuid_arm(m->cpuid, sizeof m->cpuid, m->midr);
	} else if (read_file(m, "/proc/cpuinfo", info, sizeof info)) {
		char v[64];
		if (cpuinfo_field(info, "CPU implementer", v, sizeof v)) {
			/* Arm without the sysfs register: the MIDR from its fields */
			char part[32] = "0", var[32] = "0", rev[32] = "0";
			cpuinfo_field(info, "CPU part", part, sizeof part);
			cpuinfo_field(info, "CPU variant", var, sizeof var);
			cpuinfo_field(info, "CPU revision", rev, sizeof rev);
			m->midr = strtoull(v, NULL, 0) << 24 | strtoull(var, NULL, 0) << 20 | 0xfULL << 16 |
				  strtoull(part, NULL, 0) << 4 | strtoull(rev, NULL, 0);
			snprintf(m->arch, sizeof m->arch, "aarch64");
			snprintf(m->vendor, sizeof m->vendor, "ARM");
			cpuid_arm(m->cpuid, sizeof m->cpuid, m->midr);
		} else if (cpuinfo_field(info, "vendor_id", m->vendor, sizeof m->vendor)) {
			snprintf(m->arch, sizeof m->arch, "x86_64");
			if (cpuinfo_field(info, "cpu family", v, sizeof v))
				m->family = (unsigned)strtoul(v, NULL, 10);
			if (cpuinfo_field(info, "model", v, sizeof v))
				m->model = (unsigned)strtoul(v, NULL, 10);
			if (cpuinfo_field(info, "stepping", v, sizeof v))
				m->stepping = (unsigned)strtoul(v, NULL, 10);
			cpuinfo_field(info, "model name", m->cpu_name, sizeof m->cpu_name);
			cpuid_x86(m->cpuid, sizeof m->cpuid, m->vendor, m->family, m->model, m->stepping);
		}
		for (const char *p = info; (p = strstr(p, "processor")); p++)
			if (p == info || p[-1] == '\n')
				m->ncpus++;
	}
	if (!m->cpuid[0]) {
		snprintf(why, whylen, "%s/proc/cpuinfo: no CPU description (vendor_id or CPU implementer), and no "
			 "%s/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", m->root, m->root);
		return false;
	}
	m->desc = cpuid_lookup(m->cpuid);
	if (!m->cpu_name[0])
		snprintf(m->cpu_name, sizeof m->cpu_name, "%s", m->desc ? m->desc->name : "unknown");
	if (!m->root[0]) {
		struct utsname u;
		if (uname(&u) == 0)
			snprintf(m->arch, sizeof m->arch, "%s", u.machine);
	}
	find_pmus(m);
	char smt[16];
	m->smt = read_file(m, "/sys/devices/system/cpu/smt/active", smt, sizeof smt) ? smt[0] == '1' : -1;
	m->nmi_watchdog = read_int(m, "/proc/sys/kernel/nmi_watchdog", -1);
	m->paranoid = read_int(m, "/proc/sys/kernel/perf_event_paranoid", 99);
	m->perfmon = may_count_anything();
	if (!read_file(m, "/proc/sys/kernel/osrelease", m->kernel, sizeof m->kernel))
		snprintf(m->kernel, sizeof m->kernel, "unknown");
	if (!read_file(m, "/proc/sys/kernel/hostname", m->host, sizeof m->host))
		snprintf(m->host, sizeof m->host, "unknown");
	return true;
}

bool detect_pmu_event(const struct machine_facts *m, const char *pmu, const char *event)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/sys/bus/event_source/devices/%s/events/%s", m->root, pmu, event);
	return access(path, F_OK) == 0;
}

bool detect_no_hardware(const struct machine_facts *m, bool system_wide, char *why, unsigned long whylen)
{
	if (!m->core_pmu[0]) {
		snprintf(why, whylen, "no hardware PMU in /sys/bus/event_source/devices (a VM without a virtual PMU, or a "
			 "container): enable the vPMU in the hypervisor (KVM/QEMU: -cpu host,pmu=on; VMware: "
			 "virtualize CPU performance counters) or measure on bare metal");
		return true;
	}
	int limit = system_wide ? 0 : 2;   /* -a needs 0 (or CAP_PERFMON); a process's user-space counts need 2 */
	if (!m->perfmon && m->paranoid > limit) {
		snprintf(why, whylen, "kernel.perf_event_paranoid is %d: run 'sysctl kernel.perf_event_paranoid=%d', or "
			 "give td-collect CAP_PERFMON (setcap cap_perfmon+ep), or run as root", m->paranoid, limit);
		return true;
	}
	return false;
}
