#include <stdlib.h>
#include <string.h>
#include "folded.h"
#include "common/input.h"

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool folded_parse(const char *s, size_t n, struct folded_line *out)
{
	/* the count: digits, optionally "." and more digits, at the end */
	size_t end = n, i = n;
	while (i > 0 && is_digit(s[i - 1]))
		i--;
	size_t dot = end;                   /* no decimal point */
	if (i > 0 && s[i - 1] == '.') {
		dot = i - 1;
		i = dot;
		while (i > 0 && is_digit(s[i - 1]))
			i--;
		if (i == dot)
			return false;           /* ".5" is not a count */
	}
	if (i == end || i == 0 || !is_blank(s[i - 1]))
		return false;
	uint64_t count = 0;
	double value = 0;
	bool overflow = false;
	for (size_t k = i; k < dot; k++) {
		overflow |= count > (UINT64_MAX - 9) / 10;
		count = count * 10 + (uint64_t)(s[k] - '0');
		value = value * 10 + (s[k] - '0');
	}
	if (dot < end && end - i < 64) {   /* decimals: let strtod round as perl does */
		char buf[64];
		memcpy(buf, s + i, end - i);
		buf[end - i] = '\0';
		value = strtod(buf, NULL);
	}
	if (overflow)
		return false;
	out->stack = s;
	out->stack_len = i - 1;
	out->count = count;
	out->value = value;
	out->fractional = dot < end;
	return true;
}

enum folded_kind folded_file_kind(const char *path)
{
	struct td_input *in = td_input_open(path);
	if (!in)
		return FOLDED_STACKS;
	const char *line;
	size_t len;
	struct folded_line fl;
	enum folded_kind kind = FOLDED_EMPTY;
	while (td_input_next(in, &line, &len))
		if (len && line[0] != '#') {
			kind = folded_parse(line, len, &fl) ? FOLDED_STACKS : FOLDED_OTHER;
			break;
		}
	td_input_close(in);
	return kind;
}
