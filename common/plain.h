/* The one switch of every fast path: TD_PLAIN=1 in the environment turns
 * off each module's cache (the CSV row shapes, the stat pipe's string
 * dedup, the stat model's memo lookups and metric plans, the index of
 * DWARF scopes behind inline frames), so the slow path answers alone.
 * Both paths must give the same bytes: make test runs every stat input
 * both ways and compares (tests/fast-paths.t), and every dwarf recording
 * (tests/fold-dwarf-index.t).
 *
 * The variable is read once per process, on the first call; a module asks
 * when it is created and keeps the answer. */
#ifndef TD_PLAIN_H
#define TD_PLAIN_H

#include <stdbool.h>

/* True when TD_PLAIN is set to anything but "" or "0". */
bool td_plain(void);

#endif
