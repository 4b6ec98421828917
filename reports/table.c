/* The table store (table.h): every cell kept as the bytes it shows, in one
 * text buffer; the writers go over the whole table. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "common/numfmt.h"
#include "reports/escape.h"
#include "reports/table.h"

struct cell {
	long off;              /* into text, -1 = empty */
	uint32_t len;
	bool plain;            /* a number: nothing to quote or escape */
};

struct td_table {
	const struct td_column *cols;
	int ncols;
	struct cell *cells;    /* rows * ncols */
	int nrows, cap_rows;
	char *text;            /* every cell's bytes, NUL-terminated */
	size_t text_len, text_cap;
};

struct td_table *td_table_new(const struct td_column *cols, int ncols)
{
	struct td_table *t = td_calloc(1, sizeof(*t));
	t->cols = cols;
	t->ncols = ncols;
	return t;
}

void td_table_free(struct td_table *t)
{
	if (!t)
		return;
	free(t->cells);
	free(t->text);
	free(t);
}

void td_table_row(struct td_table *t)
{
	if (t->nrows == t->cap_rows) {
		t->cap_rows = t->cap_rows ? t->cap_rows * 2 : 64;
		t->cells = td_realloc(t->cells, (size_t)t->cap_rows * t->ncols * sizeof(*t->cells));
	}
	struct cell *row = &t->cells[(size_t)t->nrows++ * t->ncols];
	for (int c = 0; c < t->ncols; c++)
		row[c] = (struct cell){ -1, 0, false };
}

static void set_cell(struct td_table *t, int col, const char *s, size_t len, bool plain)
{
	struct cell *c = &t->cells[(size_t)(t->nrows - 1) * t->ncols + col];
	if (!s) {
		*c = (struct cell){ -1, 0, false };
		return;
	}
	if (t->text_len + len + 1 > t->text_cap) {
		t->text_cap = (t->text_len + len + 1) * 2 + 4096;
		t->text = td_realloc(t->text, t->text_cap);
	}
	memcpy(t->text + t->text_len, s, len);
	t->text[t->text_len + len] = '\0';
	*c = (struct cell){ (long)t->text_len, (uint32_t)len, plain };
	t->text_len += len + 1;
}

void td_table_str(struct td_table *t, int col, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	set_cell(t, col, n ? s : NULL, n, false);   /* "" is an empty cell */
}

void td_table_int(struct td_table *t, int col, long long v)
{
	char buf[32];
	int n = snprintf(buf, sizeof buf, "%lld", v);
	set_cell(t, col, buf, (size_t)n, true);
}

size_t td_table_format_num(char buf[48], double v, int precision)
{
	size_t n = td_format_fixed(buf, v, precision);
	/* past 1e37 printf's digits do not fit: the cell is what buf holds */
	return n >= 48 ? strlen(buf) : n;
}

void td_table_num(struct td_table *t, int col, double v)
{
	if (!isfinite(v)) {
		set_cell(t, col, NULL, 0, false);
		return;
	}
	char buf[48];
	set_cell(t, col, buf, td_table_format_num(buf, v, t->cols[col].precision), true);
}

void td_table_put_row(struct td_table *t, const struct td_cell *cells)
{
	td_table_put_rows(t, cells, 1, t->ncols);
}

void td_table_put_rows(struct td_table *t, const struct td_cell *cells, int nrows, int from)
{
	(void)from;
	for (int r = 0; r < nrows; r++) {
		const struct td_cell *row = &cells[(size_t)r * t->ncols];
		td_table_row(t);
		for (int c = 0; c < t->ncols; c++) {
			switch (row[c].kind) {
			case TD_CELL_STR:
			case TD_CELL_LIT:
				td_table_str(t, c, row[c].u.s);
				break;
			case TD_CELL_NUM:
				td_table_num(t, c, row[c].u.v);
				break;
			case TD_CELL_INT:
				td_table_int(t, c, row[c].u.i);
				break;
			default:
				break;
			}
		}
	}
}

int td_table_rows(const struct td_table *t) { return t->nrows; }

const char *td_table_cell(const struct td_table *t, int row, int col)
{
	long off = t->cells[(size_t)row * t->ncols + col].off;
	return off < 0 ? NULL : t->text + off;
}

