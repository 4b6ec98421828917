#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "common/intern.h"
#include "common/utf8.h"
#include "flame_colors.h"

/* Flat palettes: channel = base + int(scale * v[src]), v = (v1, v2, v3).
 * The multi palettes (java, js, perl, wakeup) pick one of the flat ones by
 * the frame's name. */
enum { HOT, MEM, IO, RED, GREEN, BLUE, AQUA, YELLOW, PURPLE, ORANGE, JAVA, JS, PERL, WAKEUP, NPALETTES };
static const struct {
	const char *name;
	int base[3], scale[3], src[3];
	const char *bg;                  /* default background */
} palettes[NPALETTES] = {
	[HOT]    = { "hot",    { 205, 0, 0 },     { 50, 230, 55 }, { 2, 0, 1 }, "yellow" },
	[MEM]    = { "mem",    { 0, 190, 0 },     { 0, 50, 210 },  { 0, 1, 0 }, "green" },
	[IO]     = { "io",     { 80, 80, 190 },   { 60, 60, 55 },  { 0, 0, 1 }, "blue" },
	[RED]    = { "red",    { 200, 50, 50 },   { 55, 80, 80 },  { 0, 0, 0 }, "grey" },
	[GREEN]  = { "green",  { 50, 200, 50 },   { 60, 55, 60 },  { 0, 0, 0 }, "grey" },
	[BLUE]   = { "blue",   { 80, 80, 205 },   { 60, 60, 50 },  { 0, 0, 0 }, "grey" },
	[AQUA]   = { "aqua",   { 50, 165, 165 },  { 60, 55, 55 },  { 0, 0, 0 }, "grey" },
	[YELLOW] = { "yellow", { 175, 175, 50 },  { 55, 55, 20 },  { 0, 0, 0 }, "grey" },
	[PURPLE] = { "purple", { 190, 80, 190 },  { 65, 60, 65 },  { 0, 0, 0 }, "grey" },
	[ORANGE] = { "orange", { 190, 90, 0 },    { 65, 65, 0 },   { 0, 0, 0 }, "grey" },
	[JAVA]   = { "java",   { 0 }, { 0 }, { 0 }, "yellow" },
	[JS]     = { "js",     { 0 }, { 0 }, { 0 }, "yellow" },
	[PERL]   = { "perl",   { 0 }, { 0 }, { 0 }, "yellow" },
	[WAKEUP] = { "wakeup", { 0 }, { 0 }, { 0 }, "blue" },
};

static const struct {
	const char *name, *c1, *c2;
} backgrounds[] = {
	{ "yellow", "#eeeeee", "#eeeeb0" },
	{ "blue", "#eeeeee", "#e0e0ff" },
	{ "green", "#eef2ee", "#e0ffe0" },
	{ "grey", "#f8f8f8", "#e8e8e8" },
};

int flame_palette(const char *name)
{
	for (int i = 0; i < NPALETTES; i++)
		if (!strcmp(name, palettes[i].name))
			return i;
	return -1;
}

const char *flame_palette_names(void)
{
	return "hot, mem, io, wakeup, java, js, perl, red, green, blue, aqua, yellow, purple, orange";
}

bool flame_background(const char *bg, int palette, const char **c1, const char **c2)
{
	static char flat[8];
	if (!bg || !*bg)
		bg = palettes[palette].bg;
	for (size_t i = 0; i < sizeof backgrounds / sizeof *backgrounds; i++)
		if (!strcmp(bg, backgrounds[i].name)) {
			*c1 = backgrounds[i].c1;
			*c2 = backgrounds[i].c2;
			return true;
		}
	if (bg[0] == '#' && strlen(bg) == 7 && strspn(bg + 1, "0123456789abcdefABCDEF") == 6) {
		memcpy(flat, bg, 8);
		*c1 = *c2 = flat;
		return true;
	}
	return false;
}

/* perl's rand(): 48-bit drand48, seeded by srand(n) as (n << 16) + 0x330e. */
struct drand48 {
	uint64_t x;
};
static void drand48_seed(struct drand48 *r, uint32_t seed) { r->x = ((uint64_t)seed << 16) + 0x330e; }
static double drand48_next(struct drand48 *r)
{
	r->x = (r->x * 0x5deece66dULL + 0xb) & ((1ULL << 48) - 1);
	return ldexp((double)r->x, -48);
}

struct flame_colors {
	int palette;
	enum flame_shade shade;
	struct drand48 rng;
};

