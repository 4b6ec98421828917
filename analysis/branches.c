#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "branches.h"
#include "common/diag.h"
#include "common/intern.h"
#include "parsers/perf_script.h"

#define NONE UINT32_MAX
#define HIST 64            /* cycles: exact below 32, then one bucket per power of two */

struct pair_stat {
	uint32_t from, to, type;
	unsigned long count, mispredicted, no_info, not_taken;
	unsigned long cycles_n;
	double cycles_sum;
	uint32_t hist[HIST];
};

/* An ARM SPE record of a perf report -D dump being read. */
struct spe_record {
	bool branch, mispred, not_taken;
	char pc[24], tgt[24], type[8];
};

struct branches {
	struct td_intern *strings, *pairs;
	struct pair_stat *stat;
	size_t nstat, cap;
	struct br_totals totals;
	bool header_open;          /* a sample header whose entries may follow on later lines */
	struct spe_record spe;
	struct br_row *rows;
	char *row_text;
	size_t row_text_len, row_text_cap;
};

struct branches *branches_new(void)
{
	struct branches *b = td_calloc(1, sizeof(*b));
	b->strings = td_intern_new();
	b->pairs = td_intern_new();
	return b;
}

void branches_free(struct branches *b)
{
	if (!b)
		return;
	td_intern_free(b->strings);
	td_intern_free(b->pairs);
	free(b->stat);
	free(b->rows);
	free(b->row_text);
	free(b);
}

const struct br_totals *branches_totals(const struct branches *b) { return &b->totals; }

/* strspn for text that is not NUL-terminated. */
static size_t count_in(const char *p, size_t n, const char *set)
{
	size_t i = 0;
	while (i < n && strchr(set, p[i]) && p[i])
		i++;
	return i;
}

static uint32_t intern_span(struct branches *b, struct td_span s) { return td_intern(b->strings, s.p, s.n); }
static const char *str(const struct branches *b, uint32_t id) { return id == NONE ? "" : td_intern_str(b->strings, id, NULL); }

static int cycles_bucket(unsigned long v)
{
	if (v < 32)
		return (int)v;
	int b = 32;
	for (unsigned long x = v >> 6; x && b < HIST - 1; x >>= 1)
		b++;
	return b;
}

static double bucket_value(int b) { return b < 32 ? b : 1.5 * (double)(1UL << (b - 27)); }

/* The pair's statistics, keyed by the "from/to" text as printed: one hash
 * per entry; from and to are interned on a pair's first sighting. */
static struct pair_stat *pair(struct branches *b, struct td_span from, struct td_span to)
{
	char buf[512];
	const char *key = from.p;
	size_t n = from.n + 1 + to.n;
	if (to.p != from.p + from.n + 1) {          /* built, not printed (SPE) */
		if (n > sizeof buf)
			n = sizeof buf;
		snprintf(buf, sizeof buf, "%.*s/%.*s", (int)from.n, from.p, (int)to.n, to.p);
		key = buf;
	}
	uint32_t id = td_intern(b->pairs, key, n);
	if (id >= b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		b->stat = td_realloc(b->stat, cap * sizeof(*b->stat));
		b->cap = cap;
	}
	if (id >= b->nstat) {
		memset(&b->stat[id], 0, sizeof(*b->stat));
		b->stat[id].from = intern_span(b, from);
		b->stat[id].to = intern_span(b, to);
		b->stat[id].type = NONE;
		b->nstat = id + 1;
	}
	return &b->stat[id];
}

static void count_entry(struct branches *b, const struct br_entry *e)
{
	b->totals.entries++;
	if (e->empty) {
		b->totals.empty++;
		return;
	}
	struct pair_stat *s = pair(b, e->from, e->to);
	s->count++;
	s->mispredicted += e->pred == BR_MISPREDICTED;
	s->no_info += e->pred == BR_NO_INFO;
	s->not_taken += e->not_taken;
	b->totals.mispredicted += e->pred == BR_MISPREDICTED;
	b->totals.no_info += e->pred == BR_NO_INFO;
	if (s->type == NONE && e->type.n)
		s->type = intern_span(b, e->type);
	if (e->cycles) {
		s->cycles_n++;
		s->cycles_sum += (double)e->cycles;
		s->hist[cycles_bucket(e->cycles)]++;
	}
}

/* ---- perf report -D: ARM SPE packets --------------------------------- */

