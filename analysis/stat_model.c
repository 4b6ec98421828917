#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/events.h"
#include "common/bytes.h"
#include "common/diag.h"
#include "common/intern.h"
#include "common/plain.h"
#include "common/grow.h"
#include "common/next_guess.h"
#include "stat_model.h"

/* The strings a table interned last, to skip hashing: rows repeat a few
 * scopes, events and units. An id never changes, so a hit is exact. */
#define RECENT 8
#define RECENT_LEN 64

struct recent {
	struct {
		uint32_t len, id;
		char s[RECENT_LEN];
	} e[RECENT];
	int n, next;
	int hit;                /* the entry found last: rows cycle, so it or the one after is tried first */
};

/* What a record's scope, event and metric unit were found to be, in one
 * session: rows repeat them every interval. Kept in the slot their hash
 * picks; a record is answered from a slot only when all three strings
 * equal the slot's, byte for byte, so a hit gives what the lookups give.
 * Rows come in the same order every interval: the slots that followed the
 * last record's before (row_guesses) are tried before the hash is taken, and, when the
 * record's five strings lie in one run (stat_record.run), in one
 * comparison with the run the slot keeps. */
#define ROW_IDS 1024
#define ROW_IDS_FIRST 64
#define ROW_RUN 128                        /* the longest run a slot keeps, its last NUL counted */
struct row_ids {
	uint64_t hash;
	int session;                       /* -1: empty */
	uint32_t next[2];                  /* the slots of the records that followed it the last two
					      times they differed, the latest first */
	uint32_t event, key;               /* event_id, and set_key in the session */
	const char *scope, *unit, *event_raw;  /* interned: the scope, metric unit and event as read */
	size_t scope_len, unit_len, event_len;
	size_t run_len;                    /* the stat_record.run of run; 0: none kept */
	char run[ROW_RUN];                 /* the five strings of the record that filled the
					      slot, one after another, each with its NUL */
};

/* Per-record lookups without string work: an event spelling is normalized
 * once; a (session, scope, PMU) key is interned once and indexes the open
 * interval's set and the run total directly. */
struct stat_lookup {
	struct td_intern *strings;         /* scopes, PMUs, units, files */
	struct td_intern *events;          /* raw spelling -> names[id] */
	struct recent recent_scopes, recent_units, recent_events, recent_keys;
	const char **pmu_of_name, **name_of_name;  /* names[id]'s strings interned */
	bool *topdown_of_name;             /* names[id].name has a Top-down mark */
	unsigned char *len_of_name;        /* strlen(names[id].name) */
	const char *file_raw, *file;       /* the last record's file, interned */
	struct event_name *names;
	struct td_intern *keys;            /* set keys -> the arrays below */
	int *cur_of_key, *total_of_key;    /* index + 1; 0 = none */
	struct metrics_plan **plan_of_key; /* interval sets' metric inputs, NULL until needed */
	unsigned *gen_of_key;              /* cur_of_key valid when == gen */
	bool *exact_of_key;                /* its scope and PMU are whole in the key and in a set */
	uint32_t *after_of_key;            /* key + 1 of an exact key whose set sorts after its; 0 = none */
	unsigned gen;
	uint32_t nnames, cap_names, cap_keys;
	int cur_initialized;               /* cur[] entries with storage */
	bool plain;                        /* td_plain(): no row ids, recent strings, plans or learnt order */
	uint32_t last_row;                 /* the slot of the last record */
	struct row_ids *proved;            /* the ids of the last record added; NULL: none */
	struct row_ids *carried;           /* the record being added is that one again
					      (stat_record.again): its ids, else NULL */
	/* rows has nrows slots (a power of two up to ROW_IDS): it starts small
	 * and doubles when a record would take a slot another one holds,
	 * starting empty again (a slot only spares lookups that give the same
	 * ids), so a small input costs a small table. rows[i] holds an entry
	 * (maybe empty: session -1) only when bit i of rows_set is set; slot 0
	 * is set from the start, and every other slot a guess or a next can
	 * name was set by row_ids_hashed before. */
	uint32_t nrows;
	uint64_t rows_set[ROW_IDS / 64];
	struct row_ids *rows;
};

/* Makes slot an empty entry unless it holds one. */
static void row_slot_set(struct stat_lookup *l, uint32_t slot)
{
	uint64_t bit = (uint64_t)1 << (slot % 64);
	if (l->rows_set[slot / 64] & bit)
		return;
	l->rows_set[slot / 64] |= bit;
	l->rows[slot] = (struct row_ids){ .session = -1 };
}

/* An empty table of n slots in place of rows. */
static void row_table(struct stat_lookup *l, uint32_t n)
{
	free(l->rows);
	l->rows = td_malloc(n * sizeof(*l->rows));
	l->nrows = n;
	memset(l->rows_set, 0, sizeof(l->rows_set));
	l->last_row = 0;
	row_slot_set(l, 0);
}

void stat_model_init(struct stat_model *m)
{
	memset(m, 0, sizeof(*m));
	m->elapsed_s = NAN;
	m->cur_interval = -1;
	for (int i = 0; i < STAT_MAX_SESSIONS; i++) {
		m->elapsed[i] = NAN;
		m->period[i] = NAN;
		m->first_interval[i] = NAN;
		m->last_interval[i] = NAN;
	}
	m->min_enabled_pct = 100;
	m->block_set = -1;
	m->lookup = td_calloc(1, sizeof(*m->lookup));
	m->lookup->strings = td_intern_new();
	m->lookup->events = td_intern_new();
	m->lookup->keys = td_intern_new();
	m->lookup->gen = 1;
	m->lookup->plain = td_plain();
	if (m->lookup->plain)
		m->lookup->recent_scopes.n = m->lookup->recent_units.n = m->lookup->recent_events.n =
			m->lookup->recent_keys.n = -1;
	row_table(m->lookup, ROW_IDS_FIRST);
}

