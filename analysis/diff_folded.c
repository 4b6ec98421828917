#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "common/input.h"
#include "common/intern.h"
#include "parsers/folded.h"
#include "diff_folded.h"

struct side {
	uint64_t *count;            /* by stack id: integer sums */
	double *value;              /* by stack id: sums with decimals */
	bool *present;
	uint64_t total;
	double total_value;
	unsigned long stacks;
};

struct diff_folded {
	struct diff_folded_options opt;
	struct td_intern *stacks;
	size_t cap;
	struct side side[2];
	bool fractional;            /* some count had decimals: print as numbers */
	char *buf;
	size_t buf_cap;
};

struct diff_folded *diff_folded_new(const struct diff_folded_options *opts)
{
	struct diff_folded *d = td_calloc(1, sizeof(*d));
	d->opt = *opts;
	d->stacks = td_intern_new();
	return d;
}

void diff_folded_free(struct diff_folded *d)
{
	if (!d)
		return;
	for (int s = 0; s < 2; s++) {
		free(d->side[s].count);
		free(d->side[s].value);
		free(d->side[s].present);
	}
	td_intern_free(d->stacks);
	free(d->buf);
	free(d);
}

static void grow(struct diff_folded *d, uint32_t id)
{
	if (id < d->cap)
		return;
	size_t old = d->cap;
	d->cap = id * 2 + 1024;
	for (int s = 0; s < 2; s++) {
		struct side *sd = &d->side[s];
		sd->count = td_realloc(sd->count, d->cap * sizeof(*sd->count));
		sd->value = td_realloc(sd->value, d->cap * sizeof(*sd->value));
		sd->present = td_realloc(sd->present, d->cap * sizeof(*sd->present));
		memset(sd->count + old, 0, (d->cap - old) * sizeof(*sd->count));
		memset(sd->value + old, 0, (d->cap - old) * sizeof(*sd->value));
		memset(sd->present + old, 0, (d->cap - old) * sizeof(*sd->present));
	}
}

/* -s: every "0x<hex>" becomes "0x..." */
static const char *strip_hex(struct diff_folded *d, const char *s, size_t n, size_t *out_n)
{
	if (d->buf_cap < n + 1) {
		d->buf_cap = n * 2 + 64;
		d->buf = td_realloc(d->buf, d->buf_cap);
	}
	size_t w = 0;
	for (size_t i = 0; i < n;) {
		size_t h = i + 2;
		while (h < n && strchr("0123456789abcdefABCDEF", s[h]) && s[h])
			h++;
		if (i + 2 < n && s[i] == '0' && s[i + 1] == 'x' && h > i + 2) {
			memcpy(d->buf + w, "0x...", 5);
			w += 5;
			i = h;
		} else {
			d->buf[w++] = s[i++];
		}
		if (w + 5 >= d->buf_cap) {
			d->buf_cap *= 2;
			d->buf = td_realloc(d->buf, d->buf_cap);
		}
	}
	*out_n = w;
	return d->buf;
}

bool diff_folded_read(struct diff_folded *d, int side, const char *path)
{
	struct td_input *in = td_input_open(path);
	if (!in)
		return false;
	struct side *sd = &d->side[side];
	const char *line;
	size_t len;
	unsigned long bad = 0;
	while (td_input_next(in, &line, &len)) {
		struct folded_line fl;
		if (!folded_parse(line, len, &fl)) {
			if (len && bad++ < 10)
				td_bad_input(td_input_name(in), td_input_lineno(in), "not a folded stack line (\"stack COUNT\"); skipped");
			continue;
		}
		const char *stack = fl.stack;
		size_t n = fl.stack_len;
		if (d->opt.strip_hex)
			stack = strip_hex(d, stack, n, &n);
		uint32_t id = td_intern(d->stacks, stack, n);
		grow(d, id);
		if (!sd->present[id])
			sd->stacks++;
		sd->present[id] = true;
		sd->count[id] += fl.count;
		sd->value[id] += fl.value;
		sd->total += fl.count;
		sd->total_value += fl.value;
		d->fractional |= fl.fractional;
	}
	if (bad > 10)
		td_bad_input(td_input_name(in), 0, "%lu lines in all were not folded stacks", bad);
	td_input_close(in);
	return true;
}

