#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include "common/diag.h"
#include "common/radix.h"
#include "common/grow.h"
#include "perf_symtab.h"

#define NIL (-1L)

enum { RED, BLACK };

/* A symbol as inserted; the fix-ups work on copies of its end. Of the
 * name perf shows, only what its comparisons use is kept. */
struct sym {
	uint64_t start, end;
	const char *name;            /* the file's */
	uint32_t shown_len;          /* the shown name's length, */
	uint16_t underscores;        /* and its leading underscores (both once measured) */
	int8_t bind;
	bool measured;
};

/* A symbol in the replayed tree, 32 bytes (a large binary's tree holds
 * a hundred thousand and more). */
struct node {
	uint64_t start, end;
	int32_t left, right, parent;
	uint32_t sym : 31, color : 1;
};

struct perf_symtab {
	struct sym *s;               /* in insertion order */
	const char **names;          /* once the tree is replayed: the symbols' names, in s's place */
	size_t count, cap;
	size_t nfixed;               /* how many were inserted before the fix-ups */
	bool fixed;
	symtab_name_fn shown;
	symtab_names_fn shown_all;
	void *ctx;
	struct node *n;              /* the replay's tree */
	size_t nodes;
	long root;
};

struct perf_symtab *perf_symtab_new(symtab_name_fn shown, void *ctx)
{
	struct perf_symtab *t = td_calloc(1, sizeof(*t));
	t->root = NIL;
	t->shown = shown;
	t->ctx = ctx;
	return t;
}

void perf_symtab_shown_batch(struct perf_symtab *t, symtab_names_fn shown_all)
{
	t->shown_all = shown_all;
}

void perf_symtab_free(struct perf_symtab *t)
{
	if (!t)
		return;
	free(t->s);
	free(t->names);
	free(t->n);
	free(t);
}

void perf_symtab_reserve(struct perf_symtab *t, size_t n)
{
	if (n <= t->cap)
		return;
	t->s = td_realloc_array(t->s, n, sizeof(*t->s));
	t->cap = n;
}

void perf_symtab_insert(struct perf_symtab *t, uint64_t start, uint64_t size, int bind, const char *name)
{
	TD_ALLOC_GROW(t->s, t->count + 1, t->cap);
	t->s[t->count++] = (struct sym){ start, start + size, name, 0, 0, (int8_t)bind, false };
}

void perf_symtab_fixup(struct perf_symtab *t)
{
	if (t->fixed)
		return;
	t->fixed = true;
	t->nfixed = t->count;
}

/* ---- perf's rules ----------------------------------------------------------------- */

static int leading_underscores(const char *s)
{
	int n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* perf compares symbols by the names it shows (demangled): measured
 * once, the shown name itself let go. */
static void measure(struct sym *s, char *d)
{
	const char *x = d ? d : s->name;
	int u = leading_underscores(x);
	size_t len = strlen(x);
	s->underscores = (uint16_t)(u < UINT16_MAX ? u : UINT16_MAX);
	s->shown_len = (uint32_t)(len < UINT32_MAX ? len : UINT32_MAX);
	s->measured = true;
	free(d);
}

static const struct sym *measured(struct perf_symtab *t, size_t i)
{
	struct sym *s = &t->s[i];
	if (!s->measured)
		measure(s, t->shown ? t->shown(t->ctx, s->name) : NULL);
	return s;
}

/* Symbols measured at once by shown_all, at most this many at a time. */
#define BATCH 4096

struct batch {
	struct perf_symtab *t;
	const uint32_t *syms;
};

static void take_shown(void *arg, size_t i, char *shown)
{
	struct batch *b = arg;
	measure(&b->t->s[b->syms[i]], shown);
}

/* The symbols of order[0..n) (sorted by start) that share a start, all
 * measured before they are compared, BATCH at a time. */
static void measure_shared_starts(struct perf_symtab *t, const uint32_t *order, size_t n)
{
	if (!t->shown_all || !t->shown)
		return;
	size_t total = 0;
	for (size_t k = 1; k < n; k++)
		total += t->s[order[k - 1]].start == t->s[order[k]].start;
	if (total == 0)
		return;
	size_t cap = 2 * total < BATCH ? 2 * total : BATCH;      /* a run of r shares r - 1 starts */
	uint32_t *batch = td_malloc(cap * sizeof(*batch));
	const char **names = td_malloc(cap * sizeof(*names));
	struct batch b = { t, batch };
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		bool shared = (k > 0 && t->s[order[k - 1]].start == t->s[order[k]].start) ||
			      (k + 1 < n && t->s[order[k + 1]].start == t->s[order[k]].start);
		if (shared && !t->s[order[k]].measured) {
			batch[m] = order[k];
			names[m++] = t->s[order[k]].name;
		}
		if (m && (m == cap || k + 1 == n)) {
			t->shown_all(t->ctx, names, m, take_shown, &b);
			m = 0;
		}
	}
	free(batch);
	free(names);
}

