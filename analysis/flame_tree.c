#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "common/intern.h"
#include "parsers/folded.h"
#include "flame_tree.h"

struct node {
	uint32_t name, parent, child, sibling;   /* child/sibling: 0 is none (0 is the root) */
	uint32_t nchildren;
	double leaf;          /* counts of the lines ending at this frame */
	double cont_self;     /* lines ending here with a trailing ';': they sort with the callees */
	double total;         /* the whole width, set by sum_totals() */
	double delta;         /* two-count lines ending here: sum of count2 - count1 */
	bool has_leaf, has_cont_self;
};

struct open_frame {
	uint32_t name;
	double start, delta;
};

struct flame_tree {
	struct flame_tree_options o;
	struct td_intern *names;
	struct node *nodes;
	size_t nnodes, cap;
	uint64_t *keys;            /* child table: (parent + 1) << 32 | name; 0 is empty */
	uint32_t *vals;
	size_t nslots, used;
	double total, max_line_delta;
	bool differential;
	/* the previous line, to skip the frames it shares with the next */
	char *prev;
	size_t prev_len, prev_cap;
	uint32_t *path;           /* node per depth; path[0] is the root */
	size_t path_len, path_cap;
	/* the fields of the line (those of the previous line until split) */
	size_t *fs, *fe;
	size_t fcap;
	/* flame chart: the open frames and the frames closed so far */
	struct open_frame *open;
	size_t nopen, open_cap;
	struct flame_frame *chart;
	size_t nchart, chart_cap;
	double time;
	bool sums_done;
};

static uint32_t new_node(struct flame_tree *t, uint32_t name, uint32_t parent)
{
	if (t->nnodes == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		t->nodes = td_realloc(t->nodes, t->cap * sizeof *t->nodes);
	}
	struct node *n = &t->nodes[t->nnodes];
	memset(n, 0, sizeof *n);
	n->name = name;
	n->parent = parent;
	return (uint32_t)t->nnodes++;
}

static size_t slot_of(uint64_t key, size_t mask)
{
	key ^= key >> 29;
	key *= 0xbf58476d1ce4e5b9ULL;
	key ^= key >> 32;
	return (size_t)key & mask;
}

static void grow_table(struct flame_tree *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 4096;
	uint64_t *keys = td_calloc(n, sizeof *keys);
	uint32_t *vals = td_malloc(n * sizeof *vals);
	for (size_t i = 0; i < t->nslots; i++) {
		if (!t->keys[i])
			continue;
		size_t s = slot_of(t->keys[i], n - 1);
		while (keys[s])
			s = (s + 1) & (n - 1);
		keys[s] = t->keys[i];
		vals[s] = t->vals[i];
	}
	free(t->keys);
	free(t->vals);
	t->keys = keys;
	t->vals = vals;
	t->nslots = n;
}

static void table_put(struct flame_tree *t, uint32_t parent, uint32_t name, uint32_t id)
{
	if ((t->used + 1) * 2 > t->nslots)
		grow_table(t);
	uint64_t key = (uint64_t)(parent + 1) << 32 | name;
	size_t mask = t->nslots - 1, s = slot_of(key, mask);
	while (t->keys[s])
		s = (s + 1) & mask;
	t->keys[s] = key;
	t->vals[s] = id;
	t->used++;
}

static uint32_t table_get(const struct flame_tree *t, uint32_t parent, uint32_t name)
{
	uint64_t key = (uint64_t)(parent + 1) << 32 | name;
	size_t mask = t->nslots - 1, s = slot_of(key, mask);
	while (t->keys[s]) {
		if (t->keys[s] == key)
			return t->vals[s];
		s = (s + 1) & mask;
	}
	return 0;
}

/* A node's children: a list scanned while short, the table beyond. Sorted
 * input makes most lookups those of a frame just created, which has no
 * children yet: no lookup at all. */
enum { LIST_MAX = 8 };

