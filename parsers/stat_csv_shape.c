/* Row shapes of the CSV reader: learnt from rows read the long way, found
 * again by the row that followed last time (rows come in the same order
 * every interval) or by the bytes of their fields without numbers. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "common/bytes.h"
#include "common/diag.h"
#include "common/plain.h"
#include "stat_csv_shape.h"
#include "stat_number.h"

#define MAX_SHAPES 1024            /* then they are forgotten and learnt again */
#define SLOTS (2 * MAX_SHAPES)
#define SHAPE_FIELDS 64
#define SHAPE_BYTES 512            /* longer rows are not kept */

enum role { FIXED, NUM_INTERVAL, NUM_VALUE, NUM_RUN, NUM_ENABLED, NUM_METRIC };

/* A shape read as a short program: the fixed bytes the line begins with,
 * then numbers, each with the run of fixed bytes after it (fields and the
 * separators between them, compared at once). */
enum op_kind {
	OP_NUMBER,
	OP_BLANKS_NUMBER,          /* field 0's: blanks before it */
	OP_RUN_TIME,               /* a number not kept in the record: only its form is checked */
};

struct shape_op {
	uint8_t kind;
	uint8_t role;              /* a number's enum role */
	uint8_t form;              /* a number's STAT_DECIMAL_* (the reader's tests depend on them) */
	uint8_t field;             /* a number's field: its kept number (KEPT_NUMBERS: the one for all later fields) */
	uint16_t len, off;         /* the run after: its bytes in text */
};

/* The numbers of a row by role, as matches() reads them: the
 * shape's own where it has no such field. */
struct row_numbers {
	double v[NUM_METRIC + 1];
	int metric_decimals;
};

struct shape {
	bool metric;
	struct shape_op lead;      /* the bytes before the first number (a run only) */
	int nops;
	int next[2];               /* the shapes of the rows after this one, the last two times; -1 */
	uint64_t key;              /* skeleton() */
	struct stat_record rec;    /* the row last matched (learnt from, at first); strings in text */
	struct row_numbers numbers;  /* its numbers */
	struct shape_op op[NUM_METRIC];   /* one per number: a role is in one field at most */
	char text[2 * SHAPE_BYTES + 8];  /* fixed bytes, then the record's five strings */
};

/* The last number read at each of the first KEPT_NUMBERS fields (and
 * one for all later ones): rows repeat their interval and their 100.00,
 * and 16 bytes compared equal give the number read before. What the
 * parser reads depends on a number's bytes and the byte it stops at
 * alone, so both are compared. */
#define KEPT_NUMBERS 8
#define KEPT_BYTES 16
struct kept_number {
	uint64_t b[2], mask[2];    /* its bytes and the one after: b == bytes & mask */
	size_t len;
	unsigned form;
	size_t decimals;
	double v;
};

struct csv_shapes {
	bool off;                  /* td_plain(): nothing is learnt, nothing matches */
	struct kept_number kept[KEPT_NUMBERS + 1];
	struct shape *shape[MAX_SHAPES];
	int n, allocated;
	int last;                  /* the shape of the last row matched or learnt; -1 */
	int slot[SLOTS];           /* by key, open addressing: index + 1, 0 = empty */
};

struct csv_shapes *csv_shapes_new(void)
{
	struct csv_shapes *s = td_calloc(1, sizeof(*s));
	s->off = td_plain();
	s->last = -1;
	for (int k = 0; k <= KEPT_NUMBERS; k++)     /* all 16 bytes NUL: never in a line */
		s->kept[k].mask[0] = s->kept[k].mask[1] = ~0ull;
	return s;
}

void csv_shapes_free(struct csv_shapes *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->allocated; i++)
		free(s->shape[i]);
	free(s);
}

/* A byte of a field that may be a number (blanks before field 0's). */
static bool number_byte(char c)
{
	return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == ' ';
}

/* The fields' bytes, without the fields that may be numbers: equal for
 * every line of one shape. */