double diff_folded_total(const struct diff_folded *d, int side)
{
	return d->fractional ? d->side[side].total_value : (double)d->side[side].total;
}

unsigned long diff_folded_stacks(const struct diff_folded *d, int side) { return d->side[side].stacks; }

/* difffolded.pl's int(c1 * total2 / total1), with perl's integer rules:
 * an exact integer when the product fits 64 bits and divides evenly,
 * otherwise floating point, truncated. */
static uint64_t normalize_count(uint64_t c, uint64_t t2, uint64_t t1)
{
	unsigned __int128 p = (unsigned __int128)c * t2;
	if (p <= UINT64_MAX) {
		uint64_t q = (uint64_t)p;
		return q % t1 == 0 ? q / t1 : (uint64_t)((double)q / (double)t1);
	}
	return (uint64_t)((double)c * (double)t2 / (double)t1);
}

struct out_line {
	uint32_t id;
	const char *s;
	size_t n;
};

static int cmp_out(const void *a, const void *b)
{
	const struct out_line *x = a, *y = b;
	int c = memcmp(x->s, y->s, x->n < y->n ? x->n : y->n);
	return c ? c : (x->n > y->n) - (x->n < y->n);
}

void diff_folded_write(const struct diff_folded *d, FILE *out)
{
	uint32_t n = td_intern_count(d->stacks);
	struct out_line *lines = td_malloc((n + 1) * sizeof(*lines));
	for (uint32_t i = 0; i < n; i++) {
		lines[i].id = i;
		lines[i].s = td_intern_str(d->stacks, i, &lines[i].n);
	}
	qsort(lines, n, sizeof(*lines), cmp_out);
	const struct side *b = &d->side[0], *c = &d->side[1];
	bool scale = d->opt.normalize && diff_folded_total(d, 0) != diff_folded_total(d, 1);
	if (scale && diff_folded_total(d, 0) == 0) {
		td_warn(NULL, 0, "-n: the base profile is empty; counts left as they are");
		scale = false;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = lines[i].id;
		fwrite(lines[i].s, 1, lines[i].n, out);
		if (d->fractional) {
			double v = b->value[id];
			if (scale)
				v = trunc(v * c->total_value / b->total_value);
			fprintf(out, " %.15g %.15g\n", v, c->value[id]);
		} else {
			uint64_t v = scale ? normalize_count(b->count[id], c->total, b->total) : b->count[id];
			fprintf(out, " %llu %llu\n", (unsigned long long)v, (unsigned long long)c->count[id]);
		}
	}
	free(lines);
}

/* ---- which functions moved: self and total shares per side ---------------- */

struct func_stats {
	double self[2], total[2];
	uint32_t seen_in;            /* last stack that counted this function's total */
};

struct moved {
	uint32_t func;
	int kind;                    /* 0 self, 1 total */
	double base, cand, delta, z;
};

