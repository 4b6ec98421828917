#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/unwind_user.h"
#include "common/diag.h"
#include "common/grow.h"
#include "common/queue.h"
#include "unwind_pool.h"

/* Jobs live in a fixed array and move between a free list (touched only
 * by the replaying thread) and the todo queue (pushed by the replaying
 * thread, popped by the workers). A worker marks a job done under the
 * lock and broadcasts; unwind_job_wait sleeps on that condition until its
 * job is done. done is atomic so that unwind_job_done can be asked
 * without the lock: its release store publishes the addresses written
 * before it. The unwind_spaces of the last processes submitted are kept
 * (spaces[], by pid) so consecutive samples of a process share one while
 * its maps do not change. */

/* Jobs out at once: enough to keep the workers busy between two changes
 * of a process's maps, few enough that their stack copies (8 KiB each by
 * default, 64 KiB at most) stay small. */
#define NJOBS 64
#define MAX_WORKERS 64
#define MAX_IPS 1024
#define SPACE_SLOTS 64

struct unwind_job {
	struct unwind_space *sp;
	int32_t pid;
	struct pd_sample s;               /* regs_user and stack_user point into buf */
	uint64_t mask;
	size_t max, n;
	unsigned char *buf;
	size_t buf_cap;
	uint64_t ips[MAX_IPS];
	atomic_bool done;
	struct unwind_job *next_free;
};

struct unwind_pool {
	struct machine *m;
	int e_machine;
	struct unwinder *here;            /* the replaying thread's (no workers) */
	int nworkers;
	bool queue_made;
	pthread_t thread[MAX_WORKERS];
	struct unwinder *unwinder[MAX_WORKERS];
	struct td_queue todo;
	pthread_mutex_t lock;
	pthread_cond_t done;
	struct unwind_job jobs[NJOBS];
	struct unwind_job *free;
	int out;
	struct space_slot { int32_t pid; struct unwind_space *sp; } spaces[SPACE_SLOTS];
};

static void run(struct unwinder *u, struct unwind_job *j)
{
	j->n = unwind_user(u, j->sp, &j->s, j->mask, j->ips, j->max);
}

struct worker_arg { struct unwind_pool *p; int i; };

static void *work(void *arg)
{
	struct worker_arg *a = arg;
	struct unwind_pool *p = a->p;
	struct unwinder *u = p->unwinder[a->i];
	free(a);
	struct unwind_job *j;
	while ((j = td_queue_pop(&p->todo))) {
		run(u, j);
		pthread_mutex_lock(&p->lock);
		atomic_store_explicit(&j->done, true, memory_order_release);
		pthread_cond_broadcast(&p->done);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

struct unwind_pool *unwind_pool_new(struct machine *m, int e_machine, int nthreads)
{
	struct unwind_pool *p = td_calloc(1, sizeof(*p));
	p->m = m;
	p->e_machine = e_machine;
	p->here = unwinder_new(e_machine);
	for (int i = NJOBS - 1; i >= 0; i--) {
		p->jobs[i].next_free = p->free;
		p->free = &p->jobs[i];
	}
	if (nthreads > MAX_WORKERS)
		nthreads = MAX_WORKERS;
	if (nthreads <= 1)
		return p;
	td_queue_init(&p->todo, NJOBS);
	p->queue_made = true;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->done, NULL);
	for (int i = 0; i < nthreads; i++) {
		struct worker_arg *a = td_malloc(sizeof(*a));
		*a = (struct worker_arg){ p, i };
		p->unwinder[i] = unwinder_new(e_machine);
		if (pthread_create(&p->thread[i], NULL, work, a) != 0) {
			/* what started works; none: unwind here */
			free(a);
			unwinder_free(p->unwinder[i]);
			p->unwinder[i] = NULL;
			break;
		}
		p->nworkers++;
	}
	return p;
}

int unwind_pool_workers(const struct unwind_pool *p)
{
	return p->nworkers;
}

void unwind_pool_free(struct unwind_pool *p)
{
	if (!p)
		return;
	if (p->queue_made) {
		td_queue_close(&p->todo);
		for (int i = 0; i < p->nworkers; i++) {
			pthread_join(p->thread[i], NULL);
			unwinder_free(p->unwinder[i]);
		}
		td_queue_destroy(&p->todo);
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->done);
	}
	for (int i = 0; i < NJOBS; i++) {
		unwind_space_unref(p->jobs[i].sp);
		free(p->jobs[i].buf);
	}
	for (int i = 0; i < SPACE_SLOTS; i++)
		unwind_space_unref(p->spaces[i].sp);
	unwinder_free(p->here);
	free(p);
}

