/* Rows written as they are made: CSV (a header, then a line per row) or
 * JSON (an array of objects), with the columns and number formats of a
 * td_table (table.h), so the bytes are those td_table_write gives for the
 * same rows. Memory stays a few rows whatever the number of rows: a row
 * is put together as output bytes while its cells come in, and never held
 * in another form.
 *
 * Contract: a row's cells are given in increasing column order (a column
 * skipped is empty); a row given whole (td_rows_put) is complete. A cell
 * out of order is a programming error: the tool stops with a message. */
#ifndef TD_ROW_STREAM_H
#define TD_ROW_STREAM_H

#include <stdio.h>
#include "reports/table.h"

struct td_rows;

/* Starts the document on f (CSV: the header; JSON: the opening bracket). */
struct td_rows *td_rows_new(const struct td_column *cols, int ncols, FILE *f, enum td_format fmt);
/* Writes what is pending and closes the document (JSON: the array). */
void td_rows_end(struct td_rows *w);
void td_rows_free(struct td_rows *w);

/* A new row; then its cells, as td_table_str, _num, _int set them. */
void td_rows_row(struct td_rows *w);
void td_rows_str(struct td_rows *w, int col, const char *s);   /* NULL or "": empty */
void td_rows_num(struct td_rows *w, int col, double v);        /* NaN/inf: empty */
void td_rows_int(struct td_rows *w, int col, long long v);

/* nrows whole rows (nrows * ncols cells, td_cell as table.h makes them).
 * Quicker for CSV: the first cells the same as the row above's (strings:
 * the same pointer, so they must not change during the call) are its bytes
 * again; the cells from column from on, when they repeat from row to row
 * (literals, numbers, empty), are copied from a row that had the same. */
void td_rows_put(struct td_rows *w, const struct td_cell *cells, int nrows, int from);

/* Every row so far written out and f flushed (the input paused); the bytes
 * are the same as without. */
void td_rows_flush(struct td_rows *w);

#endif
