#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/bytes.h"
#include "common/diag.h"
#include "common/input.h"
#include "common/radix.h"
#include "common/sorted.h"
#include "common/grow.h"
#include "kallsyms.h"

/* A line as read. */
struct ksym {
	uint64_t start, end;
	uint32_t name;               /* offset into names */
	uint32_t module;             /* 0: kernel proper, else offset of the module's name */
};

/* A symbol as kept, 16 bytes (a kernel lists over a hundred thousand):
 * start .. start + len, or with len LEN_WIDE up to its entry in wide. */
struct kept {
	uint64_t start;
	uint32_t name, len;
};
#define LEN_WIDE UINT32_MAX

struct kallsyms {
	struct ksym *sym;            /* while loading */
	size_t n, cap;
	struct kept *kept;           /* kernel proper, then each module, each in address order */
	struct kwide { uint64_t at; uint64_t end; } *wide;   /* by at */
	size_t nwide, wide_cap;
	char *names;
	size_t names_len, names_cap;
	struct ktable { uint32_t module; size_t first, end; } *tables;   /* kernel proper, then each module */
	size_t ntables;
	uint64_t text, stext;        /* _text and _stext: perf's relocation reference */
	bool has_text, has_stext;
};

static uint32_t add_name(struct kallsyms *k, const char *s, size_t n)
{
	return (uint32_t)td_append_text(&k->names, &k->names_len, &k->names_cap, s, n);
}

static bool parse_line(struct kallsyms *k, const char *p, size_t len, uint32_t *last_module)
{
	const char *end = p + len;
	uint64_t addr = 0;
	int digits = 0;
	for (; p < end; p++, digits++) {
		unsigned c = (unsigned char)*p, v = c - '0', lower = (c | 0x20) - 'a';
		if (v > 9 && lower > 5)
			break;
		addr = addr << 4 | (v <= 9 ? v : lower + 10);
	}
	if (!digits || digits > 16 || end - p < 4 || p[0] != ' ' || p[2] != ' ')
		return false;
	char type = p[1];
	char up = (char)toupper((unsigned char)type);
	if (up != 'T' && up != 'W' && up != 'D' && up != 'B')
		return true;
	const char *name = p + 3, *name_end = name;
	while (name_end < end && *name_end != '\t' && *name_end != ' ')
		name_end++;
	if (name_end == name)
		return false;
	if (name[0] == '$')
		return true;                 /* ARM module mapping symbols: perf skips them */
	size_t nlen = (size_t)(name_end - name);
	if (nlen == 5 && memcmp(name, "_text", 5) == 0)
		k->text = addr, k->has_text = true;
	else if (nlen == 6 && memcmp(name, "_stext", 6) == 0)
		k->stext = addr, k->has_stext = true;
	uint32_t module = 0;
	const char *m = memchr(name_end, '[', (size_t)(end - name_end));
	if (m) {
		const char *me = memchr(m, ']', (size_t)(end - m));
		if (!me)
			return false;
		size_t mn = (size_t)(me - m - 1);
		if (*last_module && strlen(k->names + *last_module) == mn && memcmp(k->names + *last_module, m + 1, mn) == 0)
			module = *last_module;
		else
			module = *last_module = add_name(k, m + 1, mn);
	}
	TD_ALLOC_GROW(k->sym, k->n + 1, k->cap);
	k->sym[k->n++] = (struct ksym){ addr, addr, add_name(k, name, (size_t)(name_end - name)), module };
	return true;
}

/* What perf 6.1 makes of kallsyms, all sizes being 0: in address order,
 * a symbol reaches to the next one, or to the end of the page after its
 * own where kernel proper and modules meet (and for the last one); that
 * leaves, of several symbols at one address, only the last listed with a
 * size, and perf keeps the sized one. Then one table per module. */
