/* The stdio transport: one JSON-RPC message per line on stdin, one per
 * line on stdout, nothing else on stdout (notes go to stderr). Requests are
 * served in order; while a tool runs, stdin is still read, so a
 * notifications/cancelled line stops it. End of input ends the server. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/diag.h"
#include "filters/td-mcp/mcp.h"

struct stdio_state {
	struct mcp_reader reader;
	bool eof;
};

static void write_all(const char *s, size_t n)
{
	while (n) {
		ssize_t k = write(1, s, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			exit(0);           /* the client is gone */
		s += k;
		n -= (size_t)k;
	}
}

static void send_message(char *body)
{
	if (!body)
		return;
	write_all(body, strlen(body));
	write_all("\n", 1);
	free(body);
}

/* Reads what stdin has now; true when it ended. */
static bool read_some(struct stdio_state *st)
{
	char chunk[65536];
	ssize_t k;
	do
		k = read(0, chunk, sizeof chunk);
	while (k < 0 && errno == EINTR);
	if (k <= 0) {
		reader_feed(&st->reader, "\n", 1);   /* a last line without its newline is a message too */
		return true;
	}
	reader_feed(&st->reader, chunk, (size_t)k);
	return false;
}

/* While a tool runs: queued lines that cancel a request are acted on now
 * (the tool's child is killed; the line is handled again later, to no
 * effect). The end of input does not cancel: what was sent before it is
 * still answered, then the server exits. */
static bool stdin_cancels(void *ctx)
{
	struct stdio_state *st = ctx;
	if (!st->eof)
		st->eof = read_some(st);
	struct mcp_reader *r = &st->reader;
	size_t at = r->start;
	while (at < r->len) {
		char *nl = memchr(r->buf + at, '\n', r->len - at);
		if (!nl)
			break;
		size_t n = (size_t)(nl - (r->buf + at));
		if (n < 4096 && memmem(r->buf + at, n, "notifications/cancelled", 23)) {
			json_t *m = json_loadb(r->buf + at, n, 0, NULL);
			json_t *method = json_object_get(m, "method");
			if (json_is_string(method) && !strcmp(json_string_value(method), "notifications/cancelled")) {
				char key[160];
				mcp_id_key(json_object_get(json_object_get(m, "params"), "requestId"), key, sizeof key);
				worker_cancel(key);
			}
			json_decref(m);
		}
		at += n + 1;
	}
	return false;
}

int mcp_serve_stdio(void)
{
	static struct stdio_state st;
	reader_init(&st.reader, mcp_cfg.max_message);
	struct mcp_session session = { "", false };
	struct mcp_cancel cancel = { 0, stdin_cancels, &st };
	for (;;) {
		const char *msg;
		size_t len;
		enum reader_event ev = reader_next(&st.reader, &msg, &len);
		if (ev == READER_NONE) {
			if (st.eof)
				break;
			st.eof = read_some(&st);
			continue;
		}
		if (ev == READER_TOO_LARGE) {
			fprintf(stderr, "td-mcp: a message longer than %zu bytes was refused\n", mcp_cfg.max_message);
			send_message(mcp_too_large(mcp_cfg.max_message));
			continue;
		}
		struct mcp_reply reply;
		mcp_handle(&session, msg, len, NULL, st.eof ? NULL : &cancel, &reply);
		send_message(reply.body);
	}
	reader_free(&st.reader);
	return TD_EXIT_OK;
}
