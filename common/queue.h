/* A bounded queue of pointers between threads: the one hand-off of every
 * producer/consumer pair (a reader filling blocks, a thread emptying them).
 *
 *	push blocks while the queue is full, pop while it is empty;
 *	after close, pop returns what is left, then NULL (and wakes every
 *	waiting consumer), and push is an error.
 *
 * Items leave in the order they came. Any number of threads may push and
 * pop (one lock, two condition variables), so a pool of workers can share
 * one queue; two queues, one of full blocks and one of empty ones, bound
 * the memory of a pipe by the number of blocks. */
#ifndef TD_QUEUE_H
#define TD_QUEUE_H

#include <pthread.h>
#include <stdbool.h>

struct td_queue {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	void **item;
	int cap, head, count;
	bool closed;
};

void td_queue_init(struct td_queue *q, int cap);
void td_queue_destroy(struct td_queue *q);
void td_queue_push(struct td_queue *q, void *item);
/* Push without waiting: false (and nothing queued) while the queue is
 * full, so a producer can do the work itself instead of waiting. */
bool td_queue_try_push(struct td_queue *q, void *item);
/* The oldest item; NULL once the queue is closed and empty. */
void *td_queue_pop(struct td_queue *q);
/* The oldest item, or NULL at once while the queue is empty. */
void *td_queue_try_pop(struct td_queue *q);
void td_queue_close(struct td_queue *q);

#endif