void stat_model_free(struct stat_model *m)
{
	struct stat_lookup *l = m->lookup;
	for (int i = 0; i < m->nsets; i++)
		counter_set_free(&m->sets[i]);
	for (int i = 0; i < l->cur_initialized; i++)
		counter_set_free(&m->cur[i]);
	for (int i = 0; i < m->ntotals; i++)
		counter_set_free(&m->totals[i]);
	free(m->sets);
	free(m->cur);
	free(m->totals);
	free(m->perf);
	free(m->perf_cur);
	td_intern_free(l->strings);
	td_intern_free(l->events);
	td_intern_free(l->keys);
	free(l->rows);
	free(l->names);
	free(l->pmu_of_name);
	free(l->name_of_name);
	free(l->topdown_of_name);
	free(l->len_of_name);
	free(l->cur_of_key);
	free(l->total_of_key);
	free(l->gen_of_key);
	free(l->exact_of_key);
	free(l->after_of_key);
	for (uint32_t i = 0; i < l->cap_keys; i++)
		metrics_plan_free(l->plan_of_key[i]);
	free(l->plan_of_key);
	free(l);
}


/* td_intern, answered from the recent strings when it can be (each string
 * is there once at most, so the order of trying does not matter). */
static uint32_t intern_recent(struct td_intern *t, struct recent *r, const char *s, size_t n)
{
	if (r->n < 0)
		return td_intern(t, s, n);          /* td_plain() */
	for (int k = 0; r->n && k < r->n + 2; k++) {
		int i = k == 0 ? r->hit : k == 1 ? (r->hit + 1 == r->n ? 0 : r->hit + 1) : k - 2;
		if (r->e[i].len == n && td_same_bytes(r->e[i].s, s, n)) {
			r->hit = i;
			return r->e[i].id;
		}
	}
	uint32_t id = td_intern(t, s, n);
	if (n < RECENT_LEN) {
		r->e[r->next].len = (uint32_t)n;
		r->e[r->next].id = id;
		memcpy(r->e[r->next].s, s, n);
		r->next = (r->next + 1) % RECENT;
		if (r->n < RECENT)
			r->n++;
	}
	return id;
}

static const char *intern_str(struct stat_model *m, const char *s)
{
	s = s ? s : "";
	return td_intern_str(m->lookup->strings, td_intern(m->lookup->strings, s, strlen(s)), NULL);
}

/* intern_str through one of the recent caches; len: strlen(s) if known, else -1 */
static const char *intern_str_recent(struct stat_model *m, struct recent *r, const char *s, int len)
{
	size_t n = s && len >= 0 ? (size_t)len : s ? strlen(s) : 0;
	s = s ? s : "";
	return td_intern_str(m->lookup->strings, intern_recent(m->lookup->strings, r, s, n), NULL);
}

/* The run is its file's only one. */
static bool session_alone(const struct stat_model *m, int session)
{
	return m->session_run[session] == 1 &&
	       (session == m->session || m->session_run[session + 1] == 1);
}

/* The file name of a record: the reader hands out the same pointer for
 * every line of a file, so the interned copy is kept while it does. */
static const char *intern_file(struct stat_model *m, const char *file)
{
	struct stat_lookup *l = m->lookup;
	if (!file || file != l->file_raw) {          /* one address, one name: stat.h */
		l->file_raw = file;
		l->file = intern_str(m, file);
	}
	return l->file;
}

/* len: strlen(raw) if known, else -1 */
static uint32_t event_id(struct stat_model *m, const char *raw, int len)
{
	struct stat_lookup *l = m->lookup;
	uint32_t id = intern_recent(l->events, &l->recent_events, raw, len >= 0 ? (size_t)len : strlen(raw));
	if (id >= l->cap_names) {
		size_t cap = td_alloc_nr(l->cap_names, (size_t)id + 1, sizeof(*l->names));
		l->names = td_realloc_array(l->names, cap, sizeof(*l->names));
		l->pmu_of_name = td_realloc_array(l->pmu_of_name, cap, sizeof(*l->pmu_of_name));
		l->name_of_name = td_realloc_array(l->name_of_name, cap, sizeof(*l->name_of_name));
		l->topdown_of_name = td_realloc_array(l->topdown_of_name, cap, sizeof(*l->topdown_of_name));
		l->len_of_name = td_realloc_array(l->len_of_name, cap, sizeof(*l->len_of_name));
		TD_SET_CAP(l->cap_names, cap);
	}
	if (id >= l->nnames) {          /* first time this spelling is seen */
		event_normalize(raw, &l->names[id]);
		l->pmu_of_name[id] = intern_str(m, l->names[id].pmu);
		l->name_of_name[id] = intern_str(m, l->names[id].name);
		l->topdown_of_name[id] = event_has_topdown_mark(l->names[id].name);
		l->len_of_name[id] = (unsigned char)strlen(l->names[id].name);
		l->nnames = id + 1;
	}
	return id;
}

/* The key's scope and PMU (scope_len bytes after the session, the rest
 * after the separator) are the only ones that give it, and a set keeps
 * them whole: the set of the key has them. */
