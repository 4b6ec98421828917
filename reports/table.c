#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../common/diag.h"
#include "../common/numfmt.h"
#include "table.h"

struct cell {
	long off;              /* into text, -1 = empty */
	uint32_t len;
	bool plain;            /* a number: nothing to quote or escape */
};

struct row_buf {            /* a CSV row being put together */
	char *p;
	size_t cap;
};

struct last_num {         /* rows repeat intervals, 100.00 ... */
	double v;
	uint32_t len;
	char text[48];
};
#define LAST_NUMS 2       /* per column: rows of two metrics alternate */

/* Streamed CSV: the bytes of a row's tail (td_table_put_rows) as
 * they were written for the same cells lately. */
#define TAILS 4
#define TAIL_TEXT 192
struct tail {
	int from;                  /* 0: unused */
	uint32_t len;
	const struct td_cell *cells;   /* ncols of them, from..ncols used */
	char text[TAIL_TEXT];
};

#define OUT_BATCH 32768   /* streamed rows written in batches of this many bytes */

/* Streaming: the pending row is put together in its output form while its
 * cells come in column order; each cell's own bytes are remembered, so a
 * cell out of order (or a look at the row) turns it back into cells. */
struct direct_cell {
	long off;              /* -1 = empty; else into line (in_text: into text) */
	uint32_t len;
	bool plain, in_text;
};

/* A literal cell's string, by its address: its length and bytes, and
 * whether CSV prints it as it is. */
#define LITS 64
#define LIT_TEXT 32
struct lit {
	const char *s;
	uint32_t len;
	bool csv_plain;
	char text[LIT_TEXT];
};

struct td_table {
	const struct td_column *cols;
	int ncols;
	struct cell *cells;    /* rows * ncols */
	int nrows, cap_rows;
	char *text;            /* every cell's bytes, NUL-terminated */
	size_t text_len, text_cap;
	FILE *stream;          /* streaming: rows are written as they complete */
	enum td_format stream_fmt;
	long streamed;         /* rows written so far */
	struct row_buf line;   /* streaming: reused for every row */
	struct row_buf out;    /* streaming: rows not written yet */
	size_t out_used;
	struct last_num *last; /* per column: the LAST_NUMS numbers formatted last */
	uint8_t *last_next;    /* per column: the one of them to replace next */
	bool direct;           /* streaming: the pending row is in line, written so far up to next_col */
	int next_col;
	size_t line_used;
	struct direct_cell *dcell;   /* per column, for turning the row back into cells */
	bool row_in_out;       /* the pending row is written whole at the end of out, from row_start */
	size_t row_start;
	struct lit *lits;      /* streaming CSV: literal cells seen */
	struct tail *tails;    /* streaming CSV: row tails written lately */
	struct td_cell *tail_cells;
	int next_tail;
	size_t *col_at;        /* streaming CSV: where each column started in the last row, from its start */
	char **json_key;       /* streaming JSON: "name": per column */
	size_t *json_key_len;
};

static void write_csv_header(const struct td_table *t, FILE *f);
static size_t csv_row_bytes(const struct td_table *t, struct row_buf *b, int r);
static void write_json_row(const struct td_table *t, int r, FILE *f);
static size_t json_escaped(char *w, const char *s, size_t n);

struct td_table *td_table_new(const struct td_column *cols, int ncols)
{
	struct td_table *t = td_calloc(1, sizeof(*t));
	t->cols = cols;
	t->ncols = ncols;
	t->last = td_calloc((size_t)ncols * LAST_NUMS, sizeof(*t->last));
	t->last_next = td_calloc((size_t)ncols, sizeof(*t->last_next));
	return t;
}

void td_table_free(struct td_table *t)
{
	if (!t)
		return;
	free(t->cells);
	free(t->text);
	free(t->line.p);
	free(t->out.p);
	free(t->last);
	free(t->last_next);
	free(t->dcell);
	free(t->lits);
	free(t->tails);
	free(t->tail_cells);
	free(t->col_at);
	for (int c = 0; t->json_key && c < t->ncols; c++)
		free(t->json_key[c]);
	free(t->json_key);
	free(t->json_key_len);
	free(t);
}

