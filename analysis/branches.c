#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "branches.h"
#include "common/diag.h"
#include "common/intern.h"
#include "common/grow.h"
#include "common/queue.h"
#include "parsers/elf_symbols.h"
#include "parsers/perf_script.h"
#include "parsers/spe.h"

#define NONE UINT32_MAX
#define SMALL 64           /* CYCLES values counted in place; larger ones in the cycles table */

struct pair_stat {
	uint32_t from, to, type;
	unsigned long count, mispredicted, no_info, not_taken;
	unsigned long spe_miss;            /* SPE branch-miss samples: misses without their hits */
	unsigned long cycles_n;
	double cycles_sum;
	uint32_t small[SMALL];             /* how often each CYCLES value below SMALL was seen */
};

/* Exact cycle distributions for values of SMALL and more: how often each
 * (pair, cycles) was seen, in an open-addressing table (key pair << 32 | cycles; cycles > 0, so 0 is free). */
struct cycles_table {
	uint64_t *key;
	unsigned long *n;
	size_t cap, used;
};

#define MAX_BINARIES 8
#define MAX_MAPS 64

struct binary {
	const char *path;
	struct elf_symbols *elf;
	unsigned long long base;
	bool has_base;
};

struct mapping {
	unsigned long long start, end, pgoff;
	int binary;
};

/* Pairs of two addresses in perf's spelling (brstack_plain_address), keyed
 * by their values: open addressing, linear probing, a power-of-two size. */
struct addr_slot {
	uint64_t from, to;
	uint32_t id;                   /* pair id + 1; 0: a free slot */
};

struct addr_pairs {
	struct addr_slot *slot;
	size_t cap, used;
	uint64_t last_from, last_to;   /* the pair seen last, for runs of one pair */
	uint32_t last_id;              /* NONE until a pair is seen */
};

struct branches {
	struct binary bin[MAX_BINARIES];
	int nbin;
	struct mapping map[MAX_MAPS];
	int nmap;
	struct td_intern *strings;
	struct td_intern *pairs;       /* pairs not of two plain addresses, by their "from/to" text */
	uint32_t *text_pair;           /* pair id of each text in pairs */
	struct addr_pairs addr;
	struct pair_stat *stat;
	size_t nstat, cap;
	struct br_totals totals;
	struct cycles_table cyc;
	bool header_open;          /* a sample header whose entries may follow on later lines */
	size_t split_min;          /* runs of lines this long are read by two threads */
	bool helper_kept_up;       /* the second thread read all of the last run's second half */
	struct spe_dump spe;
	struct helper *helper;     /* the second thread, from the first split on */
	struct br_row *rows;
	char *row_text;
	size_t row_text_len, row_text_cap;
};

struct branches *branches_new(void)
{
	struct branches *b = td_calloc(1, sizeof(*b));
	b->strings = td_intern_new();
	b->pairs = td_intern_new();
	b->addr.last_id = NONE;
	b->split_min = 256 * 1024;
	return b;
}

static void helper_stop(struct helper *h);

void branches_free(struct branches *b)
{
	if (!b)
		return;
	helper_stop(b->helper);
	td_intern_free(b->strings);
	td_intern_free(b->pairs);
	free(b->text_pair);
	free(b->addr.slot);
	free(b->stat);
	free(b->cyc.key);
	free(b->cyc.n);
	free(b->rows);
	free(b->row_text);
	free(b);
}

const struct br_totals *branches_totals(const struct branches *b) { return &b->totals; }

static uint32_t intern_span(struct branches *b, struct td_span s) { return td_intern(b->strings, s.p, s.n); }
static const char *str(const struct branches *b, uint32_t id) { return id == NONE ? "" : td_intern_str(b->strings, id, NULL); }

void branches_add_binary(struct branches *b, const char *path, struct elf_symbols *e, unsigned long long base,
			 bool has_base)
{
	if (b->nbin < MAX_BINARIES)
		b->bin[b->nbin++] = (struct binary){ path, e, base, has_base };
}

static const char *base_name(const char *p)
{
	const char *slash = strrchr(p, '/');
	return slash ? slash + 1 : p;
}

