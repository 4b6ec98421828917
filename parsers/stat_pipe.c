/* Records handed from the reading thread to a consumer thread in blocks:
 * the reader takes a block from the empty queue, fills it and pushes it on
 * the full queue; the consumer empties it in order and pushes it back
 * (common/queue.h). PIPE_BLOCKS blocks exist, so memory does not grow
 * with the input. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/bytes.h"
#include "common/diag.h"
#include "common/grow.h"
#include "common/next_guess.h"
#include "common/plain.h"
#include "common/queue.h"
#include "stat_pipe.h"

#define PIPE_ITEMS 8192            /* records per block: the unit of a hand-off */
#define PIPE_BLOCKS 4
#define NO_STRING UINT32_MAX
#define PIPE_SLOTS 1024            /* sets of five strings the consumer keeps */

/* A record in 96 bytes (a message: its line at str[0], length str[1]).
 * Rows repeat their scope, event and units, so a record's five strings go
 * through the pipe once: both sides keep the last five sent in the slot
 * their hash picks, and a record with the same five (compared byte for
 * byte by the reader) names the slot instead. Records come in the same
 * order every interval, so the slots that followed the last record's
 * before (slot_guesses) are compared first, and the hash taken only when
 * they differ. A slot is overwritten in the order of the items, so the consumer's copy is always the one the
 * reader compared with. Under td_plain() (common/plain.h) every record
 * carries its strings. */
enum { ITEM_MESSAGE = 0xff };
enum { STRINGS_HERE, STRINGS_KEPT, STRINGS_KEEP };
struct pipe_item {
	uint8_t kind;              /* enum stat_kind, or ITEM_MESSAGE */
	bool not_counted, not_supported;
	bool and_metric;           /* a counter, then the same record as its row's metric */
	bool again;                /* stat_record.again */
	uint8_t source;            /* enum stat_source */
	uint8_t strings;           /* STRINGS_KEPT: the slot's; _KEEP: here, and kept in the slot */
	int metric_decimals;
	uint32_t str[5];           /* scope, event, unit, metric_unit, threshold: offsets in text */
	uint32_t slot;
	double interval, value, enabled_pct, variance_pct, metric_value;
	unsigned long line;
	const char *file;
};

/* The five strings of a slot, as the consumer keeps them. */
struct kept_strings {
	char *text;                /* the five, one after the other, each with its NUL */
	size_t cap;
	size_t run;                /* their stat_record.run */
	const char *str[5];
	int len[5];
};

struct pipe_block {
	int n;
	char *text;                /* the items' strings, NUL-terminated */
	size_t used, cap;
	struct pipe_item item[PIPE_ITEMS];
};

/* The five strings of a slot, as the reader last sent them. */
struct sent_strings {
	uint64_t hash;
	uint64_t lens;             /* their lengths, packed (pack_lens) */
	bool used;
	uint32_t next[2];          /* the slots of the records that followed it the last two times
				      they differed, the latest first */
	uint32_t len[5];
	char *text;                /* the five, one after the other, each with its NUL */
	size_t cap;
	size_t run;                /* their stat_record.run */
};

/* A record's five strings, their lengths, and the slot they are in or go to. */
struct strings_key {
	uint64_t hash;
	uint64_t lens;             /* pack_lens */
	uint32_t slot;
	size_t len[5];
	const char *s[5];
	size_t run;                /* td_strings_run of the five: one comparison proves them; 0: one each */
	bool metric;               /* the record is a metric */
};

struct file_name {
	const char *given;
	char *copy;
};

struct stat_pipe {
	/* set at the start, then only read, by both threads */
	stat_emit_fn emit;
	void *ctx;
	struct kept_strings *kept;      /* the consumer's: PIPE_SLOTS of them */
	bool plain;                     /* td_plain(): no slots, no string shared with the item before */
	pthread_t thread;
	struct pipe_block *all[PIPE_BLOCKS];
	struct td_queue full, empty;    /* blocks to emit, blocks to fill: PIPE_BLOCKS in all */
	/* The reader's, written for every record: on cache lines of their own,
	 * so the consumer reading the fields above does not wait for them. */
	_Alignas(64) struct pipe_block *filling;
	/* file names are few: each kept once, for the life of the pipe */
	struct file_name *files;
	int nfiles;
	const char *last_given, *last_copy;  /* the last name looked up, stat_pipe.h */
	size_t last_len[5];             /* the lengths of the last record's strings */
	uint32_t last_slot;             /* the slot of the last record */
	struct sent_strings *sent;      /* PIPE_SLOTS of them */
};