void td_table_stream(struct td_table *t, FILE *f, enum td_format fmt)
{
	t->stream = f;
	t->stream_fmt = fmt;
	t->dcell = td_calloc((size_t)t->ncols, sizeof(*t->dcell));
	if (fmt == TD_FMT_CSV) {
		t->col_at = td_calloc((size_t)t->ncols + 1, sizeof(*t->col_at));
		write_csv_header(t, f);
		return;
	}
	putc_unlocked('[', f);
	/* what write_json_row writes before each value: [", "]"name": */
	t->json_key = td_calloc((size_t)t->ncols, sizeof(*t->json_key));
	t->json_key_len = td_calloc((size_t)t->ncols, sizeof(*t->json_key_len));
	for (int c = 0; c < t->ncols; c++) {
		size_t n = strlen(t->cols[c].name);
		char *k = td_malloc(6 * n + 8), *w = k;
		if (c)
			*w++ = ',', *w++ = ' ';
		w += json_escaped(w, t->cols[c].name, n);
		*w++ = ':', *w++ = ' ';
		t->json_key[c] = k;
		t->json_key_len[c] = (size_t)(w - k);
	}
}

/* Room for n more bytes in the row being put together. */
static char *line_room(struct row_buf *b, size_t used, size_t n)
{
	if (used + n > b->cap) {
		b->cap = (used + n) * 2 + 256;
		b->p = td_realloc(b->p, b->cap);
	}
	return b->p + used;
}

/* Streaming: the rows kept so far written out. */
static void flush_rows(struct td_table *t)
{
	if (t->out_used)
		fwrite_unlocked(t->out.p, 1, t->out_used, t->stream);
	t->out_used = 0;
}

/* Streaming: a row's bytes, written with the rows around it. */
static void put_rows(struct td_table *t, const char *p, size_t n)
{
	if (t->out_used + n > OUT_BATCH)
		flush_rows(t);
	if (n > OUT_BATCH) {
		fwrite_unlocked(p, 1, n, t->stream);
		return;
	}
	memcpy(line_room(&t->out, t->out_used, n), p, n);
	t->out_used += n;
}

/* The pending row as cells again: from now on it is written from them. */
static void direct_to_cells(struct td_table *t);

/* Streaming, the pending row written straight: the columns not set, the end. */
static void finish_direct(struct td_table *t)
{
	size_t used = t->line_used;
	if (t->row_in_out) {
		t->row_in_out = false;
		return;
	}
	if (t->stream_fmt == TD_FMT_CSV) {
		char *w = line_room(&t->line, used, (size_t)(t->ncols - t->next_col) + 1);
		for (int c = t->next_col; c < t->ncols; c++)
			if (c)
				*w++ = ',';
		*w++ = '\n';
		used = (size_t)(w - t->line.p);
	} else {
		for (int c = t->next_col; c < t->ncols; c++) {
			char *w = line_room(&t->line, used, t->json_key_len[c] + 4);
			memcpy(w, t->json_key[c], t->json_key_len[c]);
			memcpy(w + t->json_key_len[c], "null", 4);
			used += t->json_key_len[c] + 4;
		}
		*line_room(&t->line, used++, 1) = '}';
	}
	put_rows(t, t->line.p, used);
}

/* Streaming: the pending row goes out and its storage is reused. */
static void stream_pending(struct td_table *t)
{
	if (!t->stream || t->nrows == 0)
		return;
	if (t->direct) {
		finish_direct(t);
	} else if (t->stream_fmt == TD_FMT_CSV) {
		put_rows(t, t->line.p, csv_row_bytes(t, &t->line, 0));
	} else {
		flush_rows(t);
		fputs_unlocked(t->streamed ? ",\n  " : "\n  ", t->stream);
		write_json_row(t, 0, t->stream);
	}
	t->streamed++;
	t->nrows = 0;
	t->text_len = 0;
	t->direct = false;
}

void td_table_flush(struct td_table *t)
{
	if (!t->stream)
		return;
	stream_pending(t);
	flush_rows(t);
	fflush(t->stream);
}

void td_table_end_stream(struct td_table *t)
{
	if (!t->stream)
		return;
	stream_pending(t);
	flush_rows(t);
	if (t->stream_fmt != TD_FMT_CSV)
		fputs_unlocked(t->streamed ? "\n]" : "]", t->stream);
	t->stream = NULL;
}