static bool exact_key(const char *buf, size_t n, size_t scope_len)
{
	const size_t keeps = sizeof(((struct counter_set *)0)->scope) - 1;
	_Static_assert(sizeof(((struct counter_set *)0)->pmu) == sizeof(((struct counter_set *)0)->scope),
		       "a set keeps scopes and PMUs alike");
	return scope_len < keeps && n - 2 - scope_len < keeps && !memchr(buf + 1, '\x1f', scope_len) &&
	       !memchr(buf + 2 + scope_len, '\x1f', n - 2 - scope_len);
}

static uint32_t set_key(struct stat_model *m, int session, const char *scope, const char *pmu)
{
	struct stat_lookup *l = m->lookup;
	char buf[256];
	size_t n = 0;
	_Static_assert('0' + STAT_MAX_SESSIONS <= 255, "a session is one byte of the key");
	buf[n++] = (char)('0' + session);
	for (size_t i = 0; i < 120 && scope[i]; i++)   /* at most 120 bytes of each: the key fits buf */
		buf[n++] = scope[i];
	size_t scope_len = n - 1;
	buf[n++] = '\x1f';
	for (size_t i = 0; i < 120 && pmu[i]; i++)
		buf[n++] = pmu[i];
	uint32_t id = intern_recent(l->keys, &l->recent_keys, buf, n);
	if (id >= l->cap_keys) {
		size_t cap = td_alloc_nr(l->cap_keys, (size_t)id + 1, sizeof(*l->plan_of_key));
		l->cur_of_key = td_realloc_array(l->cur_of_key, cap, sizeof(int));
		l->total_of_key = td_realloc_array(l->total_of_key, cap, sizeof(int));
		l->gen_of_key = td_realloc_array(l->gen_of_key, cap, sizeof(unsigned));
		l->exact_of_key = td_realloc_array(l->exact_of_key, cap, sizeof(bool));
		l->after_of_key = td_realloc_array(l->after_of_key, cap, sizeof(uint32_t));
		l->plan_of_key = td_realloc_array(l->plan_of_key, cap, sizeof(*l->plan_of_key));
		memset(l->plan_of_key + l->cap_keys, 0, (cap - l->cap_keys) * sizeof(*l->plan_of_key));
		memset(l->cur_of_key + l->cap_keys, 0, (cap - l->cap_keys) * sizeof(int));
		memset(l->total_of_key + l->cap_keys, 0, (cap - l->cap_keys) * sizeof(int));
		memset(l->gen_of_key + l->cap_keys, 0, (cap - l->cap_keys) * sizeof(unsigned));
		memset(l->after_of_key + l->cap_keys, 0, (cap - l->cap_keys) * sizeof(uint32_t));
		TD_SET_CAP(l->cap_keys, cap);
	}
	l->exact_of_key[id] = exact_key(buf, n, scope_len);
	return id;
}

static size_t len_of(const char *s, int len) { return len >= 0 ? (size_t)len : strlen(s); }

/* The slot's run: the record's five strings, when they fit. */
static void keep_run(struct row_ids *ids, const struct stat_record *r)
{
	const char *s[5] = { r->scope, r->event, r->unit, r->metric_unit, r->threshold };
	size_t len[5], total = 0;
	ids->run_len = 0;
	for (int i = 0; i < 5; i++) {
		if (!s[i])
			return;
		total += (len[i] = len_of(s[i], r->len[i])) + 1;
	}
	if (total > ROW_RUN)
		return;
	char *w = ids->run;
	for (int i = 0; i < 5; i++) {
		memcpy(w, s[i], len[i]);
		w[len[i]] = '\0';
		w += len[i] + 1;
	}
	ids->run_len = total - 1;
}

/* The slots a record's strings are most likely in, in the order to try. */
static inline void row_guesses(const struct stat_lookup *l, const struct stat_record *r, uint32_t guess[3])
{
	td_next_guesses(l->last_row, l->rows[l->last_row].next, r->kind == STAT_METRIC, guess);
}

/* row_ids' guesses for a record whose five strings lie in one run
 * (stat_record.run): NULL when no guessed slot keeps that run. */
static inline struct row_ids *row_ids_guessed(struct stat_lookup *l, int session, const struct stat_record *r)
{
	const size_t run = r->run;
	if (!run)
		return NULL;
	uint32_t guess[3];
	row_guesses(l, r, guess);
	for (int g = 0; g < 3; g++) {
		struct row_ids *ids = &l->rows[guess[g]];
		if (ids->run_len == run && ids->session == session && td_same_bytes(ids->run, r->scope, run)) {
			l->last_row = guess[g];
			return ids;
		}
	}
	return NULL;
}

static inline bool row_holds(const struct row_ids *ids, int session, const struct stat_record *r, size_t ns,
			     size_t ne, size_t nu)
{
	return ids->event_len == ne && ids->scope_len == ns && ids->unit_len == nu && ids->session == session &&
	       td_same_bytes(ids->event_raw, r->event, ne) && td_same_bytes(ids->scope, r->scope, ns) &&
	       td_same_bytes(ids->unit, r->metric_unit, nu);
}

/* row_ids when neither guess holds the record's strings: the slot of their
 * hash, refilled when it holds others. */