static double z_critical(double alpha)
{
	/* two-sided normal quantile by bisection on erfc */
	double lo = 0, hi = 10;
	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;
		if (erfc(mid / sqrt(2.0)) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Counts in folded files are usually period sums, not sample counts. Most
 * stacks are seen once or twice, so the lower quartile of the per-stack
 * counts estimates one sample's weight; n = count / unit. */
static double sample_unit(const struct diff_folded *d)
{
	if (d->fractional)
		return 1;
	uint32_t n = td_intern_count(d->stacks), k = 0;
	uint64_t *c = td_malloc(2 * (size_t)n * sizeof(*c) + 1);
	for (int s = 0; s < 2; s++)
		for (uint32_t i = 0; i < n; i++)
			if (d->side[s].count[i])
				c[k++] = d->side[s].count[i];
	qsort(c, k, sizeof(*c), cmp_u64);
	double unit = k ? (double)c[k / 4] : 1;
	free(c);
	return unit > 0 ? unit : 1;
}

static int cmp_moved(const void *a, const void *b)
{
	const struct moved *x = a, *y = b;
	double dx = fabs(x->delta), dy = fabs(y->delta);
	if (dx != dy)
		return dx < dy ? 1 : -1;
	return x->func < y->func ? -1 : x->func > y->func;
}

static void add_func(struct func_stats **fs, size_t *cap, uint32_t id)
{
	if (id < *cap)
		return;
	size_t old = *cap;
	*cap = id * 2 + 256;
	*fs = td_realloc(*fs, *cap * sizeof(**fs));
	memset(*fs + old, 0, (*cap - old) * sizeof(**fs));
	for (size_t i = old; i < *cap; i++)
		(*fs)[i].seen_in = UINT32_MAX;
}

struct diff_folded_moves *diff_folded_top(const struct diff_folded *d, int top)
{
	struct td_intern *funcs = td_intern_new();
	struct func_stats *fs = NULL;
	size_t cap = 0;
	double total[2] = { diff_folded_total(d, 0), diff_folded_total(d, 1) };
	for (uint32_t st = 0; st < td_intern_count(d->stacks); st++) {
		size_t n;
		const char *s = td_intern_str(d->stacks, st, &n);
		const char *p = s, *end = s + n;
		while (p <= end) {
			const char *semi = memchr(p, ';', (size_t)(end - p));
			const char *fe = semi ? semi : end;
			uint32_t id = td_intern(funcs, p, (size_t)(fe - p));
			add_func(&fs, &cap, id);
			for (int side = 0; side < 2; side++) {
				double v = d->fractional ? d->side[side].value[st] : (double)d->side[side].count[st];
				if (fs[id].seen_in != st)
					fs[id].total[side] += v;
				if (!semi)
					fs[id].self[side] += v;
			}
			fs[id].seen_in = st;
			if (!semi)
				break;
			p = semi + 1;
		}
	}
	uint32_t nf = td_intern_count(funcs);
	struct moved *mv = td_malloc((2 * (size_t)nf + 1) * sizeof(*mv));
	double unit = sample_unit(d), zc = z_critical(d->opt.alpha > 0 ? d->opt.alpha : 0.05);
	double n1 = total[0] / unit, n2 = total[1] / unit;
	for (int kind = 0; kind < 2; kind++) {
		for (uint32_t f = 0; f < nf; f++) {
			double x1 = kind ? fs[f].total[0] : fs[f].self[0];
			double x2 = kind ? fs[f].total[1] : fs[f].self[1];
			struct moved *m = &mv[kind * (size_t)nf + f];
			m->func = f;
			m->kind = kind;
			m->base = total[0] > 0 ? 100 * x1 / total[0] : 0;
			m->cand = total[1] > 0 ? 100 * x2 / total[1] : 0;
			m->delta = m->cand - m->base;
			/* two-proportion z test on sample counts */
			double p = (x1 + x2) / unit / (n1 + n2);
			double se = sqrt(p * (1 - p) * (1 / (n1 > 0 ? n1 : 1) + 1 / (n2 > 0 ? n2 : 1)));
			m->z = se > 0 ? (m->cand - m->base) / 100 / se : 0;
		}
	}
	struct diff_folded_moves *out = td_calloc(1, sizeof(*out));
	out->names = funcs;
	out->row = td_malloc((2 * (size_t)nf + 1) * sizeof(*out->row));
	for (int kind = 0; kind < 2; kind++) {
		struct moved *part = mv + kind * (size_t)nf;
		qsort(part, nf, sizeof(*part), cmp_moved);
		for (uint32_t i = 0; i < nf && (int)i < top; i++) {
			const struct moved *m = &part[i];
			if (m->delta == 0)
				break;
			out->row[out->n++] = (struct diff_folded_move){
				kind ? "total" : "self", td_intern_str(funcs, m->func, NULL), m->base, m->cand, m->delta,
				m->z, fabs(m->z) >= zc,
				m->base == 0 ? "new" : m->cand == 0 ? "gone" : m->delta > 0 ? "grew" : "shrank",
			};
		}
	}
	free(mv);
	free(fs);
	return out;
}

void diff_folded_moves_free(struct diff_folded_moves *m)
{
	if (!m)
		return;
	free(m->row);
	td_intern_free(m->names);
	free(m);
}
