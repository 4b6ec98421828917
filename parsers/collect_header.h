/* td-collect's self-description of a capture: lines
 *     # tdkit-collect: KEY=VALUE
 * before perf's own output (cpuid, cpu, pmus, smt, kernel, perf_version,
 * host, target, start, tma_level ...; label.K=V for the user's labels).
 * To perf stat's readers they are comments; this module reads them.
 *
 * stat_read emits each header line as a STAT_HEADER record; whoever takes
 * the records (the stat model of one engine) keeps a struct collect_cpu
 * over the files it was given, so the capture's CPU id belongs to that
 * reader, not to the process: two engines reading two captures keep their
 * own. The Top-down engine selects the model by it instead of guessing
 * from event names. Inputs that disagree (two CPUs, or a file without a
 * header among files with one) have no CPU id: nothing read from one file
 * is applied to another's counters. */
#ifndef TD_COLLECT_HEADER_H
#define TD_COLLECT_HEADER_H

#include <stdbool.h>
#include <stddef.h>

#define COLLECT_HEADER_MARK "# tdkit-collect: "

/* The KEY and VALUE of a header line (pointers into line), or false when
 * line is not one. The value runs to the end of the line, CR dropped. */
bool collect_header_fact(const char *line, size_t len, const char **key, size_t *klen, const char **value,
			 size_t *vlen);

/* The CPU ids the files of one capture gave; zeroed: no file yet. */
struct collect_cpu {
	unsigned files;            /* files read */
	unsigned with_cpuid;       /* of them, files whose header gave a cpuid */
	bool this_file_has;        /* the file being read gave one */
	bool conflict;             /* two cpuids differ, or one is empty or too long */
	char cpuid[64];
};
/* Another file of the capture starts. */
void collect_cpu_file(struct collect_cpu *c);
/* A header fact of the file being read (STAT_HEADER's KEY and VALUE). */
void collect_cpu_fact(struct collect_cpu *c, const char *key, size_t klen, const char *value, size_t vlen);
/* The cpuid every file read so far gave in its header; NULL when one did
 * not or two differ. */
const char *collect_cpu_id(const struct collect_cpu *c);

#endif
