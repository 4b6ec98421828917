/* perf.data records put back in time order the way perf script orders
 * them: records with a timestamp wait in a queue; at each FINISHED_ROUND
 * the ones up to the largest timestamp seen before the previous round are
 * delivered, oldest first (ties in arrival order); the rest at the end.
 * Records without a timestamp (0 or absent) go through at once. A queued
 * record stays where the reader read it (perf_data_pin) or, when it cannot
 * be pinned, is copied. Memory is what two rounds of records take, in
 * whole window buffers (the whole file if it has no rounds). */
#ifndef TD_ORDERED_RECORDS_H
#define TD_ORDERED_RECORDS_H

#include <stdint.h>
#include "parsers/perf_data.h"

typedef void (*ordered_fn)(void *ctx, const struct pd_record *rec);

struct ordered_records;

/* Sets d->samples_decoded_later: samples are decoded whole on delivery. */
struct ordered_records *ordered_new(struct perf_data *d, ordered_fn fn, void *ctx);
/* Queue rec (pinned, or a copy) or deliver it now; a FINISHED_ROUND flushes. */
void ordered_add(struct ordered_records *o, const struct pd_record *rec);
/* Deliver everything still queued. */
void ordered_finish(struct ordered_records *o);
void ordered_free(struct ordered_records *o);

#endif