static uint64_t skeleton(const char *line, size_t len, char sep)
{
	const uint64_t prime = 1099511628211u;
	uint64_t h = 14695981039346656037u;
	const char *p = line, *end = line + len;
	for (unsigned k = 0;; k++) {
		const char *q = p;
		bool number = true;
		for (; q < end && *q != sep; q++)
			number &= number_byte(*q);
		if (!number || q == p) {
			h = (h ^ k) * prime;
			for (const char *c = p; c < q; c++)
				h = (h ^ (unsigned char)*c) * prime;
		}
		if (q == end)
			return (h ^ (k + 0x100u)) * prime;
		p = q + 1;
	}
}

static void set_numbers(struct stat_record *r, const struct row_numbers *n)
{
	r->interval = n->v[NUM_INTERVAL];
	r->value = n->v[NUM_VALUE];
	r->enabled_pct = n->v[NUM_ENABLED];
	r->metric_value = n->v[NUM_METRIC];
	r->metric_decimals = n->metric_decimals;
}

static const uint64_t byte_mask[KEPT_BYTES + 1][2] = {
	{ 0, 0 }, { 0xff, 0 }, { 0xffff, 0 }, { 0xffffff, 0 }, { 0xffffffff, 0 }, { 0xffffffffff, 0 },
	{ 0xffffffffffff, 0 }, { 0xffffffffffffff, 0 }, { ~0ull, 0 }, { ~0ull, 0xff }, { ~0ull, 0xffff },
	{ ~0ull, 0xffffff }, { ~0ull, 0xffffffff }, { ~0ull, 0xffffffffff }, { ~0ull, 0xffffffffffff },
	{ ~0ull, 0xffffffffffffff }, { ~0ull, ~0ull },
};

/* p has KEPT_BYTES bytes before the end of its line. */
static inline bool same_number(const struct kept_number *kn, const char *p)
{
	uint64_t w[2];
	memcpy(w, p, sizeof w);
	return ((w[0] & kn->mask[0]) == kn->b[0]) & ((w[1] & kn->mask[1]) == kn->b[1]);
}

/* The number of n bytes at p, and the byte after it. */
static void keep_number(struct kept_number *kn, const char *p, size_t n, double v, unsigned form, size_t decimals)
{
	memcpy(kn->b, p, KEPT_BYTES);
	kn->mask[0] = byte_mask[n + 1][0];
	kn->mask[1] = byte_mask[n + 1][1];
	kn->b[0] &= kn->mask[0];
	kn->b[1] &= kn->mask[1];
	kn->len = n;
	kn->v = v;
	kn->form = form;
	kn->decimals = decimals;
}

/* The plain decimal at the start of p..end, as stat_decimal_prefix reads
 * it: the one kept in kn when it is the same. */
static inline size_t field_number(struct kept_number *kn, const char *p, const char *end, double *v, unsigned *form,
				  size_t *decimals)
{
	bool room = end - p >= KEPT_BYTES;
	if (room && same_number(kn, p)) {
		*v = kn->v;
		*form = kn->form;
		*decimals = kn->decimals;
		return kn->len;
	}
	size_t n = stat_decimal_prefix(p, (size_t)(end - p), v, form, decimals);
	if (room && n && n < KEPT_BYTES)   /* the byte after it in the line too */
		keep_number(kn, p, n, *v, *form, *decimals);
	return n;
}

/* The run of fixed bytes of op at *p: passed over. */
static inline bool same_run(const struct shape *sh, const struct shape_op *op, const char **p, const char *end)
{
	if (op->len == 1) {              /* a separator between numbers */
		if (*p == end || **p != sh->text[op->off])
			return false;
	} else if ((size_t)(end - *p) < op->len || !td_same_bytes(*p, sh->text + op->off, op->len)) {
		return false;
	}
	*p += op->len;
	return true;
}

/* The line is of shape sh: its fixed bytes the same, its numbers plain
 * decimals of the same form; *n: the numbers. */
static bool matches(const struct shape *sh, struct kept_number *kept, const char *line, size_t len,
		    struct row_numbers *n)
{
	const char *p = line, *end = line + len;
	const struct shape_op *op = sh->op, *last = sh->op + sh->nops;
	*n = sh->numbers;
	if (sh->lead.len && !same_run(sh, &sh->lead, &p, end))
		return false;
	for (; op < last; op++) {
		unsigned form;
		size_t k;
		if (op->kind == OP_RUN_TIME) {
			k = stat_decimal_length(p, (size_t)(end - p), &form);
		} else {
			if (op->kind == OP_BLANKS_NUMBER)
				while (p < end && *p == ' ')
					p++;
			size_t decimals = 0;
			k = field_number(&kept[op->field], p, end, &n->v[op->role], &form, &decimals);
			if (op->role == NUM_METRIC)
				n->metric_decimals = (int)decimals;
		}
		if (k == 0 || form != op->form)
			return false;
		p += k;
		if (op->len && !same_run(sh, op, &p, end))
			return false;
	}
	return p == end;
}

