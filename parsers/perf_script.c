#include <stdatomic.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "common/bytes.h"
#include "common/plain.h"
#include "perf_script.h"

/* Character classes, one table load each: perl's \s (blank), \d, \w. */
enum { C_SPACE = 1, C_DIGIT = 2, C_WORD = 4 };
#define D_ C_DIGIT | C_WORD
#define W_ C_WORD
static const unsigned char cls[256] = {
	['\t'] = C_SPACE, ['\n'] = C_SPACE, ['\v'] = C_SPACE, ['\f'] = C_SPACE, ['\r'] = C_SPACE, [' '] = C_SPACE,
	['0'] = D_, ['1'] = D_, ['2'] = D_, ['3'] = D_, ['4'] = D_, ['5'] = D_, ['6'] = D_, ['7'] = D_, ['8'] = D_, ['9'] = D_,
	['_'] = W_,
	['a'] = W_, ['b'] = W_, ['c'] = W_, ['d'] = W_, ['e'] = W_, ['f'] = W_, ['g'] = W_, ['h'] = W_, ['i'] = W_,
	['j'] = W_, ['k'] = W_, ['l'] = W_, ['m'] = W_, ['n'] = W_, ['o'] = W_, ['p'] = W_, ['q'] = W_, ['r'] = W_,
	['s'] = W_, ['t'] = W_, ['u'] = W_, ['v'] = W_, ['w'] = W_, ['x'] = W_, ['y'] = W_, ['z'] = W_,
	['A'] = W_, ['B'] = W_, ['C'] = W_, ['D'] = W_, ['E'] = W_, ['F'] = W_, ['G'] = W_, ['H'] = W_, ['I'] = W_,
	['J'] = W_, ['K'] = W_, ['L'] = W_, ['M'] = W_, ['N'] = W_, ['O'] = W_, ['P'] = W_, ['Q'] = W_, ['R'] = W_,
	['S'] = W_, ['T'] = W_, ['U'] = W_, ['V'] = W_, ['W'] = W_, ['X'] = W_, ['Y'] = W_, ['Z'] = W_,
};
#undef D_
#undef W_

static bool is_space(char c) { return cls[(unsigned char)c] & C_SPACE; }
static bool is_digit(char c) { return cls[(unsigned char)c] & C_DIGIT; }
static bool is_word(char c) { return cls[(unsigned char)c] & C_WORD; }

/* TD_PLAIN=1 (common/plain.h): no fast paths; -1 until asked */
static bool plain_parse(void)
{
	static _Atomic signed char plain = -1;
	signed char p = atomic_load_explicit(&plain, memory_order_relaxed);
	if (p < 0) {
		p = td_plain();
		atomic_store_explicit(&plain, p, memory_order_relaxed);
	}
	return p;
}

/* The last header's tail as parse_event() read it: from the ':' before
 * the period to the end of the line, the event's place from the end and
 * the period. parse_event() reads no byte before that ':', so a line
 * ending in the same bytes gives the same event and period: samples of one
 * event at a fixed period (-c, or cpu-clock's) end alike. */
struct event_tail {
	uint32_t len, event_end, event_n;     /* event_end: bytes from its end to the line's */
	uint64_t period;
	char bytes[56];
};
static _Thread_local struct event_tail last_tail;

static bool tail_is(const char *s, size_t n, const struct event_tail *t)
{
	return t->len && n >= t->len && td_same_bytes(s + n - t->len, t->bytes, t->len);
}

/* The trailing "...: [period] event:" part. The event is the last
 * whitespace-free token, ending in ':' (trailing blanks allowed), and must
 * be preceded by ':' [blanks] [digits] blanks. */
static void parse_event(const char *s, size_t n, struct script_header *h)
{
	struct event_tail *tail = &last_tail;
	bool memo = !plain_parse();
	if (memo && tail_is(s, n, tail)) {
		h->event = (struct td_span){ s + n - tail->event_end - tail->event_n, tail->event_n };
		h->period = tail->period;
		return;
	}
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
	if (memo && n - (c - 1) <= sizeof tail->bytes) {
		tail->len = (uint32_t)(n - (c - 1));
		tail->event_end = (uint32_t)(n - (e - 1));
		tail->event_n = (uint32_t)(e - 1 - t);
		tail->period = h->period;
		memcpy(tail->bytes, s + c - 1, tail->len);
	}
}

