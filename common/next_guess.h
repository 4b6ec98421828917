/* Guessing the next slot of a table from the one before. perf stat
 * prints an interval's rows in the same order every interval, so the
 * table slot of a row is most likely one of the two that followed the
 * previous row's slot before (two, where rows alternate). A caller keeps
 * next[2] per slot, tries the guesses in order and takes the hash only
 * when none holds. The guesses are hints: a caller checks each one. */
#ifndef TD_NEXT_GUESS_H
#define TD_NEXT_GUESS_H

#include <stdbool.h>
#include <stdint.h>

/* The slots to try after the slot last, whose followers are next: a
 * metric (again) is most often its counter's row again, a counter the row
 * that followed last before. */
static inline void td_next_guesses(uint32_t last, const uint32_t next[2], bool again, uint32_t guess[3])
{
	guess[0] = again ? last : next[0];
	guess[1] = again ? next[0] : next[1];
	guess[2] = again ? next[1] : last;
}

/* Learns that slot followed last (whose followers are next). A slot
 * following itself (a row's metric after its counter) leaves the chain. */
static inline void td_next_learn(uint32_t next[2], uint32_t last, uint32_t slot)
{
	if (slot != last && slot != next[0]) {
		next[1] = next[0];
		next[0] = slot;
	}
}

#endif