/* Shape i came after sh. */
static void follows(struct shape *sh, int i)
{
	if (sh->next[0] != i) {
		sh->next[1] = sh->next[0];
		sh->next[0] = i;
	}
}

static struct stat_record *found(struct csv_shapes *s, int i, const struct row_numbers *n, bool *metric)
{
	struct shape *sh = s->shape[i];
	set_numbers(&sh->rec, n);
	if (s->last >= 0)
		follows(s->shape[s->last], i);
	s->last = i;
	*metric = sh->metric;
	return &sh->rec;
}

struct stat_record *csv_shapes_match(struct csv_shapes *s, const char *line, size_t len, char sep, bool *metric)
{
	if (s->n == 0 || len > SHAPE_BYTES)
		return NULL;
	struct row_numbers n;
	const int *next = s->last >= 0 ? s->shape[s->last]->next : (const int[2]){ -1, -1 };
	for (int k = 0; k < 2; k++)
		if (next[k] >= 0 && matches(s->shape[next[k]], s->kept, line, len, &n))
			return found(s, next[k], &n, metric);
	uint64_t key = skeleton(line, len, sep);
	for (size_t h = key % SLOTS; s->slot[h]; h = (h + 1) % SLOTS) {
		int i = s->slot[h] - 1;
		if (i != next[0] && i != next[1] && s->shape[i]->key == key && matches(s->shape[i], s->kept, line, len, &n))
			return found(s, i, &n, metric);
	}
	return NULL;
}

/* The raw fields of a line (blanks kept); -1 when there are too many. */
static int raw_fields(const char *line, size_t len, char sep, const char **at, size_t *n)
{
	int nf = 0;
	const char *p = line, *end = line + len;
	for (;;) {
		const char *q = memchr(p, sep, (size_t)(end - p));
		if (nf == SHAPE_FIELDS)
			return -1;
		at[nf] = p;
		n[nf++] = (size_t)((q ? q : end) - p);
		if (!q)
			return nf;
		p = q + 1;
	}
}

/* Field k, blanks at its ends dropped, holds only digits, min to max of them. */
static bool trimmed_digits(const char *p, size_t n, size_t min, size_t max)
{
	while (n && (*p == ' ' || *p == '\t'))
		p++, n--;
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n < min || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	return true;
}

/* What the learner knows of a field: FIXED or a number's role, and a
 * number's form. */
struct field_kind {
	uint8_t role, form;
};

/* Under -x, the reader first looks for a comma-locale row: three fields
 * of 1-20, 1-3 and 2 digits. Numbers of digits only may have any length,
 * so a shape where such a run may appear is not kept. */
static bool comma_locale_possible(const struct field_kind *f, int nf, const char **at, size_t *n)
{
	static const size_t min[3] = { 1, 1, 2 }, max[3] = { 20, 3, 2 };
	for (int j = 2; j + 2 < nf; j++) {
		int k = 0;
		for (; k < 3; k++) {
			const struct field_kind *fk = &f[j + k];
			bool digits = fk->role == FIXED ? trimmed_digits(at[j + k], n[j + k], min[k], max[k]) : fk->form == 0;
			if (!digits)
				break;
		}
		if (k == 3)
			return true;
	}
	return false;
}

/* The numeric fields are plain decimals, blanks only before field 0's;
 * their forms in f. */
static bool numbers_plain(struct field_kind *f, int nf, const char **at, size_t *n)
{
	for (int k = 0; k < nf; k++) {
		if (f[k].role == FIXED)
			continue;
		const char *p = at[k];
		size_t m = n[k];
		while (k == 0 && m && *p == ' ')
			p++, m--;
		double v;
		unsigned form;
		size_t decimals;
		if (m == 0 || stat_decimal_prefix(p, m, &v, &form, &decimals) != m)
			return false;
		f[k].form = (uint8_t)form;
	}
	return true;
}