/* "PERF_RECORD_MMAP2 pid/tid: [0xstart(0xlen) @ pgoff ...]: r-xp path" (MMAP: "@ pgoff]: x path") */
static void note_mapping(struct branches *b, const char *line, size_t len)
{
	char buf[1024];
	if (!b->nbin || len >= sizeof buf)
		return;
	memcpy(buf, line, len);
	buf[len] = '\0';
	const char *open = strchr(buf, '[');
	unsigned long long start, size, pgoff;
	if (!open || sscanf(open, "[%llx(%llx) @ %llx", &start, &size, &pgoff) != 3)
		return;
	const char *path = strrchr(buf, ' ');
	if (!path)
		return;
	path++;
	for (int i = 0; i < b->nbin && b->nmap < MAX_MAPS; i++)
		if (!strcmp(path, b->bin[i].path) || !strcmp(base_name(path), base_name(b->bin[i].path))) {
			b->map[b->nmap++] = (struct mapping){ start, start + size, pgoff, i };
			return;
		}
}

/* "0x55b978933dc0" -> "main+0x1c" when a given binary covers it. */
/* key's "sym+0xoff" in e, interned whole (C++ names run to kilobytes);
 * id itself when no symbol covers key. */
static uint32_t symbol_text(struct branches *b, const struct elf_symbols *e, uint64_t key, uint32_t id)
{
	uint64_t start;
	const char *sym = elf_symbols_find(e, key, &start);
	if (!sym)
		return id;
	char off[24];
	size_t ns = strlen(sym), no = (size_t)snprintf(off, sizeof off, "+0x%llx", (unsigned long long)(key - start));
	char *text = td_malloc(ns + no + 1);
	memcpy(text, sym, ns);
	memcpy(text + ns, off, no + 1);
	uint32_t named = td_intern(b->strings, text, ns + no);
	free(text);
	return named;
}

static uint32_t symbolize(struct branches *b, uint32_t id)
{
	const char *text = str(b, id);
	if (text[0] != '0' || text[1] != 'x' || !b->nbin)
		return id;
	char *end;
	unsigned long long addr = strtoull(text, &end, 16);
	if (*end)
		return id;
	for (int i = b->nmap; i-- > 0;)        /* the latest mapping of the address */
		if (addr >= b->map[i].start && addr < b->map[i].end) {
			const struct binary *bin = &b->bin[b->map[i].binary];
			return symbol_text(b, bin->elf, elf_symbols_key(bin->elf, addr, b->map[i].start, b->map[i].pgoff), id);
		}
	for (int i = 0; i < b->nbin; i++) {
		const struct binary *bin = &b->bin[i];
		if (elf_symbols_is_pie(bin->elf) && !bin->has_base)
			continue;
		uint64_t key = elf_symbols_key_of_vaddr(bin->elf, bin->has_base ? addr - bin->base : addr);
		uint32_t named = addr >= bin->base ? symbol_text(b, bin->elf, key, id) : id;
		if (named != id)
			return named;
	}
	return id;
}

/* strspn for text that is not NUL-terminated. */
static size_t count_in(const char *p, size_t n, const char *set)
{
	size_t i = 0;
	while (i < n && strchr(set, p[i]) && p[i])
		i++;
	return i;
}


static size_t cycles_slot(const struct cycles_table *c, uint64_t key)
{
	size_t i = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & (c->cap - 1);
	while (c->key[i] && c->key[i] != key)
		i = (i + 1) & (c->cap - 1);
	return i;
}

static void cycles_add(struct cycles_table *c, uint32_t pair, unsigned long cycles, unsigned long times)
{
	if (2 * (c->used + 1) > c->cap) {
		struct cycles_table old = *c;
		c->cap = old.cap ? old.cap * 2 : 4096;
		c->key = td_calloc(c->cap, sizeof(*c->key));
		c->n = td_calloc(c->cap, sizeof(*c->n));
		for (size_t i = 0; i < old.cap; i++)
			if (old.key[i]) {
				size_t j = cycles_slot(c, old.key[i]);
				c->key[j] = old.key[i];
				c->n[j] = old.n[i];
			}
		free(old.key);
		free(old.n);
	}
	uint64_t key = (uint64_t)pair << 32 | (uint32_t)cycles;
	size_t i = cycles_slot(c, key);
	if (!c->key[i]) {
		c->key[i] = key;
		c->used++;
	}
	c->n[i] += times;
}

/* A new pair's statistics, from and to interned: ids in order of first sighting. */
static uint32_t new_pair(struct branches *b, struct td_span from, struct td_span to)
{
	uint32_t id = (uint32_t)b->nstat;
	TD_ALLOC_GROW(b->stat, (size_t)id + 1, b->cap);
	memset(&b->stat[id], 0, sizeof(*b->stat));
	b->stat[id].from = intern_span(b, from);
	b->stat[id].to = intern_span(b, to);
	b->stat[id].type = NONE;
	b->nstat = id + 1;
	return id;
}