static __attribute__((noinline)) struct row_ids *row_ids_hashed(struct stat_model *m, const struct stat_record *r,
								size_t ns, size_t ne, size_t nu)
{
	struct stat_lookup *l = m->lookup;
	uint64_t h = td_hash_short(r->scope, ns, (uint64_t)m->session);
	h = td_hash_short(r->event, ne, h);
	h = td_hash_short(r->metric_unit, nu, h);
	uint32_t slot = (uint32_t)h & (l->nrows - 1);
	row_slot_set(l, slot);
	struct row_ids *ids = &l->rows[slot];
	const bool hit = ids->hash == h && row_holds(ids, m->session, r, ns, ne, nu);
	if (!hit && ids->session >= 0 && l->nrows < ROW_IDS) {    /* another record's slot */
		row_table(l, 2 * l->nrows);
		slot = (uint32_t)h & (l->nrows - 1);
		row_slot_set(l, slot);
		ids = &l->rows[slot];
	}
	td_next_learn(l->rows[l->last_row].next, l->last_row, slot);
	l->last_row = slot;
	if (hit)
		return ids;
	uint32_t event = event_id(m, r->event, r->len[1]);
	*ids = (struct row_ids){
		.hash = h, .session = m->session, .next = { ids->next[0], ids->next[1] }, .event = event,
		.key = set_key(m, m->session, r->scope, l->names[event].pmu),
		.scope = intern_str_recent(m, &l->recent_scopes, r->scope, (int)ns),
		.unit = intern_str_recent(m, &l->recent_units, r->metric_unit, (int)nu),
		.event_raw = td_intern_str(l->events, event, NULL),
		.scope_len = ns, .unit_len = nu, .event_len = ne,
	};
	keep_run(ids, r);
	return ids;
}

/* row_ids when the guesses could not be tried as one run. */
static __attribute__((noinline)) struct row_ids *row_ids_slow(struct stat_model *m, const struct stat_record *r)
{
	struct stat_lookup *l = m->lookup;
	size_t ns = len_of(r->scope, r->len[0]), ne = len_of(r->event, r->len[1]), nu = len_of(r->metric_unit, r->len[3]);
	uint32_t guess[3];
	row_guesses(l, r, guess);
	for (int g = 0; g < 3; g++)
		if (row_holds(&l->rows[guess[g]], m->session, r, ns, ne, nu)) {
			l->last_row = guess[g];       /* a row's metric after its counter: the chain stays */
			return &l->rows[guess[g]];
		}
	return row_ids_hashed(m, r, ns, ne, nu);
}

/* The ids of a record's strings in the open session, from a slot that
 * holds the same strings, else looked up and kept in the slot of their
 * hash; NULL under td_plain(). */
static inline __attribute__((always_inline)) struct row_ids *row_ids(struct stat_model *m, const struct stat_record *r)
{
	struct stat_lookup *l = m->lookup;
	if (l->plain)
		return NULL;
	if (l->carried)
		return l->proved = l->carried;
	struct row_ids *hit = row_ids_guessed(l, m->session, r);
	return l->proved = hit ? hit : row_ids_slow(m, r);
}

static struct counter_set *append_set(struct counter_set **sets, int *n, int *cap)
{
	TD_ALLOC_GROW(*sets, *n + 1, *cap);
	return &(*sets)[(*n)++];
}

/* A whole-run set perf printed: few of them, found by scanning. */
static struct counter_set *summary_set(struct stat_model *m, const char *scope, const char *pmu)
{
	for (int i = m->nsets; i-- > 0;) {
		struct counter_set *s = &m->sets[i];
		if (s->session != m->session)
			break;
		if (strcmp(s->scope, scope) == 0 && strcmp(s->pmu, pmu) == 0)
			return s;
	}
	struct counter_set *s = append_set(&m->sets, &m->nsets, &m->cap_sets);
	counter_set_init(s, -1, scope, pmu);
	s->session = m->session;
	return s;
}

/* The open interval's set of the key, new in it. */
static struct counter_set *new_interval_set(struct stat_model *m, uint32_t key, const char *scope, const char *pmu)
{
	struct stat_lookup *l = m->lookup;
	TD_ALLOC_GROW(m->cur, m->ncur + 1, m->cap_cur);
	struct counter_set *s = &m->cur[m->ncur++];
	if (m->ncur <= l->cur_initialized) {
		if (s->key == key && l->exact_of_key[key])    /* the same scope and PMU as before */
			counter_set_empty(s, m->cur_interval);
		else
			counter_set_reset(s, m->cur_interval, scope, pmu);
	} else {
		counter_set_init(s, m->cur_interval, scope, pmu);
		l->cur_initialized = m->ncur;
	}
	s->session = m->cur_session;
	s->key = key;
	l->gen_of_key[key] = l->gen;
	l->cur_of_key[key] = m->ncur;
	return s;
}

static inline struct counter_set *interval_set(struct stat_model *m, uint32_t key, const char *scope, const char *pmu)
{
	struct stat_lookup *l = m->lookup;
	if (l->gen_of_key[key] == l->gen)
		return &m->cur[l->cur_of_key[key] - 1];
	return new_interval_set(m, key, scope, pmu);
}

static struct counter_set *total_set(struct stat_model *m, uint32_t key, const char *scope, const char *pmu)
{
	struct stat_lookup *l = m->lookup;
	if (l->total_of_key[key])
		return &m->totals[l->total_of_key[key] - 1];
	struct counter_set *s = append_set(&m->totals, &m->ntotals, &m->cap_totals);
	counter_set_init(s, -1, scope, pmu);
	s->session = m->session;
	l->total_of_key[key] = m->ntotals;
	return s;
}

