/* Unit tests of the table and the row stream: rows streamed as CSV or JSON
 * (cell by cell in column order, or whole rows) are the bytes
 * td_table_write gives for the same rows. Prints TAP. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reports/row_stream.h"
#include "reports/table.h"
#include "tests/unit/tap.h"


static const struct td_column cols[] = {
	{ "interval", TD_COL_NUM, 9 }, { "name", TD_COL_STR, 0 }, { "value", TD_COL_NUM, 3 },
	{ "n", TD_COL_INT, 0 }, { "note \"q\"", TD_COL_STR, 0 }, { "num as str", TD_COL_NUM, 2 },
};
#define NC 6

static const char *const strings[] = { "", "CPU0", "a,b", "say \"hi\"", "tab\there", "line\nbreak", "cr\r",
				       "back\\slash", "ctl\x01", "caf\xc3\xa9", "plain",
				       "a literal longer than thirty-two bytes", "thirty-two bytes long, exactly!!" };
#define NS (sizeof strings / sizeof *strings)

static const double numbers[] = { 0, -0.0, 1.5, -2.25, 1e300, NAN, INFINITY, 0.0005, 123456.789 };
#define NN (sizeof numbers / sizeof *numbers)

/* One operation on the last row: which column, what. */
struct op {
	int col, what;        /* what: 0 str, 1 num, 2 int */
	unsigned idx;
};

/* The same rows into a table, or into a row stream. */
struct sink {
	struct td_table *t;
	struct td_rows *w;
};

static void apply(struct sink *k, const struct op *o)
{
	switch (o->what) {
	case 0:
		if (k->w)
			td_rows_str(k->w, o->col, strings[o->idx % NS]);
		else
			td_table_str(k->t, o->col, strings[o->idx % NS]);
		break;
	case 1:
		if (k->w)
			td_rows_num(k->w, o->col, numbers[o->idx % NN]);
		else
			td_table_num(k->t, o->col, numbers[o->idx % NN]);
		break;
	default:
		if (k->w)
			td_rows_int(k->w, o->col, (long long)o->idx * 7919 - 100000);
		else
			td_table_int(k->t, o->col, (long long)o->idx * 7919 - 100000);
		break;
	}
}

static struct td_cell as_cell(const struct op *o)
{
	if (o->what == 0)
		return o->idx & 1 ? TD_CELL_LIT(strings[o->idx % NS]) : TD_CELL_STR(strings[o->idx % NS]);
	if (o->what == 1)
		return TD_CELL_NUM(numbers[o->idx % NN]);
	return TD_CELL_INT((long long)o->idx * 7919 - 100000);
}

static char *slurp(FILE *f, size_t *len)
{
	fflush(f);
	long n = ftell(f);
	char *s = malloc((size_t)n + 1);
	rewind(f);
	*len = fread(s, 1, (size_t)n, f);
	s[*len] = '\0';
	return s;
}

/* rows of ops, cell by cell in column order or whole (td_table_put_rows,
 * td_rows_put) */
static char *run(enum td_format fmt, unsigned seed, bool stream)
{
	srand(seed);
	FILE *f = tmpfile();
	struct sink k = { NULL, NULL };
	if (stream)
		k.w = td_rows_new(cols, NC, f, fmt);
	else
		k.t = td_table_new(cols, NC);
	int rows = rand() % 6;
	struct td_cell last[NC];
	bool have_last = false;
	for (int r = 0; r < rows; r++) {
		int mode = rand() % 2;       /* 0 cell by cell, 1 whole rows */
		struct op ops[12];
		int nops = 0;
		for (int c = 0; c < NC; c++)
			if (rand() % 3)
				ops[nops++] = (struct op){ c, rand() % 3, (unsigned)rand() };
		if (mode == 1) {
			struct td_cell cells[3][NC];
			int from = rand() % (NC + 1), n = 1 + rand() % 3;
			for (int k = 0; k < n; k++) {
				for (int c = 0; c < NC; c++)
					cells[k][c] = TD_CELL_NONE;
				for (int i = 0; i < nops; i++)
					cells[k][ops[i].col] = as_cell(&ops[i]);
				for (int c = 0; k && rand() % 4 && c < NC; c++)   /* first cells as the row above's */
					cells[k][c] = cells[k - 1][c];
				for (int c = from; have_last && rand() % 2 && c < NC; c++)   /* a tail, often one before */
					cells[k][c] = last[c];
				memcpy(last, cells[k], sizeof last);
				have_last = true;
				for (int i = 0; i < nops; i++)   /* the next row's own cells */
					ops[i].idx = (unsigned)rand();
			}
			if (k.w)
				td_rows_put(k.w, cells[0], n, from);
			else
				td_table_put_rows(k.t, cells[0], n, from);
			continue;
		}
		if (k.w)
			td_rows_row(k.w);
		else
			td_table_row(k.t);
		for (int i = 0; i < nops; i++)
			apply(&k, &ops[i]);
	}
	if (stream) {
		td_rows_end(k.w);
		td_rows_free(k.w);
	} else {
		td_table_write(k.t, f, fmt);
		td_table_free(k.t);
	}
	size_t len;
	char *s = slurp(f, &len);
	fclose(f);
	return s;
}

static bool same(enum td_format fmt, unsigned seed)
{
	char *a = run(fmt, seed, true);
	char *b = run(fmt, seed, false);
	bool eq = strcmp(a, b) == 0;
	if (!eq)
		printf("# seed %u:\n# streamed: %s\n# written:  %s\n", seed, a, b);
	free(a);
	free(b);
	return eq;
}

int main(void)
{
	int bad_csv = 0, bad_json = 0;
	for (unsigned seed = 1; seed <= 3000; seed++) {
		bad_csv += !same(TD_FMT_CSV, seed);
		bad_json += !same(TD_FMT_JSON, seed);
	}
	ok(bad_csv == 0, "streamed CSV (cell by cell, whole rows) = td_table_write");
	ok(bad_json == 0, "streamed JSON (the same rows) = td_table_write");
	return tap_done();
}