struct flame_colors *flame_colors_new(int palette, enum flame_shade shade, uint64_t seed)
{
	struct flame_colors *c = td_calloc(1, sizeof *c);
	c->palette = palette;
	c->shade = shade;
	drand48_seed(&c->rng, (uint32_t)(seed ^ seed >> 32));
	return c;
}

void flame_colors_free(struct flame_colors *c) { free(c); }

/* The name's hash in [0, 1]: its first three characters weigh 1, 0.7 and
 * 0.49, after dropping everything up to a "`" (a module prefix) that is not
 * the first character. cp holds the characters. */
static double name_hash(const uint32_t *cp, size_t n)
{
	size_t from = 0;
	for (size_t i = 1; i < n; i++)
		if (cp[i] == '`') {
			from = i + 1;
			break;
		}
	double vector = 0, max = 1, weight = 1;
	int mod = 10;
	for (size_t i = from; i < n; i++) {
		int v = (int)(cp[i] % (uint32_t)mod);
		vector += ((double)v / (mod - 1)) * weight;
		mod++;
		max += weight;
		weight *= 0.70;
		if (mod > 12)
			break;
	}
	return 1 - vector / max;
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && !memcmp(s + n - k, suffix, k);
}

static bool contains(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle)) != NULL;
}

/* java: Java and JIT frames green, inlined aqua, C++ yellow, kernel orange. */
static int java_palette(const char *s, size_t n)
{
	static const char *const pkgs[] = { "java/", "javax/", "jdk/", "net/", "org/", "com/", "io/", "sun/" };
	if (ends_with(s, n, "_[j]"))
		return GREEN;
	if (ends_with(s, n, "_[i]"))
		return AQUA;
	const char *p = s;
	size_t m = n;
	if (m > 0 && *p == 'L')
		p++, m--;
	for (size_t i = 0; i < sizeof pkgs / sizeof *pkgs; i++)
		if (m >= strlen(pkgs[i]) && !memcmp(p, pkgs[i], strlen(pkgs[i])))
			return GREEN;
	if (contains(s, n, ":::"))
		return GREEN;
	if (contains(s, n, "::"))
		return YELLOW;
	if (ends_with(s, n, "_[k]"))
		return ORANGE;
	return RED;
}

static int perl_palette(const char *s, size_t n)
{
	if (contains(s, n, "::"))
		return YELLOW;
	if (contains(s, n, "Perl") || contains(s, n, ".pl"))
		return GREEN;
	if (ends_with(s, n, "_[k]"))
		return ORANGE;
	return RED;
}

/* js: JIT frames green (with a path) or aqua (builtins), C++ yellow. */
static int js_palette(const char *s, size_t n)
{
	if (ends_with(s, n, "_[j]"))
		return memchr(s, '/', n) ? GREEN : AQUA;
	if (contains(s, n, "::"))
		return YELLOW;
	const char *slash = memchr(s, '/', n);
	if (slash && contains(slash + 1, n - (size_t)(slash + 1 - s), ".js"))
		return GREEN;
	if (memchr(s, ':', n))
		return AQUA;
	if (n == 1 && s[0] == ' ')
		return GREEN;
	if (contains(s, n, "_[k]"))
		return ORANGE;
	return RED;
}

void flame_color(struct flame_colors *c, const char *name, size_t len, char *out)
{
	double v[3];
	if (c->shade == FLAME_SHADE_HASH) {
		uint32_t small[256], *cp = len <= 256 ? small : td_malloc(len * sizeof *cp);
		cp[0] = 0;                 /* name_hash reads none of an empty name */
		size_t n = 0;
		for (size_t i = 0; i < len; n++)
			i += td_utf8_next(name + i, len - i, &cp[n]);
		v[0] = name_hash(cp, n);
		for (size_t i = 0, j = n ? n - 1 : 0; i < j; i++, j--) {
			uint32_t x = cp[i];
			cp[i] = cp[j];
			cp[j] = x;
		}
		v[1] = v[2] = name_hash(cp, n);
		if (cp != small)
			free(cp);
	} else if (c->shade == FLAME_SHADE_RANDOM) {
		for (int i = 0; i < 3; i++)
			v[i] = drand48_next(&c->rng);
	} else {
		/* srand(sum of the characters); rand(1) */
		uint32_t sum = 0, cp;
		for (size_t i = 0; i < len;) {
			i += td_utf8_next(name + i, len - i, &cp);
			sum += cp;
		}
		struct drand48 r;
		drand48_seed(&r, sum);
		v[0] = v[1] = v[2] = drand48_next(&r);
	}
	int p = c->palette;
	if (p == JAVA)
		p = java_palette(name, len);
	else if (p == PERL)
		p = perl_palette(name, len);
	else if (p == JS)
		p = js_palette(name, len);
	else if (p == WAKEUP)
		p = AQUA;
	int rgb[3];
	for (int i = 0; i < 3; i++)
		rgb[i] = palettes[p].base[i] + (int)(palettes[p].scale[i] * v[palettes[p].src[i]]);
	sprintf(out, "rgb(%d,%d,%d)", rgb[0], rgb[1], rgb[2]);
}

