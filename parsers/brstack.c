#include <string.h>
#include "brstack.h"

#define MAX_PARTS 16

static bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/* Split on '/' outside parentheses: "(/usr/lib/libc.so.6)" stays whole. */
static int split_slashes(const char *p, size_t n, struct td_span *part)
{
	/* one pass; entries are short, so a byte loop beats memchr per field */
	int k = 0, depth = 0;
	size_t start = 0;
	for (size_t i = 0; i < n && k < MAX_PARTS; i++) {
		char c = p[i];
		if (c == '/' && depth == 0) {
			part[k++] = (struct td_span){ p + start, i - start };
			start = i + 1;
		} else if (c == '(') {
			depth++;
		} else if (c == ')' && depth) {
			depth--;
		}
	}
	if (k < MAX_PARTS)
		part[k++] = (struct td_span){ p + start, n - start };
	return k;
}

/* A field equal to a literal (length known at compile time). */
#define span_is(s, lit) ((s).n == sizeof(lit) - 1 && memcmp((s).p, lit, sizeof(lit) - 1) == 0)

/* "0x..." with at most 16 hex digits; an address too long overflows. */
static int address_digits(struct td_span s)
{
	if (s.n < 3 || s.p[0] != '0' || s.p[1] != 'x')
		return -1;
	size_t i = 2;
	while (i < s.n && is_hex(s.p[i]))
		i++;
	return (int)(i - 2);
}

/* "0x0", or "0x0(dso)" as -F ...,dso,brstack prints an unused slot */
static bool is_zero_address(struct td_span s)
{
	return s.n >= 3 && memcmp(s.p, "0x0", 3) == 0 && (s.n == 3 || s.p[3] == '(');
}

static bool looks_like_entry(const struct td_span *part, int k)
{
	if (k < 4)
		return false;
	if ((part[0].n > 2 && part[0].p[0] == '0' && part[0].p[1] == 'x') || (part[0].n && part[0].p[0] == '['))
		return true;
	/* symbolic: the PRED field gives it away */
	return span_is(part[2], "P") || span_is(part[2], "M") || span_is(part[2], "-") || span_is(part[2], "PN") ||
	       span_is(part[2], "MN");
}

enum br_parse brstack_parse_entry(const char *p, size_t n, struct br_entry *e, const char **why)
{
	if (n < 9)
		return BR_NOT_ENTRY;
	struct td_span part[MAX_PARTS];
	int k = split_slashes(p, n, part);
	if (!looks_like_entry(part, k))
		return BR_NOT_ENTRY;
	memset(e, 0, sizeof(*e));
	if (k < 6) {
		*why = "truncated branch entry (want FROM/TO/PRED/INTX/ABORT/CYCLES)";
		return BR_BAD;
	}
	for (int i = 0; i < 2; i++)
		if (part[i].n > 18 && address_digits(part[i]) > 16) {
			*why = "branch address longer than 64 bits";
			return BR_BAD;
		}
	e->from = part[0];
	e->to = part[1];
	struct td_span pred = part[2];
	if (span_is(pred, "P") || span_is(pred, "PN"))
		e->pred = BR_PREDICTED;
	else if (span_is(pred, "M") || span_is(pred, "MN"))
		e->pred = BR_MISPREDICTED;
	else if (span_is(pred, "-"))
		e->pred = BR_NO_INFO;
	else {
		*why = "prediction flag is not P, M, -, PN or MN";
		return BR_BAD;
	}
	e->not_taken = pred.n == 2;
	e->in_tx = span_is(part[3], "X");
	e->abort = span_is(part[4], "A");
	if ((!e->in_tx && !span_is(part[3], "-")) || (!e->abort && !span_is(part[4], "-"))) {
		*why = "INTX/ABORT flags are not X, A or -";
		return BR_BAD;
	}
	unsigned long cycles = 0;
	if (part[5].n == 0 || part[5].n > 9) {
		*why = "cycles field is not a small decimal number";
		return BR_BAD;
	}
	for (size_t i = 0; i < part[5].n; i++) {
		if (part[5].p[i] < '0' || part[5].p[i] > '9') {
			*why = "cycles field is not a decimal number";
			return BR_BAD;
		}
		cycles = cycles * 10 + (unsigned)(part[5].p[i] - '0');
	}
	e->cycles = cycles;
	if (k > 6 && !span_is(part[6], "-"))
		e->type = part[6];
	if (k > 7 && !span_is(part[7], "-"))
		e->spec = part[7];
	e->empty = is_zero_address(e->from) && is_zero_address(e->to);
	return BR_OK;
}

size_t brstack_glued_ip(const char *p, size_t n)
{
	size_t i = 0;
	while (i < n && is_hex(p[i]))
		i++;
	if (i >= 12 && i < n && (p[i] == '[' || p[i] == '_' || (p[i] >= 'g' && p[i] <= 'z') || (p[i] >= 'G' && p[i] <= 'Z')))
		return i;
	return 0;
}

size_t brstack_glued_ip_padded(const char *p, size_t n, size_t blanks)
{
	if (blanks < 1 || blanks > 16)
		return 0;
	size_t digits = 17 - blanks, i = 0;
	while (i < n && is_hex(p[i]))
		i++;
	return i >= digits && digits < n && p[digits] != '/' ? digits : 0;
}

