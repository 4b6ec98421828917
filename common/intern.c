#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include "diag.h"
#include "intern.h"
#include "common/grow.h"

/* Arena chunks double from the first size to the last: a table that holds
 * a few names (one per small input) costs a few KiB, a large one a chunk
 * per MiB. */
#define ARENA_FIRST (1u << 12)
#define ARENA_CHUNK (1u << 20)

struct entry {
	const char *str;
	uint32_t len;
};

/* A slot names its string directly, with half its hash, so a lookup
 * touches the slot and the string only (two cache misses at worst, not
 * three through the entry table) and growing hashes nothing again. */
struct slot {
	const char *str;             /* NULL: empty */
	uint32_t id;
	uint32_t hash;               /* its low half: where it goes, and a first check */
};

struct td_intern {
	struct entry *entries;     /* by id */
	uint32_t count, entries_cap;
	struct slot *slots;        /* open addressing */
	uint32_t nslots;           /* power of two */
	char **chunks;             /* arena: each string after its 4-byte length */
	size_t nchunks, chunk_used, chunk_size;
};

uint64_t td_hash(const void *p, size_t len) { return XXH3_64bits(p, len); }

struct td_intern *td_intern_new(void)
{
	struct td_intern *t = td_calloc(1, sizeof(*t));
	t->nslots = 64;         /* grows at half full: a table costs what it holds */
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

/* The string's copy, its length stored in the 4 bytes before it. */
static const char *arena_copy(struct td_intern *t, const char *s, size_t len)
{
	size_t need = (sizeof(uint32_t) + len + 1 + 3) & ~(size_t)3;
	if (t->nchunks == 0 || t->chunk_used + need > t->chunk_size) {
		size_t size = !t->nchunks ? ARENA_FIRST : t->chunk_size < ARENA_CHUNK ? 2 * t->chunk_size : ARENA_CHUNK;
		if (size < need)
			size = need;
		t->chunks = td_realloc(t->chunks, (t->nchunks + 1) * sizeof(*t->chunks));
		t->chunks[t->nchunks++] = td_malloc(size);
		t->chunk_size = size;
		t->chunk_used = 0;
	}
	char *d = t->chunks[t->nchunks - 1] + t->chunk_used;
	uint32_t n = (uint32_t)len;
	memcpy(d, &n, sizeof n);
	memcpy(d + sizeof n, s, len);
	d[sizeof n + len] = '\0';
	t->chunk_used += need;
	return d + sizeof n;
}

static uint32_t stored_len(const char *str)
{
	uint32_t n;
	memcpy(&n, str - sizeof n, sizeof n);
	return n;
}

static struct slot *find_slot(const struct td_intern *t, uint64_t h, const char *s, size_t len)
{
	uint32_t mask = t->nslots - 1, low = (uint32_t)h;
	for (uint32_t i = low & mask;; i = (i + 1) & mask) {
		struct slot *slot = &t->slots[i];
		if (!slot->str)
			return slot;
		if (slot->hash == low && stored_len(slot->str) == len && memcmp(slot->str, s, len) == 0)
			return slot;
	}
}

static void grow(struct td_intern *t)
{
	TD_TABLE_DOUBLE(t->slots, t->nslots, 1024, str, hash);     /* never empty: td_intern_new sized it */
}

uint32_t td_intern(struct td_intern *t, const char *s, size_t len)
{
	return td_intern_hashed(t, s, len, td_hash(s, len));
}

void td_intern_prefetch(const struct td_intern *t, uint64_t h)
{
	__builtin_prefetch(&t->slots[(uint32_t)h & (t->nslots - 1)]);
}

void td_intern_prefetch_key(const struct td_intern *t, uint64_t h)
{
	const struct slot *slot = &t->slots[(uint32_t)h & (t->nslots - 1)];
	if (slot->str && slot->hash == (uint32_t)h)
		__builtin_prefetch(slot->str);
}

uint32_t td_intern_hashed(struct td_intern *t, const char *s, size_t len, uint64_t h)
{
	struct slot *slot = find_slot(t, h, s, len);
	if (slot->str)
		return slot->id;
	TD_ALLOC_GROW(t->entries, t->count + 1, t->entries_cap);
	uint32_t id = t->count++;
	const char *copy = arena_copy(t, s, len);
	t->entries[id] = (struct entry){ copy, (uint32_t)len };
	*slot = (struct slot){ copy, id, (uint32_t)h };
	if (t->count * 2 > t->nslots)
		grow(t);
	return id;
}

uint32_t td_intern_find(const struct td_intern *t, const char *s, size_t len)
{
	const struct slot *slot = find_slot(t, td_hash(s, len), s, len);
	return slot->str ? slot->id : UINT32_MAX;
}

const char *td_intern_str(const struct td_intern *t, uint32_t id, size_t *len)
{
	if (len)
		*len = t->entries[id].len;
	return t->entries[id].str;
}

uint32_t td_intern_count(const struct td_intern *t) { return t->count; }