static uint32_t child_of(struct flame_tree *t, uint32_t parent, uint32_t name)
{
	struct node *p = &t->nodes[parent];
	if (p->nchildren > LIST_MAX) {
		uint32_t id = table_get(t, parent, name);
		if (id)
			return id;
	} else {
		for (uint32_t c = p->child; c; c = t->nodes[c].sibling)
			if (t->nodes[c].name == name)
				return c;
	}
	uint32_t id = new_node(t, name, parent);
	p = &t->nodes[parent];             /* new_node may move the array */
	t->nodes[id].sibling = p->child;
	p->child = id;
	if (++p->nchildren == LIST_MAX + 1) {
		for (uint32_t c = p->child; c; c = t->nodes[c].sibling)
			table_put(t, parent, t->nodes[c].name, c);
	} else if (p->nchildren > LIST_MAX + 1) {
		table_put(t, parent, name, id);
	}
	return id;
}

struct flame_tree *flame_tree_new(const struct flame_tree_options *o)
{
	struct flame_tree *t = td_calloc(1, sizeof *t);
	if (o)
		t->o = *o;
	t->names = td_intern_new();
	td_intern(t->names, "", 0);          /* id 0: the root's name */
	new_node(t, 0, 0);
	t->path_cap = 64;
	t->path = td_malloc(t->path_cap * sizeof *t->path);
	t->path[0] = 0;
	t->path_len = 1;
	return t;
}

void flame_tree_free(struct flame_tree *t)
{
	if (!t)
		return;
	td_intern_free(t->names);
	free(t->nodes);
	free(t->keys);
	free(t->vals);
	free(t->prev);
	free(t->path);
	free(t->fs);
	free(t->fe);
	free(t->open);
	free(t->chart);
	free(t);
}

const char *flame_tree_name(const struct flame_tree *t, uint32_t id, size_t *len)
{
	return td_intern_str(t->names, id, len);
}

uint32_t flame_tree_name_count(const struct flame_tree *t) { return td_intern_count(t->names); }
double flame_tree_total(const struct flame_tree *t) { return t->total; }
bool flame_tree_differential(const struct flame_tree *t) { return t->differential; }

/* Splits the stack into its ';'-separated fields (t->fs/t->fe), the trailing
 * empty ones dropped as perl's split drops them; returns the count and sets
 * *trailing when some were dropped. The first `from` fields are those of
 * the previous line, already in fs/fe (the same bytes start both lines). */
static size_t split_fields(struct flame_tree *t, const char *s, size_t n, size_t from, bool *trailing)
{
	size_t count = from, start = from ? t->fe[from - 1] + 1 : 0;
	for (;;) {
		if (count == t->fcap) {
			t->fcap = t->fcap ? t->fcap * 2 : 64;
			t->fs = td_realloc(t->fs, t->fcap * sizeof *t->fs);
			t->fe = td_realloc(t->fe, t->fcap * sizeof *t->fe);
		}
		const char *semi = start < n ? memchr(s + start, ';', n - start) : NULL;
		size_t end = semi ? (size_t)(semi - s) : n;
		t->fs[count] = start;
		t->fe[count] = end;
		count++;
		if (!semi)
			break;
		start = end + 1;
	}
	size_t kept = count;
	while (kept > 0 && t->fe[kept - 1] == t->fs[kept - 1])
		kept--;
	*trailing = kept < count && kept > 0 && n > 0;
	return kept;
}

/* Bytes of the first k fields with their separators. */
static size_t shared_bytes(const struct flame_tree *t, size_t k) { return k ? t->fe[k - 1] : 0; }

