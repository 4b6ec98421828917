#include <string.h>
#include "spe.h"

static bool starts(const char *p, size_t n, const char *lit)
{
	size_t k = strlen(lit);
	return n >= k && memcmp(p, lit, k) == 0;
}

/* w as a whole blank-separated word of p[0..n). */
static bool has_word(const char *p, size_t n, const char *w)
{
	size_t k = strlen(w);
	for (const char *s = p; (s = memmem(s, (size_t)(p + n - s), w, k)); s += k)
		if ((s == p || s[-1] == ' ') && (s + k == p + n || s[k] == ' '))
			return true;
	return false;
}

static void copy_word(char *dst, size_t cap, const char *p, const char *end)
{
	size_t n = 0;
	while (p < end && *p != ' ' && n + 1 < cap)
		dst[n++] = *p++;
	dst[n] = '\0';
}

/* "B COND", "B IND", "B" -> COND, IND, UNCOND; further words joined by '_'. */
static void branch_type(char *dst, size_t cap, const char *p, const char *end)
{
	size_t n = 0;
	while (p < end && *p == ' ')
		p++;
	if (p == end) {
		strcpy(dst, "UNCOND");
		return;
	}
	for (; p < end && n + 1 < cap; p++)
		dst[n++] = *p == ' ' ? '_' : *p;
	while (n && dst[n - 1] == '_')
		n--;
	dst[n] = '\0';
}

static unsigned long decimal(const char *p, const char *end, const char **stop)
{
	unsigned long v = 0;
	while (p < end && *p >= '0' && *p <= '9' && v < 100000000UL)
		v = v * 10 + (unsigned long)(*p++ - '0');
	*stop = p;
	return v;
}

enum spe_dump_line spe_dump_line(struct spe_dump *d, const char *line, size_t len, struct spe_record *done)
{
	/* ".  %08x:" then the bytes, then the description */
	if (len < 14 || line[0] != '.' || line[1] != ' ' || line[2] != ' ' || line[11] != ':')
		return SPE_NOT_DUMP;
	/* the description follows the byte dump: after the last run of 2+ blanks */
	const char *end = line + len, *p = end;
	for (const char *s = line + 12; s + 1 < end; s++)
		if (s[0] == ' ' && s[1] == ' ')
			p = s;
	while (p < end && *p == ' ')
		p++;
	size_t n = (size_t)(end - p);
	struct spe_record *r = &d->cur;
	if (has_word(p, n, "Bad") && memmem(p, n, "packet!", 7))
		return SPE_BAD_PACKET;
	d->open = true;
	if (starts(p, n, "PC "))
		copy_word(r->pc, sizeof r->pc, p + 3, end);
	else if (starts(p, n, "TGT "))
		copy_word(r->tgt, sizeof r->tgt, p + 4, end);
	else if (n >= 1 && p[0] == 'B' && (n == 1 || p[1] == ' ')) {
		r->branch = true;
		branch_type(r->type, sizeof r->type, p + 1, end);
	} else if (starts(p, n, "EV ")) {
		r->mispred = has_word(p, n, "MISPRED");
		r->not_taken = has_word(p, n, "NOT-TAKEN");
	} else if (starts(p, n, "LAT ")) {
		const char *stop;
		unsigned long v = decimal(p + 4, end, &stop);
		if (stop > p + 4 && has_word(stop, (size_t)(end - stop), "TOT"))
			r->lat_total = v;
	} else if (starts(p, n, "TS ") || (starts(p, n, "END") && (n == 3 || p[3] == ' '))) {
		*done = *r;
		memset(r, 0, sizeof(*r));
		d->open = false;
		return SPE_RECORD_END;
	}
	return SPE_PACKET;
}

bool spe_dump_flush(struct spe_dump *d, struct spe_record *done)
{
	bool was_open = d->open;
	if (was_open)
		*done = d->cur;
	memset(d, 0, sizeof(*d));
	return was_open;
}

const char *spe_sample_event(const char *line, size_t len, size_t *after)
{
	static const char *const events[] = { "branch-miss", "l1d-access", "l1d-miss", "llc-access", "llc-miss",
					      "tlb-access", "tlb-miss", "remote-access", "memory", NULL };
	for (size_t i = 0; i < len;) {
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		size_t start = i;
		while (i < len && line[i] != ' ' && line[i] != '\t')
			i++;
		if (i - start < 2 || line[i - 1] != ':')
			continue;
		for (const char *const *ev = events; *ev; ev++)
			if (i - start - 1 == strlen(*ev) && memcmp(line + start, *ev, i - start - 1) == 0) {
				*after = i;
				return *ev;
			}
	}
	return NULL;
}

static bool all_hex(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
			return false;
	return n > 0;
}

static bool symbol_start(char c) { return c == '_' || c == '.' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

struct td_span spe_sample_pc(const char *line, size_t len, size_t after)
{
	struct td_span tok[64];
	int k = 0;
	for (size_t i = after; i < len && k < 64;) {
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		size_t start = i;
		while (i < len && line[i] != ' ' && line[i] != '\t')
			i++;
		if (i > start)
			tok[k++] = (struct td_span){ line + start, i - start };
	}
	/* "ip sym+0xoff (dso)", "ip [unknown] (dso)", "ip (dso)" */
	for (int i = 0; i + 1 < k; i++) {
		struct td_span s = tok[i + 1];
		if (!all_hex(tok[i].p, tok[i].n))
			continue;
		if (s.p[0] == '(' || (s.n == 9 && !memcmp(s.p, "[unknown]", 9)))
			return tok[i];
		/* a symbol that is all hex letters ("face") only before its (dso) */
		if (!symbol_start(s.p[0]) || (all_hex(s.p, s.n) && !(i + 2 < k && tok[i + 2].p[0] == '(')))
			continue;
		/* the symbol runs to its " (dso)" (C++ names hold blanks) */
		const char *end = line + len, *stop = s.p;
		while (stop < end && !(stop[0] == ' ' && stop + 1 < end && stop[1] == '('))
			stop++;
		return (struct td_span){ s.p, (size_t)(stop - s.p) };
	}
	/* -F event,ip[,weight], -F addr,ip,phys_addr: the ip is the only
	 * address, or the second one (perf prints addr before ip) */
	int seen = 0;
	struct td_span first = { NULL, 0 };
	for (int i = 0; i < k; i++)
		if (tok[i].n >= 8 && all_hex(tok[i].p, tok[i].n)) {
			if (++seen == 2)
				return tok[i];
			first = tok[i];
		}
	return first;
}
