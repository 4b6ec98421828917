/* One result table, four views: aligned text, CSV, JSON and markdown come
 * from the same rows, so column names match across formats. Cells are
 * stored as the bytes they show (numbers formatted once, C locale, fixed
 * precision per column: td_table_format_num): output is byte-stable.
 * Rows too many to keep are written as they are made by a row stream
 * (row_stream.h), with the same columns and the same bytes. */
#ifndef TD_TABLE_H
#define TD_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "reports/escape.h"

enum td_format { TD_FMT_TEXT, TD_FMT_CSV, TD_FMT_JSON, TD_FMT_MARKDOWN };

enum td_col_type {
	TD_COL_STR,   /* JSON string */
	TD_COL_INT,   /* JSON number, printed as an integer */
	TD_COL_NUM    /* JSON number, printed with the column's precision */
};

struct td_column {
	const char *name;       /* CSV/JSON key, also the text header */
	enum td_col_type type;
	int precision;          /* digits after the point for TD_COL_NUM */
};

struct td_table;

struct td_table *td_table_new(const struct td_column *cols, int ncols);
void td_table_free(struct td_table *t);

/* Start a new row; cells not set stay empty (blank in text/CSV, null in JSON). */
void td_table_row(struct td_table *t);
void td_table_str(struct td_table *t, int col, const char *s);   /* NULL or "": empty */
void td_table_int(struct td_table *t, int col, long long v);
void td_table_num(struct td_table *t, int col, double v);   /* NaN/inf: empty */

/* A number as a TD_COL_NUM cell with precision digits shows it (v finite):
 * into buf, returns the length. */
size_t td_table_format_num(char buf[48], double v, int precision);

/* A whole row at once: td_table_row, then each cell in column order as
 * td_table_str, td_table_num or td_table_int would set it. TD_CELL_LIT: a
 * string that never changes while the table (or row stream) lives (a
 * literal): a row stream looks at what it needs once. */
enum td_cell_kind { TD_CELL_EMPTY, TD_CELL_STR, TD_CELL_NUM, TD_CELL_INT, TD_CELL_LIT };
struct td_cell {
	enum td_cell_kind kind;
	int zero;               /* 0, so that cells made by the macros compare as bytes */
	union {
		const char *s;
		double v;
		long long i;
	} u;
};
#define TD_CELL_NONE ((struct td_cell){ .kind = TD_CELL_EMPTY })
#define TD_CELL_STR(x) ((struct td_cell){ .kind = TD_CELL_STR, .u.s = (x) })
#define TD_CELL_NUM(x) ((struct td_cell){ .kind = TD_CELL_NUM, .u.v = (x) })
#define TD_CELL_INT(x) ((struct td_cell){ .kind = TD_CELL_INT, .u.i = (x) })
#define TD_CELL_LIT(x) ((struct td_cell){ .kind = TD_CELL_LIT, .u.s = (x) })
void td_table_put_row(struct td_table *t, const struct td_cell *cells);
/* td_table_put_row for nrows rows (nrows * ncols cells); from: as
 * td_rows_put (row_stream.h) takes it, for the same calls on either. */
void td_table_put_rows(struct td_table *t, const struct td_cell *cells, int nrows, int from);

int td_table_rows(const struct td_table *t);
const char *td_table_cell(const struct td_table *t, int row, int col);  /* NULL if empty */

/* The whole table in one format. JSON: an array of objects. */
void td_table_write(const struct td_table *t, FILE *f, enum td_format fmt);

/* Parse "--csv"-style flags into a format; returns TD_FMT_TEXT if none set. */
enum td_format td_pick_format(bool csv, bool json, bool markdown);

#endif