/* Length of the common prefix of a and b (n bytes at most). */
static size_t common_prefix(const char *a, const char *b, size_t n)
{
	size_t i = 0;
	while (i + 8 <= n) {
		uint64_t x, y;
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return i + (size_t)__builtin_ctzll(x ^ y) / 8;
		i += 8;
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

static void reserve_path(struct flame_tree *t, size_t n)
{
	if (n <= t->path_cap)
		return;
	while (t->path_cap < n)
		t->path_cap *= 2;
	t->path = td_realloc(t->path, t->path_cap * sizeof *t->path);
}

static void chart_emit(struct flame_tree *t, uint32_t name, uint32_t depth, double start, double end, double delta)
{
	if (t->nchart == t->chart_cap) {
		t->chart_cap = t->chart_cap ? t->chart_cap * 2 : 1024;
		t->chart = td_realloc(t->chart, t->chart_cap * sizeof *t->chart);
	}
	t->chart[t->nchart++] = (struct flame_frame){ name, depth, start, end, delta };
}

/* Flame chart: flamegraph.pl's merge of neighbouring lines, frames closed
 * as soon as a line leaves them. */
static void chart_line(struct flame_tree *t, const uint32_t *names, size_t n, double width, double delta, bool two)
{
	size_t same = 0;
	while (same < n && same < t->nopen && t->open[same].name == names[same])
		same++;
	while (t->nopen > same) {
		struct open_frame *f = &t->open[--t->nopen];
		chart_emit(t, f->name, (uint32_t)t->nopen + 1, f->start, t->time, f->delta);
	}
	if (n > t->open_cap) {
		t->open_cap = n * 2;
		t->open = td_realloc(t->open, t->open_cap * sizeof *t->open);
	}
	for (size_t i = same; i < n; i++)
		t->open[t->nopen++] = (struct open_frame){ names[i], t->time, two && i + 1 == n ? delta : 0 };
	t->time += width;
}

bool flame_tree_add_line(struct flame_tree *t, const char *line, size_t len)
{
	struct folded_line a, b;
	if (!folded_parse(line, len, &a) || !isfinite(a.value))
		return false;
	const char *stack = a.stack;
	size_t slen = a.stack_len;
	double width = a.value, delta = 0;
	bool two = false;
	if (folded_parse(a.stack, a.stack_len, &b) && isfinite(b.value)) {
		two = true;
		stack = b.stack;
		slen = b.stack_len;
		delta = a.value - b.value;
	}
	t->differential |= two;
	if (two && fabs(delta) > t->max_line_delta)
		t->max_line_delta = fabs(delta);
	t->total += width;
	t->sums_done = false;

	/* the fields shared with the previous line keep its nodes */
	size_t shared = 0;
	if (!t->o.reverse && !t->o.flamechart && t->prev_len > 0) {
		size_t common = common_prefix(stack, t->prev, slen < t->prev_len ? slen : t->prev_len);
		while (shared + 1 < t->path_len && t->fe[shared] < common)
			shared++;
	}
	bool trailing;
	size_t n = split_fields(t, stack, slen, shared, &trailing);
	if (shared > n)
		shared = n;
	if (t->o.reverse && n > 1) {
		/* the reversed stack is joined again, so its own trailing empty
		 * fields (the original's leading ones) are dropped in turn */
		for (size_t i = 0, j = n - 1; i < j; i++, j--) {
			size_t s0 = t->fs[i], e0 = t->fe[i];
			t->fs[i] = t->fs[j]; t->fe[i] = t->fe[j];
			t->fs[j] = s0; t->fe[j] = e0;
		}
		size_t kept = n;
		while (kept > 0 && t->fe[kept - 1] == t->fs[kept - 1])
			kept--;
		trailing = kept < n && kept > 0;
		n = kept;
	} else if (t->o.reverse) {
		trailing = false;
	}

	reserve_path(t, n + 1);
	if (t->o.flamechart) {
		for (size_t i = 0; i < n; i++)
			t->path[i] = td_intern(t->names, stack + t->fs[i], t->fe[i] - t->fs[i]);
		chart_line(t, t->path, n, width, delta, two);
		return true;
	}
	for (size_t i = shared; i < n; i++) {
		uint32_t name = td_intern(t->names, stack + t->fs[i], t->fe[i] - t->fs[i]);
		t->path[i + 1] = child_of(t, t->path[i], name);
	}
	t->path_len = n + 1;
	if (!t->o.reverse) {
		if (slen > t->prev_cap) {
			t->prev_cap = slen * 2;
			t->prev = td_realloc(t->prev, t->prev_cap);
		}
		size_t same = shared_bytes(t, shared);
		if (slen > same)                /* an empty first stack leaves prev NULL */
			memcpy(t->prev + same, stack + same, slen - same);
		t->prev_len = slen;
	}
	struct node *leaf = &t->nodes[t->path[n]];
	if (trailing) {
		leaf->cont_self += width;
		leaf->has_cont_self = true;
	} else {
		leaf->leaf += width;
		leaf->has_leaf = true;
	}
	leaf->delta += delta;
	return true;
}

static void sum_totals(struct flame_tree *t)
{
	if (t->sums_done)
		return;
	for (size_t i = 0; i < t->nnodes; i++)
		t->nodes[i].total = 0;
	for (size_t i = t->nnodes; i-- > 0;) {
		struct node *n = &t->nodes[i];
		n->total += n->leaf + n->cont_self;
		if (i > 0)
			t->nodes[n->parent].total += n->total;
	}
	t->sums_done = true;
}

/* A sibling as the line sort sees it: its name followed by ' ' for the
 * lines ending there (LEAF) or ';' for those going deeper (CONT). */
enum { LEAF, CONT };
struct entry {
	uint32_t node;
	int kind;
};

static int entry_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct flame_tree *t = ctx;
	const struct entry *a = pa, *b = pb;
	size_t la, lb;
	const unsigned char *sa = (const unsigned char *)td_intern_str(t->names, t->nodes[a->node].name, &la);
	const unsigned char *sb = (const unsigned char *)td_intern_str(t->names, t->nodes[b->node].name, &lb);
	size_t m = la < lb ? la : lb;
	int c = memcmp(sa, sb, m);
	if (c)
		return c;
	unsigned char ta = a->kind == LEAF ? ' ' : ';', tb = b->kind == LEAF ? ' ' : ';';
	unsigned char na = la > m ? sa[m] : ta, nb = lb > m ? sb[m] : tb;
	if (na != nb)
		return na < nb ? -1 : 1;
	if (la != lb)
		return la < lb ? -1 : 1;
	return a->kind - b->kind;
}

static bool has_cont(const struct node *n) { return n->child || n->has_cont_self; }

/* The node's children as sorted entries, in *e (grown as needed). */
static size_t child_entries(struct flame_tree *t, uint32_t id, struct entry **e, size_t *cap)
{
	size_t n = 0;
	for (uint32_t c = t->nodes[id].child; c; c = t->nodes[c].sibling) {
		if (n + 2 > *cap) {
			*cap = *cap ? *cap * 2 : 64;
			*e = td_realloc(*e, *cap * sizeof **e);
		}
		if (t->nodes[c].has_leaf)
			(*e)[n++] = (struct entry){ c, LEAF };
		if (has_cont(&t->nodes[c]))
			(*e)[n++] = (struct entry){ c, CONT };
	}
	if (n > 1)
		qsort_r(*e, n, sizeof **e, entry_cmp, t);
	return n;
}

struct work {
	uint32_t node, depth;
	double start;
};

static struct flame_frame *chart_layout(struct flame_tree *t, double total, double min_count,
					size_t *nframes, double *max_delta, uint32_t *max_depth)
{
	while (t->nopen > 0) {
		struct open_frame *f = &t->open[--t->nopen];
		chart_emit(t, f->name, (uint32_t)t->nopen + 1, f->start, t->time, f->delta);
	}
	struct flame_frame *out = td_malloc((t->nchart + 1) * sizeof *out);
	size_t n = 0;
	out[n++] = (struct flame_frame){ 0, 0, 0, total, 0 };
	*max_depth = 0;
	for (size_t i = 0; i < t->nchart; i++) {
		struct flame_frame *f = &t->chart[i];
		if (f->end - f->start < min_count)
			continue;
		out[n++] = *f;
		if (f->depth > *max_depth)
			*max_depth = f->depth;
	}
	*max_delta = t->max_line_delta > 1 ? t->max_line_delta : 1;
	*nframes = n;
	return out;
}

struct flame_frame *flame_tree_layout(struct flame_tree *t, double total, double min_count,
				      size_t *nframes, double *max_delta, uint32_t *max_depth)
{
	if (t->o.flamechart)
		return chart_layout(t, total, min_count, nframes, max_delta, max_depth);
	sum_totals(t);
	double md = 1;
	for (size_t i = 0; i < t->nnodes; i++)
		if (fabs(t->nodes[i].delta) > md)
			md = fabs(t->nodes[i].delta);
	*max_delta = md;

	size_t cap = 1024, n = 0;
	struct flame_frame *out = td_malloc(cap * sizeof *out);
	const struct node *root = &t->nodes[0];
	out[n++] = (struct flame_frame){ 0, 0, 0, total, root->delta };
	*max_depth = 0;

	size_t wcap = 256, nw = 0;
	struct work *w = td_malloc(wcap * sizeof *w);
	w[nw++] = (struct work){ 0, 0, root->leaf + root->cont_self };
	struct entry *e = NULL;
	size_t ecap = 0;
	while (nw > 0) {
		struct work cur = w[--nw];
		size_t ne = child_entries(t, cur.node, &e, &ecap);
		double cursor = cur.start;
		for (size_t i = 0; i < ne; i++) {
			const struct node *c = &t->nodes[e[i].node];
			double start = cursor, delta = 0, cont_start = -1;
			if (e[i].kind == LEAF) {
				cursor += c->leaf;
				delta = c->delta;
				if (i + 1 < ne && e[i + 1].node == e[i].node)
					i++;           /* the CONT run follows: one frame */
			}
			if (e[i].kind == CONT) {
				cont_start = cursor + c->cont_self;
				cursor += c->total - c->leaf;
			}
			if (cursor - start < min_count)
				continue;
			if (n == cap) {
				cap *= 2;
				out = td_realloc(out, cap * sizeof *out);
			}
			out[n++] = (struct flame_frame){ c->name, cur.depth + 1, start, cursor, delta };
			if (cur.depth + 1 > *max_depth)
				*max_depth = cur.depth + 1;
			if (cont_start >= 0 && c->child) {
				if (nw == wcap) {
					wcap *= 2;
					w = td_realloc(w, wcap * sizeof *w);
				}
				w[nw++] = (struct work){ e[i].node, cur.depth + 1, cont_start };
			}
		}
	}
	free(e);
	free(w);
	*nframes = n;
	return out;
}

void flame_tree_each_stack(struct flame_tree *t, flame_stack_fn fn, void *ctx)
{
	sum_totals(t);
	/* depth-first in frame order; a node's own lines before its callees */
	size_t wcap = 256, nw = 0, pcap = 64;
	struct work *w = td_malloc(wcap * sizeof *w);
	uint32_t *names = td_malloc(pcap * sizeof *names);
	struct entry *e = NULL;
	size_t ecap = 0;
	if (t->nodes[0].leaf + t->nodes[0].cont_self > 0 || t->nodes[0].has_leaf)
		fn(ctx, names, 0, t->nodes[0].leaf + t->nodes[0].cont_self);
	w[nw++] = (struct work){ 0, 0, 0 };
	while (nw > 0) {
		struct work cur = w[--nw];
		if (cur.depth > 0) {
			if (cur.depth > pcap) {
				pcap = cur.depth * 2;
				names = td_realloc(names, pcap * sizeof *names);
			}
			names[cur.depth - 1] = t->nodes[cur.node].name;
			const struct node *nd = &t->nodes[cur.node];
			if (nd->has_leaf || nd->has_cont_self)
				fn(ctx, names, cur.depth, nd->leaf + nd->cont_self);
		}
		size_t ne = child_entries(t, cur.node, &e, &ecap);
		/* each child once (a LEAF and a CONT entry name the same node),
		 * pushed in reverse so the first sibling comes out first */
		for (size_t i = ne; i-- > 0;) {
			if (e[i].kind == CONT && t->nodes[e[i].node].has_leaf)
				continue;
			if (nw == wcap) {
				wcap *= 2;
				w = td_realloc(w, wcap * sizeof *w);
			}
			w[nw++] = (struct work){ e[i].node, cur.depth + 1, 0 };
		}
	}
	free(e);
	free(w);
	free(names);
}