size_t brstack_glued_dso(const char *p, size_t n)
{
	if (n < 4 || p[0] != '(')
		return 0;
	size_t depth = 0, i = 0;
	for (; i < n; i++) {
		if (p[i] == '(')
			depth++;
		else if (p[i] == ')' && --depth == 0)
			break;
	}
	/* the entry after it starts with a name, an address or '[' */
	if (i + 1 >= n || p[i + 1] == '/' || p[i + 1] == '(' || !memchr(p + i + 1, '/', n - i - 1))
		return 0;
	return i + 1;
}

/* "name+0x<hex>", the whole of s[0..n), with a name of one character or
 * more that does not start with a digit (no symbol does) */
static bool is_sym_offset(const char *s, size_t n)
{
	size_t i = n;
	while (i > 0 && is_hex(s[i - 1]))
		i--;
	return i < n && i >= 4 && s[i - 1] == 'x' && s[i - 2] == '0' && s[i - 3] == '+' && !(s[0] >= '0' && s[0] <= '9');
}

size_t brstack_glued_sym(const char *p, size_t n)
{
	static const char unk[] = "[unknown]";
	const size_t nu = sizeof unk - 1;
	const char *slash = memchr(p, '/', n);
	if (!slash)
		return 0;
	size_t from = (size_t)(slash - p);
	if (from > nu && memcmp(p + from - nu, unk, nu) == 0)
		return from - nu;             /* sym[+0xoff][unknown] */
	if (from > nu && memcmp(p, unk, nu) == 0)
		return nu;                    /* [unknown]name+0xoff */
	/* the target's function: the sample's ip follows the branch to it */
	const char *to = slash + 1, *to_end = memchr(to, '/', n - from - 1);
	if (!to_end)
		return 0;
	const char *plus = memmem(to, (size_t)(to_end - to), "+0x", 3);
	size_t fn = plus ? (size_t)(plus - to) : 0;
	if (fn == 0 || fn >= from || memcmp(p, to, fn) != 0)
		return 0;
	if (is_sym_offset(p + fn, from - fn) && memcmp(p + fn, "+0x", 3) != 0)
		return fn;                    /* sym name+0xoff */
	if (memcmp(p + fn, "+0x", 3) != 0)
		return 0;
	/* sym+0xOFF name+0xoff: only one split of the hex may leave a name */
	size_t found = 0, ways = 0;
	for (size_t k = fn + 3; k < from && is_hex(p[k]); k++)
		if (is_sym_offset(p + k + 1, from - k - 1)) {
			found = k + 1;
			ways++;
		}
	return ways == 1 ? found : 0;
}

/* ---- the common shape, in one pass ------------------------------------ */

/* A lowercase hex digit's value plus one; 0 for any other byte. */
static const unsigned char hex_plus_one[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
	['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
};

/* An address in perf's spelling at p (before end): just past it, or NULL.
 * (A plain loop: eight-bytes-at-a-time digit tests measured slower.) */
static const char *scan_plain_address(const char *p, const char *end, uint64_t *v)
{
	if (end - p < 3 || p[0] != '0' || p[1] != 'x')
		return NULL;
	const char *digits = p + 2;
	uint64_t x = 0;
	unsigned d;
	for (p = digits; p < end && (d = hex_plus_one[(unsigned char)*p]) != 0; p++)
		x = x << 4 | (d - 1);
	size_t n = (size_t)(p - digits);
	if (n == 0 || n > 16 || (n > 1 && digits[0] == '0'))
		return NULL;
	*v = x;
	return p;
}

bool brstack_plain_address(struct td_span s, uint64_t *v)
{
	return scan_plain_address(s.p, s.p + s.n, v) == s.p + s.n;
}

/* "/c" where c is '-' or the flag's letter. */
static bool scan_flag(const char **p, const char *end, char letter)
{
	const char *q = *p;
	if (end - q < 2 || q[0] != '/' || (q[1] != '-' && q[1] != letter))
		return false;
	*p = q + 2;
	return true;
}

size_t brstack_scan_plain(const char *p, size_t n, struct br_plain *e)
{
	const char *start = p, *end = p + n, *q;
	if (!(q = scan_plain_address(p, end, &e->from)) || q == end || *q != '/')
		return 0;
	e->text = p;
	e->from_n = (uint8_t)(q - p);
	p = q + 1;
	if (!(q = scan_plain_address(p, end, &e->to)) || end - q < 2 || q[0] != '/')
		return 0;
	e->to_n = (uint8_t)(q - p);
	p = q + 1;
	switch (*p++) {
	case 'P': e->pred = BR_PREDICTED; break;
	case 'M': e->pred = BR_MISPREDICTED; break;
	case '-': e->pred = BR_NO_INFO; break;
	default: return 0;
	}
	if (!scan_flag(&p, end, 'X') || !scan_flag(&p, end, 'A'))
		return 0;
	if (p == end || *p++ != '/')
		return 0;
	const char *digits = p;
	uint32_t cycles = 0;
	for (; p < end && *p >= '0' && *p <= '9'; p++)
		cycles = cycles * 10 + (uint32_t)(*p - '0');
	if (p == digits || p - digits > 9)
		return 0;
	if (p < end && *p == '/')
		p++;                            /* the empty TYPE field of a trailing '/' */
	if (p < end && *p != ' ' && *p != '\t')
		return 0;
	e->cycles = cycles;
	return (size_t)(p - start);
}