static size_t addr_slot_of(const struct addr_pairs *a, uint64_t from, uint64_t to)
{
	uint64_t h = (from * 0x9E3779B97F4A7C15ULL ^ to) * 0xC2B2AE3D27D4EB4FULL;
	size_t i = (size_t)(h >> 32) & (a->cap - 1);
	while (a->slot[i].id && (a->slot[i].from != from || a->slot[i].to != to))
		i = (i + 1) & (a->cap - 1);
	return i;
}

static void addr_grow(struct addr_pairs *a)
{
	struct addr_pairs old = *a;
	a->cap = old.cap ? old.cap * 2 : 1024;
	a->slot = td_calloc(a->cap, sizeof(*a->slot));
	for (size_t i = 0; i < old.cap; i++)
		if (old.slot[i].id)
			a->slot[addr_slot_of(a, old.slot[i].from, old.slot[i].to)] = old.slot[i];
	free(old.slot);
}

/* The pair of two plain addresses (values from, to; text as printed). */
static uint32_t addr_pair(struct branches *b, uint64_t from, uint64_t to, struct td_span from_text, struct td_span to_text)
{
	struct addr_pairs *a = &b->addr;
	if (a->last_id != NONE && a->last_from == from && a->last_to == to)
		return a->last_id;
	if (2 * (a->used + 1) > a->cap)
		addr_grow(a);
	struct addr_slot *s = &a->slot[addr_slot_of(a, from, to)];
	if (!s->id) {
		*s = (struct addr_slot){ from, to, new_pair(b, from_text, to_text) + 1 };
		a->used++;
	}
	a->last_from = from;
	a->last_to = to;
	a->last_id = s->id - 1;
	return a->last_id;
}

/* The pair of any other from and to, keyed by the "from/to" text as printed. */
static uint32_t text_pair(struct branches *b, struct td_span from, struct td_span to)
{
	char buf[512], *built = NULL;
	const char *key = from.p;
	size_t n = from.n + 1 + to.n;
	if (to.p != from.p + from.n + 1) {          /* built, not printed (SPE): whole, never cut */
		char *k = n <= sizeof buf ? buf : (built = td_malloc(n));
		memcpy(k, from.p, from.n);
		k[from.n] = '/';
		memcpy(k + from.n + 1, to.p, to.n);
		key = k;
	}
	uint32_t known = td_intern_count(b->pairs);
	uint32_t t = td_intern(b->pairs, key, n);
	free(built);
	if (t == known) {
		if ((t & (t - 1)) == 0)              /* 0, 1, 2, 4, 8 ...: full, grow */
			b->text_pair = td_realloc(b->text_pair, (t ? 2 * (size_t)t : 1) * sizeof(*b->text_pair));
		b->text_pair[t] = new_pair(b, from, to);
	}
	return b->text_pair[t];
}

/* The pair's id: plain addresses by value, anything else by text. */
static uint32_t pair(struct branches *b, struct td_span from, struct td_span to)
{
	uint64_t f, t;
	if (brstack_plain_address(from, &f) && brstack_plain_address(to, &t))
		return addr_pair(b, f, t, from, to);
	return text_pair(b, from, to);
}

/* An entry of pair id: counts, prediction and cycles. */
static void tally(struct branches *b, uint32_t id, enum br_prediction pred, unsigned long cycles)
{
	struct pair_stat *s = &b->stat[id];
	s->count++;
	s->mispredicted += pred == BR_MISPREDICTED;
	s->no_info += pred == BR_NO_INFO;
	b->totals.mispredicted += pred == BR_MISPREDICTED;
	b->totals.no_info += pred == BR_NO_INFO;
	if (cycles) {
		s->cycles_n++;
		s->cycles_sum += (double)cycles;
		if (cycles < SMALL && s->small[cycles] < UINT32_MAX)
			s->small[cycles]++;
		else
			cycles_add(&b->cyc, id, cycles, 1);
	}
}

static void count_entry(struct branches *b, const struct br_entry *e, bool spe_miss)
{
	b->totals.entries++;
	if (e->empty) {
		b->totals.empty++;
		return;
	}
	uint32_t id = pair(b, e->from, e->to);
	tally(b, id, e->pred, e->cycles);
	struct pair_stat *s = &b->stat[id];
	s->spe_miss += spe_miss;
	s->not_taken += e->not_taken;
	if (s->type == NONE && e->type.n)
		s->type = intern_span(b, e->type);
}

