/* Top-down trees from the node values toplev printed.
 *
 * toplev names a node by its path from Level 1
 * ("Backend_Bound.Memory_Bound.DRAM_Bound"), so the tree needs no table:
 * a node is named by its last component in tdkit's vocabulary (lower case,
 * as perf's tma_* names are: both come from Intel's TMA spreadsheet) and
 * hangs under the node its path names before it. Its domain is toplev's
 * unit: "% Slots" and "% Slots_est" are shares of slots, the rest
 * ("% Clocks", "% Stalls", "% Uops" ...) shares of cycles.
 *
 * A definition is made once per path and kept for the life of the program
 * in one fixed table (a tree points at its definitions, and a chart keeps
 * their names), so toplev's hierarchy of every version fits, whatever
 * nodes it added or renamed. */
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "tma.h"

#define MAX_DEFS 1024
#define PATH_CAP 192
#define NAME_CAP 64

static struct tma_def defs[MAX_DEFS];
static char def_path[MAX_DEFS][PATH_CAP];
static char def_name[MAX_DEFS][NAME_CAP];
static char def_leaf[MAX_DEFS][NAME_CAP];      /* toplev's spelling */
static bool def_implied[MAX_DEFS];             /* made for a child's path: no unit seen yet */
static int ndefs;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const no_events[] = { NULL };
static struct tma_model model = {
	"toplev", "as toplev printed them (pmu-tools)", no_events, 0, defs, 0, NULL,
};

/* Older toplev names of nodes tdkit knows by their current name. */
static const struct {
	const char *old, *now;
} renamed[] = {
	{ "frontend_latency", "fetch_latency" }, { "frontend_bandwidth", "fetch_bandwidth" },
};

const char *tma_toplev_node(const char *name, char *buf, size_t cap)
{
	const char *leaf = strrchr(name, '.');
	leaf = leaf ? leaf + 1 : name;
	size_t n = strlen(leaf);
	while (n && (leaf[n - 1] == ':' || leaf[n - 1] == '^'))
		n--;                          /* "Frontend_Bound:" (toplev 3), "Memory_Bound^" (--describe) */
	if (n == 0 || n >= cap)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)leaf[i];
		if (!isalnum(c) && c != '_')
			return NULL;
		buf[i] = (char)tolower(c);
	}
	buf[n] = '\0';
	for (size_t i = 0; i < sizeof renamed / sizeof *renamed; i++)
		if (!strcmp(buf, renamed[i].old))
			snprintf(buf, cap, "%s", renamed[i].now);
	return buf;
}

/* The definition of the node at path[0..n) (made, with its ancestors',
 * when new); NULL when the table is full or the path names no node.
 * Called with the lock held. */
static const struct tma_def *def_for(const char *path, size_t n, const char *domain, bool implied)
{
	if (n == 0 || n >= PATH_CAP)
		return NULL;
	for (int i = 0; i < ndefs; i++)
		if (!strncmp(def_path[i], path, n) && def_path[i][n] == '\0') {
			if (def_implied[i] && !implied) {
				defs[i].domain = domain;
				def_implied[i] = false;
			}
			return &defs[i];
		}
	const char *dot = NULL;
	for (size_t i = n; i-- > 0;)
		if (path[i] == '.') {
			dot = path + i;
			break;
		}
	const struct tma_def *parent = NULL;
	if (dot && !(parent = def_for(path, (size_t)(dot - path), domain, true)))
		return NULL;
	char leaf[PATH_CAP], name[NAME_CAP];
	const char *l = dot ? dot + 1 : path;
	snprintf(leaf, sizeof leaf, "%.*s", (int)(path + n - l), l);
	if (ndefs == MAX_DEFS || strlen(leaf) >= NAME_CAP || !tma_toplev_node(leaf, name, sizeof name))
		return NULL;
	int i = ndefs;
	memcpy(def_path[i], path, n);
	def_path[i][n] = '\0';
	snprintf(def_name[i], NAME_CAP, "%s", name);
	memcpy(def_leaf[i], leaf, strlen(leaf) + 1);   /* fits: checked above */
	def_implied[i] = implied;
	defs[i] = (struct tma_def){ def_name[i], def_leaf[i], parent ? parent->name : NULL, NAN, domain };
	ndefs = i + 1;                       /* after the entry is whole: a reader of ndefs sees it complete */
	model.ndefs = ndefs;
	return &defs[i];
}

static int depth(const char *path)
{
	int d = 1;
	for (; *path; path++)
		d += *path == '.';
	return d;
}

static int node_named(const struct tma_tree *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->node[i].def->name, name))
			return i;
	return -1;
}

/* Paths that name each other's nodes as parents ("A.B" and "B.A") would
 * make the tree a loop: a node whose line of parents comes back to it is
 * taken out. A line of more than n parents has come back. */
static int drop_loops(struct tma_tree *t)
{
	int dropped = 0;
	for (int i = 0; i < t->n;) {
		int steps = 0;
		const char *p = tma_shown_parent(t, &t->node[i]);
		while (p && steps <= t->n) {
			int k = node_named(t, p);
			if (k < 0)
				break;
			p = tma_shown_parent(t, &t->node[k]);
			steps++;
		}
		if (steps > t->n) {
			memmove(&t->node[i], &t->node[i + 1], (size_t)(t->n - i - 1) * sizeof(t->node[0]));
			t->n--;
			dropped++;
			i = 0;
			continue;
		}
		i++;
	}
	return dropped;
}

bool tma_toplev_build(const struct tma_printed *p, int n, struct tma_tree *t)
{
	memset(t, 0, sizeof(*t));
	t->model = &model;
	int dropped = 0;
	for (int i = 0; i < n; i++) {
		if (!p[i].toplev || isnan(p[i].value))
			continue;
		/* "% Slots Backend_Bound.Memory_Bound": the name after the last blank */
		const char *name = strrchr(p[i].unit, ' ');
		name = name ? name + 1 : p[i].unit;
		const char *domain = strstr(p[i].unit, "Slots") && strstr(p[i].unit, "Slots") < name ? "slots" : "cycles";
		pthread_mutex_lock(&lock);
		const struct tma_def *d = def_for(name, strlen(name), domain, false);
		pthread_mutex_unlock(&lock);
		if (d && node_named(t, d->name) >= 0)
			continue;                   /* a node printed twice, or a name two paths give: the first */
		if (!d || t->n == TMA_MAX_NODES) {
			dropped++;
			continue;
		}
		struct tma_node *nd = &t->node[t->n++];
		nd->def = d;
		nd->level = depth(name);
		nd->value = p[i].value / 100;
		nd->source = "toplev";
	}
	dropped += drop_loops(t);
	tma_tree_finish(t);
	if (dropped && !t->warning[0])
		snprintf(t->warning, sizeof t->warning, "%d node values toplev printed are not in the tree (a name that is "
			 "no node name, paths that make a loop, or more than %d nodes)", dropped, TMA_MAX_NODES);
	return t->n > 0;
}