static void clear_row(struct td_table *t, int r)
{
	struct cell *row = &t->cells[(size_t)r * t->ncols];
	for (int c = 0; c < t->ncols; c++)
		row[c] = (struct cell){ -1, 0, false };
}

void td_table_row(struct td_table *t)
{
	stream_pending(t);
	if (t->nrows == t->cap_rows) {
		t->cap_rows = t->cap_rows ? t->cap_rows * 2 : 64;
		t->cells = td_realloc(t->cells, (size_t)t->cap_rows * t->ncols * sizeof(*t->cells));
	}
	t->nrows++;
	if (!t->stream) {
		clear_row(t, t->nrows - 1);
		return;
	}
	t->direct = true;            /* cells cleared if the row turns back into cells */
	t->next_col = 0;
	t->line_used = 0;
	if (t->stream_fmt != TD_FMT_CSV) {
		const char *open = t->streamed ? ",\n  {" : "\n  {";
		size_t n = strlen(open);
		memcpy(line_room(&t->line, 0, n), open, n);
		t->line_used = n;
	}
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

/* Bytes that make a CSV field need quotes (td_csv_field). */
static bool csv_special(unsigned char ch) { return ch == ',' || ch == '"' || ch == '\n' || ch == '\r'; }

/* s (len bytes, some of them special) quoted as td_csv_field quotes it at w;
 * returns the end. */
static char *csv_quoted(char *w, const char *s, size_t len)
{
	*w++ = '"';
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			*w++ = '"';
		*w++ = s[i];
	}
	*w++ = '"';
	return w;
}

/* s as td_json_string writes it, without the quotes; returns the length. */
static size_t json_escaped(char *w, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char *start = w;
	*w++ = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '"' || ch == '\\') {
			*w++ = '\\';
			*w++ = (char)ch;
		} else if (ch == '\n') {
			*w++ = '\\';
			*w++ = 'n';
		} else if (ch == '\t') {
			*w++ = '\\';
			*w++ = 't';
		} else if (ch < 0x20) {
			memcpy(w, "\\u00", 4);
			w[4] = hex[ch >> 4];
			w[5] = hex[ch & 15];
			w += 6;
		} else {
			*w++ = (char)ch;
		}
	}
	*w++ = '"';
	return (size_t)(w - start);
}

/* Streaming: one cell written straight into the pending row, as
 * write_csv_row or write_json_row would write it. s is NULL for empty. */
/* A cell whose row bytes are not its own (quoted, escaped): its own bytes
 * kept in text, so that it can be turned back into a cell. */
static void keep_text(struct td_table *t, struct direct_cell *d, const char *s, size_t len)
{
	if (t->text_len + len + 1 > t->text_cap) {
		t->text_cap = (t->text_len + len + 1) * 2 + 4096;
		t->text = td_realloc(t->text, t->text_cap);
	}
	memcpy(t->text + t->text_len, s, len);
	t->text[t->text_len + len] = '\0';
	d->off = (long)t->text_len;
	d->in_text = true;
	t->text_len += len + 1;
}

static void direct_cell(struct td_table *t, int col, const char *s, size_t len, bool plain)
{
	size_t used = t->line_used;
	struct direct_cell *d = &t->dcell[col];
	bool csv = t->stream_fmt == TD_FMT_CSV;
	/* the columns skipped are empty */
	for (int c = t->next_col; c < col; c++) {
		t->dcell[c].off = -1;
		if (csv) {
			if (c)
				*line_room(&t->line, used++, 1) = ',';
		} else {
			char *w = line_room(&t->line, used, t->json_key_len[c] + 4);
			memcpy(w, t->json_key[c], t->json_key_len[c]);
			memcpy(w + t->json_key_len[c], "null", 4);
			used += t->json_key_len[c] + 4;
		}
	}
	t->next_col = col + 1;
	size_t key = csv ? (col != 0) : t->json_key_len[col];
	char *w = line_room(&t->line, used, key + 6 * len + 6);
	if (csv) {
		if (col)
			*w++ = ',';
	} else {
		memcpy(w, t->json_key[col], key);
		w += key;
	}
	used += key;
	d->plain = plain;
	d->in_text = false;
	if (!s) {
		d->off = -1;
		if (!csv) {
			memcpy(w, "null", 4);
			used += 4;
		}
		t->line_used = used;
		return;
	}
	bool verbatim;
	size_t n;
	if (csv) {
		size_t i = 0;
		if (!plain)
			while (i < len && !csv_special((unsigned char)s[i]))
				i++;
		verbatim = plain || i == len;
		if (verbatim) {
			memcpy(w, s, len);
			n = len;
		} else {
			n = (size_t)(csv_quoted(w, s, len) - w);
		}
		d->off = (long)used;
	} else if (t->cols[col].type != TD_COL_STR) {
		memcpy(w, s, len);
		n = len;
		verbatim = true;
		d->off = (long)used;
	} else {
		n = json_escaped(w, s, len);
		verbatim = n == len + 2;
		d->off = (long)used + 1;
	}
	d->len = (uint32_t)len;
	if (!verbatim) {             /* its own bytes kept beside */
		keep_text(t, d, s, len);
	}
	t->line_used = used + n;
}

