/* Rows written as they are made (row_stream.h). The pending row is put
 * together in its output form in line (cell by cell) or at the end of out
 * (a whole CSV row); rows are written in batches. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "common/numfmt.h"
#include "reports/escape.h"
#include "reports/row_stream.h"

struct row_buf {
	char *p;
	size_t cap;
};

struct last_num {         /* rows repeat intervals, 100.00 ... */
	double v;
	uint32_t len;
	char text[48];
};
#define LAST_NUMS 2       /* per column: rows of two metrics alternate */

/* CSV: the bytes of a row's tail (td_rows_put) as they were written for
 * the same cells lately. */
#define TAILS 4
#define TAIL_TEXT 192
struct tail {
	int from;                  /* 0: unused */
	uint32_t len;
	const struct td_cell *cells;   /* ncols of them, from..ncols used */
	char text[TAIL_TEXT];
};

/* A literal cell's string, by its address: its length and bytes, and
 * whether CSV writes it as it is. */
#define LITS 64
#define LIT_TEXT 32
struct lit {
	const char *s;
	uint32_t len;
	bool csv_plain;
	char text[LIT_TEXT];
};

#define OUT_BATCH 32768   /* rows written in batches of this many bytes */

struct td_rows {
	const struct td_column *cols;
	int ncols;
	FILE *f;
	enum td_format fmt;
	long written;          /* rows complete so far */
	bool pending;          /* a row is open */
	bool row_in_out;       /* ... and written whole at the end of out, from row_start */
	struct row_buf line;   /* the open row, cell by cell, up to line_used */
	size_t line_used;
	int next_col;          /* the open row's next column */
	struct row_buf out;    /* rows not written yet */
	size_t out_used, row_start;
	struct last_num *last; /* per column: the LAST_NUMS numbers formatted last */
	uint8_t *last_next;    /* per column: the one of them to replace next */
	struct lit *lits;      /* CSV: literal cells seen */
	struct tail *tails;    /* CSV: row tails written lately */
	struct td_cell *tail_cells;
	int next_tail;
	size_t *col_at;        /* CSV: where each column started in the last row, from its start */
	char **json_key;       /* JSON: [", "]"name": per column */
	size_t *json_key_len;
};

/* Room for n more bytes after used. */
static char *room(struct row_buf *b, size_t used, size_t n)
{
	if (used + n > b->cap) {
		b->cap = (used + n) * 2 + 256;
		b->p = td_realloc(b->p, b->cap);
	}
	return b->p + used;
}

struct td_rows *td_rows_new(const struct td_column *cols, int ncols, FILE *f, enum td_format fmt)
{
	struct td_rows *w = td_calloc(1, sizeof(*w));
	w->cols = cols;
	w->ncols = ncols;
	w->f = f;
	w->fmt = fmt;
	w->last = td_calloc((size_t)ncols * LAST_NUMS, sizeof(*w->last));
	w->last_next = td_calloc((size_t)ncols, sizeof(*w->last_next));
	if (fmt == TD_FMT_CSV) {
		w->col_at = td_calloc((size_t)ncols + 1, sizeof(*w->col_at));
		for (int c = 0; c < ncols; c++) {
			if (c)
				putc_unlocked(',', f);
			td_csv_field(f, cols[c].name);
		}
		putc_unlocked('\n', f);
		return w;
	}
	putc_unlocked('[', f);
	w->json_key = td_calloc((size_t)ncols, sizeof(*w->json_key));
	w->json_key_len = td_calloc((size_t)ncols, sizeof(*w->json_key_len));
	for (int c = 0; c < ncols; c++) {
		size_t n = strlen(cols[c].name);
		char *k = td_malloc(6 * n + 8), *p = k;
		if (c)
			*p++ = ',', *p++ = ' ';
		p += td_json_escape(p, cols[c].name, n);
		*p++ = ':', *p++ = ' ';
		w->json_key[c] = k;
		w->json_key_len[c] = (size_t)(p - k);
	}
	return w;
}

void td_rows_free(struct td_rows *w)
{
	if (!w)
		return;
	free(w->line.p);
	free(w->out.p);
	free(w->last);
	free(w->last_next);
	free(w->lits);
	free(w->tails);
	free(w->tail_cells);
	free(w->col_at);
	for (int c = 0; w->json_key && c < w->ncols; c++)
		free(w->json_key[c]);
	free(w->json_key);
	free(w->json_key_len);
	free(w);
}

static void flush_out(struct td_rows *w)
{
	if (w->out_used)
		fwrite_unlocked(w->out.p, 1, w->out_used, w->f);
	w->out_used = 0;
}

