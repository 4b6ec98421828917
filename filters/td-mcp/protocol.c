/* JSON-RPC 2.0 and MCP, both eras served side by side:
 *   legacy (2025-06-18, 2025-11-25): `initialize` negotiates the version
 *     for the stdio process (HTTP: the MCP-Protocol-Version header names
 *     it on each request; no sessions are minted), `ping` answers;
 *   modern (2026-07-28): no handshake; each request names its version and
 *     capabilities in params._meta; results carry resultType, the server's
 *     identity in _meta, and list/read results ttlMs and cacheScope;
 *     `server/discover` says what is supported. Over HTTP the Mcp-Method,
 *     Mcp-Name and MCP-Protocol-Version headers must match the body.
 * A request's era is read from the request itself: one with the modern
 * _meta is modern whatever came before. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/diag.h"
#include "common/opts.h"
#include "filters/td-mcp/mcp.h"

#define MODERN "2026-07-28"
#define META_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CAPS "io.modelcontextprotocol/clientCapabilities"
#define META_SERVER "io.modelcontextprotocol/serverInfo"

static const char *const legacy_versions[] = { "2025-11-25", "2025-06-18", NULL };

static const char instructions[] =
	"tdkit keeps perf stat runs with labels, their metrics and their Top-down tree. Start with list_runs "
	"(filter with labels such as branch=main), then query_bottlenecks, query_by_node, get_run, "
	"compare_by_labels or trend; explain_node says what a Top-down node means and what to do about it; "
	"derive reads perf stat text you have. Node values are percent of the pipeline slots.";

void mcp_fail(struct mcp_error *e, int code, const char *fmt, ...)
{
	e->code = code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof e->message, fmt, ap);
	va_end(ap);
}

void mcp_id_key(const json_t *id, char *buf, size_t cap)
{
	if (json_is_integer(id))
		snprintf(buf, cap, "n:%lld", (long long)json_integer_value(id));
	else if (json_is_string(id))
		snprintf(buf, cap, "s:%s", json_string_value(id));
	else
		snprintf(buf, cap, "-");
}

static char *dump(json_t *msg)
{
	char *s = json_dumps(msg, JSON_COMPACT);
	json_decref(msg);
	return s;
}

static char *error_message(const json_t *id, int code, const char *message, json_t *data)
{
	json_t *err = json_pack("{s:i, s:s}", "code", code, "message", message);
	if (data)
		json_object_set_new(err, "data", data);
	json_t *msg = json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(), "error", err);
	return dump(msg);
}

char *mcp_too_large(size_t limit)
{
	char m[160];
	snprintf(m, sizeof m, "message refused: longer than %zu bytes (td-mcp --max-message)", limit);
	return error_message(NULL, RPC_INVALID_REQUEST, m, NULL);
}

static json_t *server_info(void)
{
	return json_pack("{s:s, s:s, s:s}", "name", MCP_SERVER_NAME, "title", "tdkit", "version", td_version);
}

static json_t *capabilities(void)
{
	return json_pack("{s:{s:b}, s:{s:b, s:b}}", "tools", "listChanged", 0, "resources", "subscribe", 0,
			 "listChanged", 0);
}

static bool legacy_supported(const char *v)
{
	for (int i = 0; legacy_versions[i]; i++)
		if (!strcmp(legacy_versions[i], v))
			return true;
	return false;
}

static json_t *supported_versions(void)
{
	json_t *a = json_array();
	json_array_append_new(a, json_string(MODERN));
	for (int i = 0; legacy_versions[i]; i++)
		json_array_append_new(a, json_string(legacy_versions[i]));
	return a;
}

/* Mcp-Name's value, decoded from its base64 sentinel form when it has it. */
static bool header_value(const char *h, char *out, size_t cap)
{
	size_t n = strlen(h);
	if (n < 11 || strncmp(h, "=?base64?", 9) || strcmp(h + n - 2, "?=")) {
		snprintf(out, cap, "%s", h);
		return true;
	}
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned acc = 0;
	int bits = 0;
	size_t o = 0;
	for (size_t i = 9; i < n - 2; i++) {
		if (h[i] == '=')
			break;
		const char *p = strchr(b64, h[i]);
		if (!p || !h[i])
			return false;
		acc = (acc << 6) | (unsigned)(p - b64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o + 1 >= cap)
				return false;
			out[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	out[o] = 0;
	return true;
}

struct call {
	struct mcp_session *s;
	const struct mcp_http_request *http;
	const struct mcp_cancel *cancel;
	const char *method;
	json_t *params;                        /* object (maybe empty), borrowed */
	bool modern;
	const char *version;
	char key[160];
	int http_status;
};

/* The handlers: a result (a new reference) or NULL with e set. */
typedef json_t *(*handler_fn)(struct call *c, struct mcp_error *e);

static json_t *h_initialize(struct call *c, struct mcp_error *e)
{
	json_t *v = json_object_get(c->params, "protocolVersion");
	if (!json_is_string(v)) {
		mcp_fail(e, RPC_INVALID_PARAMS, "initialize: params.protocolVersion (a string) is missing");
		return NULL;
	}
	const char *asked = json_string_value(v);
	const char *chosen = legacy_supported(asked) ? asked : legacy_versions[0];
	snprintf(c->s->version, sizeof c->s->version, "%s", chosen);
	c->s->initialized = false;
	return json_pack("{s:s, s:o, s:o, s:s}", "protocolVersion", chosen, "capabilities", capabilities(), "serverInfo",
			 server_info(), "instructions", instructions);
}

static json_t *h_ping(struct call *c, struct mcp_error *e)
{
	(void)c;
	(void)e;
	return json_object();
}

static json_t *h_discover(struct call *c, struct mcp_error *e)
{
	(void)c;
	(void)e;
	return json_pack("{s:o, s:o, s:s, s:i, s:s}", "supportedVersions", supported_versions(), "capabilities",
			 capabilities(), "instructions", instructions, "ttlMs", 3600000, "cacheScope", "private");
}

static json_t *h_tools_list(struct call *c, struct mcp_error *e)
{
	(void)e;
	json_t *r = json_pack("{s:o}", "tools", mcp_tools_list());
	if (c->modern) {
		json_object_set_new(r, "ttlMs", json_integer(3600000));
		json_object_set_new(r, "cacheScope", json_string("private"));
	}
	return r;
}

static json_t *h_tools_call(struct call *c, struct mcp_error *e)
{
	json_t *name = json_object_get(c->params, "name"), *args = json_object_get(c->params, "arguments");
	if (!json_is_string(name)) {
		mcp_fail(e, RPC_INVALID_PARAMS, "tools/call: params.name (a string) is missing");
		return NULL;
	}
	if (args && !json_is_object(args) && !json_is_null(args)) {
		mcp_fail(e, RPC_INVALID_PARAMS, "tools/call: params.arguments must be an object");
		return NULL;
	}
	json_t *empty = NULL;
	if (!json_is_object(args))
		args = empty = json_object();
	json_t *r = mcp_tools_call(json_string_value(name), args, c->key, c->cancel, e);
	json_decref(empty);
	return r;
}

static json_t *h_resources_list(struct call *c, struct mcp_error *e)
{
	(void)e;
	json_t *r = json_pack("{s:o}", "resources", mcp_resources_list(c->cancel, c->key));
	if (c->modern) {
		json_object_set_new(r, "ttlMs", json_integer(0));
		json_object_set_new(r, "cacheScope", json_string("private"));
	}
	return r;
}

static json_t *h_templates(struct call *c, struct mcp_error *e)
{
	(void)e;
	json_t *r = json_pack("{s:o}", "resourceTemplates", mcp_resource_templates());
	if (c->modern) {
		json_object_set_new(r, "ttlMs", json_integer(3600000));
		json_object_set_new(r, "cacheScope", json_string("private"));
	}
	return r;
}

static json_t *h_resources_read(struct call *c, struct mcp_error *e)
{
	json_t *uri = json_object_get(c->params, "uri");
	if (!json_is_string(uri)) {
		mcp_fail(e, RPC_INVALID_PARAMS, "resources/read: params.uri (a string) is missing");
		return NULL;
	}
	json_t *contents = mcp_resource_read(json_string_value(uri), c->modern, c->cancel, c->key, e);
	if (!contents)
		return NULL;
	json_t *r = json_pack("{s:o}", "contents", contents);
	if (c->modern) {
		json_object_set_new(r, "ttlMs", json_integer(0));
		json_object_set_new(r, "cacheScope", json_string("private"));
	}
	return r;
}

static const struct method {
	const char *name;
	handler_fn fn;
	bool legacy_only;
} methods[] = {
	{ "initialize", h_initialize, true },
	{ "ping", h_ping, true },
	{ "server/discover", h_discover, false },
	{ "tools/list", h_tools_list, false },
	{ "tools/call", h_tools_call, false },
	{ "resources/list", h_resources_list, false },
	{ "resources/templates/list", h_templates, false },
	{ "resources/read", h_resources_read, false },
	{ NULL, NULL, false },
};

static void notification(struct mcp_session *s, const char *method, json_t *params)
{
	if (!strcmp(method, "notifications/initialized")) {
		s->initialized = true;
	} else if (!strcmp(method, "notifications/cancelled")) {
		char key[160];
		mcp_id_key(json_object_get(params, "requestId"), key, sizeof key);
		worker_cancel(key);       /* an unknown or finished request: nothing to do */
	}
}

/* Modern requests: the version, the capabilities and (HTTP) the headers. */
static bool modern_checks(struct call *c, json_t *meta, struct mcp_error *e)
{
	json_t *v = json_object_get(meta, META_VERSION);
	if (!json_is_string(v)) {
		mcp_fail(e, RPC_INVALID_PARAMS, "_meta." META_VERSION " must be a string");
		return false;
	}
	c->version = json_string_value(v);
	if (strcmp(c->version, MODERN)) {
		mcp_fail(e, MCP_UNSUPPORTED_VERSION, "Unsupported protocol version");
		e->data = json_pack("{s:o, s:s}", "supported", supported_versions(), "requested", c->version);
		c->http_status = 400;
		return false;
	}
	if (!json_is_object(json_object_get(meta, META_CAPS))) {
		mcp_fail(e, RPC_INVALID_PARAMS, "_meta." META_CAPS " (an object) is missing");
		return false;
	}
	if (!c->http)
		return true;
	const char *what = NULL;
	char name[1024];
	if (!c->http->protocol_version || strcmp(c->http->protocol_version, c->version))
		what = "MCP-Protocol-Version";
	else if (!c->http->mcp_method || strcmp(c->http->mcp_method, c->method))
		what = "Mcp-Method";
	else if (!strcmp(c->method, "tools/call") || !strcmp(c->method, "resources/read")) {
		json_t *body = json_object_get(c->params, !strcmp(c->method, "tools/call") ? "name" : "uri");
		if (!c->http->mcp_name || !header_value(c->http->mcp_name, name, sizeof name) || !json_is_string(body) ||
		    strcmp(name, json_string_value(body)))
			what = "Mcp-Name";
	}
	if (what) {
		mcp_fail(e, MCP_HEADER_MISMATCH, "Header mismatch: the %s header is missing or does not match the body", what);
		c->http_status = 400;
		return false;
	}
	return true;
}

static void decorate_modern(json_t *result)
{
	json_object_set_new(result, "resultType", json_string("complete"));
	json_t *meta = json_object_get(result, "_meta");
	if (!json_is_object(meta)) {
		meta = json_object();
		json_object_set_new(result, "_meta", meta);
	}
	json_object_set_new(meta, META_SERVER, server_info());
}

void mcp_handle(struct mcp_session *s, const char *msg, size_t len, const struct mcp_http_request *http,
		const struct mcp_cancel *cancel, struct mcp_reply *out)
{
	out->body = NULL;
	out->http_status = 200;
	json_error_t jerr;
	json_t *m = json_loadb(msg, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
	if (!m) {
		char text[320];
		snprintf(text, sizeof text, "Parse error: %s (at byte %d)", jerr.text, jerr.position);
		out->body = error_message(NULL, RPC_PARSE_ERROR, text, NULL);
		out->http_status = 400;
		return;
	}
	json_t *id = json_object_get(m, "id"), *method = json_object_get(m, "method"),
	       *params = json_object_get(m, "params"), *version = json_object_get(m, "jsonrpc");
	const char *bad = NULL;
	if (json_is_array(m))
		bad = "Invalid Request: batches are not part of MCP (one message per line or POST)";
	else if (!json_is_object(m))
		bad = "Invalid Request: a message is a JSON object";
	else if (!json_is_string(version) || strcmp(json_string_value(version), "2.0"))
		bad = "Invalid Request: \"jsonrpc\" must be \"2.0\"";
	else if (id && !json_is_string(id) && !json_is_integer(id))
		bad = "Invalid Request: \"id\" must be a string or an integer";
	else if (!method && id && (json_object_get(m, "result") || json_object_get(m, "error"))) {
		json_decref(m);            /* a response: td-mcp sends no requests, nothing to match */
		out->http_status = 202;
		return;
	} else if (!json_is_string(method))
		bad = "Invalid Request: \"method\" (a string) is missing";
	else if (params && !json_is_object(params))
		bad = "Invalid Request: \"params\" must be an object";
	if (bad) {
		out->body = error_message(json_is_string(id) || json_is_integer(id) ? id : NULL, RPC_INVALID_REQUEST, bad, NULL);
		out->http_status = 400;
		json_decref(m);
		return;
	}
	const char *name = json_string_value(method);
	if (!id) {
		notification(s, name, params);
		out->http_status = 202;
		json_decref(m);
		return;
	}
	json_t *empty = NULL;
	if (!params)
		params = empty = json_object();
	struct call c = { s, http, cancel, name, params, false, NULL, "", 200 };
	mcp_id_key(id, c.key, sizeof c.key);
	struct mcp_error e = { 0 };
	json_t *meta = json_object_get(params, "_meta");
	json_t *result = NULL;
	if (json_is_object(meta) && json_object_get(meta, META_VERSION) && strcmp(name, "initialize")) {
		c.modern = true;
		if (!modern_checks(&c, meta, &e))
			goto reply;
	} else {
		c.version = s->version[0] ? s->version : legacy_versions[0];
		if (http && http->protocol_version && !strcmp(http->protocol_version, MODERN)) {
			mcp_fail(&e, MCP_HEADER_MISMATCH, "Header mismatch: MCP-Protocol-Version is " MODERN
				 " but params._meta does not carry " META_VERSION);
			c.http_status = 400;
			goto reply;
		}
		if (http && http->protocol_version && strcmp(name, "initialize")) {
			if (!legacy_supported(http->protocol_version)) {
				mcp_fail(&e, RPC_INVALID_REQUEST, "Unsupported MCP-Protocol-Version: %s", http->protocol_version);
				e.data = json_pack("{s:o, s:s}", "supported", supported_versions(), "requested",
						   http->protocol_version);
				c.http_status = 400;
				goto reply;
			}
			c.version = http->protocol_version;
		}
	}
	const struct method *h = NULL;
	for (const struct method *p = methods; p->name && !h; p++)
		if (!strcmp(p->name, name) && !(p->legacy_only && c.modern))
			h = p;
	if (!h) {
		mcp_fail(&e, RPC_METHOD_NOT_FOUND, "Method not found: %s", name);
		if (c.modern)
			c.http_status = 404;
		goto reply;
	}
	result = h->fn(&c, &e);
	if (result && c.modern)
		decorate_modern(result);
reply:
	if (result) {
		out->body = dump(json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result", result));
	} else if (e.code == MCP_CANCELLED) {          /* no response for a cancelled request */
		out->http_status = 499;
	} else {
		out->body = error_message(id, e.code ? e.code : RPC_INTERNAL_ERROR, e.message[0] ? e.message : "internal error",
					  e.data);
	}
	out->http_status = out->body ? c.http_status : out->http_status;
	json_decref(empty);
	json_decref(m);
}