static int cmp_sets(const void *a, const void *b)
{
	const struct counter_set *x = a, *y = b;
	if (x->session != y->session)
		return x->session - y->session;
	if (x->interval != y->interval)
		return x->interval < y->interval ? -1 : 1;
	int c = strverscmp(x->scope, y->scope);
	return c ? c : strcmp(x->pmu, y->pmu);
}

static double nominal_interval(const struct stat_model *m, int session);
static void add_to_totals(struct stat_model *m);
static void repeat_starts_group(struct stat_model *m, struct counter *c, int copies);

/* cmp_sets for two sets of the open interval: they differ only in scope
 * and PMU, which an exact key fixes, so the order of two exact keys found
 * once holds in every interval (intervals repeat their sets in order). */
static int cmp_open(struct stat_lookup *l, const struct counter_set *x, const struct counter_set *y)
{
	if (l->plain)
		return cmp_sets(x, y);
	if (l->after_of_key[x->key] == y->key + 1)
		return -1;
	if (l->after_of_key[y->key] == x->key + 1)
		return 1;
	int c = cmp_sets(x, y);
	if (c && l->exact_of_key[x->key] && l->exact_of_key[y->key]) {
		if (c < 0)
			l->after_of_key[x->key] = y->key + 1;
		else
			l->after_of_key[y->key] = x->key + 1;
	}
	return c;
}

/* The open interval's sets in cmp_sets order, sets that compare equal in
 * the order they came (as qsort's merge sort leaves them): up to 16 by
 * insertion, which is stable too, so both give the same order. */
static void sort_sets(struct stat_lookup *l, struct counter_set *a, int n)
{
	if (n > 16) {
		qsort(a, (size_t)n, sizeof(*a), cmp_sets);
		return;
	}
	for (int i = 1; i < n; i++) {
		if (cmp_open(l, &a[i - 1], &a[i]) <= 0)
			continue;
		struct counter_set x = a[i];
		int j = i;
		while (j > 0 && cmp_open(l, &a[j - 1], &x) > 0) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = x;
	}
}

/* The open interval is complete: sort it, hand it out, reuse its storage. */
static void close_interval(struct stat_model *m)
{
	if (m->cur_interval < 0)
		return;
	if (m->ncur > 1) {
		sort_sets(m->lookup, m->cur, m->ncur);
		for (int i = 0; i < m->ncur; i++)          /* where each key's set is now */
			m->lookup->cur_of_key[m->cur[i].key] = i + 1;
	}
	if (isnan(m->period[m->cur_session]))
		m->period[m->cur_session] = nominal_interval(m, m->cur_session);
	m->intervals++;
	add_to_totals(m);
	if (m->on_interval)
		m->on_interval(m->on_interval_ctx, m);
	m->ncur = 0;
	m->nperf_cur = 0;
	m->last_set = NULL;
	m->block_set = -1;
	m->lookup->gen++;
	m->cur_interval = -1;
}

static void start_interval(struct stat_model *m, double interval)
{
	close_interval(m);
	m->cur_session = m->session;
	m->cur_interval = interval;
	m->has_intervals = true;
	if (isnan(m->first_interval[m->session]) || interval < m->first_interval[m->session])
		m->first_interval[m->session] = interval;
	if (isnan(m->last_interval[m->session]) || interval > m->last_interval[m->session])
		m->last_interval[m->session] = interval;
}

static inline void open_interval(struct stat_model *m, double interval)
{
	if (m->cur_interval < 0 || m->cur_session != m->session || m->cur_interval != interval)
		start_interval(m, interval);
}

static void add_perf_metric(struct stat_model *m, const struct stat_record *r)
{
	bool in_interval = r->interval >= 0;
	struct perf_metric **arr = in_interval ? &m->perf_cur : &m->perf;
	int *n = in_interval ? &m->nperf_cur : &m->nperf;
	int *cap = in_interval ? &m->cap_perf_cur : &m->cap_perf;
	TD_ALLOC_GROW(*arr, *n + 1, *cap);
	struct perf_metric *p = &(*arr)[(*n)++];
	struct stat_lookup *l = m->lookup;
	p->key = 0;
	const struct row_ids *ids = row_ids(m, r);
	uint32_t id = ids ? ids->event : event_id(m, r->event, r->len[1]);
	const struct event_name *en = &l->names[id];
	p->session = m->session;
	p->interval = r->interval;
	p->scope = ids ? ids->scope : intern_str_recent(m, &l->recent_scopes, r->scope, r->len[0]);
	p->pmu = l->pmu_of_name[id];
	p->event = l->name_of_name[id];
	p->unit = ids ? ids->unit : intern_str_recent(m, &l->recent_units, r->metric_unit, r->len[3]);
	p->file = intern_file(m, r->file);
	p->value = r->metric_value;
	p->decimals = r->metric_decimals;
	p->line = r->line;
	p->source = r->source;
	m->toplev_metrics += r->source == STAT_FROM_TOPLEV;
	p->group = m->metric_group;
	/* --metric-only output has no counters: its metrics still need a set */
	if (in_interval)
		interval_set(m, p->key = ids ? ids->key : set_key(m, m->session, r->scope, en->pmu), r->scope, en->pmu);
	else
		summary_set(m, r->scope, en->pmu);
}