/* The item's strings kept in its slot. */
static void keep_strings(struct kept_strings *k, const struct pipe_block *b, const struct pipe_item *it)
{
	size_t len[5], total = 0;
	for (int i = 0; i < 5; i++)
		total += (len[i] = strlen(b->text + it->str[i])) + 1;
	if (total > k->cap) {
		k->cap = total * 2;
		k->text = td_realloc(k->text, k->cap);
	}
	char *w = k->text;
	for (int i = 0; i < 5; i++) {
		memcpy(w, b->text + it->str[i], len[i] + 1);
		k->str[i] = w;
		k->len[i] = (int)len[i];
		w += len[i] + 1;
	}
	k->run = total - 1;
}

/* The strings of a record: in the block, or kept in its slot. */
static void item_strings(struct stat_pipe *p, const struct pipe_block *b, const struct pipe_item *it,
			 struct stat_record *r)
{
	const char **s[5] = { &r->scope, &r->event, &r->unit, &r->metric_unit, &r->threshold };
	if (it->strings != STRINGS_HERE) {
		struct kept_strings *k = &p->kept[it->slot];
		if (it->strings == STRINGS_KEEP)
			keep_strings(k, b, it);
		for (int i = 0; i < 5; i++) {
			*s[i] = k->str[i];
			r->len[i] = k->len[i];
		}
		r->run = k->run;
		return;
	}
	for (int i = 0; i < 5; i++) {
		*s[i] = it->str[i] == NO_STRING ? NULL : b->text + it->str[i];
		r->len[i] = -1;
	}
	r->run = 0;
}

static void run_block(struct stat_pipe *p, struct pipe_block *b)
{
	for (int i = 0; i < b->n; i++) {
		const struct pipe_item *it = &b->item[i];
		if (it->kind == ITEM_MESSAGE) {
			fwrite(b->text + it->str[0], 1, it->str[1], stderr);
			continue;
		}
		struct stat_record r;
		r.kind = (enum stat_kind)it->kind;
		r.source = (enum stat_source)it->source;
		r.interval = it->interval;
		r.value = it->value;
		r.not_counted = it->not_counted;
		r.not_supported = it->not_supported;
		r.enabled_pct = it->enabled_pct;
		r.variance_pct = it->variance_pct;
		r.metric_value = it->metric_value;
		r.metric_decimals = it->metric_decimals;
		r.file = it->file;
		r.line = it->line;
		r.again = it->again;
		item_strings(p, b, it, &r);
		p->emit(p->ctx, &r);
		if (it->and_metric) {
			r.kind = STAT_METRIC;
			r.again = true;
			p->emit(p->ctx, &r);
		}
	}
	b->n = 0;
	b->used = 0;
}

static void *consumer(void *arg)
{
	struct stat_pipe *p = arg;
	struct pipe_block *b;
	while ((b = td_queue_pop(&p->full))) {
		run_block(p, b);
		td_queue_push(&p->empty, b);
	}
	return NULL;
}

/* The reader's block with room for one more item. */
static struct pipe_block *filling(struct stat_pipe *p)
{
	if (!p->filling)
		p->filling = td_queue_pop(&p->empty);
	return p->filling;
}

static void queue_filled(struct stat_pipe *p)
{
	td_queue_push(&p->full, p->filling);
	p->filling = NULL;
}

static uint32_t put_text(struct pipe_block *b, const char *s, size_t n)
{
	return (uint32_t)td_append_text(&b->text, &b->used, &b->cap, s, n);
}


/* A record's string (len: its length if known, else -1) copied, unless it
 * equals the same string of the item before (at prev, prev_len long). */
static uint32_t put_string(struct pipe_block *b, const char *s, int len, uint32_t prev, size_t *prev_len)
{
	if (!s)
		return NO_STRING;
	if (len < 0) {
		size_t n = 0;
		if (prev != NO_STRING) {
			const char *t = b->text + prev;
			while (s[n] == t[n]) {
				if (!s[n])
					return prev;
				n++;
			}
		}
		n += strlen(s + n);
		*prev_len = n;
		return put_text(b, s, n);
	}
	size_t n = (size_t)len;
	if (prev != NO_STRING && n == *prev_len && td_same_bytes(b->text + prev, s, n))
		return prev;
	*prev_len = n;
	return put_text(b, s, n);
}