static bool has_word(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	for (const char *p = s; (p = memmem(p, (size_t)(s + n - p), w, k)); p += k)
		if ((p == s || p[-1] == ' ') && (p + k == s + n || p[k] == ' '))
			return true;
	return false;
}

static void copy_word(char *dst, size_t cap, const char *p, const char *end)
{
	size_t n = 0;
	while (p < end && *p != ' ' && n + 1 < cap)
		dst[n++] = *p++;
	dst[n] = '\0';
}

static void spe_end_record(struct branches *b)
{
	struct spe_record *r = &b->spe;
	b->totals.spe_records++;
	if (r->branch && r->pc[0]) {
		struct br_entry e;
		memset(&e, 0, sizeof e);
		e.from = (struct td_span){ r->pc, strlen(r->pc) };
		e.to = r->tgt[0] ? (struct td_span){ r->tgt, strlen(r->tgt) } : (struct td_span){ "[unknown]", 9 };
		e.pred = r->mispred ? BR_MISPREDICTED : BR_PREDICTED;
		e.not_taken = r->not_taken;
		e.type = (struct td_span){ r->type, strlen(r->type) };
		count_entry(b, &e);
		b->totals.samples++;
	}
	memset(r, 0, sizeof(*r));
}

/* ".  00000019:  b0 00 c4 15 08 00 00 ff ff   PC 0xff00000815c400 el3 ns=1" */
static bool spe_packet(struct branches *b, const char *line, size_t len)
{
	if (len < 14 || line[0] != '.' || line[1] != ' ' || line[2] != ' ' || line[11] != ':')
		return false;
	/* the description follows the byte dump: after the last run of 2+ blanks */
	const char *end = line + len, *d = end;
	for (const char *p = line + 12; p + 1 < end; p++)
		if (p[0] == ' ' && p[1] == ' ')
			d = p;
	while (d < end && *d == ' ')
		d++;
	size_t n = (size_t)(end - d);
	struct spe_record *r = &b->spe;
	if (has_word(d, n, "Bad") && memmem(d, n, "packet!", 7))
		b->totals.spe_bad_packets++;
	else if (n > 3 && memcmp(d, "PC ", 3) == 0)
		copy_word(r->pc, sizeof r->pc, d + 3, end);
	else if (n > 4 && memcmp(d, "TGT ", 4) == 0)
		copy_word(r->tgt, sizeof r->tgt, d + 4, end);
	else if (n >= 2 && d[0] == 'B' && (n == 1 || d[1] == ' ')) {
		r->branch = true;
		copy_word(r->type, sizeof r->type, d + 2, end);
	} else if (n > 3 && memcmp(d, "EV ", 3) == 0) {
		r->mispred = has_word(d, n, "MISPRED");
		r->not_taken = has_word(d, n, "NOT-TAKEN");
	} else if ((n > 3 && memcmp(d, "TS ", 3) == 0) || (n >= 3 && memcmp(d, "END", 3) == 0)) {
		spe_end_record(b);
	}
	return true;
}

/* ---- perf script lines -------------------------------------------------- */

/* Entries on a line; returns how many, reporting malformed ones. */
static int line_entries(struct branches *b, const char *line, size_t len, const char *file, unsigned long lineno,
			bool *first_is_entry)
{
	int found = 0, token = 0;
	*first_is_entry = false;
	for (size_t i = 0; i < len; token++) {
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		size_t start = i;
		while (i < len && line[i] != ' ' && line[i] != '\t')
			i++;
		if (i == start)
			break;
		const char *tok = line + start;
		size_t n = i - start;
		size_t glued = brstack_glued_ip(tok, n);
		if (glued && memchr(tok, '/', n))
			tok += glued, n -= glued;
		struct br_entry e;
		const char *why = NULL;
		switch (brstack_parse_entry(tok, n, &e, &why)) {
		case BR_OK:
			*first_is_entry |= token == 0 && !glued;
			count_entry(b, &e);
			found++;
			break;
		case BR_BAD:
			td_bad_input(file, lineno, "'%.*s': %s; entry skipped", (int)(n > 80 ? 80 : n), tok, why);
			break;
		case BR_NOT_ENTRY:
			break;
		}
	}
	return found;
}

/* The SPE event a synthesized sample names ("branch-miss:", "l1d-access:"),
 * found as a token wherever -F put it; NULL when the line has none. */
