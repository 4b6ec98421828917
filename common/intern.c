#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include "diag.h"
#include "intern.h"

#define ARENA_CHUNK (1u << 20)

struct entry {
	uint64_t hash;
	const char *str;
	uint32_t len;
};

struct td_intern {
	struct entry *entries;     /* by id */
	uint32_t count, entries_cap;
	uint32_t *slots;           /* open addressing: id + 1, 0 = empty */
	uint32_t nslots;           /* power of two */
	char **chunks;             /* arena */
	size_t nchunks, chunk_used, chunk_size;
};

uint64_t td_hash(const void *p, size_t len) { return XXH3_64bits(p, len); }

struct td_intern *td_intern_new(void)
{
	struct td_intern *t = td_calloc(1, sizeof(*t));
	t->nslots = 1024;
	t->slots = td_calloc(t->nslots, sizeof(*t->slots));
	return t;
}

void td_intern_free(struct td_intern *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nchunks; i++)
		free(t->chunks[i]);
	free(t->chunks);
	free(t->entries);
	free(t->slots);
	free(t);
}

static const char *arena_copy(struct td_intern *t, const char *s, size_t len)
{
	if (t->nchunks == 0 || t->chunk_used + len + 1 > t->chunk_size) {
		size_t size = len + 1 > ARENA_CHUNK ? len + 1 : ARENA_CHUNK;
		t->chunks = td_realloc(t->chunks, (t->nchunks + 1) * sizeof(*t->chunks));
		t->chunks[t->nchunks++] = td_malloc(size);
		t->chunk_size = size;
		t->chunk_used = 0;
	}
	char *d = t->chunks[t->nchunks - 1] + t->chunk_used;
	memcpy(d, s, len);
	d[len] = '\0';
	t->chunk_used += len + 1;
	return d;
}

static uint32_t *find_slot(const struct td_intern *t, uint64_t h, const char *s, size_t len)
{
	uint32_t mask = t->nslots - 1;
	for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask) {
		uint32_t *slot = &t->slots[i];
		if (*slot == 0)
			return slot;
		const struct entry *e = &t->entries[*slot - 1];
		if (e->hash == h && e->len == len && memcmp(e->str, s, len) == 0)
			return slot;
	}
}

static void grow(struct td_intern *t)
{
	free(t->slots);
	t->nslots *= 2;
	t->slots = td_calloc(t->nslots, sizeof(*t->slots));
	for (uint32_t id = 0; id < t->count; id++) {
		const struct entry *e = &t->entries[id];
		*find_slot(t, e->hash, e->str, e->len) = id + 1;
	}
}

uint32_t td_intern(struct td_intern *t, const char *s, size_t len)
{
	uint64_t h = td_hash(s, len);
	uint32_t *slot = find_slot(t, h, s, len);
	if (*slot)
		return *slot - 1;
	if (t->count == t->entries_cap) {
		t->entries_cap = t->entries_cap ? t->entries_cap * 2 : 1024;
		t->entries = td_realloc(t->entries, t->entries_cap * sizeof(*t->entries));
	}
	uint32_t id = t->count++;
	t->entries[id] = (struct entry){ h, arena_copy(t, s, len), (uint32_t)len };
	*slot = id + 1;
	if (t->count * 2 > t->nslots)
		grow(t);
	return id;
}

uint32_t td_intern_find(const struct td_intern *t, const char *s, size_t len)
{
	uint32_t *slot = find_slot(t, td_hash(s, len), s, len);
	return *slot ? *slot - 1 : UINT32_MAX;
}

const char *td_intern_str(const struct td_intern *t, uint32_t id, size_t *len)
{
	if (len)
		*len = t->entries[id].len;
	return t->entries[id].str;
}

uint32_t td_intern_count(const struct td_intern *t) { return t->count; }