/* perf's choose_best_symbol between symbols a and b at one address, with
 * the ends the fix-ups gave them: true when b beats a (a, the earlier,
 * wins ties). */
static bool beats(struct perf_symtab *t, size_t b, uint64_t b_end, size_t a, uint64_t a_end)
{
	const struct sym *ma = measured(t, a), *mb = measured(t, b);
	int ba = t->s[a].bind, bb = t->s[b].bind;
	bool sa = a_end > t->s[a].start, sb = b_end > t->s[b].start;
	if (sa != sb)
		return sb;
	if ((ba == STB_WEAK) != (bb == STB_WEAK))
		return ba == STB_WEAK;
	if ((ba == STB_GLOBAL) != (bb == STB_GLOBAL))
		return bb == STB_GLOBAL;
	if (ma->underscores != mb->underscores)
		return mb->underscores < ma->underscores;
	return mb->shown_len > ma->shown_len;
}

/* The end perf gives the last symbol when it has no size. */
static uint64_t page_end(uint64_t start)
{
	return ((start + 4095) & ~4095ULL) + 4096;
}

/* ---- the red-black tree (the textbook algorithm, as the kernel's rbtree) ---------- */

static bool is_red(const struct perf_symtab *t, long x) { return x != NIL && t->n[x].color == RED; }

static void replace_child(struct perf_symtab *t, long parent, long old, long new)
{
	if (parent == NIL)
		t->root = new;
	else if (t->n[parent].left == old)
		t->n[parent].left = new;
	else
		t->n[parent].right = new;
	if (new != NIL)
		t->n[new].parent = parent;
}

static void rotate_left(struct perf_symtab *t, long x)
{
	long y = t->n[x].right;
	t->n[x].right = t->n[y].left;
	if (t->n[y].left != NIL)
		t->n[t->n[y].left].parent = x;
	replace_child(t, t->n[x].parent, x, y);
	t->n[y].left = x;
	t->n[x].parent = y;
}

static void rotate_right(struct perf_symtab *t, long x)
{
	long y = t->n[x].left;
	t->n[x].left = t->n[y].right;
	if (t->n[y].right != NIL)
		t->n[t->n[y].right].parent = x;
	replace_child(t, t->n[x].parent, x, y);
	t->n[y].right = x;
	t->n[x].parent = y;
}

static void insert_fixup(struct perf_symtab *t, long z)
{
	while (is_red(t, t->n[z].parent)) {
		long p = t->n[z].parent, g = t->n[p].parent;
		bool left = p == t->n[g].left;
		long u = left ? t->n[g].right : t->n[g].left;
		if (is_red(t, u)) {
			t->n[p].color = t->n[u].color = BLACK;
			t->n[g].color = RED;
			z = g;
			continue;
		}
		if (z == (left ? t->n[p].right : t->n[p].left)) {
			z = p;
			left ? rotate_left(t, z) : rotate_right(t, z);
			p = t->n[z].parent;
		}
		t->n[p].color = BLACK;
		t->n[g].color = RED;
		left ? rotate_right(t, g) : rotate_left(t, g);
	}
	t->n[t->root].color = BLACK;
}

/* x (maybe NIL) under xp lost one black on its paths. */
static void erase_fixup(struct perf_symtab *t, long x, long xp)
{
	while (x != t->root && !is_red(t, x)) {
		bool left = x == t->n[xp].left;
		long w = left ? t->n[xp].right : t->n[xp].left;
		if (is_red(t, w)) {
			t->n[w].color = BLACK;
			t->n[xp].color = RED;
			left ? rotate_left(t, xp) : rotate_right(t, xp);
			w = left ? t->n[xp].right : t->n[xp].left;
		}
		long near = left ? t->n[w].left : t->n[w].right, far = left ? t->n[w].right : t->n[w].left;
		if (!is_red(t, near) && !is_red(t, far)) {
			t->n[w].color = RED;
			x = xp;
			xp = t->n[x].parent;
			continue;
		}
		if (!is_red(t, far)) {
			t->n[near].color = BLACK;
			t->n[w].color = RED;
			left ? rotate_right(t, w) : rotate_left(t, w);
			w = left ? t->n[xp].right : t->n[xp].left;
			far = left ? t->n[w].right : t->n[w].left;
		}
		t->n[w].color = t->n[xp].color;
		t->n[xp].color = BLACK;
		t->n[far].color = BLACK;
		left ? rotate_left(t, xp) : rotate_right(t, xp);
		x = t->root;
		break;
	}
	if (x != NIL)
		t->n[x].color = BLACK;
}

