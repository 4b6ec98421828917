/* td-mcp: the Model Context Protocol over tdkit's store, filters and
 * explanations. One module per job:
 *   reader.c    newline-delimited messages from a byte stream, with a size limit
 *   protocol.c  JSON-RPC 2.0 and MCP: versions, methods, errors (both eras)
 *   tools.c     the tool table (schemas) and argument checks
 *   tools_store.c, tools_files.c   what each tool does
 *   resources.c tdkit:// resources
 *   worker.c    a tool's work in a child process, cancellable
 *   stdio.c, http.c   the two transports
 *
 * Design choice: every tool runs the code the command-line tools run
 * (td-store's verbs, the derive engine, td-fold, td-branches, td-collect)
 * in a child process whose stdout is the tool's result. A verb that exits
 * on bad input, leaks or crashes ends only its child; cancelling a request
 * kills it; the server's memory does not grow with the requests it served.
 * Cost: one fork per tool call (about a millisecond). */
#ifndef TD_MCP_H
#define TD_MCP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define MCP_SERVER_NAME "td-mcp"
#define MCP_MAX_ALLOW_DIRS 32

/* What the command line configured; read-only once serving. */
struct mcp_config {
	const char *db;                        /* --db, NULL: $TD_DB or the default */
	const char *allow_dir[MCP_MAX_ALLOW_DIRS];   /* realpaths */
	int nallow_dir;
	bool allow_collect;
	size_t max_message;                    /* bytes; a longer message is refused */
	const char *bin_dir;                   /* where td-fold, td-branches, td-collect are */
	double tool_timeout_s;
};
extern struct mcp_config mcp_cfg;

/* ---- protocol.c ---- */

/* Legacy (initialize-based) state of one stdio process or one HTTP
 * request; modern requests carry their version and need none. */
struct mcp_session {
	char version[16];                      /* negotiated by initialize, "" before */
	bool initialized;                      /* notifications/initialized seen */
};

/* What the HTTP transport read from the request's headers (NULL on stdio). */
struct mcp_http_request {
	const char *protocol_version;          /* MCP-Protocol-Version */
	const char *mcp_method;                /* Mcp-Method */
	const char *mcp_name;                  /* Mcp-Name */
};

/* How to notice that the request being served was cancelled (stdio: a
 * notifications/cancelled line; HTTP: the client closed the connection). */
struct mcp_cancel {
	int fd;                                /* polled while a tool runs; -1: none */
	bool (*cancelled)(void *ctx);          /* called when fd is readable */
	void *ctx;
};

struct mcp_reply {
	char *body;                            /* a JSON-RPC message (malloc), NULL: nothing to send */
	int http_status;                       /* 200, 202, 400, 404 ... */
};

/* One message in, at most one message out. Never fails: a bad message gets
 * its JSON-RPC error. */
void mcp_handle(struct mcp_session *s, const char *msg, size_t len, const struct mcp_http_request *http,
		const struct mcp_cancel *cancel, struct mcp_reply *out);
/* The error for a message longer than the limit (id null). */
char *mcp_too_large(size_t limit);
/* A request id as a string key ("n:12", "s:abc"): the in-flight table's. */
void mcp_id_key(const json_t *id, char *buf, size_t cap);

/* JSON-RPC and MCP error codes. */
enum {
	RPC_PARSE_ERROR = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_METHOD_NOT_FOUND = -32601,
	RPC_INVALID_PARAMS = -32602,
	RPC_INTERNAL_ERROR = -32603,
	MCP_RESOURCE_NOT_FOUND_LEGACY = -32002,
	MCP_HEADER_MISMATCH = -32020,
	MCP_UNSUPPORTED_VERSION = -32022,
	MCP_CANCELLED = 1,                     /* not sent: the request gets no response */
};