void script_parse_event(const char *s, size_t n, struct script_header *h) { parse_event(s, n, h); }

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

/* The first place in [p, end) holding tag (n bytes, ": P..." with n >=
 * 3), or NULL: its first three bytes 16 places at a time, the rest
 * compared where they occur (memmem's setup costs more on a header). */
static const char *find_tag(const char *p, const char *end, const char *tag, size_t n)
{
#if defined(__SSE2__)
	const __m128i c0 = _mm_set1_epi8(tag[0]), c1 = _mm_set1_epi8(tag[1]), c2 = _mm_set1_epi8(tag[2]);
	for (; end - p >= 18; p += 16) {
		__m128i a = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), c0);
		__m128i b = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 1)), c1);
		__m128i c = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 2)), c2);
		for (unsigned m = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_and_si128(a, b), c)); m; m &= m - 1) {
			const char *q = p + __builtin_ctz(m);
			if ((size_t)(end - q) >= n && memcmp(q, tag, n) == 0)
				return q;
		}
	}
#endif
	for (; (size_t)(end - p) >= n; p++)
		if (p[0] == tag[0] && memcmp(p, tag, n) == 0)
			return p;
	return NULL;
}

bool script_is_record(const char *s, size_t n)
{
	static const char tag[] = ": PERF_RECORD_";
	if (!n || is_space(s[0]))
		return false;
	const char *p = find_tag(s, s + n, tag, sizeof tag - 1);
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

/* The spans of a frame line once its parts are found: the address at
 * [pc0, pc1), the symbol from i, the dso's '(' at open and ')' at r. The
 * symbol takes at least one byte: like perl's regex, it backtracks into
 * the blanks, then into the address. */
static bool frame_spans(const char *s, size_t pc0, size_t pc1, size_t i, size_t open, size_t r,
			struct script_frame *f)
{
	size_t sym_end = open - 1;        /* the blank before '(' */
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

bool script_parse_frame_plain(const char *s, size_t n, struct script_frame *f)
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
	return frame_spans(s, pc0, pc1, i, open, r, f);
}


/* The same parse, with the runs of blanks and word characters and the
 * dso's " (" found 16 bytes at a time. */
#if defined(__SSE2__)
static unsigned space_mask(const char *p)    /* bit i: p[i] is a blank */
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i ctl = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('\t' - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8('\r' + 1)));
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(ctl, _mm_cmpeq_epi8(v, _mm_set1_epi8(' '))));
}

static unsigned word_mask(const char *p)     /* bit i: p[i] is a word character */
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i digit = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
	__m128i low = _mm_or_si128(v, _mm_set1_epi8(0x20));
	__m128i alpha = _mm_and_si128(_mm_cmpgt_epi8(low, _mm_set1_epi8('a' - 1)), _mm_cmplt_epi8(low, _mm_set1_epi8('z' + 1)));
	__m128i under = _mm_cmpeq_epi8(v, _mm_set1_epi8('_'));
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(digit, alpha), under));
}

/* The end of the run from i of bytes in a class: 16 at a time by mask
 * (bit k set: byte k is in it), the tail by in. */
static inline size_t skip_class(const char *s, size_t i, size_t n, unsigned (*mask)(const char *), bool (*in)(char))
{
	for (; n - i >= 16; i += 16) {
		unsigned other = ~mask(s + i) & 0xffffu;
		if (other)
			return i + (size_t)__builtin_ctz(other);
	}
	while (i < n && in(s[i]))
		i++;
	return i;
}

static size_t skip_spaces(const char *s, size_t i, size_t n) { return skip_class(s, i, n, space_mask, is_space); }
static size_t skip_word(const char *s, size_t i, size_t n) { return skip_class(s, i, n, word_mask, is_word); }

