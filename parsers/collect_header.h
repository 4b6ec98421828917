/* td-collect's self-description of a capture: lines
 *     # tdkit-collect: KEY=VALUE
 * before perf's own output (cpuid, cpu, pmus, smt, kernel, perf_version,
 * host, target, start, tma_level ...; label.K=V for the user's labels).
 * To perf stat's readers they are comments; this module reads them.
 *
 * The readers hand every comment line of every file to collect_header_note
 * (stat_read, once per line, no copy unless it is a header line); the
 * capture's CPU id is then known to the Top-down engine, which selects the
 * model by it instead of guessing from event names. Inputs that disagree
 * (two CPUs, or a file without a header among files with one) have no CPU
 * id: nothing read from one file is applied to another's counters. */
#ifndef TD_COLLECT_HEADER_H
#define TD_COLLECT_HEADER_H

#include <stdbool.h>
#include <stddef.h>

#define COLLECT_HEADER_MARK "# tdkit-collect: "

/* The KEY and VALUE of a header line (pointers into line), or false when
 * line is not one. The value runs to the end of the line, CR dropped. */
bool collect_header_fact(const char *line, size_t len, const char **key, size_t *klen, const char **value,
			 size_t *vlen);

/* stat_read's hooks: a file is being read; one of its comment lines. */
void collect_header_file(const char *file);
void collect_header_note(const char *line, size_t len);
/* Forgets every file read: the next ones are a capture of their own (a
 * fuzz target reads one capture per input in one process). */
void collect_header_reset(void);

/* The cpuid every file read so far gave in its header; NULL when one did
 * not or two differ. Safe to call from another thread than the reader's. */
const char *collect_header_cpuid(void);
/* A count that changes whenever collect_header_cpuid's answer may have
 * changed (a file started, a cpuid line, a reset): a caller that keeps the
 * answer asks again only when the count differs from the one it read
 * before asking. Lock-free; safe from any thread. */
unsigned collect_header_changes(void);

#endif