static void write_csv(const struct td_table *t, FILE *f)
{
	for (int c = 0; c < t->ncols; c++) {
		if (c)
			putc_unlocked(',', f);
		td_csv_field(f, t->cols[c].name);
	}
	putc_unlocked('\n', f);
	size_t cap = 0;
	char *buf = NULL;
	for (int r = 0; r < t->nrows; r++) {
		const struct cell *row = &t->cells[(size_t)r * t->ncols];
		for (int c = 0; c < t->ncols; c++) {
			if (c)
				putc_unlocked(',', f);
			if (row[c].off < 0)
				continue;
			const char *s = t->text + row[c].off;
			size_t n = row[c].len, i = 0;
			if (!row[c].plain)
				while (i < n && !td_csv_special((unsigned char)s[i]))
					i++;
			if (row[c].plain || i == n) {
				fwrite_unlocked(s, 1, n, f);
				continue;
			}
			if (2 * n + 2 > cap) {
				cap = 2 * n + 2;
				buf = td_realloc(buf, cap);
			}
			fwrite_unlocked(buf, 1, (size_t)(td_csv_quote(buf, s, n) - buf), f);
		}
		putc_unlocked('\n', f);
	}
	free(buf);
}

static void write_json(const struct td_table *t, FILE *f)
{
	fputs_unlocked("[", f);
	for (int r = 0; r < t->nrows; r++) {
		fputs_unlocked(r ? ",\n  {" : "\n  {", f);
		for (int c = 0; c < t->ncols; c++) {
			const char *s = td_table_cell(t, r, c);
			if (c)
				fputs_unlocked(", ", f);
			td_json_string(f, t->cols[c].name);
			fputs_unlocked(": ", f);
			if (!s)
				fputs_unlocked("null", f);
			else if (t->cols[c].type == TD_COL_STR)
				td_json_string(f, s);
			else
				fputs_unlocked(s, f);
		}
		putc_unlocked('}', f);
	}
	fputs_unlocked(t->nrows ? "\n]" : "]", f);
}

static int utf8_width(const char *s)
{
	int w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void pad(FILE *f, int n)
{
	while (n-- > 0)
		putc_unlocked(' ', f);
}

static void write_aligned(const struct td_table *t, FILE *f, bool markdown)
{
	int *w = td_calloc((size_t)t->ncols, sizeof(int));
	for (int c = 0; c < t->ncols; c++) {
		w[c] = utf8_width(t->cols[c].name);
		for (int r = 0; r < t->nrows; r++) {
			const char *s = td_table_cell(t, r, c);
			if (s && utf8_width(s) > w[c])
				w[c] = utf8_width(s);
		}
	}
	for (int r = -1; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++) {
			const char *s = r < 0 ? t->cols[c].name : td_table_cell(t, r, c);
			bool right = r >= 0 && t->cols[c].type != TD_COL_STR;
			int gap = w[c] - utf8_width(s ? s : "");
			fputs_unlocked(markdown ? (c ? " | " : "| ") : (c ? "  " : ""), f);
			if (right)
				pad(f, gap);
			fputs_unlocked(s ? s : "", f);
			if (!right && (markdown || c + 1 < t->ncols))
				pad(f, gap);
		}
		fputs_unlocked(markdown ? " |\n" : "\n", f);
		if (markdown && r < 0) {
			for (int c = 0; c < t->ncols; c++) {
				fputs_unlocked(c ? " | " : "| ", f);
				for (int i = 0; i < w[c]; i++)
					putc_unlocked(i == w[c] - 1 && t->cols[c].type != TD_COL_STR ? ':' : '-', f);
			}
			fputs_unlocked(" |\n", f);
		}
	}
	free(w);
}

void td_table_write(const struct td_table *t, FILE *f, enum td_format fmt)
{
	switch (fmt) {
	case TD_FMT_CSV:
		write_csv(t, f);
		break;
	case TD_FMT_JSON:
		write_json(t, f);
		break;
	case TD_FMT_MARKDOWN:
		write_aligned(t, f, true);
		break;
	default:
		write_aligned(t, f, false);
		break;
	}
}

enum td_format td_pick_format(bool csv, bool json, bool markdown)
{
	return csv ? TD_FMT_CSV : json ? TD_FMT_JSON : markdown ? TD_FMT_MARKDOWN : TD_FMT_TEXT;
}