/* A row's bytes, written with the rows around it. */
static void put_bytes(struct td_rows *w, const char *p, size_t n)
{
	if (w->out_used + n > OUT_BATCH)
		flush_out(w);
	if (n > OUT_BATCH) {
		fwrite_unlocked(p, 1, n, w->f);
		return;
	}
	memcpy(room(&w->out, w->out_used, n), p, n);
	w->out_used += n;
}

/* JSON: "name": null for column c, at used in line; returns the new end. */
static size_t json_null(struct td_rows *w, int c, size_t used)
{
	char *p = room(&w->line, used, w->json_key_len[c] + 4);
	memcpy(p, w->json_key[c], w->json_key_len[c]);
	memcpy(p + w->json_key_len[c], "null", 4);
	return used + w->json_key_len[c] + 4;
}

/* The open row complete: the columns not set, the end, into out. */
static void end_row(struct td_rows *w)
{
	if (!w->pending)
		return;
	w->pending = false;
	w->written++;
	if (w->row_in_out) {
		w->row_in_out = false;
		return;
	}
	size_t used = w->line_used;
	if (w->fmt == TD_FMT_CSV) {
		char *p = room(&w->line, used, (size_t)(w->ncols - w->next_col) + 1);
		for (int c = w->next_col; c < w->ncols; c++)
			if (c)
				*p++ = ',';
		*p++ = '\n';
		used = (size_t)(p - w->line.p);
	} else {
		for (int c = w->next_col; c < w->ncols; c++)
			used = json_null(w, c, used);
		*room(&w->line, used++, 1) = '}';
	}
	put_bytes(w, w->line.p, used);
}

void td_rows_row(struct td_rows *w)
{
	end_row(w);
	w->pending = true;
	w->next_col = 0;
	w->line_used = 0;
	if (w->fmt != TD_FMT_CSV) {
		const char *open = w->written ? ",\n  {" : "\n  {";
		size_t n = strlen(open);
		memcpy(room(&w->line, 0, n), open, n);
		w->line_used = n;
	}
}

void td_rows_flush(struct td_rows *w)
{
	end_row(w);
	flush_out(w);
	fflush(w->f);
}

void td_rows_end(struct td_rows *w)
{
	end_row(w);
	flush_out(w);
	if (w->fmt != TD_FMT_CSV)
		fputs_unlocked(w->written ? "\n]" : "]", w->f);
}

/* One cell into the open row, as td_table_write writes it; s NULL: empty. */
static void put_cell(struct td_rows *w, int col, const char *s, size_t len, bool plain)
{
	if (!w->pending || col < w->next_col)
		td_die("row stream: column %d (%s) given out of order", col, w->cols[col].name);
	size_t used = w->line_used;
	bool csv = w->fmt == TD_FMT_CSV;
	for (int c = w->next_col; c < col; c++) {    /* the columns skipped are empty */
		if (!csv)
			used = json_null(w, c, used);
		else if (c)
			*room(&w->line, used++, 1) = ',';
	}
	w->next_col = col + 1;
	size_t key = csv ? (col != 0) : w->json_key_len[col];
	char *p = room(&w->line, used, key + 6 * len + 6);
	if (csv) {
		if (col)
			*p++ = ',';
	} else {
		memcpy(p, w->json_key[col], key);
		p += key;
	}
	used += key;
	if (!s) {
		if (!csv) {
			memcpy(p, "null", 4);
			used += 4;
		}
	} else if (csv) {
		size_t i = 0;
		if (!plain)
			while (i < len && !td_csv_special((unsigned char)s[i]))
				i++;
		if (plain || i == len) {
			memcpy(p, s, len);
			used += len;
		} else {
			used += (size_t)(td_csv_quote(p, s, len) - p);
		}
	} else if (w->cols[col].type != TD_COL_STR) {
		memcpy(p, s, len);
		used += len;
	} else {
		used += td_json_escape(p, s, len);
	}
	w->line_used = used;
}

void td_rows_str(struct td_rows *w, int col, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	put_cell(w, col, n ? s : NULL, n, false);   /* "" is an empty cell */
}

void td_rows_int(struct td_rows *w, int col, long long v)
{
	char buf[32];
	int n = snprintf(buf, sizeof buf, "%lld", v);
	put_cell(w, col, buf, (size_t)n, true);
}