void flame_color_delta(double delta, double max_delta, char *out)
{
	int r = 255, g = 255, b = 255;
	if (delta > 0)
		g = b = (int)(210 * (max_delta - delta) / max_delta);
	else if (delta < 0)
		r = g = (int)(210 * (max_delta + delta) / max_delta);
	sprintf(out, "rgb(%d,%d,%d)", r, g, b);
}

struct flame_palette_map {
	struct td_intern *names;
	char (*colors)[24];
	size_t cap;
};

static void map_set(struct flame_palette_map *m, const char *name, size_t len, const char *color, size_t clen)
{
	uint32_t id = td_intern(m->names, name, len);
	if (id >= m->cap) {
		m->cap = (id + 1) * 2;
		m->colors = td_realloc(m->colors, m->cap * sizeof *m->colors);
	}
	if (clen > 23)
		clen = 23;
	memcpy(m->colors[id], color, clen);
	m->colors[id][clen] = '\0';
}

struct flame_palette_map *flame_palette_map_read(const char *path)
{
	struct flame_palette_map *m = td_calloc(1, sizeof *m);
	m->names = td_intern_new();
	FILE *f = fopen(path, "r");
	if (!f)
		return m;      /* a missing map starts empty */
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned long lineno = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			n--;
		char *arrow = memmem(line, (size_t)n, "->", 2);
		if (!arrow) {
			td_bad_input(path, lineno, "not \"name->rgb(r,g,b)\"");
			continue;
		}
		const char *c = arrow + 2;
		const char *end = memmem(c, (size_t)(line + n - c), "->", 2);
		size_t clen = end ? (size_t)(end - c) : (size_t)(line + n - c);
		if (memchr(c, '"', clen) || memchr(c, '<', clen) || memchr(c, '&', clen)) {
			td_bad_input(path, lineno, "colour holds a quote, '<' or '&'");
			continue;
		}
		map_set(m, line, (size_t)(arrow - line), c, clen);
	}
	free(line);
	fclose(f);
	return m;
}

void flame_palette_map_color(struct flame_palette_map *m, struct flame_colors *c, const char *name, size_t len, char *out)
{
	uint32_t id = td_intern_find(m->names, name, len);
	if (id != UINT32_MAX && id < m->cap) {
		strcpy(out, m->colors[id]);
		return;
	}
	flame_color(c, name, len, out);
	map_set(m, name, len, out, strlen(out));
}

static int cmp_names(const void *a, const void *b, void *ctx)
{
	const struct td_intern *t = ctx;
	size_t la, lb;
	const char *sa = td_intern_str(t, *(const uint32_t *)a, &la);
	const char *sb = td_intern_str(t, *(const uint32_t *)b, &lb);
	int c = memcmp(sa, sb, la < lb ? la : lb);
	return c ? c : (la > lb) - (la < lb);
}

bool flame_palette_map_write(const struct flame_palette_map *m, const char *path)
{
	uint32_t n = td_intern_count(m->names);
	uint32_t *ids = td_malloc((n + 1) * sizeof *ids);
	for (uint32_t i = 0; i < n; i++)
		ids[i] = i;
	qsort_r(ids, n, sizeof *ids, cmp_names, m->names);
	FILE *f = fopen(path, "w");
	if (!f) {
		free(ids);
		return false;
	}
	for (uint32_t i = 0; i < n; i++) {
		size_t len;
		const char *s = td_intern_str(m->names, ids[i], &len);
		fwrite(s, 1, len, f);
		fprintf(f, "->%s\n", m->colors[ids[i]]);
	}
	free(ids);
	int err = ferror(f);
	return fclose(f) == 0 && !err;
}

void flame_palette_map_free(struct flame_palette_map *m)
{
	if (!m)
		return;
	td_intern_free(m->names);
	free(m->colors);
	free(m);
}