/* An entry brstack_scan_plain() read: taken, of no known type. */
static void count_plain(struct branches *b, const struct br_plain *e)
{
	b->totals.entries++;
	if (e->from == 0 && e->to == 0) {
		b->totals.empty++;
		return;
	}
	struct td_span from = { e->text, e->from_n }, to = { e->text + e->from_n + 1, e->to_n };
	tally(b, addr_pair(b, e->from, e->to, from, to), (enum br_prediction)e->pred, e->cycles);
}

/* ---- perf report -D: ARM SPE records (parsers/spe.h) ------------------ */

/* A record with a branch operation and its PC is one branch; the total
 * latency (LAT n TOT) stands in for the cycles. */
static void spe_record(struct branches *b, const struct spe_record *r)
{
	b->totals.spe_records++;
	if (!r->branch || !r->pc[0])
		return;
	struct br_entry e;
	memset(&e, 0, sizeof e);
	e.from = (struct td_span){ r->pc, strlen(r->pc) };
	e.to = r->tgt[0] ? (struct td_span){ r->tgt, strlen(r->tgt) } : (struct td_span){ "[unknown]", 9 };
	e.pred = r->mispred ? BR_MISPREDICTED : BR_PREDICTED;
	e.not_taken = r->not_taken;
	e.type = (struct td_span){ r->type, strlen(r->type) };
	e.cycles = r->lat_total;
	count_entry(b, &e, false);
	b->totals.samples++;
}

static bool spe_packet(struct branches *b, const char *line, size_t len)
{
	struct spe_record done;
	switch (spe_dump_line(&b->spe, line, len, &done)) {
	case SPE_NOT_DUMP:
		return false;
	case SPE_BAD_PACKET:
		b->totals.spe_bad_packets++;
		break;
	case SPE_RECORD_END:
		spe_record(b, &done);
		break;
	case SPE_PACKET:
		break;
	}
	return true;
}

/* ---- perf script lines -------------------------------------------------- */

/* The sample's ip as perf prints it ("%16lx": hex, no 0x, right-aligned in
 * 16 columns, so with gap blanks before it): a number too long, too
 * lettered or too padded to be a pid or tid. */
static bool is_sample_ip(const char *p, size_t n, size_t gap)
{
	bool letter = false;
	for (size_t i = 0; i < n; i++) {
		bool digit = p[i] >= '0' && p[i] <= '9', hex = p[i] >= 'a' && p[i] <= 'f';
		if (!digit && !hex)
			return false;
		letter |= hex;
	}
	return n > 0 && (n >= 8 || letter || gap + n >= 16);
}

/* Entries on a line, counted; malformed ones reported and skipped. Returns
 * how many tokens were entries (good or bad). */
static int line_entries(struct branches *b, const char *line, size_t len, const char *file, unsigned long lineno,
			bool *first_is_entry)
{
	int found = 0, token = 0;
	bool after_ip = false;
	*first_is_entry = false;
	for (size_t i = 0; i < len; token++) {
		size_t gap_start = i;
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		size_t start = i;
		while (i < len && line[i] != ' ' && line[i] != '\t')
			i++;
		if (i == start)
			break;
		const char *tok = line + start;
		size_t n = i - start;
		/* an entry starts "0x"; only a token with the field before it
		 * glued on (brstack.h) needs a look */
		size_t glued = 0;
		if (!(tok[0] == '0' && n > 1 && tok[1] == 'x') && memchr(tok, '/', n)) {
			if (token == 0 && gap_start == 0)
				glued = brstack_glued_ip_padded(tok, n, start);
			if (!glued)
				glued = brstack_glued_ip(tok, n);
			if (!glued)
				glued = brstack_glued_dso(tok, n);
			if (!glued && after_ip && found == 0)
				glued = brstack_glued_sym(tok, n);
		}
		after_ip = is_sample_ip(tok, n, start - gap_start);
		if (glued)
			tok += glued, n -= glued;
		struct br_entry e;
		const char *why = NULL;
		enum br_parse r = brstack_parse_entry(tok, n, &e, &why);
		if (r == BR_NOT_ENTRY)
			continue;
		*first_is_entry |= token == 0 && !glued;
		found++;
		if (r == BR_OK)
			count_entry(b, &e, false);
		else
			td_bad_input(file, lineno, "'%.*s': %s; entry skipped", (int)(n > 80 ? 80 : n), tok, why);
	}
	return found;
}

/* SPE's synthesized samples: a branch-miss counts as a mispredicted branch
 * at its PC (the target is not in the sample); other events are skipped. */