/* A failure a handler reports: a JSON-RPC error (code != 0) or nothing. */
struct mcp_error {
	int code;
	char message[512];
	json_t *data;                          /* owned; may be NULL */
};
void mcp_fail(struct mcp_error *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- tools.c ---- */

/* The tools/list array (a new reference). */
json_t *mcp_tools_list(void);
/* tools/call: the CallToolResult, or NULL with e set (unknown tool, bad
 * arguments: -32602). A tool that runs and fails is a result with isError. */
json_t *mcp_tools_call(const char *name, json_t *args, const char *request_key, const struct mcp_cancel *cancel,
		       struct mcp_error *e);

/* A result with text and, when structured is not NULL, structuredContent
 * (stolen). */
json_t *mcp_tool_result(const char *text, json_t *structured, bool is_error);
json_t *mcp_tool_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- tools_store.c, tools_files.c: each tool, its arguments already
 * checked against its inputSchema (types, ranges, enums, required). A tool
 * returns its CallToolResult, or NULL when the request was cancelled. ---- */
json_t *tool_list_runs(json_t *args, const struct mcp_cancel *c, const char *key);
json_t *tool_get_run(json_t *args, const struct mcp_cancel *c, const char *key);
json_t *tool_query_bottlenecks(json_t *args, const struct mcp_cancel *c, const char *key);
json_t *tool_query_by_node(json_t *args, const struct mcp_cancel *c, const char *key);
json_t *tool_compare_runs(json_t *args, const struct mcp_cancel *c, const char *key);
json_t *tool_compare_by_labels(json_t *args, const struct mcp_cancel *c, const char *key);
json_t *tool_trend(json_t *args, const struct mcp_cancel *c, const char *key);
json_t *tool_explain_node(json_t *args, const struct mcp_cancel *c, const char *key);
json_t *tool_derive(json_t *args, const struct mcp_cancel *c, const char *key);
json_t *tool_fold_top(json_t *args, const struct mcp_cancel *c, const char *key);
json_t *tool_branches_top(json_t *args, const struct mcp_cancel *c, const char *key);
json_t *tool_collect(json_t *args, const struct mcp_cancel *c, const char *key);

/* The text of a store verb's run (td-store VERB ARGS --db ...): stdout in
 * *out, its exit code returned; -1 with *out the reason when it did not
 * finish (cancelled, timed out, crashed). */
int mcp_store_verb(const char *const *argv, const struct mcp_cancel *c, const char *key, char **out, char **err);

/* ---- resources.c ---- */
json_t *mcp_resources_list(const struct mcp_cancel *c, const char *key);
json_t *mcp_resource_templates(void);
/* The contents array, or NULL with e set (not found: code from the era). */
json_t *mcp_resource_read(const char *uri, bool modern, const struct mcp_cancel *c, const char *key,
			  struct mcp_error *e);

/* ---- worker.c ---- */
enum worker_status { WORKER_DONE, WORKER_CANCELLED, WORKER_TIMEOUT, WORKER_FAILED };
struct worker_result {
	enum worker_status status;
	int exit_code;                         /* WORKER_DONE: the child's */
	char *out, *err;                       /* its stdout and stderr (malloc, NUL-terminated) */
	size_t out_len;
};
/* Runs fn(arg) in a child with stdout and stderr captured; fn's return is
 * the exit code. An execv in fn is fine (the child is a process of its
 * own). While it runs, cancel->fd is polled and a request cancelled by key
 * (worker_cancel) or by cancel->cancelled ends it with SIGKILL. */
void worker_run(int (*fn)(void *arg), void *arg, const char *key, const struct mcp_cancel *cancel, double timeout_s,
		struct worker_result *r);
void worker_result_free(struct worker_result *r);
/* notifications/cancelled: kill the request with this key; false if none runs. */
bool worker_cancel(const char *key);

/* ---- reader.c ---- */
struct mcp_reader {
	char *buf;
	size_t len, cap;
	size_t start;                          /* bytes already handed out, dropped on the next call */
	size_t limit;
	bool discarding;                       /* inside a line longer than limit */
};
enum reader_event { READER_NONE, READER_MESSAGE, READER_TOO_LARGE };
void reader_init(struct mcp_reader *r, size_t limit);
void reader_free(struct mcp_reader *r);
/* Appends bytes read from the stream. */
void reader_feed(struct mcp_reader *r, const char *p, size_t n);
/* The next complete message (without its newline or CR), valid until the
 * next call; READER_TOO_LARGE once per line over the limit (its bytes are
 * dropped as they come, never kept). Blank lines are skipped. */
enum reader_event reader_next(struct mcp_reader *r, const char **msg, size_t *len);

/* ---- stdio.c, http.c ---- */
int mcp_serve_stdio(void);
/* addr "HOST:PORT"; token the bearer token; allow_remote: bind a
 * non-loopback address. Returns the exit code. */
int mcp_serve_http(const char *addr, const char *token, bool allow_remote, const char *const *origins, int norigins);

/* A growing text (a tool's text content). */
struct mcp_text {
	char *s;
	size_t len;
};
void mcp_text_add(struct mcp_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
