#include <string.h>
#include "perf_script.h"

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_word(char c)
{
	return is_digit(c) || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The trailing "...: [period] event:" part. The event is the last
 * whitespace-free token, ending in ':' (trailing blanks allowed), and must
 * be preceded by ':' [blanks] [digits] blanks. */
static void parse_event(const char *s, size_t n, struct script_header *h)
{
	h->event.n = 0;
	h->period = 1;
	size_t e = n;
	while (e > 0 && is_space(s[e - 1]))
		e--;
	if (e < 2 || s[e - 1] != ':' || is_space(s[e - 2]))
		return;
	size_t t = e - 1;                 /* token is s[t0, e-1) */
	while (t > 0 && !is_space(s[t - 1]))
		t--;
	size_t w = t;                     /* blanks before the token (at least one) */
	while (w > 0 && is_space(s[w - 1]))
		w--;
	if (w == t)
		return;
	size_t d = w;                     /* optional period digits */
	while (d > 0 && is_digit(s[d - 1]))
		d--;
	size_t c = d;                     /* optional blanks, then the ':' */
	while (c > 0 && is_space(s[c - 1]))
		c--;
	if (c == 0 || s[c - 1] != ':')
		return;
	h->event = (struct td_span){ s + t, e - 1 - t };
	uint64_t period = 0;
	for (size_t i = d; i < w; i++)
		period = period * 10 + (uint64_t)(s[i] - '0');
	h->period = period ? period : 1;
}

/* "<digits>[/...][<digits>]" followed by a blank, starting at s[i]. */
static bool match_pid_tid(const char *s, size_t n, size_t i, struct script_header *h)
{
	size_t p = i;
	while (p < n && is_digit(s[p]))
		p++;
	if (p == i)
		return false;
	size_t q = p;
	while (q < n && s[q] == '/')
		q++;
	size_t r = q;
	while (r < n && is_digit(s[r]))
		r++;
	if (r >= n || !is_space(s[r]))
		return false;
	struct td_span first = { s + i, p - i }, second = { s + q, r - q };
	/* perl: a missing or "0" tid means the number is the tid, pid unknown */
	if (second.n == 0 || (second.n == 1 && second.p[0] == '0')) {
		h->tid = first;
		h->pid = (struct td_span){ NULL, 0 };
	} else {
		h->pid = first;
		h->tid = second;
	}
	return true;
}

/* comm: the shortest prefix of min_comm chars or more followed by blanks
 * and a pid */
static bool parse_header(const char *s, size_t n, size_t min_comm, struct script_header *h)
{
	if (n < 2 || is_space(s[0]))
		return false;
	for (size_t k = min_comm; k < n; k++) {
		if (!is_space(s[k]))
			continue;
		size_t i = k;
		while (i < n && is_space(s[i]))
			i++;
		if (match_pid_tid(s, n, i, h)) {
			h->comm = (struct td_span){ s, k };
			parse_event(s, n, h);
			return true;
		}
	}
	return false;
}

bool script_parse_header(const char *s, size_t n, struct script_header *h)
{
	return parse_header(s, n, 1, h);
}

bool script_parse_header_perl(const char *s, size_t n, struct script_header *h)
{
	return parse_header(s, n, 2, h);
}

bool script_is_record(const char *s, size_t n)
{
	static const char tag[] = ": PERF_RECORD_";
	const char *p = n && !is_space(s[0]) ? memmem(s, n, tag, sizeof tag - 1) : NULL;
	if (!p)
		return false;
	size_t i = (size_t)(p - s) + sizeof tag - 1, name = i;
	while (i < n && ((s[i] >= 'A' && s[i] <= 'Z') || is_digit(s[i]) || s[i] == '_'))
		i++;
	return i > name && (i == n || s[i] == '(' || s[i] == ':' || s[i] == ' ');
}

/* A token that can only be the cpu ("[003]") or the time ("123.456:"). */
static bool is_cpu_or_time(const char *t, size_t n)
{
	if (n >= 3 && t[0] == '[' && t[n - 1] == ']')
		return true;
	size_t i = 0;
	while (i < n && is_digit(t[i]))
		i++;
	return i > 0 && i < n && t[i] == '.' && t[n - 1] == ':';
}

bool script_parse_header_exact(const char *s, size_t n, struct script_header *h)
{
	if (n < 2 || is_space(s[0]))
		return false;
	/* the pid token is the first numeric token whose successor is the cpu
	 * or the time; the comm is everything before it */
	size_t i = 0;
	while (i < n) {
		while (i < n && !is_space(s[i]))
			i++;
		size_t comm_end = i;
		while (i < n && is_space(s[i]))
			i++;
		size_t tok = i, j = i;
		while (j < n && !is_space(s[j]))
			j++;
		size_t next = j;
		while (next < n && is_space(s[next]))
			next++;
		size_t next_end = next;
		while (next_end < n && !is_space(s[next_end]))
			next_end++;
		if (tok < n && is_cpu_or_time(s + next, next_end - next) && match_pid_tid(s, n, tok, h)) {
			h->comm = (struct td_span){ s, comm_end };
			parse_event(s, n, h);
			return true;
		}
	}
	return script_parse_header(s, n, h);
}

bool script_parse_frame(const char *s, size_t n, struct script_frame *f)
{
	size_t i = 0;
	while (i < n && is_space(s[i]))
		i++;
	size_t pc0 = i;
	while (i < n && is_word(s[i]))
		i++;
	if (i == pc0)
		return false;
	size_t pc1 = i;
	while (i < n && is_space(s[i]))
		i++;
	/* dso: from the last " (" that has a ')' after it to the last ')' */
	const char *close = memrchr(s, ')', n);
	if (!close)
		return false;
	size_t r = (size_t)(close - s);
	size_t open = r;
	while (open > 1 && !(s[open - 1] == '(' && s[open - 2] == ' '))
		open--;
	if (open <= 1)
		return false;
	open--;                           /* s[open] == '(' */
	size_t sym_end = open - 1;        /* the blank before '(' */
	/* sym needs at least one char; perl backtracks into the blanks/pc */
	size_t sym0 = i < sym_end ? i : sym_end - 1;
	if (sym_end == 0 || sym0 < pc0 + 1)
		return false;
	if (sym0 < pc1)
		pc1 = sym0;
	f->pc = (struct td_span){ s + pc0, pc1 - pc0 };
	f->sym = (struct td_span){ s + sym0, sym_end - sym0 };
	f->dso = (struct td_span){ s + open + 1, r - open - 1 };
	return true;
}

static bool is_hex_span(struct td_span s)
{
	for (size_t i = 0; i < s.n; i++)
		if (!is_digit(s.p[i]) && !((s.p[i] | 0x20) >= 'a' && (s.p[i] | 0x20) <= 'f'))
			return false;
	return s.n > 0;
}

/* The frame ends the line; fields perf prints before it for some events
 * (data address, data source, weight) are skipped: the frame starts at
 * the last lone hex word from which the rest reads as a frame. */
static bool last_frame(const char *s, size_t n, struct script_frame *f)
{
	bool found = false;
	for (size_t i = 0; i < n; i++) {
		if (is_space(s[i]) || (i > 0 && !is_space(s[i - 1])))
			continue;
		size_t e = i;
		while (e < n && !is_space(s[e]))
			e++;
		struct script_frame g;
		if (is_hex_span((struct td_span){ s + i, e - i }) && script_parse_frame(s + i, n - i, &g) && is_hex_span(g.pc)) {
			*f = g;
			found = true;
		}
		i = e;
	}
	return found;
}

bool script_parse_one_line(const char *s, size_t n, bool exact, struct script_header *h, struct script_frame *f)
{
	size_t start = 0;
	while (start < n && is_space(s[start]))
		start++;
	for (size_t i = start; i + 1 < n; i++) {
		if (s[i] != ':' || !is_space(s[i + 1]))
			continue;
		size_t head = i + 1 - start;
		bool ok = exact ? script_parse_header_exact(s + start, head, h)
				: script_parse_header(s + start, head, h);
		if (ok && h->event.n && last_frame(s + i + 1, n - i - 1, f))
			return true;
	}
	return false;
}
