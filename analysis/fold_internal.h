/* What fold.c shares with fold_write.c, not with fold's callers. */
#ifndef TD_FOLD_INTERNAL_H
#define TD_FOLD_INTERNAL_H

#include <stdint.h>
#include "common/intern.h"
#include "fold.h"

/* A fold's stacks once every pending one is counted: stack s (s <
 * nstacks) is arena[at[s]] name ids (names' ids, leaf last) from
 * arena[at[s] + 1] on, counted counts[s] times. threads:
 * fold_options.threads. */
struct fold_stacks {
	const struct td_intern *names;
	const uint32_t *arena, *at;
	uint32_t nstacks;
	const uint64_t *counts;
	int threads;
};

struct fold_stacks fold_settled(struct fold *f);

#endif