static void cells_from_csv(struct td_table *t);

static void direct_to_cells(struct td_table *t)
{
	if (t->row_in_out)
		cells_from_csv(t);
	t->direct = false;
	clear_row(t, t->nrows - 1);
	/* cells kept beside stay where they are in text; the others are copied after them */
	for (int c = 0; c < t->next_col; c++) {
		const struct direct_cell *d = &t->dcell[c];
		if (d->off < 0)
			continue;
		if (d->in_text)
			t->cells[(size_t)(t->nrows - 1) * t->ncols + c] = (struct cell){ d->off, d->len, d->plain };
		else
			set_cell(t, c, t->line.p + d->off, d->len, d->plain);
	}
}

/* A cell of the last row: straight into the stream while the columns come in order. */
static void put_cell(struct td_table *t, int col, const char *s, size_t len, bool plain)
{
	if (t->direct) {
		if (col >= t->next_col) {
			direct_cell(t, col, s, len, plain);
			return;
		}
		direct_to_cells(t);
	}
	set_cell(t, col, s, len, plain);
}

void td_table_str(struct td_table *t, int col, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	put_cell(t, col, n ? s : NULL, n, false);   /* "" is an empty cell */
}

void td_table_int(struct td_table *t, int col, long long v)
{
	char buf[32];
	int n = snprintf(buf, sizeof buf, "%lld", v);
	put_cell(t, col, buf, (size_t)n, true);
}

/* v (finite) as the column prints it; rows repeat intervals, 100.00 ... */
static inline const struct last_num *num_text(struct td_table *t, int col, double v)
{
	struct last_num *kept = &t->last[col * LAST_NUMS];
	for (int k = 0; k < LAST_NUMS; k++)
		if (kept[k].len && memcmp(&kept[k].v, &v, sizeof v) == 0) {  /* bit for bit: -0.0 is not 0.0 */
			/* the other one is replaced next: a number that repeats
			 * between ones that change stays */
			t->last_next[col] = (uint8_t)((k + 1) % LAST_NUMS);
			return &kept[k];
		}
	struct last_num *l = &kept[t->last_next[col]];
	t->last_next[col] = (uint8_t)((t->last_next[col] + 1) % LAST_NUMS);
	l->v = v;
	l->len = (uint32_t)td_format_fixed(l->text, v, t->cols[col].precision);
	/* past 1e37 printf's digits do not fit (snprintf cut them, and gave
	 * the length they would have had): the cell is what text holds, as
	 * JSON and the text views always printed it */
	if (l->len >= sizeof l->text)
		l->len = (uint32_t)strlen(l->text);
	return l;
}

void td_table_num(struct td_table *t, int col, double v)
{
	if (!isfinite(v)) {
		put_cell(t, col, NULL, 0, false);
		return;
	}
	const struct last_num *l = num_text(t, col, v);
	put_cell(t, col, l->text, l->len, true);
}