bool unwind_pool_full(const struct unwind_pool *p)
{
	return p->free == NULL;
}

/* The process's maps as they are now: made anew only when they changed. */
static struct unwind_space *space_of(struct unwind_pool *p, int32_t pid)
{
	struct space_slot *slot = &p->spaces[(uint32_t)pid % SPACE_SLOTS];
	if (slot->sp && slot->pid == pid && unwind_space_gen(slot->sp) == machine_maps_gen(p->m, pid))
		return slot->sp;
	unwind_space_unref(slot->sp);
	slot->pid = pid;
	slot->sp = unwind_space_new(p->m, pid);
	return slot->sp;
}

struct unwind_job *unwind_pool_submit(struct unwind_pool *p, int32_t pid, const struct pd_sample *s, uint64_t mask,
				      size_t max)
{
	struct unwind_job *j = p->free;
	if (!j)
		td_die("internal error: unwind jobs exhausted");
	p->free = j->next_free;
	p->out++;
	j->sp = unwind_space_ref(space_of(p, pid));
	j->pid = pid;
	j->mask = mask;
	j->max = max < MAX_IPS ? max : MAX_IPS;
	j->n = 0;
	/* the registers, the stack size word, the stack: copied as one span,
	 * the stack only as far as the kernel filled it (its dyn_size) */
	size_t regs = s->regs_user && s->stack_user ? (size_t)(s->stack_user - s->regs_user) : 0;
	uint64_t stack = s->stack_user_dyn_size < s->stack_user_size ? s->stack_user_dyn_size : s->stack_user_size;
	size_t len = regs ? regs + stack : 0;
	TD_ALLOC_GROW(j->buf, len + 1, j->buf_cap);
	if (len)
		memcpy(j->buf, s->regs_user, len);
	j->s = (struct pd_sample){ 0 };
	j->s.regs_user_abi = s->regs_user_abi;
	j->s.regs_user = regs ? j->buf : NULL;
	j->s.stack_user = regs ? j->buf + regs : NULL;
	j->s.stack_user_size = regs ? stack : 0;
	j->s.stack_user_dyn_size = s->stack_user_dyn_size;
	if (!p->nworkers) {
		run(p->here, j);
		atomic_store_explicit(&j->done, true, memory_order_relaxed);
		return j;
	}
	atomic_store_explicit(&j->done, false, memory_order_relaxed);
	td_queue_push(&p->todo, j);
	return j;
}

bool unwind_job_done(const struct unwind_job *j)
{
	return atomic_load_explicit(&j->done, memory_order_acquire);
}

int32_t unwind_job_pid(const struct unwind_job *j)
{
	return j->pid;
}

size_t unwind_job_wait(struct unwind_pool *p, struct unwind_job *j, const uint64_t **ips)
{
	if (!unwind_job_done(j)) {
		pthread_mutex_lock(&p->lock);
		while (!unwind_job_done(j))
			pthread_cond_wait(&p->done, &p->lock);
		pthread_mutex_unlock(&p->lock);
	}
	*ips = j->ips;
	return j->n;
}

void unwind_job_release(struct unwind_pool *p, struct unwind_job *j)
{
	unwind_space_unref(j->sp);
	j->sp = NULL;
	j->next_free = p->free;
	p->free = j;
	p->out--;
}
