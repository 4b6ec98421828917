#include <stdlib.h>
#include "common/diag.h"
#include "common/queue.h"

void td_queue_init(struct td_queue *q, int cap)
{
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->not_empty, NULL);
	pthread_cond_init(&q->not_full, NULL);
	q->item = td_calloc((size_t)cap, sizeof(*q->item));
	q->cap = cap;
	q->head = q->count = 0;
	q->closed = false;
}

void td_queue_destroy(struct td_queue *q)
{
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->not_empty);
	pthread_cond_destroy(&q->not_full);
	free(q->item);
	q->item = NULL;
}

void td_queue_push(struct td_queue *q, void *item)
{
	pthread_mutex_lock(&q->lock);
	if (q->closed)
		td_die("internal error: push to a closed queue");
	while (q->count == q->cap)
		pthread_cond_wait(&q->not_full, &q->lock);
	q->item[(q->head + q->count++) % q->cap] = item;
	pthread_cond_signal(&q->not_empty);
	pthread_mutex_unlock(&q->lock);
}

bool td_queue_try_push(struct td_queue *q, void *item)
{
	pthread_mutex_lock(&q->lock);
	if (q->closed)
		td_die("internal error: push to a closed queue");
	bool room = q->count < q->cap;
	if (room) {
		q->item[(q->head + q->count++) % q->cap] = item;
		pthread_cond_signal(&q->not_empty);
	}
	pthread_mutex_unlock(&q->lock);
	return room;
}

static void *pop_locked(struct td_queue *q)
{
	void *item = NULL;
	if (q->count) {
		item = q->item[q->head];
		q->head = (q->head + 1) % q->cap;
		q->count--;
		pthread_cond_signal(&q->not_full);
	}
	return item;
}

void *td_queue_try_pop(struct td_queue *q)
{
	pthread_mutex_lock(&q->lock);
	void *item = pop_locked(q);
	pthread_mutex_unlock(&q->lock);
	return item;
}

void *td_queue_pop(struct td_queue *q)
{
	pthread_mutex_lock(&q->lock);
	while (q->count == 0 && !q->closed)
		pthread_cond_wait(&q->not_empty, &q->lock);
	void *item = pop_locked(q);
	pthread_mutex_unlock(&q->lock);
	return item;
}

void td_queue_close(struct td_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	pthread_cond_broadcast(&q->not_empty);
	pthread_mutex_unlock(&q->lock);
}