/* The shape's program: fixed fields and the separators between them as
 * runs of bytes in text, numbers between them. Returns the bytes used. */
static size_t compile(struct shape *sh, const struct field_kind *f, int nf, const char **at, size_t *n, char sep)
{
	size_t used = 0;
	struct shape_op *op = &sh->lead;    /* the one the fixed bytes go after */
	*op = (struct shape_op){ OP_NUMBER, 0, 0, 0, 0, 0 };
	sh->nops = 0;
	for (int k = 0; k < nf; k++) {
		if (k)
			sh->text[used++] = sep;
		if (f[k].role == FIXED) {
			memcpy(sh->text + used, at[k], n[k]);
			used += n[k];
			continue;
		}
		op->len = (uint16_t)(used - op->off);
		uint8_t kind = k == 0 ? OP_BLANKS_NUMBER : f[k].role == NUM_RUN ? OP_RUN_TIME : OP_NUMBER;
		op = &sh->op[sh->nops++];
		*op = (struct shape_op){ kind, f[k].role, f[k].form, (uint8_t)(k < KEPT_NUMBERS ? k : KEPT_NUMBERS), 0,
					 (uint16_t)used };
	}
	op->len = (uint16_t)(used - op->off);
	return used;
}

/* A copy of the record's string k at *used in text, its length known. */
static void keep(struct shape *sh, size_t *used, int k)
{
	const char **s[] = { &sh->rec.scope, &sh->rec.event, &sh->rec.unit, &sh->rec.metric_unit, &sh->rec.threshold };
	size_t len = sh->rec.len[k] >= 0 ? (size_t)sh->rec.len[k] : strlen(*s[k]);
	char *d = sh->text + *used;
	memcpy(d, *s[k], len);
	d[len] = '\0';
	*s[k] = d;
	sh->rec.len[k] = (int)len;
	*used += len + 1;
}

static struct shape *new_shape(struct csv_shapes *s)
{
	if (s->n == MAX_SHAPES) {         /* forget them all: rows of a new layout */
		s->n = 0;
		s->last = -1;
		memset(s->slot, 0, sizeof s->slot);
	}
	if (s->n == s->allocated)
		s->shape[s->allocated++] = td_malloc(sizeof(struct shape));
	return s->shape[s->n];
}

void csv_shapes_learn(struct csv_shapes *s, const char *line, size_t len, char sep, const struct stat_record *r,
		      const struct csv_layout *lay)
{
	const char *at[SHAPE_FIELDS];
	size_t n[SHAPE_FIELDS];
	if (s->off || !lay->learnable || len > SHAPE_BYTES || !isnan(r->variance_pct))
		return;
	int nf = raw_fields(line, len, sep, at, n);
	if (nf < 0)
		return;
	struct field_kind f[SHAPE_FIELDS] = { { FIXED, 0 } };
	const int field[] = { lay->interval, lay->value, lay->run, lay->enabled, lay->metric };
	for (int i = 0; i < 5; i++)
		if (field[i] >= 0)
			f[field[i]].role = (uint8_t)(NUM_INTERVAL + i);
	if (!numbers_plain(f, nf, at, n) || (sep == ',' && comma_locale_possible(f, nf, at, n)))
		return;
	struct shape *sh = new_shape(s);
	size_t used = compile(sh, f, nf, at, n, sep);
	sh->rec = *r;
	sh->numbers = (struct row_numbers){ { [NUM_INTERVAL] = r->interval, [NUM_VALUE] = r->value,
					      [NUM_ENABLED] = r->enabled_pct, [NUM_METRIC] = r->metric_value },
					    r->metric_decimals };
	size_t first = used;
	for (int k = 0; k < 5; k++)
		keep(sh, &used, k);
	sh->rec.run = used - first - 1;    /* keep() lays the five out one after another */
	sh->metric = !isnan(r->metric_value) && r->metric_unit[0];
	sh->next[0] = sh->next[1] = -1;
	sh->key = skeleton(line, len, sep);
	size_t h = sh->key % SLOTS;
	while (s->slot[h])
		h = (h + 1) % SLOTS;
	s->slot[h] = s->n + 1;
	if (s->last >= 0)
		follows(s->shape[s->last], s->n);
	s->last = s->n++;
}