/* The consumer's copy of a file name, known by its address (stat.h). */
static const char *file_name(struct stat_pipe *p, const char *given)
{
	if (!given)
		return NULL;
	for (int i = p->nfiles; i-- > 0;)
		if (p->files[i].given == given) {
			p->last_given = given;
			return p->last_copy = p->files[i].copy;
		}
	p->files = td_realloc(p->files, (size_t)(p->nfiles + 1) * sizeof(*p->files));
	p->files[p->nfiles].given = given;
	p->files[p->nfiles].copy = td_strndup(given, strlen(given));
	p->last_given = given;
	return p->last_copy = p->files[p->nfiles++].copy;
}

/* Five lengths in one word, 12 bits each; LONG_LENS when one does not fit
 * (then they are compared one by one). */
#define LONG_LENS UINT64_MAX
static inline uint64_t pack_lens(const size_t *len)
{
	if ((len[0] | len[1] | len[2] | len[3] | len[4]) >= 4096)
		return LONG_LENS;
	return len[0] | len[1] << 12 | len[2] << 24 | (uint64_t)len[3] << 36 | (uint64_t)len[4] << 48;
}

/* The record's five strings and their lengths, false when one is NULL
 * (such a record carries its strings). */
static inline bool strings_of(const struct stat_record *r, struct strings_key *k)
{
	k->s[0] = r->scope;
	k->s[1] = r->event;
	k->s[2] = r->unit;
	k->s[3] = r->metric_unit;
	k->s[4] = r->threshold;
	for (int i = 0; i < 5; i++) {
		if (!k->s[i])
			return false;
		k->len[i] = r->len[i] >= 0 ? (size_t)r->len[i] : strlen(k->s[i]);
	}
	k->lens = pack_lens(k->len);
	k->run = td_strings_run(k->s, k->len, 5);
	k->metric = r->kind == STAT_METRIC;
	return true;
}

/* Slot t holds these five strings: their lengths and bytes are the slot's. */
static inline bool holds(const struct sent_strings *t, const struct strings_key *k)
{
	if (!t->used || t->lens != k->lens)
		return false;
	if (k->lens == LONG_LENS)
		for (int i = 0; i < 5; i++)
			if (t->len[i] != k->len[i])
				return false;
	if (k->run)          /* the slot's text is such a run too */
		return td_same_bytes(t->text, k->s[0], k->run);
	const char *w = t->text;
	for (int i = 0; i < 5; i++) {
		if (!td_same_bytes(w, k->s[i], k->len[i]))
			return false;
		w += k->len[i] + 1;
	}
	return true;
}

/* The slots a record's strings are most likely in, in the order to try. */
static inline void slot_guesses(const struct stat_pipe *p, bool metric, uint32_t guess[3])
{
	td_next_guesses(p->last_slot, p->sent[p->last_slot].next, metric, guess);
}

/* Whether the consumer keeps the five strings of k, and in which slot
 * (k->slot), or in which slot they go. */
static bool find_slot(struct stat_pipe *p, struct strings_key *k)
{
	uint32_t guess[3];
	slot_guesses(p, k->metric, guess);
	for (int g = 0; g < 3; g++)
		if (holds(&p->sent[guess[g]], k)) {
			k->slot = guess[g];
			k->hash = p->sent[guess[g]].hash;
			return true;
		}
	uint64_t h = 0;
	for (int i = 0; i < 5; i++)
		h = td_hash_short(k->s[i], k->len[i], h + (uint64_t)i);
	k->hash = h;
	k->slot = (uint32_t)(h % PIPE_SLOTS);
	const struct sent_strings *t = &p->sent[k->slot];
	return t->hash == h && holds(t, k);
}

/* find_slot's guesses for a record whose five strings lie in one run
 * (stat_record.run), as a known row's do: a slot holds them when its run
 * has the same bytes. */
static inline bool guessed_slot(const struct stat_pipe *p, const struct stat_record *r, uint32_t *slot)
{
	const size_t run = r->run;
	if (!run)
		return false;
	uint32_t guess[3];
	slot_guesses(p, r->kind == STAT_METRIC, guess);
	for (int g = 0; g < 3; g++) {
		const struct sent_strings *t = &p->sent[guess[g]];
		if (t->run == run && t->used && td_same_bytes(t->text, r->scope, run)) {
			*slot = guess[g];
			return true;
		}
	}
	return false;
}