static long leftmost(const struct perf_symtab *t, long x)
{
	while (x != NIL && t->n[x].left != NIL)
		x = t->n[x].left;
	return x;
}

static long next_node(const struct perf_symtab *t, long x)
{
	if (t->n[x].right != NIL)
		return leftmost(t, t->n[x].right);
	long p = t->n[x].parent;
	while (p != NIL && x == t->n[p].right) {
		x = p;
		p = t->n[p].parent;
	}
	return p;
}

/* Unlink z; its successor takes its place when it has two children. */
static void erase(struct perf_symtab *t, long z)
{
	long x, xp;
	int removed = t->n[z].color;
	if (t->n[z].left == NIL || t->n[z].right == NIL) {
		x = t->n[z].left == NIL ? t->n[z].right : t->n[z].left;
		xp = t->n[z].parent;
		replace_child(t, xp, z, x);
	} else {
		long y = leftmost(t, t->n[z].right);
		removed = t->n[y].color;
		x = t->n[y].right;
		if (t->n[y].parent == z) {
			xp = y;
		} else {
			xp = t->n[y].parent;
			replace_child(t, xp, y, x);
			t->n[y].right = t->n[z].right;
			t->n[t->n[y].right].parent = y;
		}
		replace_child(t, t->n[z].parent, z, y);
		t->n[y].left = t->n[z].left;
		t->n[t->n[y].left].parent = y;
		t->n[y].color = t->n[z].color;
	}
	if (removed == BLACK)
		erase_fixup(t, x, xp);
}

static void tree_insert(struct perf_symtab *t, size_t sym)
{
	uint64_t start = t->s[sym].start;
	long z = (long)t->nodes++;
	t->n[z] = (struct node){ .start = start, .end = t->s[sym].end, .left = NIL, .right = NIL, .parent = NIL,
				 .sym = (uint32_t)sym, .color = RED };
	long y = NIL;
	for (long x = t->root; x != NIL; x = start < t->n[x].start ? t->n[x].left : t->n[x].right)
		y = x;                   /* equal starts go right: they stay in insertion order */
	t->n[z].parent = y;
	if (y == NIL)
		t->root = z;
	else if (start < t->n[y].start)
		t->n[y].left = z;
	else
		t->n[y].right = z;
	insert_fixup(t, z);
}

/* ---- perf's steps on the tree --------------------------------------------------- */

static void fixup_end(struct perf_symtab *t)
{
	long curr = leftmost(t, t->root);
	if (curr == NIL)
		return;
	for (long nd = next_node(t, curr); nd != NIL; nd = next_node(t, nd)) {
		long prev = curr;
		curr = nd;
		if (t->n[prev].end == t->n[prev].start)
			t->n[prev].end = t->n[curr].start;
	}
	if (t->n[curr].end == t->n[curr].start)
		t->n[curr].end = page_end(t->n[curr].start);
}

static void fixup_duplicate(struct perf_symtab *t)
{
	long nd = leftmost(t, t->root);
	while (nd != NIL) {
		long curr = nd;
		for (;;) {
			nd = next_node(t, curr);
			if (nd == NIL || t->n[curr].start != t->n[nd].start)
				break;
			if (!beats(t, t->n[nd].sym, t->n[nd].end, t->n[curr].sym, t->n[curr].end)) {
				erase(t, nd);    /* and compare curr with the one after */
				continue;
			}
			nd = next_node(t, curr);
			erase(t, curr);
			break;
		}
	}
}

/* perf's steps on the tree: the table, its fix-ups, then the stubs. */
static void replay(struct perf_symtab *t)
{
	if (t->count >= INT32_MAX)
		td_die("out of memory (a symbol table of %zu symbols)", t->count);
	t->n = td_malloc((t->count + 1) * sizeof(*t->n));
	t->nodes = 0;
	t->root = NIL;
	size_t nfixed = t->fixed ? t->nfixed : t->count;
	for (size_t i = 0; i < nfixed; i++)
		tree_insert(t, i);
	if (t->root != NIL) {
		fixup_end(t);
		fixup_duplicate(t);
	}
	for (size_t i = nfixed; i < t->count; i++)
		tree_insert(t, i);
}

