/* common/queue.h: items leave in order through a small queue between two
 * threads (the producer blocks while it is full), and close lets the
 * consumer drain what is left, then see NULL. */
#include <pthread.h>
#include <stdint.h>
#include "common/queue.h"
#include "tests/unit/tap.h"

#define N 100000

static void *produce(void *arg)
{
	struct td_queue *q = arg;
	for (uintptr_t i = 1; i <= N; i++)
		td_queue_push(q, (void *)i);
	td_queue_close(q);
	return NULL;
}

int main(void)
{
	struct td_queue q;
	td_queue_init(&q, 4);
	pthread_t t;
	ok(pthread_create(&t, NULL, produce, &q) == 0, "a producer thread starts");
	uintptr_t want = 1, got;
	int in_order = 1;
	while ((got = (uintptr_t)td_queue_pop(&q)))
		in_order &= got == want++;
	pthread_join(t, NULL);
	ok(in_order && want == N + 1, "100,000 items through a queue of 4, in order, then NULL after close");
	td_queue_destroy(&q);
	td_queue_init(&q, 2);
	ok(td_queue_try_push(&q, (void *)1) && td_queue_try_push(&q, (void *)2) && !td_queue_try_push(&q, (void *)3),
	   "try_push fills the queue, then says it is full");
	ok(td_queue_pop(&q) == (void *)1 && td_queue_pop(&q) == (void *)2, "what try_push queued leaves in order");
	ok(td_queue_try_pop(&q) == NULL, "try_pop on an empty queue returns NULL at once");
	td_queue_push(&q, (void *)3);
	td_queue_push(&q, (void *)4);
	ok(td_queue_try_pop(&q) == (void *)3 && td_queue_try_pop(&q) == (void *)4 && td_queue_try_pop(&q) == NULL,
	   "try_pop takes what is queued, in order");
	td_queue_push(&q, (void *)1);
	td_queue_close(&q);
	ok(td_queue_pop(&q) == (void *)1 && td_queue_pop(&q) == NULL, "close keeps what was queued; then NULL");
	td_queue_destroy(&q);
	return tap_done();
}