static void add_counter(struct stat_model *m, const struct stat_record *r)
{
	const struct row_ids *ids = row_ids(m, r);
	uint32_t id = ids ? ids->event : event_id(m, r->event, r->len[1]);
	const struct event_name *en = &m->lookup->names[id];
	double v = (r->not_counted || r->not_supported) ? NAN : r->value;
	m->counters++;
	m->session_has_counters = true;
	if (!isnan(r->variance_pct))
		m->session_variance[m->session] = true;
	m->not_counted += r->not_counted;
	m->not_supported += r->not_supported;
	if (!r->not_supported && r->enabled_pct < m->min_enabled_pct)
		m->min_enabled_pct = r->enabled_pct;
	struct counter_set *s;
	if (r->interval < 0) {
		s = summary_set(m, r->scope, en->pmu);
	} else {
		uint32_t key = ids ? ids->key : set_key(m, m->session, r->scope, en->pmu);
		s = interval_set(m, key, r->scope, en->pmu);
		s->key = key;
	}
	int at;
	int copies = counter_set_add_copy_marked(s, m->lookup->name_of_name[id], m->lookup->len_of_name[id],
						 m->lookup->topdown_of_name[id], v, r->enabled_pct,
						 r->variance_pct, m->group, &at);
	if (copies == 2) {
		m->repeated_events++;
		if (!m->repeated_example[0])
			snprintf(m->repeated_example, sizeof m->repeated_example, "%s", en->name);
	}
	if (copies >= 2)
		repeat_starts_group(m, &s->c[at], copies);
	m->metric_group = m->group;
	m->block_interval = r->interval >= 0;
	m->block_set = (int)(s - (m->block_interval ? m->cur : m->sets));
	m->block_counter = at;
	m->block_event = id;
	m->block_line = r->line;
	m->last_set = s;
	m->last_index = at;
	m->last_copy = copies - 1;
	m->last_line = r->line;
}

/* A "#" row right below a counter's (text): perf prints the counter's
 * variance and enabled % at the end of its last metric row, so what such a
 * row carries belongs to the counter when its own row had none. */
static void continue_block(struct stat_model *m, const struct stat_record *r)
{
	if (m->block_set < 0 || r->line == m->block_line)
		return;
	if (r->line != m->block_line + 1 || event_id(m, r->event, r->len[1]) != m->block_event) {
		m->block_set = -1;          /* a metric group's header is not the counter's */
		return;
	}
	m->block_line = r->line;
	if (r->enabled_pct >= 100 && isnan(r->variance_pct))
		return;
	struct counter_set *s = m->block_interval ? (m->block_set < m->ncur ? &m->cur[m->block_set] : NULL)
						  : (m->block_set < m->nsets ? &m->sets[m->block_set] : NULL);
	if (!s || m->block_counter >= s->n)
		return;
	struct counter *c = &s->c[m->block_counter];
	if (r->enabled_pct < 100 && c->enabled_pct >= 100 && !isnan(c->value)) {   /* its row had none */
		if (r->enabled_pct < c->enabled_pct)
			c->enabled_pct = r->enabled_pct;
		if (r->enabled_pct < m->min_enabled_pct)
			m->min_enabled_pct = r->enabled_pct;
	}
	if (!isnan(r->variance_pct) && c->copies == 1 && isnan(c->variance_pct)) {
		c->variance_pct = r->variance_pct;
		m->session_variance[m->session] = true;
	}
}

/* perf prints a group's events together, each once: an event printed
 * again within the open group is the first of the next group (perf's old
 * layout prints a group's metric on any of its rows, or below them). */
static void repeat_starts_group(struct stat_model *m, struct counter *c, int copies)
{
	int last = copies - 1, kept = last < 4 ? last : 4;
	bool in_group = false;
	for (int i = 0; i < kept; i++)
		in_group |= c->copy_group[i] == m->group;
	if (!in_group)
		return;
	m->group++;
	if (last < 4)
		c->copy_group[last] = m->group;
}

/* A metric on the counter's own row: perf prints it on a group's first
 * event, so that row starts a new group. */
static void start_group(struct stat_model *m, const struct stat_record *r)
{
	if (!m->last_set || r->line != m->last_line || m->last_index >= m->last_set->n)
		return;
	struct counter *c = &m->last_set->c[m->last_index];
	m->group++;
	if (m->last_copy < 4)
		c->copy_group[m->last_copy] = m->group;
	if (m->last_copy == 0)
		c->group = m->group;
	m->metric_group = m->group;
	m->last_set = NULL;
}

/* Whole-run sums of interval input: each complete interval adds once. */
static void add_to_totals(struct stat_model *m)
{
	for (int i = 0; i < m->ncur; i++) {
		const struct counter_set *s = &m->cur[i];
		counter_set_merge(total_set(m, s->key, s->scope, s->pmu), s);
	}
}

/* A new run begins, if the open one has data (a run marker right after
 * another, as "# started on" before text's banner, starts one run). */
static void start_session(struct stat_model *m)
{
	if (!m->session_has_counters)
		return;
	if (m->session + 1 == STAT_MAX_SESSIONS) {
		if (!m->sessions_full)
			td_warn(m->session_file[m->session], 0, "more than %d perf stat runs: the later ones are "
				"merged into run %d", STAT_MAX_SESSIONS, STAT_MAX_SESSIONS);
		m->sessions_full = true;
		return;
	}
	close_interval(m);
	m->session++;
	m->session_has_counters = false;
	m->session_repeats[m->session] = 0;
	m->session_variance[m->session] = false;
	m->session_file[m->session] = m->session_file[m->session - 1];
	m->session_run[m->session] = m->session_run[m->session - 1] + 1;
}