static const char *spe_event(const char *line, size_t len, size_t *after)
{
	static const char *const events[] = { "branch-miss", "l1d-access", "l1d-miss", "llc-access", "llc-miss",
					      "tlb-access", "tlb-miss", "remote-access", "memory", NULL };
	for (size_t i = 0; i < len;) {
		while (i < len && line[i] == ' ')
			i++;
		size_t start = i;
		while (i < len && line[i] != ' ')
			i++;
		if (i - start < 2 || line[i - 1] != ':')
			continue;
		for (const char *const *ev = events; *ev; ev++)
			if (i - start - 1 == strlen(*ev) && memcmp(line + start, *ev, i - start - 1) == 0) {
				*after = i;
				return *ev;
			}
	}
	return NULL;
}

/* SPE's synthesized samples: a branch-miss counts as a mispredicted branch
 * at its PC (the target is not in the sample); other events are skipped. */
static bool spe_sample(struct branches *b, const char *line, size_t len)
{
	size_t after;
	const char *ev = spe_event(line, len, &after);
	if (!ev)
		return false;
	if (strcmp(ev, "branch-miss")) {
		b->totals.skipped_events++;
		return true;
	}
	struct script_header h;
	struct script_frame f;
	struct br_entry e;
	memset(&e, 0, sizeof e);
	if (script_parse_one_line(line, len, false, &h, &f)) {
		bool unknown = f.sym.n == 0 || (f.sym.n == 9 && !memcmp(f.sym.p, "[unknown]", 9));
		e.from = unknown ? f.pc : f.sym;
	} else {                           /* -F event,ip,...: the first long hex token */
		for (size_t i = after; i < len && !e.from.n;) {
			while (i < len && line[i] == ' ')
				i++;
			size_t start = i;
			while (i < len && line[i] != ' ')
				i++;
			if (i - start >= 8 && count_in(line + start, i - start, "0123456789abcdef") == i - start)
				e.from = (struct td_span){ line + start, i - start };
		}
		if (!e.from.n)
			e.from = (struct td_span){ "[unknown]", 9 };
	}
	e.to = (struct td_span){ "[unknown]", 9 };
	e.pred = BR_MISPREDICTED;
	count_entry(b, &e);
	b->totals.samples++;
	return true;
}

void branches_line(struct branches *b, const char *line, size_t len, const char *file, unsigned long lineno)
{
	size_t lead = count_in(line, len, " ");
	if (spe_packet(b, line, len))
		return;
	if (lead >= len || line[0] == '#' || (line[0] == '.' && (len == 1 || line[1] == ' ')) ||
	    (len > 12 && line[0] == 'P' && !memcmp(line, "PERF_RECORD_", 12)))
		return;                        /* blank, comment, mmap events, perf report -D framing */
	if (line[0] == '\t')
		return;                        /* a callchain frame: the entries come after */
	bool first_is_entry;
	int n = line_entries(b, line, len, file, lineno, &first_is_entry);
	if (n > 0) {
		/* entries alone on a line continue the sample above (-g with brstack) */
		if (!(first_is_entry && b->header_open))
			b->totals.samples++;
		b->header_open = false;
		return;
	}
	if (spe_sample(b, line, len) || memmem(line, len, "PERF_RECORD_", 12))
		return;                        /* perf report -D record headers too */
	struct script_header h;
	struct script_frame f;
	if (script_parse_header(line, len, &h) || script_parse_one_line(line, len, false, &h, &f) ||
	    memmem(line, len, ": ", 2) || brstack_glued_ip(line + lead, len - lead) ||
	    count_in(line + lead, len - lead, "0123456789abcdef") == len - lead) {
		b->totals.samples++;            /* a sample whose branch stack is empty (or follows) */
		b->header_open = true;
		return;
	}
	td_bad_input(file, lineno, "not perf script branch-stack output; skipped");
}

void branches_end_input(struct branches *b)
{
	if (b->spe.pc[0] || b->spe.branch)
		spe_end_record(b);
	b->header_open = false;
}

/* ---- ranking ------------------------------------------------------------- */

static const char *likely_cause(const char *type, double rate, unsigned long no_info, unsigned long count)
{
	if (no_info == count)
		return "no prediction information (trace-based stack)";
	if (isnan(rate) || rate < 0.01)
		return "well predicted";
	if (!strcmp(type, "IND") || !strcmp(type, "IND_CALL"))
		return "indirect target varies: devirtualise or group calls by target";
	if (!strcmp(type, "RET") || !strcmp(type, "COND_RET"))
		return "return mispredicted: deep recursion or unbalanced call/return";
	if (rate >= 0.3 && rate <= 0.7)
		return "data-dependent condition (close to random): make it branch-free";
	if (rate > 0.7)
		return "predicted the wrong way: check layout and likely/unlikely hints";
	if (rate >= 0.05)
		return "partly predictable condition: sort or partition the data";
	return "occasional mispredictions";
}

