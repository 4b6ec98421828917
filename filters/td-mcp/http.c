/* The Streamable HTTP transport on libmicrohttpd: one endpoint, POST /mcp,
 * one JSON-RPC message per POST, answered with one JSON object (no SSE
 * stream is needed: td-mcp sends no notifications and no requests). No
 * sessions are minted. A connection per thread, so a long tool call does
 * not hold up others; a client that hangs up cancels its request.
 *
 * Every request is checked in this order: the Origin header (present and
 * not this machine or an --allow-origin: 403), the bearer token (missing or
 * wrong: 401 with WWW-Authenticate, and no data), the path (404) and the
 * method (GET/DELETE: 405), then the body's size (413) and the message. */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "common/diag.h"
#include "filters/td-mcp/mcp.h"

#define ENDPOINT "/mcp"

struct http_server {
	const char *token;
	const char *const *origins;
	int norigins;
};
static struct http_server server;

struct upload {
	char *body;
	size_t len, cap;
	bool too_large;
};

static enum MHD_Result respond(struct MHD_Connection *c, int status, const char *body, const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(body ? strlen(body) : 0, (void *)(body ? body : ""),
								 MHD_RESPMEM_MUST_COPY);
	if (type)
		MHD_add_response_header(r, "Content-Type", type);
	if (status == 401)
		MHD_add_response_header(r, "WWW-Authenticate", "Bearer realm=\"td-mcp\"");
	if (status == 405)
		MHD_add_response_header(r, "Allow", "POST");
	enum MHD_Result ok = MHD_queue_response(c, (unsigned)status, r);
	MHD_destroy_response(r);
	return ok;
}

/* Constant time in the token's length: a wrong guess learns nothing from the clock. */
static bool token_ok(const char *header)
{
	static const char prefix[] = "Bearer ";
	if (!header || strncasecmp(header, prefix, sizeof prefix - 1))
		return false;
	const char *given = header + sizeof prefix - 1;
	size_t n = strlen(server.token), m = strlen(given);
	unsigned char diff = (unsigned char)(n != m);
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)(server.token[i] ^ (i < m ? given[i] : 0));
	return diff == 0;
}

static bool origin_ok(const char *origin)
{
	if (!origin)
		return true;
	for (int i = 0; i < server.norigins; i++)
		if (!strcmp(origin, server.origins[i]))
			return true;
	static const char *const local[] = { "http://localhost", "https://localhost", "http://127.0.0.1", "https://127.0.0.1",
					     "http://[::1]", "https://[::1]", NULL };
	for (int i = 0; local[i]; i++) {
		size_t n = strlen(local[i]);
		if (!strncmp(origin, local[i], n) && (!origin[n] || origin[n] == ':'))
			return origin[n] != ':' || strspn(origin + n + 1, "0123456789") == strlen(origin + n + 1);
	}
	return false;
}