static bool spe_sample(struct branches *b, const char *line, size_t len)
{
	size_t after;
	const char *ev = spe_sample_event(line, len, &after);
	if (!ev)
		return false;
	if (strcmp(ev, "branch-miss")) {
		b->totals.skipped_events++;
		return true;
	}
	struct br_entry e;
	memset(&e, 0, sizeof e);
	e.from = spe_sample_pc(line, len, after);
	if (!e.from.n)
		e.from = (struct td_span){ "[unknown]", 9 };
	e.to = (struct td_span){ "[unknown]", 9 };
	e.pred = BR_MISPREDICTED;
	count_entry(b, &e, true);
	b->totals.samples++;
	return true;
}

/* ---- lines of plain entries only ---------------------------------------- */

#define LINE_ENTRIES 64               /* BRBE's deepest stack; a line with more takes the general path */

struct plain_line {
	int n;
	bool first_is_entry;              /* no sample header before the entries */
	struct br_plain e[LINE_ENTRIES];
};

/* A line whose every token is an entry of the common shape
 * (brstack_scan_plain) or cannot be an entry at all (fewer than three '/'),
 * with one entry at least: its entries in *pl. False for any other line,
 * which line_entries() and the rest of branches_line() then read. */
static bool plain_line(const char *line, size_t len, struct plain_line *pl)
{
	pl->n = 0;
	pl->first_is_entry = false;
	for (size_t i = 0, token = 0;; token++) {
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i == len)
			return pl->n > 0;
		if (line[i] == '0') {
			if (pl->n == LINE_ENTRIES)
				return false;
			size_t k = brstack_scan_plain(line + i, len - i, &pl->e[pl->n]);
			if (k) {
				pl->first_is_entry |= token == 0;
				pl->n++;
				i += k;
				continue;
			}
		}
		for (int slashes = 0; i < len && line[i] != ' ' && line[i] != '\t'; i++)
			if (line[i] == '/' && ++slashes == 3)
				return false;   /* FROM/TO/PRED/...: an entry of another shape */
	}
}

static void count_plain_line(struct branches *b, const struct plain_line *pl)
{
	for (int i = 0; i < pl->n; i++)
		count_plain(b, &pl->e[i]);
	/* entries alone on a line continue the sample above (-g with brstack) */
	if (!(pl->first_is_entry && b->header_open))
		b->totals.samples++;
	b->header_open = false;
}

void branches_add_sample(struct branches *b, const struct br_entry *entries, size_t n)
{
	b->totals.samples++;
	for (size_t i = 0; i < n; i++)
		count_entry(b, &entries[i], false);
}

void branches_line(struct branches *b, const char *line, size_t len, const char *file, unsigned long lineno)
{
	size_t lead = 0;
	while (lead < len && line[lead] == ' ')
		lead++;
	if (spe_packet(b, line, len))
		return;
	if (lead >= len || line[0] == '#' || (line[0] == '.' && (len == 1 || line[1] == ' ')))
		return;                        /* blank, comment, perf report -D framing */
	if (line[0] == '\t')
		return;                        /* a callchain frame: the entries come after */
	struct plain_line pl;
	if (plain_line(line, len, &pl)) {
		count_plain_line(b, &pl);
		return;
	}
	bool first_is_entry;
	int n = line_entries(b, line, len, file, lineno, &first_is_entry);
	if (n > 0) {
		/* entries alone on a line continue the sample above (-g with brstack) */
		if (!(first_is_entry && b->header_open))
			b->totals.samples++;
		b->header_open = false;
		return;
	}
	if (memmem(line, len, "PERF_RECORD_MMAP", 16)) {
		note_mapping(b, line, len);    /* --show-mmap-events: where binaries were loaded */
		return;
	}
	if (spe_sample(b, line, len) || memmem(line, len, "PERF_RECORD_", 12))
		return;                        /* other records; perf report -D record headers */
	struct script_header h;
	struct script_frame f;
	/* the sample's ip alone, or first and padded to perf's 16 columns with
	 * more fields after it: "     7f06d6a21e00 [unknown] (/usr/lib/ld.so)" */
	size_t ip = count_in(line + lead, len - lead, "0123456789abcdef");
	bool ip_first = ip > 0 && (lead + ip == len || (line[lead + ip] == ' ' && lead + ip >= 16));
	if (script_parse_header(line + lead, len - lead, &h) || script_parse_one_line(line, len, false, &h, &f) ||
	    memmem(line, len, ": ", 2) || brstack_glued_ip(line + lead, len - lead) || ip_first) {
		b->totals.samples++;            /* a sample whose branch stack is empty (or follows) */
		b->header_open = true;
		return;
	}
	td_bad_input(file, lineno, "not perf script branch-stack output; skipped");
}