static void fix_up(struct kallsyms *k)
{
	/* lines come in order: equal addresses stay in line order */
	td_radix_sort(k->sym, k->n, sizeof(*k->sym), offsetof(struct ksym, start), sizeof(uint64_t));
	size_t w = 0;
	for (size_t i = 0; i < k->n; i++) {
		if (w > 0 && k->sym[w - 1].start == k->sym[i].start)
			w--;                     /* a later line at the same address wins */
		k->sym[w++] = k->sym[i];
	}
	k->n = w;
	for (size_t i = 0; i < k->n; i++) {
		struct ksym *s = &k->sym[i];
		bool page_end = i + 1 == k->n || (s->module == 0) != (k->sym[i + 1].module == 0);
		s->end = page_end ? ((s->start + 4095) & ~4095ULL) + 4096 : k->sym[i + 1].start;
	}
	/* kernel proper first, then module by module, each in address order */
	td_radix_sort(k->sym, k->n, sizeof(*k->sym), offsetof(struct ksym, module), sizeof(uint32_t));
	for (size_t i = 0; i < k->n; i++) {
		if (i == 0 || k->sym[i].module != k->sym[i - 1].module) {
			k->tables = td_realloc(k->tables, (k->ntables + 1) * sizeof(*k->tables));
			k->tables[k->ntables++] = (struct ktable){ k->sym[i].module, i, i };
		}
		k->tables[k->ntables - 1].end = i + 1;
	}
	/* kept in 16 bytes each, in the room the lines took (ends past 4 GiB
	 * from their start, such as per-CPU data's, aside) */
	k->kept = (struct kept *)k->sym;
	for (size_t i = 0; i < k->n; i++) {
		struct ksym s = k->sym[i];   /* read before the room it lies in is written */
		bool wide = s.end - s.start >= LEN_WIDE;
		if (wide) {
			TD_ALLOC_GROW(k->wide, k->nwide + 1, k->wide_cap);
			k->wide[k->nwide++] = (struct kwide){ i, s.end };
		}
		struct kept x = { s.start, s.name, wide ? LEN_WIDE : (uint32_t)(s.end - s.start) };
		memcpy((char *)k->kept + i * sizeof(x), &x, sizeof(x));
	}
	k->kept = td_realloc(k->sym, (k->n + 1) * sizeof(*k->kept));
	k->sym = NULL;
	k->cap = 0;
}

static uint64_t end_of(const struct kallsyms *k, size_t i)
{
	if (k->kept[i].len != LEN_WIDE)
		return k->kept[i].start + k->kept[i].len;
	/* present (the symbol is marked wide): the last entry at or before i is i's */
	size_t w = td_count_at_or_before(k->wide, k->nwide, sizeof(*k->wide), offsetof(struct kwide, at), i) - 1;
	return k->wide[w].end;
}

struct kallsyms *kallsyms_load(const char *path)
{
	if (access(path, R_OK) != 0)
		return NULL;                 /* perf's other candidates are often absent: quietly */
	struct td_input *in = td_input_open(path);
	if (!in)
		return NULL;
	struct kallsyms *k = td_calloc(1, sizeof(*k));
	/* room for a large kernel's table from the start: growing by copies
	 * cost more than the parsing; untouched room is never paged in */
	k->cap = 1u << 18;
	k->sym = td_malloc(k->cap * sizeof(*k->sym));
	k->names_cap = 16u << 20;
	k->names = td_malloc(k->names_cap);
	add_name(k, "", 0);          /* offset 0 means "no module" */
	const char *line;
	size_t len;
	uint32_t last_module = 0;
	while (td_input_next(in, &line, &len))
		parse_line(k, line, len, &last_module);
	td_input_close(in);
	/* kptr_restrict hides the addresses behind zeros: nothing usable */
	bool any = false;
	for (size_t i = 0; i < k->n && !any; i++)
		any = k->sym[i].start != 0;
	if (!any) {
		kallsyms_free(k);
		return NULL;
	}
	fix_up(k);
	return k;
}

void kallsyms_free(struct kallsyms *k)
{
	if (!k)
		return;
	free(k->sym);
	free(k->kept);
	free(k->wide);
	free(k->tables);
	free(k->names);
	free(k);
}

static const struct ktable *table_of(const struct kallsyms *k, const char *module)
{
	for (size_t i = 0; i < k->ntables; i++)     /* a few hundred modules at most */
		if (module ? k->tables[i].module && strcmp(k->names + k->tables[i].module, module) == 0
			   : k->tables[i].module == 0)
			return &k->tables[i];
	return NULL;
}

const char *kallsyms_find(const struct kallsyms *k, const char *module, uint64_t addr, uint64_t *start)
{
	const struct ktable *t = table_of(k, module);
	if (!t)
		return NULL;
	size_t lo = t->first + td_count_at_or_before(k->kept + t->first, t->end - t->first, sizeof(*k->kept),
						     offsetof(struct kept, start), addr);
	if (lo == t->first)
		return NULL;
	const struct kept *s = &k->kept[lo - 1];
	if (addr >= end_of(k, lo - 1))
		return NULL;
	*start = s->start;
	return k->names + s->name;
}

bool kallsyms_addr_of(const struct kallsyms *k, const char *name, uint64_t *addr)
{
	if (strcmp(name, "_text") == 0 && k->has_text)
		*addr = k->text;
	else if (strcmp(name, "_stext") == 0 && k->has_stext)
		*addr = k->stext;
	else
		return false;
	return true;
}

void kallsyms_relocate(struct kallsyms *k, uint64_t delta)
{
	for (size_t i = 0; i < k->n; i++)
		k->kept[i].start -= delta;
	for (size_t i = 0; i < k->nwide; i++)
		k->wide[i].end -= delta;
}

uint64_t kallsyms_kernel_end(const struct kallsyms *k)
{
	const struct ktable *t = k->ntables && k->tables[0].module == 0 ? &k->tables[0] : NULL;
	return t && t->end > t->first ? end_of(k, t->end - 1) : 0;
}
