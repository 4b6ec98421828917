/* A capture kept in td-store: td-store's own `add` verb
 * (filters/td-store/cmd_add.c) run in a child process, so the run is
 * stored exactly as `td-store add --db DB FILE` stores it, labels from the
 * capture's header included. */
#ifndef TD_COLLECT_STORE_H
#define TD_COLLECT_STORE_H

#include <stdbool.h>
#include <stddef.h>

/* db NULL or "": $TD_DB, else td-store's default. The run ids go to ids
 * (one per line); false when td-store add failed (it said why on stderr). */
bool store_capture(const char *db, const char *path, char *ids, size_t cap);

#endif