/* The last k in [1, r) with s[k] == '(' and s[k - 1] == ' ' (0: none):
 * 16 candidates at a time, each window's bytes and the ones just before
 * them compared at once, the first few bytes one by one. */
static inline size_t last_open(const char *s, size_t r)
{
	size_t e = r;                     /* candidates left: [1, e) */
	for (; e >= 17; e -= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + e - 16));
		__m128i u = _mm_loadu_si128((const __m128i *)(const void *)(s + e - 17));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('('))) &
			     (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(u, _mm_set1_epi8(' ')));
		if (m)
			return e - 16 + (size_t)(31 - __builtin_clz(m));
	}
	for (size_t k = e; k-- > 1;)
		if (s[k] == '(' && s[k - 1] == ' ')
			return k;
	return 0;
}
#else
static size_t skip_spaces(const char *s, size_t i, size_t n)
{
	while (i < n && is_space(s[i]))
		i++;
	return i;
}

static size_t skip_word(const char *s, size_t i, size_t n)
{
	while (i < n && is_word(s[i]))
		i++;
	return i;
}

static size_t last_open(const char *s, size_t r)
{
	size_t open = r;
	do {
		const char *p = memrchr(s, '(', open);
		if (!p || p == s)
			return 0;
		open = (size_t)(p - s);
	} while (s[open - 1] != ' ');
	return open;
}
#endif

/* Where perf script's own "\t%16lx " puts the address: blanks, then word
 * characters up to byte 17, one blank, then no blank. Sets the address's
 * bounds and where the symbol starts; false for any other line, which the
 * runs of blanks and word characters then read. */
static inline bool padded_address(const char *s, size_t n, size_t *pc0, size_t *pc1, size_t *i)
{
#if defined(__SSE2__)
	if (n < 19 || s[0] != '\t' || s[17] != ' ' || is_space(s[18]))
		return false;
	unsigned sp = space_mask(s + 1), w = word_mask(s + 1);
	/* the blanks a prefix of the 16, not all of them, the rest words */
	if ((sp & (sp + 1)) != 0 || sp == 0xffffu || (sp | w) != 0xffffu)
		return false;
	*pc0 = 1 + (size_t)__builtin_ctz(~sp);
	*pc1 = 17;
	*i = 18;
	return true;
#else
	(void)s, (void)n, (void)pc0, (void)pc1, (void)i;
	return false;
#endif
}

static inline __attribute__((always_inline)) bool parse_frame_fast(const char *s, size_t n, struct script_frame *f)
{
	size_t pc0, pc1, i;
	if (!padded_address(s, n, &pc0, &pc1, &i)) {
		pc0 = skip_spaces(s, 0, n);
		pc1 = skip_word(s, pc0, n);
		if (pc1 == pc0)
			return false;
		i = skip_spaces(s, pc1, n);
	}
	const char *close = n && s[n - 1] == ')' ? s + n - 1 : memrchr(s, ')', n);
	if (!close)
		return false;
	size_t r = (size_t)(close - s);
	/* the last '(' at 1 or later with a blank before it and ')' after it */
	size_t open = last_open(s, r);
	if (!open)
		return false;
	return frame_spans(s, pc0, pc1, i, open, r, f);
}

__attribute__((always_inline)) inline bool script_parse_frame(const char *s, size_t n, struct script_frame *f)
{
	return plain_parse() ? script_parse_frame_plain(s, n, f) : parse_frame_fast(s, n, f);
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
	/* each ':' followed by a blank, the ':' found by memchr: most lines
	 * tried here are frame lines of skipped samples, with no ": " at all */
	for (size_t i = start; i + 1 < n; i++) {
		const char *colon = memchr(s + i, ':', n - 1 - i);
		if (!colon)
			break;
		i = (size_t)(colon - s);
		if (!is_space(s[i + 1]))
			continue;
		size_t head = i + 1 - start;
		bool ok = exact ? script_parse_header_exact(s + start, head, h)
				: script_parse_header(s + start, head, h);
		if (ok && h->event.n && last_frame(s + i + 1, n - i - 1, f))
			return true;
	}
	return false;
}