/* ---- runs of whole lines, on two threads ---------------------------------- */

/* The length of the line at p (CR dropped) in *len; the bytes it takes. */
static size_t next_line(const char *p, size_t n, size_t *len)
{
	const char *nl = memchr(p, '\n', n);
	size_t k = nl ? (size_t)(nl - p) : n;
	*len = k && p[k - 1] == '\r' ? k - 1 : k;
	return k + (nl != NULL);
}

static unsigned long read_lines(struct branches *b, const char *p, size_t n, const char *file, unsigned long lineno)
{
	unsigned long lines = 0;
	for (size_t at = 0, len; at < n; lines++) {
		size_t k = next_line(p + at, n - at, &len);
		branches_line(b, p + at, len, file, lineno + lines);
		at += k;
	}
	return lines;
}

/* A line branches_line() passes over without a trace: spaces only, a
 * comment or a callchain frame. */
static bool quiet_line(const char *line, size_t len)
{
	size_t lead = 0;
	while (lead < len && line[lead] == ' ')
		lead++;
	return lead == len || line[0] == '#' || line[0] == '\t';
}

/* The second half of a run, read by a second thread into tables of its own
 * for as long as every line is quiet or plain (plain_line): such lines
 * depend on nothing before them but whether a sample header is open. The
 * first other line is left, with the rest, to the first thread. */
struct half {
	struct branches *b;
	const char *p;
	size_t n, done;            /* done: the bytes of the lines read */
	unsigned long lines;
	bool entries;              /* a line with entries was read */
	bool continues;            /* the first such line had no sample header */
};

static void *read_half(void *arg)
{
	struct half *h = arg;
	struct plain_line pl;
	for (size_t len; h->done < h->n; h->lines++) {
		const char *line = h->p + h->done;
		size_t k = next_line(line, h->n - h->done, &len);
		if (!quiet_line(line, len)) {
			if (line[0] == '.' || !plain_line(line, len, &pl))
				break;             /* SPE dumps and all else: in order, on the first thread */
			if (!h->entries)
				h->continues = pl.first_is_entry;
			h->entries = true;
			count_plain_line(h->b, &pl);
		}
		h->done += k;
	}
	return NULL;
}

/* CYCLES value k seen n more times for pair id, in the small counts as far as they go. */
static void add_small(struct branches *b, uint32_t id, unsigned k, unsigned long n)
{
	uint32_t *c = &b->stat[id].small[k];
	unsigned long room = UINT32_MAX - *c;
	*c += (uint32_t)(n < room ? n : room);
	if (n > room)
		cycles_add(&b->cyc, id, k, n - room);
}

/* The half's tables added to b's, its pairs after b's own in the order the
 * half first saw them: as if b had read its lines itself. */
static void merge_half(struct branches *b, const struct half *h)
{
	const struct branches *w = h->b;
	uint32_t *id = td_calloc(w->nstat + 1, sizeof(*id));
	for (size_t i = 0; i < w->nstat; i++) {
		const struct pair_stat *ws = &w->stat[i];
		size_t fn, tn;
		const char *f = td_intern_str(w->strings, ws->from, &fn), *t = td_intern_str(w->strings, ws->to, &tn);
		id[i] = pair(b, (struct td_span){ f, fn }, (struct td_span){ t, tn });
		struct pair_stat *s = &b->stat[id[i]];
		s->count += ws->count;
		s->mispredicted += ws->mispredicted;
		s->no_info += ws->no_info;
		s->cycles_n += ws->cycles_n;
		s->cycles_sum += ws->cycles_sum;
		for (unsigned k = 1; k < SMALL; k++)
			if (ws->small[k])
				add_small(b, id[i], k, ws->small[k]);
	}
	for (size_t i = 0; i < w->cyc.cap; i++)
		if (w->cyc.key[i])
			cycles_add(&b->cyc, id[w->cyc.key[i] >> 32], (uint32_t)w->cyc.key[i], w->cyc.n[i]);
	free(id);
	b->totals.entries += w->totals.entries;
	b->totals.empty += w->totals.empty;
	b->totals.mispredicted += w->totals.mispredicted;
	b->totals.no_info += w->totals.no_info;
	b->totals.samples += w->totals.samples - (h->continues && b->header_open);
	if (h->entries)
		b->header_open = false;
}

/* The second thread: halves handed to it through one queue, handed back
 * read through another (td_queue; one half in flight at a time). It runs
 * from the first long run to branches_free(); when it cannot be started,
 * every run is read on the calling thread, with the same result. */