/* Each input is its own run (or runs): a record of another file starts one. */
static void note_file(struct stat_model *m, const struct stat_record *r)
{
	if (r->file == m->file_raw && m->files)
		return;
	m->file_raw = r->file;
	m->files++;
	collect_cpu_file(&m->header);
	roofline_header_file(&m->peaks, r->file);
	start_session(m);
	m->session_file[m->session] = intern_file(m, r->file);
	m->session_run[m->session] = 1;
}

const char *stat_model_cpuid(const struct stat_model *m) { return collect_cpu_id(&m->header); }

const struct roofline_peaks *stat_model_peaks(const struct stat_model *m, const char **source)
{
	return roofline_header_peaks(&m->peaks, source);
}

void stat_model_add(void *model, const struct stat_record *r)
{
	struct stat_model *m = model;
	struct stat_lookup *l = m->lookup;
	/* the record before was this one: its slot (the last one) holds these
	 * strings, as row_ids would find again */
	l->carried = r->again && l->proved && l->proved->session == m->session ? l->proved : NULL;
	l->proved = NULL;
	m->records += r->kind != STAT_HEADER;   /* a header alone is no perf stat output */
	if (r->file != m->file_raw || !m->files)
		note_file(m, r);
	switch (r->kind) {
	case STAT_ELAPSED:
		m->elapsed_s = isnan(m->elapsed_s) ? r->value : m->elapsed_s + r->value;
		m->elapsed[m->session] = r->value;
		return;
	case STAT_COMMAND:
		start_session(m);
		if (!m->command[0])
			snprintf(m->command, sizeof m->command, "%s", r->event);
		return;
	case STAT_RUNS:
		m->runs = (int)r->value;
		m->session_repeats[m->session] = m->runs;
		return;
	case STAT_PAUSE:
		if (m->on_pause)
			m->on_pause(m->on_pause_ctx);
		return;
	case STAT_HEADER:
		collect_cpu_fact(&m->header, r->event, strlen(r->event), r->unit, strlen(r->unit));
		roofline_header_fact(&m->peaks, r->event, r->unit, r->file, r->line);
		return;
	case STAT_METRIC:
		if (r->interval >= 0)
			open_interval(m, r->interval);
		continue_block(m, r);
		start_group(m, r);
		add_perf_metric(m, r);
		m->session_has_counters = true;
		return;
	case STAT_COUNTER:
		if (r->interval >= 0)
			open_interval(m, r->interval);
		add_counter(m, r);
		return;
	}
}

void stat_model_finish(struct stat_model *m)
{
	close_interval(m);
	roofline_header_file(&m->peaks, NULL);
	if (m->nsets)
		qsort(m->sets, (size_t)m->nsets, sizeof(*m->sets), cmp_sets);
	if (m->ntotals)
		qsort(m->totals, (size_t)m->ntotals, sizeof(*m->totals), cmp_sets);
	for (int i = 0; i <= m->session; i++)
		if (isnan(m->period[i]))
			m->period[i] = nominal_interval(m, i);
	/* the key indexes no longer match the sorted totals */
	if (m->lookup->cap_keys)
		memset(m->lookup->total_of_key, 0, m->lookup->cap_keys * sizeof(int));
}

const char *stat_model_run_label(const struct stat_model *m, int session, char *buf, size_t cap)
{
	bool runs = m->session > 0 && !(m->files > 1 && session_alone(m, session));
	if (m->files > 1 && runs)
		snprintf(buf, cap, "%s run%d", m->session_file[session], m->session_run[session]);
	else if (m->files > 1)
		snprintf(buf, cap, "%s", m->session_file[session]);
	else if (runs)
		snprintf(buf, cap, "run%d", session + 1);
	else
		buf[0] = '\0';
	return buf;
}

const struct counter_set *stat_model_find(const struct stat_model *m, bool totals, int session,
					  double interval, const char *scope, const char *pmu)
{
	struct counter_set key;
	counter_set_init(&key, interval, scope, pmu);
	key.session = session;
	if (totals)
		return bsearch(&key, m->totals, (size_t)m->ntotals, sizeof(key), cmp_sets);
	if (interval >= 0)
		return bsearch(&key, m->cur, (size_t)m->ncur, sizeof(key), cmp_sets);
	return bsearch(&key, m->sets, (size_t)m->nsets, sizeof(key), cmp_sets);
}

const struct counter_set *stat_model_find_perf(const struct stat_model *m, const struct perf_metric *p)
{
	const struct stat_lookup *l = m->lookup;
	/* the set of its key is the only one stat_model_find can find when its
	 * scope and PMU are shorter than a set keeps (longer ones may share the
	 * kept part with another set's); an exact key says so without looking */
	if (p->interval >= 0 && m->cur_interval >= 0 && p->key < l->cap_keys && l->gen_of_key[p->key] == l->gen) {
		const struct counter_set *s = &m->cur[l->cur_of_key[p->key] - 1];
		if (s->session == p->session && s->interval == p->interval &&
		    (l->exact_of_key[p->key] || (strcmp(s->scope, p->scope) == 0 && strcmp(s->pmu, p->pmu) == 0 &&
						 strlen(s->scope) + 1 < sizeof s->scope && strlen(s->pmu) + 1 < sizeof s->pmu)))
			return s;
	}
	return stat_model_find(m, false, p->session, p->interval, p->scope, p->pmu);
}

const struct counter_set *stat_model_summary(const struct stat_model *m, int *n)
{
	if (m->has_intervals) {
		*n = m->ntotals;
		return m->totals;
	}
	*n = m->nsets;
	return m->sets;
}

