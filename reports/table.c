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
	struct last_num *last; /* per column: the number formatted last */
};

static void write_csv_header(const struct td_table *t, FILE *f);
static void write_csv_row(const struct td_table *t, struct row_buf *b, int r, FILE *f);
static void write_json_row(const struct td_table *t, int r, FILE *f);

struct td_table *td_table_new(const struct td_column *cols, int ncols)
{
	struct td_table *t = td_calloc(1, sizeof(*t));
	t->cols = cols;
	t->ncols = ncols;
	t->last = td_calloc((size_t)ncols, sizeof(*t->last));
	return t;
}

void td_table_free(struct td_table *t)
{
	if (!t)
		return;
	free(t->cells);
	free(t->text);
	free(t->line.p);
	free(t->last);
	free(t);
}

void td_table_stream(struct td_table *t, FILE *f, enum td_format fmt)
{
	t->stream = f;
	t->stream_fmt = fmt;
	if (fmt == TD_FMT_CSV)
		write_csv_header(t, f);
	else
		putc_unlocked('[', f);
}

/* Streaming: the pending row goes out and its storage is reused. */
static void stream_pending(struct td_table *t)
{
	if (!t->stream || t->nrows == 0)
		return;
	if (t->stream_fmt == TD_FMT_CSV) {
		write_csv_row(t, &t->line, 0, t->stream);
	} else {
		fputs_unlocked(t->streamed ? ",\n  " : "\n  ", t->stream);
		write_json_row(t, 0, t->stream);
	}
	t->streamed++;
	t->nrows = 0;
	t->text_len = 0;
}

void td_table_end_stream(struct td_table *t)
{
	if (!t->stream)
		return;
	stream_pending(t);
	if (t->stream_fmt != TD_FMT_CSV)
		fputs_unlocked(t->streamed ? "\n]" : "]", t->stream);
	t->stream = NULL;
}

void td_table_row(struct td_table *t)
{
	stream_pending(t);
	if (t->nrows == t->cap_rows) {
		t->cap_rows = t->cap_rows ? t->cap_rows * 2 : 64;
		t->cells = td_realloc(t->cells, (size_t)t->cap_rows * t->ncols * sizeof(*t->cells));
	}
	struct cell *row = &t->cells[(size_t)t->nrows * t->ncols];
	for (int c = 0; c < t->ncols; c++)
		row[c] = (struct cell){ -1, 0, false };
	t->nrows++;
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
	set_cell(t, col, s && *s ? s : NULL, s ? strlen(s) : 0, false);   /* "" is an empty cell */
}

void td_table_int(struct td_table *t, int col, long long v)
{
	char buf[32];
	int n = snprintf(buf, sizeof buf, "%lld", v);
	set_cell(t, col, buf, (size_t)n, true);
}

void td_table_num(struct td_table *t, int col, double v)
{
	if (!isfinite(v)) {
		set_cell(t, col, NULL, 0, false);
		return;
	}
	struct last_num *l = &t->last[col];
	if (l->len == 0 || memcmp(&l->v, &v, sizeof v)) {    /* bit for bit: -0.0 is not 0.0 */
		l->v = v;
		l->len = (uint32_t)td_format_fixed(l->text, v, t->cols[col].precision);
	}
	set_cell(t, col, l->text, l->len, true);
}

int td_table_rows(const struct td_table *t) { return t->nrows; }

const char *td_table_cell(const struct td_table *t, int row, int col)
{
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

/* Bytes that make a CSV field need quotes (td_csv_field). */
static bool csv_special(unsigned char ch) { return ch == ',' || ch == '"' || ch == '\n' || ch == '\r'; }

/* Room for n more bytes in the row being put together. */
static char *line_room(struct row_buf *b, size_t used, size_t n)
{
	if (used + n > b->cap) {
		b->cap = (used + n) * 2 + 256;
		b->p = td_realloc(b->p, b->cap);
	}
	return b->p + used;
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
	char *start = w;
	*w++ = '"';
	for (i = 0; i < c->len; i++) {
		if (s[i] == '"')
			*w++ = '"';
		*w++ = s[i];
	}
	*w++ = '"';
	return used + (size_t)(w - start);
}

/* The row put together in memory, then one write. */
static void write_csv_row(const struct td_table *t, struct row_buf *b, int r, FILE *f)
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
	fwrite_unlocked(b->p, 1, used, f);
}

static void write_csv(const struct td_table *t, FILE *f)
{
	struct row_buf b = { NULL, 0 };
	write_csv_header(t, f);
	for (int r = 0; r < t->nrows; r++)
		write_csv_row(t, &b, r, f);
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