struct helper {
	pthread_t thread;
	struct td_queue todo, done;
	bool running;
};

static void *helper_main(void *arg)
{
	struct helper *hp = arg;
	struct half *h;
	while ((h = td_queue_pop(&hp->todo))) {
		read_half(h);
		td_queue_push(&hp->done, h);
	}
	return NULL;
}

/* The helper, started at the first call; NULL if it could not be. */
static struct helper *helper_of(struct branches *b)
{
	if (b->helper)
		return b->helper->running ? b->helper : NULL;
	struct helper *hp = b->helper = td_calloc(1, sizeof(*hp));
	td_queue_init(&hp->todo, 1);
	td_queue_init(&hp->done, 1);
	pthread_attr_t attr;
	if (pthread_attr_init(&attr) != 0)
		return NULL;
	pthread_attr_setstacksize(&attr, 512 * 1024);   /* shallow; a smaller stack starts faster */
	hp->running = pthread_create(&hp->thread, &attr, helper_main, hp) == 0;
	pthread_attr_destroy(&attr);
	return hp->running ? hp : NULL;
}

static void helper_stop(struct helper *hp)
{
	if (!hp)
		return;
	td_queue_close(&hp->todo);
	if (hp->running)
		pthread_join(hp->thread, NULL);
	td_queue_destroy(&hp->todo);
	td_queue_destroy(&hp->done);
	free(hp);
}

unsigned long branches_lines(struct branches *b, const char *p, size_t n, const char *file, unsigned long lineno)
{
	const char *nl = n >= b->split_min ? memchr(p + n / 2, '\n', n - n / 2) : NULL;
	size_t mid = nl ? (size_t)(nl - p) + 1 : n;
	struct helper *hp = mid < n ? helper_of(b) : NULL;
	if (!hp)
		return read_lines(b, p, n, file, lineno);
	struct half h = { .b = branches_new(), .p = p + mid, .n = n - mid };
	td_queue_push(&hp->todo, &h);
	unsigned long lines = read_lines(b, p, mid, file, lineno);
	td_queue_pop(&hp->done);          /* h, read */
	b->helper_kept_up = h.done == h.n;
	merge_half(b, &h);
	branches_free(h.b);
	lines += h.lines;
	return lines + read_lines(b, h.p + h.done, h.n - h.done, file, lineno + lines);
}

void branches_split_min(struct branches *b, size_t bytes) { b->split_min = bytes; }

/* Long runs spare thread starts and merges; short ones stay in the cache
 * between read() and the parser, which is what counts on one thread. */
size_t branches_run_bytes(const struct branches *b) { return b->helper_kept_up ? 4u << 20 : 1u << 20; }

void branches_end_input(struct branches *b)
{
	struct spe_record done;
	if (spe_dump_flush(&b->spe, &done))
		spe_record(b, &done);
	b->header_open = false;
}

/* ---- ranking ------------------------------------------------------------- */

static bool type_is(const char *type, const char *a, const char *b) { return !strcmp(type, a) || (b && !strcmp(type, b)); }

/* A heuristic from the branch type and the rate, in the order a reader
 * would check them. */