/* perf's symbols__find: the first node on the descent that holds ip. */
static long find(const struct perf_symtab *t, uint64_t ip)
{
	long x = t->root;
	while (x != NIL) {
		const struct node *s = &t->n[x];
		if (ip < s->start)
			x = s->left;
		else if (ip > s->end || (ip == s->end && ip != s->start))
			x = s->right;
		else
			return x;
	}
	return NIL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void sort_if_needed(uint64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i] < v[i - 1]) {
			qsort(v, n, sizeof(*v), cmp_u64);
			return;
		}
}

/* Ranges handed to emit one by one, neighbours of one symbol merged. */
struct range_out {
	symtab_range_fn emit;
	void *ctx;
	struct symtab_range pending;
	size_t n;
};

static void put_range(struct range_out *o, uint64_t lo, uint64_t hi, uint64_t start, const char *name)
{
	struct symtab_range *p = &o->pending;
	if (o->n && p->hi == lo && p->name == name && p->start == start) {
		p->hi = hi;
		return;
	}
	if (o->n)
		o->emit(o->ctx, p);
	*p = (struct symtab_range){ lo, hi, start, name };
	o->n++;
}

static size_t end_ranges(struct range_out *o)
{
	if (o->n)
		o->emit(o->ctx, &o->pending);
	return o->n;
}

/* Between two neighbouring starts or ends every descent takes the same
 * turns, so one lookup per boundary gives all the answers. Starts come
 * sorted from the in-order walk and ends nearly always do: the walk and
 * the ends are merged as they go (no array of the boundaries is made). */
static size_t tree_ranges(const struct perf_symtab *t, struct range_out *o)
{
	uint64_t *ends = td_malloc((2 * t->nodes + 1) * sizeof(*ends));
	size_t nend = 0;
	for (long x = leftmost(t, t->root); x != NIL; x = next_node(t, x)) {
		ends[nend++] = t->n[x].end;
		if (t->n[x].end == t->n[x].start)
			ends[nend++] = t->n[x].start + 1;  /* a zero-size symbol holds its start only */
	}
	sort_if_needed(ends, nend);
	long x = leftmost(t, t->root);
	size_t j = 0;
	bool any = false;
	uint64_t prev = 0;
	while (x != NIL || j < nend) {
		uint64_t edge;
		if (j == nend || (x != NIL && t->n[x].start <= ends[j])) {
			edge = t->n[x].start;
			x = next_node(t, x);
		} else {
			edge = ends[j++];
		}
		if (any && prev != edge) {
			long at = find(t, prev);
			if (at != NIL)
				put_range(o, prev, edge, t->n[at].start, t->names[t->n[at].sym]);
		}
		prev = edge;
		any = true;
	}
	free(ends);
	return end_ranges(o);
}

/* Once the tree holds every symbol's place and end, only their names are
 * read: they take the symbols' room (a quarter of it, the rest let go). */
static void keep_names(struct perf_symtab *t)
{
	for (size_t i = 0; i < t->count; i++) {
		const char *name = t->s[i].name;        /* read before the room it lies in is written */
		memcpy((char *)t->s + i * sizeof(name), &name, sizeof(name));
	}
	t->names = td_realloc(t->s, (t->count + 1) * sizeof(*t->names));
	t->s = NULL;
	t->count = t->cap = 0;
}

static size_t replayed_ranges(struct perf_symtab *t, struct range_out *o)
{
	replay(t);
	keep_names(t);
	size_t n = tree_ranges(t, o);
	free(t->n);
	t->n = NULL;
	return n;
}

/* The ranges gathered into one array. */
struct range_array {
	struct symtab_range *r;
	size_t n, cap;
};

static void gather(void *ctx, const struct symtab_range *r)
{
	struct range_array *a = ctx;
	TD_ALLOC_GROW(a->r, a->n + 1, a->cap);
	a->r[a->n++] = *r;
}

size_t perf_symtab_ranges_replayed(struct perf_symtab *t, struct symtab_range **out)
{
	struct range_array a = { 0 };
	struct range_out o = { gather, &a, { 0 }, 0 };
	replayed_ranges(t, &o);
	*out = a.r ? a.r : td_malloc(sizeof(*a.r));
	return a.n;
}

/* ---- without the tree ---------------------------------------------------------------- */

/* order[0..n) (symbol numbers) reordered by the symbols' starts, equal
 * starts kept in order. */
