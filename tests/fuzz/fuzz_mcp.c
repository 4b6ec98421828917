/* libFuzzer target: td-mcp's message reader and protocol layer, on any
 * bytes: the stdio framing (the input cut into chunks where its own bytes
 * say, lines over a small limit refused), every message through JSON-RPC and
 * MCP's checks in both eras, tool arguments through their schemas, and the
 * whole input once as an HTTP body with 2026-07-28 headers. The tools
 * themselves are stubs here (they run store verbs in child processes);
 * every reply must be one JSON object on one line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "filters/td-mcp/mcp.h"

struct mcp_config mcp_cfg = { .max_message = 4096, .bin_dir = "/nonexistent", .tool_timeout_s = 1 };

static json_t *stub(json_t *args, const struct mcp_cancel *c, const char *key)
{
	(void)c;
	(void)key;
	return mcp_tool_result("stub", json_deep_copy(args), false);
}
json_t *tool_list_runs(json_t *a, const struct mcp_cancel *c, const char *k) { return stub(a, c, k); }
json_t *tool_get_run(json_t *a, const struct mcp_cancel *c, const char *k) { return stub(a, c, k); }
json_t *tool_query_bottlenecks(json_t *a, const struct mcp_cancel *c, const char *k) { return stub(a, c, k); }
json_t *tool_query_by_node(json_t *a, const struct mcp_cancel *c, const char *k) { return stub(a, c, k); }
json_t *tool_compare_runs(json_t *a, const struct mcp_cancel *c, const char *k) { return stub(a, c, k); }
json_t *tool_compare_by_labels(json_t *a, const struct mcp_cancel *c, const char *k) { return stub(a, c, k); }
json_t *tool_trend(json_t *a, const struct mcp_cancel *c, const char *k) { return stub(a, c, k); }
json_t *tool_explain_node(json_t *a, const struct mcp_cancel *c, const char *k) { return stub(a, c, k); }
json_t *tool_derive(json_t *a, const struct mcp_cancel *c, const char *k) { return stub(a, c, k); }
json_t *tool_fold_top(json_t *a, const struct mcp_cancel *c, const char *k) { return stub(a, c, k); }
json_t *tool_branches_top(json_t *a, const struct mcp_cancel *c, const char *k) { return stub(a, c, k); }
json_t *tool_collect(json_t *a, const struct mcp_cancel *c, const char *k) { return stub(a, c, k); }

int mcp_store_verb(const char *const *argv, const struct mcp_cancel *c, const char *key, char **out, char **err)
{
	(void)argv;
	(void)c;
	(void)key;
	*out = strdup("");
	*err = strdup("no such run");
	return 2;
}

bool worker_cancel(const char *key)
{
	(void)key;
	return false;
}

/* A reply is one line holding one JSON object with "jsonrpc": parsed
 * whole when parse is set (the first reply of an input and the HTTP one),
 * otherwise only its shape checked (braces, no newline, the member's
 * name), as jansson's parse under ASan costs more than the reply. */
static void check_reply(struct mcp_reply *r, bool parse)
{
	if (r->body) {
		size_t n = strlen(r->body);
		if (n < 2 || r->body[0] != '{' || r->body[n - 1] != '}' || memchr(r->body, '\n', n) ||
		    !strstr(r->body, "\"jsonrpc\""))
			abort();
		if (parse) {
			json_t *m = json_loads(r->body, 0, NULL);
			if (!json_is_object(m) || !json_object_get(m, "jsonrpc"))
				abort();
			json_decref(m);
		}
	}
	free(r->body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	td_quiet = 1;
	mcp_cfg.allow_collect = size && (data[0] & 1);
	struct mcp_reader rd;
	reader_init(&rd, mcp_cfg.max_message);
	struct mcp_session s = { "", false };
	size_t at = 0;
	bool parsed = false;
	while (at < size) {
		size_t chunk = 1 + data[at] % 97;
		if (chunk > size - at)
			chunk = size - at;
		reader_feed(&rd, (const char *)data + at, chunk);
		at += chunk;
		const char *msg;
		size_t len;
		enum reader_event ev;
		while ((ev = reader_next(&rd, &msg, &len)) != READER_NONE) {
			if (ev == READER_TOO_LARGE)
				continue;
			if (len > mcp_cfg.max_message || memchr(msg, '\n', len))
				abort();
			struct mcp_reply r;
			mcp_handle(&s, msg, len, NULL, NULL, &r);
			check_reply(&r, !parsed);
			parsed |= r.body != NULL;
		}
	}
	reader_free(&rd);
	struct mcp_http_request h = { "2026-07-28", "tools/call", "explain_node" };
	struct mcp_reply r;
	struct mcp_session fresh = { "", false };
	mcp_handle(&fresh, (const char *)data, size, &h, NULL, &r);
	check_reply(&r, true);
	return 0;
}