/* v (finite) as the column prints it (table.h: td_table_num's bytes). */
static inline const struct last_num *num_text(struct td_rows *w, int col, double v)
{
	struct last_num *kept = &w->last[col * LAST_NUMS];
	for (int k = 0; k < LAST_NUMS; k++)
		if (kept[k].len && memcmp(&kept[k].v, &v, sizeof v) == 0) {  /* bit for bit: -0.0 is not 0.0 */
			/* the other one is replaced next: a number that repeats
			 * between ones that change stays */
			w->last_next[col] = (uint8_t)((k + 1) % LAST_NUMS);
			return &kept[k];
		}
	struct last_num *l = &kept[w->last_next[col]];
	w->last_next[col] = (uint8_t)((w->last_next[col] + 1) % LAST_NUMS);
	l->v = v;
	l->len = (uint32_t)td_table_format_num(l->text, v, w->cols[col].precision);
	return l;
}

void td_rows_num(struct td_rows *w, int col, double v)
{
	if (!isfinite(v)) {
		put_cell(w, col, NULL, 0, false);
		return;
	}
	const struct last_num *l = num_text(w, col, v);
	put_cell(w, col, l->text, l->len, true);
}

/* The literal s as a cell: NULL when it is not one that fits. */
static const struct lit *literal(struct td_rows *w, const char *s)
{
	if (!w->lits)
		w->lits = td_calloc(LITS, sizeof(*w->lits));
	struct lit *l = &w->lits[((uintptr_t)s >> 3) % LITS];
	if (l->s != s) {
		size_t n = strlen(s);
		if (n >= LIT_TEXT)
			return NULL;
		l->s = s;
		l->len = (uint32_t)n;
		l->csv_plain = true;
		for (size_t i = 0; i < n; i++)
			l->csv_plain &= !td_csv_special((unsigned char)s[i]);
		memset(l->text, 0, sizeof l->text);
		memcpy(l->text, s, n);
	}
	return l;
}

/* Room a CSV cell other than a string needs: a literal's or a number's bytes and a comma. */
#define CELL_ROOM (sizeof((struct last_num *)0)->text + 1)

/* Room for any row without strings in it. */
static size_t row_room(const struct td_rows *w)
{
	return (size_t)w->ncols * CELL_ROOM + 1;
}

/* A string cell as td_csv_field writes it, appended at used in out (NULL:
 * nothing), and room after it for the rest of the row. There is room for
 * the cell's CELL_ROOM bytes (csv_row). */
static size_t csv_str(struct td_rows *w, size_t used, const char *s)
{
	if (!s)
		return used;
	/* a short plain string copied in one pass, in the room its cell has */
	char *to = w->out.p + used;
	for (size_t i = 0; i < CELL_ROOM - 1 && !td_csv_special((unsigned char)s[i]); i++) {
		if (!s[i])
			return used + i;
		to[i] = s[i];
	}
	size_t len = strlen(s);
	char *p = room(&w->out, used, 2 * len + 2 + row_room(w));
	size_t i = 0;
	while (i < len && !td_csv_special((unsigned char)s[i]))
		p[i] = s[i], i++;
	if (i == len)
		return used + len;
	return (size_t)(td_csv_quote(p, s, len) - w->out.p);
}

/* One cell of a whole CSV row appended at used in out, where there is room
 * for it; returns the new end. */
static size_t csv_cell(struct td_rows *w, int c, const struct td_cell *cell, size_t used)
{
	char *p = w->out.p + used;
	switch (cell->kind) {
	case TD_CELL_NUM: {
		if (!isfinite(cell->u.v))
			return used;
		const struct last_num *l = num_text(w, c, cell->u.v);
		memcpy(p, l->text, sizeof l->text);   /* and bytes after it that the next cell overwrites */
		return used + l->len;
	}
	case TD_CELL_LIT: {
		const struct lit *l = cell->u.s ? literal(w, cell->u.s) : NULL;
		if (l && l->csv_plain) {
			memcpy(p, l->text, LIT_TEXT);
			return used + l->len;
		}
		return csv_str(w, used, cell->u.s);
	}
	case TD_CELL_STR:
		return csv_str(w, used, cell->u.s);
	case TD_CELL_INT:
		return used + (size_t)snprintf(p, 32, "%lld", cell->u.i);
	default:
		return used;
	}
}

/* Cells that are written the same: the same kind with the same bits (the
 * same literal, the same number bit for bit), compared as bytes (cells made
 * otherwise than by the TD_CELL macros may differ in their zero member: then
 * they are written again). keep_tail keeps no strings, which may change
 * behind the same pointer. */
static bool same_cells(const struct td_cell *a, const struct td_cell *b, int n)
{
	return memcmp(a, b, (size_t)n * sizeof(*a)) == 0;
}

