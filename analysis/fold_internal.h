/* What fold.c shares with fold_write.c, not with fold's callers. */
#ifndef TD_FOLD_INTERNAL_H
#define TD_FOLD_INTERNAL_H

#include <stdint.h>
#include "common/intern.h"
#include "fold.h"

/* A fold's stacks once every pending one is counted: stack s is the
 * bytes of stacks' entry s (name ids in names, leaf last, unaligned),
 * counted counts[s] times. threads: fold_options.threads. */
struct fold_stacks {
	const struct td_intern *names, *stacks;
	const uint64_t *counts;
	int threads;
};

struct fold_stacks fold_settled(struct fold *f);

#endif
