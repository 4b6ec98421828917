#include <string.h>
#include "perf_script.h"
#include "sniff.h"

static bool blank(char c) { return c == ' ' || c == '\t'; }
static bool digit(char c) { return c >= '0' && c <= '9'; }
static bool is_letter(char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }

/* "a;b;c 123": no leading blank, frames joined by ';', one blank, a count. */
static bool is_folded(const char *s, size_t n)
{
	if (n < 3 || blank(s[0]))
		return false;
	size_t e = n;
	while (e > 0 && digit(s[e - 1]))
		e--;
	if (e == n || e < 2 || s[e - 1] != ' ' || blank(s[e - 2]))
		return false;
	return memchr(s, ';', e) != NULL;
}

/* "    12.34%  comm  dso  [.] sym" or perf report's "# Overhead" header. */
static bool is_report(const char *s, size_t n)
{
	if (n >= 10 && memcmp(s, "# Overhead", 10) == 0)
		return true;
	size_t i = 0;
	while (i < n && blank(s[i]))
		i++;
	size_t d = i;
	while (i < n && (digit(s[i]) || s[i] == '.'))
		i++;
	if (i == d || i + 2 >= n || s[i] != '%' || !blank(s[i + 1]))
		return false;
	return memmem(s + i, n - i, "[.]", 3) || memmem(s + i, n - i, "[k]", 3);
}

static bool starts(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	return n >= k && memcmp(s, w, k) == 0;
}

/* A number as perf stat prints counts: digits with grouping marks. */
static size_t count_len(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (digit(s[i]) || ((s[i] == ',' || s[i] == '.') && i > 0 && i + 1 < n && digit(s[i + 1]))))
		i++;
	return i;
}

/* perf stat's header and footer, a text row ("   1,234   msec task-clock  #
 * ...") or a -x, row ("1234,,cycles,5000,100.00,,"). */
static bool is_stat(const char *s, size_t n)
{
	if (memmem(s, n, "Performance counter stats for", 29) || memmem(s, n, " seconds time elapsed", 21))
		return true;
	if (s[0] == '{' && (memmem(s, n, "\"counter-value\"", 15) || memmem(s, n, "\"metric-value\"", 14)))
		return true;
	size_t i = 0;
	while (i < n && blank(s[i]))
		i++;
	size_t c = count_len(s + i, n - i);
	if (c == 0 && starts(s + i, n - i, "<not ")) {
		const char *gt = memchr(s + i, '>', n - i);
		c = gt ? (size_t)(gt + 1 - (s + i)) : 0;
	}
	if (c == 0)
		return false;
	i += c;
	if (i < n && (s[i] == ',' || s[i] == ';')) {           /* value, unit, event, run, enabled */
		char sep = s[i];
		int fields = 1;
		for (size_t k = i; k < n; k++)
			fields += s[k] == sep;
		const char *unit_end = memchr(s + i + 1, sep, n - i - 1);
		return fields >= 5 && unit_end && unit_end + 1 < s + n && is_letter(unit_end[1]);
	}
	if (i >= n || !blank(s[i]))
		return false;
	while (i < n && blank(s[i]))
		i++;
	if (starts(s + i, n - i, "msec ") || starts(s + i, n - i, "ns "))
		for (i += s[i] == 'm' ? 4 : 2; i < n && blank(s[i]); i++)
			;
	if (i >= n || !is_letter(s[i]))
		return false;
	while (i < n && !blank(s[i]))
		i++;
	while (i < n && blank(s[i]))
		i++;
	return i == n || s[i] == '#' || s[i] == '(';
}

static bool is_hex(struct td_span t)
{
	for (size_t i = 0; i < t.n; i++)
		if (!digit(t.p[i]) && !((t.p[i] | 0x20) >= 'a' && (t.p[i] | 0x20) <= 'f'))
			return false;
	return t.n > 0;
}

/* A -F brstack entry: "0x4005d0/0x400600/P/-/-/4". */
static bool has_branch_entry(const char *s, size_t n)
{
	for (const char *p = s; (p = memmem(p, (size_t)(s + n - p), "0x", 2)); p += 2) {
		const char *q = p + 2;
		while (q < s + n && is_hex((struct td_span){ q, 1 }))
			q++;
		if (q > p + 2 && s + n - q > 3 && q[0] == '/' && q[1] == '0' && q[2] == 'x')
			return true;
	}
	return false;
}

enum sniff_kind sniff_line(const char *s, size_t n)
{
	struct script_header h;
	struct script_frame f;
	if (n == 0)
		return SNIFF_NONE;
	if (is_folded(s, n))
		return SNIFF_FOLDED;
	if (is_report(s, n))
		return SNIFF_PERF_REPORT;
	if (is_stat(s, n))
		return SNIFF_PERF_STAT;
	if (script_parse_frame(s, n, &f) && is_hex(f.pc) && f.pc.n >= 4)
		return SNIFF_PERF_SCRIPT;
	size_t i = 0;
	while (i < n && blank(s[i]))
		i++;
	/* "comm pid/tid [cpu] time: [period] event:" and what -F adds after it */
	for (size_t k = i; k < n; k++)
		if (s[k] == ':' && (k + 1 == n || blank(s[k + 1])) &&
		    script_parse_header_exact(s + i, k + 1 - i, &h) && h.event.n && h.pid.n + h.tid.n)
			return SNIFF_PERF_SCRIPT;
	if (n > 3 && s[0] == '.' && s[1] == ' ' && (memmem(s, n, "SPE data", 8) || memmem(s, n, ":  ", 3)))
		return SNIFF_PERF_DUMP;     /* ". ... ARM SPE data: size 135944 bytes", ".  00000000:  b0 f4 ..." */
	if (memmem(s, n, " 0x", 3) && has_branch_entry(s, n))
		return SNIFF_PERF_SCRIPT;
	return SNIFF_NONE;
}

enum sniff_kind sniff_verdict(const struct sniff_votes *v)
{
	unsigned long voting = 0, most = 0;
	enum sniff_kind best = SNIFF_NONE;
	for (int k = SNIFF_NONE + 1; k < SNIFF_KINDS; k++) {
		voting += v->n[k];
		if (v->n[k] > most)
			best = (enum sniff_kind)k, most = v->n[k];
	}
	return 2 * most >= voting ? best : SNIFF_NONE;
}

const char *sniff_name(enum sniff_kind k)
{
	static const char *names[] = { "text of no known kind", "perf stat output", "perf script output",
				       "folded stacks", "perf report output", "perf report -D (raw dump) output" };
	return names[k];
}

const char *sniff_reader(enum sniff_kind k)
{
	static const char *readers[] = { "", "td-derive or td-diff", "td-fold (stacks) or td-branches (-F brstack)",
					  "td-diff (two of them) or flamegraph.pl", "perf report's own options (-F, --stdio)",
					  "td-branches (SPE records)" };
	return readers[k];
}