static const struct tail *find_tail(const struct td_rows *w, const struct td_cell *cells, int from)
{
	for (int k = 0; w->tails && k < TAILS; k++) {
		const struct tail *tl = &w->tails[k];
		/* the first cell, inline, tells most tails apart */
		if (tl->from != from || !same_cells(&tl->cells[from], &cells[from], 1))
			continue;
		if (same_cells(&tl->cells[from + 1], &cells[from + 1], w->ncols - from - 1))
			return tl;
	}
	return NULL;
}

/* The tail's bytes (its cells each with a comma after) kept for next time. */
static void keep_tail(struct td_rows *w, const struct td_cell *cells, int from, const char *text, size_t len)
{
	if (len > TAIL_TEXT)
		return;
	for (int c = from; c < w->ncols; c++)
		if (cells[c].kind == TD_CELL_STR || cells[c].kind == TD_CELL_INT)
			return;
	if (!w->tails) {
		w->tails = td_calloc(TAILS, sizeof(*w->tails));
		w->tail_cells = td_calloc((size_t)TAILS * w->ncols, sizeof(*w->tail_cells));
		for (int k = 0; k < TAILS; k++)
			w->tails[k].cells = &w->tail_cells[(size_t)k * w->ncols];
	}
	struct tail *tl = &w->tails[w->next_tail];
	w->next_tail = (w->next_tail + 1) % TAILS;
	tl->from = from;
	tl->len = (uint32_t)len;
	memcpy(&w->tail_cells[(size_t)(tl - w->tails) * w->ncols + from], &cells[from],
	       (size_t)(w->ncols - from) * sizeof(*cells));
	memcpy(tl->text, text, len);
}

/* A whole CSV row in one pass, straight after the rows kept to be written.
 * Cells from column from on are written as the same cells were lately, if
 * they were; the first cells the same as the row above's (above: that
 * row's cells, or NULL) are its bytes again. */
static void csv_row(struct td_rows *w, const struct td_cell *cells, int from, const struct td_cell *above)
{
	size_t above_start = w->row_start;
	if (!above && w->out_used > OUT_BATCH)   /* the row above is still there to copy */
		flush_out(w);
	size_t used = w->out_used;
	w->row_start = used;
	room(&w->out, used, row_room(w));
	const struct tail *tl = from < w->ncols ? find_tail(w, cells, from) : NULL;
	int end = tl ? from : w->ncols, c = 0;
	while (above && c < from && same_cells(&above[c], &cells[c], 1))
		c++;
	if (c) {
		size_t n = w->col_at[c];
		room(&w->out, used, n + row_room(w));
		memcpy(w->out.p + used, w->out.p + above_start, n);
		used += n;
	}
	char *p = w->out.p;
	for (; c < end; c++) {
		w->col_at[c] = used - w->row_start;
		if (cells[c].kind != TD_CELL_EMPTY) {
			used = csv_cell(w, c, &cells[c], used);
			p = w->out.p;                /* a long string moves it */
		}
		p[used++] = ',';
	}
	w->col_at[end] = used - w->row_start;
	if (tl) {
		memcpy(room(&w->out, used, tl->len), tl->text, tl->len);
		used += tl->len;
	} else if (from < w->ncols) {
		size_t tail_at = w->row_start + w->col_at[from];
		keep_tail(w, cells, from, w->out.p + tail_at, used - tail_at);
	}
	w->out.p[used - 1] = '\n';
	w->out_used = used;
	w->row_in_out = true;
	w->next_col = w->ncols;
}

/* The cells of the row just started, one by one. */
static void put_cells(struct td_rows *w, const struct td_cell *cells)
{
	for (int c = 0; c < w->ncols; c++) {
		switch (cells[c].kind) {
		case TD_CELL_STR:
		case TD_CELL_LIT:
			td_rows_str(w, c, cells[c].u.s);
			break;
		case TD_CELL_NUM:
			td_rows_num(w, c, cells[c].u.v);
			break;
		case TD_CELL_INT:
			td_rows_int(w, c, cells[c].u.i);
			break;
		default:
			break;
		}
	}
}

void td_rows_put(struct td_rows *w, const struct td_cell *cells, int nrows, int from)
{
	for (int r = 0; r < nrows; r++) {
		const struct td_cell *row = &cells[(size_t)r * w->ncols];
		td_rows_row(w);
		if (w->fmt == TD_FMT_CSV)
			csv_row(w, row, from, r ? row - w->ncols : NULL);
		else
			put_cells(w, row);
	}
}