/* The literal s as a cell: NULL when it is not one that fits. */
static const struct lit *literal(struct td_table *t, const char *s)
{
	if (!t->lits)
		t->lits = td_calloc(LITS, sizeof(*t->lits));
	struct lit *l = &t->lits[((uintptr_t)s >> 3) % LITS];
	if (l->s != s) {
		size_t n = strlen(s);
		if (n >= LIT_TEXT)
			return NULL;
		l->s = s;
		l->len = (uint32_t)n;
		l->csv_plain = true;
		for (size_t i = 0; i < n; i++)
			l->csv_plain &= !csv_special((unsigned char)s[i]);
		memset(l->text, 0, sizeof l->text);
		memcpy(l->text, s, n);
	}
	return l;
}

/* Room a CSV cell other than a string needs: a literal's or a number's bytes and a comma. */
#define CELL_ROOM (sizeof((struct last_num *)0)->text + 1)

/* Room for any row without strings in it. */
static size_t row_room(const struct td_table *t)
{
	return (size_t)t->ncols * CELL_ROOM + 1;
}

/* A string cell as td_csv_field writes it, appended at used (NULL or "":
 * nothing), and room after it for the rest of the row. There is room for
 * the cell's CELL_ROOM bytes (csv_row). */
static size_t csv_str(struct td_table *t, size_t used, const char *s)
{
	if (!s)
		return used;
	/* a short plain string copied in one pass, in the room its cell has */
	char *to = t->out.p + used;
	for (size_t i = 0; i < CELL_ROOM - 1 && !csv_special((unsigned char)s[i]); i++) {
		if (!s[i])
			return used + i;
		to[i] = s[i];
	}
	size_t len = strlen(s);
	char *w = line_room(&t->out, used, 2 * len + 2 + row_room(t));
	size_t i = 0;
	while (i < len && !csv_special((unsigned char)s[i]))
		w[i] = s[i], i++;
	if (i == len)
		return used + len;
	return (size_t)(csv_quoted(w, s, len) - t->out.p);
}

/* One cell of a streamed CSV row appended at used, where there is room for
 * it; returns the new end. */