static bool peer_closed(void *ctx)
{
	int fd = *(int *)ctx;
	char b;
	ssize_t k = recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	return k == 0 || (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *data, size_t *size, void **state)
{
	(void)cls;
	(void)version;
	struct upload *u = *state;
	if (!u) {
		/* headers only: everything that needs no body is decided here */
		if (!origin_ok(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin")))
			return respond(c, 403, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Forbidden: this Origin may not use td-mcp (--allow-origin)\"}}", "application/json");
		if (!token_ok(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization")))
			return respond(c, 401, NULL, NULL);
		if (strcmp(url, ENDPOINT))
			return respond(c, 404, NULL, NULL);
		if (strcmp(method, "POST"))
			return respond(c, 405, NULL, NULL);
		u = td_calloc(1, sizeof *u);
		*state = u;
		return MHD_YES;
	}
	if (*size) {
		if (!u->too_large && u->len + *size > mcp_cfg.max_message) {
			u->too_large = true;
			free(u->body);
			u->body = NULL;
			u->len = u->cap = 0;
		}
		if (!u->too_large) {
			if (u->len + *size + 1 > u->cap) {
				u->cap = (u->len + *size + 1) * 2;
				u->body = td_realloc(u->body, u->cap);
			}
			memcpy(u->body + u->len, data, *size);
			u->len += *size;
		}
		*size = 0;
		return MHD_YES;
	}
	if (u->too_large) {
		char *body = mcp_too_large(mcp_cfg.max_message);
		enum MHD_Result r = respond(c, 413, body, "application/json");
		free(body);
		return r;
	}
	struct mcp_http_request h = {
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "MCP-Protocol-Version"),
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Mcp-Method"),
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Mcp-Name"),
	};
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	int fd = info ? info->connect_fd : -1;
	struct mcp_cancel cancel = { fd, peer_closed, &fd };
	struct mcp_session session = { "", false };
	struct mcp_reply reply;
	mcp_handle(&session, u->body ? u->body : "", u->len, &h, &cancel, &reply);
	enum MHD_Result r;
	if (!reply.body && reply.http_status == 499)
		r = MHD_NO;                    /* cancelled: the client is gone, nothing to send */
	else
		r = respond(c, reply.body ? reply.http_status : 202, reply.body, reply.body ? "application/json" : NULL);
	free(reply.body);
	return r;
}

static void done(void *cls, struct MHD_Connection *c, void **state, enum MHD_RequestTerminationCode why)
{
	(void)cls;
	(void)c;
	(void)why;
	struct upload *u = *state;
	if (u) {
		free(u->body);
		free(u);
	}
	*state = NULL;
}

/* HOST:PORT, HOST an IPv4 address, "localhost" or [IPv6]; a PORT alone is
 * on 127.0.0.1. */
static bool parse_addr(const char *addr, struct sockaddr_storage *ss, bool *loopback)
{
	char host[128], with_host[160];
	if (*addr && strspn(addr, "0123456789") == strlen(addr)) {
		snprintf(with_host, sizeof with_host, "127.0.0.1:%s", addr);
		addr = with_host;
	}
	const char *colon = strrchr(addr, ':');
	if (!colon || colon == addr || (size_t)(colon - addr) >= sizeof host)
		return false;
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = 0;
	char *end;
	long port = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || port < 0 || port > 65535)
		return false;
	memset(ss, 0, sizeof *ss);
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		host[strlen(host) - 1] = 0;
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1)
			return false;
		*loopback = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
		return true;
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)port);
	if (!strcmp(host, "localhost"))
		snprintf(host, sizeof host, "127.0.0.1");
	if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
		return false;
	*loopback = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
	return true;
}

int mcp_serve_http(const char *addr, const char *token, bool allow_remote, const char *const *origins, int norigins)
{
	struct sockaddr_storage ss;
	bool loopback = false;
	if (!parse_addr(addr, &ss, &loopback)) {
		td_error("--http %s: want HOST:PORT or PORT (127.0.0.1:8808, [::1]:8808, 8808)", addr);
		return TD_EXIT_BAD;
	}
	if (!loopback && !allow_remote) {
		td_error("--http %s: not a loopback address; serving other machines needs --allow-remote as well", addr);
		return TD_EXIT_BAD;
	}
	server = (struct http_server){ token, origins, norigins };
	unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
			 (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0);
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);       /* the server's threads inherit it; sigwait below takes them */
	signal(SIGPIPE, SIG_IGN);
	struct MHD_Daemon *d = MHD_start_daemon(flags, 0, NULL, NULL, handle, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
						MHD_OPTION_NOTIFY_COMPLETED, done, NULL, MHD_OPTION_CONNECTION_LIMIT,
						(unsigned)64, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)300, MHD_OPTION_END);
	if (!d) {
		td_error("--http %s: cannot listen there: %s", addr, strerror(errno));
		return TD_EXIT_BAD;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	char host[128];
	const char *colon = strrchr(addr, ':');
	snprintf(host, sizeof host, "%.*s", colon ? (int)(colon - addr) : 9, colon ? addr : "127.0.0.1");
	fprintf(stderr, "td-mcp: listening on http://%s:%u" ENDPOINT "\n", host, info ? info->port : 0);
	fflush(stderr);
	int sig;
	sigwait(&stop, &sig);
	MHD_stop_daemon(d);
	return TD_EXIT_OK;
}
