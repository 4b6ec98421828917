/* Row shapes of perf stat -x output, for the CSV reader (stat_csv.c).
 *
 * Counter rows repeat: an -I capture prints the same scope, unit, event
 * and metric unit every interval, and only the numbers change. A row's
 * shape is its bytes with the numbers the reader took from it left out. A
 * line of a known shape is read by comparing bytes and parsing those
 * numbers: every field the reader would classify is the same, so the
 * record is the one it would make. */
#ifndef TD_STAT_CSV_SHAPE_H
#define TD_STAT_CSV_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include "stat.h"

/* The fields a counter row's numbers came from; -1: none. */
struct csv_layout {
	bool learnable;          /* fields as split, one number per field */
	int interval, value, run, enabled, metric;
};

struct csv_shapes;
struct csv_shapes *csv_shapes_new(void);
void csv_shapes_free(struct csv_shapes *s);

/* The record the line reads as, when it (fields separated by sep) has a
 * known shape, else NULL (always NULL under td_plain(): common/plain.h).
 * The record is the shape's own: the caller may set its file, line and
 * kind; it stays as the line left it until the shape matches again or the
 * shapes learn a row. *metric: the row also carries a metric perf printed. */
struct stat_record *csv_shapes_match(struct csv_shapes *s, const char *line, size_t len, char sep, bool *metric);

/* A counter row read the long way: its shape, kept when it may repeat.
 * r: the record read from it, lay: where its numbers were. */
void csv_shapes_learn(struct csv_shapes *s, const char *line, size_t len, char sep, const struct stat_record *r,
		      const struct csv_layout *lay);

#endif