/* perf divides per-interval rates by the -I period it was given, not by
 * the measured gap (the last, partial interval included): take it from
 * perf's command line (a prompt's "perf stat ...", never the workload's
 * "gcc -I..." of the "Performance counter stats for" line), else from the
 * first timestamp (the period plus a little). */
static double nominal_interval(const struct stat_model *m, int session)
{
	const char *perf = strstr(m->command, "perf stat");
	const char *opt = perf ? strstr(perf, "-I") : NULL;
	if (perf && !opt)
		opt = strstr(perf, "--interval-print");
	if (opt) {
		while (*opt && !(*opt >= '0' && *opt <= '9'))
			opt++;
		double ms = strtod(opt, NULL);
		if (ms > 0)
			return ms / 1000;
	}
	double first = m->first_interval[session];
	if (isnan(first))
		return NAN;
	return first >= 0.01 ? floor(first * 100 + 1e-9) / 100 : first;   /* -I is usually a round 10 ms */
}

/* s is one of the open interval's sets (compared as addresses: s may
 * point anywhere, and cur may be NULL). */
static bool is_open_interval_set(const struct stat_model *m, const struct counter_set *s)
{
	uintptr_t p = (uintptr_t)s, first = (uintptr_t)m->cur;
	return m->ncur > 0 && p >= first && p < first + (size_t)m->ncur * sizeof(*m->cur);
}

/* s with the unqualified counters of its interval and scope it lacks
 * (task-clock for a cpu_core set) in *merged; s itself when unqualified. */
static const struct counter_set *with_borrowed(const struct stat_model *m, const struct counter_set *s,
					       struct counter_set *merged)
{
	if (!s->pmu[0])
		return s;
	counter_set_init(merged, s->interval, s->scope, s->pmu);
	for (int k = 0; k < s->n; k++)
		counter_set_add(merged, s->c[k].name, s->c[k].value, s->c[k].enabled_pct, s->c[k].variance_pct);
	const struct counter_set *o = stat_model_find(m, s->interval < 0 && m->has_intervals, s->session, s->interval,
						      s->scope, "");
	if (o) {
		for (int k = 0; k < o->n; k++)
			if (!counter_set_get(merged, o->c[k].name))
				counter_set_add(merged, o->c[k].name, o->c[k].value, o->c[k].enabled_pct, o->c[k].variance_pct);
	}
	return merged;
}

/* One of the metric's inputs is a counter of s itself. */
static bool uses_own_counter(const struct counter_set *s, const struct metric_value *mv)
{
	for (int i = 0; i < 2; i++)
		if (mv->input[i] && counter_set_get(s, mv->input[i]))
			return true;
	return false;
}

int stat_model_metrics(const struct stat_model *m, const struct counter_set *s,
		       struct metric_value *out, int max)
{
	struct counter_set merged;
	const struct counter_set *use = with_borrowed(m, s, &merged);
	double elapsed = NAN;
	if (s->interval >= 0)
		elapsed = m->period[s->session];
	else if (!isnan(m->elapsed[s->session]))
		elapsed = m->elapsed[s->session];
	else if (m->has_intervals)
		elapsed = m->last_interval[s->session];
	bool borrowed = use == &merged && merged.n > s->n;
	int k;
	if (is_open_interval_set(m, s) && !m->lookup->plain) {      /* its key is valid */
		struct metrics_plan **p = &m->lookup->plan_of_key[s->key];
		if (!*p)
			*p = metrics_plan_new();
		metrics_plan_update(*p, use);
		k = metrics_compute_planned(*p, use, elapsed, m->perf_table, out, max);
	} else {
		k = metrics_compute(use, elapsed, m->perf_table, out, max);
	}
	if (borrowed) {        /* metrics of the borrowed counters alone belong to the unqualified set */
		int w = 0;
		for (int i = 0; i < k; i++)
			if (uses_own_counter(s, &out[i]))
				out[w++] = out[i];
		k = w;
	}
	for (int i = 0; use == &merged && i < k; i++)
		out[i].input[0] = out[i].input[1] = NULL;     /* they pointed into merged */
	if (use == &merged)
		counter_set_free(&merged);
	return k;
}

bool stat_model_event_rate(const struct stat_model *m, const struct counter_set *s, const char *event,
			   struct metric_value *out)
{
	struct counter_set merged;
	const struct counter_set *use = with_borrowed(m, s, &merged);
	const struct counter *clk = counter_set_get(use, "task-clock");
	if (!clk || isnan(clk->value))
		clk = counter_set_get(use, "cpu-clock");
	bool ok = metrics_event_rate(counter_set_get(use, event), clk, out);
	out->input[0] = out->input[1] = NULL;
	if (use == &merged)
		counter_set_free(&merged);
	return ok;
}

const char *stat_model_missing(const struct stat_model *m, const struct counter_set *s, const char *metric,
			       char *buf, size_t cap)
{
	struct counter_set merged;
	const struct counter_set *use = with_borrowed(m, s, &merged);
	metrics_missing(use, metric, buf, cap);
	if (use == &merged)
		counter_set_free(&merged);
	return buf;
}

bool stat_model_software_only(const struct stat_model *m)
{
	if (!m->not_supported)
		return false;
	int n;
	const struct counter_set *sets = stat_model_summary(m, &n);
	bool counted = false;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < sets[i].n; k++) {
			const struct counter *c = &sets[i].c[k];
			if (isnan(c->value))
				continue;
			if (!event_is_software(c->name))
				return false;
			counted = true;
		}
	return counted;
}