static void sort_by_start(const struct sym *s, uint32_t *order, size_t n)
{
	enum { KEYED = sizeof(uint64_t) + sizeof(uint32_t) };   /* start, then symbol: 12 bytes, unpadded */
	unsigned char *k = td_malloc((n + 1) * KEYED);
	for (size_t i = 0; i < n; i++) {
		memcpy(k + i * KEYED, &s[order[i]].start, sizeof(uint64_t));
		memcpy(k + i * KEYED + sizeof(uint64_t), &order[i], sizeof(uint32_t));
	}
	td_radix_sort(k, n, KEYED, 0, sizeof(uint64_t));
	for (size_t i = 0; i < n; i++)
		memcpy(&order[i], k + i * KEYED + sizeof(uint64_t), sizeof(uint32_t));
	free(k);
}

/* perf's fix-ups on symbols in start order (ends in end[]): zero-size
 * ones stretched to the next, then one kept of each start. Returns how
 * many are kept, at the front of order. */
static size_t fix_sorted(struct perf_symtab *t, uint32_t *order, size_t n, uint64_t *end)
{
	if (n == 0)
		return 0;
	for (size_t k = 1; k < n; k++)
		if (end[order[k - 1]] == t->s[order[k - 1]].start)
			end[order[k - 1]] = t->s[order[k]].start;
	if (end[order[n - 1]] == t->s[order[n - 1]].start)
		end[order[n - 1]] = page_end(t->s[order[n - 1]].start);
	measure_shared_starts(t, order, n);
	size_t kept = 0;
	for (size_t k = 0; k < n; k++) {
		size_t i = order[k];
		if (kept && t->s[order[kept - 1]].start == t->s[i].start) {
			size_t best = order[kept - 1];
			if (beats(t, i, end[i], best, end[best]))
				order[kept - 1] = (uint32_t)i;
			continue;
		}
		order[kept++] = (uint32_t)i;
	}
	return kept;
}

/* The symbols kept by the fix-ups (order[0..kept)) merged in start order
 * with the stubs (order[nfixed..n)): the next one, or SIZE_MAX at the end. */
static size_t next_in_order(const struct perf_symtab *t, const uint32_t *order, size_t kept, size_t n, size_t *i,
			    size_t *j)
{
	if (*i == kept && *j == n)
		return SIZE_MAX;
	return *j == n || (*i < kept && t->s[order[*i]].start <= t->s[order[*j]].start) ? order[(*i)++] : order[(*j)++];
}

/* The ranges when no two symbols overlap once fixed: then every descent
 * ends at the one symbol holding the address, whatever the tree's shape.
 * False (nothing emitted) when some do: they are checked first. */
static bool disjoint_ranges(struct perf_symtab *t, struct range_out *o)
{
	size_t n = t->count, nfixed = t->fixed ? t->nfixed : n;
	if (n >= UINT32_MAX)
		return false;
	uint32_t *order = td_malloc((n + 1) * sizeof(*order));
	uint64_t *end = td_malloc((n + 1) * sizeof(*end));
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i, end[i] = t->s[i].end;
	sort_by_start(t->s, order, nfixed);
	sort_by_start(t->s, order + nfixed, n - nfixed);
	size_t kept = fix_sorted(t, order, nfixed, end);
	bool disjoint = true, any = false;
	uint64_t last_hi = 0;
	size_t i = 0, j = nfixed, x;
	while (disjoint && (x = next_in_order(t, order, kept, n, &i, &j)) != SIZE_MAX) {
		uint64_t start = t->s[x].start, hi = end[x] > start ? end[x] : start + 1;
		disjoint = end[x] >= start && (!any || last_hi <= start);
		last_hi = hi;
		any = true;
	}
	if (disjoint) {
		i = 0, j = nfixed;
		while ((x = next_in_order(t, order, kept, n, &i, &j)) != SIZE_MAX) {
			uint64_t start = t->s[x].start, hi = end[x] > start ? end[x] : start + 1;
			o->emit(o->ctx, &(struct symtab_range){ start, hi, start, t->s[x].name });
			o->n++;
		}
	}
	free(order);
	free(end);
	return disjoint;
}

size_t perf_symtab_each_range(struct perf_symtab *t, symtab_range_fn emit, void *ctx)
{
	struct range_out o = { emit, ctx, { 0 }, 0 };
	if (disjoint_ranges(t, &o))
		return o.n;
	return replayed_ranges(t, &o);
}

size_t perf_symtab_ranges(struct perf_symtab *t, struct symtab_range **out)
{
	struct range_array a = { 0 };
	perf_symtab_each_range(t, gather, &a);
	*out = a.r ? a.r : td_malloc(sizeof(*a.r));
	return a.n;
}