static void remember_sent(struct stat_pipe *p, const struct strings_key *k)
{
	struct sent_strings *t = &p->sent[k->slot];
	size_t total = 0;
	for (int i = 0; i < 5; i++)
		total += k->len[i] + 1;
	TD_ALLOC_GROW(t->text, total, t->cap);
	char *w = t->text;
	for (int i = 0; i < 5; i++) {
		memcpy(w, k->s[i], k->len[i]);
		w[k->len[i]] = '\0';
		t->len[i] = (uint32_t)k->len[i];
		w += k->len[i] + 1;
	}
	t->run = total - 1;
	t->lens = k->lens;
	t->hash = k->hash;
	t->used = true;
}

/* k's slot follows the last record's. */
static void followed(struct stat_pipe *p, uint32_t slot)
{
	td_next_learn(p->sent[p->last_slot].next, p->last_slot, slot);
	p->last_slot = slot;
}

/* The record's strings copied into the block; each one equal to the same
 * string of the item before in the block shares its copy (not under
 * td_plain()). */
static void put_strings(struct stat_pipe *p, struct pipe_block *b, struct pipe_item *it, const struct stat_record *r)
{
	const struct pipe_item *before = it > b->item && !p->plain ? it - 1 : NULL;
	if (before && (before->kind == ITEM_MESSAGE || before->strings == STRINGS_KEPT))
		before = NULL;             /* its strings are not in the block */
	const char *s[5] = { r->scope, r->event, r->unit, r->metric_unit, r->threshold };
	for (int k = 0; k < 5; k++)
		it->str[k] = put_string(b, s[k], r->len[k], before ? before->str[k] : NO_STRING, &p->last_len[k]);
}

/* The same bits (NaN equals NaN). */
static inline bool same_double(double a, double b)
{
	uint64_t x, y;
	memcpy(&x, &a, 8);
	memcpy(&y, &b, 8);
	return x == y;
}

/* r is the metric of the counter row of item it: the same record, strings
 * (in the same slot) and file, but its kind. */
static bool same_row(const struct stat_pipe *p, const struct pipe_item *it, const struct stat_record *r, uint32_t slot)
{
	return it->line == r->line && it->strings != STRINGS_HERE && it->slot == slot && it->kind == STAT_COUNTER &&
	       !it->and_metric && r->file == p->last_given && it->file == p->last_copy && it->source == r->source &&
	       it->not_counted == r->not_counted && it->not_supported == r->not_supported &&
	       it->metric_decimals == r->metric_decimals && same_double(it->interval, r->interval) &&
	       same_double(it->value, r->value) &&
	       same_double(it->enabled_pct, r->enabled_pct) && same_double(it->variance_pct, r->variance_pct) &&
	       same_double(it->metric_value, r->metric_value);
}

/* A new item for r in block b, but for its strings. */
static inline struct pipe_item *new_item(struct stat_pipe *p, struct pipe_block *b, const struct stat_record *r)
{
	struct pipe_item *it = &b->item[b->n++];
	it->kind = (uint8_t)r->kind;
	it->source = (uint8_t)r->source;
	it->not_counted = r->not_counted;
	it->not_supported = r->not_supported;
	it->metric_decimals = r->metric_decimals;
	it->interval = r->interval;
	it->value = r->value;
	it->enabled_pct = r->enabled_pct;
	it->variance_pct = r->variance_pct;
	it->metric_value = r->metric_value;
	it->line = r->line;
	it->file = r->file == p->last_given ? p->last_copy : file_name(p, r->file);
	it->and_metric = false;
	it->again = r->again;
	return it;
}

/* b is full, or r asks that what came before go now (a pause). */
static inline void item_done(struct stat_pipe *p, const struct pipe_block *b, const struct stat_record *r)
{
	if (b->n == PIPE_ITEMS || r->kind == STAT_PAUSE)
		queue_filled(p);
}

/* r when its five strings are not in the slot guessed_slot tries (or
 * under td_plain()). */
