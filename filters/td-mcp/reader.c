/* Newline-delimited messages (MCP's stdio framing) from a byte stream.
 * A line longer than the limit is never held whole: its bytes are dropped
 * as they arrive and the line is reported once, so a 10 MB message costs
 * the limit in memory, not 10 MB. */
#include <string.h>
#include "common/diag.h"
#include "filters/td-mcp/mcp.h"

void reader_init(struct mcp_reader *r, size_t limit)
{
	memset(r, 0, sizeof *r);
	r->limit = limit;
}

void reader_free(struct mcp_reader *r)
{
	free(r->buf);
	memset(r, 0, sizeof *r);
}

void reader_feed(struct mcp_reader *r, const char *p, size_t n)
{
	if (r->len + n + 1 > r->cap) {
		size_t cap = r->cap ? r->cap : 65536;
		while (cap < r->len + n + 1)
			cap *= 2;
		r->buf = td_realloc(r->buf, cap);
		r->cap = cap;
	}
	memcpy(r->buf + r->len, p, n);
	r->len += n;
}

enum reader_event reader_next(struct mcp_reader *r, const char **msg, size_t *len)
{
	if (r->start) {
		memmove(r->buf, r->buf + r->start, r->len - r->start);
		r->len -= r->start;
		r->start = 0;
	}
	for (;;) {
		char *nl = r->len ? memchr(r->buf, '\n', r->len) : NULL;
		if (r->discarding) {
			if (!nl) {
				r->len = 0;            /* still inside the long line */
				return READER_NONE;
			}
			r->start = (size_t)(nl - r->buf) + 1;
			r->discarding = false;
			return READER_TOO_LARGE;
		}
		if (!nl) {
			if (r->len > r->limit) {
				r->discarding = true;
				r->len = 0;
			}
			return READER_NONE;
		}
		size_t n = (size_t)(nl - r->buf);
		if (n > r->limit) {
			r->start = n + 1;
			return READER_TOO_LARGE;
		}
		size_t l = n;
		if (l && r->buf[l - 1] == '\r')
			l--;
		size_t blank = 0;
		while (blank < l && (r->buf[blank] == ' ' || r->buf[blank] == '\t'))
			blank++;
		if (blank == l) {                      /* an empty line: no message */
			memmove(r->buf, nl + 1, r->len - n - 1);
			r->len -= n + 1;
			continue;
		}
		r->buf[l] = 0;
		*msg = r->buf;
		*len = l;
		r->start = n + 1;
		return READER_MESSAGE;
	}
}
