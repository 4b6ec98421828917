/* --call-graph dwarf samples unwound on worker threads while the replay
 * goes on. Each sample's user registers and stack are copied into a job
 * together with the unwind_space of its process at that moment, so a
 * worker reads nothing the replaying thread changes; each worker has its
 * own unwinder (dwfls and opened binaries). The addresses a job gives do
 * not depend on which thread unwound it, nor on how many there are.
 *
 * Contract:
 * - Threads: every call is made from one thread, the replaying one; the
 *   workers touch only the jobs handed to them and their own unwinders.
 *   With no worker (nthreads <= 1, or no thread could be started) a job
 *   is unwound on the replaying thread when submitted.
 * - Order: jobs are unwound in any order, several at once; the caller
 *   takes their addresses in the order it wants (unwind_job_wait), and
 *   results never depend on that order or on the number of workers.
 * - Bounds: at most 64 workers; at most 64 jobs out (submitted, not
 *   released) at once: submit only when !unwind_pool_full() (release the
 *   oldest first).
 *   A job holds at most 1024 addresses and a copy of the sample's
 *   registers and filled stack (stack_user_dyn_size bytes), reused by the
 *   next job in its slot, so memory does not grow with the recording.
 * - Ownership: the pool owns its jobs, their copies and the addresses
 *   unwind_job_wait points to (valid until unwind_job_release); a job
 *   holds a reference to its process's unwind_space, dropped on release.
 *   The machine must outlive the pool. unwind_pool_free waits for the
 *   workers and frees every job, released or not. */
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