static const char *likely_cause(const char *type, double rate, unsigned long judged, const struct pair_stat *a)
{
	if (a->spe_miss == a->count)
		return "SPE branch-miss samples: a hot misprediction site (no rate without the hits)";
	if (a->no_info == a->count)
		return "no prediction information (trace-based stack)";
	if (judged < BR_CAUSE_MIN_JUDGED)
		return BR_CAUSE_TOO_FEW;
	if (isnan(rate) || rate < 0.01)
		return "well predicted";
	if (!strncmp(type, "IND", 3))
		return "indirect target varies: devirtualise or sort the objects by type";
	if (type_is(type, "RET", "COND_RET"))
		return "return stack overflow: deep recursion or unbalanced call/return";
	if (type_is(type, "CALL", "UNCOND"))
		return "direct branch mispredicted: BTB misses from a large or cold code footprint";
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

/* Names in address order when both are 0x addresses (perf prints no
 * leading zeros: the shorter is the smaller), else byte order. */
static int cmp_names(const char *a, const char *c)
{
	if (a[0] == '0' && a[1] == 'x' && c[0] == '0' && c[1] == 'x') {
		size_t la = strspn(a + 2, "0123456789abcdefABCDEF"), lc = strspn(c + 2, "0123456789abcdefABCDEF");
		if (la != lc)
			return la < lc ? -1 : 1;
	}
	return strcmp(a, c);
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
	int k = cmp_names(a->from, c->from);
	return k ? k : cmp_names(a->to, c->to);
}

struct cycles_count {
	uint32_t row, cycles;
	unsigned long n;
};

static int cmp_cycles(const void *x, const void *y)
{
	const struct cycles_count *a = x, *c = y;
	if (a->row != c->row)
		return a->row < c->row ? -1 : 1;
	return a->cycles < c->cycles ? -1 : a->cycles > c->cycles;
}

/* Exact medians of the CYCLES values of every row: the (pair, cycles)
 * counts gathered per row, sorted, and walked to the middle. */
static void medians(const struct branches *b, const uint32_t *row_of_pair, const struct pair_stat *acc, double *med)
{
	const struct cycles_table *c = &b->cyc;
	size_t n = 0, cap = c->used + 1;
	for (size_t p = 0; p < b->nstat; p++)
		for (int k = 1; k < SMALL; k++)
			cap += b->stat[p].small[k] != 0;
	struct cycles_count *v = td_calloc(cap, sizeof(*v));
	for (size_t p = 0; p < b->nstat; p++)
		for (int k = 1; k < SMALL; k++)
			if (b->stat[p].small[k])
				v[n++] = (struct cycles_count){ row_of_pair[p], (uint32_t)k, b->stat[p].small[k] };
	for (size_t i = 0; i < c->cap; i++)
		if (c->key[i])
			v[n++] = (struct cycles_count){ row_of_pair[c->key[i] >> 32], (uint32_t)c->key[i], c->n[i] };
	qsort(v, n, sizeof(*v), cmp_cycles);
	for (size_t i = 0; i < n;) {
		uint32_t row = v[i].row;
		unsigned long total = acc[row].cycles_n, lo = (total + 1) / 2, hi = total / 2 + 1, seen = 0;
		double at_lo = NAN, at_hi = NAN;
		for (; i < n && v[i].row == row; i++) {
			unsigned long before = seen;
			seen += v[i].n;
			if (before < lo && lo <= seen)
				at_lo = v[i].cycles;
			if (before < hi && hi <= seen)
				at_hi = v[i].cycles;
		}
		med[row] = total % 2 ? at_lo : (at_lo + at_hi) / 2;
	}
	free(v);
}

int branches_rank(struct branches *b, enum br_group group, enum br_sort sort, unsigned long min_count,
		  const struct br_row **rows)
{
	struct td_intern *keys = td_intern_new();
	struct pair_stat *acc = td_calloc(b->nstat + 1, sizeof(*acc));
	uint32_t *row_of_pair = td_calloc(b->nstat + 1, sizeof(*row_of_pair));
	uint32_t mixed = td_intern(b->strings, "mixed", 5);
	size_t nacc = 0;
	for (size_t i = 0; i < b->nstat; i++) {
		const struct pair_stat *s = &b->stat[i];
		bool pairs = group == BR_BY_PAIR || group == BR_BY_SYMBOL;
		uint32_t from = symbolize(b, s->from), to = pairs ? symbolize(b, s->to) : NONE;
		if (group == BR_BY_FUNC) {
			struct td_span f = function_of(str(b, from));
			from = td_intern(b->strings, f.p, f.n);
		}
		uint32_t key[2] = { from, to };
		uint32_t id = td_intern(keys, (const char *)key, sizeof key);
		row_of_pair[i] = id;
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
		a->spe_miss += s->spe_miss;
		a->cycles_n += s->cycles_n;
		a->cycles_sum += s->cycles_sum;
		if (s->type != NONE && a->type != s->type)
			a->type = a->type == NONE ? s->type : mixed;
	}
	double *med = td_calloc(nacc + 1, sizeof(*med));
	for (size_t i = 0; i < nacc; i++)
		med[i] = NAN;
	medians(b, row_of_pair, acc, med);
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
		/* judged: entries with a P or M flag; SPE miss samples have no hits beside them */
		unsigned long judged = a->count - a->no_info - a->spe_miss;
		r->rate = judged ? (double)(a->mispredicted - a->spe_miss) / (double)judged : NAN;
		r->type = str(b, a->type);
		r->cycles_mean = a->cycles_n ? a->cycles_sum / (double)a->cycles_n : NAN;
		r->cycles_median = med[i];
		r->cause = likely_cause(r->type, r->rate, judged, a);
	}
	qsort_r(b->rows, (size_t)n, sizeof(*b->rows), cmp_rows, &sort);
	free(med);
	free(row_of_pair);
	free(acc);
	td_intern_free(keys);
	*rows = b->rows;
	return n;
}