static __attribute__((noinline)) void emit_unguessed(struct stat_pipe *p, struct pipe_block *b,
						     const struct stat_record *r)
{
	struct strings_key key;
	bool keyed = false, kept = false;
	if (!p->plain) {
		keyed = strings_of(r, &key);
		kept = keyed && find_slot(p, &key);
	}
	if (kept && r->kind == STAT_METRIC && b->n) {
		struct pipe_item *last = &b->item[b->n - 1];
		if (last->kind != ITEM_MESSAGE && same_row(p, last, r, key.slot)) {
			last->and_metric = true;     /* the consumer emits it again as the metric */
			return;
		}
	}
	struct pipe_item *it = new_item(p, b, r);
	it->strings = kept ? STRINGS_KEPT : keyed ? STRINGS_KEEP : STRINGS_HERE;
	it->slot = keyed ? key.slot : 0;
	if (keyed && !kept)
		remember_sent(p, &key);
	if (keyed)
		followed(p, key.slot);
	if (!kept)
		put_strings(p, b, it, r);
	item_done(p, b, r);
}

void stat_pipe_emit(void *pipe, const struct stat_record *r)
{
	struct stat_pipe *p = pipe;
	struct pipe_block *b = p->filling ? p->filling : filling(p);
	if (r->again && !p->plain && b->n) {
		/* the record the last item holds, as its row's metric */
		struct pipe_item *last = &b->item[b->n - 1];
		if (last->kind == STAT_COUNTER && !last->and_metric) {
			last->and_metric = true;
			return;
		}
	}
	uint32_t slot;
	if (p->plain || !guessed_slot(p, r, &slot)) {
		emit_unguessed(p, b, r);
		return;
	}
	if (r->kind == STAT_METRIC && b->n) {
		struct pipe_item *last = &b->item[b->n - 1];
		if (last->kind != ITEM_MESSAGE && same_row(p, last, r, slot)) {
			last->and_metric = true;     /* the consumer emits it again as the metric */
			return;
		}
	}
	struct pipe_item *it = new_item(p, b, r);
	it->strings = STRINGS_KEPT;
	it->slot = slot;
	followed(p, slot);
	item_done(p, b, r);
}

static void pipe_message(void *pipe, const struct td_diag_record *r)
{
	struct stat_pipe *p = pipe;
	const char *line = r->whole;
	size_t len = r->whole_len;
	struct pipe_block *b = filling(p);
	struct pipe_item *it = &b->item[b->n++];
	it->kind = ITEM_MESSAGE;
	it->str[0] = put_text(b, line, len);
	it->str[1] = (uint32_t)len;
	if (b->n == PIPE_ITEMS)
		queue_filled(p);
}

struct stat_pipe *stat_pipe_start(stat_emit_fn emit, void *ctx)
{
	struct stat_pipe *p = td_calloc_aligned(64, sizeof(*p));
	p->emit = emit;
	p->ctx = ctx;
	td_queue_init(&p->full, PIPE_BLOCKS);
	td_queue_init(&p->empty, PIPE_BLOCKS);
	for (int i = 0; i < PIPE_BLOCKS; i++) {
		p->all[i] = td_calloc(1, sizeof(struct pipe_block));
		td_queue_push(&p->empty, p->all[i]);
	}
	p->plain = td_plain();
	p->sent = td_calloc(PIPE_SLOTS, sizeof(*p->sent));
	p->kept = td_calloc(PIPE_SLOTS, sizeof(*p->kept));
	if (pthread_create(&p->thread, NULL, consumer, p) != 0) {
		for (int i = 0; i < PIPE_BLOCKS; i++)
			free(p->all[i]);
		free(p->kept);
		free(p->sent);
		td_queue_destroy(&p->full);
		td_queue_destroy(&p->empty);
		free(p);
		return NULL;
	}
	td_diag_capture(pipe_message, p);
	return p;
}

void stat_pipe_finish(struct stat_pipe *p)
{
	td_diag_capture(NULL, NULL);
	if (p->filling && p->filling->n)
		queue_filled(p);
	td_queue_close(&p->full);
	pthread_join(p->thread, NULL);
	for (int i = 0; i < PIPE_BLOCKS; i++) {
		free(p->all[i]->text);
		free(p->all[i]);
	}
	for (int i = 0; i < p->nfiles; i++)
		free(p->files[i].copy);
	for (int i = 0; i < PIPE_SLOTS; i++) {
		free(p->kept[i].text);
		free(p->sent[i].text);
	}
	free(p->kept);
	free(p->sent);
	free(p->files);
	td_queue_destroy(&p->full);
	td_queue_destroy(&p->empty);
	free(p);
}
