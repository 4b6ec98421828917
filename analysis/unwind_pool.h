/* --call-graph dwarf samples unwound on worker threads while the replay
 * goes on. Each sample's user registers and stack are copied into a job
 * together with the unwind_space of its process at that moment, so a
 * worker reads nothing the replaying thread changes; each worker has its
 * own unwinder (dwfls and opened binaries). The addresses a job gives do
 * not depend on which thread unwound it, nor on how many there are.
 *
 * All calls are made from one thread, the replaying one. With no worker
 * (nthreads <= 1, or no thread could be started) a job is unwound on
 * that thread when submitted. */
#ifndef TD_UNWIND_POOL_H
#define TD_UNWIND_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "analysis/machine.h"
#include "parsers/perf_data.h"

struct unwind_pool;
struct unwind_job;

struct unwind_pool *unwind_pool_new(struct machine *m, int e_machine, int nthreads);
/* Waits for the workers to finish what they have; jobs not released are freed. */
void unwind_pool_free(struct unwind_pool *p);
/* How many workers run (0: jobs are unwound when submitted). */
int unwind_pool_workers(const struct unwind_pool *p);

/* Every job is out (submitted, not released): wait for one and release it first. */
bool unwind_pool_full(const struct unwind_pool *p);
/* Unwinds sample s of process pid (regs sampled with mask, at most max
 * addresses) with the process's maps as they are now. The pool must not
 * be full. */
struct unwind_job *unwind_pool_submit(struct unwind_pool *p, int32_t pid, const struct pd_sample *s, uint64_t mask,
				      size_t max);
/* Whether the job's addresses are there (without waiting). */
bool unwind_job_done(const struct unwind_job *j);
int32_t unwind_job_pid(const struct unwind_job *j);
/* The job's addresses (waiting for them); valid until it is released. */
size_t unwind_job_wait(struct unwind_pool *p, struct unwind_job *j, const uint64_t **ips);
void unwind_job_release(struct unwind_pool *p, struct unwind_job *j);

#endif