static size_t csv_cell(struct td_table *t, int c, const struct td_cell *cell, size_t used)
{
	char *w = t->out.p + used;
	switch (cell->kind) {
	case TD_CELL_NUM: {
		if (!isfinite(cell->u.v))
			return used;
		const struct last_num *l = num_text(t, c, cell->u.v);
		memcpy(w, l->text, sizeof l->text);   /* and bytes after it that the next cell overwrites */
		return used + l->len;
	}
	case TD_CELL_LIT: {
		const struct lit *l = cell->u.s ? literal(t, cell->u.s) : NULL;
		if (l && l->csv_plain) {
			memcpy(w, l->text, LIT_TEXT);
			return used + l->len;
		}
		return csv_str(t, used, cell->u.s);
	}
	case TD_CELL_STR:
		return csv_str(t, used, cell->u.s);
	case TD_CELL_INT:
		return used + (size_t)snprintf(w, 32, "%lld", cell->u.i);
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

static const struct tail *find_tail(const struct td_table *t, const struct td_cell *cells, int from)
{
	for (int k = 0; t->tails && k < TAILS; k++) {
		const struct tail *tl = &t->tails[k];
		/* the first cell, inline, tells most tails apart */
		if (tl->from != from || !same_cells(&tl->cells[from], &cells[from], 1))
			continue;
		if (same_cells(&tl->cells[from + 1], &cells[from + 1], t->ncols - from - 1))
			return tl;
	}
	return NULL;
}

/* The tail's bytes (its cells each with a comma after) kept for next time. */
static void keep_tail(struct td_table *t, const struct td_cell *cells, int from, const char *text, size_t len)
{
	if (len > TAIL_TEXT)
		return;
	for (int c = from; c < t->ncols; c++)
		if (cells[c].kind == TD_CELL_STR || cells[c].kind == TD_CELL_INT)
			return;
	if (!t->tails) {
		t->tails = td_calloc(TAILS, sizeof(*t->tails));
		t->tail_cells = td_calloc((size_t)TAILS * t->ncols, sizeof(*t->tail_cells));
		for (int k = 0; k < TAILS; k++)
			t->tails[k].cells = &t->tail_cells[(size_t)k * t->ncols];
	}
	struct tail *tl = &t->tails[t->next_tail];
	t->next_tail = (t->next_tail + 1) % TAILS;
	tl->from = from;
	tl->len = (uint32_t)len;
	memcpy(&t->tail_cells[(size_t)(tl - t->tails) * t->ncols + from], &cells[from],
	       (size_t)(t->ncols - from) * sizeof(*cells));
	memcpy(tl->text, text, len);
}

/* A streamed CSV row, all cells known: write_csv_row's bytes in one pass,
 * straight after the rows kept to be written. Its cells are found again in
 * those bytes only if the row is looked at (cells_from_csv). Cells from
 * column from on are written as the same cells were lately, if they were;
 * the first cells the same as the row above's (above: that row's cells, or
 * NULL) are its bytes again. */
static void csv_row(struct td_table *t, const struct td_cell *cells, int from, const struct td_cell *above)
{
	size_t above_start = t->row_start;
	if (!above && t->out_used > OUT_BATCH)   /* the row above is still there to copy */
		flush_rows(t);
	size_t used = t->out_used;
	t->row_start = used;
	line_room(&t->out, used, row_room(t));
	const struct tail *tl = from < t->ncols ? find_tail(t, cells, from) : NULL;
	int end = tl ? from : t->ncols, c = 0;
	while (above && c < from && same_cells(&above[c], &cells[c], 1))
		c++;
	if (c) {
		size_t n = t->col_at[c];
		line_room(&t->out, used, n + row_room(t));
		memcpy(t->out.p + used, t->out.p + above_start, n);
		used += n;
	}
	char *p = t->out.p;
	for (; c < end; c++) {
		t->col_at[c] = used - t->row_start;
		if (cells[c].kind != TD_CELL_EMPTY) {
			used = csv_cell(t, c, &cells[c], used);
			p = t->out.p;                /* a long string moves it */
		}
		p[used++] = ',';
	}
	t->col_at[end] = used - t->row_start;
	if (tl) {
		memcpy(line_room(&t->out, used, tl->len), tl->text, tl->len);
		used += tl->len;
	} else if (from < t->ncols) {
		size_t tail_at = t->row_start + t->col_at[from];
		keep_tail(t, cells, from, t->out.p + tail_at, used - tail_at);
	}
	t->out.p[used - 1] = '\n';
	t->out_used = used;
	t->row_in_out = true;
	t->next_col = t->ncols;
}

/* The pending row, written whole by csv_row, as it was before it was
 * ended: in line, each cell's bytes found again (a quoted one unquoted
 * where it stands). */
static void cells_from_csv(struct td_table *t)
{
	size_t len = t->out_used - 1 - t->row_start;
	char *p = line_room(&t->line, 0, len);
	memcpy(p, t->out.p + t->row_start, len);
	t->out_used = t->row_start;
	t->row_in_out = false;
	t->line_used = len;
	size_t i = 0;
	for (int c = 0; c < t->ncols; c++, i++) {
		struct direct_cell *d = &t->dcell[c];
		size_t start = i, w = i;
		if (i < len && p[i] == '"') {
			for (i++; i < len && (p[i] != '"' || (i + 1 < len && p[i + 1] == '"')); i++)
				p[w++] = p[i] == '"' ? p[i++] : p[i];
			i++;                         /* the closing quote */
		} else {
			while (i < len && p[i] != ',')
				i++;
			w = i;
		}
		*d = (struct direct_cell){ w > start ? (long)start : -1, (uint32_t)(w - start), false, false };
	}
}

void td_table_put_row(struct td_table *t, const struct td_cell *cells)
{
	td_table_put_rows(t, cells, 1, t->ncols);
}

static void put_cells(struct td_table *t, const struct td_cell *cells);

/* td_table_row, when the pending row was written whole by csv_row: it
 * only has to be counted as streamed. */
static void next_row(struct td_table *t)
{
	if (!t->row_in_out) {
		td_table_row(t);
		return;
	}
	t->row_in_out = false;
	t->streamed++;
	t->text_len = 0;
	t->next_col = 0;
	t->line_used = 0;
}

void td_table_put_rows(struct td_table *t, const struct td_cell *cells, int nrows, int from)
{
	for (int r = 0; r < nrows; r++) {
		const struct td_cell *row = &cells[(size_t)r * t->ncols];
		next_row(t);
		if (t->direct && t->stream_fmt == TD_FMT_CSV)
			csv_row(t, row, from, r ? row - t->ncols : NULL);
		else
			put_cells(t, row);
	}
}

/* The cells of the row just started, one by one. */
static void put_cells(struct td_table *t, const struct td_cell *cells)
{
	for (int c = 0; c < t->ncols; c++) {
		switch (cells[c].kind) {
		case TD_CELL_STR:
		case TD_CELL_LIT:
			td_table_str(t, c, cells[c].u.s);
			break;
		case TD_CELL_NUM:
			td_table_num(t, c, cells[c].u.v);
			break;
		case TD_CELL_INT:
			td_table_int(t, c, cells[c].u.i);
			break;
		default:
			break;
		}
	}
}

int td_table_rows(const struct td_table *t) { return t->nrows; }

const char *td_table_cell(const struct td_table *t, int row, int col)
{
	if (t->direct)              /* a look at the pending row: as cells from now on */
		direct_to_cells((struct td_table *)t);
	long off = t->cells[(size_t)row * t->ncols + col].off;
	return off < 0 ? NULL : t->text + off;
}

void td_json_string(FILE *f, const char *s)
{
	putc_unlocked('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs_unlocked("\\n", f);
		else if (*p == '\t')
			fputs_unlocked("\\t", f);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			putc_unlocked(*p, f);
	}
	putc_unlocked('"', f);
}

void td_xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs_unlocked("&lt;", f);
		else if (*s == '>')
			fputs_unlocked("&gt;", f);
		else if (*s == '&')
			fputs_unlocked("&amp;", f);
		else if (*s == '"')
			fputs_unlocked("&quot;", f);
		else
			putc_unlocked(*s, f);
	}
}

