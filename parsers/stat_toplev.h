/* toplev's output (pmu-tools, text and CSV) read into the records of
 * stat.h: its Top-down node values as metrics of source STAT_FROM_TOPLEV.
 * One reader per file: it knows, line by line, whether the file is
 * toplev's (stat_toplev.c says how it tells). */
#ifndef TD_STAT_TOPLEV_H
#define TD_STAT_TOPLEV_H

#include <stdbool.h>
#include <stddef.h>
#include "parsers/stat.h"

struct stat_toplev;
struct stat_toplev *stat_toplev_new(void);
/* STAT_TOPLEV_TEXT or _CSV when the file held toplev's output, else STAT_AUTO. */
enum stat_format stat_toplev_format(const struct stat_toplev *t);
/* Says once what the file held that was not read (Info rows, other lines). */
void stat_toplev_free(struct stat_toplev *t);
/* True: the line is toplev's and was read (records emitted); false: it is
 * for perf stat's readers. rows_too: a node row alone ("BE  Backend_Bound
 * % Slots  55.7") can make the file toplev's; stat_read allows it only
 * before the file's first perf stat line, so perf's lines cost two
 * searches, not a tokenisation. */
bool stat_toplev_line(struct stat_toplev *t, const char *line, size_t len, bool rows_too, const char *file,
		      unsigned long lineno, stat_emit_fn emit, void *ctx);

#endif