/* "func+0x1f (dso)" or "func+0x1f" -> "func"; addresses stay as they are. */
static struct td_span function_of(const char *from)
{
	size_t n = strcspn(from, "(");
	if (n >= 2 && from[0] == '0' && from[1] == 'x')
		return (struct td_span){ "[unknown]", 9 };
	const char *plus = memrchr(from, '+', n);
	if (plus && plus[1] == '0' && plus[2] == 'x')
		n = (size_t)(plus - from);
	return (struct td_span){ from, n };
}

static int cmp_rows(const void *x, const void *y, void *arg)
{
	const struct br_row *a = x, *c = y;
	enum br_sort sort = *(const enum br_sort *)arg;
	if (sort == BR_SORT_RATE) {
		double ra = isnan(a->rate) ? -1 : a->rate, rc = isnan(c->rate) ? -1 : c->rate;
		if (ra != rc)
			return ra > rc ? -1 : 1;
	}
	if (sort != BR_SORT_COUNT && a->mispredicted != c->mispredicted)
		return a->mispredicted > c->mispredicted ? -1 : 1;
	if (a->count != c->count)
		return a->count > c->count ? -1 : 1;
	int k = strcmp(a->from, c->from);
	return k ? k : strcmp(a->to, c->to);
}

static double median(const uint32_t *hist, unsigned long n)
{
	if (!n)
		return NAN;
	unsigned long seen = 0;
	for (int i = 0; i < HIST; i++) {
		seen += hist[i];
		if (2 * seen >= n)
			return bucket_value(i);
	}
	return NAN;
}

int branches_rank(struct branches *b, enum br_group group, enum br_sort sort, unsigned long min_count,
		  const struct br_row **rows)
{
	struct td_intern *keys = td_intern_new();
	struct pair_stat *acc = td_calloc(b->nstat + 1, sizeof(*acc));
	size_t nacc = 0;
	for (size_t i = 0; i < b->nstat; i++) {
		const struct pair_stat *s = &b->stat[i];
		uint32_t from = s->from, to = group == BR_BY_PAIR ? s->to : NONE;
		if (group == BR_BY_FUNC) {
			struct td_span f = function_of(str(b, s->from));
			from = td_intern(b->strings, f.p, f.n);
		}
		uint32_t key[2] = { from, to };
		uint32_t id = td_intern(keys, (const char *)key, sizeof key);
		struct pair_stat *a = &acc[id];
		if (id == nacc) {
			nacc++;
			a->from = from;
			a->to = to;
			a->type = s->type;
		}
		a->count += s->count;
		a->mispredicted += s->mispredicted;
		a->no_info += s->no_info;
		a->not_taken += s->not_taken;
		a->cycles_n += s->cycles_n;
		a->cycles_sum += s->cycles_sum;
		for (int h = 0; h < HIST; h++)
			a->hist[h] += s->hist[h];
		if (a->type != s->type)
			a->type = a->type == NONE ? s->type : a->type;
	}
	free(b->rows);
	b->rows = td_calloc(nacc + 1, sizeof(*b->rows));
	int n = 0;
	for (size_t i = 0; i < nacc; i++) {
		const struct pair_stat *a = &acc[i];
		if (a->count < min_count)
			continue;
		struct br_row *r = &b->rows[n++];
		r->from = str(b, a->from);
		r->to = str(b, a->to);
		r->count = a->count;
		r->mispredicted = a->mispredicted;
		r->no_info = a->no_info;
		r->not_taken = a->not_taken;
		unsigned long judged = a->count - a->no_info;
		r->rate = judged ? (double)a->mispredicted / (double)judged : NAN;
		r->type = str(b, a->type);
		r->cycles_mean = a->cycles_n ? a->cycles_sum / (double)a->cycles_n : NAN;
		r->cycles_median = median(a->hist, a->cycles_n);
		r->cause = likely_cause(r->type, r->rate, a->no_info, a->count);
	}
	qsort_r(b->rows, (size_t)n, sizeof(*b->rows), cmp_rows, &sort);
	free(acc);
	td_intern_free(keys);
	*rows = b->rows;
	return n;
}