void td_csv_field(FILE *f, const char *s)
{
	size_t n = 0;
	while (s[n] && s[n] != ',' && s[n] != '"' && s[n] != '\n' && s[n] != '\r')
		n++;
	if (!s[n]) {
		fwrite_unlocked(s, 1, n, f);
		return;
	}
	putc_unlocked('"', f);
	for (; *s; s++) {
		if (*s == '"')
			putc_unlocked('"', f);
		putc_unlocked(*s, f);
	}
	putc_unlocked('"', f);
}

static void write_csv_header(const struct td_table *t, FILE *f)
{
	for (int c = 0; c < t->ncols; c++) {
		if (c)
			putc_unlocked(',', f);
		td_csv_field(f, t->cols[c].name);
	}
	putc_unlocked('\n', f);
}

/* One cell as td_csv_field writes it, appended at used; returns the new end. */
static size_t put_csv_cell(const struct td_table *t, struct row_buf *b, size_t used, const struct cell *c)
{
	const char *s = t->text + c->off;
	char *w = line_room(b, used, 2 * (size_t)c->len + 2);
	size_t i = 0;
	if (!c->plain)
		while (i < c->len && !csv_special((unsigned char)s[i]))
			i++;
	if (c->plain || i == c->len) {
		memcpy(w, s, c->len);
		return used + c->len;
	}
	return (size_t)(csv_quoted(w, s, c->len) - b->p);
}

/* The row put together in memory; returns its length. */
static size_t csv_row_bytes(const struct td_table *t, struct row_buf *b, int r)
{
	const struct cell *row = &t->cells[(size_t)r * t->ncols];
	size_t used = 0;
	for (int c = 0; c < t->ncols; c++) {
		if (c)
			*line_room(b, used++, 1) = ',';
		if (row[c].off >= 0)
			used = put_csv_cell(t, b, used, &row[c]);
	}
	*line_room(b, used++, 1) = '\n';
	return used;
}

static void write_csv(const struct td_table *t, FILE *f)
{
	struct row_buf b = { NULL, 0 };
	write_csv_header(t, f);
	for (int r = 0; r < t->nrows; r++)
		fwrite_unlocked(b.p, 1, csv_row_bytes(t, &b, r), f);
	free(b.p);
}

static void write_json_row(const struct td_table *t, int r, FILE *f)
{
	putc_unlocked('{', f);
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

static void write_json(const struct td_table *t, FILE *f)
{
	fputs_unlocked("[", f);
	for (int r = 0; r < t->nrows; r++) {
		fputs_unlocked(r ? ",\n  " : "\n  ", f);
		write_json_row(t, r, f);
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
